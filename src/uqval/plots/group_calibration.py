"""Plot of adversarial group calibration (Zhao et al. 2020; uncertainty-toolbox
``plot_adversarial_group_calibration``), with the calibrated reference band."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from uqval.calibration.group import GroupCalibration, adversarial_group_calibration
from uqval.plots.style import CALIBRATED, REFERENCE, SHADE, UNCALIBRATED, figure

__all__ = ["group_calibration", "plot_group_calibration"]

_LABELS = {"mace": "worst-group MACE", "rmsce": "worst-group RMSCE"}


def plot_group_calibration(result: GroupCalibration, ax: Axes | None = None) -> Axes:
    """Draw a :class:`~uqval.calibration.group.GroupCalibration` curve and return the Axes."""
    if ax is None:
        _, ax = figure()
    if result.ref_mean.size and not all(x != x for x in result.ref_mean):
        ax.fill_between(result.fraction, result.ref_low, result.ref_high, color=SHADE,
                        alpha=0.6, lw=0, label="calibrated reference (95 %)")
        ax.plot(result.fraction, result.ref_mean, color=REFERENCE, ls="--", lw=1.0,
                label="calibrated reference (mean)")
    outside = (result.worst_mean > result.ref_high) | (result.worst_mean < result.ref_low)
    ax.errorbar(result.fraction, result.worst_mean, yerr=result.worst_se, color=CALIBRATED,
                marker="o", capsize=2, label="data (mean ± sd over trials)")
    if outside.any():
        ax.plot(result.fraction[outside], result.worst_mean[outside], "o", color=UNCALIBRATED,
                zorder=3, label="outside the reference band")
    ax.set_xlabel("group size (fraction of the data)")
    ax.set_ylabel(f"{_LABELS[result.kind]} (proportion)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_yscale("log")
    ax.legend()
    return ax


def group_calibration(
    errors: ArrayLike, uncertainties: ArrayLike, ax: Axes | None = None, **kwargs: Any
) -> Axes:
    """Adversarial group calibration of (E, uE) in one call; keyword arguments go to
    :func:`uqval.calibration.group.adversarial_group_calibration`."""
    return plot_group_calibration(
        adversarial_group_calibration(errors, uncertainties, **kwargs), ax=ax
    )
