"""Rule heavytails_shape_curves: beta_GM and kappa_CS of F(1, nu) and IG samples (Fig. 3)."""

import numpy as np
import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails.montecarlo import (
    shape_statistic_curves,
    squared_normal_shape_statistics,
)
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params.curves
    nus = np.geomspace(p["nu_min"], p["nu_max"], p["n_nu"])
    write_csv(shape_statistic_curves(nus, p["sample_size"], smk.params.seed), smk.output.curves)
    chi2 = squared_normal_shape_statistics()
    values = pd.DataFrame({"key": ["mc/chi2_1/beta_GM", "mc/chi2_1/kappa_CS"],
                           "value": [chi2["beta_GM"], chi2["kappa_CS"]]})
    write_csv(values, smk.output.values)


run_logged(snakemake, main)  # noqa: F821
