"""Compiled kernel of the bootstrap: draw resample indices and sum columns over them.

A bootstrap replicate of a mean statistic needs, for each resample, the sums of a few
per-point columns over M row indices drawn uniformly with replacement. NumPy needs three
passes over memory for this (draw an index array, gather, sum); the kernel here does it
row by row in cache, compiled with Numba, which is about 3x faster (``benchmarks/``).

Random stream. The indices are exactly those of

    numpy.random.Generator(numpy.random.SFC64(seed_sequence)).integers(0, m, size=n)

i.e. Chris Doty-Humphrey's SFC64 generator (as implemented by NumPy, whose initial state
:func:`sfc64_state` takes from NumPy itself) and NumPy's bounded-integer algorithm for
ranges below 2**32: each 64-bit output gives two 32-bit words (low half first), and a word u
is mapped to floor(u m / 2**32) with Lemire's rejection of the products whose low 32 bits
fall below (2**32 - m) mod m. ``tests/test_resample_kernel.py`` checks the identity, so a generic
statistic can draw the same indices with NumPy.

Summation. Each column is summed over a resample with four interleaved accumulators,
((a0 + a1) + (a2 + a3)), which keeps the floating-point pipeline busy; the rounding differs
from ``ndarray.sum`` (pairwise) by a few ulp of the sum. Below :data:`COUNTING_MIN_POINTS`
points the columns are summed in draw order (gathering from columns that fit in cache);
from it on, the draws are first counted per point (uint8 counts, which stay in cache) and
each column is summed as sum_i counts_i c_i in point order: the same resample, a different
summation order, and 3-4x faster at 10^6 points, where gathering misses the cache at every
draw (measured 13.5 vs 3.5-5.4 ns per resampled point, ``benchmarks/bench_peers.py``).

Many columns. From :data:`MATMUL_MIN_COLUMNS` columns on (below the counting size; e.g. the
33 columns of all nu of a P001 Fig. 5 scenario sharing one resample stream), the kernel only
counts the draws of each resample into a (rows, M) float64 matrix C and the sums are one
matrix product C @ columns^T in BLAS: the same resamples, sums equal to rounding (a few ulp; tested), 3-4x faster than
gathering at 33 columns (``benchmarks/bench_pval.py``). BLAS runs single-threaded there,
because OpenBLAS rounds differently with another thread count (measured), and results must
not depend on the machine's cores. On request (``single=True``: the P001 Fig. 5 simulation
study) the counts and columns are float32 and the product is SGEMM: the same resamples, sums
to a relative 10^-6 or so (float32 accumulation over M terms, tested), in 60 % of the time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

__all__ = [
    "COUNTING_MIN_POINTS",
    "MATMUL_MIN_COLUMNS",
    "MAX_POINTS",
    "draw_counts", "draw_indices", "resampled_sums", "resorted_bin_sums", "sfc64_state"]

MAX_POINTS = (1 << 32) - 1
"""Largest number of points the kernel resamples (NumPy's 32-bit bounded-integer path)."""

COUNTING_MIN_POINTS = 1 << 18
"""From this many points on, a resample's sums are taken as sum_i counts_i c_i from its
uint8 draw counts (same draws, summation order by point instead of by draw)."""

MATMUL_MIN_COLUMNS = 8
"""From this many columns on (and below :data:`COUNTING_MIN_POINTS` points), the sums are a
product of the draw counts with the columns (same resamples, sums equal to rounding)."""

_MATMUL_ELEMENTS = 1 << 20  # draw counts per chunk of the matrix-product path (8 MiB)
_U = np.uint64
_LOW32 = np.uint64(0xFFFFFFFF)


def sfc64_state(seed: np.random.SeedSequence) -> NDArray[np.uint64]:
    """Initial 256-bit state (a, b, c, counter) of ``numpy.random.SFC64(seed)``."""
    return np.random.SFC64(seed).state["state"]["state"].astype(np.uint64, copy=True)


@numba.njit(inline="always")
def _sfc64_next(s0, s1, s2, s3):  # pragma: no cover - compiled
    """One SFC64 step: returns (output, new state words)."""
    out = s0 + s1 + s3
    s3 = s3 + _U(1)
    s0 = s1 ^ (s1 >> _U(11))
    s1 = s2 + (s2 << _U(3))
    s2 = ((s2 << _U(24)) | (s2 >> _U(40))) + out
    return out, s0, s1, s2, s3


@numba.njit(inline="always")
def _bounded(span, threshold, s0, s1, s2, s3, have_high, high):  # pragma: no cover
    """One draw in [0, span) (Lemire, 32-bit words, low half first); returns it and the
    new state."""
    while True:
        if have_high:
            word = high
            have_high = False
        else:
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            word = x & _LOW32
            high = x >> _U(32)
            have_high = True
        product = word * span
        if (product & _LOW32) >= threshold:
            return product >> _U(32), s0, s1, s2, s3, have_high, high


@numba.njit(inline="always")
def _fill(idx, span, threshold, s0, s1, s2, s3, have_high, high):  # pragma: no cover
    """Fill ``idx`` with bounded draws (:func:`_bounded`); returns the new state."""
    for i in range(idx.size):
        idx[i], s0, s1, s2, s3, have_high, high = _bounded(
            span, threshold, s0, s1, s2, s3, have_high, high
        )
    return s0, s1, s2, s3, have_high, high


@numba.njit(nogil=True, cache=True)
def _draw(state, m, out):  # pragma: no cover - compiled
    """Fill ``out`` with indices in [0, m) from a fresh generator in ``state``."""
    span = _U(m)
    threshold = (_U(1 << 32) - span) % span
    _fill(out, span, threshold, state[0], state[1], state[2], state[3], False, _U(0))


@numba.njit(inline="always")
def _counted_sums(columns, idx, counts, out_row):  # pragma: no cover - compiled
    """out_row[j] = sum_i counts_i columns[j, i] with counts_i = #{idx == i}; False on overflow.

    Used for large m: the uint8 counts (m bytes) stay in cache while the columns are read
    sequentially, instead of k random reads per draw from columns larger than the cache.
    """
    k, m = columns.shape
    ok = True
    for i in range(m):
        j = idx[i]
        counts[j] += np.uint8(1)
        if counts[j] == 0:  # more than 255 draws of one point (probability < m/256! for m > 255)
            ok = False
    for j in range(k):
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        i = 0
        while i + 4 <= m:
            a0 += counts[i] * columns[j, i]
            a1 += counts[i + 1] * columns[j, i + 1]
            a2 += counts[i + 2] * columns[j, i + 2]
            a3 += counts[i + 3] * columns[j, i + 3]
            i += 4
        while i < m:
            a0 += counts[i] * columns[j, i]
            i += 1
        out_row[j] = (a0 + a1) + (a2 + a3)
    counts[:] = 0
    return ok


@numba.njit(nogil=True, cache=True)
def _sums(columns, state, out):  # pragma: no cover - compiled
    """out[r, j] = sum_i columns[j, idx_r[i]], idx_r the r-th run of m consecutive draws.

    Returns False if the counting path overflowed (never observed; the caller raises).
    """
    k, m = columns.shape
    idx = np.empty(m, np.int64)
    counted = m >= COUNTING_MIN_POINTS
    counts = np.zeros(m if counted else 0, np.uint8)
    ok = True
    span = _U(m)
    threshold = (_U(1 << 32) - span) % span
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    have_high = False
    high = _U(0)
    for r in range(out.shape[0]):
        s0, s1, s2, s3, have_high, high = _fill(
            idx, span, threshold, s0, s1, s2, s3, have_high, high
        )
        if counted:
            ok = _counted_sums(columns, idx, counts, out[r]) and ok
            continue
        for j in range(k):
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            i = 0
            while i + 4 <= m:
                a0 += columns[j, idx[i]]
                a1 += columns[j, idx[i + 1]]
                a2 += columns[j, idx[i + 2]]
                a3 += columns[j, idx[i + 3]]
                i += 4
            while i < m:
                a0 += columns[j, idx[i]]
                i += 1
            out[r, j] = (a0 + a1) + (a2 + a3)
    return ok


@numba.njit(nogil=True, cache=True)
def _draw_counts(state, m, counts):  # pragma: no cover - compiled
    """counts[r, i] = number of draws of point i in resample r, continuing the stream.

    ``state`` holds (s0, s1, s2, s3, have_high, high) and is updated in place, so that
    consecutive calls continue one stream exactly as :func:`_sums` does. Each bounded draw
    (:func:`_bounded`) increments its count at once, without an index array
    (41 -> 27 ms for the 25 million draws of a P001 Fig. 5 repeat).
    """
    span = _U(m)
    threshold = (_U(1 << 32) - span) % span
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    have_high = state[4] != _U(0)
    high = state[5]
    zero = np.zeros(1, counts.dtype)[0]  # of the buffer's type (float64, float32, int64)
    one = np.ones(1, counts.dtype)[0]
    for r in range(counts.shape[0]):
        row = counts[r]
        row[:] = zero  # zeroed here, while the row is in cache (the buffer is reused)
        for _ in range(m):
            j, s0, s1, s2, s3, have_high, high = _bounded(
                span, threshold, s0, s1, s2, s3, have_high, high
            )
            row[j] += one
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    state[4] = _U(1) if have_high else _U(0)
    state[5] = high


_blas_lock = threading.Lock()
_blas_users = 0
_blas_state: dict[str, Any] = {}


@contextmanager
def _single_thread_blas() -> Iterator[None]:
    """Limit BLAS to one thread while any caller (of any thread) is inside.

    OpenBLAS rounds a matrix product differently with another number of threads, so the
    results would depend on the machine. The limit is process-wide; a count of the callers
    inside keeps it until the last one leaves (worker threads may overlap).
    """
    global _blas_users
    with _blas_lock:
        if _blas_users == 0:
            if "controller" not in _blas_state:  # finding the libraries takes milliseconds
                _blas_state["controller"] = ThreadpoolController()
            controller = _blas_state["controller"]
            _blas_state["limiter"] = controller.limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_state.pop("limiter").restore_original_limits()


def _matmul_sums(
    columns: NDArray[np.float64], seed: np.random.SeedSequence, out: NDArray[np.float64],
    single: bool = False,
) -> None:
    """out = C @ columns^T with C the draw counts, in chunks of at most 2**20 counts (float32
    counts, columns and product with ``single``)."""
    k, m = columns.shape
    dtype = np.float32 if single else np.float64
    state = np.zeros(6, dtype=np.uint64)
    state[:4] = sfc64_state(seed)
    transposed = np.ascontiguousarray(columns.T, dtype=dtype)
    rows = min(out.shape[0], max(1, _MATMUL_ELEMENTS // m))
    buffer = np.empty((rows, m), dtype)
    product = np.empty((rows, k), dtype) if single else None
    with _single_thread_blas():
        for start in range(0, out.shape[0], rows):
            part = out[start : start + rows]
            counts = buffer[: part.shape[0]]
            _draw_counts(state, m, counts)
            if product is None:
                np.matmul(counts, transposed, out=part)
            else:
                part[:] = np.matmul(counts, transposed, out=product[: part.shape[0]])


def _check_size(m: int) -> None:
    if not 1 <= m <= MAX_POINTS:
        raise ValueError(f"the resampling kernel handles 1 to {MAX_POINTS} points, got {m}")


def draw_counts(seed: np.random.SeedSequence, m: int, rows: int) -> NDArray[np.int64]:
    """How many times each of m points is drawn in each of ``rows`` resamples of ``seed``.

    Row r counts the draws r*M .. (r+1)*M - 1 of the kernel's stream: equal to the
    ``bincount`` of each row of ``Generator(SFC64(seed)).integers(0, m, size=(rows, m))``,
    without the index array (tested).

    >>> import numpy as np
    >>> seed = np.random.SeedSequence(5)
    >>> idx = np.random.Generator(np.random.SFC64(seed)).integers(0, 6, size=(2, 6))
    >>> counts = draw_counts(seed, 6, 2)
    >>> bool((counts == np.stack([np.bincount(r, minlength=6) for r in idx])).all())
    True
    """
    _check_size(m)
    state = np.zeros(6, dtype=np.uint64)
    state[:4] = sfc64_state(seed)
    counts = np.empty((rows, m), dtype=np.int64)
    if rows:
        _draw_counts(state, m, counts)
    return counts


def draw_indices(seed: np.random.SeedSequence, m: int, n: int) -> NDArray[np.int64]:
    """n indices in [0, m) from the SFC64 stream of ``seed`` (the kernel's draw).

    Equal to ``Generator(SFC64(seed)).integers(0, m, size=n)``; used to test that identity.
    """
    _check_size(m)
    out = np.empty(n, dtype=np.int64)
    _draw(sfc64_state(seed), m, out)
    return out


def resampled_sums(
    columns: NDArray[np.float64], seed: np.random.SeedSequence, out: NDArray[np.float64],
    single: bool = False,
) -> None:
    """Sums of each column over ``out.shape[0]`` resamples drawn from ``seed``.

    Args:
        columns: (k, M) float64 per-point columns.
        seed: seed of the block; resample r uses draws r*M .. (r+1)*M - 1 of the stream
            ``Generator(SFC64(seed)).integers(0, M, size=(rows, M))``.
        out: (rows, k) float64 array, written in place (may be a row slice of a larger
            C-contiguous array; the kernel releases the GIL).
        single: on the matrix-product path, float32 counts, columns and product (module
            docstring); no effect on the other paths.
    """
    columns = np.ascontiguousarray(columns, dtype=np.float64)
    k, m = columns.shape
    _check_size(m)
    if out.ndim != 2 or out.shape[1] != k or out.dtype != np.float64:
        raise ValueError(f"out must be a float64 array of shape (rows, {k}), got {out.shape}")
    if k >= MATMUL_MIN_COLUMNS and m < COUNTING_MIN_POINTS:
        _matmul_sums(columns, seed, out, single)
    elif not _sums(columns, sfc64_state(seed), out):
        raise RuntimeError("a point was drawn more than 255 times in one resample")


@numba.njit(nogil=True, cache=True)
def _resorted_bin_sums(counts, bounds, columns, out):  # pragma: no cover - compiled
    """out[c, r, q] = sum of column c over sorted positions bounds[q]..bounds[q+1]-1 of the
    re-sorted resample r (point j repeated counts[r, j] times), by the operations of the
    NumPy formula (prefix sums W = cumsum(counts * column), prefix(b) = W_{k-1} +
    (b - C_{k-1}) column_k, differences): the same floating-point results."""
    n, m = counts.shape
    ncol = columns.shape[0]
    nb = bounds.size - 1
    w = np.empty(ncol)
    last = np.empty(ncol)
    for r in range(n):
        w[:] = 0.0
        last[:] = 0.0
        cum = 0
        j = 0
        for q in range(nb):
            t = bounds[q + 1]
            while j < m and cum + counts[r, j] <= t:
                cum += counts[r, j]
                for c in range(ncol):
                    w[c] += counts[r, j] * columns[c, j]
                j += 1
            nxt = min(j, m - 1)
            for c in range(ncol):
                prefix = (w[c] if j > 0 else 0.0) + (t - cum) * columns[c, nxt]
                out[c, r, q] = prefix - last[c]
                last[c] = prefix


def resorted_bin_sums(
    counts: NDArray[np.integer], bounds: NDArray[np.integer], columns: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per-bin sums of columns over re-sorted resamples given by their multiplicities.

    Points are in sorted order; resample r holds point j ``counts[r, j]`` times, so its
    sorted positions C_{j-1}..C_j - 1 (C = cumsum of the counts) are copies of point j. Bin q
    holds positions ``bounds[q]..bounds[q+1] - 1``. With W the prefix sums of counts x
    column and k = #{j: C_j <= b}, the sum up to position b is W_{k-1} + (b - C_{k-1}) x_k:
    one pass over the points per resample, O(M), and the same floating-point operations as
    the NumPy formula of :class:`uqval.simref.statistics.ResampleStatistic` (bit-identical).

    Returns:
        shape (len(columns), n_resamples, len(bounds) - 1).

    >>> import numpy as np
    >>> counts = np.array([[2, 0, 1, 1]])  # point 0 twice, point 1 absent
    >>> resorted_bin_sums(counts, np.array([0, 2, 4]), np.array([[1.0, 10.0, 100.0, 1000.0]]))
    array([[[   2., 1100.]]])
    """
    cnt = np.ascontiguousarray(counts, dtype=np.int64)
    cols = np.ascontiguousarray(columns, dtype=np.float64)
    edges = np.ascontiguousarray(bounds, dtype=np.int64)
    out = np.empty((cols.shape[0], cnt.shape[0], edges.size - 1))
    if cnt.size:
        _resorted_bin_sums(cnt, edges, cols, out)
    return out
