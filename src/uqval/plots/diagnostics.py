"""One-call diagnostic plots of errors and uncertainties.

Each function takes ``(errors, uncertainties, ...)`` as NumPy arrays or pandas Series,
computes the record of its figure (the numbers come from the core modules
:mod:`uqval.calibration.curves`, :mod:`uqval.calibration.local`, :mod:`uqval.binning`,
:mod:`uqval.stats.running`, :mod:`uqval.ucc`, through :mod:`uqval.plots.records`) and draws it
with the matching function of :mod:`uqval.plots.drawing`, which only reads (the validation
report draws the records its engine computed with the same functions). It draws on ``ax``
(a new figure in the project style when ``ax`` is None) and returns the Axes. Z = E/uE
throughout.

=============================  ===========================================================
function                       what it shows (paper)
=============================  ===========================================================
calibration_curve_plot         eta_p vs p with the 95 % band around the identity (P000
                               Sect. III.2.1, Eq. 17)
reliability_diagram_plot       RMSE vs RMV per equal-count bin of uE (P000 Sect. III.3.3)
local_zms_plot                 <Z^2> per bin along uE or a feature, invalid bins shaded
                               (P003 Sect. III.B.1-2)
local_zm_plot                  <Z> per bin along uE or a feature (P003 Sect. III.B.1)
z_vs_feature_plot              Z against a feature with running 95 % quantiles (P000
                               Sect. III.4.1, P003 Fig. 2)
confidence_curve_plot          RMSE after removing the largest uE, with the probabilistic
                               reference (P000 Sect. III.3.6, Eqs. 18-21)
ucc_plot                       UCC of the band +-k uE against a constant band, AUUCC gain
                               (P004 Sect. 2.3, Eq. 6; App. 9 excess-deficit axes)
intervals_plot                 prediction intervals +-Q((1+P)/2) uE ordered by uE (P000
                               Sect. III.3.5)
=============================  ===========================================================

Large data sets stay fast and light (a million points draw in seconds; details in
:mod:`uqval.plots.records`): scatter plots show at most :data:`MAX_SCATTER` points at evenly
spaced ranks of x, running quantiles are evaluated for at most :data:`MAX_WINDOWS` windows,
the confidence-curve reference is simulated on at most :data:`MAX_REFERENCE` uncertainties,
UCCs are drawn through at most :data:`MAX_LINE` vertices; statistics, areas, gains and legend
counts use all points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import integer, probability, vector
from uqval._internal.types import FloatArray
from uqval.binning import equal_count_bins, sqrt_bin_count
from uqval.calibration.coverage import interval_half_widths
from uqval.calibration.curves import P_GRID_DEFAULT, calibration_curve
from uqval.calibration.local import (
    ZmsMethod,
    global_zmean,
    global_zms,
    local_zmean,
    local_zms,
    reliability_diagram,
)
from uqval.plots import panels
from uqval.plots.drawing import (
    BinsKind,
    axes_or_new,
    bins_table_plot,
    draw_calibration_curve,
    draw_confidence_curve,
    draw_reliability_diagram,
    draw_ucc,
    draw_z_along,
)
from uqval.plots.records import (
    MAX_LINE,
    MAX_REFERENCE,
    MAX_SCATTER,
    MAX_WINDOWS,
    confidence_record,
    evenly_spaced,
    log_axis,
    scatter_subset,
    ucc_record,
    z_along_record,
)
from uqval.plots.style import CALIBRATED, UNCALIBRATED
from uqval.ucc import Axis

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


# --- the plots ----------------------------------------------------------------------------


def calibration_curve_plot(errors: ArrayLike, uncertainties: ArrayLike, *, ax: Axes | None = None
                           ) -> Axes:
    """Calibration curve: eta_p = (1/M) sum_i 1(Z_i < Phi^-1(p)) against p (P000 Eq. 17).

    Normal quantiles on the grid p = 0.005, ..., 0.995; the dashed lines are the 95 %
    Wilson band of a binomial proportion p with M trials around the identity, the shaded
    area the miscalibration area (:func:`uqval.calibration.curves.calibration_curve`; drawn
    by :func:`uqval.plots.drawing.draw_calibration_curve`). A curve below
    the identity at small p and above it at large p means errors larger than the
    uncertainties say (too small uE); the reverse means uE too large.
    """
    e, u = _inputs(errors, uncertainties)
    return draw_calibration_curve(calibration_curve(e, u, p=P_GRID_DEFAULT), ax=ax)


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
    ``method="auto"``; drawn by :func:`uqval.plots.drawing.draw_reliability_diagram`).
    Calibrated points lie on the identity; points above it are bins
    whose uncertainties are too small. Log axes when RMV spans more than a decade.
    """
    e, u = _inputs(errors, uncertainties)
    default = max(min(e.size // 150, RELIABILITY_MAX_BINS), 2)
    n = _bin_count(n_bins, default, e.size, 2)
    rd = reliability_diagram(e, u, equal_count_bins(u, n), method="auto", seed=seed)
    return draw_reliability_diagram(rd, ax=ax, units=units, label=f"{n} bins of $u_E$")


def _bins_table(xv: FloatArray, bins: list[NDArray[np.intp]], local: pd.DataFrame,
                kind: BinsKind) -> pd.DataFrame:
    """A local table as the columns of a validation bins table (low, high, n and the
    statistic's columns) that :func:`uqval.plots.drawing.bins_table_plot` draws."""
    names = ("value", "ci_low", "ci_high", "valid") if kind == "lzms" else (
        "mean_z", "mean_z_low", "mean_z_high", "mean_z_valid")
    table = pd.DataFrame({"low": [float(xv[b].min()) for b in bins],
                          "high": [float(xv[b].max()) for b in bins],
                          "n": local["n"].to_numpy()})
    for name, column in zip(names, ("value", "ci_low", "ci_high", "valid"), strict=True):
        table[name] = local[column].to_numpy()
    return table


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
    scale (a skewed uE, not a uniform feature); the y axis when one bin dwarfs the others
    (:func:`uqval.plots.drawing.bins_table_plot`, which draws the bins). ``units`` labels
    the x axis when x is uE; for a feature, put its units in ``x_name`` (e.g.
    "temperature (K)").
    """
    e, u = _inputs(errors, uncertainties, min_points=4)
    xv = u if x is None else _conditioning(x, e.size, "x")
    n = _bin_count(n_bins, min(sqrt_bin_count(e.size), LZMS_MAX_BINS), e.size, 2)
    bins = equal_count_bins(xv, n)
    local = local_zms(e, u, xv, bins, method=method, seed=seed)
    whole = global_zms(e, u, seed=seed).iloc[0]
    xlabel = _label(r"uncertainty $u_E$", units) if x is None else x_name
    return bins_table_plot(_bins_table(xv, bins, local, "lzms"), "lzms", ax=ax, x_name=xlabel,
                           whole=(whole["value"], whole["ci_low"], whole["ci_high"]),
                           log_x=log_axis(xv))


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
    as in :func:`local_zms_plot` (linear y axis).
    """
    e, u = _inputs(errors, uncertainties, min_points=4)
    xv = u if x is None else _conditioning(x, e.size, "x")
    n = _bin_count(n_bins, min(sqrt_bin_count(e.size), LZMS_MAX_BINS), e.size, 2)
    bins = equal_count_bins(xv, n)
    local = local_zmean(e, u, xv, bins)
    whole = global_zmean(e, u).iloc[0]
    xlabel = _label(r"uncertainty $u_E$", units) if x is None else x_name
    return bins_table_plot(_bins_table(xv, bins, local, "lzm"), "lzm", ax=ax, x_name=xlabel,
                           whole=(whole["value"], whole["ci_low"], whole["ci_high"]),
                           log_x=log_axis(xv))


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
    module docstring for large M; :func:`uqval.plots.records.z_along_record`, drawn by
    :func:`uqval.plots.drawing.draw_z_along`). Scatter thinned to :data:`MAX_SCATTER`
    points; y range +-max abs(Z) within [5, 30].
    """
    e, u = _inputs(errors, uncertainties)
    xv = _conditioning(feature, e.size, "feature")
    record = z_along_record(e / u, xv, max_scatter=MAX_SCATTER, max_windows=MAX_WINDOWS)
    return draw_z_along(record, ax=ax, x_name=feature_name)


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
    largest uE left. For M > :data:`MAX_REFERENCE` see the module docstring
    (:func:`uqval.plots.records.confidence_record`; drawn by
    :func:`uqval.plots.drawing.draw_confidence_curve`).
    """
    e, u = _inputs(errors, uncertainties)
    if int(n_mc) != n_mc or n_mc < 2:
        raise ValueError(f"n_mc must be an integer of at least 2, got {n_mc!r}")
    record = confidence_record(e, u, seed=seed, n_mc=int(n_mc), max_reference=MAX_REFERENCE)
    return draw_confidence_curve(record, ax=ax, units=units)


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
    start (:func:`uqval.plots.records.ucc_record`; drawn by
    :func:`uqval.plots.drawing.draw_ucc`).
    """
    e, u = _inputs(errors, uncertainties)
    record = ucc_record(e, u, x_axis=x_axis, y_axis=y_axis, max_line=MAX_LINE)
    return draw_ucc(record, ax=ax, units=units)


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
    ax = axes_or_new(ax)
    half = interval_half_widths(u, [p])[:, 0]
    order = np.argsort(u, kind="stable")
    outside = np.abs(e) > half
    ranks = evenly_spaced(e.size, MAX_SCATTER)
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
