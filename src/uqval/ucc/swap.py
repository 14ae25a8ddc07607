"""Compiled swap permutations of the paired AUUCC test (P004 Sect. 4), without sorting.

A swap permutation exchanges the per-point terms (critical scale k_i, active band a_i,
abs(error) e_i, mean half-width w_i) of models A and B at the points where a random bit
s_i is 1. The permuted AUUCCs of the two default coordinate systems (trapezoid rule; also
the rectangle rule for bandwidth–miss rate) are functions of a few *sums* over the permuted
model plus, for bandwidth–miss rate, its smallest and largest critical scale and its tie
groups, so a permutation costs O(N) additions and no sort.

Excess–deficit, trapezoid. Between consecutive critical scales ξ(k) and δ(k) are linear in
k, so the trapezoid rule is the exact integral ∫ δ dξ from k'_1 to k'_N. With
dξ/dk = (1/N) Σ_{k_i ≤ k} a_i and δ(k) = (1/N) Σ_j a_j (k_j − k)_+,

    S_ED = (1/N²) Σ_{i,j} a_i a_j (k_j − k_i)_+² / 2 = (S_0 S_2 − S_1²) / (2 N²),

with S_r = Σ_i a_i (k_i − c)^r for any shift c (the double sum depends on differences only;
c is the a-weighted mean critical scale of both models, which avoids cancellation). Tied
scales contribute nothing to either side.

Bandwidth–miss rate. β(k) = k W̄ with W̄ = mean(w), and ρ(k) = #{k_i > k}/N is a step
function; with distinct critical scales k'_1 < … grouped into tie groups of sizes c_g
(k'_0 = 0), ∫_{k'_1}^{k'_N} ρ dk = mean(k) − k'_1 and the trapezoids add half of each drop:

    S_trap = W̄ [mean(k) − k'_1 − (H − c_1 k'_1)/(2N)],    S_rect = W̄ [mean(k) − H/N],

where H = Σ_g c_g (k'_g − k'_{g−1}) = k'_max + Σ_{g: c_g ≥ 2} (c_g − 1)(k'_g − k'_{g−1}).
Without ties H = k'_max and S_rect = (1/N) Σ_{j<N} β(k'_j) (Prop. 1, Eq. 15).

Per permutation the sums are Σ_{A*} v = Σ_A v + Σ_i s_i (v^B_i − v^A_i) (and Σ_{B*} v =
Σ_B v − the same term). The extremes and tie groups of A* and B* come from one merged sort
of the 2N critical scales of both models, done once: the permuted model's scales are the
merged list filtered by the swap bits, so its minimum is the first merged entry it owns
(two entries on average), and only the tie groups of the merged list (entries of at least
two different points with equal scale) need a count per permutation.

Random stream: permutation r of a chunk uses ceil(N/64) consecutive 64-bit outputs of the
SFC64 generator of the chunk's SeedSequence (:mod:`uqval.stats.resample_kernel`); bit b of
output w is s_{64w+b}. :func:`swap_masks` returns the same bits as a boolean array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.types import FloatArray
from uqval.stats.resample_kernel import _sfc64_next, sfc64_state

__all__ = ["SwapStatistic", "bandwidth_miss_rate", "excess_deficit", "swap_masks"]

_U = np.uint64


@numba.njit(nogil=True, cache=True)
def _masks(state, out):  # pragma: no cover - compiled
    """out[r, i] = swap bit of point i in permutation r (the kernels' stream)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    rows, n = out.shape
    for r in range(rows):
        for lo in range(0, n, 64):
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            for i in range(lo, min(lo + 64, n)):
                out[r, i] = ((x >> _U(i - lo)) & _U(1)) == _U(1)


@numba.njit(nogil=True, cache=True)
def _ed_chunk(diff, base_a, base_b, points, state, out):  # pragma: no cover - compiled
    """Δ* of excess–deficit (trapezoid) for out.size permutations; diff is (n, 3), one row
    per swapped unit (a point, or a group of points), over ``points`` = N points."""
    n = diff.shape[0]
    norm = 2.0 * points * points
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.size):
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        for lo in range(0, n, 64):
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            for i in range(lo, min(lo + 64, n)):
                f = float((x >> _U(i - lo)) & _U(1))
                t0 += f * diff[i, 0]
                t1 += f * diff[i, 1]
                t2 += f * diff[i, 2]
        a0, a1, a2 = base_a[0] + t0, base_a[1] + t1, base_a[2] + t2
        b0, b1, b2 = base_b[0] - t0, base_b[1] - t1, base_b[2] - t2
        out[r] = (a0 * a2 - a1 * a1) / norm - (b0 * b2 - b1 * b1) / norm


@numba.njit(inline="always")
def _owned_below(start, owner, mmod, mpt, flags):  # pragma: no cover - compiled
    """Largest merged position < start owned by ``owner`` (0 = A*, 1 = B*), or -1."""
    e = start - 1
    while e >= 0 and (mmod[e] ^ flags[mpt[e]]) != owner:
        e -= 1
    return e


@numba.njit(nogil=True, cache=True)
def _bm_chunk(
    diff, base_a, base_b, mk, mpt, mmod, run_start, run_end, trapezoid, state, flags, out
):  # pragma: no cover - compiled
    """Δ* of bandwidth–miss rate for out.size permutations; diff is (N, 2) (k, w)."""
    n = diff.shape[0]
    n2 = mk.size
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    areas = np.empty(2)
    for r in range(out.size):
        tk = 0.0
        tw = 0.0
        for lo in range(0, n, 64):
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            for i in range(lo, min(lo + 64, n)):
                bit = (x >> _U(i - lo)) & _U(1)
                flags[i] = np.uint8(bit)
                f = float(bit)
                tk += f * diff[i, 0]
                tw += f * diff[i, 1]
        for owner in range(2):
            if owner == 0:
                sk, sw = base_a[0] + tk, base_a[1] + tw
            else:
                sk, sw = base_b[0] - tk, base_b[1] - tw
            e = 0
            while (mmod[e] ^ flags[mpt[e]]) != owner:
                e += 1
            kmin = mk[e]
            e = n2 - 1
            while (mmod[e] ^ flags[mpt[e]]) != owner:
                e -= 1
            h = mk[e]
            c1 = 1.0
            for g in range(run_start.size):
                c = 0
                for e in range(run_start[g], run_end[g]):
                    if (mmod[e] ^ flags[mpt[e]]) == owner:
                        c += 1
                if c >= 2:
                    below = _owned_below(run_start[g], owner, mmod, mpt, flags)
                    pred = mk[below] if below >= 0 else 0.0
                    h += (c - 1) * (mk[run_start[g]] - pred)
                    if below < 0:
                        c1 = float(c)
            if trapezoid:
                areas[owner] = sw / n * (sk / n - kmin - (h - c1 * kmin) / (2.0 * n))
            else:
                areas[owner] = sw / n * (sk / n - h / n)
        out[r] = areas[0] - areas[1]


def swap_masks(seed: np.random.SeedSequence, rows: int, n: int) -> NDArray[np.bool_]:
    """Swap bits (rows, n) of ``rows`` permutations drawn from ``seed`` (the kernels' stream)."""
    out = np.empty((rows, n), dtype=np.bool_)
    _masks(sfc64_state(seed), out)
    return out


@dataclass(frozen=True)
class SwapStatistic:
    """Precomputed per-point quantities of one coordinate system; ``deltas`` runs permutations.

    ``diff`` holds v^B_i − v^A_i of the summed quantities (N, q), ``base_a`` and ``base_b``
    their totals over A and B; ``merged`` (bandwidth–miss rate only) the merged sort;
    ``points``: N when the rows of ``diff`` are groups of points (:meth:`by_group`), else 0.
    """

    diff: FloatArray
    base_a: FloatArray
    base_b: FloatArray
    merged: tuple[NDArray, ...] | None = None
    trapezoid: bool = True
    points: int = 0

    def by_group(self, codes: NDArray[np.intp], n_groups: int) -> SwapStatistic:
        """The statistic whose swap bits are one per *group* (codes 0..G-1 of the points):
        Σ_i s_g(i) diff_i = Σ_g s_g Σ_{i∈g} diff_i, so the group sums of ``diff`` are swapped
        with bit g of the stream (excess–deficit only: the extremes and ties of
        bandwidth–miss rate are per point)."""
        if self.merged is not None:
            raise ValueError("swaps by group have a closed form for excess-deficit only")
        diff = np.zeros((n_groups, self.diff.shape[1]))
        np.add.at(diff, codes, self.diff)
        return SwapStatistic(diff, self.base_a, self.base_b, None, self.trapezoid,
                             self.points or self.diff.shape[0])

    def deltas(self, seed: np.random.SeedSequence, out: FloatArray) -> None:
        """Δ* = AUUCC(A*) − AUUCC(B*) of ``out.size`` permutations from ``seed``, in place."""
        state = sfc64_state(seed)
        if self.merged is None:
            _ed_chunk(self.diff, self.base_a, self.base_b, self.points or self.diff.shape[0],
                      state, out)
            return
        flags = np.empty(self.diff.shape[0], dtype=np.uint8)
        _bm_chunk(self.diff, self.base_a, self.base_b, *self.merged, self.trapezoid, state,
                  flags, out)


def _sums(columns_a: FloatArray, columns_b: FloatArray) -> SwapStatistic:
    diff = np.ascontiguousarray((columns_b - columns_a).T)
    return SwapStatistic(diff, columns_a.sum(axis=1), columns_b.sum(axis=1))


def excess_deficit(k_a: FloatArray, a_a: FloatArray, k_b: FloatArray,
                   a_b: FloatArray) -> SwapStatistic:
    """Swap statistic of the excess–deficit AUUCC (trapezoid): sums of a, a(k−c), a(k−c)²."""
    c = (np.dot(a_a, k_a) + np.dot(a_b, k_b)) / (a_a.sum() + a_b.sum())

    def columns(k: FloatArray, a: FloatArray) -> FloatArray:
        d = k - c
        return np.stack([a, a * d, a * d * d])

    return _sums(columns(k_a, a_a), columns(k_b, a_b))


def bandwidth_miss_rate(k_a: FloatArray, w_a: FloatArray, k_b: FloatArray, w_b: FloatArray,
                        trapezoid: bool) -> SwapStatistic:
    """Swap statistic of the bandwidth–miss-rate AUUCC: sums of k and w, extremes and ties."""
    n = k_a.size
    base = _sums(np.stack([k_a, w_a]), np.stack([k_b, w_b]))
    both = np.concatenate([k_a, k_b])
    order = np.argsort(both, kind="stable")
    mk = both[order]
    mpt = (order % n).astype(np.int64)
    mmod = (order // n).astype(np.uint8)
    # tie groups of the merged list that hold entries of at least two different points
    edges = np.flatnonzero(np.diff(mk) != 0.0) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [mk.size]])
    size = ends - starts
    pair_of_one_point = (size == 2) & (mpt[starts] == mpt[np.minimum(starts + 1, mk.size - 1)])
    keep = (size >= 2) & ~pair_of_one_point
    merged = (mk, mpt, mmod, starts[keep].astype(np.int64), ends[keep].astype(np.int64))
    return SwapStatistic(base.diff, base.base_a, base.base_b, merged, trapezoid)
