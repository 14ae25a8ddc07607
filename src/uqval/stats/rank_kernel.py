"""Compiled kernel: ordinal ranks of many rows of non-negative values by a radix sort.

The simulated references of a rank statistic (Spearman's CC of abs(E*) and uE, P002 Eq. 18;
the rank correlation of :mod:`uqval.scores`) need the ranks of abs(E*) in every simulated set.
A comparison sort costs O(M log M) per set and was 80 % of the simulated-reference time of a
dataset page (``benchmarks/simref_page.md``). For non-negative IEEE doubles the bit
pattern read as a signed 64-bit integer is monotone in the value, so a row is sorted in
O(M) by a least-significant-digit radix sort of the patterns (rows of up to 32 values:
insertion sort):

1. one read: min and max of the patterns (a NaN or a negative value flags the row; -0.0, whose
   pattern is the most negative integer, sorts as 0.0 with its sign bit cleared). The key of a
   value is ``(bits - min bits) >> shift``, shift the smallest that fits the key span in
   33 bits (3 digits of 11 bits; rows longer than 2**18: 32 bits, 4 digits of 8 bits, fewer
   write streams when the row is far larger than the cache);
2. value k becomes the word ``key << b | k`` (b bits for the positions): a second read counts
   the digits of every key (all digit tables at once), then each digit moves the words by one
   stable scatter into the other buffer (a digit with a single value is skipped). A word is
   8 bytes where a (value, payload) pair is 16: measured, this halves the cost of a scatter;
   the values and payloads are then gathered in key order;
3. one branch-free scan checks that the values strictly increase, which is the rule: done.
   Otherwise runs of equal keys (values that differ only in the low bits the shift dropped;
   rare and short) are sorted by value, insertion sort up to 32 values, merge sort beyond,
   and the row is searched for ties.

Measured (``benchmarks/rank_kernel_sort.md``): 6.5 ns per value at M = 2000 and 27 000,
8-11 at 130 000, 15-17 at 10**6 (the gather leaves the cache), against 15, 15-16, 17-20 and
19-20 for the former bucket sort on the top bits (exponent-dominated patterns fill the
buckets unevenly) and 53-126 for NumPy's stable argsort. A first most-significant pass into
coarse buckets sorted in cache, for long rows, was slower at 2.6 x 10**5 and 10**6 values.

The rank of the k-th smallest value is k (1-based, ordinal). A row is flagged **tied** when two
values are equal (or a value is NaN or negative): ordinal ranks of ties depend on the sort, so
callers recompute those rows by their reference method (average ranks, or the argsort of the
original code). Without ties the ranks are unique and equal to those of any correct sort:
callers then produce bit-identical statistics (``tests/test_rank_kernel.py``).

>>> import numpy as np
>>> ranks, tied = ordinal_ranks(np.array([[0.5, 0.1, 2.0, 0.3], [1.0, 1.0, 0.0, 3.0]]))
>>> ranks[0].tolist(), tied.tolist()
([3.0, 1.0, 4.0, 2.0], [False, True])
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["ordinal_ranks", "rank_weight_sums", "sorted_prefix_sums"]

_INSERTION_MAX = 32  # rows and runs of equal keys up to this length: insertion sort
_DIGIT = 11  # bits per radix digit: 2048 buckets
_RADIX = 1 << _DIGIT
_PASSES = 3  # at most 3 passes: keys of up to 33 bits
_BIG_DIGIT = 8  # rows longer than _BIG: 4 passes of 8 bits (fewer write streams)
_BIG_PASSES = 4
_BIG = 1 << 18
_ABS = np.int64(0x7FFFFFFFFFFFFFFF)  # clears the sign bit: -0.0 sorts as 0.0
_INF_BITS = np.int64(0x7FF0000000000000)  # patterns above it are NaN


@numba.njit(nogil=True, cache=True)
def _insertion_sort(v, i, first, last):  # pragma: no cover - compiled
    """Stable insertion sort of the pairs (v, i)[first:last] by value."""
    for p in range(first + 1, last):
        idx = i[p]
        x = v[p]
        q = p - 1
        while q >= first and v[q] > x:
            i[q + 1] = i[q]
            v[q + 1] = v[q]
            q -= 1
        i[q + 1] = idx
        v[q + 1] = x


@numba.njit(nogil=True, cache=True)
def _radix_sort(a, payload, lo, hi, vals, order, words, hist, digit, passes):  # pragma: no cover
    """Sort the values of ``a`` (bit patterns, sign bit cleared, in [lo, hi]) into ``vals``
    and their ``payload`` into ``order``; ``words`` (length M) and ``hist`` (passes x
    2**digit) are scratch.

    Each value k becomes the word key << b | k (b bits for the position) with key =
    (bits - lo) >> shift, shift the smallest that fits the key in ``passes`` digits (and
    the word in 63 bits). An LSD radix sort of the words by key (one stable scatter per
    digit, all digit counts taken in one read) is followed by a gather of the values and
    payloads. Returns the shift: values of equal keys (differing only in the low ``shift``
    bits) are left in row order, for :func:`_sort_runs`.
    """
    n = a.size
    sb = a.view(np.int64)
    span = hi - lo
    nbits = 0
    while (span >> nbits) > 0:
        nbits += 1
    ib = 0
    while ((n - 1) >> ib) > 0:
        ib += 1
    kbits = passes * digit
    if kbits > 63 - ib:
        kbits = 63 - ib
    shift = nbits - kbits
    if shift < 0:
        shift = 0
    npass = (nbits - shift + digit - 1) // digit
    radix = 1 << digit
    mask = np.int64(radix - 1)
    hist[: npass * radix] = 0
    if npass == 3:  # the loops over digits unrolled: 3 times faster
        for k in range(n):
            key = ((sb[k] & _ABS) - lo) >> shift
            hist[key & mask] += 1
            hist[radix + ((key >> digit) & mask)] += 1
            hist[2 * radix + ((key >> (2 * digit)) & mask)] += 1
    elif npass == 4:
        for k in range(n):
            key = ((sb[k] & _ABS) - lo) >> shift
            hist[key & mask] += 1
            hist[radix + ((key >> digit) & mask)] += 1
            hist[2 * radix + ((key >> (2 * digit)) & mask)] += 1
            hist[3 * radix + ((key >> (3 * digit)) & mask)] += 1
    else:
        for k in range(n):
            key = ((sb[k] & _ABS) - lo) >> shift
            for j in range(npass):
                hist[j * radix + ((key >> (j * digit)) & mask)] += 1
    # passes whose digit is the same for all values would move nothing: skipped
    key0 = ((sb[0] & _ABS) - lo) >> shift
    active = 0
    for j in range(npass):
        if hist[j * radix + ((key0 >> (j * digit)) & mask)] < n:
            active += 1
    # the words end in ``order`` (gathered in place) after an odd count of scatters
    done = 0
    src = words  # not read before the first scatter, which reads ``a``
    for j in range(npass):
        h = hist[j * radix : (j + 1) * radix]
        if h[(key0 >> (j * digit)) & mask] == n:
            continue
        total = 0
        for d in range(radix):
            c = h[d]
            h[d] = total
            total += c
        dst = order if (active - done) % 2 == 1 else words
        s = ib + j * digit
        if done == 0:
            for k in range(n):
                w = ((((sb[k] & _ABS) - lo) >> shift) << ib) | k
                d = (w >> s) & mask
                p = h[d]
                h[d] = p + 1
                dst[p] = w
        else:
            for k in range(n):
                w = src[k]
                d = (w >> s) & mask
                p = h[d]
                h[d] = p + 1
                dst[p] = w
        src = dst
        done += 1
    if active == 0:  # a single key: the row order
        vals[:] = a
        order[:] = payload
    else:
        pos = (np.int64(1) << ib) - 1
        for k in range(n):
            p = order[k] & pos
            vals[k] = a[p]
            order[k] = payload[p]
    return shift


@numba.njit(nogil=True, cache=True)
def _sort_runs(vals, order, lo, shift):  # pragma: no cover - compiled
    """Sort by value the runs of equal keys (bits - lo) >> shift of the key-sorted pairs
    (vals, order): values that differ only in the low bits the key dropped. Keys increase
    with the value, so a value below its predecessor is inside such a run."""
    n = vals.size
    vb = vals.view(np.int64)
    k = 1
    while k < n:
        if vals[k] < vals[k - 1]:  # inside a run of equal keys: find the run
            key = ((vb[k] & _ABS) - lo) >> shift
            first = k - 1
            while first > 0 and (((vb[first - 1] & _ABS) - lo) >> shift) == key:
                first -= 1
            last = k + 1
            while last < n and (((vb[last] & _ABS) - lo) >> shift) == key:
                last += 1
            if last - first <= _INSERTION_MAX:
                _insertion_sort(vals, order, first, last)
            else:
                perm = np.argsort(vals[first:last], kind="mergesort")
                seg_i = order[first:last][perm]
                seg_v = vals[first:last][perm]
                order[first:last] = seg_i
                vals[first:last] = seg_v
            k = last
        else:
            k += 1


@numba.njit(nogil=True, cache=True)
def _sort_row(a, payload, order, vals, tmp_v, tmp_i, start):  # pragma: no cover - compiled
    """Sort one row: ``vals`` the sorted values, ``order`` the ``payload`` (int64 per value,
    e.g. its position, or a weight) carried along; ``tmp_i`` (length M) and ``start``
    (3 x 2048, int32) are scratch (``tmp_v`` is unused).

    Returns True if the row has ties, a NaN or a negative value (``order`` then undefined);
    -0.0 sorts as 0.0 (a tie if the row also holds 0.0).
    """
    m = a.size
    if m == 0:
        return False
    sb = a.view(np.int64)
    lo = sb[0]
    hi = lo
    for i in range(m):
        b = sb[i]
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    if hi > _INF_BITS:  # NaN: the bit order is not the value order
        return True
    if lo < 0:  # a sign bit: negative (the bit order is reversed) or -0.0 (sorts as 0.0)
        for i in range(m):
            if not (a[i] >= 0.0):
                return True
        lo = _INF_BITS
        hi = 0
        for i in range(m):
            b = sb[i] & _ABS
            if b < lo:
                lo = b
            if b > hi:
                hi = b
    shift = 0
    if m <= _INSERTION_MAX:
        vals[:] = a
        order[:] = payload
        _insertion_sort(vals, order, 0, m)
    elif m <= _BIG:
        shift = _radix_sort(a, payload, lo, hi, vals, order, tmp_i, start, _DIGIT, _PASSES)
    else:
        shift = _radix_sort(a, payload, lo, hi, vals, order, tmp_i, start, _BIG_DIGIT,
                            _BIG_PASSES)
    rough = 0  # one branch-free scan: strictly increasing values need nothing more
    for k in range(1, m):
        rough += vals[k] <= vals[k - 1]
    if rough == 0:
        return False
    if shift > 0:
        _sort_runs(vals, order, lo, shift)
    for k in range(1, m):
        if vals[k] == vals[k - 1]:
            return True
    return False


@numba.njit(nogil=True, cache=True)
def _work_arrays(m):  # pragma: no cover - compiled
    """Scratch arrays of :func:`_sort_row` for rows of length m (< 2**31: int32 counts)."""
    if m >= 1 << 31:
        raise ValueError("rows of 2**31 values or more are not supported")
    return (np.empty(m, np.int64), np.empty(m, np.float64), np.empty(0),
            np.empty(m, np.int64), np.empty(_PASSES * _RADIX, np.int32))


@numba.njit(nogil=True, cache=True)
def _rank_rows(a, ranks, tied):  # pragma: no cover - compiled
    n, m = a.shape
    order, vals, tmp_v, tmp_i, start = _work_arrays(m)
    identity = np.arange(m)
    for r in range(n):
        tied[r] = _sort_row(a[r], identity, order, vals, tmp_v, tmp_i, start)
        if not tied[r]:
            for k in range(m):
                ranks[r, order[k]] = k + 1.0


@numba.njit(nogil=True, cache=True)
def _rank_weight_sums(a, w, hi, lo, tied):  # pragma: no cover - compiled
    """sum_i rank(a_ri) w_i per row, exactly, as hi * 2**32 + lo (int64 limbs)."""
    n, m = a.shape
    order, vals, tmp_v, tmp_i, start = _work_arrays(m)  # order: the weights, sorted by a
    limit = np.int64(1) << np.int64(52)
    mask = (np.int64(1) << np.int64(32)) - np.int64(1)
    for r in range(n):
        tied[r] = _sort_row(a[r], w, order, vals, tmp_v, tmp_i, start)
        if tied[r]:
            continue
        h = np.int64(0)
        acc = np.int64(0)
        for k in range(m):
            acc += (k + 1) * order[k]
            if acc >= limit or acc <= -limit:
                h += acc >> np.int64(32)
                acc = acc & mask
        hi[r] = h + (acc >> np.int64(32))
        lo[r] = acc & mask


@numba.njit(nogil=True, cache=True)
def _sorted_prefix_sums(keys, w, positions, out):  # pragma: no cover - compiled
    """Per row: sort keys[r], then out[r, :, j] = sums over the first positions[j] sorted
    keys of (k, k w, w), accumulated left to right as ``numpy.cumsum`` does."""
    n, m = keys.shape
    order, vals, tmp_v, tmp_i, start = _work_arrays(m)
    identity = np.arange(m)
    for r in range(n):
        row = keys[r]
        negative = False
        for i in range(m):
            if not (row[i] >= 0.0) or np.signbit(row[i]):
                negative = True
        if negative:  # the bit order is not the value order (NaN, < 0, -0.0): compare
            vals[:] = np.sort(row)
        else:
            _sort_row(row, identity, order, vals, tmp_v, tmp_i, start)
        c0 = 0.0
        c1 = 0.0
        c2 = 0.0
        j = 0
        while j < positions.size and positions[j] == 0:
            out[r, 0, j] = 0.0
            out[r, 1, j] = 0.0
            out[r, 2, j] = 0.0
            j += 1
        for k in range(m):
            c0 += vals[k]
            c1 += vals[k] * w[r, k]
            c2 += w[r, k]
            while j < positions.size and positions[j] == k + 1:
                out[r, 0, j] = c0
                out[r, 1, j] = c1
                out[r, 2, j] = c2
                j += 1


def sorted_prefix_sums(
    keys: NDArray[np.float64], weights: NDArray[np.float64], positions: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Prefix sums of each row of ``keys`` sorted, of (sorted keys) x ``weights`` and of
    ``weights``, at the given positions: the per-bin sums of equal-count bins of a variable
    drawn afresh in every row (P002 App. B: uE^2 redrawn per simulated set and binned by its
    rank) without a comparison sort.

    For row r, with k_(1) <= ... <= k_(M) the sorted keys[r] and w = weights[r] in their
    given order, ``out[r, :, j]`` = (sum_{i <= p} k_(i), sum_{i <= p} k_(i) w_i,
    sum_{i <= p} w_i) for p = positions[j]. The sums accumulate left to right like
    ``numpy.cumsum`` and the sort (radix sort above) gives the same values as
    ``numpy.sort``, so the result equals, bit for bit, ``cumsum`` of ``numpy.sort(keys)``,
    of ``numpy.sort(keys) * weights`` and of ``weights`` read at ``positions`` (0 reads 0).

    Args:
        keys: (n, M) float64 (rows with a negative or NaN value are sorted by comparison).
        weights: (n, M) float64.
        positions: increasing integers in [0, M].

    Returns:
        float64 array of shape (n, 3, len(positions)).

    >>> import numpy as np
    >>> out = sorted_prefix_sums(np.array([[3.0, 1.0, 2.0]]), np.array([[1.0, 10.0, 100.0]]),
    ...                          np.array([0, 1, 3]))
    >>> out[0].tolist()  # sorted keys 1, 2, 3 against weights 1, 10, 100
    [[0.0, 1.0, 6.0], [0.0, 1.0, 321.0], [0.0, 1.0, 111.0]]
    """
    x = np.ascontiguousarray(keys, dtype=np.float64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    pos = np.ascontiguousarray(positions, dtype=np.int64)
    if x.ndim != 2 or w.shape != x.shape:
        raise ValueError(f"keys and weights must have one shape (n, M), got {x.shape}, {w.shape}")
    if pos.ndim != 1 or (pos.size and (pos[0] < 0 or pos[-1] > x.shape[1]
                                       or bool(np.any(np.diff(pos) <= 0)))):
        raise ValueError("positions must be increasing integers in [0, M]")
    out = np.empty((x.shape[0], 3, pos.size))
    if x.shape[0] and x.shape[1]:
        _sorted_prefix_sums(x, w, pos, out)
    else:
        out[:] = 0.0
    return out


def ordinal_ranks(a: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Ordinal ranks 1..M of each row of ``a`` (shape (n, M), values >= 0) and the tied flags.

    Returns:
        ranks: float64, shape (n, M); rows flagged tied hold unspecified values.
        tied: bool, shape (n,): the row has equal values, a NaN or a negative value.
    """
    x = np.ascontiguousarray(a, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"a must have shape (n, M), got {x.shape}")
    ranks = np.empty(x.shape)
    tied = np.zeros(x.shape[0], dtype=np.bool_)
    if x.shape[1] > 0:
        _rank_rows(x, ranks, tied)
    return ranks, tied


def rank_weight_sums(
    a: NDArray[np.float64], weights: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """S_r = sum_i rank(a_ri) w_i for each row r of ``a``, summed exactly in integers.

    ``rank`` is the ordinal rank 1..M of a_ri within its row; ``weights`` are integers
    (e.g. twice the centred average ranks of uE, which are multiples of 1/2) with
    M max|w| < 2**60. The sum is exact (64-bit limbs) and rounded once to float64, so it
    does not depend on a summation order (a BLAS product would, with the thread count).

    Returns:
        sums: float64, shape (n,); NaN in tied rows.
        tied: bool, shape (n,): as in :func:`ordinal_ranks`.

    >>> import numpy as np
    >>> s, tied = rank_weight_sums(np.array([[0.5, 0.1, 2.0, 0.3]]), np.array([1, 2, 3, 4]))
    >>> s.tolist(), tied.tolist()  # ranks 3, 1, 4, 2: 3 + 2 + 12 + 8
    ([25.0], [False])
    """
    x = np.ascontiguousarray(a, dtype=np.float64)
    w = np.ascontiguousarray(weights, dtype=np.int64)
    if x.ndim != 2 or w.shape != (x.shape[1],):
        raise ValueError(f"a must have shape (n, M) and weights (M,), got {x.shape}, {w.shape}")
    m = x.shape[1]
    if m and float(m) * float(np.abs(w).max()) >= 2.0**60:
        raise ValueError("rank_weight_sums: M max|w| too large for exact 64-bit terms")
    hi = np.zeros(x.shape[0], np.int64)
    lo = np.zeros(x.shape[0], np.int64)
    tied = np.zeros(x.shape[0], dtype=np.bool_)
    if m:
        _rank_weight_sums(x, w, hi, lo, tied)
    sums = np.array([float((int(h) << 32) + int(v)) for h, v in zip(hi, lo, strict=True)])
    sums[tied] = np.nan
    return sums, tied


@numba.njit(inline="always")
def _add_exact(h, acc, term, limit, mask):  # pragma: no cover - compiled
    """acc += term in the two 64-bit limbs (h * 2**32 + acc) without overflow."""
    acc += term
    if acc >= limit or acc <= -limit:
        h += acc >> np.int64(32)
        acc = acc & mask
    return h, acc


@numba.njit(nogil=True, cache=True)
def _resample_cc_sums(counts, e_perm, e_starts, u_starts, length, out):  # pragma: no cover
    """Per row: exact sums of c R_e R_u, c R_e^2, c R_u^2 (R = 2 x centred average rank).

    The u pass packs R_u and the count of each point into one int64 (R_u 2**16 + c, counts
    below 2**15: checked by the caller), so the pass in abs(E) order reads one random word
    per point instead of two.
    """
    n, m = counts.shape
    limit = np.int64(1) << np.int64(52)
    mask = (np.int64(1) << np.int64(32)) - np.int64(1)
    low = (np.int64(1) << np.int64(16)) - np.int64(1)
    packed = np.empty(m, np.int64)
    mid2 = np.int64(length + 1)
    ne = e_starts.size
    nu = u_starts.size
    for r in range(n):
        cum = np.int64(0)
        for k in range(nu):  # groups of equal uE, in sorted (index) order
            stop = u_starts[k + 1] if k + 1 < nu else m
            g = np.int64(0)
            for i in range(u_starts[k], stop):
                g += counts[r, i]
            cum += g
            rank2 = 2 * cum - (g - 1) - mid2
            for i in range(u_starts[k], stop):
                packed[i] = (rank2 << np.int64(16)) + counts[r, i]
        cum = np.int64(0)
        h0 = np.int64(0)
        a0 = np.int64(0)
        h1 = np.int64(0)
        a1 = np.int64(0)
        h2 = np.int64(0)
        a2 = np.int64(0)
        for k in range(ne):  # groups of equal abs(E), in increasing order
            first = e_starts[k]
            stop = e_starts[k + 1] if k + 1 < ne else m
            if stop - first == 1:
                p = packed[e_perm[first]]
                g = p & low
                if g == 0:
                    continue
                cum += g
                re = 2 * cum - (g - 1) - mid2
                u = p >> np.int64(16)
                h0, a0 = _add_exact(h0, a0, g * re * u, limit, mask)
                h1, a1 = _add_exact(h1, a1, g * re * re, limit, mask)
                h2, a2 = _add_exact(h2, a2, g * u * u, limit, mask)
                continue
            g = np.int64(0)
            for j in range(first, stop):
                g += packed[e_perm[j]] & low
            cum += g
            re = 2 * cum - (g - 1) - mid2
            for j in range(first, stop):
                p = packed[e_perm[j]]
                c = p & low
                if c == 0:
                    continue
                u = p >> np.int64(16)
                h0, a0 = _add_exact(h0, a0, c * re * u, limit, mask)
                h1, a1 = _add_exact(h1, a1, c * re * re, limit, mask)
                h2, a2 = _add_exact(h2, a2, c * u * u, limit, mask)
        out[r, 0] = h0 + (a0 >> np.int64(32))
        out[r, 1] = a0 & mask
        out[r, 2] = h1 + (a1 >> np.int64(32))
        out[r, 3] = a1 & mask
        out[r, 4] = h2 + (a2 >> np.int64(32))
        out[r, 5] = a2 & mask


def resample_rank_correlation(
    counts: NDArray[np.integer],
    e_perm: NDArray[np.intp],
    e_starts: NDArray[np.intp],
    u_starts: NDArray[np.intp],
) -> NDArray[np.float64]:
    """Spearman correlation of resamples given by per-point multiplicities (average ranks).

    Points are indexed in uE-sorted order; ``counts[r, i]`` is how often point i appears in
    resample r (length L = row sum); ``e_perm`` sorts the points by abs(E); ``e_starts`` and
    ``u_starts`` are the starts of the runs of equal abs(E) (in ``e_perm`` order) and of equal
    uE. Point i's copies share the average rank of their tie group, so with R = 2 (average
    rank - (L + 1)/2), an integer, CC = sum c R_e R_u / sqrt(sum c R_e^2 sum c R_u^2), the three
    sums exact in 64-bit integer limbs (no summation-order rounding).

    >>> import numpy as np
    >>> c = np.array([[1, 1, 1, 1], [2, 0, 1, 1]])  # the data; a resample keeping the order
    >>> e_perm = np.array([1, 0, 2, 3]); starts = np.arange(4)
    >>> resample_rank_correlation(c, e_perm, starts, starts).round(4).tolist()
    [0.8, 1.0]
    """
    cnt = np.ascontiguousarray(counts, dtype=np.int64)
    n, m = cnt.shape
    length = int(cnt[0].sum()) if n else 0
    top = int(cnt.max()) if cnt.size else 0
    if n and (np.any(cnt.sum(axis=1) != length) or top >= 1 << 15
              or float(top) * 4.0 * (length + 1.0) ** 2 >= 2.0**62):
        raise ValueError("rows must have the same length L, counts c < 2^15, c 4 L^2 < 2^62")
    raw = np.zeros((n, 6), np.int64)
    if n:
        _resample_cc_sums(cnt, np.ascontiguousarray(e_perm, np.int64),
                          np.ascontiguousarray(e_starts, np.int64),
                          np.ascontiguousarray(u_starts, np.int64), length, raw)
    sums = np.array([[float((int(row[2 * k]) << 32) + int(row[2 * k + 1])) for k in range(3)]
                     for row in raw]).reshape(n, 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, 0] / np.sqrt(sums[:, 1] * sums[:, 2])
