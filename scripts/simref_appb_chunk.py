"""Rule simref_appb_chunk: ENCE and ZMSE reference values for one model and one M (App. B)."""

import logging

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.simref import appendix_b
from uqval.pipeline.scripting import run_logged


def main(smk):
    g = smk.params.settings["appb"]
    model, M = smk.wildcards.model, int(smk.wildcards.M)
    tables = []
    for nu in g["nu"]:
        seed = appendix_b.appb_seed(smk.params.seed, model, M, g["N"], nu)
        tables.append(appendix_b.ence_zmse_reference_grid_point(M, g["N"], nu, model, g["n_mc"], seed))
        logging.info("%s M = %d nu = %g done", model, M, nu)
    write_csv(pd.concat(tables, ignore_index=True), smk.output.table)


run_logged(snakemake, main)  # noqa: F821
