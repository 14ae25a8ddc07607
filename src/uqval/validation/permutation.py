"""Permutation tests of between-bin heterogeneity of the z-scores.

Under calibration, E = uE·D with D independent of uE and of the features, so the z-scores
Z = E/uE are exchangeable with respect to any binning variable x. Shuffling Z over the rows
(keeping the bins of x fixed) therefore draws from the exact null distribution of any
statistic of the per-bin sums, whatever the shape of D (heavy tails included) and whatever
the bin sizes: the test has size at most alpha by construction.

Two statistics per binning variable, with bins b of n_b rows, M = sum n_b:

* ``T_ZMS = M ln ZMS - sum_b n_b ln ZMS_b`` (>= 0), ZMS_b = <Z^2>_b, ZMS = <Z^2>: the
  likelihood-ratio (Bartlett) statistic of "same scale of Z in every bin" against "one scale
  per bin" for zero-mean normal Z. It compares the LZMS of the bins (P003 Eq. 6) on the log
  scale, so a bin whose uncertainties are too small by a factor f contributes about
  n_b (ln f^2)^2 / 2 whichever the direction.
* ``T_Z = sum_b n_b (<Z>_b - <Z>)^2``: the between-bin sum of squares of the LZM (P003
  Sect. III.B.1), which detects a bias that varies with x.

Both are invariant under a global rescaling of uE, so they test the *shape* of the
calibration along x once the average error (the scale factor) is set aside.

p-value: ``(1 + #{T_perm >= T_obs}) / (n_permutations + 1)`` (Phipson & Smyth 2010), so
P(p <= alpha) <= alpha exactly under the null. With ``exceedances=h`` each test follows the
sequential rule of Besag & Clifford (1991, Biometrika 78, 301), as the UCC test does
(:func:`uqval.ucc.auucc_permutation_test`): it stops at its h-th exceedance, p = h/l after l
permutations, or the fixed p-value above when fewer than h exceedances occur in
``n_permutations``; permutations are drawn in batches until every test has stopped. The
first l permutations are those of the fixed rule (same chunks, same children), so a test
that never stops early has exactly the fixed-rule p-value.

Computation. Only the per-bin sums of Z and Z^2 of each permutation are needed. A compiled
kernel shuffles Z (Fisher-Yates up to 2^14 rows; above, the cache-friendly Rao-Sandelius
scatter-then-shuffle of :func:`_shuffle`) and accumulates the bin sums of every binning
variable from the same shuffle (sharing a permutation between variables is valid: each
variable's test still sees a uniform permutation). Permutations are drawn in fixed chunks
of :data:`CHUNK` permutations, chunk j from child j of ``SeedSequence(seed)``, with the
SFC64 generator of :mod:`uqval.stats.resample_kernel`; the result depends on (seed, data,
n_permutations) only, never on the number of threads. Cost O(n_permutations · M · (1 +
n_variables)), memory O(M + n_permutations · total bins).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.checks import MAX_RESAMPLES, integer
from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike
from uqval.stats.groups import GroupIndex, constant_within, shuffle_exchangeable, shuffle_groups
from uqval.stats.shuffle import CHUNK, _fisher_yates, _n_buckets, _shuffle, run_chunks

_TINY = np.finfo(np.float64).tiny

__all__ = ["CHUNK", "HeterogeneityTest", "grouped_heterogeneity_tests",
           "heterogeneity_statistics", "heterogeneity_tests"]


@numba.njit(nogil=True, cache=True)
def _chunk_sums(z, labels, offsets, n_buckets, state, out):  # pragma: no cover - compiled
    """out[r, offsets[v] + b, 0/1] = sum of Z / Z^2 over bin b of variable v, permutation r."""
    m = z.size
    a = z.copy()
    b = np.empty_like(a)
    choice = np.empty(m, np.int32)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.shape[0]):
        if n_buckets == 1:
            s0, s1, s2, s3 = _fisher_yates(a, 0, m, s0, s1, s2, s3)
        else:
            s0, s1, s2, s3 = _shuffle(a, b, choice, n_buckets, s0, s1, s2, s3)
            a, b = b, a
        for v in range(labels.shape[0]):
            base = offsets[v]
            for i in range(m):
                k = base + labels[v, i]
                zi = a[i]
                out[r, k, 0] += zi
                out[r, k, 1] += zi * zi


def _permuted_sums(
    z: NDArray[np.float64],
    labels: NDArray[np.int32],
    offsets: NDArray[np.int64],
    n_total: int,
    n_permutations: int,
    seed: SeedLike,
    n_workers: int,
    done: Callable[[NDArray[np.float64]], bool] | None = None,
) -> NDArray[np.float64]:
    """Bin sums of every permutation, ``(n_drawn, n_total, 2)``; with ``done``, drawn in
    batches of chunks (doubling) until ``done(sums so far)`` is true, else all at once."""
    buckets = _n_buckets(z.size)

    def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
        _chunk_sums(z, labels, offsets, buckets, state, rows)

    return run_chunks(np.zeros((n_permutations, n_total, 2)), seed, n_workers, fill, done)


def heterogeneity_statistics(
    s1: NDArray[np.float64], s2: NDArray[np.float64], counts: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """T_ZMS and T_Z (module docstring) from bin sums of Z (``s1``) and Z^2 (``s2``).

    The bins run along the last axis; leading axes (permutations) are kept.
    """
    m = counts.sum(axis=-1, keepdims=True)  # per permutation when counts vary (groups)
    zms_b = np.maximum(s2 / counts, _TINY)
    zms = np.maximum(s2.sum(axis=-1, keepdims=True) / m, _TINY)
    t_zms = np.sum(counts * (np.log(zms) - np.log(zms_b)), axis=-1)
    zm_b = s1 / counts
    zm = s1.sum(axis=-1, keepdims=True) / m
    t_z = np.sum(counts * np.square(zm_b - zm), axis=-1)
    return t_zms, t_z


@dataclass(frozen=True)
class HeterogeneityTest:
    """Permutation test of one statistic along one binning variable.

    Attributes:
        statistic: observed T.
        null_mean: mean of T over the permutations (T/null_mean is the spread ratio,
            about 1 under calibration).
        null_q95: 95th percentile of T over the permutations.
        p_value: (1 + #{T_perm >= T}) / (n_permutations + 1).
        n_permutations: number of permutations.
    """

    statistic: float
    null_mean: float
    null_q95: float
    p_value: float
    n_permutations: int

    @property
    def ratio(self) -> float:
        """Observed spread relative to random bins (1 under calibration)."""
        return self.statistic / self.null_mean if self.null_mean > 0 else float("nan")


def _exceeds(observed: float, null: NDArray[np.float64]) -> NDArray[np.bool_]:
    # a relative tolerance so that equal values summed in another order count as ties
    return null >= observed * (1.0 - 1e-9) - 1e-300


def _test(observed: float, null: NDArray[np.float64], n_permutations: int,
          exceedances: int | None) -> HeterogeneityTest:
    """The test from the ``null`` drawn so far (module docstring: fixed or sequential)."""
    hits = np.cumsum(_exceeds(observed, null))
    if exceedances is not None and hits.size and hits[-1] >= exceedances:
        used = int(np.argmax(hits >= exceedances)) + 1
        null, p = null[:used], exceedances / used
    else:  # all n_permutations drawn (the sequential rule draws on until h or the end)
        p = (1.0 + (int(hits[-1]) if hits.size else 0)) / (n_permutations + 1.0)
    return HeterogeneityTest(
        statistic=float(observed),
        null_mean=float(null.mean()),
        null_q95=float(np.quantile(null, 0.95)),
        p_value=float(p),
        n_permutations=int(null.size),
    )


def heterogeneity_tests(
    z: NDArray[np.float64],
    labels: Sequence[NDArray[np.int32]],
    *,
    n_permutations: int = 999,
    seed: SeedLike = None,
    n_workers: int = 1,
    exceedances: int | None = None,
) -> list[tuple[HeterogeneityTest, HeterogeneityTest]]:
    """Permutation tests of T_ZMS and T_Z for several binning variables at once.

    Args:
        z: z-scores, 1-D, finite.
        labels: per binning variable, the bin number (0 .. K_v - 1) of every row; every
            bin must hold at least one row.
        n_permutations: number of permutations (the smallest attainable p-value is
            1/(n_permutations + 1)).
        seed: seed of the permutations (module docstring).
        n_workers: threads (no effect on the result).
        exceedances: None (all ``n_permutations``) or h, the sequential rule of Besag &
            Clifford (module docstring): each test stops at its h-th exceedance.

    Returns:
        Per variable, the pair (test of T_ZMS, test of T_Z).
    """
    n_permutations = integer(n_permutations, "n_permutations", minimum=1, maximum=MAX_RESAMPLES)
    z = np.ascontiguousarray(z, dtype=np.float64)
    lab = np.ascontiguousarray(np.stack(labels), dtype=np.int32)
    n_bins = lab.max(axis=1).astype(np.int64) + 1
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.int64)
    if exceedances is not None:
        exceedances = integer(exceedances, "exceedances", minimum=1)
    counts, observed = [], []
    for v, k in enumerate(n_bins):
        counts.append(np.bincount(lab[v], minlength=k).astype(np.int64))
        observed.append(heterogeneity_statistics(
            np.bincount(lab[v], weights=z, minlength=k).astype(np.float64),
            np.bincount(lab[v], weights=z * z, minlength=k).astype(np.float64),
            counts[v],
        ))

    def nulls(sums: NDArray[np.float64]) -> list[tuple[NDArray[np.float64], ...]]:
        return [heterogeneity_statistics(sums[:, off : off + k, 0], sums[:, off : off + k, 1],
                                         c) for off, k, c in zip(offsets, n_bins, counts,
                                                                 strict=True)]

    def done(sums: NDArray[np.float64]) -> bool:
        assert exceedances is not None
        return all(np.count_nonzero(_exceeds(float(obs), null)) >= exceedances
                   for pair, obs_pair in zip(nulls(sums), observed, strict=True)
                   for null, obs in zip(pair, obs_pair, strict=True))

    sums = _permuted_sums(z, lab, offsets, int(n_bins.sum()), n_permutations, seed, n_workers,
                          None if exceedances is None else done)
    return [tuple(_test(float(obs), null, n_permutations, exceedances)  # type: ignore[misc]
                  for obs, null in zip(obs_pair, pair, strict=True))
            for obs_pair, pair in zip(observed, nulls(sums), strict=True)]


@numba.njit(nogil=True, cache=True)
def _within_sums(zs, labels, offsets, starts, strata, inner, state, out):  # pragma: no cover
    """As :func:`_chunk_sums`, Z permuted inside each group and whole groups of equal size
    exchanged (:func:`uqval.stats.groups.shuffle_exchangeable`): ``zs`` and ``labels`` are in
    the order of a :class:`~uqval.stats.groups.SizeLayout` (segments ``starts``, runs of
    equal-size groups ``strata``)."""
    a = zs.copy()
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.shape[0]):
        s0, s1, s2, s3 = shuffle_exchangeable(a, starts, strata, inner, s0, s1, s2, s3)
        for v in range(labels.shape[0]):
            base = offsets[v]
            for i in range(a.size):
                k = base + labels[v, i]
                zi = a[i]
                out[r, k, 0] += zi
                out[r, k, 1] += zi * zi


@numba.njit(nogil=True, cache=True)
def _between_sums(s1, s2, n, labels, offsets, state, out):  # pragma: no cover - compiled
    """Whole groups exchanged: the group sums of Z, Z^2 and the sizes of group p[g] go to
    the bin of group g (``labels`` per group); out[r, k, 0/1/2] = bin sums and counts."""
    p = np.arange(s1.size)
    s0_, s1_, s2_, s3_ = state[0], state[1], state[2], state[3]
    for r in range(out.shape[0]):
        s0_, s1_, s2_, s3_ = shuffle_groups(p, s0_, s1_, s2_, s3_)
        for v in range(labels.shape[0]):
            base = offsets[v]
            for g in range(p.size):
                k = base + labels[v, g]
                q = p[g]
                out[r, k, 0] += s1[q]
                out[r, k, 1] += s2[q]
                out[r, k, 2] += n[q]


def grouped_heterogeneity_tests(
    z: NDArray[np.float64],
    labels: Sequence[NDArray[np.int32]],
    groups: GroupIndex,
    *,
    variables: Sequence[NDArray[np.float64]],
    n_permutations: int = 999,
    seed: SeedLike = None,
    n_workers: int = 1,
) -> tuple[list[tuple[HeterogeneityTest, HeterogeneityTest]], list[str]]:
    """The tests of :func:`heterogeneity_tests` when rows come in groups whose z-scores are
    dependent (docs/choices.md, "Rows that come in groups").

    * A variable constant inside every group (``variables[v]``; its bins then keep each
      group's rows together, as tie-aware bins do): **whole groups are exchanged**. Under
      calibration the groups are exchangeable units whatever the dependence inside them, so
      permuting the bin labels of the groups (each bin keeps its number of groups, its row
      count varies with the sizes of the groups it receives) draws from the exact null of
      T_ZMS and T_Z (computed with each permutation's counts).
    * A variable that varies inside groups: **Z is permuted inside each group and whole
      groups of equal size are exchanged** (restricted permutations within blocks, Good
      2005, Sect. 3.6, Anderson & ter Braak 2003; with the exchange of whole blocks, the
      two-level permutations of nested designs: :func:`uqval.stats.groups.shuffle_exchangeable`).
      Exact when the rows of a group are exchangeable (a shared group part plus row parts
      independent and identically distributed) and groups of one size are exchangeable
      units, as the "groups exchanged" procedure assumes: it uses the contrasts inside
      groups and between groups of equal size, so a variable that varies mostly between
      groups (a per-compound descriptor with scaffolds as groups, most of them one or two
      compounds) keeps its power (groups of one row are permuted freely).

    Returns per variable the pair of tests, and per variable its procedure ("groups
    exchanged" or "permuted within groups"). Fixed ``n_permutations`` (no sequential rule).
    """
    n_permutations = integer(n_permutations, "n_permutations", minimum=1, maximum=MAX_RESAMPLES)
    z = np.ascontiguousarray(z, dtype=np.float64)
    lab = np.ascontiguousarray(np.stack(labels), dtype=np.int32)
    n_bins = lab.max(axis=1).astype(np.int64) + 1
    level = ["groups exchanged" if constant_within(x, groups) else "permuted within groups"
             for x in variables]
    between_seed, within_seed = seed_sequence(seed).spawn(2)
    out: list[tuple[HeterogeneityTest, HeterogeneityTest] | None] = [None] * len(labels)
    for kind, child in (("groups exchanged", between_seed), ("permuted within groups",
                                                               within_seed)):
        which = [v for v, lv in enumerate(level) if lv == kind]
        if not which:
            continue
        k = n_bins[which]
        offsets = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(np.int64)
        total = int(k.sum())
        if kind == "groups exchanged":
            heads = groups.order[groups.starts[:-1]]  # one row of each group
            glab = np.ascontiguousarray(lab[which][:, heads])
            s1, s2 = groups.sums(z), groups.sums(z * z)
            n = groups.counts.astype(np.float64)

            def fill_between(state: NDArray[np.uint64], rows: NDArray[np.float64],
                             glab=glab, s1=s1, s2=s2, n=n, offsets=offsets) -> None:
                _between_sums(s1, s2, n, glab, offsets, state, rows)

            sums = run_chunks(np.zeros((n_permutations, total, 3)), child, n_workers,
                              fill_between)
        else:
            layout = groups.size_layout()
            zs = np.ascontiguousarray(z[layout.order])
            slab = np.ascontiguousarray(lab[which][:, layout.order])

            def fill_within(state: NDArray[np.uint64], rows: NDArray[np.float64],
                            zs=zs, slab=slab, offsets=offsets, layout=layout) -> None:
                _within_sums(zs, slab, offsets, layout.starts, layout.strata,
                             layout.inner_starts, state, rows)

            sums = run_chunks(np.zeros((n_permutations, total, 2)), child, n_workers,
                              fill_within)
        for j, v in enumerate(which):
            off, kv = int(offsets[j]), int(k[j])
            counts = np.bincount(lab[v], minlength=kv).astype(np.int64)
            observed = heterogeneity_statistics(
                np.bincount(lab[v], weights=z, minlength=kv).astype(np.float64),
                np.bincount(lab[v], weights=z * z, minlength=kv).astype(np.float64), counts)
            part = sums[:, off : off + kv]
            null_counts = part[..., 2] if kind == "groups exchanged" else counts
            null = heterogeneity_statistics(part[..., 0], part[..., 1], null_counts)
            out[v] = (_test(float(observed[0]), null[0], n_permutations, None),
                      _test(float(observed[1]), null[1], n_permutations, None))
    return [pair for pair in out if pair is not None], level
