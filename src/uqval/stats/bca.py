"""BCa interval arithmetic of many bootstrap distributions at once (P001 Sect. II.3).

Given, for each of n statistics, its value t0, its R bootstrap replicates t* and its
jackknife acceleration a, steps 2-6 of :mod:`uqval.stats.bootstrap` (``nptest::np.boot``,
DiCiccio & Efron 1996) on the distribution T = {t0} U {t*_1..t*_R}:

* bias = mean(T) - t0, se = sd(T) (n - 1 denominator);
* z0 = Phi^-1(mean(T < t0));
* alpha_k = Phi(z0 + (z0 + z_k) / (1 - a (z0 + z_k))), z_k = Phi^-1(alpha/2), Phi^-1(1 - alpha/2);
* the interval is the type-7 quantiles of T at alpha_1, alpha_2 (NumPy ``"linear"``).

:func:`bca_limits` does this for the rows of an (n, R) array in a few NumPy calls instead of
n: the per-bin intervals of a binning (100 bins in P003 Figs. 3-4, repeated 1000 times for
the random-order test) spent 60 % of their time in per-bin NumPy overhead (issue 29). Each
row's numbers are bit for bit those of the one-row computation: row reductions of a
C-contiguous array sum each row as a 1-D array does, and :func:`linear_quantiles` repeats
NumPy's ``quantile(method="linear")`` arithmetic (``tests/test_bootstrap.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special

__all__ = ["BCaLimits", "accelerations", "bca_limits", "linear_quantiles"]

DEGENERATE_RTOL = 8 * np.finfo(np.float64).eps
"""A distribution whose range is within this relative tolerance of its largest magnitude is
degenerate: interval [t0, t0], bias and se 0, z0 and acceleration NaN."""


@dataclass(frozen=True)
class BCaLimits:
    """Per-row results of :func:`bca_limits` (arrays of length n)."""

    bias: NDArray[np.float64]
    se: NDArray[np.float64]
    ci_low: NDArray[np.float64]
    ci_high: NDArray[np.float64]
    z0: NDArray[np.float64]
    acceleration: NDArray[np.float64]


def accelerations(jacks: NDArray[np.float64]) -> NDArray[np.float64]:
    """a = sum(d^3) / (6 (sum d^2)^(3/2)), d = mean(jack) - jack, for each row of ``jacks``
    (jackknife values of one statistic per row); 0 for a constant row.

    >>> import numpy as np
    >>> accelerations(np.array([[1.0, 2.0, 6.0], [3.0, 3.0, 3.0]])).round(4).tolist()  # -18/(6 14^1.5)
    [-0.0573, 0.0]
    >>> accelerations(np.array([[1.0, 2.0, 6.0]]) * 1e-160).round(4).tolist()  # scale-free
    [-0.0573]
    """
    d = jacks.mean(axis=1)[:, None] - jacks
    # a is scale-free: rescale each row by a power of two (exact) so that tiny deviations
    # (z-scores of 1e-160) do not underflow (sum d^2)^(3/2) to 0
    _, exponent = np.frexp(np.max(np.abs(d), axis=1))
    d = np.ldexp(d, -exponent[:, None])
    ss = np.sum(d**2, axis=1).tolist()
    cubes = np.sum(d**3, axis=1).tolist()
    # the last step in Python floats: NumPy's vectorised power may round x**1.5 differently
    return np.array([c / (6.0 * s**1.5) if s > 0.0 else 0.0 for c, s in zip(cubes, ss, strict=True)])


def linear_quantiles(values: NDArray[np.float64], levels: NDArray[np.float64]) -> NDArray[np.float64]:
    """Type-7 quantiles of each row of ``values`` at that row's ``levels``, shape (n, L).

    The arithmetic of ``numpy.quantile(row, levels_row, method="linear")``: virtual index
    v = (N - 1) q, neighbours floor(v) and floor(v) + 1 (both the maximum when v >= N - 1),
    g = v - floor(v), and a + (b - a) g, or b - (b - a)(1 - g) when g >= 0.5. Rows must be
    NaN-free and levels in [0, 1].

    >>> import numpy as np
    >>> x = np.array([[3.0, 1.0, 2.0, 4.0], [10.0, 40.0, 20.0, 30.0]])
    >>> linear_quantiles(x, np.array([[0.25, 1.0], [0.5, 0.9]])).tolist()
    [[1.75, 4.0], [25.0, 37.0]]
    """
    n_values = values.shape[1]
    virtual = (n_values - 1) * levels
    previous = np.floor(virtual)
    above = virtual >= n_values - 1
    previous[above] = -1.0
    lower = previous.astype(np.intp)
    upper = np.where(above, -1, lower + 1)
    gamma = virtual - lower
    wanted = np.unique(np.concatenate(([0, n_values - 1], lower.ravel() % n_values,
                                       upper.ravel() % n_values)))
    ordered = np.partition(values, wanted, axis=1)
    rows = np.arange(values.shape[0])[:, None]
    a, b = ordered[rows, lower], ordered[rows, upper]
    diff = b - a
    out = a + diff * gamma
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), out)


def bca_limits(
    t0: NDArray[np.float64],
    replicates: NDArray[np.float64],
    acceleration: NDArray[np.float64],
    confidence: float,
) -> BCaLimits:
    """BCa bias, se and interval of each row (module docstring).

    Args:
        t0: (n,) statistic on the full data.
        replicates: (n, R) finite bootstrap replicates.
        acceleration: (n,) jackknife accelerations a (:func:`accelerations`).
        confidence: level of the intervals.

    Rows whose BCa levels are undefined (z0 infinite: t0 outside all replicates) get NaN
    limits; degenerate rows (:data:`DEGENERATE_RTOL`) get [t0, t0].

    >>> import numpy as np
    >>> boot = np.random.default_rng(1).normal(0.0, 1.0, (2, 999))
    >>> res = bca_limits(np.zeros(2), boot, np.zeros(2), 0.95)
    >>> bool(np.all((res.ci_low < -1.5) & (res.ci_high > 1.5)))
    True
    """
    t = np.asarray(t0, dtype=np.float64)
    dist = np.concatenate([t[:, None], replicates], axis=1)
    bias = dist.mean(axis=1) - t
    se = dist.std(axis=1, ddof=1)
    degenerate = np.ptp(dist, axis=1) <= DEGENERATE_RTOL * np.max(np.abs(dist), axis=1)
    z0 = special.ndtri(np.mean(dist < t[:, None], axis=1))
    acc = np.asarray(acceleration, dtype=np.float64)
    alpha = 1.0 - confidence
    z = special.ndtri(np.array([alpha / 2.0, 1.0 - alpha / 2.0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        levels = special.ndtr(z0[:, None] + (z0[:, None] + z) / (1.0 - acc[:, None] * (z0[:, None] + z)))
    defined = np.isfinite(z0) & np.all(np.isfinite(levels), axis=1) & ~degenerate
    limits = np.full((t.size, 2), np.nan)
    if defined.any():
        limits[defined] = linear_quantiles(dist[defined], levels[defined])
    limits[degenerate] = t[degenerate, None]
    nan = np.full(t.size, np.nan)
    return BCaLimits(
        bias=np.where(degenerate, 0.0, bias),
        se=np.where(degenerate, 0.0, se),
        ci_low=limits[:, 0],
        ci_high=limits[:, 1],
        z0=np.where(degenerate, nan, z0),
        acceleration=np.where(degenerate, nan, acc),
    )
