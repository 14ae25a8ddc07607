"""What the figures draw, as numbers: the records of the curves, bands and thinned point sets.

A *record* holds every number one figure needs and nothing else (no matplotlib here): the
one-call plots of :mod:`uqval.plots.diagnostics` and :mod:`uqval.plots.reliability` compute
their record with the functions below and draw it with :mod:`uqval.plots.drawing`; the
validation engine computes the records of its report once
(:mod:`uqval.validation.figure_stage`), so that saving the report only draws.

=========================  =====================================================================
record                     what it holds (paper)
=========================  =====================================================================
:class:`ZAlongRecord`      running Harrell-Davis 2.5/97.5 % quantiles of Z along a feature and
                           the thinned scatter (P000 Sect. III.4.1, P003 Fig. 2)
:class:`ConfidenceRecord`  confidence curve with its probabilistic reference (P000
                           Sect. III.3.6, Eqs. 18-21)
:class:`UCCRecord`         UCC of the band ±k uE and of a constant band, their AUUCCs and the
                           gain (P004 Sect. 2.3, Eq. 6; App. 9 excess-deficit axes)
:class:`IsotonicRecord`    PAV fit of E² on uE² with its consistency band, bootstrap interval
                           and CORP decomposition (:mod:`uqval.calibration.isotonic`)
=========================  =====================================================================

The calibration curve (P000 Sect. III.2.1, Eq. 17) is its own record
(:class:`uqval.calibration.curves.CalibrationCurve`), and so are the per-bin tables of the
reliability diagram (:func:`uqval.calibration.local.reliability_diagram`, P000 Sect. III.3.3)
and of LZMS/LZM (the ``bins`` tables of :func:`uqval.validate`, P003 Sect. III.B.1-2).

Large data sets stay light (a record's size does not grow with M beyond these limits):

* Scatter plots keep at most :data:`MAX_SCATTER` points, taken at evenly spaced ranks of
  the x variable (:func:`scatter_subset`; deterministic, both extremes kept).
* Running quantiles are evaluated for at most :data:`MAX_WINDOWS` windows of
  :func:`uqval.stats.running.quantile_window` points at evenly spaced starts (every window
  when there are fewer): identical to :func:`uqval.stats.running.running_quantiles_along`
  at those windows.
* The probabilistic reference of the confidence curve is simulated on at most
  :data:`MAX_REFERENCE` uncertainties at evenly spaced ranks of uE; the band's distance to
  the mean is then scaled by sqrt(m/M), since the fluctuations of an RMSE over a fixed
  fraction of the points shrink as 1/sqrt(M).
* UCC curves keep at most :data:`MAX_LINE` vertices, isotonic fits :data:`MAX_VERTICES`
  (evenly spaced, both ends kept); areas, gains, the decomposition and the axis limits use
  every point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.curves import (
    ConfidenceCurve,
    ProbabilisticReference,
    confidence_curve,
    probabilistic_reference,
)
from uqval.calibration.isotonic import CorpDecomposition, IsotonicReliability
from uqval.stats.running import (
    DEFAULT_RUNNING_PROBS,
    hd_quantiles_sorted,
    quantile_window,
    window_positions,
)
from uqval.ucc import Axis, PredictionIntervals, auucc, auucc_gain, constant_band, ucc_curve

__all__ = [
    "LOG_DECADES",
    "MAX_LINE",
    "MAX_REFERENCE",
    "MAX_SCATTER",
    "MAX_VERTICES",
    "MAX_WINDOWS",
    "ConfidenceRecord",
    "IsotonicRecord",
    "UCCRecord",
    "ZAlongRecord",
    "confidence_record",
    "curve_end",
    "evenly_spaced",
    "isotonic_record",
    "log_axis",
    "prefers_log",
    "running_band",
    "scatter_subset",
    "ucc_record",
    "z_along_record",
]

MAX_SCATTER = 20_000
"""Largest number of points drawn in a scatter plot (evenly spaced ranks of x)."""

MAX_WINDOWS = 1_000
"""Largest number of running-quantile windows evaluated (evenly spaced starts)."""

MAX_REFERENCE = 20_000
"""Largest number of uncertainties used to simulate the confidence-curve reference."""

MAX_LINE = 2_000
"""Largest number of vertices drawn for a UCC."""

MAX_VERTICES = 4000
"""Most points drawn along an isotonic fit and its bands (evenly spaced ranks)."""

LOG_DECADES = 2.0
"""The isotonic figure's axes are logarithmic when uE² spans more than this many decades."""


# --- thinning and axis choices --------------------------------------------------------------


def evenly_spaced(n: int, k: int) -> NDArray[np.intp]:
    """min(n, k) distinct positions evenly spaced over 0..n-1, both ends included.

    >>> evenly_spaced(10, 4).tolist(), evenly_spaced(3, 4).tolist()
    ([0, 3, 6, 9], [0, 1, 2])
    """
    if n <= k:
        return np.arange(n, dtype=np.intp)
    return np.unique(np.rint(np.linspace(0, n - 1, k)).astype(np.intp))


def scatter_subset(x: ArrayLike, max_points: int = MAX_SCATTER) -> NDArray[np.intp]:
    """Indices of the points a scatter plot along ``x`` draws, in increasing-x order.

    All points when there are at most ``max_points``; otherwise the points at
    ``max_points`` evenly spaced ranks of x (stable sort, both extremes kept). Deterministic.
    """
    order = np.argsort(np.asarray(x, dtype=np.float64), kind="stable")
    return order[evenly_spaced(order.size, max_points)]


def prefers_log(values: FloatArray) -> bool:
    """Whether positive values spread more evenly on a log axis: the largest gap between
    their 2 %, 4 %, ..., 98 % quantiles, relative to the quantiles' range, is smaller in
    log x than in x (a skewed uE yes, a uniform feature no)."""
    if not (values > 0.0).all():
        return False
    q = np.quantile(values, np.linspace(0.02, 0.98, 49))

    def largest_gap(t: FloatArray) -> float:
        span = t[-1] - t[0]
        return float(np.diff(t).max() / span) if span > 0 else np.inf

    return largest_gap(np.log(q)) < largest_gap(q)


def log_axis(values: ArrayLike) -> bool:
    """Whether a variable is drawn on a log axis: its values are positive, span more than a
    decade (a narrower range reads better on a linear axis) and :func:`prefers_log`.

    >>> rng = np.random.default_rng(0)
    >>> log_axis(rng.lognormal(0.0, 1.0, 500)), log_axis(rng.uniform(0.01, 1.0, 500))
    (True, False)
    """
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # 1e300 / 1e-300: an infinite span is more than a decade
        return bool((v > 0).all() and v.max() / v.min() > 10 and prefers_log(v))


def running_band(x: FloatArray, y: FloatArray, max_windows: int = MAX_WINDOWS
                 ) -> tuple[FloatArray, FloatArray]:
    """Running HD 2.5/97.5 % quantiles of y along x at up to ``max_windows`` windows:
    (window positions, quantiles of shape (windows, 2)).

    Window size :func:`~uqval.stats.running.quantile_window` (M); equal to
    :func:`~uqval.stats.running.running_quantiles_along` at the windows evaluated.
    """
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    window = quantile_window(xs.size)
    starts = evenly_spaced(xs.size - window + 1, max_windows)
    windows = np.sort(sliding_window_view(ys, window)[starts], axis=1)
    quantiles = hd_quantiles_sorted(windows, DEFAULT_RUNNING_PROBS)
    return window_positions(xs, window)[starts], quantiles


# --- Z along a feature ----------------------------------------------------------------------


@dataclass(frozen=True)
class ZAlongRecord:
    """Z = E/uE along a feature (P000 Sect. III.4.1, Figs 2 and 8; P003 Fig. 2).

    Attributes:
        positions: mid-range of the feature in each running window evaluated.
        quantiles: running Harrell-Davis 2.5 % and 97.5 % quantiles of Z in those windows,
            shape (windows, 2) (:func:`running_band`).
        x, z: the scatter: feature and Z of the points drawn (:func:`scatter_subset`, in
            increasing feature order).
        log_x: draw the feature on a log axis (:func:`prefers_log`; the axis is log only if
            the positive values also span more than a decade).
        n_rows: rows the band was computed from.
    """

    positions: FloatArray
    quantiles: FloatArray
    x: FloatArray
    z: FloatArray
    log_x: bool
    n_rows: int


def z_along_record(z: FloatArray, x: FloatArray, *, max_scatter: int = MAX_SCATTER,
                   max_windows: int = MAX_WINDOWS) -> ZAlongRecord:
    """The :class:`ZAlongRecord` of z-scores ``z`` along a feature ``x`` (same length)."""
    positions, quantiles = running_band(x, z, max_windows)
    shown = scatter_subset(x, max_scatter)
    return ZAlongRecord(positions=positions, quantiles=quantiles, x=x[shown], z=z[shown],
                        log_x=prefers_log(x), n_rows=int(x.size))


# --- confidence curve -----------------------------------------------------------------------


@dataclass(frozen=True)
class ConfidenceRecord:
    """Confidence curve with its probabilistic reference (P000 Sect. III.3.6, Eqs. 18-21).

    Attributes:
        curve: RMSE of the points left after removing the k % largest uE, k = 0..99, with
            u_k for the top axis (:func:`uqval.calibration.curves.confidence_curve`).
        reference: mean and 95 % band of the curves of ``n_mc`` sets of simulated errors
            uE·N(0, 1) (:func:`uqval.calibration.curves.probabilistic_reference`, seeded); for
            M > :data:`MAX_REFERENCE` simulated on that many uE and the band shrunk by
            sqrt(m/M) (module docstring).
        n_reference: uncertainties the reference was simulated on.
    """

    curve: ConfidenceCurve
    reference: ProbabilisticReference
    n_reference: int


def confidence_record(errors: FloatArray, uncertainties: FloatArray, *, seed: SeedLike = 0,
                      n_mc: int = 500, max_reference: int = MAX_REFERENCE) -> ConfidenceRecord:
    """The :class:`ConfidenceRecord` of checked errors and uncertainties; the reference draws
    from the value stream of ``seed``."""
    e, u = errors, uncertainties
    cc = confidence_curve(e, u)
    kept = np.sort(u)[evenly_spaced(u.size, max_reference)]
    ref = probabilistic_reference(kept, value_generator(seed_sequence(seed)), n_mc=int(n_mc))
    if kept.size < u.size:
        shrink = np.sqrt(kept.size / u.size)
        ref = type(ref)(k=ref.k, mean=ref.mean, low=ref.mean - shrink * (ref.mean - ref.low),
                        high=ref.mean + shrink * (ref.high - ref.mean), n_mc=ref.n_mc)
    return ConfidenceRecord(curve=cc, reference=ref, n_reference=int(kept.size))


# --- UCC ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UCCRecord:
    """UCC of the band ±k uE and of a constant band (P004 Sect. 2.3, Eq. 6; App. 9).

    Attributes:
        model_x, model_y: the curve of the band ±k uE (at most :data:`MAX_LINE` of its
            points, evenly spaced), in the coordinates ``x_axis``, ``y_axis``
            (:func:`uqval.ucc.ucc_curve`; raw units of the errors).
        constant_x, constant_y: the same for the constant band ±k.
        auucc_model, auucc_constant: their areas (trapezoid rule over every point).
        gain_percent: G = 100 (A_const - A_uE)/A_const (Eq. 6).
        ends: for each curve (model, then constant) whose y falls, the x where it has come
            down to 1 % of its drop (the x range drawn stops at 1.1 times the largest).
        x_axis, y_axis: the coordinates (miss_rate, bandwidth, excess, deficit).
    """

    model_x: FloatArray
    model_y: FloatArray
    constant_x: FloatArray
    constant_y: FloatArray
    auucc_model: float
    auucc_constant: float
    gain_percent: float
    ends: tuple[float, ...]
    x_axis: Axis
    y_axis: Axis


def curve_end(x: FloatArray, y: FloatArray) -> float | None:
    """The first x where a falling curve has come down to 1 % of its drop y[0] - y[-1]
    (None when it does not fall): where the figures' x range of a UCC stops (times 1.1).

    >>> curve_end(np.array([0.0, 1.0, 2.0, 50.0]), np.array([1.0, 0.5, 0.005, 0.0]))
    2.0
    """
    drop = y[0] - y[-1]
    if not drop > 0:
        return None
    return float(x[np.argmax(y <= y[-1] + 0.01 * drop)])


def ucc_record(errors: FloatArray, uncertainties: FloatArray, *, x_axis: Axis = "excess",
               y_axis: Axis = "deficit", max_line: int = MAX_LINE) -> UCCRecord:
    """The :class:`UCCRecord` of checked errors and uncertainties."""
    e, u = errors, uncertainties
    zero = np.zeros(e.size)
    model = ucc_curve(e, PredictionIntervals.from_uncertainty(zero, u), x_axis, y_axis)
    const = ucc_curve(e, constant_band(zero), x_axis, y_axis)
    a_model, a_const = auucc(model), auucc(const)
    ends = [end for curve in (model, const)
            if (end := curve_end(curve.x, curve.y)) is not None]
    m_shown = evenly_spaced(model.x.size, max_line)
    c_shown = evenly_spaced(const.x.size, max_line)
    return UCCRecord(
        model_x=model.x[m_shown], model_y=model.y[m_shown],
        constant_x=const.x[c_shown], constant_y=const.y[c_shown],
        auucc_model=a_model, auucc_constant=a_const,
        gain_percent=auucc_gain(a_model, a_const), ends=tuple(ends),
        x_axis=x_axis, y_axis=y_axis,
    )


# --- isotonic reliability -------------------------------------------------------------------


@dataclass(frozen=True)
class IsotonicRecord:
    """The drawn part of an isotonic reliability analysis
    (:class:`uqval.calibration.isotonic.IsotonicReliability`): PAV fit of E² on uE² with the
    consistency band of calibrated sets and the bootstrap interval of the fit.

    Attributes:
        x: distinct uE² (at most :data:`MAX_VERTICES`, evenly spaced ranks, both ends kept).
        fitted, band_low, band_high, ci_low, ci_high: the fit, the pointwise consistency band
            and the pointwise bootstrap interval at x.
        decomposition: QLIKE CORP decomposition (MCB with its p-value, DSC, UNC).
        n_sim, n_boot, confidence: the settings of the analysis.
        log: draw both axes logarithmic (uE² spans more than :data:`LOG_DECADES` decades).
        lowest: smallest positive value of the band, fit and interval over every x (NaN
            when none is positive): the bottom of a log axis.
    """

    x: FloatArray
    fitted: FloatArray
    band_low: FloatArray
    band_high: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    decomposition: CorpDecomposition
    n_sim: int
    n_boot: int
    confidence: float
    log: bool
    lowest: float


def isotonic_record(result: IsotonicReliability, max_vertices: int = MAX_VERTICES
                    ) -> IsotonicRecord:
    """The :class:`IsotonicRecord` of an isotonic reliability analysis."""
    x = result.x
    log = bool((x > 0).all() and np.log10(x.max() / x.min()) > LOG_DECADES)
    positive = np.r_[result.band_low, result.fitted, result.ci_low]
    positive = positive[positive > 0]
    idx = evenly_spaced(x.size, max_vertices)
    return IsotonicRecord(
        x=x[idx], fitted=result.fitted[idx], band_low=result.band_low[idx],
        band_high=result.band_high[idx], ci_low=result.ci_low[idx], ci_high=result.ci_high[idx],
        decomposition=result.decomposition, n_sim=result.n_sim, n_boot=result.n_boot,
        confidence=result.confidence, log=log,
        lowest=float(positive.min()) if positive.size else float("nan"),
    )
