"""Input checks and the predictive distribution shared by the score modules."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from uqval._types import FloatArray
from uqval.binning import equal_count_boundaries, sqrt_bin_count
from uqval.synthetic import GenerativeDistribution

__all__ = [
    "DistributionName",
    "MIN_POINTS",
    "check_bins",
    "check_inputs",
    "check_vector",
    "predictive",
    "sorted_edges",
]

DistributionName = Literal["normal", "t"]

MIN_POINTS = 2
"""Fewest points a score accepts."""


def check_vector(values: ArrayLike, name: str, *, positive: bool = False) -> FloatArray:
    """``values`` as a 1-D finite float64 array (NumPy array, list or pandas Series).

    Raises:
        ValueError: naming ``name`` if the array is not 1-D, has fewer than
            :data:`MIN_POINTS` values, holds NaN/inf, or (``positive=True``) a value <= 0.
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size < MIN_POINTS:
        raise ValueError(f"{name} needs at least {MIN_POINTS} values, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr))
        raise ValueError(f"{name} has {bad.size} NaN or infinite value(s), first at row {bad[0]}")
    if positive and np.any(arr <= 0.0):
        bad = np.flatnonzero(arr <= 0.0)
        raise ValueError(f"{name} has {bad.size} non-positive value(s), first at row {bad[0]}")
    return arr


def check_inputs(errors: ArrayLike, uncertainties: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Checked (errors, uncertainties): finite, same length >= 2, uncertainties > 0."""
    e = check_vector(errors, "errors")
    u = check_vector(uncertainties, "uncertainties", positive=True)
    if e.size != u.size:
        raise ValueError(
            f"errors and uncertainties have different lengths ({e.size} and {u.size})"
        )
    return e, u


def check_bins(n_bins: int | None, m: int) -> int:
    """``n_bins`` checked against M; None gives the package's sqrt(M) rule."""
    if n_bins is None:
        return sqrt_bin_count(m)
    if int(n_bins) != n_bins or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    if n_bins > m:
        raise ValueError(f"n_bins = {n_bins} exceeds the number of points ({m})")
    return int(n_bins)


def sorted_edges(m: int, n_bins: int) -> FloatArray:
    """Edges of the equal-count bins of sorted data (:func:`uqval.binning.equal_count_boundaries`)."""
    return equal_count_boundaries(m, n_bins).astype(np.intp)


def predictive(distribution: DistributionName, nu: float | None) -> GenerativeDistribution:
    """The unit-variance shape D of the predictive distribution y ~ ŷ + uE·D.

    ``"normal"``: D = N(0, 1); ``"t"``: D = t(nu)·sqrt((nu − 2)/nu), the unit-variance Student
    t of P001 Eq. 20 (nu > 2 required).
    """
    if distribution == "normal":
        if nu is not None:
            raise ValueError("nu is only used with distribution='t'")
        return GenerativeDistribution("normal")
    if distribution == "t":
        if nu is None or not nu > 2.0 or math.isnan(nu):
            raise ValueError(f"distribution='t' needs nu > 2, got nu={nu!r}")
        return GenerativeDistribution("t", float(nu))
    raise ValueError(f"distribution must be 'normal' or 't', got {distribution!r}")
