"""Scores of errors and uncertainties, each with its definition and reference.

Flat functions ``(errors, uncertainties, ...)`` returning floats (arrays or pandas Series
accepted; ``ValueError`` naming the argument on bad input):

* binned calibration errors on equal-count bins of uE (:mod:`.binned`): :func:`ence`,
  :func:`zmse`, :func:`uce`;
* proper scoring rules of y ~ ŷ + uE·D, D normal or unit-variance Student t (:mod:`.proper`):
  :func:`nll`, :func:`crps`, :func:`interval_score`, :func:`check_score`;
* calibration-curve scores as uncertainty-toolbox defines them (:mod:`.curves`):
  :func:`miscalibration_area`, :func:`rms_calibration_error`,
  :func:`mean_absolute_calibration_error`, and :func:`sharpness`;
* accuracy (:mod:`.accuracy`): :func:`mae`, :func:`rmse`, :func:`mdae`, :func:`r2`
  (``y_true, y_pred``), :func:`rank_correlation`, :func:`errors_from`;
* :func:`calibration_scores`: all of them with simulated probabilistic references
  (:mod:`.references`, :class:`CalibrationScores`).

The table of docs/explanations/scores.md ("Scores and their references") lists the definitions
and sources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.scores.accuracy import errors_from, mae, mdae, r2, rank_correlation, rmse
    from uqval.scores.binned import ence, uce, zmse
    from uqval.scores.curves import (
        mean_absolute_calibration_error,
        miscalibration_area,
        rms_calibration_error,
        sharpness,
    )
    from uqval.scores.proper import check_score, crps, interval_score, nll, nll_ref
    from uqval.scores.references import (
        SCORES,
        CalibrationScores,
        ScoreReference,
        calibration_scores,
    )

__all__ = [
    "SCORES",
    "CalibrationScores",
    "ScoreReference",
    "calibration_scores",
    "check_score",
    "crps",
    "ence",
    "errors_from",
    "interval_score",
    "mae",
    "mdae",
    "mean_absolute_calibration_error",
    "miscalibration_area",
    "nll",
    "nll_ref",
    "r2",
    "rank_correlation",
    "rms_calibration_error",
    "rmse",
    "sharpness",
    "uce",
    "zmse",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
