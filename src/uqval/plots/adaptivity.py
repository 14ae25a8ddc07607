"""Figures of the adaptivity paper (P003): running statistics, LZM/LZMS/ACF, f_v variants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from uqval import conditional, running
from uqval.adaptivity import LocalAnalysis
from uqval.plots import panels
from uqval.plots.style import CALIBRATED, REFERENCE, UNCALIBRATED, figure, panel_label

LETTERS = "abcdefghi"


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
        ax.plot(pos, mean_sq, color="#ff7f0e", lw=1.2, label=r"running $\langle Z^2\rangle$")
        panels.use_log_x(ax, x, log_x)
        ax.set(xlabel=label, ylabel="Z", ylim=(-5, 5))
        if xlim:
            ax.set_xlim(*xlim)
        panel_label(ax, f"({LETTERS[i]})")
    axes[0].legend(loc="lower left", fontsize=6)
    return fig


def fig_local(analyses: Mapping[str, tuple[LocalAnalysis, str, bool, pd.DataFrame, pd.DataFrame]]) -> Figure:
    """Fig. 3 (3x3): LZM (row 1), LZMS (row 2) with f_v in the titles, and the ACF of the LZMS
    series (row 3) for each variable. ``analyses`` maps a name to (analysis, axis label, log x,
    whole-set <Z> table, whole-set <Z^2> table)."""
    n = len(analyses)
    fig, axes = figure(3, n, width=3.0, height=2.5, squeeze=False)
    for j, (name, (a, label, log_x, whole_m, whole_ms)) in enumerate(analyses.items()):
        panels.local_statistic(axes[0, j], a.zm, r"$\langle Z \rangle$", label, whole=_whole(whole_m), log_x=log_x)
        panels.local_statistic(axes[1, j], a.zms, r"$\langle Z^2 \rangle$", label, whole=_whole(whole_ms), log_x=log_x)
        panel_label(axes[0, j], f"({LETTERS[j]}) $f_v$ = {a.fv_zm.value:.2f}")
        panel_label(axes[1, j], f"({LETTERS[n + j]}) $f_v$ = {a.fv_zms.value:.2f}")
        acf = conditional.acf(a.zms["value"].to_numpy())
        ax = axes[2, j]
        ax.vlines(acf.lags, 0, acf.values, color=CALIBRATED, lw=1.5)
        ax.axhline(0, color=REFERENCE, lw=0.6)
        for b in (-acf.band, acf.band):
            ax.axhline(b, ls="--", color=UNCALIBRATED, lw=0.8)
        ax.set(xlabel="lag", ylabel="ACF of LZMS")
        panel_label(ax, f"({LETTERS[2 * n + j]}) {name}")
    return fig


def _whole(df: pd.DataFrame) -> tuple[float, float, float]:
    row = df.iloc[0]
    return float(row["value"]), float(row["ci_low"]), float(row["ci_high"])


def fig_fv(variants: Mapping[str, pd.DataFrame]) -> Figure:
    """Fig. 4: f_v of <Z> and <Z^2> per variable for the four variants (Nominal, Random order,
    Random + Binomial, Stratified) with their 95 % intervals; dashed line at 0.95.
    Each table has rows (variant, stat) and columns value, low, high."""
    fig, axes = figure(1, len(variants), width=3.0, height=2.8, sharey=True)
    for i, (ax, (name, table)) in enumerate(zip(np.atleast_1d(axes), variants.items(), strict=True)):
        order = list(dict.fromkeys(table["variant"]))
        x = np.arange(len(order))
        for stat, color, dx in (("fv_zm", CALIBRATED, -0.1), ("fv_zms", UNCALIBRATED, 0.1)):
            t = table[table["stat"] == stat].set_index("variant").loc[order]
            ax.vlines(x + dx, t["low"], t["high"], color=color, lw=1.5)
            ax.plot(x + dx, t["value"], "o", color=color, ms=4,
                    label={"fv_zm": r"$\langle Z\rangle$", "fv_zms": r"$\langle Z^2\rangle$"}[stat])
        ax.axhline(0.95, ls="--", color=REFERENCE, lw=0.8)
        ax.set_xticks(x, order, rotation=30, ha="right", fontsize=7)
        ax.set(ylabel="$f_v$", ylim=(0, 1.02))
        panel_label(ax, f"({LETTERS[i]}) {name}")
    np.atleast_1d(axes)[0].legend(loc="lower left")
    return fig


def fig_stratified(analyses: Mapping[str, tuple[LocalAnalysis, str, bool]]) -> Figure:
    """Fig. 5 (2x3): LZM and LZMS on stratified bins (at least 100 points per stratum)."""
    n = len(analyses)
    fig, axes = figure(2, n, width=3.0, height=2.5, squeeze=False)
    for j, (name, (a, label, log_x)) in enumerate(analyses.items()):
        panels.local_statistic(axes[0, j], a.zm, r"$\langle Z \rangle$", label, log_x=log_x)
        panels.local_statistic(axes[1, j], a.zms, r"$\langle Z^2 \rangle$", label, log_x=log_x)
        panel_label(axes[0, j], f"({LETTERS[j]}) {name}, $f_v$ = {a.fv_zm.value:.2f}")
        panel_label(axes[1, j], f"({LETTERS[n + j]}) {name}, $f_v$ = {a.fv_zms.value:.2f}")
    return fig


def variant_rows(variant: str, values: Sequence[tuple[str, float, float, float]]) -> pd.DataFrame:
    """Rows (variant, stat, value, low, high) for :func:`fig_fv`."""
    return pd.DataFrame([{"variant": variant, "stat": s, "value": v, "low": lo, "high": hi} for s, v, lo, hi in values])
