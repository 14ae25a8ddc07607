"""Figures: one shared matplotlib style (style.py), reusable panels (panels.py) and one-call
diagnostic plots of a user's errors and uncertainties (diagnostics.py)."""

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
