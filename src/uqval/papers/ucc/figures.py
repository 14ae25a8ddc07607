"""Figures of the UCC paper (P004): x·sin(x) UCCs (Fig. 4.1a), data (Fig. 7), GP example
(Fig. 2 and Figs 4.1b–c)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from uqval.papers.ucc.experiments import COORDINATES, GPExample, XSinXData
from uqval.plots.style import (
    CALIBRATED,
    PALETTE,
    REFERENCE,
    SHADE,
    UNCALIBRATED,
    figure,
    panel_label,
)
from uqval.ucc import OperatingPoint, PredictionIntervals, UCCCurve, auucc, auucc_gain

_COORD_TITLES = {"Ex-De": "excess–deficit", "Bw-MR": "bandwidth–miss rate"}

_LABELS = {
    "miss_rate": "Miss rate",
    "bandwidth": "Bandwidth",
    "excess": "Excess",
    "deficit": "Deficit",
}


def _axis_label(name: str, unit: float) -> str:
    if name == "miss_rate":
        return _LABELS[name]
    return f"{_LABELS[name]} (sd units)" if unit != 1.0 else f"{_LABELS[name]} (raw)"


def _ucc_axes(ax: Axes, curve: UCCCurve, x_limit: float | None) -> None:
    ax.set_xlabel(_axis_label(curve.x_axis, curve.unit))
    ax.set_ylabel(_axis_label(curve.y_axis, curve.unit))
    ax.set_xlim(0.0, x_limit)
    ax.set_ylim(0.0, None)


def _tail_limit(curves: Sequence[UCCCurve], points: Sequence[OperatingPoint]) -> float:
    """x range showing every curve down to 1 % of its first y, and every point, plus 10 %."""
    ends = [float(c.x[np.argmax(c.y <= 0.01 * c.y[0])]) for c in curves]
    return 1.1 * max(ends + [p.x for p in points])


def fig_xsinx_ucc(
    curves: Mapping[tuple[str, str], UCCCurve],
    operating_points: Mapping[tuple[str, str], OperatingPoint],
    models: Sequence[str] = ("GBR", "Constant", "GBR-Weak", "Random", "Eps-Perfect"),
    x_limits: Mapping[str, float] | None = None,
) -> Figure:
    """Fig. 4.1a: UCCs of several models on (a) excess–deficit and (b) bandwidth–miss-rate
    axes, AUUCC in the legend, hollow circles at the operating points (held-out tuned,
    c = 0.1). ``x_limits`` per coordinate system; by default each curve is shown down to
    1 % of its first y value (long sparse tails are cut)."""
    fig, axes = figure(1, 2, width=3.6, height=3.1)
    for ax, (label, coords) in zip(axes, zip("ab", COORDINATES, strict=True), strict=True):
        for colour, name in zip(PALETTE, models, strict=False):
            curve = curves[name, coords]
            ax.plot(curve.x, curve.y, color=colour, label=f"{name} ({auucc(curve):.3f})")
            op = operating_points[name, coords]
            # OPs sit on the axes (deficit or miss rate ~ 0): not clipped, drawn over the curves
            ax.plot(op.x, op.y, "o", mfc="white", mec=colour, mew=1.5, ms=6, clip_on=False, zorder=4)
        ax.plot([], [], "o", mfc="white", mec=REFERENCE, label="OP (c = 0.1)")
        limit = (x_limits or {}).get(coords) or _tail_limit(
            [curves[m, coords] for m in models], [operating_points[m, coords] for m in models]
        )
        _ucc_axes(ax, curves[models[0], coords], limit)
        ax.legend(title="model (AUUCC)", loc="upper right")
        panel_label(ax, f"({label}) {_COORD_TITLES.get(coords, coords)}")
    return fig


def fig_xsinx_data(
    data: XSinXData, gbr: PredictionIntervals, n_show: int = 1000, seed: int = 0
) -> Figure:
    """Fig. 7: noisy training subset, ground truth x sin x, GBR prediction and 95 % PI."""
    fig, ax = figure(1, 1, width=5.0, height=3.2)
    rng = np.random.default_rng(seed)
    show = rng.choice(data.x_train.size, min(n_show, data.x_train.size), replace=False)
    lower, upper = gbr.bounds()
    ax.fill_between(data.x_test, lower, upper, color=SHADE, label="GBR 95 % PI")
    ax.plot(
        data.x_train[show], data.y_train[show], ".", color="0.6", ms=2, label="training (subset)"
    )
    ax.plot(data.x_test, data.y_test, color=REFERENCE, label="ground truth x sin x")
    ax.plot(data.x_test, gbr.y_pred, color=UNCALIBRATED, label="GBR prediction")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, top + 0.25 * (top - bottom))  # room for the legend above the data
    ax.legend(loc="upper left", ncols=2)
    return fig


def fig_gp_intervals(example: GPExample) -> Figure:
    """Fig. 2: (a) GP-drawn truth and training data; (b) GP and (c) GBR-QR intervals, each
    with its constant band, all at the same test miss rate, MPIW in the legend."""
    fig, axes = figure(1, 3, width=3.0, height=2.6, sharey=True)
    ax = axes[0]
    ax.plot(example.x, example.f, color=REFERENCE, label="ground truth f")
    ax.plot(example.x_train, example.y_train, ".", color=UNCALIBRATED, ms=3, label="training")
    panel_label(ax, "(a) data")
    for ax, (label, name) in zip(axes[1:], zip("bc", example.intervals, strict=True), strict=True):
        model, const = example.intervals[name]
        lo_c, hi_c = const.bounds()
        lo_m, hi_m = model.bounds()
        ax.fill_between(
            example.x, lo_c, hi_c, color="0.88", label=f"constant, MPIW {np.mean(hi_c - lo_c):.2f}"
        )
        ax.fill_between(
            example.x,
            lo_m,
            hi_m,
            color=CALIBRATED,
            alpha=0.35,
            lw=0,
            label=f"{name}, MPIW {np.mean(hi_m - lo_m):.2f}",
        )
        ax.plot(example.x, example.f, color=REFERENCE, lw=0.8)
        ax.plot(example.x, model.y_pred, color=CALIBRATED, lw=0.8)
        panel_label(ax, f"({label}) {name}")
    for ax in axes:
        ax.set_xlabel("x")
        # legends under the panels: inside, they hid parts of the wide GBR-QR band
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=1)
    axes[0].set_ylabel("y")
    return fig


def fig_gp_ucc(example: GPExample) -> Figure:
    """Figs 4.1b–c: bandwidth–miss-rate UCC of each model vs its constant band, AUUCC and
    gain (Eq. 6) in the legend. The x axis stops at 1.5 times the constant band's largest
    bandwidth (near-zero model bands can stretch the model's curve far to the right)."""
    fig, axes = figure(1, 2, width=3.2, height=2.8)
    for ax, (label, name) in zip(axes, zip("ab", example.curves, strict=True), strict=True):
        model, const = example.curves[name]
        a_m, a_c = auucc(model), auucc(const)
        ax.plot(model.x, model.y, color=CALIBRATED, label=f"{name} ({a_m:.3f})")
        ax.plot(const.x, const.y, color=UNCALIBRATED, ls="--", label=f"constant ({a_c:.3f})")
        ax.plot([], [], " ", label=f"gain {auucc_gain(a_m, a_c):+.1f} %")
        _ucc_axes(ax, model, 1.5 * float(const.x.max()))
        ax.legend(title="AUUCC", loc="upper right")
        panel_label(ax, f"({label}) {name}")
    return fig

