"""Rule heavytails_tig_bias: RCE, RCE2 and 1-ZMS over the TIG grid (Figs 4 and 11)."""

import logging

import numpy as np
import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails.montecarlo import tig_bias_point
from uqval.pipeline.scripting import run_logged


def main(smk):
    g = smk.params.grid
    points = []
    grid = [(nu_ig, nu_d) for nu_d in g["nu_d"] for nu_ig in g["nu_ig"]]
    seeds = np.random.SeedSequence(smk.params.seed).spawn(len(grid))
    for (nu_ig, nu_d), seed in zip(grid, seeds, strict=True):
        points.append(tig_bias_point(nu_ig, nu_d, g["n_sets"], g["M"], seed))
        logging.info("TIG point nu_IG = %g, nu_D = %g done (%d/%d)", nu_ig, nu_d, len(points), len(grid))
    write_csv(pd.DataFrame(points), smk.output.points)


run_logged(snakemake, main)  # noqa: F821
