"""Overlay plots of several models' uncertainties on one Axes (the comparison report).

Each function takes ``models``, a mapping name -> (errors, uncertainties) as arrays or pandas
Series (the same points for every model, e.g. the models of :func:`uqval.compare`), draws
one curve per model in the colours of :data:`uqval.plots.style.PALETTE` on ``ax`` (a new
figure in the project style when ``ax`` is None) and returns the Axes.

==============================  ==========================================================
function                        what it shows (paper)
==============================  ==========================================================
calibration_curves_plot         eta_p against p per model, with the 95 % band of the
                                identity (P000 Sect. III.2.1, Eq. 17)
ucc_curves_plot                 UCC of each model's band +-k uE with its AUUCC (P004
                                Sect. 2.3, Eq. 5)
lzms_curves_plot                <Z^2> per equal-count bin of each model's uE or of a
                                feature, with 95 % intervals (P003 Sect. III.B.1-2)
murphy_diagram_plot             mean elementary scores of the variance forecasts uE²
                                against the threshold (Ehm et al. 2016), from a
                                :class:`uqval.scores.murphy.MurphyDiagram`
==============================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.binning import equal_count_bins, sqrt_bin_count
from uqval.calibration.curves import P_GRID_DEFAULT, calibration_curve
from uqval.calibration.local import local_zms
from uqval.plots import panels
from uqval.plots.diagnostics import MAX_LINE
from uqval.plots.records import curve_end
from uqval.plots.style import PALETTE, REFERENCE, figure, literal_text
from uqval.scores._input import check_inputs, check_vector
from uqval.scores.murphy import MurphyDiagram
from uqval.ucc import Axis, PredictionIntervals, auucc, ucc_curve

__all__ = ["MAX_OVERLAY_BINS", "calibration_curves_plot", "lzms_curves_plot",
           "murphy_diagram_plot", "ucc_curves_plot"]

MAX_OVERLAY_BINS = 20
"""Upper limit of the default number of LZMS bins per model (several models share the Axes)."""

Models = Mapping[str, tuple[ArrayLike, ArrayLike]]

_AXIS_NAMES = {"miss_rate": "miss rate", "bandwidth": "mean half-width",
               "excess": "mean excess", "deficit": "mean deficit"}


def _checked(models: Models) -> dict[str, tuple[FloatArray, FloatArray]]:
    if len(models) < 1:
        raise ValueError("models must hold at least one model")
    out = {}
    for name, pair in models.items():
        try:
            out[str(name)] = check_inputs(*pair)
        except ValueError as err:
            raise ValueError(f"models[{name!r}]: {err}") from None
    return out


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    _, new = figure(1, 1, width=4.2, height=3.3)
    return new


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _style(i: int) -> str:
    """Line style of model i: curves that coincide (e.g. UCCs of uE and 2 uE) stay visible."""
    return ("-", "--", ":", "-.")[i % 4]


def _label(text: str, units: str | None) -> str:
    return f"{text} ({units})" if units else text


def calibration_curves_plot(models: Models, *, ax: Axes | None = None) -> Axes:
    """Calibration curves eta_p = (1/M) sum_i 1(Z_i < Phi^-1(p)) of every model (P000 Eq. 17).

    Normal quantiles on p = 0.005, ..., 0.995 (:func:`uqval.calibration.curves.calibration_curve`); the
    dashed lines are the 95 % Wilson band of the identity for the number of points of the
    first model. The legend gives each miscalibration area (P000 Fig. 1).
    """
    data = _checked(models)
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color=REFERENCE, lw=0.8)
    for i, (name, (e, u)) in enumerate(data.items()):
        curve = calibration_curve(e, u, p=P_GRID_DEFAULT)
        if i == 0:
            for band in (curve.band_low, curve.band_high):
                ax.plot(curve.p, band, "--", color=panels.GUIDE, lw=0.8)
            ax.plot([], [], "--", color=panels.GUIDE, lw=0.8, label="95 % band (calibrated)")
        ax.plot(curve.p, curve.eta, color=_color(i), lw=1.2,
                label=f"{literal_text(str(name))} (area {curve.area:.3f})")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="nominal probability p",
           ylabel=r"observed fraction $\eta_p$ with $Z < \Phi^{-1}(p)$")
    ax.legend(loc="upper left", fontsize=7)
    return ax


def ucc_curves_plot(
    models: Models,
    *,
    ax: Axes | None = None,
    units: str | None = None,
    x_axis: Axis = "bandwidth",
    y_axis: Axis = "miss_rate",
) -> Axes:
    """UCC of every model's band +-k uE, scaled by every k > 0 (P004 Sect. 2.3).

    Default coordinates mean half-width against miss rate, those of the AUUCC permutation
    test of :func:`uqval.compare` (:func:`uqval.ucc.auucc_permutation_test`); the legend gives
    each AUUCC (trapezoid rule, P004 Eq. 5), smaller is better. On excess or bandwidth x
    axes the range stops at 1.1 times the largest x where a curve has come down to 1 % of its
    drop (:func:`uqval.plots.records.curve_end`), so that one model's long tail does not
    squeeze the others against the axis. ``units`` (of the errors)
    labels axes measured in error units. Curves are drawn through at most
    :data:`uqval.plots.diagnostics.MAX_LINE` evenly spaced vertices.
    """
    data = _checked(models)
    ax = _axes(ax)
    ends: list[float] = []
    for i, (name, (e, u)) in enumerate(data.items()):
        curve = ucc_curve(e, PredictionIntervals.from_uncertainty(np.zeros(e.size), u),
                          x_axis, y_axis)
        shown = np.unique(np.linspace(0, curve.x.size - 1, min(curve.x.size, MAX_LINE))
                          .round().astype(int))
        ax.plot(curve.x[shown], curve.y[shown], _style(i), color=_color(i), lw=1.2,
                label=f"{literal_text(str(name))} (AUUCC {auucc(curve):.3g})")
        end = curve_end(curve.x, curve.y)
        if end is not None:
            ends.append(end)
    if ends and x_axis in ("excess", "bandwidth"):  # as the report's UCC (draw_ucc)
        ax.set_xlim(0.0, 1.1 * max(ends))
    ax.set_xlim(left=0.0)
    ax.set_ylim(bottom=0.0)
    for setter, axis in ((ax.set_xlabel, x_axis), (ax.set_ylabel, y_axis)):
        setter(_AXIS_NAMES[axis] if axis == "miss_rate" else _label(_AXIS_NAMES[axis], units))
    ax.legend(loc="upper right", fontsize=7)
    return ax


def lzms_curves_plot(
    models: Models,
    x: ArrayLike | None = None,
    *,
    x_name: str | None = None,
    n_bins: int | None = None,
    ax: Axes | None = None,
    seed: int = 0,
    units: str | None = None,
) -> Axes:
    """Local ZMS, LZMS_b = <Z^2>_b per equal-count bin, of every model (P003 Sect. III.B).

    Bins of each model's own uE (consistency; x None) or of the feature ``x`` shared by the
    models (adaptivity). Default round(sqrt(M)) bins (P003 Sect. III.B.3.a), at most
    :data:`MAX_OVERLAY_BINS`; 95 % intervals from
    :func:`uqval.calibration.local.local_zms` (``method="auto"``, seeded). Each point sits at the
    mid-range of its bin, the models slightly shifted apart so that their intervals do not
    overlap; target 1 (dashed). The x axis is logarithmic when positive x values span more
    than a decade.
    """
    data = _checked(models)
    m = next(iter(data.values()))[0].size
    xv = None if x is None else check_vector(x, "x")
    if xv is not None and xv.size != m:
        raise ValueError(f"x has {xv.size} values, the models {m}")
    n = n_bins if n_bins is not None else min(sqrt_bin_count(m), MAX_OVERLAY_BINS)
    if int(n) != n or not 2 <= n <= m // 2:
        raise ValueError(f"n_bins must be an integer in [2, M/2], got {n_bins!r}")
    xs = {name: (u if xv is None else xv) for name, (e, u) in data.items()}
    for name, (e, _) in data.items():
        if e.size != m:
            raise ValueError(f"models[{name!r}] has {e.size} points, the first model {m}")
    ax = _axes(ax)
    log = panels.use_log_x(ax, np.concatenate(list(xs.values())), True)
    if log:
        panels.readable_log_ticks(ax)
    ax.axhline(1.0, ls="--", color=REFERENCE, lw=0.8, label="target 1")
    spread = 0.3 / max(1, len(data) - 1)
    drawn: list[np.ndarray] = [np.array([]), np.array([]), np.array([])]
    for i, (name, (e, u)) in enumerate(data.items()):
        xm = xs[name]
        local = local_zms(e, u, xm, equal_count_bins(xm, int(n)), method="auto", seed=seed)
        mid = local["x"].to_numpy()
        t = np.log(mid) if log else mid
        step = np.gradient(t) if t.size > 1 else np.ones(1)
        t = t + (i - (len(data) - 1) / 2) * spread * step
        pos = np.exp(t) if log else t
        ax.vlines(pos, local["ci_low"], local["ci_high"], color=_color(i), lw=0.8)
        ax.plot(pos, local["value"], "o-", color=_color(i), ms=3, lw=0.6, label=name)
        drawn = [np.r_[old, local[c].to_numpy(float)]
                 for old, c in zip(drawn, ("value", "ci_low", "ci_high"), strict=True)]
    ylabel = r"LZMS $\langle Z^2\rangle$ per bin"
    if panels.log_y_when_dominated(ax, drawn[0], drawn[1], drawn[2], target=1.0):
        ylabel += " (log scale)"
    else:
        ax.set_ylim(bottom=0.0)
    xlabel = _label(r"uncertainty $u_E$", units) if xv is None else (x_name or "feature")
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.legend(loc="upper left", fontsize=7)
    return ax


def murphy_diagram_plot(diagram: MurphyDiagram, *, ax: Axes | None = None) -> Axes:
    """Murphy diagram: mean elementary score S̄_θ of each model's variance forecasts against
    the threshold θ (units of E², log axis when every θ > 0); lower is better at every θ.
    The title gives the dominance verdict of each pair (:mod:`uqval.scores.murphy`: beyond a
    simultaneous band of the paired difference).

    >>> import numpy as np
    >>> from uqval.scores.murphy import murphy_diagram
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 500)
    >>> e = u * rng.standard_normal(500)
    >>> ax = murphy_diagram_plot(murphy_diagram({"a": (e, u), "b": (e, 2 * u)}, n_boot=100))
    >>> ax.get_xlabel()
    'threshold θ (units of E²)'
    """
    ax = _axes(ax)
    t = diagram.thresholds
    for i, (name, curve) in enumerate(diagram.scores.items()):
        ax.plot(t, curve, _style(i), color=_color(i), lw=1.2, label=str(name))
    if t.size and t.min() > 0:
        ax.set_xscale("log")
    ax.set_ylim(bottom=0.0)
    ax.set(xlabel="threshold θ (units of E²)", ylabel=r"mean elementary score $\bar S_\theta$")
    verdicts = "; ".join(diagram.dominance["verdict"].astype(str))
    ax.set_title(verdicts if len(verdicts) < 70 else verdicts[:67] + "...", fontsize=8)
    ax.legend(loc="upper right", fontsize=7)
    return ax
