"""Rule adaptivity_random_order_chunk: f_v of LZM/LZMS after random permutations (P003 Fig. 4)."""

import logging

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.adaptivity.random_order import random_order_fv
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params
    table = pd.read_csv(smk.input.table)
    x = table[smk.wildcards.variable].to_numpy()
    perms = random_order_fv(table["E"], table["uE"], x, p.n_bins, p.permutations, p.seed, p.n_boot_min)
    logging.info("%s: permutations %d-%d done", smk.wildcards.variable, p.permutations[0], p.permutations[-1])
    write_csv(perms, smk.output.perms)


run_logged(snakemake, main)  # noqa: F821
