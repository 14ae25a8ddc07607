"""Bins of a conditioning variable for the validation engine.

Equal-count bins (P003 Sect. III.B.3.a) that never split a group of tied values: the
boundaries of :func:`uqval.binning.equal_count_boundaries` are moved to the start of the
tie group they fall in, and a bin left with fewer than half the nominal count is merged
into its right neighbour (the last one into its left neighbour). A binary or stratified
feature therefore gets one bin per stratum (or per group of strata) instead of bins cut at
an arbitrary place in the input order (the tie problem of P003 Sect. III.B.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from uqval.binning import equal_count_boundaries

__all__ = ["MAX_DEFAULT_BINS", "Bins", "default_n_bins", "tie_aware_bins"]

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
        """The bins as lists of row indices (the binning format of :mod:`uqval.binning`)."""
        return list(np.split(self.order, self.edges[1:-1]))


def _merge_small(edges: NDArray[np.int64], min_count: int) -> NDArray[np.int64]:
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
    """Equal-count bins of ``x`` that keep tied values together (module docstring).

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
    edges = _merge_small(edges, max(1, (m // n_bins) // 2))
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
    return Bins(
        labels=labels,
        order=order,
        edges=edges,
        low=xs[edges[:-1]],
        high=xs[edges[1:] - 1],
    )
