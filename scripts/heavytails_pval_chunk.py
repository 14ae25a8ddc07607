"""Rule heavytails_pval_chunk: zeta-scores of ZMS and RCE for a slice of the p_val repeats."""

import logging

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails.montecarlo import pval_repeats, tig_fixed_uncertainties
from uqval.pipeline.scripting import run_logged

LOG_EVERY = 25  # repeats between progress lines


def main(smk):
    scenario = smk.wildcards.scenario
    p = smk.params
    fixed_uE = tig_fixed_uncertainties(p.M, p.seed) if scenario == "TIG" else None
    repeats = list(p.repeats)
    tables = []
    for start in range(0, len(repeats), LOG_EVERY):
        part = repeats[start : start + LOG_EVERY]
        tables.append(pval_repeats(scenario, p.nus, part, p.M, p.n_boot, p.seed, fixed_uE=fixed_uE))
        logging.info("%s, all %d nu: repeats %d-%d done (%d/%d)", scenario, len(p.nus), part[0],
                     part[-1], start + len(part), len(repeats))
    # nu-major, as pval_repeats orders one call: the rows of each nu in repeat order
    rows = pd.concat([t[t["nu"] == float(nu)] for nu in p.nus for t in tables], ignore_index=True)
    write_csv(rows, smk.output.repeats)


run_logged(snakemake, main)  # noqa: F821
