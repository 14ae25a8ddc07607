"""Per-bin tables of the conditional stages: the binning of each variable and its intervals.

:func:`bin_variables` bins every testable variable (tie-aware equal-count bins; with rows in
groups at most as many as hold GROUPS_PER_BIN resampling units and MIN_BIN_COUNT effective
rows a bin on average,
:func:`uqval.stats.groups.effective_bin_count`); :func:`bin_table` gives each
bin's <Z^2> (BCa, or Student t) and <Z> (Student t, or cluster-robust t with rows in groups),
P003 Sect. III.B; :func:`fine_tables` the same on the advice's finer grid
(:func:`fine_bin_count`, docs/choices.md "Two grids for the ranges").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from uqval.binning import MAX_DEFAULT_BINS, Bins, tie_aware_bins
from uqval.calibration.local import local_zmean_unchecked
from uqval.stats.bootstrap import MeanStatistic, bca_bootstrap
from uqval.stats.groups import (
    GROUPS_PER_BIN,
    GroupIndex,
    cluster_bca_bootstrap,
    cluster_mean_se,
    effective_bin_count,
    most_bins,
)
from uqval.stats.intervals import mean_t_interval
from uqval.validation import rules
from uqval.validation.degenerate import untestable_reason

__all__ = [
    "FINE_FACTOR",
    "bin_table",
    "bin_variables",
    "bins_for_groups",
    "bins_along",
    "cluster_t_interval",
    "fine_bin_count",
    "fine_tables",
]

Say = Callable[[str], None]

_MEAN_SQUARE = MeanStatistic(columns=lambda z: (np.square(z),), combine=lambda m: m[..., 0])

FINE_FACTOR = 2
"""The advice's second grid along each variable has this many times the stage's bins (at most
M // MIN_BIN_COUNT and MAX_DEFAULT_BINS; :func:`fine_bin_count`)."""
_FINE_KEY = 2**31 - 41
"""Spawn key of the fine grid's bootstrap stream (independent of the stage's bins)."""


def bin_table(
    e: NDArray[np.float64], u_scaled: NDArray[np.float64], x: NDArray[np.float64], bins: Bins,
    n_boot: int, seed: np.random.SeedSequence, n_workers: int, student: bool = False,
    groups: GroupIndex | None = None,
) -> pd.DataFrame:
    """Per-bin <Z^2> (BCa, n_boot replicates per bin; with ``student`` the Student-t
    interval of the mean of Z^2, as the authors' ZMSCI for bins of 200 points or more) and
    <Z> (Student t), scaled uE. With ``groups`` every interval is over the G_b groups of the
    bin: <Z^2> by BCa on resampled groups, <Z> (and <Z^2> with ``student``, or in a bin of
    fewer than GROUPS_PER_BIN groups, whose bootstrap has a handful of distinct resamples and
    collapses onto the estimate) by the cluster-robust t interval
    (:func:`cluster_t_interval`, t with G_b - 1 degrees of freedom); NaN limits for a bin
    holding one group."""
    z = e / u_scaled
    index_lists = bins.index_lists()
    children = seed.spawn(len(index_lists))
    value, low, high = (np.empty(len(index_lists)) for _ in range(3))
    subs = [None if groups is None else groups.subset(idx) for idx in index_lists]
    for i, (idx, child, sub) in enumerate(zip(index_lists, children, subs, strict=True)):
        if sub is not None and (student or sub.n_groups < GROUPS_PER_BIN):
            value[i], low[i], high[i] = cluster_t_interval(np.square(z[idx]), sub)
            continue
        if student:
            ci = mean_t_interval(np.square(z[idx]))
            value[i], low[i], high[i] = float(ci.value), float(ci.ci_low), float(ci.ci_high)
            continue
        if sub is not None:  # resampling the groups of the bin
            res = cluster_bca_bootstrap((z[idx],), _MEAN_SQUARE, sub, n_boot=n_boot,
                                        seed=child, n_workers=n_workers)
        else:
            res = bca_bootstrap((z[idx],), _MEAN_SQUARE, n_boot=n_boot, seed=child,
                                n_workers=n_workers)
        value[i], low[i], high[i] = res.estimate, res.ci_low, res.ci_high
    if groups is None:
        zm = local_zmean_unchecked(e, u_scaled, x, index_lists)
    else:  # <Z> over the groups of each bin
        mean_z = np.array([cluster_t_interval(z[idx], groups.subset(idx))
                           for idx in index_lists])
        zm = pd.DataFrame({"value": mean_z[:, 0], "ci_low": mean_z[:, 1],
                           "ci_high": mean_z[:, 2],
                           "valid": (mean_z[:, 1] <= 0.0) & (0.0 <= mean_z[:, 2])})
    return pd.DataFrame({
        "low": bins.low, "high": bins.high, "n": bins.counts,
        "value": value, "ci_low": low, "ci_high": high, "valid": (low <= 1.0) & (1.0 <= high),
        "factor": np.sqrt(value), "factor_low": np.sqrt(np.maximum(low, 0.0)),
        "factor_high": np.sqrt(high),
        "mean_z": zm["value"].to_numpy(), "mean_z_low": zm["ci_low"].to_numpy(),
        "mean_z_high": zm["ci_high"].to_numpy(), "mean_z_valid": zm["valid"].to_numpy(),
    })


def cluster_t_interval(y: NDArray[np.float64], groups: GroupIndex,
                        confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of y over rows in groups with the cluster-robust t interval mean ± t_(G-1) se,
    se the CR1 standard error of :func:`uqval.stats.groups.cluster_mean_se` and t_(G-1) the
    (1 + confidence)/2 quantile of Student's t with G - 1 degrees of freedom (the test of
    <Z> in the average stage); NaN limits with one group."""
    if groups.n_groups < 2:
        return float(np.mean(y)), np.nan, np.nan
    mean, se = cluster_mean_se(y, groups)
    half = float(special.stdtrit(groups.n_groups - 1, 0.5 + confidence / 2.0)) * se
    return mean, mean - half, mean + half


def fine_bin_count(n_bins: int, m: int) -> int:
    """Bins of the advice's finer grid along a variable binned in ``n_bins`` bins of ``m``
    rows: FINE_FACTOR x n_bins, at most M // MIN_BIN_COUNT and MAX_DEFAULT_BINS (a grid of
    50 bins already resolves 2 % quantiles), never fewer than ``n_bins``.

    >>> fine_bin_count(3, 298), fine_bin_count(10, 1000), fine_bin_count(50, 10_000)
    (6, 20, 50)
    >>> fine_bin_count(2, 70)
    2
    """
    return max(n_bins, min(FINE_FACTOR * n_bins, m // rules.MIN_BIN_COUNT, MAX_DEFAULT_BINS))


def fine_tables(e: NDArray[np.float64], u_scaled: NDArray[np.float64],
                 variables: Sequence[tuple[str, str, NDArray[np.float64]]],
                 binned: Sequence[tuple[str, str, Bins]], n_boot: int,
                 seed: np.random.SeedSequence, n_workers: int, groups: GroupIndex | None,
                 say: Say, icc: float | None = None) -> dict[str, pd.DataFrame]:
    """Per-bin tables on the finer grid of :func:`fine_bin_count` (tie-aware bins), for the variables where it
    holds more bins than the stage's grid (with groups, as many as :func:`bins_along` allows);
    a bootstrap stream of their own."""
    stream = np.random.SeedSequence(entropy=seed.entropy,
                                    spawn_key=(*seed.spawn_key, _FINE_KEY))
    children = stream.spawn(len(variables))
    out: dict[str, pd.DataFrame] = {}
    for (_, name, x), (_, _, b), child in zip(variables, binned, children, strict=True):
        k = bins_along(x, fine_bin_count(b.n_bins, x.size), groups, icc)
        if k <= b.n_bins:
            continue
        fine = tie_aware_bins(x, k)
        if fine.n_bins <= b.n_bins:
            continue
        say(f"per-bin intervals along {name}, {fine.n_bins} bins (the advice's finer grid)")
        out[name] = bin_table(e, u_scaled, x, fine, n_boot, child, n_workers, groups=groups)
    return out


def bin_variables(candidates: Sequence[tuple[str, str, NDArray[np.float64]]], n_bins: int,
                  groups: GroupIndex | None, icc: float | None = None) -> tuple[
                      dict[str, str], list[tuple[str, str, NDArray[np.float64]]],
                      list[tuple[str, str, Bins]]]:
    """The binning of the conditional stages: the variables that cannot be binned (name ->
    reason), the others as (stage, name, values), and their tie-aware bins
    (:func:`uqval.binning.tie_aware_bins`; with groups, as many as hold on average
    :data:`uqval.stats.groups.GROUPS_PER_BIN` resampling units, :func:`bins_along`)."""
    untestable = {name: reason for stage, name, x in candidates if (reason := untestable_reason(
        x, rules.MIN_BIN_COUNT, "uncertainty value" if stage == "consistency" else "value"))}
    variables = [(stage, name, x) for stage, name, x in candidates if name not in untestable]
    binned = [(stage, name, tie_aware_bins(x, bins_along(x, n_bins, groups, icc)))
              for stage, name, x in variables]
    return untestable, variables, binned


def bins_along(x: NDArray[np.float64], n_bins: int, groups: GroupIndex | None,
               icc: float | None = None) -> int:
    """Bins along ``x``: ``n_bins``, at most as many as hold on average GROUPS_PER_BIN
    resampling units (groups or blocks of them; about G / GROUPS_PER_BIN along a variable
    constant inside groups: :func:`bins_for_groups`) and, given
    the intra-class correlation ``icc`` of Z^2, at most as many as hold MIN_BIN_COUNT
    effective rows a bin on average (:func:`uqval.stats.groups.effective_bin_count`: 30
    rows of one group are not 30 observations)."""
    if groups is None:
        return n_bins
    k = bins_for_groups(x, n_bins, groups)
    return k if icc is None else effective_bin_count(x, k, groups, icc, rules.MIN_BIN_COUNT)


def bins_for_groups(x: ArrayLike, n_bins: int, groups: GroupIndex) -> int:
    """Bins along ``x``: the most, at most ``n_bins`` (at least 2), whose equal-count bins
    along x (:func:`uqval.binning.tie_aware_bins`) hold on average at least
    :data:`~uqval.stats.groups.GROUPS_PER_BIN` of the resampling units
    (``groups``' groups, or its blocks of consecutive groups when nested): a bin's interval
    resamples the units it holds, and a bin of one or two units has no interval worth the
    name. Along a variable constant inside every group this is about G / GROUPS_PER_BIN
    bins; along one that mixes the groups (the hour of the day, rows in
    days) nothing changes; along a per-structure variable in blocks of consecutive
    structures, the bins hold the blocks the variable spreads over.

    >>> import numpy as np
    >>> from uqval.stats.groups import GroupIndex
    >>> g = GroupIndex.from_codes(np.repeat(np.arange(20), 3))
    >>> per_group, mixing = np.repeat(np.arange(20.0), 3), np.tile(np.arange(3.0), 20)
    >>> bins_for_groups(per_group, 10, g), bins_for_groups(mixing + per_group / 100, 10, g)
    (4, 10)
    >>> blocks = GroupIndex.nested(np.repeat(np.arange(10), 12), np.repeat(np.arange(40), 3))
    >>> bins_for_groups(np.repeat(np.arange(40.0), 3), 10, blocks)  # 10 blocks, 5 a bin
    2
    """
    xs = np.asarray(x, dtype=np.float64)
    if n_bins <= 2:
        return n_bins
    codes = groups.codes.astype(np.int64)

    def enough(k: int) -> bool:
        bins = tie_aware_bins(xs, k)
        cells = np.unique(bins.labels.astype(np.int64) * groups.n_groups + codes).size
        return cells >= GROUPS_PER_BIN * bins.n_bins  # (bin, unit) pairs

    return most_bins(enough, n_bins)  # fewer bins hold more units each
