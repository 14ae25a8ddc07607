"""Average-calibration statistics of errors E and uncertainties uE.

P000 Eqs. 2-3 (Var(E)/<uE^2>, Var(Z)); P001 Sect. II.1, Eqs. 7, 11, 12 and App. A, Eq. 22
(RCE, ZMS, NLL, RCE2); P002 Eqs. 14-16 (ZMS, NLL and its reference); P003 Eqs. 2-3
(ZMS, <Z>). Variances use the n - 1 denominator, as R ``var``.

Notation: Z = E/uE, <.> is the mean over the M points. All statistics are pure functions
of the arrays ``errors`` (E) and ``uncertainties`` (uE) and reduce over the **last axis**, so
they also work on stacked bootstrap resamples of shape (B, M). They do not validate their
input: call :func:`uqval._internal.checks.errors_uncertainties` on raw data first.

The statistics built on means of per-point columns are also provided as
:class:`~uqval.stats.bootstrap.MeanStatistic` objects (``ZMS``, ``RCE``, ``RCE2``, ``NLL``,
``MEAN_Z``) for the fast BCa bootstrap; the plain functions use the same formulas.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.stats.bootstrap import MeanStatistic

__all__ = [
    "MEAN_Z",
    "NLL",
    "RCE",
    "RCE2",
    "ZMS",
    "mean_z",
    "mse",
    "mv",
    "gaussian_nll_rows",
    "nll_ref_rows",
    "rce_rows",
    "rce2_rows",
    "rmse_rows",
    "rmv",
    "var_z",
    "zms_rows",
]

_LN_2PI = math.log(2.0 * math.pi)



def _mean(x: ArrayLike) -> FloatArray:
    return np.mean(np.asarray(x, dtype=np.float64), axis=-1)


def _first_mean(means: FloatArray) -> FloatArray:
    return means[..., 0]


def mean_z(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """Mean z-score <Z>, reference 0 (tests bias; adaptivity paper P003 Eq. 3)."""
    return _mean(np.divide(errors, uncertainties))


def var_z(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """Var(Z) with the n - 1 denominator (R ``var``), reference 1 (primer P000 Eq. 3)."""
    return np.var(np.divide(errors, uncertainties), axis=-1, ddof=1)


def zms_rows(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """ZMS = <Z^2>, reference 1 (P001 Eq. 11; P002 Eq. 14; P003 Eq. 2)."""
    return _mean(np.divide(errors, uncertainties) ** 2)


def mse(errors: ArrayLike) -> FloatArray:
    """Mean squared error MSE = <E^2> (P001 Sect. II.1)."""
    return _mean(np.square(errors))


def mv(uncertainties: ArrayLike) -> FloatArray:
    """Mean variance MV = <uE^2> (P001 Sect. II.1)."""
    return _mean(np.square(uncertainties))


def rmse_rows(errors: ArrayLike) -> FloatArray:
    """Root mean squared error RMSE = sqrt(<E^2>) (P001 Sect. II.1)."""
    return np.sqrt(mse(errors))


def rmv(uncertainties: ArrayLike) -> FloatArray:
    """Root mean variance RMV = sqrt(<uE^2>) (P001 Sect. II.1)."""
    return np.sqrt(mv(uncertainties))


def _rce_from_means(means: FloatArray) -> FloatArray:
    root_mv = np.sqrt(means[..., 0])
    return (root_mv - np.sqrt(means[..., 1])) / root_mv


def rce_rows(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """Relative calibration error RCE = (RMV - RMSE)/RMV, reference 0 (P001 Eq. 7)."""
    return _rce_from_means(np.stack([mv(uncertainties), mse(errors)], axis=-1))


def _rce2_from_means(means: FloatArray) -> FloatArray:
    return (means[..., 0] - means[..., 1]) / means[..., 0]


def rce2_rows(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """RCE2 = (MV - MSE)/MV, reference 0 (P001 App. A, Eq. 22)."""
    return _rce2_from_means(np.stack([mv(uncertainties), mse(errors)], axis=-1))


def _nll_from_means(means: FloatArray) -> FloatArray:
    return 0.5 * (means[..., 0] + means[..., 1] + _LN_2PI)


def gaussian_nll_rows(errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
    """Gaussian negative log-likelihood NLL = (<Z^2> + <ln uE^2> + ln 2 pi)/2.

    P001 Eq. 12; P002 Eq. 15. Its reference is :func:`nll_ref_rows`.
    """
    ln_u2 = _mean(np.log(np.square(uncertainties)))
    return _nll_from_means(np.stack([zms_rows(errors, uncertainties), ln_u2], axis=-1))


def nll_ref_rows(uncertainties: ArrayLike) -> FloatArray:
    """Reference NLL of a calibrated set, NLL_ref = (1 + <ln uE^2> + ln 2 pi)/2 (P002 Eq. 16)."""
    return 0.5 * (1.0 + _mean(np.log(np.square(uncertainties))) + _LN_2PI)


ZMS = MeanStatistic(columns=lambda E, uE: (np.divide(E, uE) ** 2,), combine=_first_mean)
"""ZMS = <Z^2> as a mean statistic (column Z^2)."""

RCE = MeanStatistic(columns=lambda E, uE: (np.square(uE), np.square(E)), combine=_rce_from_means)
"""RCE as a mean statistic (columns uE^2, E^2)."""

RCE2 = MeanStatistic(columns=lambda E, uE: (np.square(uE), np.square(E)), combine=_rce2_from_means)
"""RCE2 as a mean statistic (columns uE^2, E^2)."""

NLL = MeanStatistic(
    columns=lambda E, uE: (np.divide(E, uE) ** 2, np.log(np.square(uE))),
    combine=_nll_from_means,
)
"""NLL as a mean statistic (columns Z^2, ln uE^2)."""

MEAN_Z = MeanStatistic(columns=lambda E, uE: (np.divide(E, uE),), combine=_first_mean)
"""<Z> as a mean statistic (column Z)."""
