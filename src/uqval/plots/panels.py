"""Reusable panels of the calibration-validation figures (primer and adaptivity papers).

Each function draws one panel on a given matplotlib Axes from results computed by the
library (``uqval.curves``, ``uqval.running``, ``uqval.conditional``). Local statistics are
DataFrames with one row per bin and columns ``x, value, ci_low, ci_high, target, valid``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import NullFormatter

from uqval.curves import (
    CalibrationCurve,
    ConditionalCalibrationCurves,
    ConfidenceCurve,
    ProbabilisticReference,
)
from uqval.plots.style import CALIBRATED, REFERENCE, UNCALIBRATED

GUIDE = "0.55"


def use_log_x(ax: Axes, values: np.ndarray | pd.Series, wanted: bool = True) -> bool:
    """Log x axis when asked and the positive values span more than a decade (a narrower
    range reads better on a linear axis). Returns whether the axis is logarithmic."""
    v = np.asarray(values, dtype=float)
    log = bool(wanted and (v > 0).all() and v.max() / v.min() > 10)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    return log


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
    ax.plot(positions, quantiles[:, 0], color=UNCALIBRATED, lw=1.0)
    ax.plot(positions, quantiles[:, -1], color=UNCALIBRATED, lw=1.0, label="running 95 % range")
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
    limit: float = 5.0,
) -> None:
    """Z vs a conditioning variable with guides Z = +-2 and running 95 % quantiles."""
    ax.scatter(x, Z, s=1, color=CALIBRATED, alpha=0.3, lw=0, rasterized=True)
    for g in (-2, 2):
        ax.axhline(g, ls=":", color=GUIDE, lw=0.8)
    ax.axhline(0, color=GUIDE, lw=0.6)
    ax.plot(positions, quantiles[:, 0], color=UNCALIBRATED, lw=1.0)
    ax.plot(positions, quantiles[:, -1], color=UNCALIBRATED, lw=1.0)
    use_log_x(ax, x, log_x)
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
    """RMSE vs RMV per bin with 95 % intervals and the identity line."""
    lo = min(rd["x"].min(), rd["ci_low"].min())
    hi = max(rd["x"].max(), rd["ci_high"].max())
    ax.plot([lo, hi], [lo, hi], "--", color=REFERENCE, lw=0.8)
    ax.vlines(rd["x"], rd["ci_low"], rd["ci_high"], color=color, lw=1.0)
    ax.plot(rd["x"], rd["value"], "o", color=color, ms=3, label=label)
    if use_log_x(ax, rd["x"], log):
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
    suffix = f" ({unit})" if unit else ""
    ax.set(xlabel=f"RMV{suffix}", ylabel=f"RMSE{suffix}")


def coverage(ax: Axes, lcp: pd.DataFrame, xlabel: str, whole: pd.DataFrame | None = None,
             log_x: bool = False, legend: bool = True) -> None:
    """Local coverage probability per bin for each level P (column ``prob``), target lines
    at P, and the average coverage (``whole``: one row per prob) in the right margin."""
    colors = [CALIBRATED, UNCALIBRATED, "#2ca02c", "#ff7f0e"]
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
        ax.fill_between(ref.k, ref.low, ref.high, color=UNCALIBRATED, alpha=0.2, lw=0)
        ax.plot(ref.k, ref.mean, "--", color=UNCALIBRATED, label="probabilistic ref.")
    if oracle:
        ax.plot(cc.k, cc.oracle, ":", color=REFERENCE, label="oracle")
    ax.plot(cc.k, cc.values, color=CALIBRATED, label="data")
    ax.set(xlabel="k (% of largest $u_E$ removed)", ylabel=ylabel, xlim=(0, 100))
    ax.legend(loc="upper right", fontsize=6)
    if top_axis:
        top = ax.secondary_xaxis("top")
        ticks = np.array([0, 20, 40, 60, 80, 99])
        top.set_xticks(ticks)
        top.set_xticklabels([f"{cc.u_k[np.searchsorted(cc.k, t)]:.2g}" for t in ticks], fontsize=6)
        top.set_xlabel(r"$u_k$", fontsize=7)
