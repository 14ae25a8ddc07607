"""Monte Carlo figures of the heavy-tails paper (P001 Figs 3, 4, 5 and 11).

Inputs are the tables of :mod:`uqval.papers.heavytails.montecarlo`; every function returns a Figure
that the caller writes with :func:`uqval.plots.style.save`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from uqval.plots.style import CALIBRATED, PALETTE, REFERENCE, UNCALIBRATED, figure

__all__ = ["fig_pval", "fig_shape_statistics", "fig_tig_bias"]

SKEWNESS_LIMIT = 0.8
"""Table 2 limit of beta_GM(E^2) and beta_GM(Z^2) (dashed vertical line of Figs 4 and 11)."""

_STAT_LABELS = {"RCE": "RCE", "RCE2": "RCE2", "1-ZMS": "1 − ZMS"}
_X_COLUMNS = {"RCE": "beta_E2", "RCE2": "beta_E2", "1-ZMS": "beta_Z2"}
_X_LABELS = {"beta_E2": r"$\beta_{GM}(E^2)$", "beta_Z2": r"$\beta_{GM}(Z^2)$"}
_TOP_LABEL_GAP = 0.045  # minimal spacing of upper-axis labels, in axis-width fractions
_LOG_NU_TICKS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


def fig_shape_statistics(curves: pd.DataFrame, chi2_ref: Mapping[str, float]) -> Figure:
    """Fig. 3: beta_GM (left) and kappa_CS (right) vs nu for F(1, nu) and Gamma^-1(nu/2, nu/2).

    Args:
        curves: :func:`uqval.papers.heavytails.montecarlo.shape_statistic_curves` output (columns
            ``nu, beta_F, kappa_F, beta_IG, kappa_IG``).
        chi2_ref: squared-normal values ``{"beta_GM": ..., "kappa_CS": ...}``
            (:func:`uqval.papers.heavytails.montecarlo.squared_normal_shape_statistics`), dashed
            lines.

    F(1, nu) samples are blue dots, inverse-gamma samples red triangles, on a log nu axis
    with a dotted vertical line at nu = 4.
    """
    fig, axes = figure(1, 2, width=3.3, height=2.9)
    lo, hi = curves["nu"].min(), curves["nu"].max()
    panels = (("beta", "beta_GM", r"$\beta_{GM}$"), ("kappa", "kappa_CS", r"$\kappa_{CS}$"))
    for ax, (prefix, ref_key, ylabel) in zip(axes, panels, strict=True):
        ax.plot(curves["nu"], curves[f"{prefix}_F"], "o", color=CALIBRATED, label=r"$F(1,\nu)$")
        ax.plot(
            curves["nu"],
            curves[f"{prefix}_IG"],
            "^",
            color=UNCALIBRATED,
            label=r"$\Gamma^{-1}(\nu/2,\nu/2)$",
        )
        ax.axhline(
            chi2_ref[ref_key],
            ls="--",
            color=REFERENCE,
            lw=0.8,
            label=r"$\chi^2_1$ (squared normal)",
        )
        ax.axvline(4.0, ls=":", color=REFERENCE, lw=0.8)
        ax.set_xscale("log")
        ax.set_xticks([t for t in _LOG_NU_TICKS if lo <= t <= hi])
        ax.xaxis.set_major_formatter("{x:g}")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set(xlabel=r"$\nu$", ylabel=ylabel)
    axes[0].legend(loc="upper right")
    return fig


def fig_tig_bias(points: pd.DataFrame, statistic: str | Sequence[str]) -> Figure:
    """Figs 4 and 11: Monte Carlo mean +- 2 SE of calibration statistics of TIG sets.

    Args:
        points: one row per (nu_IG, nu_D) from
            :func:`uqval.papers.heavytails.montecarlo.tig_bias_point`.
        statistic: panel statistic(s) among ``"RCE"``, ``"RCE2"``, ``"1-ZMS"``: Fig. 4 is
            ``("RCE", "1-ZMS")``, Fig. 11 is ``"RCE2"``.

    Each panel plots the statistic against beta_GM(E^2) (RCE, RCE2) or beta_GM(Z^2)
    (1 - ZMS), one line per nu_D joining the nu_IG points, error bars 2 SE = 2 sd/sqrt(N)
    (authors' code; docs/choices.md, "Monte Carlo error bars"), a line at the reference 0 and a
    dashed line at the Table 2 limit 0.8.
    """
    names = [statistic] if isinstance(statistic, str) else list(statistic)
    unknown = [n for n in names if n not in _STAT_LABELS]
    if unknown or not names:
        raise ValueError(f"statistics must be among {list(_STAT_LABELS)}, got {names}")
    fig, axes = figure(1, len(names), width=3.6, height=3.2, squeeze=False)
    nu_ds = sorted(points["nu_d"].unique())
    for ax, name in zip(axes[0], names, strict=True):
        x_col = _X_COLUMNS[name]
        ax.axhline(0.0, color=REFERENCE, lw=0.8)
        ax.axvline(SKEWNESS_LIMIT, color=REFERENCE, lw=0.8, ls="--")
        for colour, nu_d in zip(PALETTE, nu_ds, strict=False):
            series = points[points["nu_d"] == nu_d].sort_values(x_col)
            ax.errorbar(
                series[x_col],
                series[f"{name}_mean"],
                yerr=2.0 * series[f"{name}_se"],
                fmt="o-",
                ms=3,
                lw=0.9,
                capsize=2,
                color=colour,
                label=f"{nu_d:g}",
            )
        ax.set(xlabel=_X_LABELS[x_col], ylabel=f"{_STAT_LABELS[name]}  (mean ± 2 SE)")
    for ax in axes[0]:  # every panel gets the nu_D key (the colours are shared)
        ax.legend(title=r"$\nu_D$", loc="upper left", ncols=2)
    return fig


def _top_axis(ax: Axes, nus: np.ndarray, betas: np.ndarray, label: str) -> None:
    """Upper x-axis with the mean beta_GM at the nu positions, dropping crowded labels."""
    lo, hi = ax.get_xlim()
    kept: list[int] = []
    for i in np.argsort(nus):
        if not kept or (nus[i] - nus[kept[-1]]) / (hi - lo) >= _TOP_LABEL_GAP:
            kept.append(int(i))
    top = ax.secondary_xaxis("top")
    top.set_xticks(nus[kept], labels=[f"{b:.2f}" for b in betas[kept]], rotation=90, fontsize=7)
    top.set_xlabel(label)


def _pval_panel(ax: Axes, summary: pd.DataFrame, xlabel: str, top_label: str) -> None:
    summary = summary.sort_values("nu")
    nus = summary["nu"].to_numpy(dtype=float)
    ax.axhline(0.95, color=REFERENCE, lw=0.8, ls="--")
    for name, colour, marker in (("ZMS", CALIBRATED, "o"), ("RCE", UNCALIBRATED, "s")):
        p = summary[f"{name}_pval"].to_numpy(dtype=float)
        err = [p - summary[f"{name}_ci_low"].to_numpy(), summary[f"{name}_ci_high"].to_numpy() - p]
        ax.errorbar(
            nus, p, yerr=err, fmt=f"{marker}-", ms=3, lw=0.9, capsize=2, color=colour, label=name
        )
    pad = 0.04 * (nus.max() - nus.min())
    ax.set_xlim(nus.min() - pad, nus.max() + pad)
    ax.set(xlabel=xlabel, ylabel=r"$p_{val}$")
    _top_axis(ax, nus, summary["beta_GM"].to_numpy(dtype=float), top_label)
    ax.legend(loc="lower right")


def fig_pval(nig_summary: pd.DataFrame, tig_summary: pd.DataFrame) -> Figure:
    """Fig. 5: validation probability p_val of ZMS (blue) and RCE (red) vs nu.

    Args:
        nig_summary: one row per nu_IG of the NIG scenario, with the
            :func:`uqval.papers.heavytails.montecarlo.pval_summary` columns (``nu, ZMS_pval,
            ZMS_ci_low, ZMS_ci_high, RCE_pval, RCE_ci_low, RCE_ci_high``) plus ``beta_GM``, the mean
            beta_GM(uE^2) of :func:`uqval.papers.heavytails.montecarlo.pval_upper_axis`.
        tig_summary: the same per nu_D of the TIG scenario, ``beta_GM`` being the mean
            beta_GM(E^2).

    Error bars are the Wilson-cc 95 % intervals; the dashed line is the nominal 0.95; the
    upper axis shows the mean beta_GM (2 decimals) at the same nu positions, labels too
    close to their left neighbour being left out.
    """
    fig, (left, right) = figure(1, 2, width=3.4, height=3.2, sharey=True)
    _pval_panel(left, nig_summary, r"$\nu_{IG}$", r"$\langle\beta_{GM}(u_E^2)\rangle$")
    _pval_panel(right, tig_summary, r"$\nu_D$", r"$\langle\beta_{GM}(E^2)\rangle$")
    right.set_ylabel("")
    return fig
