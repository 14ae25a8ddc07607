"""One-call diagnostic plots of errors and uncertainties (the validation report's figures).

Each function takes ``(errors, uncertainties, ...)`` as NumPy arrays or pandas Series,
draws on ``ax`` (a new figure in the project style when ``ax`` is None) and returns the
Axes. The numbers come from the core modules (:mod:`uqval.calibration.curves`,
:mod:`uqval.calibration.local`, :mod:`uqval.binning`, :mod:`uqval.stats.running`, :mod:`uqval.ucc`);
this module only chooses defaults and draws. Z = E/uE throughout.

=============================  ===========================================================
function                       what it shows (paper)
=============================  ===========================================================
calibration_curve_plot         eta_p vs p with the 95 % band around the identity (P000
                               Sect. III.2.1, Eq. 17)
reliability_diagram_plot       RMSE vs RMV per equal-count bin of uE (P000 Sect. III.3.3)
local_zms_plot                 <Z^2> per bin along uE or a feature, invalid bins shaded
                               (P003 Sect. III.B.1-2)
z_vs_feature_plot              Z against a feature with running 95 % quantiles (P000
                               Sect. III.4.1, P003 Fig. 2)
confidence_curve_plot          RMSE after removing the largest uE, with the probabilistic
                               reference (P000 Sect. III.3.6, Eqs. 18-21)
ucc_plot                       UCC of the band +-k uE against a constant band, AUUCC gain
                               (P004 Sect. 2.3, Eq. 6; App. 9 excess-deficit axes)
intervals_plot                 prediction intervals +-Q((1+P)/2) uE ordered by uE (P000
                               Sect. III.3.5)
=============================  ===========================================================

Large data sets stay fast and light (a million points draw in seconds):

* Scatter plots show at most :data:`MAX_SCATTER` points, taken at evenly spaced ranks of
  the x variable (deterministic: the same data give the same picture; every part of the
  x range keeps its share of points). Statistics, lines and legend counts use all points.
* Running quantiles (z_vs_feature_plot) are the Harrell-Davis quantiles of the windows of
  :func:`uqval.stats.running.quantile_window` points, evaluated for at most :data:`MAX_WINDOWS`
  windows at evenly spaced starts (every window when there are fewer): identical to
  :func:`uqval.stats.running.running_quantiles_along` at those windows.
* The probabilistic reference of the confidence curve is simulated on at most
  :data:`MAX_REFERENCE` uncertainties at evenly spaced ranks of uE (the same distribution
  of uE); the band's distance to the mean is then scaled by sqrt(m/M), since the
  fluctuations of an RMSE over a fixed fraction of the points shrink as 1/sqrt(M).
* Curves with more than :data:`MAX_LINE` points (UCC) are drawn through at most that many
  of them, evenly spaced along the curve; areas and gains use every point.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axes._secondary_axes import SecondaryAxis
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import integer, probability, vector
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray
from uqval.binning import equal_count_bins, sqrt_bin_count
from uqval.calibration.coverage import interval_half_widths
from uqval.calibration.curves import (
    P_GRID_DEFAULT,
    calibration_curve,
    confidence_curve,
    probabilistic_reference,
)
from uqval.calibration.fraction_valid import fraction_valid
from uqval.calibration.local import (
    ZmsMethod,
    global_zmean,
    global_zms,
    local_zmean,
    local_zms,
    reliability_diagram,
)
from uqval.plots import panels
from uqval.plots.style import CALIBRATED, REFERENCE, SHADE, UNCALIBRATED, figure
from uqval.stats.running import (
    DEFAULT_RUNNING_PROBS,
    hd_quantiles_sorted,
    quantile_window,
    window_positions,
)
from uqval.ucc import Axis, PredictionIntervals, auucc, auucc_gain, constant_band, ucc_curve

__all__ = [
    "MAX_LINE",
    "MAX_REFERENCE",
    "MAX_SCATTER",
    "MAX_WINDOWS",
    "calibration_curve_plot",
    "confidence_curve_plot",
    "intervals_plot",
    "local_zm_plot",
    "local_zms_plot",
    "reliability_diagram_plot",
    "scatter_subset",
    "ucc_plot",
    "z_vs_feature_plot",
]

MAX_SCATTER = 20_000
"""Largest number of points drawn in a scatter plot (evenly spaced ranks of x)."""

MAX_WINDOWS = 1_000
"""Largest number of running-quantile windows evaluated (evenly spaced starts)."""

MAX_REFERENCE = 20_000
"""Largest number of uncertainties used to simulate the confidence-curve reference."""

MAX_LINE = 2_000
"""Largest number of vertices drawn for a UCC."""

RELIABILITY_MAX_BINS = 15
"""Default number of reliability-diagram bins for M >= 2250; M // 150 (at least 2) below,
the authors' rule (P000 Sect. III.3.3: 15 bins of about 333 points for M = 5000)."""

LZMS_MAX_BINS = 100
"""Upper limit of the default number of LZMS bins (sqrt(M), P003 Sect. III.B.3.a)."""


# --- input checks -------------------------------------------------------------------------


def _inputs(errors: ArrayLike, uncertainties: ArrayLike, min_points: int = 2) -> tuple[
    FloatArray, FloatArray
]:
    """Validated errors and (strictly positive) uncertainties of equal length."""
    e = vector(errors, "errors")
    u = vector(uncertainties, "uncertainties")
    if e.size != u.size:
        raise ValueError(
            f"errors and uncertainties have different lengths ({e.size} and {u.size})"
        )
    bad = np.flatnonzero(u <= 0.0)
    if bad.size:
        raise ValueError(
            f"uncertainties must be strictly positive; {bad.size} are not, "
            f"first at rows {bad[:5].tolist()}"
        )
    if e.size < min_points:
        raise ValueError(f"errors and uncertainties need {min_points} points, got {e.size}")
    return e, u


def _conditioning(values: ArrayLike, m: int, name: str) -> FloatArray:
    """A finite, non-constant variable of length m (a feature to bin or plot against)."""
    x = vector(values, name)
    if x.size != m:
        raise ValueError(f"{name} has {x.size} values, errors and uncertainties have {m}")
    if x.min() == x.max():
        raise ValueError(f"{name} is constant; it cannot order the points")
    return x


def _bin_count(n_bins: int | None, default: int, m: int, per_bin: int) -> int:
    """``n_bins`` checked (at least ``per_bin`` points per bin), or the default."""
    if n_bins is None:
        return max(1, min(default, m // per_bin))
    n_bins = integer(n_bins, "n_bins", minimum=1)
    if n_bins * per_bin > m:
        raise ValueError(f"n_bins = {n_bins} leaves fewer than {per_bin} points per bin (M = {m})")
    return n_bins


def _label(text: str, units: str | None) -> str:
    return f"{text} ({units})" if units else text


def _prefers_log(values: FloatArray) -> bool:
    """Whether positive values spread more evenly on a log axis: the largest gap between
    their 2 %, 4 %, ..., 98 % quantiles, relative to the quantiles' range, is smaller in
    log x than in x (a skewed uE yes, a uniform feature no). The axis is then logarithmic
    if the values also span more than a decade (:func:`uqval.plots.panels.use_log_x`)."""
    if not (values > 0.0).all():
        return False
    q = np.quantile(values, np.linspace(0.02, 0.98, 49))

    def largest_gap(t: FloatArray) -> float:
        span = t[-1] - t[0]
        return float(np.diff(t).max() / span) if span > 0 else np.inf

    return largest_gap(np.log(q)) < largest_gap(q)


def _axes(ax: Axes | None, width: float = 3.6, height: float = 3.0) -> Axes:
    if ax is not None:
        return ax
    _, new = figure(1, 1, width=width, height=height)
    return new


# --- thinning -----------------------------------------------------------------------------


def _evenly_spaced(n: int, k: int) -> NDArray[np.intp]:
    """min(n, k) distinct positions evenly spaced over 0..n-1, both ends included."""
    if n <= k:
        return np.arange(n, dtype=np.intp)
    return np.unique(np.rint(np.linspace(0, n - 1, k)).astype(np.intp))


def scatter_subset(x: ArrayLike, max_points: int = MAX_SCATTER) -> NDArray[np.intp]:
    """Indices of the points a scatter plot along ``x`` draws, in increasing-x order.

    All points when there are at most ``max_points``; otherwise the points at
    ``max_points`` evenly spaced ranks of x (stable sort, both extremes kept). Deterministic.
    """
    order = np.argsort(np.asarray(x, dtype=np.float64), kind="stable")
    return order[_evenly_spaced(order.size, max_points)]


def _running_band(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Running HD 2.5/97.5 % quantiles of y along x at up to MAX_WINDOWS windows.

    Window size :func:`~uqval.stats.running.quantile_window` (M); equal to
    :func:`~uqval.stats.running.running_quantiles_along` at the windows evaluated.
    """
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    window = quantile_window(xs.size)
    starts = _evenly_spaced(xs.size - window + 1, MAX_WINDOWS)
    windows = np.sort(sliding_window_view(ys, window)[starts], axis=1)
    quantiles = hd_quantiles_sorted(windows, DEFAULT_RUNNING_PROBS)
    return window_positions(xs, window)[starts], quantiles


# --- the plots ----------------------------------------------------------------------------


def calibration_curve_plot(errors: ArrayLike, uncertainties: ArrayLike, *, ax: Axes | None = None
                           ) -> Axes:
    """Calibration curve: eta_p = (1/M) sum_i 1(Z_i < Phi^-1(p)) against p (P000 Eq. 17).

    Normal quantiles on the grid p = 0.005, ..., 0.995; the dashed lines are the 95 %
    Wilson band of a binomial proportion p with M trials around the identity, the shaded
    area the miscalibration area (:func:`uqval.calibration.curves.calibration_curve`). A curve below
    the identity at small p and above it at large p means errors larger than the
    uncertainties say (too small uE); the reverse means uE too large.
    """
    e, u = _inputs(errors, uncertainties)
    ax = _axes(ax)
    curve = calibration_curve(e, u, p=P_GRID_DEFAULT)
    panels.calibration_curve(ax, curve, label=f"data (miscalibration area {curve.area:.3f})")
    ax.plot([], [], "--", color=panels.GUIDE, lw=0.8, label="95 % band (calibrated)")
    ax.legend(loc="upper left")
    ax.set_xlabel("nominal probability p")
    ax.set_ylabel(r"observed fraction $\eta_p$ with $Z < \Phi^{-1}(p)$")
    return ax


def reliability_diagram_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    n_bins: int | None = None,
    ax: Axes | None = None,
    units: str | None = None,
    seed: int = 0,
) -> Axes:
    """Reliability diagram: RMSE_b = sqrt(<E^2>_b) against RMV_b = sqrt(<uE^2>_b) per bin.

    P000 Sect. III.3.3: equal-count bins of uE (:func:`uqval.binning.equal_count_bins`;
    default :data:`RELIABILITY_MAX_BINS` = 15 bins from M = 2250), 95 % intervals
    of RMSE_b from the delta method on Cho's variance for bins of at least 200 points and a
    BCa bootstrap (``seed``) below (:func:`uqval.calibration.local.reliability_diagram`,
    ``method="auto"``). Calibrated points lie on the identity; points above it are bins
    whose uncertainties are too small. Log axes when RMV spans more than a decade.
    """
    e, u = _inputs(errors, uncertainties)
    default = max(min(e.size // 150, RELIABILITY_MAX_BINS), 2)
    n = _bin_count(n_bins, default, e.size, 2)
    ax = _axes(ax)
    rd = reliability_diagram(e, u, equal_count_bins(u, n), method="auto", seed=seed)
    panels.reliability_diagram(ax, rd, unit=units or "")
    handles = [
        Line2D([], [], marker="o", ls="-", color=CALIBRATED, ms=3, label=f"{n} bins of $u_E$"),
        Line2D([], [], ls="--", color=REFERENCE, lw=0.8, label="calibrated (RMSE = RMV)"),
    ]
    ax.legend(handles=handles, loc="best")
    return ax


def _bin_spans(x: FloatArray, bins: list[NDArray[np.intp]]) -> FloatArray:
    """Edges of the x range each bin covers; neighbours meet half-way between them."""
    low = np.array([x[b].min() for b in bins])
    high = np.array([x[b].max() for b in bins])
    return np.concatenate([[low[0]], 0.5 * (high[:-1] + low[1:]), [high[-1]]])


def local_zms_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike | None = None,
    *,
    x_name: str = "uncertainty",
    n_bins: int | None = None,
    ax: Axes | None = None,
    seed: int = 0,
    units: str | None = None,
    method: ZmsMethod = "auto",
) -> Axes:
    """Local ZMS: LZMS_b = <Z^2>_b per equal-count bin of x, with 95 % intervals (P003 III.B).

    x defaults to the uncertainties (consistency; a feature gives adaptivity). Default
    number of bins round(sqrt(M)) (P003 Sect. III.B.3.a), at most :data:`LZMS_MAX_BINS`
    and at least 4 points per bin. Intervals: BCa bootstrap (R = max(1500, n_b), seeded)
    for bins under 200 points, Student-t interval of the mean of Z^2 above
    (:func:`uqval.calibration.local.local_zms`, ``method="auto"``; "bootstrap" or "stud" for
    every bin). A bin is valid when its
    interval contains 1; invalid bins are red and their x range shaded, and the legend gives
    the fraction of valid bins f_v with its Wilson-cc interval (P003 Sect. III.B.2) and the
    ZMS of all points. Bins sit at the mid-range of their x values; the x axis is
    logarithmic when positive x span more than a decade and spread more evenly on a log
    scale (a skewed uE, not a uniform feature). ``units`` labels the x axis when x is uE;
    for a feature, put its units in ``x_name`` (e.g. "temperature (K)").
    """
    e, u = _inputs(errors, uncertainties, min_points=4)
    xv = u if x is None else _conditioning(x, e.size, "x")
    n = _bin_count(n_bins, min(sqrt_bin_count(e.size), LZMS_MAX_BINS), e.size, 2)
    bins = equal_count_bins(xv, n)
    local = local_zms(e, u, xv, bins, method=method, seed=seed)
    whole = global_zms(e, u, seed=seed).iloc[0]
    xlabel = _label(r"uncertainty $u_E$", units) if x is None else x_name
    return _local_plot(ax, local, xv, bins, 1.0, whole, xlabel,
                       r"LZMS $\langle Z^2\rangle$ per bin", "ZMS", bottom=0.0)


def local_zm_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike | None = None,
    *,
    x_name: str = "uncertainty",
    n_bins: int | None = None,
    ax: Axes | None = None,
    units: str | None = None,
) -> Axes:
    """Local mean z-score: LZM_b = <Z>_b per equal-count bin of x with Student-t 95 %
    intervals (P003 Sect. III.B.1), target 0: a bias of the predictions along x (in units of
    the uncertainty), which no rescaling of the uncertainties can fix. Bins, axes and colours
    as in :func:`local_zms_plot`.
    """
    e, u = _inputs(errors, uncertainties, min_points=4)
    xv = u if x is None else _conditioning(x, e.size, "x")
    n = _bin_count(n_bins, min(sqrt_bin_count(e.size), LZMS_MAX_BINS), e.size, 2)
    bins = equal_count_bins(xv, n)
    local = local_zmean(e, u, xv, bins)
    whole = global_zmean(e, u).iloc[0]
    xlabel = _label(r"uncertainty $u_E$", units) if x is None else x_name
    return _local_plot(ax, local, xv, bins, 0.0, whole, xlabel,
                       r"LZM $\langle Z\rangle$ per bin", "<Z>", bottom=None)


def _local_plot(ax: Axes | None, local: pd.DataFrame, xv: FloatArray,
                bins: list[NDArray[np.intp]], target: float, whole: pd.Series, xlabel: str,
                ylabel: str, statistic: str, bottom: float | None) -> Axes:
    """Per-bin values with intervals, invalid bins red and shaded, f_v in the legend."""
    ax = _axes(ax)
    fv = fraction_valid(local)
    valid = local["valid"].to_numpy(bool)
    spans = _bin_spans(xv, bins)
    for i in np.flatnonzero(~valid):
        ax.axvspan(spans[i], spans[i + 1], color=SHADE, alpha=0.45, lw=0, zorder=0)
    ax.axhline(target, ls="--", color=REFERENCE, lw=0.8)
    for ok, color in ((valid, CALIBRATED), (~valid, UNCALIBRATED)):
        pos = local["x"].to_numpy()[ok]
        ax.vlines(pos, local["ci_low"].to_numpy()[ok], local["ci_high"].to_numpy()[ok],
                  color=color, lw=1.0)
        ax.plot(pos, local["value"].to_numpy()[ok], "o", color=color, ms=3)
    if panels.use_log_x(ax, xv, _prefers_log(xv)):
        panels.readable_log_ticks(ax)
    if bottom is not None:
        ax.set_ylim(bottom=bottom)
    ax.set(xlabel=xlabel, ylabel=ylabel)
    handles: list[Artist] = [
        Line2D([], [], marker="o", ls="none", color=CALIBRATED, ms=3,
               label=f"valid bin ({fv.n_valid} of {fv.n_bins}, "
               f"$f_v$ = {fv.value:.2f} [{fv.ci_low:.2f}, {fv.ci_high:.2f}])"),
        Line2D([], [], marker="o", ls="none", color=UNCALIBRATED, ms=3,
               label=f"interval misses {target:g}"),
        Line2D([], [], ls="--", color=REFERENCE, lw=0.8,
               label=f"target {target:g}; all points {statistic} = {whole['value']:.2f} "
               f"[{whole['ci_low']:.2f}, {whole['ci_high']:.2f}]"),
    ]
    if not valid.all():
        handles.append(Patch(color=SHADE, alpha=0.45, lw=0, label="x range of invalid bins"))
    ax.legend(handles=handles, loc="upper left", fontsize=6.5)
    low, top = ax.get_ylim()
    ax.set_ylim(low, top + 0.3 * (top - low))  # room for the legend above the bins
    return ax


def z_vs_feature_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    feature: ArrayLike,
    *,
    feature_name: str = "feature",
    ax: Axes | None = None,
) -> Axes:
    """Z = E/uE against a feature with running 2.5 % and 97.5 % quantiles (P000 III.4.1).

    Calibrated and adaptive uncertainties give running quantiles near +-1.96 (dotted guides
    at +-2) all along the feature; a widening band marks a range where uE is too small.
    Running Harrell-Davis quantiles over windows of floor(M/ceil(2 M^0.333)) points sliding
    along the sorted feature, plotted at the window mid-range (P000 Figs 2 and 8; see the
    module docstring for large M). Scatter thinned to :data:`MAX_SCATTER` points; y range
    +-max abs(Z) within [5, 30].
    """
    e, u = _inputs(errors, uncertainties)
    xv = _conditioning(feature, e.size, "feature")
    ax = _axes(ax)
    z = e / u
    positions, quantiles = _running_band(xv, z)
    shown = scatter_subset(xv)
    panels.z_vs_variable(ax, xv[shown], z[shown], positions, quantiles, feature_name,
                         log_x=_prefers_log(xv), limit=None)
    if ax.get_xscale() == "log":
        panels.readable_log_ticks(ax)
    ax.set_ylabel(r"$Z = E/u_E$")
    handles = [
        Line2D([], [], ls="-", color=panels.RUNNING, label="running 2.5 % and 97.5 % quantiles"),
        Line2D([], [], ls=":", color=panels.GUIDE, label=r"$Z = \pm 2$ (about 95 % if calibrated)"),
    ]
    ax.legend(handles=handles, loc="upper left", fontsize=6.5)
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, top + 0.25 * (top - bottom))  # room for the legend above the points
    return ax


def confidence_curve_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    ax: Axes | None = None,
    seed: int = 0,
    units: str | None = None,
    n_mc: int = 500,
) -> Axes:
    """Confidence curve: RMSE of the points left after removing the k % largest uE (P000).

    c(k) for k = 0..99 % (P000 Eqs. 18-19; :func:`uqval.calibration.curves.confidence_curve`) with the
    probabilistic reference: the mean and 95 % band of ``n_mc`` curves of simulated errors
    uE * N(0, 1) (Eqs. 20-21; :func:`uqval.calibration.curves.probabilistic_reference`, seeded). A
    decreasing curve means that large uncertainties flag large errors; inside the band it
    also agrees with what calibrated uncertainties would give. The top axis shows the
    largest uE left. For M > :data:`MAX_REFERENCE` see the module docstring.
    """
    e, u = _inputs(errors, uncertainties)
    if int(n_mc) != n_mc or n_mc < 2:
        raise ValueError(f"n_mc must be an integer of at least 2, got {n_mc!r}")
    ax = _axes(ax)
    cc = confidence_curve(e, u)
    kept = np.sort(u)[_evenly_spaced(u.size, MAX_REFERENCE)]
    ref = probabilistic_reference(kept, value_generator(seed_sequence(seed)), n_mc=int(n_mc))
    if kept.size < u.size:
        shrink = np.sqrt(kept.size / u.size)
        ref = type(ref)(k=ref.k, mean=ref.mean, low=ref.mean - shrink * (ref.mean - ref.low),
                        high=ref.mean + shrink * (ref.high - ref.mean), n_mc=ref.n_mc)
    panels.confidence_curve(ax, cc, ref, ylabel=_label("RMSE of the points left", units))
    top = next(c for c in ax.child_axes if isinstance(c, SecondaryAxis))
    top.set_xlabel(_label(r"largest $u_E$ left", units), fontsize=7)
    return ax


def ucc_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    ax: Axes | None = None,
    units: str | None = None,
    x_axis: Axis = "excess",
    y_axis: Axis = "deficit",
) -> Axes:
    """Uncertainty characteristics curve of the band +-k uE and of a constant band (P004).

    Each band is scaled by every k > 0 (P004 Sect. 2.3, :func:`uqval.ucc.ucc_curve`); by
    default the curve joins the mean excess (width beyond what was needed) and the mean
    deficit (distance of the missed errors to the band) of each k (P004 App. 9, Eqs. 8-9),
    in the units of the errors; ``x_axis``/``y_axis`` choose other coordinates among
    miss_rate, bandwidth, excess, deficit. The constant band has the same half-width for
    every point, so it uses no uncertainty. The legend gives both areas (AUUCC, trapezoid
    rule) and the gain G = (A_const - A_uE)/A_const x 100 % (Eq. 6): a positive gain means
    the uncertainties rank the errors better than no uncertainty at all. (In
    bandwidth-miss-rate coordinates calibrated heteroscedastic bands gain about 0: see
    :mod:`uqval.ucc`.) The x axis stops where both curves have come down to 1 % of their
    start.
    """
    e, u = _inputs(errors, uncertainties)
    ax = _axes(ax)
    zero = np.zeros(e.size)
    model = ucc_curve(e, PredictionIntervals.from_uncertainty(zero, u), x_axis, y_axis)
    const = ucc_curve(e, constant_band(zero), x_axis, y_axis)
    a_model, a_const = auucc(model), auucc(const)
    for curve, color, ls, name, area in (
        (const, UNCALIBRATED, "--", "constant band", a_const),
        (model, CALIBRATED, "-", r"band $\pm k\,u_E$", a_model),
    ):
        shown = _evenly_spaced(curve.x.size, MAX_LINE)
        ax.plot(curve.x[shown], curve.y[shown], ls, color=color, label=f"{name} (AUUCC {area:.3g})")
    ax.plot([], [], " ", label=f"gain {auucc_gain(a_model, a_const):+.1f} %")
    ends = []
    for curve in (model, const):
        drop = curve.y[0] - curve.y[-1]
        if drop > 0:
            ends.append(float(curve.x[np.argmax(curve.y <= curve.y[-1] + 0.01 * drop)]))
    if ends and x_axis in ("excess", "bandwidth"):
        ax.set_xlim(0.0, 1.1 * max(ends))
    ax.set_ylim(bottom=0.0)
    names = {"miss_rate": "miss rate", "bandwidth": "mean half-width", "excess": "mean excess",
             "deficit": "mean deficit"}
    ax.set_xlabel(names[x_axis] if x_axis == "miss_rate" else _label(names[x_axis], units))
    ax.set_ylabel(names[y_axis] if y_axis == "miss_rate" else _label(names[y_axis], units))
    ax.legend(loc="upper right")
    return ax


def intervals_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    coverage: float = 0.95,
    ax: Axes | None = None,
    units: str | None = None,
) -> Axes:
    """Errors and their prediction intervals, points ordered by increasing uncertainty.

    The band is +-U_i with U_i = uE_i Phi^-1((1 + P)/2) (P = ``coverage``; 1.96 uE for 95 %;
    P000 Sect. III.3.5, :func:`uqval.calibration.local.interval_half_widths`); errors outside it
    are red. The legend compares the fraction outside (all points) with 1 - P. Drawn points
    thinned to :data:`MAX_SCATTER` at evenly spaced ranks.
    """
    e, u = _inputs(errors, uncertainties)
    p = probability(coverage, "coverage")
    ax = _axes(ax)
    half = interval_half_widths(u, [p])[:, 0]
    order = np.argsort(u, kind="stable")
    outside = np.abs(e) > half
    ranks = _evenly_spaced(e.size, MAX_SCATTER)
    shown = order[ranks]
    rank = 100.0 * ranks / max(e.size - 1, 1)
    factor = half[0] / u[0]
    ax.fill_between(rank, -half[shown], half[shown], color=CALIBRATED, alpha=0.25, lw=0,
                    label=rf"$\pm{factor:.2f}\,u_E$ ({100 * p:g} % interval)")
    out = outside[shown]
    ax.plot(rank[~out], e[shown][~out], ".", color="0.3", ms=1.5, mew=0, rasterized=True,
            label="error inside")
    n_out = int(outside.sum())
    ax.plot(rank[out], e[shown][out], ".", color=UNCALIBRATED, ms=3, mew=0, rasterized=True,
            label=f"outside: {n_out} of {e.size} = {100 * n_out / e.size:.1f} %\n"
            f"(expected {100 * (1 - p):.1f} %)")
    ax.axhline(0.0, color=panels.GUIDE, lw=0.6)
    ax.set_xlim(0.0, 100.0)
    limit = max(np.abs(ax.get_ylim()))
    ax.set_ylim(-limit, limit)
    ax.set_xlabel(r"points sorted by $u_E$ (rank, %)")
    ax.set_ylabel(_label("error E", units))
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, top + 0.25 * (top - bottom))
    ax.legend(loc="upper left", markerscale=3)
    return ax
