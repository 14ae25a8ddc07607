"""Validation of a user's own errors and uncertainties: :func:`validate` and its result.

Modules: :mod:`~uqval.validation.engine` (the engine), :mod:`~uqval.validation.rules`
(decision rules), :mod:`~uqval.validation.permutation` (between-bin permutation tests),
:mod:`~uqval.binning` (binning), :mod:`~uqval.validation.inputs` (argument checks),
:mod:`~uqval.validation.io` (reading files), :mod:`~uqval.validation.figure_stage` (the
numbers of the report's figures), :mod:`~uqval.report.summary`
(plain-language text), :mod:`~uqval.report.validation` (files, figures, HTML report).
Predictive outputs (``validate(y_true, predictive)``): :mod:`~uqval.validation.predictive_engine`
(the engine and :class:`~uqval.validation.predictive_engine.PredictiveValidation`) and
:mod:`~uqval.validation.coverage_shape` (the coverage and shape stages).
"""

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.validation.engine import validate
    from uqval.validation.result import ScaleFactor, ValidationResult

__all__ = ["ScaleFactor", "ValidationResult", "validate"]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
