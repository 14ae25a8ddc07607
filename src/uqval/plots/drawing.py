"""Drawing functions that only read: each draws a record of numbers already computed.

The records come from :mod:`uqval.plots.records`, :mod:`uqval.calibration` or the bins tables
of :func:`uqval.validate`; nothing here bins, resamples, simulates or fits. The one-call
plots of :mod:`uqval.plots.diagnostics` and :mod:`uqval.plots.reliability` compute a record
and call the function below; the validation report calls them on the records its engine
computed (:mod:`uqval.validation.figure_stage`), so that saving a report computes no
statistic.

=============================  ===========================================================
function                       draws (paper)
=============================  ===========================================================
draw_calibration_curve         eta_p vs p with the 95 % band around the identity (P000
                               Sect. III.2.1, Eq. 17)
draw_reliability_diagram       RMSE_b vs RMV_b per bin with intervals (P000 Sect. III.3.3)
draw_isotonic_reliability      PAV fit of E² on uE², consistency band, bootstrap interval
                               (:mod:`uqval.calibration.isotonic`)
bins_table_plot                a bins table: <Z²> (LZMS, target 1) or <Z> (LZM, target 0)
                               per bin with intervals, invalid bins shaded, f_v (P003
                               Sect. III.B.1-2)
draw_z_along                   Z against a feature with running 95 % quantiles (P000
                               Sect. III.4.1, P003 Fig. 2)
draw_confidence_curve          RMSE after removing the largest uE, probabilistic reference
                               (P000 Sect. III.3.6, Eqs. 18-21)
draw_ucc                       UCC of ±k uE against a constant band, AUUCC gain (P004
                               Sect. 2.3, Eq. 6; App. 9)
=============================  ===========================================================

Each takes ``ax`` (a new figure in the project style when None) and returns the Axes.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axes._secondary_axes import SecondaryAxis
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter

from uqval.calibration.curves import CalibrationCurve
from uqval.calibration.fraction_valid import FractionValid, fraction_valid
from uqval.plots import panels
from uqval.plots.records import (
    ConfidenceRecord,
    IsotonicRecord,
    UCCRecord,
    ZAlongRecord,
    log_axis,
)
from uqval.plots.style import CALIBRATED, REFERENCE, SHADE, UNCALIBRATED, figure, literal_text

__all__ = [
    "LOG_Y_RATIO",
    "BinsKind",
    "bins_table_plot",
    "draw_calibration_curve",
    "draw_confidence_curve",
    "draw_isotonic_reliability",
    "draw_reliability_diagram",
    "draw_ucc",
    "draw_z_along",
]

BinsKind = Literal["lzms", "lzm"]

LOG_Y_RATIO = panels.DOMINANT_RATIO
"""An LZMS figure has a log y axis when the largest value it draws (a bin's value or the top
of its interval) is more than this many times the median of the positive finite values: the
other bins would lie flat on the axis (:func:`uqval.plots.panels.one_bin_dominates`)."""

_COLUMNS: dict[str, tuple[str, str, str, str, float]] = {
    "lzms": ("value", "ci_low", "ci_high", "valid", 1.0),
    "lzm": ("mean_z", "mean_z_low", "mean_z_high", "mean_z_valid", 0.0),
}


def axes_or_new(ax: Axes | None, width: float = 3.6, height: float = 3.0) -> Axes:
    """``ax``, or the Axes of a new figure in the project style."""
    if ax is not None:
        return ax
    _, new = figure(1, 1, width=width, height=height)
    return new


def _label(text: str, units: str | None) -> str:
    return f"{text} ({literal_text(units)})" if units else text


def draw_calibration_curve(curve: CalibrationCurve, *, ax: Axes | None = None) -> Axes:
    """The calibration curve eta_p against p with the 95 % band of a binomial proportion
    around the identity and the shaded miscalibration area (P000 Sect. III.2.1, Eq. 17;
    :func:`uqval.calibration.curves.calibration_curve`)."""
    ax = axes_or_new(ax)
    panels.calibration_curve(ax, curve, label=f"data (miscalibration area {curve.area:.3f})")
    ax.plot([], [], "--", color=panels.GUIDE, lw=0.8, label="95 % band (calibrated)")
    ax.legend(loc="upper left")
    ax.set_xlabel("nominal probability p")
    ax.set_ylabel(r"observed fraction $\eta_p$ with $Z < \Phi^{-1}(p)$")
    return ax


def draw_reliability_diagram(table: pd.DataFrame, *, ax: Axes | None = None,
                             units: str | None = None, label: str | None = None) -> Axes:
    """RMSE_b against RMV_b per bin with 95 % intervals and the identity (P000
    Sect. III.3.3): a table of :func:`uqval.calibration.local.reliability_diagram` (columns
    x = RMV_b, value = RMSE_b, ci_low, ci_high). ``label`` names the bins in the legend
    (default "<n> bins of uE")."""
    ax = axes_or_new(ax)
    panels.reliability_diagram(ax, table, unit=units or "")
    handles = [
        Line2D([], [], marker="o", ls="-", color=CALIBRATED, ms=3,
               label=label or f"{len(table)} bins of $u_E$"),
        Line2D([], [], ls="--", color=REFERENCE, lw=0.8, label="calibrated (RMSE = RMV)"),
    ]
    ax.legend(handles=handles, loc="best")
    return ax


def draw_isotonic_reliability(record: IsotonicRecord, *, ax: Axes | None = None,
                              units: str | None = None) -> Axes:
    """The isotonic fit of E² on uE² against the diagonal, the shaded band of the fits of
    calibrated sets with the same uE, the bootstrap interval of the fit, and MCB (with its
    p-value) and DSC in the legend (:func:`uqval.plots.reliability.isotonic_reliability_plot`).
    Both axes in uE² units (``units`` are those of E and uE), logarithmic when uE² spans more
    than two decades."""
    ax = axes_or_new(ax, height=3.2)
    r = record
    level = f"{100 * r.confidence:.0f} %"
    ax.fill_between(r.x, r.band_low, r.band_high, color=CALIBRATED, alpha=0.22,
                    lw=0, label=f"{level} of calibrated fits ({r.n_sim} simulated sets)")
    ax.plot(r.x, r.x, "--", color=REFERENCE, lw=0.8, label=r"calibrated: $E[E^2|u_E^2] = u_E^2$")
    d = r.decomposition
    ax.plot(r.x, r.fitted, color=UNCALIBRATED, lw=1.5, drawstyle="steps-post",
            label=f"isotonic fit: MCB {d.miscalibration:.3g} (p = {d.p_value:.2g}), "
            f"DSC {d.discrimination:.3g}")
    for i, values in enumerate((r.ci_low, r.ci_high)):
        ax.plot(r.x, values, color=UNCALIBRATED, lw=0.6, alpha=0.8,
                label=f"{level} bootstrap interval of the fit" if i == 0 else None)
    if r.log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        panels.readable_log_ticks(ax)
        lowest = 0.5 * min(r.lowest, r.x[0])
        ax.set_ylim(bottom=max(lowest, 1e-3 * r.x[0]))  # at most 3 decades below the data
    else:
        ax.set_xlim(0.0, None)
        ax.set_ylim(0.0, None)
    squared = f" ({units}²)" if units else ""
    ax.set_xlabel(rf"$u_E^2${squared}")
    ax.set_ylabel(rf"mean of $E^2$ given $u_E^2${squared}")
    ax.legend(loc="upper left", fontsize=6.5)
    low, top = ax.get_ylim()
    if not r.log:  # room for the legend (on log axes the upper left stays empty)
        ax.set_ylim(low, top + 0.2 * (top - low))
    return ax


def _spans(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Edges of the x range each bin covers; neighbours meet half-way between them."""
    return np.concatenate([[low[0]], 0.5 * (high[:-1] + low[1:]), [high[-1]]])


def bins_table_plot(
    table: pd.DataFrame,
    kind: BinsKind = "lzms",
    *,
    ax: Axes | None = None,
    x_name: str = "uncertainty",
    whole: tuple[float, float, float] | None = None,
    log_x: bool | None = None,
    fv: FractionValid | None = None,
) -> Axes:
    """Draw a bins table: one point per bin with its 95 % interval (P003 Sect. III.B.1-2).

    ``kind="lzms"``: <Z²> per bin (columns value, ci_low, ci_high, valid; target 1);
    ``kind="lzm"``: <Z> per bin (mean_z, mean_z_low, mean_z_high, mean_z_valid; target 0),
    the columns of the ``bins`` tables of :func:`uqval.validate` (and of ``bins_<name>.csv``).
    Each bin sits at the mid-range of its [low, high] span (a binary feature shows two bins,
    at 0 and 1); bins whose interval misses the target are red with their x range shaded
    (neighbouring spans meet half-way). The legend gives the fraction of valid bins f_v with
    its Wilson-cc interval (``fv``, computed from the valid column when None) and, with
    ``whole`` = (value, ci_low, ci_high), the statistic of all rows.

    ``log_x``: log x axis (None: when the bins' low and high values are positive, span more
    than a decade and spread more evenly on a log scale). LZMS: when one bin dwarfs the
    others (its value or the top of its interval > :data:`LOG_Y_RATIO` x median of the
    positive finite values, :func:`uqval.plots.panels.one_bin_dominates`) the y axis is
    logarithmic, so that the other bins do not lie flat on it; the axis label says
    so. ``x_name`` labels the x axis (put a feature's units in it).

    >>> table = pd.DataFrame({"low": [0.0, 1.0], "high": [0.0, 1.0], "n": [957, 1043],
    ...                       "value": [0.98, 1.6], "ci_low": [0.9, 1.4], "ci_high": [1.1, 1.8],
    ...                       "valid": [True, False]})
    >>> ax = bins_table_plot(table, "lzms", x_name="binary feature")
    >>> sorted(float(x) for line in ax.get_lines() if line.get_marker() == "o"
    ...        for x in line.get_xdata())
    [0.0, 1.0]
    """
    if kind not in _COLUMNS:
        raise ValueError(f"kind must be 'lzms' or 'lzm', got {kind!r}")
    name_value, name_low, name_high, name_valid, target = _COLUMNS[kind]
    if table.empty:
        raise ValueError("the bins table holds no bins")
    low_x = table["low"].to_numpy(np.float64)
    high_x = table["high"].to_numpy(np.float64)
    value = table[name_value].to_numpy(np.float64)
    ci_low = table[name_low].to_numpy(np.float64)
    ci_high = table[name_high].to_numpy(np.float64)
    valid = table[name_valid].to_numpy(bool)
    if fv is None:
        fv = fraction_valid(pd.DataFrame({"valid": valid}))
    ax = axes_or_new(ax)
    positions = 0.5 * (low_x + high_x)
    spans = _spans(low_x, high_x)
    for i in np.flatnonzero(~valid):
        ax.axvspan(spans[i], spans[i + 1], color=SHADE, alpha=0.45, lw=0, zorder=0)
    ax.axhline(target, ls="--", color=REFERENCE, lw=0.8)
    for ok, color in ((valid, CALIBRATED), (~valid, UNCALIBRATED)):
        ax.vlines(positions[ok], ci_low[ok], ci_high[ok], color=color, lw=1.0)
        ax.plot(positions[ok], value[ok], "o", color=color, ms=3)
    if log_x is None:
        log_x = log_axis(np.r_[low_x, high_x])
    if log_x:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        panels.readable_log_ticks(ax)
    if kind == "lzms":
        ylabel, statistic = r"LZMS $\langle Z^2\rangle$ per bin", "ZMS"
    else:
        ylabel, statistic = r"LZM $\langle Z\rangle$ per bin", "<Z>"
    log_y = kind == "lzms" and panels.log_y_when_dominated(ax, value, ci_low, ci_high, target)
    if log_y:
        ylabel += " (log scale)"
    elif kind == "lzms":
        ax.set_ylim(bottom=0.0)
    ax.set(xlabel=x_name, ylabel=ylabel)
    target_label = f"target {target:g}"
    if whole is not None:
        target_label += (f"; all points {statistic} = {whole[0]:.2f} "
                         f"[{whole[1]:.2f}, {whole[2]:.2f}]")
    handles: list[Artist] = [
        Line2D([], [], marker="o", ls="none", color=CALIBRATED, ms=3,
               label=f"valid bin ({fv.n_valid} of {fv.n_bins}, "
               f"$f_v$ = {fv.value:.2f} [{fv.ci_low:.2f}, {fv.ci_high:.2f}])"),
        Line2D([], [], marker="o", ls="none", color=UNCALIBRATED, ms=3,
               label=f"interval misses {target:g}"),
        Line2D([], [], ls="--", color=REFERENCE, lw=0.8, label=target_label),
    ]
    if not valid.all():
        handles.append(Patch(color=SHADE, alpha=0.45, lw=0, label="x range of invalid bins"))
    ax.legend(handles=handles, loc="upper left", fontsize=6.5)
    bottom, top = ax.get_ylim()
    if log_y:  # room for the legend above the bins, in decades
        ax.set_ylim(bottom, top * (top / bottom) ** 0.3)
    else:
        ax.set_ylim(bottom, top + 0.3 * (top - bottom))
    return ax


def draw_z_along(record: ZAlongRecord, *, ax: Axes | None = None,
                 x_name: str = "feature") -> Axes:
    """Z = E/uE against a feature with the running 2.5 % and 97.5 % quantiles (P000
    Sect. III.4.1, Figs 2 and 8; P003 Fig. 2), dotted guides at ±2; y range ±max abs(Z) of
    the points drawn, within [5, 30]: points beyond it are drawn as red triangles at the
    edge and counted in the legend."""
    ax = axes_or_new(ax)
    r = record
    panels.z_vs_variable(ax, r.x, r.z, r.positions, r.quantiles, x_name, log_x=r.log_x,
                         limit=None)
    if ax.get_xscale() == "log":
        panels.readable_log_ticks(ax)
    ax.set_ylabel(r"$Z = E/u_E$")
    handles: list[Artist] = [
        Line2D([], [], ls="-", color=panels.RUNNING, label="running 2.5 % and 97.5 % quantiles"),
        Line2D([], [], ls=":", color=panels.GUIDE, label=r"$Z = \pm 2$ (about 95 % if calibrated)"),
    ]
    limit = ax.get_ylim()[1]
    up, down = r.z > limit, r.z < -limit  # clipped by the axis: drawn at its edge, counted
    for hit, sign, marker in ((up, 1.0, "^"), (down, -1.0, "v")):
        if hit.any():
            ax.scatter(r.x[hit], np.full(int(hit.sum()), 0.97 * sign * limit), marker=marker,
                       s=12, color=UNCALIBRATED, lw=0, zorder=3)
    if (up | down).any():
        handles.append(Line2D([], [], marker="^", ls="none", color=UNCALIBRATED, ms=4,
                              label=f"{int((up | down).sum())} beyond ±{limit:.0f} (at the "
                              "edge)"))
    ax.legend(handles=handles, loc="upper left", fontsize=6.5)
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, top + 0.25 * (top - bottom))  # room for the legend above the points
    return ax


def draw_confidence_curve(record: ConfidenceRecord, *, ax: Axes | None = None,
                          units: str | None = None) -> Axes:
    """The confidence curve (RMSE of the points left after removing the k % largest uE)
    with its probabilistic reference and 95 % band (P000 Sect. III.3.6, Eqs. 18-21); the top
    axis shows the largest uE left."""
    ax = axes_or_new(ax)
    panels.confidence_curve(ax, record.curve, record.reference,
                            ylabel=_label("RMSE of the points left", units))
    top = next(c for c in ax.child_axes if isinstance(c, SecondaryAxis))
    top.set_xlabel(_label(r"largest $u_E$ left", units), fontsize=7)
    return ax


_UCC_NAMES = {"miss_rate": "miss rate", "bandwidth": "mean half-width", "excess": "mean excess",
              "deficit": "mean deficit"}


def draw_ucc(record: UCCRecord, *, ax: Axes | None = None, units: str | None = None) -> Axes:
    """The UCCs of the band ±k uE and of a constant band with their areas and the gain G in
    the legend (P004 Sect. 2.3, Eq. 6; App. 9, Eqs. 8-9 for the excess-deficit axes). On
    excess or bandwidth x axes the range stops where both curves have come down to 1 % of
    their start."""
    ax = axes_or_new(ax)
    r = record
    for x, y, color, ls, name, area in (
        (r.constant_x, r.constant_y, UNCALIBRATED, "--", "constant band", r.auucc_constant),
        (r.model_x, r.model_y, CALIBRATED, "-", r"band $\pm k\,u_E$", r.auucc_model),
    ):
        ax.plot(x, y, ls, color=color, label=f"{name} (AUUCC {area:.3g})")
    ax.plot([], [], " ", label=f"gain {r.gain_percent:+.1f} %")
    if r.ends and r.x_axis in ("excess", "bandwidth"):
        ax.set_xlim(0.0, 1.1 * max(r.ends))
    ax.set_ylim(bottom=0.0)
    names = _UCC_NAMES
    ax.set_xlabel(names[r.x_axis] if r.x_axis == "miss_rate" else _label(names[r.x_axis], units))
    ax.set_ylabel(names[r.y_axis] if r.y_axis == "miss_rate" else _label(names[r.y_axis], units))
    ax.legend(loc="upper right")
    return ax
