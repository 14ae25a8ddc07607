"""Reusable panels of the calibration-validation figures (primer and adaptivity papers).

Each function draws one panel on a given matplotlib Axes from results computed by the
library (``uqval.calibration.curves``, ``uqval.stats.running``, ``uqval.calibration.local``). Local statistics are
DataFrames with one row per bin and columns ``x, value, ci_low, ci_high, target, valid``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import Formatter, NullFormatter

from uqval.calibration.curves import (
    CalibrationCurve,
    ConditionalCalibrationCurves,
    ConfidenceCurve,
    ProbabilisticReference,
)
from uqval.plots.style import CALIBRATED, REFERENCE, UNCALIBRATED

GUIDE = "0.55"
RUNNING = "#ff7f0e"  # running-quantile lines ("orange lines" of the primer's Fig. 2 caption)
LEVEL_COLORS = ["#9467bd", "#2ca02c", "#ff7f0e", "#8c564b"]  # LCP levels: red/blue stay uncal/cal


DOMINANT_RATIO = 20.0
"""A panel of per-bin values gets a log y axis when the largest value it draws (an estimate
or the top of an interval) is more than this many times the median of the positive finite
estimates: on a linear axis the other bins would lie flat on it. One rule for every per-bin
figure (the report's LZMS, the comparison's LZMS overlays)."""


def one_bin_dominates(values: np.ndarray, highs: np.ndarray | None = None) -> bool:
    """The rule of :data:`DOMINANT_RATIO`: max(values, highs) > DOMINANT_RATIO x median of
    the positive finite ``values`` (at least two of them).

    >>> one_bin_dominates(np.array([1.0, 1.2, 0.9])), one_bin_dominates(np.array([1.0, 1.2, 40.0]))
    (False, True)
    >>> one_bin_dominates(np.array([1.0, 1.2, 0.9]), highs=np.array([1.5, 1.6, 90.0]))
    True
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size < 2:
        return False
    drawn = v
    if highs is not None:
        h = np.asarray(highs, dtype=np.float64)
        drawn = np.r_[v, h[np.isfinite(h) & (h > 0)]]
    return bool(drawn.max() > DOMINANT_RATIO * np.median(v))


def log_y_when_dominated(ax: Axes, values: np.ndarray, lows: np.ndarray, highs: np.ndarray,
                         target: float = 1.0) -> bool:
    """Apply :func:`one_bin_dominates` to a panel of per-bin values with intervals: when
    one bin dominates, a log y axis (readable ticks) whose bottom is half the smallest
    positive value drawn (estimates, interval lows, the target). Returns True when the axis
    is logarithmic (the caller says so in the axis label)."""
    if not one_bin_dominates(values, highs):
        return False
    ax.set_yscale("log")
    readable_log_ticks(ax)
    drawn = np.r_[np.asarray(values, float), np.asarray(lows, float), target]
    positive = drawn[np.isfinite(drawn) & (drawn > 0)]
    if positive.size:
        ax.set_ylim(bottom=0.5 * positive.min())
    return True


def use_log_x(ax: Axes, values: np.ndarray | pd.Series, wanted: bool = True) -> bool:
    """Log x axis when asked and the positive values span more than a decade (a narrower
    range reads better on a linear axis). Returns whether the axis is logarithmic."""
    v = np.asarray(values, dtype=float)
    log = bool(wanted and (v > 0).all() and v.max() / v.min() > 10)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    return log


class PlainLogFormatter(Formatter):
    """Tick labels of a log axis as plain numbers (0.05, 0.1, 2), powers of ten outside
    [1e-3, 1e4). Minor ticks are labelled when the view spans few decades (2 and 5 x 10^k
    under 2 decades, 2, 3, 5, 7 x 10^k under 0.6; all of matplotlib's linear fallback
    ticks of very narrow views), so that an axis spanning about one decade still carries
    several labels."""

    def __init__(self, minor: bool = False):
        self.minor = minor

    def __call__(self, x, pos=None):
        if not np.isfinite(x) or x <= 0:
            return ""
        lo, hi = sorted(self.axis.get_view_interval())
        decades = np.log10(hi) - np.log10(lo) if lo > 0 else np.inf  # hi / lo can overflow
        exponent = int(np.floor(np.log10(x) + 1e-9))
        mantissa = int(round(x / 10.0**exponent))
        on_grid = abs(x / 10.0**exponent - mantissa) < 1e-6  # 1..9 x 10^k (else: linear fallback ticks)
        if self.minor and on_grid:
            shown = (2, 3, 5, 7) if decades <= 0.6 else (2, 5) if decades <= 2.0 else ()
            if mantissa not in shown:
                return ""
        if 1e-3 <= x < 1e4 or not on_grid:
            return f"{x:.4g}"
        return f"${mantissa}\\times10^{{{exponent}}}$" if mantissa != 1 else f"$10^{{{exponent}}}$"


def readable_log_ticks(ax: Axes) -> None:
    """Plain-number tick labels (with minor labels over narrow ranges) on the log axes of ax."""
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(PlainLogFormatter())
            axis.set_minor_formatter(PlainLogFormatter(minor=True))


def square_parity(ax: Axes) -> None:
    """Same limits on both axes of a parity plot (reliability diagram), covering all drawn
    data with a small margin (multiplicative on log axes)."""
    (x0, y0), (x1, y1) = ax.dataLim.get_points()
    lo, hi = min(x0, y0), max(x1, y1)
    if ax.get_xscale() == "log":
        lo = lo if lo > 0 else min(v for v in (x0, y0) if v > 0)
        pad = (hi / lo) ** 0.04
        lo, hi = lo / pad, hi * pad
    else:
        pad = 0.04 * (hi - lo)
        lo, hi = lo - pad, hi + pad
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)


def calibration_curve(ax: Axes, curve: CalibrationCurve, color: str = CALIBRATED, label: str | None = None) -> None:
    """eta_p vs p with the identity, its 95 % band (dashed) and the shaded miscalibration area."""
    ax.plot([0, 1], [0, 1], color=REFERENCE, lw=0.8)
    ax.plot(curve.p, curve.band_low, "--", color=GUIDE, lw=0.8)
    ax.plot(curve.p, curve.band_high, "--", color=GUIDE, lw=0.8)
    ax.fill_between(curve.p, curve.p, curve.eta, color=color, alpha=0.2, lw=0)
    ax.plot(curve.p, curve.eta, color=color, label=label or f"area = {curve.area:.3f}")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="p", ylabel=r"$\eta_p$")
    ax.legend(loc="upper left")


def conditional_curves(ax: Axes, curves: ConditionalCalibrationCurves, label: str = "") -> None:
    """One thin curve per bin, the thick average curve and the per-bin 95 % band."""
    ax.plot([0, 1], [0, 1], color=REFERENCE, lw=0.8)
    ax.plot(curves.p, curves.band_low, "--", color=UNCALIBRATED, lw=0.8)
    ax.plot(curves.p, curves.band_high, "--", color=UNCALIBRATED, lw=0.8)
    for eta in curves.eta:
        ax.plot(curves.p, eta, color=CALIBRATED, lw=0.4, alpha=0.6)
    ax.plot(curves.p, curves.average, color=CALIBRATED, lw=2.0, label=label or None)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="p", ylabel=r"$\eta_p$ per bin")


def errors_vs_uncertainty(
    ax: Axes,
    uE: np.ndarray,
    E: np.ndarray,
    positions: np.ndarray,
    quantiles: np.ndarray,
    k_guides: Sequence[float] = (1, 2, 3),
    xlabel: str = r"$u_E$",
    ylabel: str = "E",
    log_x: bool = True,
) -> None:
    """E vs uE scatter with guide lines E = +-k uE and the running 2.5/97.5 % quantiles."""
    ax.scatter(uE, E, s=1, color=CALIBRATED, alpha=0.3, lw=0, rasterized=True)
    log_x = use_log_x(ax, uE, log_x)
    grid = np.geomspace(uE.min(), uE.max(), 100) if log_x else np.linspace(uE.min(), uE.max(), 100)
    for k in k_guides:
        ax.plot(grid, k * grid, ":", color=GUIDE, lw=0.8)
        ax.plot(grid, -k * grid, ":", color=GUIDE, lw=0.8)
    ax.plot(positions, quantiles[:, 0], color=RUNNING, lw=1.0)
    ax.plot(positions, quantiles[:, -1], color=RUNNING, lw=1.0, label="running 95 % range")
    lim = 1.2 * np.nanmax(np.abs(quantiles)) if np.isfinite(quantiles).any() else None
    if lim:
        ax.set_ylim(-max(lim, 3 * np.median(uE)), max(lim, 3 * np.median(uE)))
    ax.set(xlabel=xlabel, ylabel=ylabel)


def z_vs_variable(
    ax: Axes,
    x: np.ndarray,
    Z: np.ndarray,
    positions: np.ndarray,
    quantiles: np.ndarray,
    xlabel: str,
    log_x: bool = False,
    limit: float | None = 5.0,
    max_limit: float = 30.0,
) -> None:
    """Z vs a conditioning variable with guides Z = +-2 and running 95 % quantiles.

    The y range is +-limit; with ``limit=None`` it follows the data, +-max abs(Z) kept within
    [5, max_limit] (the authors' code lets R choose it and caps Case C at +-30)."""
    ax.scatter(x, Z, s=1, color=CALIBRATED, alpha=0.3, lw=0, rasterized=True)
    for g in (-2, 2):
        ax.axhline(g, ls=":", color=GUIDE, lw=0.8)
    ax.axhline(0, color=GUIDE, lw=0.6)
    ax.plot(positions, quantiles[:, 0], color=RUNNING, lw=1.0)
    ax.plot(positions, quantiles[:, -1], color=RUNNING, lw=1.0)
    use_log_x(ax, x, log_x)
    if limit is None:
        limit = float(np.clip(1.05 * np.nanmax(np.abs(Z)), 5.0, max_limit))
    ax.set(xlabel=xlabel, ylabel="Z", ylim=(-limit, limit))


def local_statistic(
    ax: Axes,
    local: pd.DataFrame,
    ylabel: str,
    xlabel: str,
    whole: tuple[float, float, float] | None = None,
    color: str = CALIBRATED,
    label: str | None = None,
    log_x: bool = False,
    offset: int = 0,
) -> None:
    """Per-bin values with 95 % intervals at the bin positions, the target line, and the
    whole-set value with its interval in the right margin (``whole`` = value, low, high).
    Bins whose interval misses the target are drawn with hollow markers."""
    ax.axhline(float(local["target"].iloc[0]), ls="--", color=REFERENCE, lw=0.8)
    ax.vlines(local["x"], local["ci_low"], local["ci_high"], color=color, lw=1.0)
    valid = local["valid"].to_numpy(bool)
    ax.plot(local["x"][valid], local["value"][valid], "o", color=color, ms=3, label=label)
    ax.plot(local["x"][~valid], local["value"][~valid], "o", mfc="white", mec=color, ms=3)
    use_log_x(ax, local["x"], log_x)
    if whole is not None:
        value, low, high = whole
        xm = 1.02 + 0.03 * offset
        ax.plot([xm, xm], [low, high], color=color, lw=2.0, transform=ax.get_yaxis_transform(), clip_on=False)
        ax.plot([xm], [value], "s", color=color, ms=3, transform=ax.get_yaxis_transform(), clip_on=False)
    ax.set(xlabel=xlabel, ylabel=ylabel)


def reliability_diagram(ax: Axes, rd: pd.DataFrame, color: str = CALIBRATED, label: str | None = None,
                        log: bool = True, unit: str = "") -> None:
    """RMSE vs RMV per bin with 95 % intervals and the identity line, on a square parity
    frame (same limits on both axes); several calls on one Axes overlay data sets. Log-log
    (with ``log``) when RMV spans more than a decade or one bin dominates
    (:func:`one_bin_dominates`)."""
    ax.vlines(rd["x"], rd["ci_low"], rd["ci_high"], color=color, lw=1.0)
    ax.plot(rd["x"], rd["value"], "o", color=color, ms=3, label=label)
    logged = use_log_x(ax, rd["x"], log)
    if (not logged and log and bool((rd["x"] > 0).all())
            and one_bin_dominates(rd["value"].to_numpy(float), rd["ci_high"].to_numpy(float))):
        ax.set_xscale("log")  # one bin dwarfs the others: log-log, as for a wide uE range
        ax.xaxis.set_minor_formatter(NullFormatter())
        logged = True
    if logged:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
    x0, x1 = float(rd["x"].min()), float(rd["x"].max())
    x1 = x1 if x1 > x0 else 2 * x0
    ax.axline((x0, x0), (x1, x1), ls="--", color=REFERENCE, lw=0.8)  # identity over the whole frame
    square_parity(ax)
    suffix = f" ({unit})" if unit else ""
    ax.set(xlabel=f"RMV{suffix}", ylabel=f"RMSE{suffix}")


def coverage(ax: Axes, lcp: pd.DataFrame, xlabel: str, whole: pd.DataFrame | None = None,
             log_x: bool = False, legend: bool = True) -> None:
    """Local coverage probability per bin for each level P (column ``prob``), target lines
    at P, and the average coverage (``whole``: one row per prob) in the right margin."""
    colors = LEVEL_COLORS
    for i, prob in enumerate(sorted(lcp["prob"].unique())):
        rows = lcp[lcp["prob"] == prob]
        margin = None
        if whole is not None:
            w = whole[whole["prob"] == prob].iloc[0]
            margin = (w["value"], w["ci_low"], w["ci_high"])
        local_statistic(ax, rows, "PICP", xlabel, whole=margin, color=colors[i % len(colors)],
                        label=f"P = {100 * prob:g} %", log_x=log_x, offset=i)
    ax.set_ylim(0, 1.05)
    if legend:
        ax.legend(loc="lower right", fontsize=6)


def confidence_curve(ax: Axes, cc: ConfidenceCurve, ref: ProbabilisticReference | None, ylabel: str,
                     oracle: bool = False, top_axis: bool = True) -> None:
    """Confidence curve c_S(k) with the probabilistic reference and its 95 % band (and the
    oracle if asked); the top axis shows the largest uncertainty u_k left after removing k %."""
    if ref is not None:
        ax.fill_between(ref.k, ref.low, ref.high, color=CALIBRATED, alpha=0.2, lw=0)
        ax.plot(ref.k, ref.mean, "--", color=CALIBRATED, label="probabilistic ref.")
    if oracle:
        ax.plot(cc.k, cc.oracle, ":", color=REFERENCE, label="oracle")
    ax.plot(cc.k, cc.values, color=CALIBRATED, label="data")
    ax.set(xlabel="k (% of largest $u_E$ removed)", ylabel=ylabel, xlim=(0, 100))
    ax.set_ylim(bottom=0)
    ax.legend(loc="best", fontsize=6)
    if top_axis:
        top = ax.secondary_xaxis("top")
        ticks = np.array([0, 20, 40, 60, 80, 99])
        top.set_xticks(ticks)
        top.set_xticklabels([f"{cc.u_k[np.searchsorted(cc.k, t)]:.2g}" for t in ticks], fontsize=6)
        top.set_xlabel(r"$u_k$", fontsize=7)
