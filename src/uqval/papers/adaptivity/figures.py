"""Figures of the adaptivity paper (P003): running statistics, LZM/LZMS/ACF, f_v variants."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from uqval.calibration.adaptivity import LocalAnalysis
from uqval.calibration.fraction_valid import FractionValid
from uqval.papers.adaptivity.acf import acf as autocorrelation
from uqval.plots import panels
from uqval.plots.style import CALIBRATED, PALETTE, REFERENCE, UNCALIBRATED, figure, panel_label
from uqval.stats import running

LETTERS = "abcdefghi"
RUNNING_MS = PALETTE[3]
"""Orange of the running mean of squares (P003 Fig. 2)."""

FV_VARIANTS = {
    "Nominal": ("k", "o", "Nominal"),
    "Random": (UNCALIBRATED, "s", "Random order"),
    "Random + Binomial": (PALETTE[3], "D", "Random + Binomial"),
    "Stratified": (PALETTE[2], "^", "Stratified"),
}
"""Colour, marker and legend label of each f_v variant (P003 Fig. 4: black circles, red
squares, orange diamonds, green triangles)."""


def fig_running(E: np.ndarray, uE: np.ndarray, variables: Mapping[str, tuple[np.ndarray, str, bool, tuple | None]]) -> Figure:
    """Fig. 2: Z vs each conditioning variable with the running mean (red) and running mean of
    squares (orange) over windows of M/100 points; ``variables`` maps a name to
    (values, axis label, log x, x limits)."""
    fig, axes = figure(1, len(variables), width=3.0, height=2.8)
    Z = E / uE
    for i, (ax, (_name, (x, label, log_x, xlim))) in enumerate(zip(axes, variables.items(), strict=True)):
        pos, mean, mean_sq = running.running_moments_along(x, Z)
        ax.scatter(x, Z, s=1, color=CALIBRATED, alpha=0.25, lw=0, rasterized=True)
        for level in (-2, 0, 1, 2):
            ax.axhline(level, ls=":" if level else "-", color=REFERENCE, lw=0.6)
        ax.plot(pos, mean, color=UNCALIBRATED, lw=1.2, label=r"running $\langle Z\rangle$")
        ax.plot(pos, mean_sq, color=RUNNING_MS, lw=1.2, label=r"running $\langle Z^2\rangle$")
        panels.use_log_x(ax, x, log_x)
        ax.set(xlabel=label, ylabel="Z", ylim=(-5, 5))
        if xlim:
            ax.set_xlim(*xlim)
        panel_label(ax, f"({LETTERS[i]})")
    axes[0].legend(loc="lower left", fontsize=6)
    return fig


def _local_panel(
    ax: Axes,
    local: pd.DataFrame,
    ylabel: str,
    xlabel: str,
    whole: pd.DataFrame | None = None,
    log_x: bool = False,
) -> None:
    """LZM/LZMS panel as in P003 Figs 3 and 5: per-bin values with their 95 % intervals, blue
    when the interval contains the target and red otherwise; dashed target line; the
    whole-set value and interval in the right margin with the same colour code."""
    ax.axhline(float(local["target"].iloc[0]), ls="--", color=REFERENCE, lw=0.8)
    valid = local["valid"].to_numpy(bool)
    for mask, color in ((valid, CALIBRATED), (~valid, UNCALIBRATED)):
        rows = local[mask]
        ax.vlines(rows["x"], rows["ci_low"], rows["ci_high"], color=color, lw=1.0)
        ax.plot(rows["x"], rows["value"], "o", color=color, ms=3)
    panels.use_log_x(ax, local["x"], log_x)
    if whole is not None:
        row = whole.iloc[0]
        color = CALIBRATED if bool(row["valid"]) else UNCALIBRATED
        tr = ax.get_yaxis_transform()
        ax.plot([1.03, 1.03], [row["ci_low"], row["ci_high"]], color=color, lw=2.0, transform=tr, clip_on=False)
        ax.plot([1.03], [row["value"]], "s", color=color, ms=3, transform=tr, clip_on=False)
    ax.set(xlabel=xlabel, ylabel=ylabel)


def _fv_text(fv: FractionValid) -> str:
    return f"$f_v$ = {fv.value:.2f} [{fv.ci_low:.2f}, {fv.ci_high:.2f}]"


def _lzm_lzms_rows(axes: np.ndarray, analyses: Mapping[str, tuple]) -> None:
    """LZM (row 0) and LZMS (row 1) panels of Figs 3 and 5, f_v with its CI in the titles."""
    n = len(analyses)
    for j, (a, label, log_x, whole_m, whole_ms) in enumerate(analyses.values()):
        _local_panel(axes[0, j], a.zm, r"$\langle Z \rangle$", label, whole=whole_m, log_x=log_x)
        _local_panel(axes[1, j], a.zms, r"$\langle Z^2 \rangle$", label, whole=whole_ms, log_x=log_x)
        panel_label(axes[0, j], f"({LETTERS[j]}) {_fv_text(a.fv_zm)}")
        panel_label(axes[1, j], f"({LETTERS[n + j]}) {_fv_text(a.fv_zms)}")


def fig_local(analyses: Mapping[str, tuple[LocalAnalysis, str, bool, pd.DataFrame, pd.DataFrame]]) -> Figure:
    """Fig. 3 (3x3): LZM (row 1), LZMS (row 2) with f_v and its binomial 95 % CI in the titles,
    and the ACF of the LZMS series (row 3) for each variable. Red symbols: intervals that miss
    the target; whole-set value in the right margin. ``analyses`` maps a display name to
    (analysis, axis label, log x, whole-set <Z> table, whole-set <Z^2> table)."""
    n = len(analyses)
    fig, axes = figure(3, n, width=3.0, height=2.5, squeeze=False)
    _lzm_lzms_rows(axes, analyses)
    for j, (name, (a, *_)) in enumerate(analyses.items()):
        acf = autocorrelation(a.zms["value"].to_numpy())
        ax = axes[2, j]
        ax.vlines(acf.lags, 0, acf.values, color=CALIBRATED, lw=1.5)
        ax.axhline(0, color=REFERENCE, lw=0.6)
        for b in (-acf.band, acf.band):
            ax.axhline(b, ls="--", color=UNCALIBRATED, lw=0.8)
        ax.set(xlabel="lag", ylabel="ACF of LZMS")
        panel_label(ax, f"({LETTERS[2 * n + j]}) {name}")
    return fig


def fig_fv(variants: Mapping[str, pd.DataFrame]) -> Figure:
    """Fig. 4: f_v of <Z> (left) and <Z^2> (right) per variable for the four variants, drawn
    side by side with the colour/marker code of the paper (Nominal black circles, Random order
    red squares, Random + Binomial orange diamonds, Stratified green triangles) and their 95 %
    intervals; dashed line at the 0.95 target.
    Each table has rows (variant, stat) and columns value, low, high."""
    fig, axes = figure(1, len(variants), width=3.0, height=2.8, sharey=True)
    axes = np.atleast_1d(axes)
    for i, (ax, (name, table)) in enumerate(zip(axes, variants.items(), strict=True)):
        order = list(dict.fromkeys(table["variant"]))
        offsets = (np.arange(len(order)) - (len(order) - 1) / 2.0) * 0.15
        for variant, dx in zip(order, offsets, strict=True):
            color, marker, legend = FV_VARIANTS.get(variant, (REFERENCE, "o", variant))
            t = table[table["variant"] == variant].set_index("stat").loc[["fv_zm", "fv_zms"]]
            x = np.arange(2) + dx
            ax.vlines(x, t["low"], t["high"], color=color, lw=2.0)
            ax.plot(x, t["value"], marker, color=color, ms=4, label=legend)
        ax.axhline(0.95, ls="--", color=REFERENCE, lw=0.8)
        ax.set_xticks([0, 1], [r"$\langle Z\rangle$", r"$\langle Z^2\rangle$"])
        ax.set(xlim=(-0.5, 1.5), ylim=(0, 1.02))
        panel_label(ax, f"({LETTERS[i]}) {name}")
    axes[0].set_ylabel("fraction of validated bins $f_v$")
    axes[0].legend(loc="lower left", fontsize=6)
    return fig


def fig_stratified(analyses: Mapping[str, tuple[LocalAnalysis, str, bool, pd.DataFrame | None, pd.DataFrame | None]]) -> Figure:
    """Fig. 5 (2x3): LZM and LZMS on stratified bins (at least 100 points per stratum); red
    symbols: intervals that miss the target; whole-set value in the right margin; f_v with its
    binomial 95 % CI in the titles (the variable is named by the x label).
    ``analyses`` maps a display name to (analysis, axis label, log x, whole-set <Z> table,
    whole-set <Z^2> table)."""
    n = len(analyses)
    fig, axes = figure(2, n, width=3.0, height=2.5, squeeze=False)
    _lzm_lzms_rows(axes, analyses)
    return fig

