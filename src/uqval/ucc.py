"""Uncertainty Characteristics Curves (UCC) of prediction intervals (P004, Navrátil et al.).

Notation (P004 Sect. 2). Observations y_i, predictions ŷ_i and positive band
half-widths below and above the prediction, ẑ_i^l = ŷ_i − ŷ_i^l > 0 and ẑ_i^u = ŷ_i^u − ŷ_i > 0;
errors z_i = y_i − ŷ_i. Scaling the bands by k > 0 gives the interval
[ŷ_i − k ẑ_i^l, ŷ_i + k ẑ_i^u] (P004 Sect. 2.3). On the *active* side of each point,
a_i = ẑ_i^u if z_i ≥ 0 else ẑ_i^l, and with e_i = abs(z_i) the metrics at scale k are

* miss rate (Eq. 1, 1 − PICP):   ρ(k) = (1/N) #{i : k_i > k},
* bandwidth (Eq. 2, ½ MPIW):     β(k) = (k/2N) Σ_i (ẑ_i^u + ẑ_i^l),
* excess (App. 9, Eq. 8):        ξ(k) = (1/N) Σ_{i: k_i ≤ k} (k a_i − e_i),
* deficit (App. 9, Eq. 9 with ∉): δ(k) = (1/N) Σ_{i: k_i > k} (e_i − k a_i),

where k_i = e_i / a_i is the critical scale of point i (Definition 2, Eq. 7): the smallest
scale whose interval contains y_i. Excess and deficit follow the authors' UQ360 code: the
distance to the bound of the active side, max(k a_i − e_i, 0) and max(e_i − k a_i, 0). For
the deficit this is Eq. 9 exactly (the violated bound is the closer one); for the excess it
equals Eq. 8's min over both bounds when the bands are symmetric and can exceed it
otherwise.

Fast UCC (Algorithm 1 in O(N log N) instead of O(N²)). Sort the critical scales once,
k'_1 ≤ ... ≤ k'_N, with a'_j, e'_j the active band and abs(error) in that order. At k = k'_j,
with n_j the number of points whose critical scale is ≤ k'_j (n_j ≥ j; with ties it is the
position of the *last* tied point: Lemma 1, "only the element with the highest index among
ties is considered"),

    ρ = (N − n_j)/N,   ξ = (k A_{n_j} − E_{n_j})/N,   δ = (Ē_{n_j} − k Ā_{n_j})/N,

with the head sums A_n = Σ_{m ≤ n} a'_m, E_n = Σ_{m ≤ n} e'_m and the tail sums
Ā_n = Σ_{m > n} a'_m, Ē_n = Σ_{m > n} e'_m (cumulative sums, the tails by a reverse
cumulative sum to avoid cancellation). The same sums give the metrics at any scale k with
n = #{k_i ≤ k} from a binary search. Tied points yield identical UCC points, which have no
width under either area rule.

AUUCC (Sect. 2.3): the trapezoid rule over the points sorted by k, from the first point (no
extension to the axes; UQ360's ``get_AUUCC``; docs/choices.md, "AUUCC integration rule"), or the
rectangle rule of Prop. 1, Eq. 15: S(N) = Σ_i y(k'_i) [x(k'_i) − x(k'_{i−1})] with x(k'_0) = 0.
Gains (Eq. 6) are taken against a constant band around the same predictions; the linear cost is
Eq. 5; the paired permutation test of AUUCC differences follows Dwass (1957), with the details
the paper leaves open fixed in docs/choices.md, "Permutation test".

Two consequences worth knowing. (1) Without ties the bandwidth–miss-rate rectangle area is
S(N) = (1/N) Σ_{j<N} β(k'_j) ≈ mean(k_i) · mean(w_i), w_i = (ẑ_i^l + ẑ_i^u)/2 (Prop. 1), and
for a constant band mean abs(z_i). The gain over the constant is therefore ≈ Cov(k_i, w_i)/mean
abs(z_i) (for symmetric bands): bands whose errors scale with them (k independent of ẑ, e.g.
calibrated heteroscedastic bands, even the ε-perfect band) gain ≈ 0 in these coordinates;
excess–deficit coordinates do reward them. (2) UQ360 decides inclusion with the bounds
fl(k_i ẑ_i) ≥ abs(z_i) at k = k_i; for a few per cent of the points rounding makes this false
and UQ360 counts the point as missed at its own critical scale, which moves its
bandwidth–miss-rate AUUCC by O(1/N) (7e-4 at N = 1000). Here inclusion is k_i ≤ k (Lemma 1).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval import ucc_swap
from uqval._types import FloatArray, SeedLike
from uqval.seeding import seed_sequence

__all__ = [
    "AXES",
    "OperatingPoint",
    "PermutationTestResult",
    "PredictionIntervals",
    "UCCCurve",
    "UCCMetrics",
    "auucc",
    "auucc_gain",
    "auucc_permutation_test",
    "constant_band",
    "critical_scales",
    "linear_cost",
    "metrics_at_scale",
    "min_cost",
    "operating_point",
    "partial_auucc",
    "partial_auucc_gain",
    "scale_for_miss_rate",
    "std_unit",
    "ucc_curve",
    "ucc_metrics",
]

Axis = Literal["miss_rate", "bandwidth", "excess", "deficit"]
Rule = Literal["trapezoid", "rectangle"]
Cut = Literal["interpolate", "nearest"]
Align = Literal["median", "none"]
Normalize = float | Literal["std"] | None

AXES: tuple[Axis, ...] = ("miss_rate", "bandwidth", "excess", "deficit")
"""UCC axis metrics; bandwidth and excess increase with k, miss rate and deficit decrease."""

_INCREASING_AXES = ("bandwidth", "excess")


def _vector(values: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


@dataclass(frozen=True)
class PredictionIntervals:
    """Predictions ŷ with band half-widths ẑ^l (below) and ẑ^u (above), all ẑ > 0.

    The interval at scale k is [ŷ − k ẑ^l, ŷ + k ẑ^u]. Build it from half-widths, from
    bounds, or from a standard uncertainty with a coverage factor.
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
        zl = _vector(z_lower, "z_lower")
        zu = zl if z_upper is None else _vector(z_upper, "z_upper")
        return cls(_vector(y_pred, "y_pred"), zl, zu)

    @classmethod
    def from_bounds(
        cls, y_pred: ArrayLike, lower: ArrayLike, upper: ArrayLike
    ) -> PredictionIntervals:
        """Bounds ŷ^l < ŷ < ŷ^u: ẑ^l = ŷ − ŷ^l, ẑ^u = ŷ^u − ŷ (P004 Sect. 2.1)."""
        yp = _vector(y_pred, "y_pred")
        return cls(yp, yp - _vector(lower, "lower"), _vector(upper, "upper") - yp)

    @classmethod
    def from_uncertainty(
        cls, y_pred: ArrayLike, u: ArrayLike, coverage_factor: float = 1.0
    ) -> PredictionIntervals:
        """Symmetric band ẑ = k_c u from a standard uncertainty u and coverage factor k_c."""
        z = coverage_factor * _vector(u, "u")
        return cls(_vector(y_pred, "y_pred"), z, z)

    def bounds(self, scale: float = 1.0) -> tuple[FloatArray, FloatArray]:
        """Interval bounds (ŷ − k ẑ^l, ŷ + k ẑ^u) at scale k."""
        return self.y_pred - scale * self.z_lower, self.y_pred + scale * self.z_upper


def constant_band(y_pred: ArrayLike, value: float = 1.0) -> PredictionIntervals:
    """Constant-band reference ẑ_i^l = ẑ_i^u = value around the same ŷ (P004 Sect. 2.2).

    The UCC scans all scales, so the curve does not depend on ``value``; only operating
    points at a fixed scale do.
    """
    yp = _vector(y_pred, "y_pred")
    z = np.full(yp.shape, float(value))
    return PredictionIntervals(yp, z, z)


def std_unit(y: ArrayLike) -> float:
    """Standard-deviation unit of the axes: population sd of y (UQ360 ``np.std(gt)``)."""
    return float(np.std(_vector(y, "y")))


def _observations(y: ArrayLike, pi: PredictionIntervals) -> FloatArray:
    obs = _vector(y, "y")
    if obs.shape != pi.y_pred.shape:
        raise ValueError(f"y has shape {obs.shape}, the intervals {pi.y_pred.shape}")
    return obs


def critical_scales(y: ArrayLike, pi: PredictionIntervals) -> FloatArray:
    """Critical scales k_i = z_i/ẑ_i^u if z_i ≥ 0 else −z_i/ẑ_i^l, z = y − ŷ (Def. 2, Eq. 7)."""
    z = _observations(y, pi) - pi.y_pred
    return np.abs(z) / np.where(z >= 0.0, pi.z_upper, pi.z_lower)


# --- sorted critical scales and cumulative sums (batched over leading axes) ----------------


@dataclass(frozen=True)
class _Terms:
    """Per-point terms, shape (..., N): critical scale k_i, active band a_i, e_i = abs(z_i) and
    w_i = (ẑ_i^l + ẑ_i^u)/2, so that β(k) = k · mean(w)."""

    k: FloatArray
    a: FloatArray
    e: FloatArray
    w: FloatArray


def _terms(y: FloatArray, y_pred: FloatArray, z_lower: FloatArray, z_upper: FloatArray) -> _Terms:
    z = y - y_pred
    a = np.where(z >= 0.0, z_upper, z_lower)
    e = np.abs(z)
    return _Terms(k=e / a, a=a, e=e, w=0.5 * (z_lower + z_upper))


def _metrics(
    t: _Terms, axes: tuple[Axis, ...], scales: FloatArray | None = None
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
    """Miss rate, bandwidth, excess and deficit at the scales ``k``."""

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
    """
    k, m = _metrics(_terms(_observations(y, pi), pi.y_pred, pi.z_lower, pi.z_upper), AXES)
    return UCCMetrics(k=k, **m)


def metrics_at_scale(y: ArrayLike, pi: PredictionIntervals, k: ArrayLike) -> UCCMetrics:
    """The four metrics at arbitrary scales k ≥ 0 (a point counts as captured iff k_i ≤ k)."""
    scales = np.atleast_1d(np.asarray(k, dtype=np.float64))
    if scales.ndim != 1 or np.any(~np.isfinite(scales) | (scales < 0.0)):
        raise ValueError("scales must be finite and non-negative")
    t = _terms(_observations(y, pi), pi.y_pred, pi.z_lower, pi.z_upper)
    k, m = _metrics(t, AXES, scales)
    return UCCMetrics(k=k, **m)


def scale_for_miss_rate(y: ArrayLike, pi: PredictionIntervals, target: float) -> float:
    """Smallest critical scale whose miss rate is ≤ ``target`` (0 if none is needed).

    ρ(k'_j) ≤ target iff at least m = ⌈(1 − target) N⌉ points are captured, so the scale is
    the m-th smallest critical scale.
    """
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"target miss rate must lie in [0, 1], got {target}")
    k = np.sort(critical_scales(y, pi))
    m = int(np.ceil((1.0 - target) * k.size - 1e-9 * k.size))
    return 0.0 if m <= 0 else float(k[m - 1])


# --- curves, areas and gains --------------------------------------------------------------


def _unit(y: FloatArray, normalize: Normalize) -> float:
    if normalize is None:
        return 1.0
    unit = std_unit(y) if normalize == "std" else float(normalize)
    if not (np.isfinite(unit) and unit > 0.0):
        raise ValueError(f"the normalisation unit must be positive, got {unit}")
    return unit


def _check_axes(x_axis: Axis, y_axis: Axis) -> None:
    for name in (x_axis, y_axis):
        if name not in AXES:
            raise ValueError(f"unknown axis {name!r}; choose from {AXES}")
    if x_axis == y_axis:
        raise ValueError("x_axis and y_axis must differ")


@dataclass(frozen=True)
class OperatingPoint:
    """An operating point: scale k, coordinates (x, y) on the curve's axes, miss rate, cost."""

    k: float
    x: float
    y: float
    miss_rate: float
    cost: float


@dataclass(frozen=True)
class UCCCurve:
    """UCC operating points sorted by scale k (Def. 1).

    ``x`` and ``y`` are the chosen metrics divided by ``unit`` (except the miss rate, never
    normalised); ``miss_rate`` is kept for partial areas over a miss-rate range. ``origin``
    is the point at k = 0 (β = ξ = 0, δ = mean abs(z), ρ = share of z ≠ 0; its cost is NaN):
    not part of the curve or of its area, but a candidate of :func:`min_cost`.
    """

    k: FloatArray
    x: FloatArray
    y: FloatArray
    miss_rate: FloatArray
    x_axis: Axis
    y_axis: Axis
    unit: float
    origin: OperatingPoint


def ucc_curve(
    y: ArrayLike,
    pi: PredictionIntervals,
    x_axis: Axis = "bandwidth",
    y_axis: Axis = "miss_rate",
    normalize: Normalize = None,
) -> UCCCurve:
    """UCC on any two of miss_rate, bandwidth, excess, deficit (Def. 1, Algorithm 1).

    ``normalize``: None (raw units), ``"std"`` (sd of y, UQ360 ``std_unit``; the
    "standard-deviation units" of P004 App. 13.2–13.5) or a positive unit. The miss-rate
    axis is never normalised.
    """
    _check_axes(x_axis, y_axis)
    obs = _observations(y, pi)
    unit = _unit(obs, normalize)
    m = ucc_metrics(obs, pi)
    z = obs - pi.y_pred  # at k = 0 only points with z = 0 are captured, each missing by |z|
    zero = np.zeros(1)
    m0 = UCCMetrics(zero, np.array([np.mean(z != 0.0)]), zero, zero, np.array([np.mean(np.abs(z))]))
    x0, y0 = float(m0.axis(x_axis, unit)[0]), float(m0.axis(y_axis, unit)[0])
    return UCCCurve(
        k=m.k,
        x=m.axis(x_axis, unit),
        y=m.axis(y_axis, unit),
        miss_rate=m.miss_rate,
        x_axis=x_axis,
        y_axis=y_axis,
        unit=unit,
        origin=OperatingPoint(k=0.0, x=x0, y=y0, miss_rate=float(m0.miss_rate[0]), cost=np.nan),
    )


def _area(x: FloatArray, y: FloatArray, rule: Rule, x_axis: Axis) -> FloatArray:
    """Area under y(x) along the last axis (points sorted by k)."""
    if rule == "trapezoid":
        return np.abs(np.trapezoid(y, x, axis=-1))
    if rule == "rectangle":
        if x_axis not in _INCREASING_AXES:
            raise ValueError(
                "the rectangle rule needs an x axis starting at 0: bandwidth or excess"
            )
        return np.sum(y * np.diff(x, axis=-1, prepend=0.0), axis=-1)
    raise ValueError(f"unknown rule {rule!r}; choose 'trapezoid' or 'rectangle'")


def auucc(curve: UCCCurve, rule: Rule = "trapezoid") -> float:
    """Area under the UCC.

    * ``"trapezoid"`` (default; docs/choices.md, "AUUCC integration rule"): abs(trapz(y, x)) over
      the points sorted by k, from the first critical scale to the last, with no extension to the
      axes (UQ360 ``get_AUUCC`` with ``aucfct="trapz"``; its skipping of leading points with an
      unchanged x removes only zero-width trapezoids).
    * ``"rectangle"`` (Prop. 1, Eq. 15): S(N) = Σ_i y(k'_i) [x(k'_i) − x(k'_{i−1})] with
      x(k'_0) = 0; requires x = bandwidth or excess (zero at k = 0). In bandwidth–miss-rate
      coordinates without ties S(N) = (1/N) Σ_{i<N} β(k'_i), the mean data-induced bandwidth.
    """
    return float(_area(curve.x, curve.y, rule, curve.x_axis))


def auucc_gain(a_model: float, a_constant: float) -> float:
    """AUUCC gain G_M = (A_const − A_M)/A_const · 100 % (Eq. 6); also for partial areas."""
    if a_constant <= 0.0:
        raise ValueError(f"the constant-band area must be positive, got {a_constant}")
    return (a_constant - a_model) / a_constant * 100.0


def partial_auucc(
    curve: UCCCurve, miss_rate_range: tuple[float, float] = (0.0, 0.5), cut: Cut = "interpolate"
) -> float:
    """Trapezoid area of the part of the UCC whose miss rate lies in [lo, hi] (Sect. 2.3).

    The miss rate parametrises the curve in any coordinates (it decreases strictly from one
    tie group to the next).

    * ``"interpolate"`` (default; docs/choices.md, "Partial AUUCC cut"): the polyline is cut where ρ
      crosses lo and hi, the end points interpolated linearly in ρ along the crossing segments; a
      limit beyond the curve's range is clipped to the curve's end (no extension).
    * ``"nearest"`` (UQ360 ``get_AUUCC(partial_y=...)``): from the point whose miss rate is
      nearest to lo to the one nearest to hi, no interpolation.
    """
    lo, hi = sorted(map(float, miss_rate_range))
    if cut == "nearest":
        i, j = sorted(int(np.argmin(np.abs(curve.miss_rate - v))) for v in (lo, hi))
        return float(np.abs(np.trapezoid(curve.y[i : j + 1], curve.x[i : j + 1])))
    if cut != "interpolate":
        raise ValueError(f"unknown cut {cut!r}; choose 'interpolate' or 'nearest'")
    last = np.ones(curve.k.shape, dtype=bool)
    last[:-1] = curve.k[:-1] != curve.k[1:]
    rho, x, y = curve.miss_rate[last][::-1], curve.x[last][::-1], curve.y[last][::-1]
    lo, hi = max(lo, rho[0]), min(hi, rho[-1])
    if hi <= lo:
        return 0.0
    inside = (rho > lo) & (rho < hi)
    xs = np.concatenate([[np.interp(lo, rho, x)], x[inside], [np.interp(hi, rho, x)]])
    ys = np.concatenate([[np.interp(lo, rho, y)], y[inside], [np.interp(hi, rho, y)]])
    return float(np.abs(np.trapezoid(ys, xs)))


def partial_auucc_gain(
    model: UCCCurve,
    constant: UCCCurve,
    miss_rate_range: tuple[float, float] = (0.0, 0.5),
    cut: Cut = "interpolate",
) -> float:
    """Partial-AUUCC gain (Eq. 6 with partial areas; P004 Tab. 1 uses ρ ∈ [0, 0.5])."""
    return auucc_gain(
        partial_auucc(model, miss_rate_range, cut), partial_auucc(constant, miss_rate_range, cut)
    )


# --- linear cost and operating points -----------------------------------------------------


def _check_weight(c: float) -> None:
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"the cost weight c must lie in [0, 1], got {c}")


def linear_cost(curve: UCCCurve, c: float = 0.5) -> FloatArray:
    """Linear cost C(k) = c x(k) + (1 − c) y(k) at every UCC point (Eq. 5).

    With symmetric bands, c = 0.5 and excess–deficit axes, C(k) = ½ MAE(k) with
    MAE(k) = (1/N) Σ abs(d_i − k ẑ_i), d_i = abs(ŷ_i − y_i) (Remark 2).
    """
    _check_weight(c)
    return c * curve.x + (1.0 - c) * curve.y


def min_cost(curve: UCCCurve, c: float = 0.5) -> OperatingPoint:
    """Minimum of Eq. 5 over k ≥ 0, with k* = argmin (the smallest k among ties).

    Every metric is linear in k between consecutive critical scales (the miss rate is
    constant there and drops at each k'_j), so C(k) attains its minimum over k ≥ 0 at k = 0
    or at a critical scale: both are searched. UQ360 searches the critical scales only;
    the two differ only when k → 0 wins, e.g. bandwidth–miss rate in raw units with a
    large c, where C(0) = (1 − c) ρ(0).
    """
    cost = linear_cost(curve, c)
    i = int(np.argmin(cost))
    o = curve.origin
    cost0 = c * o.x + (1.0 - c) * o.y
    if cost0 <= cost[i]:
        return OperatingPoint(k=0.0, x=o.x, y=o.y, miss_rate=o.miss_rate, cost=cost0)
    return OperatingPoint(
        k=float(curve.k[i]),
        x=float(curve.x[i]),
        y=float(curve.y[i]),
        miss_rate=float(curve.miss_rate[i]),
        cost=float(cost[i]),
    )


def operating_point(
    y: ArrayLike,
    pi: PredictionIntervals,
    k: float,
    x_axis: Axis = "bandwidth",
    y_axis: Axis = "miss_rate",
    c: float = 0.5,
    normalize: Normalize = None,
) -> OperatingPoint:
    """Coordinates and cost (Eq. 5) at a given scale k, e.g. one tuned on held-out data."""
    _check_axes(x_axis, y_axis)
    _check_weight(c)
    obs = _observations(y, pi)
    unit = _unit(obs, normalize)
    m = metrics_at_scale(obs, pi, k)
    x, yv = float(m.axis(x_axis, unit)[0]), float(m.axis(y_axis, unit)[0])
    return OperatingPoint(
        k=float(k), x=x, y=yv, miss_rate=float(m.miss_rate[0]), cost=c * x + (1.0 - c) * yv
    )


# --- paired permutation test --------------------------------------------------------------

Algorithm = Literal["auto", "sort"]

_CHUNK_ELEMENTS = 1 << 16  # permutations per random-stream chunk: max(1, min(256, 2**16 // N))


@dataclass(frozen=True)
class PermutationTestResult:
    """Paired permutation test of Δ = AUUCC(A) − AUUCC(B).

    ``null_deltas`` are the ``n_permutations`` permuted differences drawn (fewer than
    ``max_permutations`` when the sequential rule stopped early); ``algorithm`` says how
    they were computed ("closed form" or "sort") and which stopping rule was used.
    """

    auucc_a: float
    auucc_b: float
    delta: float
    p_value: float
    n_permutations: int
    null_deltas: FloatArray = field(repr=False)
    max_permutations: int = 0
    algorithm: str = ""


def _batch_auucc(t: _Terms, x_axis: Axis, y_axis: Axis, rule: Rule) -> FloatArray:
    """AUUCC (raw units) of each row of batched terms, shape (B, N) -> (B,)."""
    _, m = _metrics(t, (x_axis, y_axis))
    return _area(m[x_axis], m[y_axis], rule, x_axis)


def _select(swap: NDArray[np.bool_], keep: _Terms, other: _Terms) -> _Terms:
    """Terms of ``keep`` with the points flagged in ``swap`` (shape (B, N)) taken from ``other``."""
    return _Terms(
        *(np.where(swap, getattr(other, f.name), getattr(keep, f.name)) for f in fields(_Terms))
    )


def _aligned(t: _Terms, align: Align) -> _Terms:
    """Bands rescaled by the median critical scale (k = 1 then misses half the points).

    The UCC and its area do not change under a global rescaling of one model's bands; the
    rescaling only sets the relative scale at which points are exchanged between models.
    """
    if align == "none":
        return t
    if align != "median":
        raise ValueError(f"unknown align {align!r}; choose 'median' or 'none'")
    s = float(np.median(t.k))
    if s <= 0.0:
        return t
    return _Terms(k=t.k / s, a=t.a * s, e=t.e, w=t.w * s)


DeltaChunk = Callable[[np.random.SeedSequence, FloatArray], None]


def _delta_kernel(
    ta: _Terms, tb: _Terms, x_axis: Axis, y_axis: Axis, rule: Rule, algorithm: Algorithm
) -> tuple[DeltaChunk, str]:
    """Function filling Δ* of a chunk of permutations, and its name."""
    axes = {x_axis, y_axis}
    if algorithm not in ("auto", "sort"):
        raise ValueError(f"unknown algorithm {algorithm!r}; choose 'auto' or 'sort'")
    if algorithm == "auto" and axes == {"excess", "deficit"} and rule == "trapezoid":
        return ucc_swap.excess_deficit(ta.k, ta.a, tb.k, tb.a).deltas, "closed form"
    if algorithm == "auto" and axes == {"bandwidth", "miss_rate"}:
        stat = ucc_swap.bandwidth_miss_rate(ta.k, ta.w, tb.k, tb.w, rule == "trapezoid")
        return stat.deltas, "closed form"

    def by_sorting(seed: np.random.SeedSequence, out: FloatArray) -> None:
        swap = ucc_swap.swap_masks(seed, out.size, ta.k.size)
        out[:] = _batch_auucc(_select(swap, ta, tb), x_axis, y_axis, rule) - _batch_auucc(
            _select(swap, tb, ta), x_axis, y_axis, rule
        )

    return by_sorting, "sort"


def _permutation_seed(seed: SeedLike | np.random.Generator) -> np.random.SeedSequence:
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return seed_sequence(seed)


def auucc_permutation_test(
    y: ArrayLike,
    pi_a: PredictionIntervals,
    pi_b: PredictionIntervals,
    x_axis: Axis = "bandwidth",
    y_axis: Axis = "miss_rate",
    rule: Rule = "trapezoid",
    normalize: Normalize = None,
    n_permutations: int = 10_000,
    seed: SeedLike | np.random.Generator = 0,
    align: Align = "median",
    *,
    exceedances: int | None = None,
    tie_rtol: float = 1e-9,
    n_workers: int = 1,
    algorithm: Algorithm = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> PermutationTestResult:
    """Two-sided paired permutation test for the difference of two AUUCCs (P004 Sect. 4; Dwass 1957).

    Details unstated in the paper are chosen in docs/choices.md, "Permutation test".

    Both models share y. Each permutation swaps the (ŷ_i, ẑ_i^l, ẑ_i^u) of A and B for each
    i independently with probability ½ and recomputes Δ* = AUUCC(A*) − AUUCC(B*).

    p-value. With ``exceedances=None`` all B = ``n_permutations`` permutations are drawn and
    p = (1 + g)/(1 + B), g = #{abs(Δ*) ≥ abs(Δ)} (Monte Carlo standard error
    sqrt(p(1 − p)/B) around the exact permutation p-value; smallest value 1/(1 + B)). With
    ``exceedances=h`` the sequential rule of Besag & Clifford (1991, Biometrika 78, 301)
    stops at the h-th exceedance: p = h/l after l permutations, or (1 + g)/(1 + B) if fewer
    than h exceedances occur in B. It is a valid p-value (P(p ≤ α) ≤ α under the null),
    needs about h/p permutations when p is large (relative precision about 1/sqrt(h), e.g.
    ±22 % for h = 20) and all B only when p ≲ h/B, i.e. when the decision is clear.

    Ties. abs(Δ) ≤ ``tie_rtol`` × max(AUUCC(A), AUUCC(B)) counts as a tie (p = 1): rounding
    noise, e.g. bands u and 1.5u whose UCCs are identical, must not look significant. A
    permuted Δ* exceeds when abs(Δ*) ≥ abs(Δ) − tie_rtol × max(AUUCC(A), AUUCC(B)).

    ``align="median"`` (default) first rescales each model's bands by its median critical
    scale. This leaves both observed AUUCCs unchanged (the UCC is invariant to a global band
    scale) but makes swapped points comparable: without it, mixing bands of different
    overall widths (e.g. a constant of 1 and bands of 3 sd) yields badly mis-scaled
    permuted models, a wide null distribution and a test with little power.
    ``align="none"`` swaps the bands as given (the literal reading of the paper).

    Computation (``algorithm="auto"``): bandwidth–miss rate (either rule) and excess–deficit
    (trapezoid) use the closed forms of :mod:`uqval.ucc_swap` (sums over the permuted model,
    its extremes and tie groups from one shared sort; O(N) per permutation, agreeing with
    the sorted computation to rounding); other axes and ``algorithm="sort"`` rebuild each
    permuted UCC by sorting. The observed AUUCCs always come from the sorted UCC. Swap bits
    are drawn in chunks of max(1, min(256, 2**16 // N)) permutations, chunk j from child j of
    ``SeedSequence(seed)``; the result depends on (data, seed, n_permutations, exceedances)
    only, not on ``n_workers`` (threads evaluating chunks) nor on the algorithm's rounding.
    ``progress(done, total)`` is called after each batch of chunks.
    """
    _check_axes(x_axis, y_axis)
    obs = _observations(y, pi_a)
    _observations(obs, pi_b)
    if n_permutations < 1:
        raise ValueError("n_permutations must be positive")
    if exceedances is not None and exceedances < 1:
        raise ValueError("exceedances must be a positive integer or None")
    if not 0.0 <= tie_rtol < 1.0:
        raise ValueError(f"tie_rtol must lie in [0, 1), got {tie_rtol}")
    if n_workers < 1:
        raise ValueError("n_workers must be a positive integer")
    ta, tb = (_aligned(_terms(obs, p.y_pred, p.z_lower, p.z_upper), align) for p in (pi_a, pi_b))
    pair = _Terms(*(np.stack([getattr(ta, f.name), getattr(tb, f.name)]) for f in fields(_Terms)))
    observed = _batch_auucc(pair, x_axis, y_axis, rule)
    kernel, name = _delta_kernel(ta, tb, x_axis, y_axis, rule, algorithm)
    delta = float(observed[0] - observed[1])
    tol = tie_rtol * float(np.max(np.abs(observed)))
    target = 0.0 if abs(delta) <= tol else abs(delta) - tol
    per_chunk = max(1, min(256, _CHUNK_ELEMENTS // obs.size))
    n_chunks = -(-n_permutations // per_chunk)
    children = _permutation_seed(seed).spawn(n_chunks)
    null = np.empty(n_permutations)

    def work(j: int) -> None:
        kernel(children[j], null[j * per_chunk : min(n_permutations, (j + 1) * per_chunk)])

    used, exceed, stopped = n_permutations, 0, False
    batch, start = max(n_workers, -(-256 // per_chunk)), 0
    with ThreadPoolExecutor(max_workers=n_workers) as pool:
        while start < n_chunks and not stopped:
            stop = min(n_chunks, start + batch)
            chunks = range(start, stop)
            list(pool.map(work, chunks) if n_workers > 1 else map(work, chunks))
            lo, hi = start * per_chunk, min(n_permutations, stop * per_chunk)
            hits = np.cumsum(np.abs(null[lo:hi]) >= target) + exceed
            if exceedances is not None and hits[-1] >= exceedances:
                used, stopped = lo + int(np.argmax(hits >= exceedances)) + 1, True
            exceed = int(hits[-1])
            if progress is not None:
                progress(used if stopped else hi, n_permutations)
            start, batch = stop, 2 * batch
    unit = _unit(obs, normalize)
    scale = unit if "miss_rate" in (x_axis, y_axis) else unit**2
    if stopped and exceedances is not None:  # stopped implies a sequential rule
        p_value = exceedances / used
    else:
        p_value = (1.0 + exceed) / (1.0 + n_permutations)
    rule_name = f"sequential, h = {exceedances}" if exceedances is not None else "fixed"
    return PermutationTestResult(
        auucc_a=float(observed[0]) / scale,
        auucc_b=float(observed[1]) / scale,
        delta=delta / scale,
        p_value=float(p_value),
        n_permutations=used,
        null_deltas=null[:used] / scale,
        max_permutations=n_permutations,
        algorithm=f"{name}, {rule_name}",
    )
