"""Binning schemes for local (conditional) calibration statistics (P000 Sect. III.3 and App. B;
P002 Sect. III.C; P003 Sect. III.B.3).

Shared interface
----------------
A *binning* is a ``list`` of 1-D integer arrays (``numpy.intp``) holding indices into the
**original** data arrays, one array per bin. Bins are ordered by increasing conditioning
variable ``x``; inside a bin the indices are in sorted-``x`` order. Every scheme below is a
partition: each index ``0 .. M-1`` appears in exactly one bin.

Ordering of ties
----------------
All schemes work on the data sorted by ``x`` with a **stable** sort
(``numpy.argsort(kind="stable")``): points with equal ``x`` keep their input order. This is
what R's ``order`` does, and the "Nominal" results of the adaptivity paper (P003 Sect.
III.B.3.a, Fig. 4) depend on it for stratified variables (docs/choices.md, "Tie order in binning").
Index-based schemes (equal-count, the split step of the adaptive scheme) may therefore cut a group
of tied values between two bins, and which of the tied points go left is decided by the input
order. :func:`random_order_bins` randomises that tie-breaking (P003 Fig. 4 "random order").

Schemes
-------
* :func:`equal_count_bins` -- bins of nearly equal counts (P000 Sect. III.3; P002; P003).
* :func:`equal_width_bins` -- equal-width bins in ``x`` or ``log x`` (Palmer et al.).
* :func:`adaptive_bins` -- merge/split adaptive scheme of the primer (P000 App. B), a
  faithful port of ErrViewLib ``genIntervals(equiPop = FALSE)``.
* :func:`stratified_bins` -- strata-preserving bins (P003 Sect. III.B.3.b), a port of
  ErrViewLib ``stratAgg(greedy = TRUE)``.
* :func:`random_order_bins` -- equal-count bins with random tie-breaking (P003 Fig. 4).
* :func:`tie_aware_bins` -- equal-count bins that never split a group of tied values, as
  :class:`Bins`: the validation engine's bins (P003 Sect. III.B.3.a).

Helpers: :func:`sqrt_bin_count`, :func:`default_n_bins`, :func:`sort_order`, :func:`bin_sizes`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import bin_count, integer, vector
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator

__all__ = [
    "MAX_DEFAULT_BINS",
    "Binning",
    "Bins",
    "StratifiedBinning",
    "adaptive_bins",
    "adaptive_bin_sizes",
    "bin_sizes",
    "bins_from_sizes",
    "default_n_bins",
    "equal_count_bins",
    "equal_count_boundaries",
    "equal_width_bins",
    "random_order_bins",
    "sort_order",
    "sqrt_bin_count",
    "stratified_bins",
    "tie_aware_bins",
]

Binning = list[NDArray[np.intp]]
"""A binning: one array of original-data indices per bin, bins in increasing-x order."""


# --------------------------------------------------------------------------------------
# Basic helpers
# --------------------------------------------------------------------------------------


_SHARED = threading.local()


@contextmanager
def shared_sorts() -> Iterator[None]:
    """Within this block, :func:`sort_order` of the same array object (no ``tiebreak``)
    sorts it once and returns the same order again: several figures binning one variable
    of 10^7 rows share one sort (same numbers; the arrays must not change inside the block).

    >>> x = np.array([0.3, 0.1, 0.2])
    >>> with shared_sorts():
    ...     sort_order(x) is sort_order(x)
    True
    """
    previous = getattr(_SHARED, "orders", None)
    _SHARED.orders = {}
    try:
        yield
    finally:
        _SHARED.orders = previous


def sort_order(x: ArrayLike, tiebreak: ArrayLike | None = None) -> NDArray[np.intp]:
    """Indices that sort ``x`` increasingly, ties kept in input order (stable sort).

    With ``tiebreak`` given, ties in ``x`` are ordered by increasing ``tiebreak`` instead,
    exactly as R ``order(x, tiebreak)`` (``numpy.lexsort((tiebreak, x))``; remaining ties
    keep input order).

    Args:
        x: conditioning variable (1-D, finite).
        tiebreak: optional secondary sort key, same length as ``x``.

    Returns:
        Permutation of ``range(M)`` (dtype ``intp``).
    """
    orders = getattr(_SHARED, "orders", None)
    if tiebreak is None and orders is not None and isinstance(x, np.ndarray):
        kept = orders.get(id(x))
        if kept is not None and kept[0] is x:  # the same object, held since: same id
            return kept[1]
    xa = vector(x, "x")
    if tiebreak is None:
        order = np.argsort(xa, kind="stable").astype(np.intp, copy=False)
        if orders is not None and isinstance(x, np.ndarray):
            orders[id(x)] = (x, order)
        return order
    tb = np.asarray(tiebreak)
    if tb.shape != xa.shape:
        raise ValueError(f"tiebreak has shape {tb.shape}, expected {xa.shape}")
    return np.lexsort((tb, xa)).astype(np.intp, copy=False)


def bins_from_sizes(order: NDArray[np.intp], sizes: ArrayLike) -> Binning:
    """Cut a sorting permutation into consecutive bins of the given sizes.

    Args:
        order: indices of the data in sorted-x order (e.g. from :func:`sort_order`).
        sizes: positive bin counts, summing to ``len(order)``.

    Returns:
        The binning (list of index arrays).
    """
    s = np.asarray(sizes, dtype=np.int64)
    if s.ndim != 1 or s.size == 0 or np.any(s < 1) or int(s.sum()) != order.size:
        raise ValueError("bin sizes must be positive and sum to the number of points")
    return list(np.split(order, np.cumsum(s)[:-1]))


def bin_sizes(bins: Sequence[NDArray[np.intp]]) -> NDArray[np.int64]:
    """Number of points in each bin."""
    return np.array([b.size for b in bins], dtype=np.int64)


# --------------------------------------------------------------------------------------
# Bin counts
# --------------------------------------------------------------------------------------


def sqrt_bin_count(m: int) -> int:
    """Rule-of-thumb number of bins for f_v estimation, ``N = round(M^(1/2))``.

    P003 Sect. III.B.3.a.
    """
    if m < 1:
        raise ValueError(f"M must be positive, got {m}")
    return max(int(math.floor(math.sqrt(m) + 0.5)), 1)


# --------------------------------------------------------------------------------------
# Equal-count bins
# --------------------------------------------------------------------------------------


def equal_count_boundaries(m: int, n_bins: int) -> NDArray[np.int64]:
    """Boundaries ``b_0 = 0 < b_1 < ... < b_n = M`` of n nearly equal-count bins.

    Bin i (0-based) holds the sorted positions ``b_i .. b_{i+1} - 1``, with::

        b_i = floor(M*i/n + 1/2)          (M*i/n rounded to nearest, halves up)

    computed in exact integer arithmetic as ``(2*M*i + n) // (2*n)``. Bin sizes are
    ``floor(M/n)`` or ``ceil(M/n)``, so they differ by at most one.

    Relation to the authors' code (ErrViewLib ``genIntervals(equiPop = TRUE)``): there the
    start of bin i+1 (1-based) is the first integer k in 1..M with k > HD_q(1..M) for
    q = i/n, where HD is the Harrell-Davis quantile estimate of the index vector. For the
    index vector HD_q = M*q + 1/2 up to rounding noise, so the 0-based start is
    floor(M*q + 1/2): identical to the rule above except when M*i/n is exactly a
    half-integer, where R's result is decided by floating-point noise in the HD sum (either
    neighbouring integer). For M = 13885, n = 100 both give sizes 138-139.

    Args:
        m: number of points M.
        n_bins: number of bins n, 1 <= n <= M.

    Returns:
        Integer array of the n + 1 boundaries.
    """
    n = bin_count(n_bins, m)
    i = np.arange(n + 1, dtype=np.int64)
    return (2 * m * i + n) // (2 * n)


def equal_count_bins(x: ArrayLike, n_bins: int) -> Binning:
    """Equal-count ("equal-size") binning of ``x`` (P002 Sect. III.C; P003 Sect. III.B.3).

    The data are sorted by ``x`` (stable sort: ties keep input order; docs/choices.md, "Tie order in
    binning") and cut at the positions of :func:`equal_count_boundaries`,
    ``b_i = floor(M*i/n + 1/2)``, giving n bins of ``floor(M/n)`` or ``ceil(M/n)`` points (P000
    Sect. III.3; P002 Sect. II.B; P003 Sect. III.B.3.a).

    Args:
        x: conditioning variable (1-D, finite).
        n_bins: number of bins, 1 <= n_bins <= M.

    Returns:
        The binning (list of n index arrays).

    Examples:
        >>> from uqval import equal_count_bins
        >>> bins = equal_count_bins([0.3, 0.1, 0.5, 0.2, 0.4, 0.6, 0.05], 3)
        >>> [b.tolist() for b in bins]  # indices into x, by increasing x
        [[6, 1], [3, 0, 4], [2, 5]]
    """
    order = sort_order(x)
    b = equal_count_boundaries(order.size, n_bins)
    return list(np.split(order, b[1:-1]))


def random_order_bins(
    x: ArrayLike, n_bins: int, rng: np.random.Generator | int | None = None
) -> Binning:
    """Equal-count bins with random tie-breaking (P003 Sect. III.B.3.a, Fig. 4 "random order").

    Follows the authors' ``order(X, aux = sample(M))``: the data are sorted by ``x`` and
    ties are broken by a random permutation ``aux`` of ``0..M-1``, then cut as in
    :func:`equal_count_bins`. For distinct ``x`` the result equals
    :func:`equal_count_bins`; for stratified ``x`` the membership of tied points at bin
    edges changes from one draw to the next.

    Args:
        x: conditioning variable (1-D, finite).
        n_bins: number of bins.
        rng: numpy Generator, or a seed (:func:`uqval._internal.streams.value_generator`).

    Returns:
        The binning (list of n index arrays).
    """
    xa = vector(x, "x")
    gen = rng if isinstance(rng, np.random.Generator) else value_generator(seed_sequence(rng))
    aux = gen.permutation(xa.size)
    order = sort_order(xa, tiebreak=aux)
    b = equal_count_boundaries(order.size, n_bins)
    return list(np.split(order, b[1:-1]))


# --------------------------------------------------------------------------------------
# Equal-width bins and the regular start grid of the adaptive scheme
# --------------------------------------------------------------------------------------


def _grid_starts(xs: NDArray[np.float64], n: int, log: bool) -> NDArray[np.int64]:
    """Start positions (0-based, in sorted order) of n equal-width bins on sorted ``xs``.

    Limits ``L_j = min + (j-1)*Delta``, ``Delta = (max - min)/n``, j = 1..n, computed on
    ``log(x)`` when ``log`` is true and back-transformed with ``exp`` (as in ErrViewLib
    ``genIntervals``). Bin j starts at the first sorted position with ``x >= L_j``
    (``searchsorted(side="left")``, i.e. R ``which(xOrd >= lims[j])[1]``); bin 1 always
    starts at 0. The scalar ``log``/``exp`` of the C math library are used (as R does), so
    the limits are bit-identical to R's.
    """
    if log:
        lo, hi = math.log(float(xs[0])), math.log(float(xs[-1]))
    else:
        lo, hi = float(xs[0]), float(xs[-1])
    step = (hi - lo) / n
    lims = lo + np.arange(n, dtype=np.float64) * step
    if log:
        lims = np.array([math.exp(v) for v in lims.tolist()])
    starts = np.searchsorted(xs, lims, side="left").astype(np.int64)
    starts[0] = 0
    return starts


def equal_width_bins(x: ArrayLike, n_bins: int, log: bool = False) -> Binning:
    """Equal-width binning in ``x`` or ``log x`` (Palmer et al.; the starting grid of P000 App. B).

    With ``Delta = (max(t) - min(t))/n`` on ``t = x`` (or ``t = log x``), bin j
    (j = 1..n) holds the points with ``L_j <= x < L_{j+1}``, ``L_j = min + (j-1)*Delta``
    back-transformed to the x scale; the last bin is closed at max(x). Empty bins are
    dropped, so fewer than n bins may be returned. If all x are equal, one bin is returned.

    Args:
        x: conditioning variable (1-D, finite; strictly positive if ``log``).
        n_bins: number of equal-width intervals n >= 1.
        log: build the grid on log(x).

    Returns:
        The binning (list of the non-empty bins).

    Raises:
        ValueError: if ``log`` and any x <= 0.

    Examples:
        >>> from uqval import equal_width_bins
        >>> [b.tolist() for b in equal_width_bins([1, 2, 3, 10, 11, 30], 3)]
        [[0, 1, 2, 3], [4], [5]]
        >>> [b.tolist() for b in equal_width_bins([1, 2, 5, 20, 200, 900], 3, log=True)]
        [[0, 1, 2], [3], [4, 5]]
    """
    xa = vector(x, "x")
    n = integer(n_bins, "n_bins", minimum=1)
    if log and np.any(xa <= 0):
        raise ValueError("log-scale binning needs strictly positive x")
    order = sort_order(xa)
    xs = xa[order]
    starts = _grid_starts(xs, n, log)
    bounds = np.unique(np.append(starts, xs.size))  # drops empty bins
    return list(np.split(order, bounds[1:-1]))


# --------------------------------------------------------------------------------------
# Adaptive merge/split bins (P000 Appendix B)
# --------------------------------------------------------------------------------------


def _merge_small(counts: list[int], pop_min: int) -> list[int]:
    """Merge step of ``genIntervals(equiPop = FALSE)`` on a list of bin counts.

    Each pass: (a) the first bin among bins 1..n-1 (all but the last) with count <
    pop_min is merged with its right neighbour; (b) then, if the last bin has count <
    pop_min, it is merged into the previous one. Passes repeat while any count < pop_min.

    Implementation note: bins to the left of the first small bin are >= pop_min and both
    kinds of merge only increase counts, so the scan position never moves left; a running
    pointer gives the same sequence of merges as the literal rescan, in O(n) pointer moves.
    Loops run over bins, not points.
    """
    c = list(counts)
    p = 0
    while True:
        n = len(c)
        while p < n - 1 and c[p] >= pop_min:
            p += 1
        if p >= n - 1 and c[-1] >= pop_min:
            break
        if p < n - 1:  # (a) first small bin among 1..n-1 absorbs its right neighbour
            right = c.pop(p + 1)
            c[p] += right
        if len(c) > 1 and c[-1] < pop_min:  # (b) small last bin joins the previous one
            last = c.pop()
            c[-1] += last
        elif len(c) == 1:
            break
    return c


def _split_large(counts: list[int], pop_max: int) -> list[int]:
    """Split step of ``genIntervals(equiPop = FALSE)`` on a list of bin counts.

    Each pass takes the first bin with count p > pop_max and splits it after its first
    ``floor(p/2) + 1`` points (R: ``upindx = lwindx + floor(p/2)``), leaving
    ``p - floor(p/2) - 1`` points in the new right bin; passes repeat while any count >
    pop_max. Since the first large bin is always the leftmost piece, this equals a
    left-first recursive split of each bin, done here with an explicit stack.
    """
    out: list[int] = []
    for p0 in counts:
        stack = [p0]
        while stack:
            p = stack.pop()
            if p <= pop_max:
                out.append(p)
            else:
                left = p // 2 + 1
                stack.append(p - left)  # right piece processed after the left one
                stack.append(left)
    return out


def adaptive_bin_sizes(
    x_sorted: NDArray[np.float64], n_bins: int, pop_min: int = 30, log: bool = True
) -> NDArray[np.int64]:
    """Bin counts of :func:`adaptive_bins` for already sorted ``x`` (increasing)."""
    xs = np.asarray(x_sorted, dtype=np.float64)
    m = xs.size
    n = integer(n_bins, "n_bins", minimum=1)
    if pop_min < 1:
        raise ValueError(f"pop_min must be >= 1, got {pop_min}")
    if m < pop_min:
        raise ValueError(f"adaptive binning needs at least pop_min = {pop_min} points, got {m}")
    # (1) reduce n so that M/n >= pop_min
    if m / n < pop_min:
        n = m // pop_min
    n0 = n
    # (2) regular grid in x or log x
    starts = _grid_starts(xs, n, log) if n > 1 else np.zeros(1, dtype=np.int64)
    counts = np.diff(np.append(starts, m)).tolist()
    # (3) merge small bins, (4) split large ones
    counts = _merge_small(counts, pop_min)
    pop_max = max(m // n0, 2 * pop_min)
    counts = _split_large(counts, pop_max)
    return np.asarray(counts, dtype=np.int64)


def adaptive_bins(x: ArrayLike, n_bins: int, pop_min: int = 30, log: bool = True) -> Binning:
    """Adaptive merge/split binning of the primer (P000 Appendix B).

    Faithful port of ErrViewLib ``genIntervals(X, nBin, equiPop = FALSE, popMin, logBin)``:

    1. If ``M/n < pop_min``, set ``n = floor(M/pop_min)``; keep ``n0 = n``.
    2. On ``t = log x`` (``log=True``) or ``t = x``, take n equal-width lower limits
       ``L_j = min(t) + (j-1)*Delta``, ``Delta = (max(t) - min(t))/n``, back-transformed to
       the x scale; bin j starts at the first sorted position with ``x >= L_j`` (bin 1 at
       the first point). Empty grid bins are kept at this stage (count 0) and are removed
       by the merge step.
    3. Merge while any count < pop_min: per pass, the first bin among bins 1..n-1 with
       count < pop_min is merged with its right neighbour, then a last bin with count <
       pop_min is merged into the previous one.
    4. Split while any count > ``pop_max = max(floor(M/n0), 2*pop_min)``: the first such bin
       (count p) is cut after its first ``floor(p/2) + 1`` points.

    Every resulting bin has between pop_min and pop_max points. The paper states the grid
    is in log space; the authors' PAL2022 script uses the linear grid (docs/choices.md, "Adaptive
    binning grid"), which is also the variant for variables that can be <= 0. Bins are index ranges
    of the stable-sorted data, so for tied x the split step may cut a group of ties.

    Deviations from the R code, only in degenerate cases it does not handle: ``n = 1`` (R
    loops over ``2:1``) gives one bin; M < pop_min raises instead of failing; an empty first
    grid bin (possible only when all x are equal) is merged like any other empty bin,
    whereas R's zero-index bookkeeping would misalign.

    Args:
        x: conditioning variable (1-D, finite; strictly positive if ``log``).
        n_bins: starting number of bins n.
        pop_min: minimal bin count (30 in P000).
        log: build the starting grid on log(x).

    Returns:
        The binning (list of index arrays).

    Raises:
        ValueError: if ``log`` and any x <= 0, or if M < pop_min.

    Examples:
        Every bin ends up with between pop_min = 50 and pop_max = max(M/n, 2 pop_min) = 100
        points:

        >>> import numpy as np
        >>> from uqval import adaptive_bins
        >>> x = np.random.default_rng(0).lognormal(0.0, 1.0, 1000)
        >>> bins = adaptive_bins(x, 10, pop_min=50)
        >>> len(bins), min(b.size for b in bins), max(b.size for b in bins)
        (16, 54, 77)
    """
    xa = vector(x, "x")
    if log and np.any(xa <= 0):
        raise ValueError("log-scale binning needs strictly positive x")
    order = sort_order(xa)
    sizes = adaptive_bin_sizes(xa[order], n_bins, pop_min=pop_min, log=log)
    return bins_from_sizes(order, sizes)


# --------------------------------------------------------------------------------------
# Stratified bins (P003 Sect. III.B.3.b)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StratifiedBinning:
    """Result of :func:`stratified_bins`.

    Iterating, indexing and ``len`` act on :attr:`bins`, so the object can be used wherever
    a binning (list of index arrays) is expected.

    Attributes:
        bins: one index array per final stratum, in increasing-value order.
        values: stratum values (count-weighted means of the merged distinct values).
        counts: number of points per stratum.
    """

    bins: Binning
    values: NDArray[np.float64]
    counts: NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.bins)

    def __iter__(self) -> Iterator[NDArray[np.intp]]:
        return iter(self.bins)

    def __getitem__(self, i: int) -> NDArray[np.intp]:
        return self.bins[i]


def _merge_strata(
    values: list[float], counts: list[int], pop_min: int
) -> tuple[list[float], list[int]]:
    """Greedy strata merging of ``stratAgg(greedy = TRUE)``; returns final values and counts.

    Each pass takes the first (lowest-value) stratum i with count < pop_min and merges it
    with neighbour j: the left one if ``count(left) < count(right)``, else the right one;
    an end stratum uses its only neighbour. The merged value is
    ``(c_i*v_i + c_j*v_j)/(c_i + c_j)``. Strata left of the first small one are >= pop_min
    and merges only grow counts, so a forward-moving pointer over a doubly linked list
    replays the literal rescan exactly in O(K) steps for K distinct values.
    """
    k = len(values)
    val = list(values)
    cnt = list(counts)
    nxt = list(range(1, k + 1))  # k means "none"
    prv = list(range(-1, k - 1))  # -1 means "none"
    alive = k
    p = 0
    while p < k and alive > 1:
        if cnt[p] >= pop_min:
            p = nxt[p]
            continue
        left, right = prv[p], nxt[p]
        if left < 0:
            j = right
        elif right >= k:
            j = left
        else:
            j = left if cnt[left] < cnt[right] else right
        merged = (cnt[p] * val[p] + cnt[j] * val[j]) / (cnt[p] + cnt[j])
        keep, drop = (j, p) if j == left else (p, j)
        val[keep] = merged
        cnt[keep] = cnt[p] + cnt[j]
        a, b = prv[drop], nxt[drop]
        if a >= 0:
            nxt[a] = b
        if b < k:
            prv[b] = a
        alive -= 1
        p = nxt[keep] if keep == left else keep
    # Node 0 is never dropped (it has no left neighbour), so it heads the surviving list.
    out_v: list[float] = []
    out_c: list[int] = []
    i = 0
    while i < k:
        out_v.append(val[i])
        out_c.append(cnt[i])
        i = nxt[i]
    return out_v, out_c


def stratified_bins(x: ArrayLike, pop_min: int = 100) -> StratifiedBinning:
    """Strata-preserving binning with greedy merging of small strata (P003 Sect. III.B.3.b).

    Port of ErrViewLib ``stratAgg(X, popMin, greedy = TRUE)`` (P003 Sect. III.B.3.b):

    * strata are the distinct values of x (sorted unique values) with their counts;
    * each pass takes the first (lowest-value) stratum with count < pop_min and merges it
      with its smaller neighbour: the left one if ``count(left) < count(right)``, else the
      right one (ties go right); an end stratum uses its only neighbour;
    * merged value ``v = (c_i*v_i + c_j*v_j)/(c_i + c_j)``, merged count ``c_i + c_j``;
    * repeat until no stratum has count < pop_min (or only one stratum is left, when
      M < pop_min; R would fail there).

    Each final stratum is one bin; the number of bins is not controlled. Strata are sets of
    consecutive distinct values, so the partition does not depend on the data order; only
    the order of tied indices inside a bin follows the input order (stable sort). Distinct
    values are exact floating-point values (R's ``table`` would compare them as 15-digit
    strings).

    Args:
        x: conditioning variable (1-D, finite).
        pop_min: minimal stratum count (100 in P003).

    Returns:
        A :class:`StratifiedBinning` with ``bins``, ``values`` and ``counts``.
    """
    xa = vector(x, "x")
    if pop_min < 1:
        raise ValueError(f"pop_min must be >= 1, got {pop_min}")
    order = sort_order(xa)
    uniq, cnts = np.unique(xa, return_counts=True)
    vals, counts = _merge_strata(uniq.tolist(), cnts.tolist(), int(pop_min))
    bins = bins_from_sizes(order, counts)
    return StratifiedBinning(
        bins=bins,
        values=np.asarray(vals, dtype=np.float64),
        counts=np.asarray(counts, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------
# Tie-aware equal-count bins (the validation engine's bins; P003 Sect. III.B.3.a)
# --------------------------------------------------------------------------------------


MAX_DEFAULT_BINS = 50
"""Cap of the default number of bins (see :func:`default_n_bins`)."""
MIN_SPLIT_COUNT = 30
"""When ties leave one bin, the fallback split keeps at least this many rows on each side
(if some tie-group boundary allows it; the validation engine checks that one does)."""


def default_n_bins(m: int) -> int:
    """Default number of bins: ``round(min(sqrt(M), M/100))``, clipped to [2, 50].

    * sqrt(M) is the papers' rule of thumb (P003 Sect. III.B.3.a): the number of bins and
      the points per bin grow together.
    * M/100 keeps at least 100 points per bin, so that the per-bin BCa intervals shown in
      the figures and in ``.bins`` are usable (their coverage is far below 95 % for a few
      dozen points with heavy-tailed errors; P003 Sect. III.B.1).
    * 50 bins resolve a variable to 2 % quantiles, enough to say where uncertainties are
      wrong. More bins cost power: the between-bin tests compare a spread over K bins with
      its permutation distribution, whose spread grows like sqrt(K) while the signal of a
      smooth or localised miscalibration does not grow with K.

    M = 10^3 gives 10 bins of 100 points, M = 10^4 and more give 50 bins.
    """
    if m < 1:
        raise ValueError(f"M must be positive, got {m}")
    return int(min(max(round(min(math.sqrt(m), m / 100)), 2), MAX_DEFAULT_BINS))


@dataclass(frozen=True)
class Bins:
    """Bins of one variable.

    Attributes:
        labels: bin number (0 .. n_bins - 1, increasing with the variable) of every row.
        order: row indices sorted by the variable (stable sort).
        edges: positions in ``order`` where the bins start, plus M at the end.
        low, high: smallest and largest value of the variable in each bin.
    """

    labels: NDArray[np.int32]
    order: NDArray[np.intp]
    edges: NDArray[np.int64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]

    @property
    def n_bins(self) -> int:
        return self.edges.size - 1

    @property
    def counts(self) -> NDArray[np.int64]:
        return np.diff(self.edges)

    def index_lists(self) -> list[NDArray[np.intp]]:
        """The bins as lists of row indices (the :data:`Binning` format of this module)."""
        return list(np.split(self.order, self.edges[1:-1]))


def _merge_small_edges(edges: NDArray[np.int64], min_count: int) -> NDArray[np.int64]:
    """Drop boundaries so that every bin holds at least ``min_count`` rows (if possible)."""
    kept = [int(edges[0])]
    for e in edges[1:-1]:
        if e - kept[-1] >= min_count:
            kept.append(int(e))
    end = int(edges[-1])
    if len(kept) > 1 and end - kept[-1] < min_count:
        kept.pop()
    return np.array([*kept, end], dtype=np.int64)


def tie_aware_bins(x: NDArray[np.float64], n_bins: int) -> Bins:
    """Equal-count bins of ``x`` that never split a group of tied values.

    The boundaries of :func:`equal_count_boundaries` are moved to the start of the tie group
    they fall in, and a bin left with fewer than half the nominal count is merged into its
    right neighbour (the last one into its left neighbour). A binary or stratified feature
    therefore gets one bin per stratum (or per group of strata) instead of bins cut at an
    arbitrary place in the input order (the tie problem of P003 Sect. III.B.3).

    Args:
        x: finite 1-D variable, not constant.
        n_bins: wanted number of bins (fewer are returned when ties force merges).

    Returns:
        The :class:`Bins` (at least two bins, since x is not constant).
    """
    m = x.size
    order = np.argsort(x, kind="stable")
    xs = x[order]
    bounds = equal_count_boundaries(m, min(n_bins, m))
    moved = np.searchsorted(xs, xs[bounds[1:-1]], side="left")
    edges = np.unique(np.concatenate([[0], moved, [m]])).astype(np.int64)
    edges = _merge_small_edges(edges, max(1, (m // n_bins) // 2))
    if edges.size < 3:  # ties swallowed everything: split at the tie-group boundary nearest
        cuts = np.flatnonzero(np.diff(xs)) + 1  # the middle that leaves both bins min_count
        smallest = min(MIN_SPLIT_COUNT, m // 2)  # rows, if there is one
        fair = cuts[(cuts >= smallest) & (m - cuts >= smallest)]
        cuts = fair if fair.size else cuts
        best = cuts[np.argmin(np.abs(cuts - m / 2))]
        edges = np.array([0, best, m], dtype=np.int64)
    counts = np.diff(edges)
    labels = np.empty(m, dtype=np.int32)
    labels[order] = np.repeat(np.arange(counts.size, dtype=np.int32), counts)
    return Bins(labels=labels, order=order, edges=edges, low=xs[edges[:-1]], high=xs[edges[1:] - 1])
