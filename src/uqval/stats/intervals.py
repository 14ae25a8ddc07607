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
from scipy import special, stats

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
    return _interval(mean, stats.t.ppf(0.5 * (1.0 + confidence), df=n - 1.0) * se, se)


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


def var_cho_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Var(z) +- z_c sqrt(vv) (ErrViewLib ``varZCI(method = "cho")``; P000 Sect. III.3.4).

    Var uses the n - 1 denominator; vv is :func:`cho_varvar`. Reduces over the last axis.
    """
    arr = _last_axis_sample(z, "z")
    return power_interval(np.var(arr, axis=-1, ddof=1), cho_varvar(arr), 1.0, confidence)


def lzisd_from_var(v: ArrayLike, vv: ArrayLike, confidence: float = 0.95) -> Interval:
    """LZISD S = V^(-1/2) with the delta-method SD(S) = sqrt(vv)/(2 V^(3/2)).

    P000 Sect. III.3.4; ErrViewLib ``rsdZCI(method = "cho")``: S +- z_c SD(S). ``v`` is
    Var(Z) and ``vv`` its estimated variance (:func:`cho_varvar`); vectorised.
    """
    return power_interval(v, vv, -0.5, confidence)


def rmse_cho_interval(
    E: ArrayLike, confidence: float = 0.95, *, centered: bool = False
) -> Interval:
    """Interval of the RMSE of a reliability-diagram bin by the delta method (P000 Sect. III.3.3).

    * ``centered=False`` (default, P000 text): RMSE = sqrt(<E^2>), with the estimated
      variance of <E^2> taken as var(E^2)/n (n - 1 denominator), so
      SD = sqrt(var(E^2)/n)/(2 RMSE).
    * ``centered=True`` (authors' ``sdZCI(method = "cho")``): sd(E) = Var(E)^(1/2) with
      SD = sqrt(vv)/(2 sqrt(Var(E))), vv from :func:`cho_varvar`.

    Reduces over the last axis.
    """
    arr = _last_axis_sample(E, "E")
    if centered:
        return power_interval(np.var(arr, axis=-1, ddof=1), cho_varvar(arr), 0.5, confidence)
    sq = np.square(arr)
    var_mse = np.var(sq, axis=-1, ddof=1) / arr.shape[-1]
    return power_interval(sq.mean(axis=-1), var_mse, 0.5, confidence)


def mean_t_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Student-t interval of a mean, <z> +- t_{(1+c)/2, n-1} sd(z)/sqrt(n) (P003 LZM).

    Reduces over the last axis; ``sd`` of the result is the standard error sd(z)/sqrt(n).
    """
    arr = _last_axis_sample(z, "z")
    return t_interval(arr.mean(axis=-1), arr.std(axis=-1, ddof=1), arr.shape[-1], confidence)


def ms_stud_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Mean-square interval <z^2> +- t sd(z^2)/sqrt(n) (ErrViewLib ``ZMSCI`` "stud").

    Used for the whole-set ZMS of P003 (n >= 200). Reduces over the last axis.
    """
    return mean_t_interval(np.square(_last_axis_sample(z, "z")), confidence)

