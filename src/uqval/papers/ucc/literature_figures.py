"""Figure of the UCC gains of the configured datasets (no scikit-learn needed)."""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure

from uqval.plots.style import CALIBRATED, UNCALIBRATED, panel_grid


def fig_literature_ucc(curves: Mapping[str, Mapping[str, Mapping[str, tuple]]], gains: Mapping[str, float]) -> Figure:
    """UCC gains of the configured datasets: one panel per dataset, bandwidth–miss-rate UCC
    (axes in standard-deviation units) of the dataset's band (blue) and of the constant band
    (red dashed), with the AUUCC gain (Eq. 6) in the title."""
    n = len(curves)
    fig, axes = panel_grid(n, ncols=4, width=2.5, height=2.2)
    for ax, (name, per_axes) in zip(axes, curves.items(), strict=False):
        bw = per_axes["bandwidth-miss_rate"]
        ax.plot(*bw["model"], color=CALIBRATED, label="uncertainties")
        ax.plot(*bw["constant"], "--", color=UNCALIBRATED, label="constant")
        ax.set_xlim(0, 3)
        ax.set_ylim(0, 1.02)
        # same axis names as the other UCC figures (uqval.papers.ucc.figures)
        ax.set(xlabel="Bandwidth (sd units)", ylabel="Miss rate")
        ax.set_title(f"{name}\ngain {gains[name]:+.1f} %", fontsize=7)
    axes[0].legend(loc="upper right", fontsize=6)
    return fig
