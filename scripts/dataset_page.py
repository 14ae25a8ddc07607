"""Rule dataset_page: results/datasets/<id>/ (engine report, simulated references, heavy-tail
screening, UCC gain, coverage and shape stages of predictive datasets, provenance)."""

import json
import logging
from pathlib import Path

import pandas as pd

from uqval.pipeline.dataset_page import (
    dataset_tables,
    interval_page,
    predictive_page,
    predictive_result,
    variance_page,
)
from uqval.pipeline.scripting import run_logged


def _json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def main(smk):
    inp, p = smk.input, smk.params
    table = pd.read_csv(inp.table)
    report = _json(inp.report)
    extra = dataset_tables(
        report,
        screening=_json(inp.screen) if "screen" in inp.keys() else None,
        zeta=pd.read_csv(inp.zeta) if "zeta" in inp.keys() else None,
        simref_summary=_json(inp.simref) if "simref" in inp.keys() else None,
        ucc=pd.read_csv(inp.ucc) if "ucc" in inp.keys() else None,
    )
    settings = dict(seed=p.seed, n_boot=p.n_boot, n_bins=p.n_bins, n_permutations=p.n_permutations,
                    n_workers=smk.threads)
    if "predictive" in report:  # y_true with a distribution, members, quantiles, intervals
        page = predictive_page(table, report, smk.output.page, extra=extra, **settings)
    elif "uE" in table:
        page = variance_page(table, report, smk.output.page, extra=extra, **settings)
    else:  # half-widths U_P: the flowchart's interval checks and the coverage stage
        page = interval_page(pd.read_csv(inp.checks), Path(inp.summary).read_text(encoding="utf-8"),
                             report, smk.output.page, extra=extra,
                             coverage=predictive_result(table, report, **settings))
    logging.info("%s: %s", page["id"], page["stage_verdicts"])


run_logged(snakemake, main)  # noqa: F821
