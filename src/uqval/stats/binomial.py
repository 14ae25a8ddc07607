"""Confidence intervals for a binomial proportion x/n.

Used for p_val (P001 Eq. 21), coverage probabilities (P000 Sect. II.2.2), f_v (P003
Sect. III.B.2) and the calibration-curve bands (P000 Sect. III.2.1); the papers do not name
the interval, the authors' code uses the two below.

* Wilson score interval (Newcombe 1998, method 3; R ``DescTools::BinomCI(method =
  "wilson")``), used for coverage probabilities (PICP, LCP).
* Wilson score interval with continuity correction (Newcombe 1998, method 4; R
  ``DescTools::BinomCI(method = "wilsoncc")``), used for the validation probability p_val
  (P001 Eq. 21) and the calibration-curve bands.

With z = Phi^-1(1 - (1 - confidence)/2), p = x/n and q = 1 - p:

* Wilson: ``(x + z^2/2)/(n + z^2) -+ z sqrt(n)/(n + z^2) sqrt(p q + z^2/(4 n))``;
* Wilson-cc: ``L = (2x + z^2 - 1 - z sqrt(z^2 - 2 - 1/n + 4p(nq + 1))) / (2(n + z^2))``,
  ``U = (2x + z^2 + 1 + z sqrt(z^2 + 2 - 1/n + 4p(nq - 1))) / (2(n + z^2))``, with L = 0
  when x = 0 and U = 1 when x = n.

Both are clipped to [0, 1] as in DescTools.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from uqval._internal.checks import probability
from uqval._internal.types import FloatArray

_Scalar = int | float | np.integer | np.floating

__all__ = ["binomial_p_value", "clopper_pearson_interval", "wilson_cc_interval",
           "wilson_interval"]



def _prepare(
    successes: ArrayLike, trials: ArrayLike, confidence: float
) -> tuple[FloatArray, FloatArray, float]:
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    probability(confidence)
    if np.any(n < 1) or np.any(x < 0) or np.any(x > n):
        raise ValueError("need trials >= 1 and 0 <= successes <= trials")
    if np.any(x != np.round(x)) or np.any(n != np.round(n)):
        raise ValueError("successes and trials must be whole numbers")
    z = float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))
    return x, n, z


def _pack(low: FloatArray, high: FloatArray) -> tuple[float, float] | tuple[FloatArray, FloatArray]:
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


@overload
def wilson_interval(
    successes: _Scalar, trials: _Scalar, confidence: float = ...
) -> tuple[float, float]: ...
@overload
def wilson_interval(
    successes: NDArray[Any], trials: ArrayLike, confidence: float = ...
) -> tuple[FloatArray, FloatArray]: ...
@overload
def wilson_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = ...
) -> tuple[float, float] | tuple[FloatArray, FloatArray]: ...
def wilson_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[float, float] | tuple[FloatArray, FloatArray]:
    """Wilson score interval for x/n (Newcombe 1998 method 3; DescTools "wilson").

    Vectorised over broadcastable arrays of successes x and trials n; returns (low, high).
    """
    x, n, z = _prepare(successes, trials, confidence)
    p = x / n
    centre = (x + z**2 / 2.0) / (n + z**2)
    half = z * np.sqrt(n) / (n + z**2) * np.sqrt(p * (1.0 - p) + z**2 / (4.0 * n))
    return _pack(centre - half, centre + half)


@overload
def wilson_cc_interval(
    successes: _Scalar, trials: _Scalar, confidence: float = ...
) -> tuple[float, float]: ...
@overload
def wilson_cc_interval(
    successes: NDArray[Any], trials: ArrayLike, confidence: float = ...
) -> tuple[FloatArray, FloatArray]: ...
@overload
def wilson_cc_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = ...
) -> tuple[float, float] | tuple[FloatArray, FloatArray]: ...
def wilson_cc_interval(
    successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[float, float] | tuple[FloatArray, FloatArray]:
    """Wilson score interval with continuity correction (Newcombe 1998 method 4).

    Same formula as R ``DescTools::BinomCI(method = "wilsoncc")`` (module docstring),
    used for the 95% interval of p_val (P001 Eq. 21). Vectorised; returns (low, high).
    """
    x, n, z = _prepare(successes, trials, confidence)
    p = x / n
    q = 1.0 - p
    denom = 2.0 * (n + z**2)
    with np.errstate(invalid="ignore"):
        low = (2 * x + z**2 - 1 - z * np.sqrt(z**2 - 2 - 1 / n + 4 * p * (n * q + 1))) / denom
        high = (2 * x + z**2 + 1 + z * np.sqrt(z**2 + 2 - 1 / n + 4 * p * (n * q - 1))) / denom
    return _pack(np.where(x == 0, 0.0, low), np.where(x == n, 1.0, high))


def clopper_pearson_interval(successes: ArrayLike, trials: ArrayLike,
                             confidence: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """Exact (Clopper-Pearson 1934) interval for x/n: the Beta(x, n - x + 1) quantile at
    (1 - c)/2 and the Beta(x + 1, n - x) quantile at (1 + c)/2 (0 when x = 0, 1 when x = n),
    as ``scipy.stats.binomtest(x, n).proportion_ci(method="exact")``; coverage >= c for every
    true proportion. Vectorised; returns arrays (low, high).

    >>> [round(float(v), 4) for v in clopper_pearson_interval(9, 10)]
    [0.555, 0.9975]
    """
    x, n, _ = _prepare(successes, trials, confidence)
    tail = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore"):
        low = np.where(x > 0, special.betaincinv(x, n - x + 1.0, tail), 0.0)
        high = np.where(x < n, special.betaincinv(x + 1.0, n - x, 1.0 - tail), 1.0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def binomial_p_value(successes: int, trials: int, proportion: float) -> float:
    """Exact two-sided binomial p-value of x successes in n trials at proportion p: the sum of
    the probabilities of all outcomes no more likely than x (``scipy.stats.binomtest``,
    alternative "two-sided").

    >>> round(binomial_p_value(80, 100, 0.9), 5)
    0.0023
    """
    from scipy.stats import binomtest

    return float(binomtest(int(successes), int(trials), float(proportion)).pvalue)
