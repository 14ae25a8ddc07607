"""Rule dataset_engine: uqval.validate of a dataset with uE and its report (the dataset page
without the simulated references, screening and UCC gain, which rule dataset_page adds)."""

import json
import logging
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits

from uqval.pipeline.dataset_page import dataset_tables, variance_page
from uqval.pipeline.scripting import run_logged


def main(smk):
    inp, p = smk.input, smk.params
    table = pd.read_csv(inp.table)
    report = json.loads(Path(inp.report).read_text(encoding="utf-8"))
    # BLAS on one thread, as the command line: sums that do not depend on the cores given
    with threadpool_limits(limits=1, user_api="blas"):
        page = variance_page(table, report, smk.output.engine, extra=dataset_tables(report),
                             seed=p.seed, n_boot=p.n_boot, n_bins=p.n_bins,
                             n_permutations=p.n_permutations, n_workers=smk.threads)
    logging.info("%s: %s", page["id"], page["stage_verdicts"])


run_logged(snakemake, main)  # noqa: F821
