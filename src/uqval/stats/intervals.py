"""Closed-form confidence intervals of means, variances and mean squares of a sample (primer P000
Sect. II; the authors' ErrViewLib ``varZCI``, ``ZMSCI``).

Cho's (2008) variance of the sample variance vv = (mu_4 - (n - 3)/(n - 1) mu_2^2)/n, the delta
method SD(V^p) = abs(p) V^(p-1) sqrt(vv), Student-t intervals of means, all vectorised over a
last axis (bins or resamples).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special  # not scipy.stats (0.8 s per job): t.ppf(q, df) is stdtrit(df, q)

from uqval._internal.checks import probability
from uqval._internal.types import FloatArray

__all__ = [
    "Interval",
    "cho_varvar",
    "mean_t_interval",
]

class Interval(NamedTuple):
    """An estimate, its confidence interval and its standard deviation.

    Scalars (numpy float64) for a single sample, arrays for vectorised input.
    """

    value: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    sd: FloatArray


def _interval(value: ArrayLike, half: ArrayLike, sd: ArrayLike) -> Interval:
    """value -+ half, with 0-d arrays turned into numpy scalars."""
    value, half, sd = (np.asarray(a, dtype=np.float64) for a in (value, half, sd))
    return Interval(value[()], (value - half)[()], (value + half)[()], sd[()])


def normal_quantile(confidence: float) -> float:
    probability(confidence)
    return float(special.ndtri(0.5 * (1.0 + confidence)))


def cho_vv(n: ArrayLike, m2: ArrayLike, m4: ArrayLike) -> FloatArray:
    """Cho et al. (2008) Eq. 1: vv = (mu_4 - (n - 3)/(n - 1) mu_2^2)/n."""
    n = np.asarray(n, dtype=np.float64)
    return (np.asarray(m4) - (n - 3.0) / (n - 1.0) * np.square(m2)) / n


def power_interval(v: ArrayLike, vv: ArrayLike, power: float, confidence: float) -> Interval:
    """Delta-method interval of S = V^p: SD(S) = abs(p) V^(p-1) sqrt(vv); S +- z SD(S)."""
    v = np.asarray(v, dtype=np.float64)
    sd = abs(power) * v ** (power - 1.0) * np.sqrt(vv)
    return _interval(v**power, normal_quantile(confidence) * sd, sd)


def t_interval(mean: ArrayLike, sd: ArrayLike, n: ArrayLike, confidence: float) -> Interval:
    """m +- t_{(1+c)/2, n-1} sd/sqrt(n)."""
    probability(confidence)
    n = np.asarray(n, dtype=np.float64)
    se = np.asarray(sd) / np.sqrt(n)
    return _interval(mean, special.stdtrit(n - 1.0, 0.5 * (1.0 + confidence)) * se, se)


def _last_axis_sample(x: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] < 2:
        raise ValueError(f"{name} needs at least 2 values along its last axis")
    return arr


def cho_varvar(z: ArrayLike) -> FloatArray:
    """Estimated variance of the sample variance (Cho et al. 2008 Eq. 1; ErrViewLib ``varvar``).

    vv = (mu_4 - (n - 3)/(n - 1) mu_2^2)/n, mu_k = <(z - <z>)^k> (1/n denominators).
    Reduces over the last axis.
    """
    arr = _last_axis_sample(z, "z")
    d2 = np.square(arr - arr.mean(axis=-1, keepdims=True))
    return cho_vv(arr.shape[-1], d2.mean(axis=-1), np.square(d2).mean(axis=-1))


def mean_t_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Student-t interval of a mean, <z> +- t_{(1+c)/2, n-1} sd(z)/sqrt(n) (P003 LZM).

    Reduces over the last axis; ``sd`` of the result is the standard error sd(z)/sqrt(n).
    """
    arr = _last_axis_sample(z, "z")
    return t_interval(arr.mean(axis=-1), arr.std(axis=-1, ddof=1), arr.shape[-1], confidence)
