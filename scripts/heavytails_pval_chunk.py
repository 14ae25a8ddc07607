"""Rule heavytails_pval_chunk: zeta-scores of ZMS and RCE for a slice of the p_val repeats."""

import logging

import pandas as pd

from uqval.atomic import write_csv
from uqval.papers.heavytails.montecarlo import pval_repeats, tig_fixed_uncertainties
from uqval.pipeline.scripting import run_logged


def main(smk):
    scenario = smk.wildcards.scenario
    p = smk.params
    fixed_uE = tig_fixed_uncertainties(p.M, p.seed) if scenario == "TIG" else None
    tables = []
    for i, nu in enumerate(p.nus, start=1):
        tables.append(pval_repeats(scenario, nu, p.repeats, p.M, p.n_boot, p.seed, fixed_uE=fixed_uE))
        logging.info("%s nu = %g: repeats %d-%d done (%d/%d)", scenario, nu, p.repeats[0], p.repeats[-1],
                     i, len(p.nus))
    write_csv(pd.concat(tables, ignore_index=True), smk.output.repeats)


run_logged(snakemake, main)  # noqa: F821
