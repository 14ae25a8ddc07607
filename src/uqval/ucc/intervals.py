"""Prediction intervals and their metrics at a band scale k (UCC paper P004 Sect. 2, Eqs. 1-2,
App. 9 Eqs. 8-9; Definition 2, Eq. 7).

Scaling the half-widths by k gives [y_pred - k z_l, y_pred + k z_u]; the metrics at scale k
(miss rate, bandwidth, excess, deficit) are computed from the critical scales k_i = e_i/a_i
(a_i the active half-width) sorted once, in O(N log N) (see :mod:`uqval.ucc`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import vector
from uqval._internal.types import FloatArray

__all__ = [
    "AXES",
    "PredictionIntervals",
    "UCCMetrics",
    "constant_band",
    "critical_scales",
    "metrics_at_scale",
    "scale_for_miss_rate",
    "std_unit",
    "ucc_metrics",
]

Axis = Literal["miss_rate", "bandwidth", "excess", "deficit"]


Normalize = float | Literal["std"] | None


AXES: tuple[Axis, ...] = ("miss_rate", "bandwidth", "excess", "deficit")


"""UCC axis metrics; bandwidth and excess increase with k, miss rate and deficit decrease."""


_INCREASING_AXES = ("bandwidth", "excess")


@dataclass(frozen=True)
class PredictionIntervals:
    """Predictions ŷ with band half-widths ẑ^l (below) and ẑ^u (above), all ẑ > 0.

    The interval at scale k is [ŷ − k ẑ^l, ŷ + k ẑ^u]. Build it from half-widths, from
    bounds, or from a standard uncertainty with a coverage factor.

    Examples:
        >>> from uqval import PredictionIntervals
        >>> pi = PredictionIntervals.from_bounds([1.0, 2.0], lower=[0.5, 1.0], upper=[2.0, 2.5])
        >>> pi.z_lower, pi.z_upper
        (array([0.5, 1. ]), array([1. , 0.5]))
        >>> pi.bounds(2.0)  # the interval scaled by k = 2
        (array([0., 0.]), array([3., 3.]))
        >>> PredictionIntervals.from_uncertainty([1.0, 2.0], [0.5, 1.0], 2.0).z_upper
        array([1., 2.])
    """

    y_pred: FloatArray
    z_lower: FloatArray
    z_upper: FloatArray

    def __post_init__(self) -> None:
        shapes = {self.y_pred.shape, self.z_lower.shape, self.z_upper.shape}
        if len(shapes) != 1:
            raise ValueError(f"y_pred, z_lower and z_upper differ in shape: {sorted(shapes)}")
        if not (np.all(self.z_lower > 0.0) and np.all(self.z_upper > 0.0)):
            raise ValueError("band half-widths must be strictly positive")

    @classmethod
    def from_half_widths(
        cls, y_pred: ArrayLike, z_lower: ArrayLike, z_upper: ArrayLike | None = None
    ) -> PredictionIntervals:
        """Bands ẑ^l, ẑ^u around ŷ; ``z_upper=None`` gives a symmetric band ẑ^u = ẑ^l."""
        zl = vector(z_lower, "z_lower")
        zu = zl if z_upper is None else vector(z_upper, "z_upper")
        return cls(vector(y_pred, "y_pred"), zl, zu)

    @classmethod
    def from_bounds(
        cls, y_pred: ArrayLike, lower: ArrayLike, upper: ArrayLike
    ) -> PredictionIntervals:
        """Bounds ŷ^l < ŷ < ŷ^u: ẑ^l = ŷ − ŷ^l, ẑ^u = ŷ^u − ŷ (P004 Sect. 2.1)."""
        yp = vector(y_pred, "y_pred")
        return cls(yp, yp - vector(lower, "lower"), vector(upper, "upper") - yp)

    @classmethod
    def from_uncertainty(
        cls, y_pred: ArrayLike, uncertainties: ArrayLike, coverage_factor: float = 1.0
    ) -> PredictionIntervals:
        """Symmetric band ẑ = k_c u from standard uncertainties u and coverage factor k_c."""
        z = coverage_factor * vector(uncertainties, "uncertainties")
        return cls(vector(y_pred, "y_pred"), z, z)

    def bounds(self, scale: float = 1.0) -> tuple[FloatArray, FloatArray]:
        """Interval bounds (ŷ − k ẑ^l, ŷ + k ẑ^u) at scale k."""
        return self.y_pred - scale * self.z_lower, self.y_pred + scale * self.z_upper


def constant_band(y_pred: ArrayLike, value: float = 1.0) -> PredictionIntervals:
    """Constant-band reference ẑ_i^l = ẑ_i^u = value around the same ŷ (P004 Sect. 2.2).

    The UCC scans all scales, so the curve does not depend on ``value``; only operating
    points at a fixed scale do.

    Examples:
        >>> from uqval.ucc import constant_band
        >>> constant_band([1.0, 2.0, 3.0], 0.5).bounds()
        (array([0.5, 1.5, 2.5]), array([1.5, 2.5, 3.5]))
    """
    yp = vector(y_pred, "y_pred")
    z = np.full(yp.shape, float(value))
    return PredictionIntervals(yp, z, z)


def std_unit(y: ArrayLike) -> float:
    """Standard-deviation unit of the axes: population sd of y (UQ360 ``np.std(gt)``).

    Examples:
        >>> from uqval.ucc import std_unit
        >>> round(std_unit([1.0, 2.0, 3.0, 4.0]), 4)  # sqrt(1.25), not sqrt(5/3)
        1.118
    """
    return float(np.std(vector(y, "y")))


def observations(y: ArrayLike, pi: PredictionIntervals) -> FloatArray:
    obs = vector(y, "y")
    if obs.shape != pi.y_pred.shape:
        raise ValueError(f"y has shape {obs.shape}, the intervals {pi.y_pred.shape}")
    return obs


def critical_scales(y: ArrayLike, pi: PredictionIntervals) -> FloatArray:
    """Critical scales k_i = z_i/ẑ_i^u if z_i ≥ 0 else −z_i/ẑ_i^l, z = y − ŷ (Def. 2, Eq. 7).

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import critical_scales
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> critical_scales(y, pi)  # e.g. 0.5/0.25 = 2 for the last point
        array([0.5, 0.5, 1. , 2. ])
    """
    z = observations(y, pi) - pi.y_pred
    return np.abs(z) / np.where(z >= 0.0, pi.z_upper, pi.z_lower)


@dataclass(frozen=True)
class Terms:
    """Per-point terms, shape (..., N): critical scale k_i, active band a_i, e_i = abs(z_i) and
    w_i = (ẑ_i^l + ẑ_i^u)/2, so that β(k) = k · mean(w)."""

    k: FloatArray
    a: FloatArray
    e: FloatArray
    w: FloatArray


def active_terms(y: FloatArray, y_pred: FloatArray, z_lower: FloatArray, z_upper: FloatArray) -> Terms:
    z = y - y_pred
    a = np.where(z >= 0.0, z_upper, z_lower)
    e = np.abs(z)
    return Terms(k=e / a, a=a, e=e, w=0.5 * (z_lower + z_upper))


def metrics_from_terms(
    t: Terms, axes: tuple[Axis, ...], scales: FloatArray | None = None
) -> tuple[FloatArray, dict[Axis, FloatArray]]:
    """Scales and metrics along the last axis, at the sorted critical scales or at ``scales``.

    ``scales=None``: one point per critical scale, sorted, with the tie rule (all points with
    k_i ≤ k'_j are captured at k'_j). Otherwise ``scales`` (1-D terms only) are arbitrary
    and n = #{k_i ≤ k} comes from a binary search. Only the requested ``axes`` are computed;
    miss rate and bandwidth need the sorted scales alone, excess and deficit the head and
    tail sums of a' and e' at n.
    """
    n = t.k.shape[-1]
    with_sums = "excess" in axes or "deficit" in axes
    if with_sums:
        order = np.argsort(t.k, axis=-1)
        k_s = np.take_along_axis(t.k, order, axis=-1)
    else:
        k_s = np.sort(t.k, axis=-1)
    counts: NDArray[np.intp] | None
    if scales is None:
        s = k_s
        last = np.ones(k_s.shape, dtype=bool)
        last[..., :-1] = k_s[..., :-1] != k_s[..., 1:]
        if last.all():  # no ties: n_j = j, the sums are read by slicing
            counts, captured = None, np.arange(1, n + 1)
        else:
            end = np.where(last, np.arange(n), n - 1)
            counts = np.minimum.accumulate(end[..., ::-1], axis=-1)[..., ::-1] + 1
            captured = counts
    else:
        s = scales
        counts = captured = np.searchsorted(k_s, scales, side="right")
    out: dict[Axis, FloatArray] = {}
    if "miss_rate" in axes:
        out["miss_rate"] = (n - captured) / n
    if "bandwidth" in axes:
        out["bandwidth"] = s * np.mean(t.w, axis=-1)[..., None]
    if not with_sums:
        return s, out
    zero = np.zeros(k_s.shape[:-1] + (1,))

    def at_counts(sums: FloatArray) -> FloatArray:
        return sums[..., 1:] if counts is None else np.take_along_axis(sums, counts, axis=-1)

    def head(v_s: FloatArray) -> FloatArray:  # Σ_{m ≤ n} v'_m
        return at_counts(np.concatenate([zero, np.cumsum(v_s, axis=-1)], axis=-1))

    def tail(v_s: FloatArray) -> FloatArray:  # Σ_{m > n} v'_m, by a reverse cumulative sum
        rev = np.cumsum(v_s[..., ::-1], axis=-1)[..., ::-1]
        return at_counts(np.concatenate([rev, zero], axis=-1))

    a_s = np.take_along_axis(t.a, order, axis=-1)
    e_s = np.take_along_axis(t.e, order, axis=-1)
    if "excess" in axes:
        out["excess"] = (s * head(a_s) - head(e_s)) / n
    if "deficit" in axes:
        out["deficit"] = (tail(e_s) - s * tail(a_s)) / n
    return s, out


@dataclass(frozen=True)
class UCCMetrics:
    """Miss rate, bandwidth, excess and deficit at the scales ``k``.

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import metrics_at_scale
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> m = metrics_at_scale(y, pi, 1.0)
        >>> m.miss_rate, m.bandwidth, m.axis("bandwidth", unit=0.5)  # divided by a unit
        (array([0.25]), array([0.5625]), array([1.125]))
    """

    k: FloatArray
    miss_rate: FloatArray
    bandwidth: FloatArray
    excess: FloatArray
    deficit: FloatArray

    def axis(self, name: Axis, unit: float = 1.0) -> FloatArray:
        """Metric ``name`` divided by ``unit`` (the miss rate is never normalised)."""
        values: FloatArray = getattr(self, name)
        return values if name == "miss_rate" else values / unit


def ucc_metrics(y: ArrayLike, pi: PredictionIntervals) -> UCCMetrics:
    """All four metrics at every critical scale, sorted by k (Algorithm 1 in O(N log N)).

    Returns N points: at k'_j every point with k_i ≤ k'_j counts as captured, so tied
    critical scales give identical points (Lemma 1).

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import ucc_metrics
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> m = ucc_metrics(y, pi)
        >>> m.k, m.miss_rate  # the two points tied at k = 0.5 are captured together
        (array([0.5, 0.5, 1. , 2. ]), array([0.5 , 0.5 , 0.25, 0.  ]))
        >>> m.excess, m.deficit
        (array([0.    , 0.    , 0.1875, 0.6875]), array([0.15625, 0.15625, 0.0625 , 0.     ]))
    """
    k, m = metrics_from_terms(active_terms(observations(y, pi), pi.y_pred, pi.z_lower, pi.z_upper), AXES)
    return UCCMetrics(k=k, **m)


def metrics_at_scale(y: ArrayLike, pi: PredictionIntervals, k: ArrayLike) -> UCCMetrics:
    """The four metrics at arbitrary scales k ≥ 0 (a point counts as captured iff k_i ≤ k).

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import metrics_at_scale
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> m = metrics_at_scale(y, pi, [0.25, 0.75, 3.0])
        >>> m.miss_rate, m.bandwidth
        (array([1. , 0.5, 0. ]), array([0.140625, 0.421875, 1.6875  ]))
    """
    scales = np.atleast_1d(np.asarray(k, dtype=np.float64))
    if scales.ndim != 1 or np.any(~np.isfinite(scales) | (scales < 0.0)):
        raise ValueError("scales must be finite and non-negative")
    t = active_terms(observations(y, pi), pi.y_pred, pi.z_lower, pi.z_upper)
    k, m = metrics_from_terms(t, AXES, scales)
    return UCCMetrics(k=k, **m)


def scale_for_miss_rate(y: ArrayLike, pi: PredictionIntervals, target: float) -> float:
    """Smallest critical scale whose miss rate is ≤ ``target`` (0 if none is needed).

    ρ(k'_j) ≤ target iff at least m = ⌈(1 − target) N⌉ points are captured, so the scale is
    the m-th smallest critical scale.

    Examples:
        For bands ±uE of normal errors drawn with these uE, a 5 % miss rate needs k ≈ 1.96:

        >>> import numpy as np
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import scale_for_miss_rate
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> y_pred = rng.normal(0.0, 3.0, 1000)
        >>> y = y_pred + u * rng.standard_normal(1000)
        >>> pi = PredictionIntervals.from_uncertainty(y_pred, u)
        >>> round(scale_for_miss_rate(y, pi, 0.05), 2)
        1.92
    """
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"target miss rate must lie in [0, 1], got {target}")
    k = np.sort(critical_scales(y, pi))
    m = int(np.ceil((1.0 - target) * k.size - 1e-9 * k.size))
    return 0.0 if m <= 0 else float(k[m - 1])


def normalising_unit(y: FloatArray, normalize: Normalize) -> float:
    if normalize is None:
        return 1.0
    unit = std_unit(y) if normalize == "std" else float(normalize)
    if not (np.isfinite(unit) and unit > 0.0):
        raise ValueError(f"the normalisation unit must be positive, got {unit}")
    return unit


def check_axes(x_axis: Axis, y_axis: Axis) -> None:
    for name in (x_axis, y_axis):
        if name not in AXES:
            raise ValueError(f"unknown axis {name!r}; choose from {AXES}")
    if x_axis == y_axis:
        raise ValueError("x_axis and y_axis must differ")

