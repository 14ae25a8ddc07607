"""Rule ucc_dataset: AUUCC gain of a dataset's uncertainties over a constant band."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.ucc.literature import dataset_gains
from uqval.pipeline.scripting import run_logged


def main(smk):
    table = pd.read_csv(smk.input.table)
    write_csv(dataset_gains(table, smk.params.n_permutations, smk.params.seed).assign(dataset=smk.wildcards.dataset),
              smk.output.gains)


run_logged(snakemake, main)  # noqa: F821
