"""Validation of cross-validated recalibrated uncertainties (``uqval validate --recalibrate``).

Recalibrating and validating on the same points flatters the result: the fit has seen the
errors it is judged on. :func:`validate_recalibrated` instead validates the *out-of-fold*
uncertainties of :func:`uqval.recalibration.cross_validate` (k = 5 folds by default): the
uncertainties of each fold are recalibrated by the method fitted on the other folds, so
every point is judged with a recalibration that has not seen it. Methods
(:mod:`uqval.recalibration`): ``sigma`` (one factor sqrt(ZMS), P001 Eq. 11), ``isotonic``
(monotone map of uE², fixes consistency, P003 Sect. III.B) and ``binned:FEATURE`` (one
factor per equal-count bin of a feature, as many bins as the validation uses along it,
fixes adaptivity, P003 Sect. III.B.3).

The result says so everywhere: ``parameters["recalibration"]``, a column ``uncertainties``
in the verdicts (hence verdicts.csv and the report) and a paragraph of the summary.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval.binning import default_n_bins
from uqval.recalibration import binned_scaling, cross_validate
from uqval.validation.engine import validate
from uqval.validation.inputs import REPEATED_ROWS, Features, clean_inputs
from uqval.validation.result import ValidationResult

__all__ = ["METHODS", "describe", "parse_method", "validate_recalibrated"]

METHODS = ("sigma", "isotonic", "binned:FEATURE")
"""Accepted spellings of the recalibration method."""


def parse_method(spec: str) -> tuple[str, str | None]:
    """``"sigma"``, ``"isotonic"`` or ``"binned:FEATURE"`` as (method, feature or None).

    Raises:
        ValueError: for any other spelling (naming the accepted ones).
    """
    method, sep, feature = spec.partition(":")
    if method in ("sigma", "isotonic") and not sep:
        return method, None
    if method == "binned" and feature:
        return method, feature
    raise ValueError(
        f"recalibration method must be one of {', '.join(METHODS)}, got {spec!r}"
    )


def describe(method: str, feature: str | None, folds: int, seed: int) -> str:
    """One line saying how the uncertainties were recalibrated."""
    what = {"sigma": "sigma scaling (one factor sqrt(ZMS))",
            "isotonic": "isotonic regression of E² on uE²",
            "binned": f"one scale factor per range of {feature}"}[method]
    return (f"recalibrated by {folds}-fold cross-validation ({what}; out-of-fold "
            f"uncertainties, seed {seed})")


def validate_recalibrated(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    features: Features = None,
    *,
    method: str,
    recalibration_feature: ArrayLike | None = None,
    feature_name: str | None = None,
    folds: int = 5,
    variance: bool = False,
    drop_invalid: bool = False,
    uncertainty_name: str | None = None,
    seed: int = 0,
    groups: ArrayLike | None = None,
    **options: Any,
) -> ValidationResult:
    """:func:`uqval.validate` of the out-of-fold recalibrated uncertainties (module doc).

    Args:
        errors, uncertainties, features, variance, drop_invalid, uncertainty_name, seed:
            as for :func:`uqval.validate` (``seed`` also shuffles the folds).
        method: ``"sigma"``, ``"isotonic"`` or ``"binned"``.
        recalibration_feature: values of the feature of ``"binned"`` (rows with invalid
            values are an error or removed like any other, with ``drop_invalid``).
        feature_name: its name, for the text.
        folds: number of cross-validation folds.
        groups: a label per row when rows come in groups whose errors share a part: the
            folds split whole groups and the validation gets ``groups=``.
        **options: further keyword arguments of :func:`uqval.validate` (n_boot, n_bins, ...).

    Returns:
        The :class:`~uqval.validation.engine.ValidationResult`, with the row counts of the original rows.
    """
    if method not in ("sigma", "isotonic", "binned"):
        raise ValueError(f"method must be 'sigma', 'isotonic' or 'binned', got {method!r}")
    if (method == "binned") != (recalibration_feature is not None):
        raise ValueError("recalibration_feature is needed with method 'binned' and only then")
    feats = _as_mapping(features)
    key = "recalibration feature"
    while key in feats:
        key += " "
    if recalibration_feature is not None:
        feats[key] = recalibration_feature
    clean = clean_inputs(errors, uncertainties, feats, data=None, variance=variance,
                         drop_invalid=drop_invalid, uncertainty_name=uncertainty_name,
                         groups=groups)
    e, u = clean.errors, clean.uncertainties
    x = clean.features.pop(key, None)
    fit: Any = method
    if method == "binned":
        n_bins = options.get("n_bins") or default_n_bins(e.size)
        fit = _binned(int(n_bins))
    recal = cross_validate(fit, e, u, feature=x, folds=folds, seed=seed, groups=clean.groups)
    result = validate(e, recal, clean.features, seed=seed, uncertainty_name=clean.uncertainty_name,
                      groups=clean.groups, **options)
    text = describe(method, feature_name or "the feature", folds, seed)
    verdicts = result.verdicts.copy()
    verdicts["uncertainties"] = text
    warnings = (*clean.warnings, *(w for w in result.warnings if REPEATED_ROWS not in w))
    return dataclasses.replace(
        result, verdicts=verdicts, row_counts=clean.row_counts, warnings=warnings,
        parameters={**result.parameters, "variance_input": variance, "recalibration": text},
    )


def _as_mapping(features: Features) -> dict[str, Any]:
    if features is None:
        return {}
    if isinstance(features, pd.DataFrame):
        return {str(c): features[c] for c in features.columns}
    if isinstance(features, Mapping):
        return {str(k): v for k, v in features.items()}
    raise ValueError("features must be a mapping name -> values or a DataFrame")


def _binned(n_bins: int):
    """Binned scaling with the validation's bin count, no interval (only the factors)."""

    def fit(e: NDArray[np.float64], u: NDArray[np.float64], x: NDArray[np.float64]):
        return binned_scaling(e, u, x, n_bins=min(n_bins, e.size // 2), n_boot=200)

    return fit
