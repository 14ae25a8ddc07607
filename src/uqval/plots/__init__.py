"""Figures: one shared matplotlib style (style.py), reusable panels (panels.py), the numbers a
figure draws (records.py, no matplotlib), drawing functions that only read those records
(drawing.py) and one-call diagnostic plots of a user's errors and uncertainties
(diagnostics.py, reliability.py: compute the record, then draw it)."""

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
    from uqval.plots.drawing import (
        bins_table_plot,
        draw_calibration_curve,
        draw_confidence_curve,
        draw_isotonic_reliability,
        draw_reliability_diagram,
        draw_ucc,
        draw_z_along,
    )

__all__ = [
    "bins_table_plot",
    "calibration_curve_plot",
    "confidence_curve_plot",
    "draw_calibration_curve",
    "draw_confidence_curve",
    "draw_isotonic_reliability",
    "draw_reliability_diagram",
    "draw_ucc",
    "draw_z_along",
    "intervals_plot",
    "local_zm_plot",
    "local_zms_plot",
    "reliability_diagram_plot",
    "ucc_plot",
    "z_vs_feature_plot",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
