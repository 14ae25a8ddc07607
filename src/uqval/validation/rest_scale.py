"""The factor of the rows outside the advised ranges: does the global factor belong to them?

A global factor is the average of the factors of the set's parts: sqrt(<Z^2>) over all rows
is sqrt(sum_k w_k f_k^2), w_k the share of part k. When one range needs its own factor (10 %
of the rows with uncertainties 2x too small) the global one is off (sqrt(0.9 + 0.1 * 4) =
1.14) although the other 90 % are right: "multiply all uncertainties by 1.14", then "the range
by 1.88 instead", leaves 90 % of the rows 14 % too large. So when ranges are advised beside a
global factor, the advice (:func:`uqval.validation.advice.advice_table`) judges the rows
outside every advised range on their own with the same rule as the global factor (its
interval excludes 1 and the factor lies beyond the tolerance band): the global factor is
then the factor of those rows, or none when they are right (docs/decision-rules.md, "The
rest's factor").

:func:`rest_factor`: f = sqrt(<Z^2>) of those rows (sd(Z) when the global bias is advised,
as for the global factor: P000 Sect. III.3.4), without the dominant rows, with its 95 %
interval: the Student t interval of <Z^2> (the cluster-robust t interval over the groups
when rows come in groups; :func:`uqval.validation.bin_tables.cluster_t_interval`) and its
square root, or the delta-method interval of sd(Z) (:func:`sd_factor`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from uqval.stats.groups import GroupIndex, cluster_t_bootstrap
from uqval.stats.intervals import cho_vv, mean_t_interval, power_interval
from uqval.validation import rules
from uqval.validation.bin_tables import cluster_t_interval

__all__ = ["RestFactor", "rest_factor", "sd_after_offset", "sd_factor", "spread_factor"]


class RestFactor(NamedTuple):
    """The factor of the rows outside the advised ranges, its 95 % interval and the rows."""

    value: float
    ci_low: float
    ci_high: float
    rows: int
    """Rows outside every advised range (the dominant rows excluded)."""


def sd_factor(z: NDArray[np.float64], confidence: float = 0.95) -> tuple[float, float, float]:
    """sd(Z) (n - 1 denominator) with its delta-method interval on Cho et al.'s variance of
    the sample variance (P000 Sect. III.3.4; :func:`uqval.stats.intervals.cho_vv`): the factor
    the uncertainties are off by once the mean of Z is removed.

    >>> rng = np.random.default_rng(0)
    >>> [round(x, 2) for x in sd_factor(1.5 * rng.standard_normal(4000) + 0.8)]
    [1.5, 1.47, 1.53]
    """
    n = z.size
    d = z - z.mean()
    m2, m4 = float(np.mean(d**2)), float(np.mean(d**4))
    ci = power_interval(m2 * n / (n - 1.0), cho_vv(n, m2, m4), 0.5, confidence)
    return float(ci.value), max(float(ci.ci_low), 0.0), float(ci.ci_high)


def spread_factor(z: NDArray[np.float64], groups: GroupIndex | None = None,
                  confidence: float = 0.95, *, n_boot: int | None = None,
                  seed: np.random.SeedSequence | int = 0) -> tuple[float, float, float]:
    """sd(Z) = sqrt(<(Z - <Z>)^2>) = sqrt(ZMS - <Z>^2), the factor the uncertainties are off
    by once the mean of Z is removed, with its interval from the rows themselves: without
    groups that of :func:`sd_factor` (delta method on Cho's variance of the sample variance,
    P000 Sect. III.3.4) times sqrt((n - 1)/n); with groups (or blocks of dependent groups)
    an interval over them of the mean of d_i = (Z_i - <Z>)^2, whose mean is sd(Z)^2
    (estimating <Z> moves it by O(1/n)), square-rooted: with ``n_boot`` the studentized
    half-sample cluster bootstrap that the average stage uses for ZMS
    (:func:`uqval.stats.groups.cluster_t_bootstrap`, never narrower than the cluster-robust
    t(G - 1) interval), else that t interval alone. The sum of a group's squares is
    right-skewed, so with few groups the t interval alone lies too low: 30 groups of 30 rows,
    ICC 0.5, sd(Z) = 1 beside an offset got a factor below 1 in 14 % of the sets
    (``benchmarks/advice_rules.md``). A direct interval of the quantity advised, narrower
    than the one made from
    the intervals of ZMS and <Z> (:func:`sd_after_offset`), which holds it with probability
    at least 90 % whatever made them and is kept where the rows at hand are not those the
    stage's intervals came from (an ensemble's floor-net factor, a set read in parts).

    Rows in 50 groups of 8 sharing half their variation, sd(Z) 1.3 once an offset 0.8 is
    removed: over the groups the interval is wider than over the 400 rows taken as
    independent, and holds 1.3.

    >>> from uqval.stats.groups import GroupIndex, cluster_t_bootstrap
    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(50), 8)
    >>> z = 0.8 + 1.3 * (np.sqrt(0.5) * rng.standard_normal(50)[g]
    ...                  + np.sqrt(0.5) * rng.standard_normal(400))
    >>> [round(x, 2) for x in spread_factor(z, GroupIndex.from_codes(g))]
    [1.4, 1.13, 1.63]
    >>> [round(x, 2) for x in spread_factor(z)]
    [1.4, 1.29, 1.51]
    """
    n = z.size
    if not float(np.ptp(z)) > 0.0:  # every z-score equal: no spread left, nothing to estimate
        return 0.0, 0.0, 0.0
    if groups is None or groups.n_groups < 2:
        c = math.sqrt((n - 1.0) / n)
        value, low, high = sd_factor(z, confidence)
        return value * c, low * c, high * c
    d = np.square(z - z.mean())
    if n_boot is not None:
        ct = cluster_t_bootstrap(d, groups, n_boot=n_boot, seed=seed, confidence=confidence)
        value, low, high = ct.estimate, ct.ci_low, ct.ci_high
    else:
        value, low, high = cluster_t_interval(d, groups, confidence)
    return math.sqrt(value), math.sqrt(max(low, 0.0)), math.sqrt(max(high, 0.0))


def sd_after_offset(zms: tuple[float, float, float],
                    mean_z: tuple[float, float, float]) -> tuple[float, float, float]:
    """sd(Z), the factor the uncertainties are off by once the set's offset is corrected,
    from the average stage's own records: Var(Z) = ZMS - <Z>^2 (P000 Sect. III.3.4), so

        [ZMS_low - max <Z>^2, ZMS_high - min <Z>^2]

    over the 95 % intervals of ZMS and of <Z> (min <Z>^2 = 0 when that interval holds 0)
    holds Var(Z) whenever both intervals hold their values: with probability at least 90 %
    (Bonferroni), whatever procedure made them (rows, groups, blocks of dependent groups,
    a set in parts, an ensemble's floor-net factor). ``zms``, ``mean_z``: (value, low,
    high); returns sd(Z) = sqrt(ZMS - <Z>^2) and the square roots of the interval's ends
    (0 when an end is negative).

    ZMS 0.36 [0.2, 1.21] with <Z> -0.38 [-0.45, -0.31]: sd(Z) 0.46, at most 1.06.

    >>> [round(x, 2) for x in sd_after_offset((0.36, 0.2, 1.21), (-0.38, -0.45, -0.31))]
    [0.46, 0.0, 1.06]
    """
    value, low, high = zms
    m, m_low, m_high = mean_z
    largest = max(m_low**2, m_high**2)
    smallest = 0.0 if m_low <= 0.0 <= m_high else min(m_low**2, m_high**2)
    return (math.sqrt(max(value - m**2, 0.0)), math.sqrt(max(low - largest, 0.0)),
            math.sqrt(max(high - smallest, 0.0)))


def rest_factor(errors: NDArray[np.float64], uncertainties: NDArray[np.float64],
                ranges: Sequence[tuple[NDArray[np.float64], float, float]],
                dominant: NDArray[np.intp], *, spread: bool,
                groups: GroupIndex | None = None, n_boot: int | None = None,
                seed: np.random.SeedSequence | int = 0) -> RestFactor | None:
    """The factor of the rows outside every range (module docstring); ``ranges``: (values of
    the range's variable, low, high), both ends included; ``spread``: sd(Z) instead of
    sqrt(<Z^2>), its interval by :func:`spread_factor` (``n_boot``, ``seed``: its bootstrap
    over the groups). None when fewer than MIN_BIN_COUNT rows are left.

    Ninety rows right and ten 3x too small: the rest's factor is that of the ninety.

    >>> rng = np.random.default_rng(1)
    >>> x, z = np.arange(100.0), rng.standard_normal(100)
    >>> e = np.where(x >= 90, 3.0 * z, z)
    >>> r = rest_factor(e, np.ones(100), [(x, 90.0, 99.0)], np.array([], np.intp),
    ...                 spread=False)
    >>> r.rows, round(r.value, 6) == round(float(np.sqrt(np.mean(z[:90] ** 2))), 6)
    (90, True)
    """
    keep = np.ones(errors.size, dtype=bool)
    for x, low, high in ranges:
        keep &= ~((x >= low) & (x <= high))
    keep[dominant] = False
    n = int(keep.sum())
    if n < rules.MIN_BIN_COUNT:
        return None
    z = errors[keep] / uncertainties[keep]
    sub = None if groups is None else groups.subset(np.flatnonzero(keep))
    if spread:
        return RestFactor(*spread_factor(z, sub, n_boot=n_boot, seed=seed), n)
    if sub is not None and sub.n_groups >= 2:
        value, low, high = cluster_t_interval(np.square(z), sub)
    else:
        ci = mean_t_interval(np.square(z))
        value, low, high = float(ci.value), float(ci.ci_low), float(ci.ci_high)
    return RestFactor(math.sqrt(value), math.sqrt(max(low, 0.0)), math.sqrt(high), n)
