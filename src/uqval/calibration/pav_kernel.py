"""Compiled kernel of the isotonic MCB permutation test: shuffle, PAV, recalibrated QLIKE.

Each permutation of the MCB test (:func:`uqval.calibration.isotonic.mcb_permutation_test`)
permutes the squared z-scores against the fixed uE², pools the products uE²·Z²_π over the
groups of equal uE, fits the increasing PAV regression of the pooled means and sums the
QLIKE of the recalibrated forecasts. Here the whole permutation runs in one compiled pass
per step, in place, with no temporary array: the shuffle of :mod:`uqval.stats.shuffle` (SFC64
stream in chunks of :data:`~uqval.stats.shuffle.CHUNK` permutations, as the other
permutation tests), the group sums, the pool-adjacent-violators algorithm on a stack of
blocks (Best & Chakravarti 1990: push each group, merge the last two blocks while their
means decrease) and the sum over blocks k of S_k/f_k + C_k ln f_k, f_k = S_k/C_k (blocks with
f_k = 0, all errors 0 there, are raised to the smallest positive f, as the NumPy code does).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from uqval.stats.groups import shuffle_exchangeable
from uqval.stats.shuffle import _fisher_yates, _shuffle

__all__: list[str] = []


@numba.njit(nogil=True, cache=True)
def _pav_qlike_sum(sums, counts, stack_s, stack_c):  # pragma: no cover - compiled
    """sum over the blocks of the increasing PAV fit of sums/counts (weights counts) of
    S/f + C ln f; ``stack_s``, ``stack_c``: work arrays of len(sums)."""
    top = -1
    for k in range(sums.size):
        top += 1
        stack_s[top] = sums[k]
        stack_c[top] = counts[k]
        while top > 0 and stack_s[top - 1] * stack_c[top] > stack_s[top] * stack_c[top - 1]:
            stack_s[top - 1] += stack_s[top]
            stack_c[top - 1] += stack_c[top]
            top -= 1
    smallest = math.inf
    for j in range(top + 1):
        f = stack_s[j] / stack_c[j]
        if f > 0.0 and f < smallest:
            smallest = f
    total = 0.0
    for j in range(top + 1):
        f = stack_s[j] / stack_c[j]
        if not f > 0.0:
            f = smallest
        total += stack_s[j] / f + stack_c[j] * math.log(f)
    return total


@numba.njit(nogil=True, cache=True)
def _group_sums(u2, z2, group_end, sums):  # pragma: no cover - compiled
    """sums[k] = sum of u2·z2 over the rows of group k (rows before group_end[k])."""
    i = 0
    for k in range(group_end.size):
        acc = 0.0
        while i < group_end[k]:
            acc += u2[i] * z2[i]
            i += 1
        sums[k] = acc


@numba.njit(nogil=True, cache=True)
def recalibrated_qlike(u2, z2, group_end, counts):  # pragma: no cover - compiled
    """:func:`_pav_qlike_sum` of the pooled u2·z2 (rows in the given order)."""
    g = counts.size
    sums = np.empty(g)
    _group_sums(u2, z2, group_end, sums)
    return _pav_qlike_sum(sums, counts, np.empty(g), np.empty(g))


@numba.njit(nogil=True, cache=True)
def chunk_recalibrated_qlike(u2, z2, group_end, counts, n_buckets, state,
                             out):  # pragma: no cover - compiled
    """out[r] = :func:`recalibrated_qlike` after permutation r of z2 (the chunk's stream)."""
    m = z2.size
    g = counts.size
    a = z2.copy()
    b = np.empty_like(a)
    choice = np.empty(m, np.int32)
    sums = np.empty(g)
    stack_s = np.empty(g)
    stack_c = np.empty(g)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.size):
        if n_buckets == 1:
            s0, s1, s2, s3 = _fisher_yates(a, 0, m, s0, s1, s2, s3)
        else:
            s0, s1, s2, s3 = _shuffle(a, b, choice, n_buckets, s0, s1, s2, s3)
            a, b = b, a
        _group_sums(u2, a, group_end, sums)
        out[r] = _pav_qlike_sum(sums, counts, stack_s, stack_c)


@numba.njit(nogil=True, cache=True)
def chunk_recalibrated_qlike_within(u2, z2, group_end, counts, members, bounds, strata, inner,
                                    state, out):  # pragma: no cover - compiled
    """out[r] = :func:`recalibrated_qlike` after permutation r of z2 *respecting the row
    groups*: ``members[bounds[j]:bounds[j+1]]`` are the positions (in the order of u2) of the
    rows of group j, the groups of a :class:`~uqval.stats.groups.SizeLayout` (runs of equal
    size ``strata``, shuffled inside the segments ``inner``); their z2 values are shuffled inside groups and whole groups of equal
    size exchanged (:func:`uqval.stats.groups.shuffle_exchangeable`; docs/choices.md "Rows
    that come in groups"); the chunk's stream as :func:`chunk_recalibrated_qlike`."""
    m = z2.size
    g = counts.size
    values = np.empty(m)
    for i in range(m):
        values[i] = z2[members[i]]
    a = np.empty(m)
    sums = np.empty(g)
    stack_s = np.empty(g)
    stack_c = np.empty(g)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.size):
        s0, s1, s2, s3 = shuffle_exchangeable(values, bounds, strata, inner, s0, s1, s2, s3)
        for i in range(m):
            a[members[i]] = values[i]
        _group_sums(u2, a, group_end, sums)
        out[r] = _pav_qlike_sum(sums, counts, stack_s, stack_c)
