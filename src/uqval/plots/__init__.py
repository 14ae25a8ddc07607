"""Figures: one shared matplotlib style (style.py), reusable panels (panels.py) and one-call
diagnostic plots of a user's errors and uncertainties (diagnostics.py)."""

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.plots.diagnostics import (
        calibration_curve_plot,
        confidence_curve_plot,
        intervals_plot,
        local_zm_plot,
        local_zms_plot,
        reliability_diagram_plot,
        ucc_plot,
        z_vs_feature_plot,
    )

__all__ = [
    "calibration_curve_plot",
    "confidence_curve_plot",
    "intervals_plot",
    "local_zm_plot",
    "local_zms_plot",
    "reliability_diagram_plot",
    "ucc_plot",
    "z_vs_feature_plot",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
