"""Robust skewness of NIG samples against the shape parameter nu (heavy-tails paper P001, Fig. 3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval.stats.robust import beta_gm
from uqval.stats.synthetic import rinvgamma


def nig_skewness_curve(
    nus: ArrayLike, sample_size: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """NIG model line of P001 Fig. 6: rows (nu, beta_GM(uE^2), beta_GM(E^2)).

    For a calibrated NIG dataset uE^2 ~ Gamma^-1(nu/2, nu/2) and E^2 ~ F(1, nu) marginally;
    both beta_GM are estimated on samples of ``sample_size`` (the authors' code: 10^6).
    """
    rows = []
    for nu in np.asarray(nus, dtype=float):
        u2 = rinvgamma(rng, nu / 2, nu / 2, sample_size)
        e2 = rng.f(1.0, nu, sample_size)
        rows.append((nu, beta_gm(u2), beta_gm(e2)))
    return np.array(rows)

