"""Rule nig_skewness_curve: beta_GM(uE^2) and beta_GM(E^2) of NIG samples over nu."""

import numpy as np
import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails.shapes import nig_skewness_curve
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params.curve
    nus = np.geomspace(p["nu_min"], p["nu_max"], p["n_nu"])
    curve = nig_skewness_curve(nus, p["sample_size"], np.random.default_rng(smk.params.seed))
    write_csv(pd.DataFrame(curve, columns=["nu", "beta_uE2", "beta_E2"]), smk.output.curve)


run_logged(snakemake, main)  # noqa: F821
