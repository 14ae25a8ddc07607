"""Rule dataset_page: results/datasets/<id>/ (engine report, simulated references, heavy-tail
screening, UCC gain, coverage and shape stages of predictive datasets, provenance).

A dataset with uE was validated by rule dataset_engine (beside its other jobs): its page is
that report with the other jobs' tables inserted."""

import json
import logging
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits

from uqval.pipeline.dataset_page import (
    dataset_tables,
    finish_variance_page,
    interval_page,
    predictive_page,
    predictive_result,
)
from uqval.pipeline.scripting import run_logged


def _json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def main(smk):
    inp = smk.input
    table = pd.read_csv(inp.table)
    report = _json(inp.report)
    extra = dataset_tables(
        report,
        screening=_json(inp.screen) if "screen" in inp.keys() else None,
        zeta=pd.read_csv(inp.zeta) if "zeta" in inp.keys() else None,
        simref_summary=_json(inp.simref) if "simref" in inp.keys() else None,
        ucc=pd.read_csv(inp.ucc) if "ucc" in inp.keys() else None,
    )
    if "engine" in inp.keys():  # the tables not on the engine's page go first, as variance_page puts them
        known = dataset_tables(report)
        page = finish_variance_page(inp.engine, smk.output.page,
                                    {k: v for k, v in extra.items() if k not in known})
        logging.info("%s: %s", page["id"], page["stage_verdicts"])
        return
    # BLAS on one thread, as the command line: sums that do not depend on the cores given
    with threadpool_limits(limits=1, user_api="blas"):
        page = _validated_page(inp, smk, table, report, extra)
    logging.info("%s: %s", page["id"], page["stage_verdicts"])


def _validated_page(inp, smk, table, report, extra):
    p = smk.params
    settings = dict(seed=p.seed, n_boot=p.n_boot, n_bins=p.n_bins, n_permutations=p.n_permutations,
                    n_workers=smk.threads)
    if "predictive" in report:  # y_true with a distribution, members, quantiles, intervals
        page = predictive_page(table, report, smk.output.page, extra=extra, **settings)
    else:  # half-widths U_P: the flowchart's interval checks and the coverage stage
        page = interval_page(pd.read_csv(inp.checks), Path(inp.summary).read_text(encoding="utf-8"),
                             report, smk.output.page, extra=extra,
                             coverage=predictive_result(table, report, **settings))
    return page


run_logged(snakemake, main)  # noqa: F821
