"""Rule validate_dataset: the P003 flowchart for one dataset, as a table and a one-page summary."""

import json
import logging
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import write_atomic, write_csv
from uqval.calibration.screening import SkewnessLimits
from uqval.pipeline.scripting import run_logged
from uqval.validation.flowchart import (
    checks_table,
    flowchart_summary_markdown,
    validate_intervals,
    validate_variance,
    verdicts,
)


def main(smk):
    p = smk.params
    table = pd.read_csv(smk.input.table)
    report = json.loads(Path(smk.input.report).read_text())
    if "uE" in table:
        checks = validate_variance(table, p.features, p.n_boot, p.seed, SkewnessLimits(**p.limits), p.n_bins)
    else:
        checks = validate_intervals(table, p.levels, p.features, p.n_bins)
    for stage, verdict in verdicts(checks).items():
        logging.info("%s: %s", stage, verdict)
    write_csv(checks_table(checks), smk.output.checks)
    text = flowchart_summary_markdown(smk.wildcards.dataset, report, checks)
    write_atomic(smk.output.summary, lambda fh: fh.write(text))


run_logged(snakemake, main)  # noqa: F821
