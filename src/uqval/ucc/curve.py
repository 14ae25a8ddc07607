"""Uncertainty Characteristics Curves, their areas, gains and costs (UCC paper P004 Sect. 2.3,
Eqs. 5, 6, 15; Algorithm 1 in O(N log N)).

AUUCC: the trapezoid rule over the points sorted by k, from the first point (UQ360's
``get_AUUCC``; docs/choices.md, "AUUCC integration rule"), or the rectangle rule of Prop. 1,
Eq. 15. Gains (Eq. 6) are taken against a constant band around the same predictions; the linear
cost is Eq. 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.ucc.intervals import (
    _INCREASING_AXES,
    Axis,
    Normalize,
    PredictionIntervals,
    UCCMetrics,
    check_axes,
    metrics_at_scale,
    normalising_unit,
    observations,
    ucc_metrics,
)

__all__ = [
    "OperatingPoint",
    "UCCCurve",
    "auucc",
    "auucc_gain",
    "linear_cost",
    "min_cost",
    "operating_point",
    "partial_auucc",
    "partial_auucc_gain",
    "ucc_curve",
]

Rule = Literal["trapezoid", "rectangle"]


Cut = Literal["interpolate", "nearest"]


@dataclass(frozen=True)
class OperatingPoint:
    """An operating point: scale k, coordinates (x, y) on the curve's axes, miss rate, cost.

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import operating_point
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> p = operating_point(y, pi, 1.0)  # bandwidth (x) and miss rate (y) at k = 1
        >>> p.x, p.y, p.cost  # cost = 0.5 x + 0.5 y
        (0.5625, 0.25, 0.40625)
    """

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

    Examples:
        >>> from uqval import PredictionIntervals, ucc_curve
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> curve = ucc_curve(y, pi, "excess", "deficit")
        >>> curve.x_axis, curve.y_axis, curve.unit
        ('excess', 'deficit', 1.0)
        >>> curve.x.tolist(), curve.y.tolist()
        ([0.0, 0.0, 0.1875, 0.6875], [0.15625, 0.15625, 0.0625, 0.0])
        >>> curve.origin.y  # deficit at k = 0: mean abs(y - y_pred)
        0.4375
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

    Examples:
        >>> from uqval import PredictionIntervals, ucc_curve
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> curve = ucc_curve(y, pi)  # bandwidth (x) against miss rate (y), one point per k_i
        >>> curve.k.tolist()
        [0.5, 0.5, 1.0, 2.0]
        >>> curve.x.tolist(), curve.y.tolist()
        ([0.28125, 0.28125, 0.5625, 1.125], [0.5, 0.5, 0.25, 0.0])
    """
    check_axes(x_axis, y_axis)
    obs = observations(y, pi)
    unit = normalising_unit(obs, normalize)
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


def curve_area(x: FloatArray, y: FloatArray, rule: Rule, x_axis: Axis) -> FloatArray:
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

    Examples:
        >>> from uqval import PredictionIntervals, auucc, ucc_curve
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> curve = ucc_curve(y, pi)
        >>> auucc(curve), auucc(curve, "rectangle")
        (0.17578125, 0.2109375)
    """
    return float(curve_area(curve.x, curve.y, rule, curve.x_axis))


def auucc_gain(a_model: float, a_constant: float) -> float:
    """AUUCC gain G_M = (A_const − A_M)/A_const · 100 % (Eq. 6); also for partial areas.

    Examples:
        >>> from uqval import auucc_gain
        >>> auucc_gain(0.75, 1.0)  # a model area 25 % below the constant band's
        25.0

        Bands ±uE of errors drawn with these uE against a constant band: a clear gain in
        excess-deficit coordinates, about none in bandwidth-miss-rate ones (:mod:`uqval.ucc`,
        "two consequences", (1)):

        >>> import numpy as np
        >>> from uqval import PredictionIntervals, auucc, ucc_curve
        >>> from uqval.ucc import constant_band
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> y_pred = rng.normal(0.0, 3.0, 1000)
        >>> y = y_pred + u * rng.standard_normal(1000)
        >>> model, const = PredictionIntervals.from_uncertainty(y_pred, u), constant_band(y_pred)
        >>> def gain(x_axis, y_axis):
        ...     areas = [auucc(ucc_curve(y, pi, x_axis, y_axis)) for pi in (model, const)]
        ...     return round(auucc_gain(*areas), 1)
        >>> gain("excess", "deficit"), gain("bandwidth", "miss_rate")
        (23.4, -0.2)
    """
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

    Examples:
        >>> from uqval import PredictionIntervals, ucc_curve
        >>> from uqval.ucc import partial_auucc
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> partial_auucc(ucc_curve(y, pi), (0.0, 0.25))  # the part with miss rate <= 0.25
        0.0703125
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
    """Partial-AUUCC gain (Eq. 6 with partial areas; P004 Tab. 1 uses ρ ∈ [0, 0.5]).

    Examples:
        Bands ±uE against a constant band in bandwidth-miss-rate coordinates: no gain over
        the whole curve (see :func:`auucc_gain`), a gain at miss rates up to 0.5:

        >>> import numpy as np
        >>> from uqval import PredictionIntervals, partial_auucc_gain, ucc_curve
        >>> from uqval.ucc import constant_band
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> y_pred = rng.normal(0.0, 3.0, 1000)
        >>> y = y_pred + u * rng.standard_normal(1000)
        >>> model = ucc_curve(y, PredictionIntervals.from_uncertainty(y_pred, u))
        >>> const = ucc_curve(y, constant_band(y_pred))
        >>> round(partial_auucc_gain(model, const), 1)
        11.9
    """
    return auucc_gain(
        partial_auucc(model, miss_rate_range, cut), partial_auucc(constant, miss_rate_range, cut)
    )


def _check_weight(c: float) -> None:
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"the cost weight c must lie in [0, 1], got {c}")


def linear_cost(curve: UCCCurve, c: float = 0.5) -> FloatArray:
    """Linear cost C(k) = c x(k) + (1 − c) y(k) at every UCC point (Eq. 5).

    With symmetric bands, c = 0.5 and excess–deficit axes, C(k) = ½ MAE(k) with
    MAE(k) = (1/N) Σ abs(d_i − k ẑ_i), d_i = abs(ŷ_i − y_i) (Remark 2).

    Examples:
        >>> from uqval import PredictionIntervals, ucc_curve
        >>> from uqval.ucc import linear_cost
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> linear_cost(ucc_curve(y, pi))  # 0.5 bandwidth + 0.5 miss rate
        array([0.390625, 0.390625, 0.40625 , 0.5625  ])
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

    Examples:
        >>> from uqval import PredictionIntervals, ucc_curve
        >>> from uqval.ucc import min_cost
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> curve = ucc_curve(y, pi)
        >>> min_cost(curve)
        OperatingPoint(k=0.5, x=0.28125, y=0.5, miss_rate=0.5, cost=0.390625)
        >>> min_cost(curve, c=0.9).k  # bandwidth weighs so much that no band at all wins
        0.0
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
    """Coordinates and cost (Eq. 5) at a given scale k, e.g. one tuned on held-out data.

    Examples:
        >>> from uqval import PredictionIntervals
        >>> from uqval.ucc import operating_point
        >>> y, y_pred = [1.0, 2.0, 3.5, 4.0], [1.25, 1.5, 3.0, 4.5]
        >>> pi = PredictionIntervals.from_half_widths(y_pred, [0.5, 1.0, 0.5, 0.25])
        >>> operating_point(y, pi, 2.0, "excess", "deficit")  # every point captured at k = 2
        OperatingPoint(k=2.0, x=0.6875, y=0.0, miss_rate=0.0, cost=0.34375)
    """
    check_axes(x_axis, y_axis)
    _check_weight(c)
    obs = observations(y, pi)
    unit = normalising_unit(obs, normalize)
    m = metrics_at_scale(obs, pi, k)
    x, yv = float(m.axis(x_axis, unit)[0]), float(m.axis(y_axis, unit)[0])
    return OperatingPoint(
        k=float(k), x=x, y=yv, miss_rate=float(m.miss_rate[0]), cost=c * x + (1.0 - c) * yv
    )

