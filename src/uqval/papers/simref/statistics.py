"""Paper-specific statistics of the simref paper (P002): the z-score summary of Table II, straight-line
fits and the App. C extrapolation of ZMSE to zero bins.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.checks import errors_uncertainties
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.binned_errors import zmse_batch
from uqval.simref.statistics import DEFAULT_N_BOOT, SortedFrame
from uqval.stats.bootstrap import (
    MeanStatistic,
    bca_bootstrap,
)

# uqval.stats.fits (scipy.stats and scipy.optimize, 0.4 CPU-s) is imported by zscore_summary on
# first use: rule simref_set needs this module's ZMSE extrapolation only.

__all__ = [
    "LinearFit",
    "ZmseExtrapolation",
    "ols_line",
    "zmse_extrapolation",
    "zscore_summary",
]

def _sd_statistic(m: int, centre: float) -> MeanStatistic:
    """sd(Z) (ddof = 1) as a mean statistic of the centred columns Z - c, (Z - c)^2."""

    def combine(means: FloatArray) -> FloatArray:
        # M/(M - 1) is also applied to the (M - 1)-point jackknife values: a constant factor,
        # to which the BCa acceleration is invariant.
        var = (means[..., 1] - means[..., 0] ** 2) * m / (m - 1)
        return np.sqrt(np.maximum(var, 0.0))

    return MeanStatistic(
        columns=lambda E, uE: (E / uE - centre, np.square(E / uE - centre)), combine=combine
    )


def zscore_summary(
    E: ArrayLike, uE: ArrayLike, *, n_boot: int = DEFAULT_N_BOOT, seed: SeedLike = None
) -> dict[str, float]:
    """One row of P002 Table II.

    mu_Z = mean(Z) with SE sd/sqrt(M); sigma_Z = sd(Z) (ddof = 1) with SE the bootstrap
    standard error of sd (BCa run, n_boot = 5000 [code]); b_Z = 100 abs(mu_Z)/sigma_Z; nu_Z
    (and the location/scale) of the ML scaled-shifted Student t fit
    (:func:`uqval.stats.fits.fit_scaled_t`).
    """
    from uqval.stats.fits import fit_scaled_t

    e, ue = errors_uncertainties(E, uE)
    z = e / ue
    fit = fit_scaled_t(z)
    bs = bca_bootstrap((e, ue), _sd_statistic(z.size, fit.mean), n_boot=n_boot, seed=seed)
    return {
        "M": z.size,
        "mu_Z": fit.mean,
        "se_mu_Z": fit.sd / math.sqrt(z.size),
        "sigma_Z": fit.sd,
        "se_sigma_Z": bs.se,
        "b_Z": fit.relative_bias,
        "nu_Z": fit.nu,
        "t_mu": fit.mu,
        "t_sigma": fit.sigma,
    }


@dataclass(frozen=True)
class LinearFit:
    """Ordinary least squares y = intercept + slope x (R ``lm``), SEs from the residuals.

    ``intercept`` and ``intercept_se`` are 0 and NaN for a fit through the origin.
    """

    intercept: float
    slope: float
    intercept_se: float
    slope_se: float
    residual_sd: float
    n: int
    with_intercept: bool


def ols_line(x: ArrayLike, y: ArrayLike, intercept: bool = True) -> LinearFit:
    """OLS fit of a straight line, with or without intercept (R ``lm(y ~ x)``/``lm(y ~ x - 1)``)."""
    xx = np.asarray(x, dtype=float)
    yy = np.asarray(y, dtype=float)
    design = np.column_stack([np.ones_like(xx), xx]) if intercept else xx[:, None]
    p = design.shape[1]
    if xx.size <= p:
        raise ValueError(f"need more than {p} points, got {xx.size}")
    coef, *_ = np.linalg.lstsq(design, yy, rcond=None)
    resid = yy - design @ coef
    s2 = float(resid @ resid) / (xx.size - p)
    cov = s2 * np.linalg.inv(design.T @ design)
    se = np.sqrt(np.diag(cov))
    if intercept:
        return LinearFit(
            float(coef[0]), float(coef[1]), float(se[0]), float(se[1]), math.sqrt(s2), xx.size, True
        )
    return LinearFit(0.0, float(coef[0]), math.nan, float(se[0]), math.sqrt(s2), xx.size, False)


@dataclass(frozen=True)
class ZmseExtrapolation:
    """ZMSE vs (N/M)^(1/2) and the extrapolation of its linear fit to N = 0 (P002 App. C).

    Attributes:
        table: columns N, min_bin (smallest bin size), x = (N/M)^(1/2), ZMSE, in_fit.
        fit: OLS line on the rows with N > fit_min_n.
        ci_low, ci_high: intercept -/+ k SE (k = 2, [code]).
        consistent: the interval contains 0 (consistency validated).
    """

    table: pd.DataFrame
    fit: LinearFit
    ci_low: float
    ci_high: float
    consistent: bool
    M: int


def zmse_extrapolation(
    E: ArrayLike,
    uE: ArrayLike,
    n_values: Iterable[int] = range(10, 151, 10),
    min_per_bin: int = 20,
    fit_min_n: int = 20,
    *,
    k: float = 2.0,
) -> ZmseExtrapolation:
    """Extrapolation-to-zero-bins validation of ZMSE (P002 App. C).

    ZMSE on N equal-size bins of the data sorted by uE for every N of ``n_values`` whose
    smallest bin holds at least ``min_per_bin`` points (text: "bins should not contain less
    than 20 data points"; the code's M/N > 20 keeps the same N for the nine sets), a line
    fitted on N > ``fit_min_n``, and the intercept interval intercept -/+ k SE ([code] k = 2).
    """
    e, ue = errors_uncertainties(E, uE)
    m = e.size
    frame = SortedFrame(ue)
    e_s = e[frame.order][None, :]
    records = []
    for n in n_values:
        n = int(n)
        if n < 1 or n > m or m // n < min_per_bin:
            continue
        value = float(zmse_batch(e_s, frame.u, frame.edges(n))[0])
        records.append(
            {
                "N": n,
                "min_bin": m // n,
                "x": math.sqrt(n / m),
                "ZMSE": value,
                "in_fit": n > fit_min_n,
            }
        )
    table = pd.DataFrame.from_records(records, columns=["N", "min_bin", "x", "ZMSE", "in_fit"])
    used = table[table["in_fit"]]
    fit = ols_line(used["x"], used["ZMSE"], intercept=True)
    lo, hi = fit.intercept - k * fit.intercept_se, fit.intercept + k * fit.intercept_se
    return ZmseExtrapolation(table, fit, lo, hi, bool(lo <= 0.0 <= hi), m)

