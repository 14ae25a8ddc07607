"""Input checks and the predictive distribution shared by the score modules."""

from __future__ import annotations

import functools

import numpy as np

from uqval._internal.checks import bin_count, errors_uncertainties, vector
from uqval._internal.types import FloatArray
from uqval.binning import equal_count_boundaries, sqrt_bin_count

__all__ = [
    "MIN_POINTS",
    "check_bins",
    "check_inputs",
    "check_vector",
    "sorted_edges",
]

MIN_POINTS = 2
"""Fewest points a score accepts."""


check_vector = functools.partial(vector, min_size=MIN_POINTS)
"""``vector`` with at least :data:`MIN_POINTS` values (the scores' minimum)."""

check_inputs = functools.partial(errors_uncertainties, min_size=MIN_POINTS)
"""``errors_uncertainties`` with at least :data:`MIN_POINTS` values."""


def check_bins(n_bins: int | None, m: int) -> int:
    """``n_bins`` checked against M; None gives the package's sqrt(M) rule."""
    return sqrt_bin_count(m) if n_bins is None else bin_count(n_bins, m)


def sorted_edges(m: int, n_bins: int) -> FloatArray:
    """Edges of the equal-count bins of sorted data (:func:`uqval.binning.equal_count_boundaries`)."""
    return equal_count_boundaries(m, n_bins).astype(np.intp)
