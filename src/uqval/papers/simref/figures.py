"""Figures of the simulated-reference paper (P002): Figs 2-7 and A1-A3.

Every function returns a matplotlib Figure (save it with :func:`uqval.plots.style.save`).
Inputs are the objects and tables of :mod:`uqval.simref`:

* Figs 2-3: :class:`SetSample` (number, name, E, uE) per dataset;
* Figs 4-5: rows of :func:`uqval.simref.reference_sensitivity` with a ``set`` column;
* Figs 6-7: rows of :meth:`uqval.simref.Validation.as_row` with a ``set`` column;
* Figs A1-A2: rows of :func:`uqval.papers.simref.appendix_b.ence_zmse_reference_grid_point`;
* Fig A3: :class:`uqval.simref.ZmseExtrapolation` per dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter
from scipy import stats

from uqval.papers.simref.appendix_b import PRINTED_ZMSE_LINES, fit_sqrt_ratio
from uqval.papers.simref.statistics import ZmseExtrapolation
from uqval.plots.style import (
    CALIBRATED,
    PALETTE,
    REFERENCE,
    SHADE,
    UNCALIBRATED,
    figure,
    panel_grid,
)
from uqval.simref import simulated_error_samples
from uqval.simref.reference import DistSpec
from uqval.stats.fits import ScaledTFit, fit_scaled_t

__all__ = [
    "SetSample",
    "fig_appb_references",
    "fig_error_histograms",
    "fig_reference_by_set",
    "fig_reference_vs_nu",
    "fig_z_histograms",
    "fig_zeta_scores",
    "fig_zmse_extrapolation",
]

SCHEME_STYLE = {
    "BS": ("k", "o"),
    "SimN": (UNCALIBRATED, "s"),
    "SimT": (CALIBRATED, "s"),
    "Sim2N": (UNCALIBRATED, "^"),
    "Sim2T": (CALIBRATED, "^"),
}
"""Colour and marker of each zeta scheme (N red, T blue; Sim squares, Sim2 triangles)."""


@dataclass(frozen=True)
class SetSample:
    """One numbered dataset of the 3x3 figures."""

    number: int
    name: str
    E: np.ndarray
    uE: np.ndarray
    unit: str = ""


def display_name(name: str) -> str:
    """Dataset name as in the paper's Table I: no family prefix, no ``_cal`` suffix
    (``PAL2022_Perovskite_GPR_Bayesian_cal`` -> ``Perovskite_GPR_Bayesian``), so that the
    panel titles fit their column."""
    return name.removeprefix("PAL2022_").removesuffix("_cal")


def _title(ax, number: int, name: str) -> None:
    ax.set_title(f"Set {number}: {display_name(name)}", fontsize=7)


def fig_z_histograms(sets: Sequence[SetSample], fits: Sequence[ScaledTFit] | None = None) -> Figure:
    """Fig. 2: z-score histograms truncated at mean +- 3 SD, with the normal N(mean, sd) (red)
    and the ML scaled-shifted Student t (blue) densities.

    The histogram is normalised by the full sample size, so it is comparable with the fitted
    densities; the few values beyond +- 3 SD are hidden, as in the paper.
    """
    fig, axes = panel_grid(len(sets))
    for i, (ax, s) in enumerate(zip(axes, sets, strict=False)):
        z = s.E / s.uE
        fit = fits[i] if fits is not None else fit_scaled_t(z)
        lo, hi = fit.mean - 3.0 * fit.sd, fit.mean + 3.0 * fit.sd
        edges = np.linspace(lo, hi, 41)
        counts, _ = np.histogram(z, edges)
        ax.stairs(counts / (z.size * np.diff(edges)), edges, fill=True, color="0.8")
        grid = np.linspace(lo, hi, 400)
        ax.plot(grid, stats.norm.pdf(grid, fit.mean, fit.sd), color=UNCALIBRATED, label="normal")
        ax.plot(
            grid,
            stats.t.pdf(grid, fit.nu, fit.mu, fit.sigma),
            color=CALIBRATED,
            label=rf"$t$, $\nu_Z$ = {fit.nu:.3g}",
        )
        ax.set(xlim=(lo, hi), xlabel="Z", ylabel="density")
        _title(ax, s.number, s.name)
        ax.legend(loc="upper right", fontsize=6)
    return fig


def fig_error_histograms(
    sets: Sequence[SetSample],
    nu_z: Sequence[float],
    *,
    n_rep: int = 100,
    seed: int = 0,
    n_classes: int = 55,
    nu_floor: float = 2.1,
    n_sd: float = 3.0,
    log: bool = False,
) -> Figure:
    """Fig. 3: error histogram (grey) vs errors simulated from the actual uE with D = N(0, 1)
    (red) and D = t_s(nu_Z) (blue), ``n_rep`` = 100 pooled replicates, 55 classes; nu_Z <= 2
    is replaced by 2.1 ([code]). As in the paper, the window is +- ``n_sd`` = 3 sd(E) on a
    linear density axis (``log`` = True shows the tails instead); the values outside the
    window are counted in the normalisation but not drawn.
    """
    fig, axes = panel_grid(len(sets))
    for ax, s, nu in zip(axes, sets, nu_z, strict=False):
        nu_eff = float(nu) if nu > 2.0 else nu_floor
        half = n_sd * float(np.std(s.E, ddof=1))
        edges = np.linspace(-half, half, n_classes + 1)
        width = np.diff(edges)
        counts, _ = np.histogram(s.E, edges)
        ax.stairs(counts / (s.E.size * width), edges, fill=True, color="0.8", label="data")
        references: tuple[tuple[DistSpec, str, str], ...] = (
            ("normal", UNCALIBRATED, "N(0,1)"),
            (("t", nu_eff), CALIBRATED, rf"$t_s$({nu_eff:.3g})"),
        )
        for dist, color, label in references:
            sim = simulated_error_samples(
                s.uE, dist, n_rep, seed=np.random.SeedSequence([seed, s.number])
            )
            c, _ = np.histogram(sim, edges)
            ax.stairs(c / (sim.size * width), edges, color=color, lw=1.0, label=label)
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(0.0, None)
        ax.set(xlim=(-half, half), xlabel=f"E ({s.unit})" if s.unit else "E", ylabel="density")
        _title(ax, s.number, s.name)
        ax.legend(loc="upper right", fontsize=6)
    return fig


_FIG4_PANELS = (
    ("ZMS", False, "ZMS"),
    ("CC", False, "CC"),
    ("ENCE", False, "ENCE"),
    ("ENCE", True, r"ENCE $\times M^{1/2}$"),
    ("ZMSE", False, "ZMSE"),
    ("ZMSE", True, r"ZMSE $\times M^{1/2}$"),
)


def fig_reference_by_set(table: pd.DataFrame, show_estimate: bool = False) -> Figure:
    """Fig. 4 (a-f): theta_ref +- 2u per set under D = N(0, 1) for ZMS, CC, ENCE,
    ENCE M^(1/2), ZMSE and ZMSE M^(1/2) (N_MC = 10^4, 50 bins); dashed line at the ZMS
    reference 1. The paper (and the authors' code) shows the references only, so that their
    set-to-set differences are readable; ``show_estimate`` adds the estimates (open red
    circles), which squeezes the reference axis.

    Args:
        table: columns set, M, statistic, ref_mean, ref_u, estimate (one row per set and
            statistic, e.g. :func:`uqval.simref.reference_sensitivity` plus ``set``).
    """
    fig, axes = figure(3, 2, width=3.2, height=2.2)
    for ax, (stat, scaled, label), letter in zip(axes.flat, _FIG4_PANELS, "abcdef", strict=True):
        t = table[table["statistic"] == stat].sort_values("set")
        f = np.sqrt(t["M"].to_numpy(float)) if scaled else 1.0
        y, u = t["ref_mean"].to_numpy() * f, t["ref_u"].to_numpy() * f
        ax.errorbar(
            t["set"],
            y,
            yerr=2.0 * u,
            fmt="o",
            color=CALIBRATED,
            ms=3,
            capsize=2,
            label=r"$\vartheta_{ref}\pm 2u$",
        )
        if show_estimate:
            ax.plot(
                t["set"],
                t["estimate"].to_numpy() * f,
                "o",
                mfc="none",
                color=UNCALIBRATED,
                ms=4,
                label=r"$\vartheta_{est}$",
            )
        if stat == "ZMS" and not scaled:
            ax.axhline(1.0, ls="--", color=REFERENCE, lw=0.7, label="ZMS = 1")
        ax.set(xlabel="set", ylabel=label)
        ax.set_title(f"({letter})", loc="left", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.flat[0].legend(loc="best", fontsize=6)
    return fig


def fig_reference_vs_nu(table: pd.DataFrame, sets: Sequence[int] = (7, 8)) -> Figure:
    """Fig. 5 (a-d): theta_ref (+- 2u) vs nu for D = t_s(nu), Sets 7 and 8, for ZMS, CC,
    ENCE and ZMSE (50 bins). The normal reference (nu = inf rows, if present; the nu -> inf
    limit the paper marks with dashed lines) is a dashed line of the set's colour; dotted
    line at the predefined ZMS reference 1.

    Args:
        table: columns set, nu, statistic, ref_mean, ref_u.
    """
    fig, axes = figure(2, 2, width=3.2, height=2.5)
    has_normal = bool((~np.isfinite(table["nu"].to_numpy(float))).any())
    for ax, stat, letter in zip(axes.flat, ("ZMS", "CC", "ENCE", "ZMSE"), "abcd", strict=True):
        if stat == "ZMS":
            ax.axhline(1.0, ls=":", color=REFERENCE, lw=0.8)
        for k, number in enumerate(sets):
            t = table[(table["statistic"] == stat) & (table["set"] == number)].sort_values("nu")
            finite = t[np.isfinite(t["nu"])]
            color = PALETTE[k % len(PALETTE)]
            ax.errorbar(
                finite["nu"],
                finite["ref_mean"],
                yerr=2.0 * finite["ref_u"],
                fmt="o-",
                color=color,
                ms=3,
                capsize=2,
                label=f"Set {number}",
            )
            normal = t[~np.isfinite(t["nu"])]
            if len(normal):
                ax.axhline(float(normal["ref_mean"].iloc[0]), ls="--", color=color, lw=0.7)
        ax.set(xlabel=r"$\nu$", ylabel=rf"$\vartheta_{{ref}}$ ({stat})")
        ax.set_title(f"({letter}) {stat}", loc="left", fontsize=8)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if has_normal:
        handles.append(Line2D([], [], ls="--", color=REFERENCE, lw=0.7))
        labels.append("D = N(0,1)")
    axes.flat[0].legend(handles, labels, loc="best", fontsize=6)
    return fig


def fig_zeta_scores(table: pd.DataFrame, statistics: Sequence[str] = ("ZMS", "CC")) -> Figure:
    """Figs 6-7: zeta-scores per set for each scheme (BS black circles; SimN/SimT squares,
    Sim2N/Sim2T triangles; N red, T blue), with the shaded validation band abs(zeta) <= 1.
    Each scheme keeps the same offset from the set position in all panels of the figure
    (schemes absent from the whole figure take no slot); panels are
    labelled (a), (b) with the statistic, as referred to in the text.

    Args:
        table: one row per set and statistic with columns set, statistic (``"ZMS"``,
            ``"CC"``, ``"ENCE(N=20)"``...) and zeta_<scheme> (missing or NaN schemes skipped).
        statistics: statistic names, one panel each (Fig. 6: ZMS, CC; Fig. 7: ENCE, ZMSE).
    """
    fig, axes = figure(len(statistics), 1, width=6.0, height=2.4, squeeze=False)
    rows = table[table["statistic"].str.split("(").str[0].isin(list(statistics))]
    schemes = [
        s for s in SCHEME_STYLE if f"zeta_{s}" in rows and rows[f"zeta_{s}"].notna().any()
    ]
    offsets = {s: (k - (len(schemes) - 1) / 2.0) * 0.16 for k, s in enumerate(schemes)}
    for ax, stat, letter in zip(axes.flat, statistics, "abcdefgh", strict=False):
        t = table[table["statistic"].str.split("(").str[0] == stat].sort_values("set")
        ax.axhspan(-1.0, 1.0, color=SHADE, alpha=0.5, lw=0)
        ax.axhline(0.0, color=REFERENCE, lw=0.5)
        present = [s for s in schemes if f"zeta_{s}" in t and t[f"zeta_{s}"].notna().any()]
        for scheme in present:
            color, marker = SCHEME_STYLE[scheme]
            ax.plot(
                t["set"] + offsets[scheme],
                t[f"zeta_{scheme}"],
                marker,
                color=color,
                ms=4,
                mfc="none" if scheme.startswith("Sim2") else color,
                label=scheme,
            )
        ax.set(ylabel=rf"$\zeta$ ({stat})", xlabel="set")
        ax.set_title(f"({letter}) {stat}", loc="left", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    return fig


_N_MARKERS = ("s", "o", "^", "P", "v", "D", "X", "*")


def _plain_log_axis(axis, ticks: Sequence[float] | None = None, min_gap: float = 0.2) -> None:
    """Log axis with plain-number tick labels (no overlapping 'a x 10^b' minor labels):
    the given ``ticks`` (thinned so that labelled ticks are at least ``min_gap`` decades
    apart), else about six round values, which also label a range narrower than a decade."""
    if ticks is not None:
        kept: list[float] = []
        for v in sorted(ticks):
            if not kept or np.log10(v / kept[-1]) >= min_gap:
                kept.append(float(v))
        axis.set_ticks(kept)
    else:
        axis.set_major_locator(MaxNLocator(nbins=6))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def fig_appb_references(table: pd.DataFrame, model: str | None = None) -> Figure:
    """Figs A1 (NIG) / A2 (T6IG): ENCE and ZMSE reference values vs M (log-log; one line per
    N and nu, coloured by nu and marked by N, as in the paper) and vs x = (N/M)^(1/2) (same
    colours) with the linear fit (with intercept, solid; through the origin, dashed).

    Args:
        table: rows of :func:`uqval.papers.simref.appendix_b.ence_zmse_reference_grid_point` (columns model, M,
            N, nu, x, ENCE_mean, ZMSE_mean); filtered on ``model`` when given.
    """
    t = table if model is None else table[table["model"] == model]
    fig, axes = figure(2, 2, width=3.2, height=2.6)
    n_values = sorted(t["N"].unique())
    nu_values = sorted(t["nu"].unique())
    colors = {nu: PALETTE[k % len(PALETTE)] for k, nu in enumerate(nu_values)}
    markers = {n: _N_MARKERS[k % len(_N_MARKERS)] for k, n in enumerate(n_values)}
    m_values = sorted(t["M"].unique())
    statistics: tuple[Literal["ENCE", "ZMSE"], ...] = ("ENCE", "ZMSE")
    for row, stat in enumerate(statistics):
        ax = axes[row, 0]
        for (n, nu), g in t.groupby(["N", "nu"]):
            g = g.sort_values("M")
            ax.plot(
                g["M"], g[f"{stat}_mean"], "-", marker=markers[n], mfc="none",
                color=colors[nu], ms=3, lw=0.6,
            )
        ax.set(xscale="log", yscale="log", xlabel="set size M", ylabel=stat)
        _plain_log_axis(ax.xaxis, m_values)
        _plain_log_axis(ax.yaxis)
        handles = [
            Line2D([], [], ls="none", marker=markers[n], mfc="none", color="k", ms=3)
            for n in n_values
        ]
        ax.legend(
            handles, [f"N = {n}" for n in n_values], loc="center left",
            bbox_to_anchor=(1.0, 0.5), fontsize=6,
        )
        ax = axes[row, 1]
        for nu, g in t.groupby("nu"):
            ax.plot(g["x"], g[f"{stat}_mean"], "o", color=colors[nu], ms=2.5, label=rf"$\nu$ = {nu:g}")
        fit = fit_sqrt_ratio(t, stat)
        xx = np.linspace(0.0, float(t["x"].max()) * 1.05, 50)
        ax.plot(
            xx,
            fit["intercept"] + fit["slope"] * xx,
            color="k",
            lw=0.9,
            label=f"{fit['intercept']:.3f} + {fit['slope']:.3f} x",
        )
        ax.plot(xx, fit["slope0"] * xx, "--", color="0.4", lw=0.9, label=f"{fit['slope0']:.3f} x")
        ax.set(xlim=(0.0, None), ylim=(0.0, None), xlabel=r"$x = (N/M)^{1/2}$", ylabel=stat)
        ax.legend(loc="upper left", fontsize=6)
    if model is not None:
        fig.suptitle(model, fontsize=9)
    return fig


def _line_label(model: str, line: tuple[float, float]) -> str:
    a, b = line
    text = f"{b:g} x" if a == 0 else f"{a:g} + {b:g} x"
    return f"{model} ref. {text} (printed in the paper)"


def fig_zmse_extrapolation(results: Sequence[tuple[int, str, ZmseExtrapolation]]) -> Figure:
    """Fig. A3: ZMSE vs (N/M)^(1/2) (blue dots; open: not in the fit), linear fit on N > 20
    (red line) extrapolated to 0 with the intercept interval (red bar, +- 2 SE), and the
    reference lines *printed* by the paper (not computed here; :data:`PRINTED_ZMSE_LINES`):
    NIG 1.14 x (dashed) and T6IG 0.006 + 1.577 x (dotted); one legend for all panels, which
    marks the printed lines as such.

    Args:
        results: (set number, name, extrapolation) per dataset.
    """
    fig, axes = panel_grid(len(results))
    for ax, (number, name, res) in zip(axes, results, strict=False):
        tab = res.table
        xmax = float(tab["x"].max()) * 1.05
        xx = np.linspace(0.0, xmax, 50)
        ax.plot(xx, PRINTED_ZMSE_LINES["NIG"][0] + PRINTED_ZMSE_LINES["NIG"][1] * xx, "--", color=REFERENCE, lw=0.8)
        ax.plot(xx, PRINTED_ZMSE_LINES["T6IG"][0] + PRINTED_ZMSE_LINES["T6IG"][1] * xx, ":", color=REFERENCE, lw=1.0)
        fitted = tab["in_fit"].to_numpy(bool)
        ax.plot(tab["x"][fitted], tab["ZMSE"][fitted], "o", color=CALIBRATED, ms=3)
        ax.plot(tab["x"][~fitted], tab["ZMSE"][~fitted], "o", mfc="none", color=CALIBRATED, ms=3)
        ax.plot(xx, res.fit.intercept + res.fit.slope * xx, color=UNCALIBRATED, lw=1.0)
        ax.plot(
            [0.0, 0.0], [res.ci_low, res.ci_high], color=UNCALIBRATED, lw=3, solid_capstyle="butt"
        )
        ymax = max(
            float(tab["ZMSE"].max()), res.ci_high, PRINTED_ZMSE_LINES["T6IG"][0] + PRINTED_ZMSE_LINES["T6IG"][1] * xmax
        )
        ax.set(
            xlim=(-0.01 * xmax, xmax),
            ylim=(min(0.0, res.ci_low) - 0.02 * ymax, ymax * 1.05),
            xlabel=r"$(N/M)^{1/2}$",
            ylabel="ZMSE",
        )
        _title(ax, number, name)
    handles = [
        Line2D([], [], ls="none", marker="o", color=CALIBRATED, ms=3),
        Line2D([], [], ls="none", marker="o", mfc="none", color=CALIBRATED, ms=3),
        Line2D([], [], color=UNCALIBRATED, lw=1.0),
        Line2D([], [], color=UNCALIBRATED, lw=3),
        Line2D([], [], ls="--", color=REFERENCE, lw=0.8),
        Line2D([], [], ls=":", color=REFERENCE, lw=1.0),
    ]
    labels = [
        "ZMSE (fitted)",
        "ZMSE (not fitted)",
        "linear fit",
        "intercept $\\pm$ 2 SE",
        _line_label("NIG", PRINTED_ZMSE_LINES["NIG"]),
        _line_label("T6IG", PRINTED_ZMSE_LINES["T6IG"]),
    ]
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7)
    return fig
