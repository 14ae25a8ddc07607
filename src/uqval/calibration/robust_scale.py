"""How much of the average calibration a few rows decide, and a scale factor they cannot move.

ZMS = <Z^2> (Z = E/uE) is a mean of squares: one row with a 100x too small uncertainty adds
10^4/M to it. Zero-spread ensembles, Gaussian processes at their training points and crossing
quantiles produce such rows in real data, and then sqrt(ZMS) asks to multiply *every*
uncertainty by a factor that only those rows need. Three quantities separate the cases:

* **Tail shares** (:func:`z2_tail_shares`): the share of sum(Z^2) carried by the 0.1 % and the
  1 % rows with the largest Z^2. For calibrated normal errors the top 1 % carry 8.4 % of the
  sum (E[Z^2; abs(Z) > 2.576] = 0.01 + 2 (2.576) phi(2.576)); for unit-variance Student-t(6)
  errors about 20 %.
* **Robust scale factor** (:func:`robust_scale_factor`): a median of means (Nemirovski & Yudin
  1983; Lugosi & Mendelson 2019). The rows are split at random (seeded) into K blocks of b rows;
  each block gives its own <Z^2>; the median of the K block values, divided by its value
  median(chi2_b)/b for calibrated normal errors (so it estimates ZMS without bias in that
  case), is the robust ZMS, and its square root the robust factor. Fewer than K/2 bad rows
  cannot move it beyond the range of the clean blocks. Its interval is the distribution-free
  interval of a median from two order statistics of the block values (binomial(K, 1/2)
  ranks), with the same normalisation. Block size b = clip(M // 20, 5, 50) (so K >= 20 blocks;
  K = M/50 from M = 1000 on). One random partition makes the factor a lottery of the seed when
  a few rows dominate (the block a dominant row falls in moves the median): the robust ZMS and
  its interval ends are therefore averaged over R random partitions (a bagged median of
  means), R = clip(2^24 // M, 1, 64) (64 up to 2.6·10^5 rows, then fewer, as the partition noise
  falls with the number of blocks). docs/choices.md, "Robust scale factor", gives the choice
  and the measured bias, coverage and seed spread.
* **Rows in groups** (``groups``; docs/choices.md, "Rows that come in groups"): the blocks
  hold whole groups (the shuffled groups are cut into K = min(M // b, G) blocks of about
  M/K rows, each group in the block of its middle row; empty blocks are dropped), so one
  bad group moves one block, and the block means of different blocks are independent.
  Dependent rows make a block mean more skewed than chi2_b/b: the normalisation uses the
  effective size nu = (M/K)/deff (Satterthwaite 1946: a mean of Z^2 over b' = M/K rows with
  variance 2 deff/b' for calibrated normal errors is matched by chi2_nu/nu), deff =
  1 + (m_b - 1) ICC(Z^2) the design effect of a block (:func:`uqval.stats.groups.design_effect`, m_b the size-weighted
  mean group size), and the median of chi2_nu/nu.
* **Dominant rows** (:func:`dominant_rows`): the largest-Z^2 rows, taken in decreasing order,
  without which the remaining rows' ZMS falls inside the robust interval; at most 1 % of the
  rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from uqval._internal.checks import errors_uncertainties, probability
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.stats.groups import GroupIndex, design_effect, icc_oneway

__all__ = [
    "MAX_DOMINANT_SHARE",
    "dominant_rows_unchecked",
    "robust_scale_factor_unchecked",
    "z2_tail_shares_unchecked",
    "RobustScale",
    "TailShares",
    "dominant_rows",
    "robust_scale_factor",
    "z2_tail_shares",
]

MAX_DOMINANT_SHARE = 0.01
"""Largest share of the rows that :func:`dominant_rows` may name."""

MIN_BLOCKS = 20
MAX_BLOCK_SIZE = 50
MIN_BLOCK_SIZE = 5
MAX_PARTITIONS = 64
"""Most random partitions whose median-of-means values are averaged."""
GROUPS_PER_BLOCK = 5
"""Fewest groups per block with rows in groups (a block mean of one or two groups is too
skewed for the normalisation)."""
PARTITION_WORK = 1 << 24
"""Rows x partitions at most (fewer partitions above 2.6·10^5 rows)."""


@dataclass(frozen=True)
class TailShares:
    """Share of sum(Z^2) carried by the top 0.1 % and top 1 % rows (at least one row each)."""

    top_0_1_percent: float
    top_1_percent: float

    def __repr__(self) -> str:
        return (f"TailShares(top 0.1 %: {100 * self.top_0_1_percent:.1f} %, "
                f"top 1 %: {100 * self.top_1_percent:.1f} %)")


def z2_tail_shares(errors: ArrayLike, uncertainties: ArrayLike) -> TailShares:
    """Share of sum(Z^2) carried by the ceil(0.1 % M) and ceil(1 % M) largest Z^2.

    >>> e = np.r_[np.ones(999), 100.0]
    >>> z2_tail_shares(e, np.ones(1000))
    TailShares(top 0.1 %: 90.9 %, top 1 %: 91.0 %)
    """
    return z2_tail_shares_unchecked(*errors_uncertainties(errors, uncertainties))


def z2_tail_shares_unchecked(errors: FloatArray, uncertainties: FloatArray) -> TailShares:
    """:func:`z2_tail_shares` on arrays already checked (float64, same length, finite,
    uE > 0), as the validation engine's stages hold them."""
    z2 = np.sort(np.square(errors / uncertainties))[::-1]
    total = float(z2.sum())
    if total == 0.0:
        return TailShares(0.0, 0.0)
    cum = np.cumsum(z2)
    m = z2.size

    def share(fraction: float) -> float:
        return float(cum[max(1, int(np.ceil(fraction * m))) - 1] / total)

    return TailShares(share(0.001), share(0.01))


@dataclass(frozen=True)
class RobustScale:
    """Median-of-means scale factor sqrt(robust ZMS) with its distribution-free interval."""

    value: float
    ci_low: float
    ci_high: float
    block_size: int
    n_blocks: int
    n_partitions: int = 1

    def __repr__(self) -> str:
        return (f"RobustScale({self.value:.4g} [{self.ci_low:.4g}, {self.ci_high:.4g}], "
                f"{self.n_blocks} blocks of {self.block_size}, {self.n_partitions} partitions)")


def block_size_for(m: int) -> int:
    """b = clip(M // 20, 5, 50): at least 20 blocks, blocks of 50 rows from M = 1000 on."""
    return int(np.clip(m // MIN_BLOCKS, MIN_BLOCK_SIZE, MAX_BLOCK_SIZE))


def robust_scale_factor(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> RobustScale:
    """Median-of-means scale factor (module docstring): a few rows cannot move it.

    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 20_000)
    >>> e = 1.5 * u * rng.standard_normal(u.size)  # uncertainties 1.5x too small
    >>> u[:40] /= 40.0                              # and 0.2 % of them 40x smaller still
    >>> round(float(np.sqrt(np.mean((e / u) ** 2))), 2)  # sqrt(ZMS): decided by the 40 rows
    3.2
    >>> round(robust_scale_factor(e, u).value, 2)
    1.53
    """
    e, u = errors_uncertainties(errors, uncertainties, min_size=2 * MIN_BLOCK_SIZE)
    probability(confidence)
    return robust_scale_factor_unchecked(e, u, confidence=confidence, seed=seed)


def robust_scale_factor_unchecked(errors: FloatArray, uncertainties: FloatArray, *,
                                  confidence: float = 0.95, seed: SeedLike = 0,
                                  groups: GroupIndex | None = None) -> RobustScale:
    """:func:`robust_scale_factor` on arrays already checked (float64, same length, finite,
    uE > 0, at least 10 rows) and a checked ``confidence``; ``groups``: blocks of whole
    groups (module docstring, "Rows in groups")."""
    e, u = errors, uncertainties
    m = e.size
    b = block_size_for(m)
    z2 = np.square(e / u)
    if groups is not None:
        return _grouped_robust_scale(z2, groups, b, confidence, seed)
    k = m // b
    norm = float(stats.chi2.median(b)) / b
    lo_rank, hi_rank = _ranks(k, confidence)
    n_partitions = partitions_for(m)
    ends = np.empty((n_partitions, 3))
    for r, child in enumerate(seed_sequence(seed).spawn(n_partitions)):
        order = value_generator(child).permutation(m)[: k * b]
        blocks = np.sort(np.mean(z2[order].reshape(k, b), axis=1))
        ends[r] = np.median(blocks), blocks[lo_rank - 1], blocks[hi_rank - 1]
    median, low, high = np.sqrt(ends.mean(axis=0) / norm)
    return RobustScale(value=float(median), ci_low=float(low), ci_high=float(high),
                       block_size=b, n_blocks=k, n_partitions=n_partitions)


def _ranks(k: int, confidence: float) -> tuple[int, int]:
    """1-based order statistics of K block values bounding the median's interval."""
    lo_rank = max(1, int(stats.binom.ppf((1.0 - confidence) / 2.0, k, 0.5)))
    return lo_rank, min(k, k - lo_rank + 1)


def _grouped_robust_scale(z2: FloatArray, groups: GroupIndex, b: int, confidence: float,
                          seed: SeedLike) -> RobustScale:
    """The median of means over blocks of whole groups (module docstring, "Rows in
    groups"): per partition, the groups in a seeded random order, group j in block
    floor(K (R_j + n_j/2)/M) with R_j the rows of the groups before it; the block means
    sum S/sum n; normalised by the median of chi2_nu/nu, nu = (M/K)/deff."""
    m = z2.size
    k = max(2, min(m // b, groups.n_groups // GROUPS_PER_BLOCK))
    sums = groups.sums(z2)
    n = groups.counts.astype(np.float64)
    deff = design_effect(icc_oneway(z2, groups), groups)
    rows_per_block = m / k
    nu = rows_per_block / deff if np.isfinite(deff) else rows_per_block
    norm = float(stats.chi2.median(nu)) / nu
    n_partitions = partitions_for(m)
    ends = np.empty((n_partitions, 3))
    used = np.empty(n_partitions, dtype=np.int64)
    for r, child in enumerate(seed_sequence(seed).spawn(n_partitions)):
        order = value_generator(child).permutation(groups.n_groups)
        before = np.cumsum(n[order]) - n[order]
        block = np.minimum((k * (before + n[order] / 2.0) / m).astype(np.intp), k - 1)
        rows = np.bincount(block, weights=n[order], minlength=k)
        filled = rows > 0
        blocks = np.sort(np.bincount(block, weights=sums[order], minlength=k)[filled]
                         / rows[filled])
        used[r] = blocks.size
        lo_rank, hi_rank = _ranks(blocks.size, confidence)
        ends[r] = np.median(blocks), blocks[lo_rank - 1], blocks[hi_rank - 1]
    median, low, high = np.sqrt(ends.mean(axis=0) / norm)
    return RobustScale(value=float(median), ci_low=float(low), ci_high=float(high),
                       block_size=round(rows_per_block), n_blocks=int(used.min()),
                       n_partitions=n_partitions)


def partitions_for(m: int) -> int:
    """R = clip(2^24 // M, 1, MAX_PARTITIONS) random partitions (module docstring)."""
    return int(np.clip(PARTITION_WORK // m, 1, MAX_PARTITIONS))


def dominant_rows(
    errors: ArrayLike, uncertainties: ArrayLike, robust: RobustScale
) -> NDArray[np.intp]:
    """Indices (0-based, by decreasing Z^2) of the fewest largest-Z^2 rows without which the
    ZMS of the remaining rows lies inside the robust interval; empty when none are needed or
    when more than 1 % of the rows would be (then no small set of rows decides the average).

    >>> e = np.r_[np.ones(999), 100.0]
    >>> dominant_rows(e, np.ones(1000), robust_scale_factor(e, np.ones(1000)))
    array([999])
    """
    return dominant_rows_unchecked(*errors_uncertainties(errors, uncertainties), robust)


def dominant_rows_unchecked(errors: FloatArray, uncertainties: FloatArray,
                            robust: RobustScale) -> NDArray[np.intp]:
    """:func:`dominant_rows` on arrays already checked (float64, same length, finite,
    uE > 0)."""
    z2 = np.square(errors / uncertainties)
    order = np.argsort(-z2, kind="stable")
    m = z2.size
    limit = max(1, int(MAX_DOMINANT_SHARE * m))
    high = robust.ci_high**2
    remaining = (float(z2.sum()) - np.cumsum(z2[order[:limit]])) / (m - np.arange(1, limit + 1))
    if float(z2.mean()) <= high:
        return order[:0]
    inside = np.flatnonzero(remaining <= high)
    if inside.size == 0:
        return order[:0]
    return order[: inside[0] + 1]
