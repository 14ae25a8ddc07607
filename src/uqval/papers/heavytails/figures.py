"""Figures of the heavy-tails paper (P001): fits, skewness map, zeta comparison, decimation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox
from scipy import stats

from uqval.plots.style import CALIBRATED, SHADE, UNCALIBRATED, figure, panel_grid


@dataclass(frozen=True)
class SetData:
    """One numbered dataset of a 3x3 panel figure."""

    number: int
    name: str
    E: np.ndarray
    uE: np.ndarray
    fits: dict
    units: str = ""
    """Units of E and uE (shown in the panel title); empty when unknown."""


def short_name(dataset_id: str) -> str:
    """Panel title of a dataset: family prefix and calibration suffix dropped."""
    return dataset_id.removeprefix("PAL2022_").removesuffix("_cal")


def _set_title(ax: Axes, s: SetData) -> None:
    """Panel title '<number>: <short name> [<units>]'."""
    units = f" [{s.units}]" if s.units else ""
    ax.set_title(f"{s.number}: {short_name(s.name)}{units}", fontsize=7)


def _log_density(values: np.ndarray, bins: int, ax, label: str) -> np.ndarray:
    """Histogram of log(values) as a density; returns the plotting grid of log(values)."""
    logs = np.log(values)
    ax.hist(logs, bins=bins, density=True, color="0.75", edgecolor="white", linewidth=0.3, label=label)
    return np.linspace(logs.min(), logs.max(), 400)


def _finish_histogram(ax: Axes, xlabel: str) -> None:
    """Axis labels, at most ~5 x ticks (no 2.5 steps, whose labels collide on wide ranges),
    headroom above the histogram and curves so that the legend does not hide them."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
    ax.set_ylim(0.0, 1.45 * ax.get_ylim()[1])
    ax.legend(loc="upper left", fontsize=6)


# Candidate label positions around a point: offset (points) and text alignment.
_LABEL_SLOTS = (
    ((3, 2), "left", "bottom"),
    ((3, -2), "left", "top"),
    ((-3, 2), "right", "bottom"),
    ((-3, -2), "right", "top"),
    ((5, 0), "left", "center"),
    ((-5, 0), "right", "center"),
    ((0, 5), "center", "bottom"),
    ((0, -5), "center", "top"),
)


def _overlap_area(a: Bbox, b: Bbox) -> float:
    inter = Bbox.intersection(a, b)
    return 0.0 if inter is None else float(inter.width * inter.height)


def _label_points(
    ax: Axes,
    points: Sequence[tuple[float, float, str, str]],
    obstacles: np.ndarray | None = None,
    fontsize: float = 7,
    marker_pt: float = 6.0,
) -> None:
    """Write each text (x, y, text, colour) next to its point, at the first candidate slot
    whose text box stays inside the axes and clear of every marker (the points themselves
    and the ``obstacles`` (n, 2) data coordinates) and of the labels already placed; when
    no slot is clear, at the least-overlapping one. Must be called once limits are final."""
    fig = ax.figure
    root = fig if isinstance(fig, Figure) else fig.figure
    root.draw_without_rendering()  # the extents below then use the figure's renderer
    xy = [(x, y) for x, y, _, _ in points]
    if obstacles is not None and len(obstacles):
        xy += [tuple(o) for o in np.asarray(obstacles, dtype=float)]
    half = 0.5 * marker_pt * fig.dpi / 72.0
    centres = ax.transData.transform(np.asarray(xy, dtype=float).reshape(-1, 2))
    boxes = [Bbox.from_extents(cx - half, cy - half, cx + half, cy + half) for cx, cy in centres]
    frame = ax.get_window_extent()
    for x, y, text, colour in points:
        best = None
        for offset, ha, va in _LABEL_SLOTS:
            ann = ax.annotate(text, (x, y), textcoords="offset points", xytext=offset, ha=ha, va=va,
                              color=colour, fontsize=fontsize)
            box = ann.get_window_extent()
            cost = sum(_overlap_area(box, b) for b in boxes)
            cost += box.width * box.height - _overlap_area(box, frame)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, ann, box)
            else:
                ann.remove()
            if cost == 0.0:
                break
        if best is not None:
            boxes.append(best[2])


def fig_uE2_histograms(sets: Sequence[SetData]) -> Figure:
    """Fig. 1: histograms of log(uE^2) with the KS-fitted inverse-gamma density (blue).

    uE^2/sigma^2 ~ Gamma^-1(nu, nu) (P001 Eq. 17), i.e. invgamma(a = nu, scale = nu sigma^2);
    the density of y = log x is f(e^y) e^y. 33 classes as in the authors' code.
    """
    fig, axes = panel_grid(len(sets))
    for ax, s in zip(axes, sets, strict=False):
        grid = _log_density(s.uE**2, 33, ax, "data")
        nu, sigma = s.fits["nu_uE2"], s.fits["sigma_uE2"]
        x = np.exp(grid)
        ax.plot(grid, stats.invgamma.pdf(x, a=nu, scale=nu * sigma**2) * x, color=CALIBRATED,
                label=f"IG fit, ν = {nu:.3g}")
        _set_title(ax, s)
        _finish_histogram(ax, r"$\ln(u_E^2)$")
    return fig


def fig_E2_histograms(sets: Sequence[SetData]) -> Figure:
    """Fig. 2: histograms of log(E^2) with the scaled F(1, nu) fit (blue) and the NIG-implied
    density (red): F(1, nu_IG) scaled by sigma_IG^2 from the uE^2 fit, as in the authors'
    code (docs/choices.md, "Inverse-gamma parametrisations"). 25 classes.
    """
    fig, axes = panel_grid(len(sets))
    for ax, s in zip(axes, sets, strict=False):
        grid = _log_density(s.E**2, 25, ax, "data")
        x = np.exp(grid)
        nu, sigma = s.fits["nu_E2"], s.fits["sigma_E2"]
        ax.plot(grid, stats.f.pdf(x / sigma**2, 1, nu) / sigma**2 * x, color=CALIBRATED,
                label=f"F fit, ν = {nu:.3g}")
        nu_ig, sigma_ig = s.fits["nu_uE2"], s.fits["sigma_uE2"]
        ax.plot(grid, stats.f.pdf(x / sigma_ig**2, 1, nu_ig) / sigma_ig**2 * x, color=UNCALIBRATED,
                linestyle="--", label="NIG-implied")
        _set_title(ax, s)
        _finish_histogram(ax, r"$\ln(E^2)$")
    return fig


def fig_skewness_map(tab3: pd.DataFrame, nig_curve: pd.DataFrame, limits: dict) -> Figure:
    """Fig. 6: beta_GM(E^2) (red triangles) and beta_GM(Z^2) (blue squares) vs beta_GM(uE^2),
    with the NIG model line and the shaded zones beyond the Table 2 limits."""
    fig, ax = figure(width=4.2, height=4.0)
    ax.axvspan(limits["uE2"], 1.05, color=SHADE, alpha=0.4, lw=0)
    ax.axhspan(limits["E2"], 1.05, color=SHADE, alpha=0.4, lw=0)
    ax.plot(nig_curve["beta_uE2"], nig_curve["beta_E2"], "o-", color="k", ms=2, lw=0.6, label="NIG model")
    ax.plot(tab3["beta_uE2"], tab3["beta_E2"], "^", color=UNCALIBRATED, label=r"$\beta_{GM}(E^2)$")
    ax.plot(tab3["beta_uE2"], tab3["beta_Z2"], "s", color=CALIBRATED, label=r"$\beta_{GM}(Z^2)$")
    ax.set(xlim=(0, 1.02), ylim=(0.55, 1.01), xlabel=r"$\beta_{GM}(u_E^2)$",
           ylabel=r"$\beta_{GM}(E^2)$, $\beta_{GM}(Z^2)$")
    ax.legend(loc="lower right")
    labels = [(r["beta_uE2"], r["beta_E2"], str(r["set"]), UNCALIBRATED) for _, r in tab3.iterrows()]
    labels += [(r["beta_uE2"], r["beta_Z2"], str(r["set"]), CALIBRATED) for _, r in tab3.iterrows()]
    # the NIG line, sampled densely, is an obstacle too
    cx, cy = nig_curve["beta_uE2"].to_numpy(), nig_curve["beta_E2"].to_numpy()
    t, knots = np.linspace(0.0, 1.0, 400), np.linspace(0.0, 1.0, len(cx))
    line = np.column_stack([np.interp(t, knots, cx), np.interp(t, knots, cy)])
    _label_points(ax, labels, obstacles=line, marker_pt=5.0)
    return fig


def _zeta_panel(ax, tab4: pd.DataFrame, title: str, lim: float) -> list[tuple[float, float, str, str]]:
    """abs(zeta_ZMS) vs abs(zeta_RCE): disagreement areas shaded, identity line (dashed) and the
    validation limits abs(zeta) = 1 (dotted). Returns the set-number labels, to be written with
    :func:`_label_points` once the whole figure is laid out."""
    x, y = tab4["ZMS_zeta"].abs(), tab4["RCE_zeta"].abs()
    ax.fill_between([0, 1], 1, lim, color=SHADE, alpha=0.5, lw=0)
    ax.fill_between([1, lim], 0, 1, color=SHADE, alpha=0.5, lw=0)
    ax.axvline(1.0, ls=":", color="0.4", lw=0.8)
    ax.axhline(1.0, ls=":", color="0.4", lw=0.8)
    ax.plot([0, lim], [0, lim], "--", color="0.4", lw=0.8)
    ax.plot(x, y, "o", color=CALIBRATED)
    ax.set(xlim=(0, lim), ylim=(0, lim), xlabel=r"$|\zeta_{ZMS}|$", ylabel=r"$|\zeta_{RCE}|$", title=title)
    ax.set_aspect("equal")
    return [(xi, yi, str(n), "k") for xi, yi, n in zip(x, y, tab4["set"], strict=True)]


def fig_zeta_comparison(full: pd.DataFrame, trimmed: pd.DataFrame, trimmed_fraction: float) -> Figure:
    """Fig. 7: abs(zeta_ZMS) vs abs(zeta_RCE) for the full sets (left) and after removing the
    largest uE (right); shaded areas are where the two statistics disagree."""
    lim = float(np.nanmax(np.abs(pd.concat([full, trimmed])[["ZMS_zeta", "RCE_zeta"]].to_numpy()))) * 1.1
    lim = max(lim, 2.0)
    # taller than wide: the square (equal-aspect) panels then leave room for title and labels
    fig, axes = figure(1, 2, width=3.4, height=3.7)
    labels = [_zeta_panel(axes[0], full, "original sets", lim),
              _zeta_panel(axes[1], trimmed, f"{100 * trimmed_fraction:g} % largest $u_E$ removed", lim)]
    for ax, points in zip(axes, labels, strict=True):
        _label_points(ax, points)
    return fig


def fig_decimation(decimations: Sequence[tuple[int, str, pd.DataFrame]], tab4: pd.DataFrame) -> Figure:
    """Fig. 8: Delta_RCE (red) and Delta_ZMS (blue) vs the percentage k of largest uE removed;
    the bars at k < 0 are the zero-centred 95 % BCa intervals of the full-set statistics."""
    fig, axes = panel_grid(len(decimations))
    ci = tab4.set_index("set")
    for ax, (number, name, dec) in zip(axes, decimations, strict=False):
        r = ci.loc[number]
        ax.axhline(0, color="0.4", lw=0.6)
        ax.plot(dec["k"], dec["delta_RCE"], color=UNCALIBRATED, label=r"$\Delta_{RCE}$")
        ax.plot(dec["k"], dec["delta_ZMS"], color=CALIBRATED, label=r"$\Delta_{ZMS}$")
        for x, stat, color in ((-0.6, "RCE", UNCALIBRATED), (-0.3, "ZMS", CALIBRATED)):
            lo, hi = r[f"{stat}_ci_low"] - r[f"{stat}_estimate"], r[f"{stat}_ci_high"] - r[f"{stat}_estimate"]
            ax.plot([x, x], [lo, hi], color=color, lw=2.5, solid_capstyle="butt")
        ax.set_title(f"{number}: {short_name(name)}", fontsize=7)
        ax.set_xlabel("k (% largest $u_E$ removed)")
        ax.set_ylabel(r"$\Delta$")
        ax.set_xlim(-0.9, dec["k"].max())
        ax.legend(loc="best", fontsize=6)
    return fig


def fig_jacobs_tests(table: pd.DataFrame) -> Figure:
    """Fig. 10: (left) ZMS and RCE with 95 % BCa intervals per set, red when the interval
    misses the target (1 and 0); (right) abs(zeta_ZMS) vs abs(zeta_RCE) as in Fig. 7."""
    fig = figure(width=7.0, height=3.6)[0]
    fig.clf()
    grid = fig.add_gridspec(2, 2, width_ratios=[1.4, 1])
    x = table["set"].to_numpy()
    for row, (stat, target) in enumerate((("ZMS", 1.0), ("RCE", 0.0))):
        ax = fig.add_subplot(grid[row, 0])
        valid = (table[f"{stat}_ci_low"] <= target) & (target <= table[f"{stat}_ci_high"])
        colors = np.where(valid, CALIBRATED, UNCALIBRATED)
        ax.vlines(x, table[f"{stat}_ci_low"], table[f"{stat}_ci_high"], colors=colors, lw=1.5)
        ax.scatter(x, table[f"{stat}_estimate"], c=colors, s=10, zorder=3)
        ax.axhline(target, ls="--", color="0.4", lw=0.8)
        ax.set(ylabel=stat, xlabel="set #" if row == 1 else None)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    lim = max(2.0, float(np.nanmax(np.abs(table[["ZMS_zeta", "RCE_zeta"]].to_numpy())) * 1.1))
    lim = min(lim, 10.0)
    ax = fig.add_subplot(grid[:, 1])
    _label_points(ax, _zeta_panel(ax, table, "zeta-scores", lim))
    return fig
