"""Groups that follow one another: dependence between consecutive groups, and blocks of them.

The group methods of :mod:`uqval.stats.groups` take the groups as independent units. Groups
that follow one another often are not: the days of hourly readings (a warm spell makes
consecutive days' errors alike), the segments of one trajectory, the batches of one
measurement campaign. Every interval over such groups is then too narrow and every
permutation of groups too eager: on 110 consecutive days of hourly temperatures with
persistent day effects (AR(1), rho = 0.7, uncertainties right by construction) uqval found
a false range in 34 % of the draws with the days as groups (``benchmarks/real_outputs_nulls.md``).

**Order.** The groups are taken in the order of their first row in the input: the file's
order, which for times and trajectories is the order that matters.

**Test** (:func:`rank_von_neumann`): Bartels' (1982) rank version of von Neumann's ratio
on the group means of the rows' ranks of Z and of Z^2 (the two ways errors persist: a
shared offset, a shared size), each at level ``alpha / 2``. Ranks make the means symmetric
whatever the tails, and each mean is standardized by its sd under independence,
sqrt(tau^2 + sigma^2/n_g) from the one-way ANOVA components, so that groups of unequal sizes
are alike: a file sorted by group size is not a trend (t(3) errors in groups of 1-60 rows
sorted by size: 4.7 % of sets flagged at the level 1 % with plain means standardized, 7.3 %
without). With R_i the ranks of
the G standardized means in order,

    RVN = sum_{i=1}^{G-1} (R_i - R_{i+1})^2 / sum_{i=1}^{G} (R_i - R_bar)^2,

E(RVN) = 2 and Var(RVN) = 4 (G - 2)(5G^2 - 2G - 9) / (5 G (G + 1)(G - 1)^2) for independent
groups (no ties); persistence makes RVN small, so the one-sided p-value is
Phi((RVN - 2)/sd). Ranks make it exact in distribution for any heavy-tailed Z^2 and need no
seed. RVN is about 2 (1 - r) with r the lag-1 autocorrelation of the ranks.

**A trend along a validated variable** (``variables``): when the groups' order goes with one
of the variables validated along (a file sorted by a feature or by the uncertainty; the
in-distribution structures first and the extrapolated ones last), a trend of Z or Z^2 along
that variable, a calibration error the conditional stages test, makes neighbouring groups
alike too and would read as dependence. So when the test rejects, it is repeated on the two
series detrended along each variable in turn: each standardized mean minus the mean of its
chunk of :data:`CHUNK` units in the order of the units' means of the variable (at least two
chunks; for a file sorted by the variable these are chunks of consecutive units). The groups
are dependent only when the test rejects after every detrending: dependence that a trend
along no single variable explains. Persistence (an AR(1) of the groups) survives chunks of
consecutive units, and chunks along a variable unrelated to the order remove nothing of it;
a step or a slope along the variable does not survive. Removing chunk means makes the units
of a chunk slightly anti-correlated (-1/(CHUNK - 1)) under independence, so each test stays
conservative. (Groups of 4 rows in the order of x with errors 3x for the top quarter were
blocked in 9 of 10 sets, and the range found was the top half at a diluted factor,
``benchmarks/range_edges.py``; 170 structures with the extrapolated ones last were blocked
until the rule looked along the variables, not only at files sorted by one.)

**Blocks** (:func:`serial_blocks`): when a test rejects, consecutive groups are merged into
blocks of k groups (the last block takes the remainder), and every group method then works
on the blocks. k is the smallest block length for which an AR(1) of the groups with
coefficient r (the larger of the two lag-1 rank autocorrelations) predicts a lag-1
correlation of adjacent block sums of at most ``max_block_correlation`` (0.1):

    corr(S_j, S_{j+1}) = r (1 - r^k)^2 / (1 - r)^2 / (k + 2 sum_{h=1}^{k-1} (k - h) r^h),

then enlarged while the blocks' own tests still reject, and never so large that fewer than
:data:`uqval.stats.groups.MIN_GROUPS` blocks remain (then the dependence is only reported).
Blocks of consecutive groups are coarser clusters: intervals over them stay valid when the
groups are in fact independent, at the price of fewer units (docs/choices.md, "Groups that
follow one another", has the measured false alarms and power).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from uqval.stats.groups import MIN_GROUPS, GroupIndex

__all__ = [
    "ALPHA",
    "CHUNK",
    "MAX_BLOCK_CORRELATION",
    "SerialBlocks",
    "ar1_block_correlation",
    "rank_von_neumann",
    "serial_blocks",
    "widest_blocks",
]

ALPHA = 0.01
"""Level of the two tests together (``alpha / 2`` each, Bonferroni)."""
MAX_BLOCK_CORRELATION = 0.1
"""Largest lag-1 correlation of adjacent blocks that an AR(1) may predict."""
CHUNK = 10
"""Units per chunk (in the order of a variable's unit means) whose mean is removed before the
test detrended along that variable (module docstring)."""


def rank_von_neumann(values: ArrayLike) -> tuple[float, float]:
    """Bartels' rank von Neumann ratio of a series and its one-sided p-value (module
    docstring): small for positive serial dependence.

    >>> import numpy as np
    >>> ratio, p = rank_von_neumann(np.arange(30.0))  # a trend: every neighbour alike
    >>> round(ratio, 4), p < 1e-6
    (0.0129, True)
    >>> ratio, p = rank_von_neumann(np.random.default_rng(0).standard_normal(200))
    >>> bool(1.6 < ratio < 2.4), bool(p > 0.01)
    (True, True)
    """
    x = np.asarray(values, dtype=np.float64)
    g = x.size
    if g < 3:
        raise ValueError(f"rank_von_neumann: needs at least 3 values, got {g}")
    ranks = _average_ranks(x)
    spread = float(np.sum((ranks - ranks.mean()) ** 2))
    if spread == 0.0:
        return 2.0, 1.0  # all equal: no evidence of anything
    ratio = float(np.sum(np.diff(ranks) ** 2)) / spread
    var = 4.0 * (g - 2) * (5.0 * g * g - 2.0 * g - 9.0) / (5.0 * g * (g + 1) * (g - 1) ** 2)
    return ratio, float(special.ndtr((ratio - 2.0) / math.sqrt(var)))


def _average_ranks(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Ranks 1..n, ties given their average rank (``scipy.stats.rankdata``'s default, without
    importing scipy.stats on the command line's path)."""
    order = np.argsort(x, kind="stable")
    sorted_x = x[order]
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    ends = np.r_[starts[1:], x.size]
    average = (starts + ends + 1) / 2.0  # mean of the 1-based ranks starts+1 .. ends
    ranks = np.empty(x.size)
    ranks[order] = np.repeat(average, ends - starts)
    return ranks


def ar1_block_correlation(r: float, k: int) -> float:
    """Lag-1 correlation of adjacent sums of k consecutive values of an AR(1) with lag-1
    correlation r (module docstring).

    >>> round(ar1_block_correlation(0.37, 1), 2), round(ar1_block_correlation(0.37, 5), 3)
    (0.37, 0.102)
    """
    if r <= 0.0:
        return 0.0
    cov = r * (1.0 - r**k) ** 2 / (1.0 - r) ** 2
    var = k + 2.0 * sum((k - h) * r**h for h in range(1, k))
    return float(cov / var)


@dataclass(frozen=True)
class SerialBlocks:
    """Dependence between consecutive groups and the blocks the inference uses.

    Attributes:
        n_groups: G, the groups as given.
        p_mean, p_square: one-sided p-values of the rank von Neumann tests on the group means
            of Z and of Z^2 (groups in the order of their first row).
        lag1: the larger lag-1 rank autocorrelation of the two series, 1 - RVN/2.
        dependent: a test rejected at ``alpha / 2``, and still rejected after detrending
            along each variable.
        explained_by: the variable along which a trend explains the serial pattern (the
            raw tests rejected, those detrended along it did not; "" when none): the groups
            are then taken as independent (module docstring). With ``dependent``, the
            variable whose detrending left the least dependence ("" when none was given); the
            blocks are sized on the series detrended along it.
        block_size: k consecutive groups per block (1: the groups are used as given).
        n_blocks: the units of the inference.
        codes: block code of every row (the group codes when ``block_size`` is 1).
    """

    n_groups: int
    p_mean: float
    p_square: float
    lag1: float
    dependent: bool
    block_size: int
    n_blocks: int
    codes: NDArray[np.intp]
    explained_by: str = ""

    def describe(self) -> str:
        """One line for the parameters and the warnings."""
        tests = (f"lag-1 rank correlation of consecutive groups' means of Z and Z^2 up to "
                 f"{self.lag1:.2f}, Bartels p = {self.p_mean:.2g} and {self.p_square:.2g}")
        if self.explained_by and not self.dependent:
            tests += (f"; a trend along {self.explained_by}, whose groups come in the file "
                      "in about its order, explains it: detrended along it (chunks of "
                      f"{CHUNK} groups) the series are independent; a trend along a variable "
                      "is a calibration question the stages below answer, not dependence")
        elif self.explained_by:
            tests += "; still dependent once detrended along each variable validated along"
        if not self.dependent:
            return f"consecutive groups independent as far as tested ({tests})"
        if self.block_size == 1:
            return (f"consecutive groups are dependent ({tests}), and {self.n_groups} groups "
                    f"are too few for blocks of at least {MIN_GROUPS}: intervals and tests "
                    "over the groups are too narrow")
        return (f"consecutive groups are dependent ({tests}): intervals and tests use "
                f"{self.n_blocks} blocks of {self.block_size} consecutive groups (in the order "
                "of their first row)")


def _series(values: NDArray[np.float64], codes: NDArray[np.intp], n: int,
            counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """The units' means, each standardized by its own sd under independence,
    (mean_g - mean) / sqrt(tau^2 + sigma^2 / n_g) with the one-way ANOVA components
    (sigma^2 within units, tau^2 = max(0, (MSB - MSW)/n_0) between): so that a file sorted by
    group size does not look serially dependent (small groups' means spread more)."""
    sums = np.bincount(codes, weights=values, minlength=n)
    means = sums / counts
    m = values.size
    grand = float(values.sum()) / m
    within_ss = float(np.sum((values - means[codes]) ** 2))
    if m == n or within_ss == 0.0:  # groups of one row (or no spread inside): equal sds
        return np.asarray(means - grand)
    msw = within_ss / (m - n)
    msb = float(np.sum(counts * (means - grand) ** 2)) / (n - 1)
    n0 = (m - float(np.sum(counts**2)) / m) / (n - 1)
    tau2 = max(0.0, (msb - msw) / n0)
    return np.asarray((means - grand) / np.sqrt(tau2 + msw / counts))


def _block_codes(position: NDArray[np.intp], k: int) -> NDArray[np.intp]:
    """Block of each group position: k consecutive groups, the last block the remainder."""
    n_blocks = position.size // k
    return np.minimum(position // k, n_blocks - 1).astype(np.intp)


def _detrended(series: NDArray[np.float64],
               along: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """The series minus the mean of its chunk of about :data:`CHUNK` values in the order of
    ``along`` (the units' means of a variable; at least two chunks); tied values share a
    chunk (that of the first of them), so that ties never fall back to the file's order (a
    binary feature gives two chunks: its two classes); ``along=None``: the series itself."""
    if along is None:
        return series
    n = series.size
    chunks = max(2, n // CHUNK)
    order = np.argsort(along, kind="stable")
    ranked = along[order]
    nominal = (np.arange(n) * chunks) // n
    first_of_tie = np.searchsorted(ranked, ranked, side="left")
    label = np.empty(n, dtype=np.intp)
    label[order] = nominal[first_of_tie]
    means = np.bincount(label, weights=series) / np.maximum(np.bincount(label), 1)
    return np.asarray(series - means[label])


def _tests(z: NDArray[np.float64], unit: NDArray[np.intp], n: int,
           along: NDArray[np.float64] | None = None) -> tuple[float, float, float]:
    """One-sided p-values of the tests on the units' series of Z and Z^2 (detrended along
    ``along``, the units' means of a variable, when given) and the larger lag-1 rank
    autocorrelation."""
    counts = np.bincount(unit, minlength=n).astype(np.float64)
    p = []
    ratios = []
    for v in (z, z * z):  # the rows' ranks: symmetric group means whatever the tails
        series = _series(_average_ranks(v), unit, n, counts)
        ratio, pv = rank_von_neumann(_detrended(series, along))
        ratios.append(ratio)
        p.append(pv)
    return p[0], p[1], 1.0 - min(ratios) / 2.0


def _unit_means(variables: Mapping[str, ArrayLike], unit: NDArray[np.intp],
                n: int) -> dict[str, NDArray[np.float64]]:
    """Each usable variable's means over the units (finite, one value a row, not the same
    in every unit up to rounding: a spread of a few ulps, as a constant uncertainty written
    by a program may have, orders nothing), by name."""
    counts = np.bincount(unit, minlength=n).astype(np.float64)
    out = {}
    for name, values in variables.items():
        x = np.asarray(values, dtype=np.float64)
        if x.shape != unit.shape or not np.all(np.isfinite(x)):
            continue
        means = np.bincount(unit, weights=x, minlength=n) / counts
        if np.ptp(means) > 1e-9 * float(np.max(np.abs(means))):
            out[name] = means
    return out


def _least_dependent(z: NDArray[np.float64], unit: NDArray[np.intp], n: int,
                     variables: Mapping[str, ArrayLike]) -> tuple[str, float]:
    """The variable whose detrending leaves the least dependence (largest min(p_mean,
    p_square)) and that p-value; ("", 0.0) without usable variables."""
    best, best_p = "", 0.0
    for name, along in _unit_means(variables, unit, n).items():
        p = min(_tests(z, unit, n, along)[:2])
        if p > best_p:
            best, best_p = name, p
    return best, best_p


def serial_blocks(z: ArrayLike, groups: GroupIndex, *, alpha: float = ALPHA,
                  max_block_correlation: float = MAX_BLOCK_CORRELATION,
                  variables: Mapping[str, ArrayLike] | None = None) -> SerialBlocks:
    """Test consecutive groups for dependence and merge them into blocks if needed (module
    docstring). ``z``: the z-scores E/uE of the rows; ``variables``: the rows' values of the
    variables validated along (the uncertainty, the features), by name: when the groups'
    order follows one of them, the tests ask for dependence beyond a trend along it.

    Groups of independent rows in a random order are kept:

    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> codes = np.repeat(np.arange(120), 24)
    >>> g = GroupIndex.from_codes(codes)
    >>> serial_blocks(rng.standard_normal(codes.size), g).block_size
    1

    Days whose error sizes persist (an AR(1) of log sizes, rho = 0.8) become blocks:

    >>> log_a = np.zeros(120)
    >>> for i in range(1, 120):
    ...     log_a[i] = 0.8 * log_a[i - 1] + 0.6 * rng.standard_normal()
    >>> res = serial_blocks(np.exp(log_a)[codes] * rng.standard_normal(codes.size), g)
    >>> res.dependent, res.block_size > 1, res.n_blocks >= 10
    (True, True, True)

    Groups in the order of a feature x whose largest quarter has errors 3x too large: a
    trend along x, not dependence, once x is named (so is any order that goes with x):

    >>> x = np.repeat(np.arange(120) / 120, 24)
    >>> z = rng.standard_normal(codes.size) * np.where(x >= 0.75, 3.0, 1.0)
    >>> serial_blocks(z, g).dependent, serial_blocks(z, g, variables={"x": x}).dependent
    (True, False)
    """
    zz = np.asarray(z, dtype=np.float64)
    g = groups.n_groups
    if g < 3:  # no order to test
        return SerialBlocks(n_groups=g, p_mean=1.0, p_square=1.0, lag1=0.0, dependent=False,
                            block_size=1, n_blocks=g, codes=groups.codes)
    first = np.full(g, groups.size, dtype=np.int64)
    np.minimum.at(first, groups.codes, np.arange(groups.size))
    position = np.empty(g, dtype=np.intp)
    position[np.argsort(first, kind="stable")] = np.arange(g)
    row_position = position[groups.codes]
    p_mean, p_square, lag1 = _tests(zz, row_position, g)
    dependent = min(p_mean, p_square) < alpha / 2
    named = dict(variables or {})
    explained_by = ""
    if dependent and named:
        explained_by, p_left = _least_dependent(zz, row_position, g, named)
        dependent = p_left < alpha / 2
    k, largest = 1, g // MIN_GROUPS
    if dependent and largest >= 2:
        k = 2
        while k < largest and ar1_block_correlation(lag1, k) > max_block_correlation:
            k += 1
        while k < largest:
            blocks = _block_codes(position, k)
            n_blocks = int(blocks.max()) + 1
            row_block = blocks[groups.codes]
            along = _unit_means({explained_by: named[explained_by]}, row_block, n_blocks).get(
                explained_by) if explained_by else None
            if min(_tests(zz, row_block, n_blocks, along)[:2]) >= alpha / 2:
                break
            k += 1
    if k == 1:
        codes, n_units = groups.codes, g
    else:
        blocks = _block_codes(position, k)
        codes, n_units = blocks[groups.codes], int(blocks.max()) + 1
    return SerialBlocks(n_groups=g, p_mean=p_mean, p_square=p_square, lag1=lag1,
                        dependent=bool(dependent), block_size=k, n_blocks=n_units,
                        codes=np.asarray(codes, dtype=np.intp), explained_by=explained_by)


def widest_blocks(zs: Sequence[ArrayLike], groups: GroupIndex,
                  variables: Sequence[Mapping[str, ArrayLike]] | None = None) -> SerialBlocks:
    """The :func:`serial_blocks` of several models' z-scores on the same rows (``compare``)
    with the longest blocks: the units that respect the strongest dependence any model shows.
    ``variables``: each model's variables (its uncertainty and the features), in the order
    of ``zs``.

    >>> import numpy as np
    >>> g = GroupIndex.from_codes(np.repeat(np.arange(50), 4))
    >>> z = np.random.default_rng(0).standard_normal(200)
    >>> widest_blocks([z, z], g).block_size
    1
    """
    each: Sequence[Mapping[str, ArrayLike] | None] = (
        [None] * len(zs) if variables is None else variables)
    found = [serial_blocks(z, groups, variables=v) for z, v in zip(zs, each, strict=True)]
    return max(found, key=lambda s: s.block_size)
