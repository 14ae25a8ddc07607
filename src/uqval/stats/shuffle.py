"""Compiled uniform shuffles on the SFC64 stream, shared by the permutation tests.

The permutation tests (binned heterogeneity and cumulative tests of
:mod:`uqval.validation`, the isotonic MCB test of :mod:`uqval.calibration.isotonic`) shuffle
M values many times. Up to 2**14 values a Fisher-Yates shuffle; above, the Rao-Sandelius
scatter-then-shuffle (:func:`_shuffle`), which touches memory almost sequentially. The
random words come from Chris Doty-Humphrey's SFC64 (:mod:`uqval.stats.resample_kernel`),
one stream per chunk of :data:`CHUNK` permutations, chunk j from child j of
``SeedSequence(seed)``: the result depends on (seed, data, number of permutations) only,
never on the threads. The shuffles' random choices do not depend on the values shuffled.
:func:`run_chunks` runs a compiled chunk kernel over that stream layout, all at once or in
doubling batches for the sequential rule of Besag & Clifford.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import run_jobs
from uqval._internal.types import SeedLike
from uqval.stats.resample_kernel import _sfc64_next, sfc64_state

__all__ = ["CHUNK", "permutation_p_value", "run_chunks"]

CHUNK = 16
"""Permutations per random-stream chunk (fixes the stream; no effect on the result)."""

_U = np.uint64
_TWO_M53 = 2.0**-53


@numba.njit(inline="always")
def _below(x, n):  # pragma: no cover - compiled
    """An integer uniform in [0, n) from the top 53 bits of the 64-bit word x."""
    return int(float(x >> _U(11)) * _TWO_M53 * n)


@numba.njit(nogil=True)
def _fisher_yates(a, lo, hi, s0, s1, s2, s3):  # pragma: no cover - compiled
    """Shuffle a[lo:hi] in place; returns the new generator state."""
    for i in range(hi - 1, lo, -1):
        x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
        j = lo + _below(x, i - lo + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    return s0, s1, s2, s3


@numba.njit(nogil=True)
def _shuffle(src, dst, choice, n_buckets, s0, s1, s2, s3):  # pragma: no cover - compiled
    """dst = a uniformly random permutation of src (Rao-Sandelius: scatter, then shuffle).

    Every element goes to one of ``n_buckets`` (a power of two <= 1024) buckets chosen
    uniformly and independently, the buckets are concatenated and each is shuffled by
    Fisher-Yates. This gives every permutation the same probability (Sandelius 1962) and
    touches memory almost sequentially, which a plain Fisher-Yates over millions of rows
    does not (a cache miss per swap).
    """
    m = src.size
    bits = _U(0)
    counts = np.zeros(n_buckets + 1, np.int64)
    mask = _U(n_buckets - 1)
    width = _U(0)
    while (_U(1) << width) < _U(n_buckets):
        width += _U(1)
    per_word = 64 // int(width)
    x = _U(0)
    left = 0
    for i in range(m):
        if left == 0:
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            bits = x
            left = per_word
        c = int(bits & mask)
        bits = bits >> width
        left -= 1
        choice[i] = c
        counts[c + 1] += 1
    for c in range(n_buckets):
        counts[c + 1] += counts[c]
    pos = counts[:-1].copy()
    for i in range(m):
        c = choice[i]
        dst[pos[c]] = src[i]
        pos[c] += 1
    for c in range(n_buckets):
        s0, s1, s2, s3 = _fisher_yates(dst, counts[c], counts[c + 1], s0, s1, s2, s3)
    return s0, s1, s2, s3



def _n_buckets(m: int) -> int:
    """Buckets of the scatter step: a power of two giving about 2**14 rows (128 KiB) each."""
    return int(min(1024, 1 << max(0, math.ceil(math.log2(max(m, 1) / 2**14)))))


def run_chunks(
    out: NDArray[Any],
    seed: SeedLike,
    n_workers: int,
    fill_chunk: Callable[[NDArray[np.uint64], NDArray[Any]], None],
    done: Callable[[NDArray[Any]], bool] | None = None,
    *,
    chunk: int = CHUNK,
) -> NDArray[Any]:
    """Fill ``out`` (one row per permutation) chunk by chunk on the stream layout above.

    Chunk j is ``out[j*chunk : (j+1)*chunk]`` (``chunk`` permutations, :data:`CHUNK` unless
    a caller fixed its own stream otherwise), filled by ``fill_chunk(state, rows)`` with
    ``state`` the SFC64 state of child j of ``SeedSequence(seed)``; the chunks run on
    ``n_workers`` threads (:func:`uqval._internal.streams.run_jobs`), so the rows do not
    depend on the threads. Without ``done`` every chunk runs. With ``done`` (the sequential
    rule of Besag & Clifford), the chunks run in doubling batches until ``done(rows drawn so
    far)`` is true; the rows drawn are always the first ones, the same numbers as with all
    chunks.

    Returns:
        ``out``, or its first rows (a multiple of ``chunk``) when ``done`` stopped early.
    """
    n = out.shape[0]
    starts = range(0, n, chunk)
    children = seed_sequence(seed).spawn(len(starts))

    def work(job: tuple[int, np.random.SeedSequence]) -> None:
        start, child = job
        fill_chunk(sfc64_state(child), out[start : start + chunk])

    def stop(jobs_run: int) -> bool:
        assert done is not None
        return bool(done(out[: min(n, jobs_run * chunk)]))

    ran = run_jobs(work, list(zip(starts, children, strict=True)), n_workers,
                   stop=None if done is None else stop)
    return out[: ran * chunk] if ran * chunk < n else out


def permutation_p_value(exceeds: NDArray[np.bool_], n_permutations: int,
                        exceedances: int | None = None) -> float:
    """The p-value of a permutation test from whether each permutation drawn (in order)
    reached the observed statistic: (1 + exceedances)/(n_permutations + 1) (the fixed rule),
    or with ``exceedances=h`` reached, h/l at the h-th exceedance after l permutations (the
    sequential rule of Besag & Clifford 1991).

    >>> permutation_p_value(np.array([False, True, False]), 3)
    0.5
    >>> permutation_p_value(np.array([True, False, True, True]), 99, exceedances=2)
    0.6666666666666666
    """
    hits = np.cumsum(exceeds)
    if exceedances is not None and hits.size and hits[-1] >= exceedances:
        return exceedances / (int(np.argmax(hits >= exceedances)) + 1)
    return (1 + int(hits[-1] if hits.size else 0)) / (n_permutations + 1)
