"""uqval: validation of the uncertainties of machine-learning regression models.

Errors E (reference minus prediction) and standard uncertainties uE are linked by
E ~ uE·D(0, 1); the functions below test that link on your own arrays (NumPy arrays or
pandas Series), on average and conditionally on the uncertainty (consistency) or on input
features (adaptivity). Every function takes ``(errors, uncertainties, ...)`` first.

Start here
    :func:`validate` — one call: average calibration, consistency and adaptivity with
    verdicts, the scale factor, per-bin tables, a plain-language summary and an HTML report
    (:class:`ValidationResult`). Command line: ``uqval validate FILE ...``.
    :func:`validate_parts` — the same for a test set too large for one process, given as a
    folder or glob of Parquet parts (:class:`PartColumns` names the columns). Command line:
    ``uqval validate FOLDER/ ...``.

Average calibration
    :func:`zms` — mean squared z-score <Z²>, Z = E/uE (target 1).
    :func:`rce` — relative calibration error (RMV − RMSE)/RMV (target 0).
    :func:`bca_bootstrap` — BCa bootstrap interval of any statistic (:class:`BootstrapResult`).
    :func:`average_calibration` — ZMS and RCE with BCa intervals and ζ-scores
    (:class:`AverageCalibration`).
    :func:`zeta_score` — ζ = (estimate − target)/(interval half-width on the target's side).
    :func:`screen` — heavy-tail screening: robust skewness β_GM of uE², E², Z² and whether
    ZMS/RCE intervals can be trusted (:class:`Screening`).
    :func:`beta_gm` — robust (Groeneveld–Meeden) skewness of a sample.
    :func:`hd_quantile` — Harrell–Davis quantile estimate of a sample.
    :func:`nll`, :func:`nll_ref` — Gaussian negative log-likelihood and its value for a
    calibrated set; :func:`rmse` — root mean squared error.

Conditional calibration
    :func:`equal_count_bins`, :func:`equal_width_bins`, :func:`adaptive_bins` — bins of a
    variable (uE or a feature).
    :func:`local_zms`, :func:`local_zisd`, :func:`local_zvar`, :func:`local_rce`,
    :func:`local_coverage` — per-bin LZMS, LZISD, LZV, LRCE and LCP with their intervals.
    :func:`fraction_valid` — fraction f_v of bins whose interval contains the target
    (:class:`FractionValid`).
    :func:`reliability_diagram` — RMSE against RMV per bin.
    :func:`ence`, :func:`zmse` — binned calibration errors.
    :func:`local_analysis` — LZM and LZMS along one variable with f_v
    (:class:`LocalAnalysis`).
    :func:`isotonic_reliability` — bin-free isotonic (PAV) fit of E² on uE² with its
    consistency and bootstrap bands and the CORP decomposition of the QLIKE score, whose
    miscalibration term gets a simulated p-value (:class:`IsotonicReliability`,
    :class:`CorpDecomposition`).
    :func:`cumulative_test` — bin-free cumulative-difference test (Kuiper or KS, permutation
    p-value) of Z² − 1 or Z along uE or a feature (:class:`CumulativeTest`).
    :func:`mcb_permutation_test` — distribution-free permutation test of the isotonic (CORP)
    miscalibration beyond one global factor (:class:`MCBTest`).
    :func:`joint_calibration` — do Z² and Z depend on all features together? Cross-fitted
    gradient boosting with exact permutation p-values and the regions, in the features'
    units, where the uncertainties are most wrong (:class:`JointCalibration`).

Curves and prediction intervals
    :func:`calibration_curve` — observed against nominal coverage (:class:`CalibrationCurve`).
    :func:`confidence_curve` — error statistic after removing the largest uE
    (:class:`ConfidenceCurve`), with :func:`probabilistic_reference`.
    :func:`ucc_curve`, :func:`auucc`, :func:`auucc_gain`, :func:`partial_auucc_gain`,
    :func:`auucc_permutation_test` — Uncertainty Characteristics Curves of
    :class:`PredictionIntervals` (:class:`UCCCurve`).

Statistics without a known reference
    :func:`simulated_reference` — reference value of a statistic simulated with your own uE
    (:class:`SimulatedReference`).
    :func:`validate_statistic` — the simulated-reference validation of one statistic
    (:class:`Validation`).

Scores, recalibration and model comparison
    :func:`calibration_scores` — every score of :mod:`uqval.scores` with its simulated
    reference (:class:`CalibrationScores`, :class:`ScoreReference`); single scores
    :func:`uce`, :func:`crps`, :func:`interval_score`, :func:`check_score`,
    :func:`miscalibration_area`, :func:`rms_calibration_error`,
    :func:`mean_absolute_calibration_error`, :func:`sharpness`, :func:`mae`, :func:`mdae`,
    :func:`r2`, :func:`rank_correlation` (ENCE, ZMSE, NLL, RMSE on equal-count bins of uE in
    :mod:`uqval.scores`).
    :func:`adversarial_group_calibration` — worst-group calibration error against group size
    (:class:`GroupCalibration`).
    :func:`sigma_scaling`, :func:`isotonic`, :func:`binned_scaling` — recalibration fitted on
    one set, ``.apply`` to another (:class:`SigmaScaling`, :class:`IsotonicMap`,
    :class:`BinnedScaling`); :func:`cross_validate` — out-of-fold recalibrated uncertainties.
    :func:`compare` — scores, paired differences and ranking of several models
    (:class:`ModelComparison`).
    :func:`murphy_diagram` — Murphy diagram of several models' variance forecasts: is one
    better for every consistent score of the variance? (:class:`MurphyDiagram`).

Ensembles, quantiles, intervals and predictive distributions
    :class:`Normal`, :class:`StudentT`, :class:`Laplace` — parametric predictives given by mean
    and standard deviation; :class:`Ensemble`, :class:`Samples` — members or draws in columns;
    :class:`Quantiles` — a quantile set; :class:`Intervals` — central intervals by level. Each
    gives the point prediction, variance, PIT, CDF, central intervals and CRPS, and counts its
    data problems (:class:`DataIssues`). ``validate(y_true, predictive, ...)`` validates them
    (coverage, shape and, where a variance exists, the variance stages;
    :class:`PredictiveValidation`); ``compare({...}, y_true=y)`` compares models of different
    kinds on the scores they share (:class:`PredictiveComparison`).

Names are loaded on first use, so ``import uqval`` stays fast. The paper reproductions are
in :mod:`uqval.papers` and the Snakemake plumbing in :mod:`uqval.pipeline`; neither is needed
to validate your own data.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, str]] = {
    # one-call validation
    "validate": ("uqval.validation.engine", "validate"),
    "ValidationResult": ("uqval.validation.result", "ValidationResult"),
    "validate_parts": ("uqval.validation.parts", "validate_parts"),
    "PartColumns": ("uqval.validation.parts", "PartColumns"),
    # average calibration
    "zms": ("uqval.calibration.average", "zms"),
    "rce": ("uqval.calibration.average", "rce"),
    "bca_bootstrap": ("uqval.stats.bootstrap", "bca_bootstrap"),
    "BootstrapResult": ("uqval.stats.bootstrap", "BootstrapResult"),
    "average_calibration": ("uqval.calibration.average", "average_calibration"),
    "AverageCalibration": ("uqval.calibration.average", "AverageCalibration"),
    "zeta_score": ("uqval.stats.zeta", "zeta_score"),
    "screen": ("uqval.calibration.screening", "screen"),
    "Screening": ("uqval.calibration.screening", "Screening"),
    "beta_gm": ("uqval.stats.robust", "beta_gm"),
    "hd_quantile": ("uqval.stats.robust", "hd_quantile"),
    "nll": ("uqval.scores", "nll"),
    "nll_ref": ("uqval.scores", "nll_ref"),
    "rmse": ("uqval.scores", "rmse"),
    # conditional calibration
    "equal_count_bins": ("uqval.binning", "equal_count_bins"),
    "adaptive_bins": ("uqval.binning", "adaptive_bins"),
    "equal_width_bins": ("uqval.binning", "equal_width_bins"),
    "local_zms": ("uqval.calibration.local", "local_zms"),
    "local_zisd": ("uqval.calibration.local", "local_zisd"),
    "local_coverage": ("uqval.calibration.coverage", "local_coverage"),
    "local_zvar": ("uqval.calibration.local", "local_zvar"),
    "local_rce": ("uqval.calibration.local", "local_rce"),
    "fraction_valid": ("uqval.calibration.fraction_valid", "fraction_valid"),
    "FractionValid": ("uqval.calibration.fraction_valid", "FractionValid"),
    "reliability_diagram": ("uqval.calibration.local", "reliability_diagram"),
    "ence": ("uqval.scores", "ence"),
    "zmse": ("uqval.scores", "zmse"),
    "local_analysis": ("uqval.calibration.adaptivity", "local_analysis"),
    "LocalAnalysis": ("uqval.calibration.adaptivity", "LocalAnalysis"),
    "isotonic_reliability": ("uqval.calibration.isotonic", "isotonic_reliability"),
    "IsotonicReliability": ("uqval.calibration.isotonic", "IsotonicReliability"),
    "CorpDecomposition": ("uqval.calibration.isotonic", "CorpDecomposition"),
    "cumulative_test": ("uqval.calibration.cumulative", "cumulative_test"),
    "CumulativeTest": ("uqval.calibration.cumulative", "CumulativeTest"),
    "mcb_permutation_test": ("uqval.calibration.isotonic", "mcb_permutation_test"),
    "MCBTest": ("uqval.calibration.isotonic", "MCBTest"),
    "joint_calibration": ("uqval.calibration.joint", "joint_calibration"),
    "JointCalibration": ("uqval.calibration.joint", "JointCalibration"),
    "murphy_diagram": ("uqval.scores.murphy", "murphy_diagram"),
    "MurphyDiagram": ("uqval.scores.murphy", "MurphyDiagram"),
    # curves and prediction intervals
    "calibration_curve": ("uqval.calibration.curves", "calibration_curve"),
    "CalibrationCurve": ("uqval.calibration.curves", "CalibrationCurve"),
    "confidence_curve": ("uqval.calibration.curves", "confidence_curve"),
    "ConfidenceCurve": ("uqval.calibration.curves", "ConfidenceCurve"),
    "probabilistic_reference": ("uqval.calibration.curves", "probabilistic_reference"),
    "PredictionIntervals": ("uqval.ucc", "PredictionIntervals"),
    "ucc_curve": ("uqval.ucc", "ucc_curve"),
    "UCCCurve": ("uqval.ucc", "UCCCurve"),
    "auucc": ("uqval.ucc", "auucc"),
    "auucc_gain": ("uqval.ucc", "auucc_gain"),
    "partial_auucc_gain": ("uqval.ucc", "partial_auucc_gain"),
    "auucc_permutation_test": ("uqval.ucc", "auucc_permutation_test"),
    # simulated references
    "simulated_reference": ("uqval.simref", "simulated_reference"),
    "SimulatedReference": ("uqval.simref", "SimulatedReference"),
    "validate_statistic": ("uqval.simref", "validate_statistic"),
    "Validation": ("uqval.simref", "Validation"),
    # scores, recalibration, comparison
    "calibration_scores": ("uqval.scores", "calibration_scores"),
    "CalibrationScores": ("uqval.scores", "CalibrationScores"),
    "ScoreReference": ("uqval.scores", "ScoreReference"),
    "uce": ("uqval.scores", "uce"),
    "crps": ("uqval.scores", "crps"),
    "interval_score": ("uqval.scores", "interval_score"),
    "check_score": ("uqval.scores", "check_score"),
    "miscalibration_area": ("uqval.scores", "miscalibration_area"),
    "rms_calibration_error": ("uqval.scores", "rms_calibration_error"),
    "mean_absolute_calibration_error": ("uqval.scores", "mean_absolute_calibration_error"),
    "sharpness": ("uqval.scores", "sharpness"),
    "mae": ("uqval.scores", "mae"),
    "mdae": ("uqval.scores", "mdae"),
    "r2": ("uqval.scores", "r2"),
    "rank_correlation": ("uqval.scores", "rank_correlation"),
    "adversarial_group_calibration": (
        "uqval.calibration.group",
        "adversarial_group_calibration",
    ),
    "GroupCalibration": ("uqval.calibration.group", "GroupCalibration"),
    "sigma_scaling": ("uqval.recalibration", "sigma_scaling"),
    "SigmaScaling": ("uqval.recalibration", "SigmaScaling"),
    "isotonic": ("uqval.recalibration", "isotonic"),
    "IsotonicMap": ("uqval.recalibration", "IsotonicMap"),
    "binned_scaling": ("uqval.recalibration", "binned_scaling"),
    "BinnedScaling": ("uqval.recalibration", "BinnedScaling"),
    "cross_validate": ("uqval.recalibration", "cross_validate"),
    "compare": ("uqval.comparison", "compare"),
    # predictive outputs of every kind
    "Normal": ("uqval.predictive", "Normal"),
    "StudentT": ("uqval.predictive", "StudentT"),
    "Laplace": ("uqval.predictive", "Laplace"),
    "Ensemble": ("uqval.predictive", "Ensemble"),
    "Samples": ("uqval.predictive", "Samples"),
    "Quantiles": ("uqval.predictive", "Quantiles"),
    "Intervals": ("uqval.predictive", "Intervals"),
    "DataIssues": ("uqval.predictive", "DataIssues"),
    "PredictiveValidation": ("uqval.validation.predictive_engine", "PredictiveValidation"),
    "PredictiveComparison": ("uqval.comparison.predictive", "PredictiveComparison"),
    "ModelComparison": ("uqval.comparison", "ModelComparison"),
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # static checkers see the real objects
    from uqval.binning import (
        adaptive_bins,
        equal_count_bins,
        equal_width_bins,
    )
    from uqval.calibration.adaptivity import (
        LocalAnalysis,
        local_analysis,
    )
    from uqval.calibration.average import (
        AverageCalibration,
        average_calibration,
        rce,
        zms,
    )
    from uqval.calibration.coverage import (
        local_coverage,
    )
    from uqval.calibration.cumulative import (
        CumulativeTest,
        cumulative_test,
    )
    from uqval.calibration.curves import (
        CalibrationCurve,
        ConfidenceCurve,
        calibration_curve,
        confidence_curve,
        probabilistic_reference,
    )
    from uqval.calibration.fraction_valid import (
        FractionValid,
        fraction_valid,
    )
    from uqval.calibration.group import (
        GroupCalibration,
        adversarial_group_calibration,
    )
    from uqval.calibration.isotonic import (
        CorpDecomposition,
        IsotonicReliability,
        MCBTest,
        isotonic_reliability,
        mcb_permutation_test,
    )
    from uqval.calibration.joint import (
        JointCalibration,
        joint_calibration,
    )
    from uqval.calibration.local import (
        local_rce,
        local_zisd,
        local_zms,
        local_zvar,
        reliability_diagram,
    )
    from uqval.calibration.screening import (
        Screening,
        screen,
    )
    from uqval.comparison import (
        ModelComparison,
        compare,
    )
    from uqval.comparison.predictive import PredictiveComparison
    from uqval.predictive import (
        DataIssues,
        Ensemble,
        Intervals,
        Laplace,
        Normal,
        Quantiles,
        Samples,
        StudentT,
    )
    from uqval.recalibration import (
        BinnedScaling,
        IsotonicMap,
        SigmaScaling,
        binned_scaling,
        cross_validate,
        isotonic,
        sigma_scaling,
    )
    from uqval.scores import (
        CalibrationScores,
        ScoreReference,
        calibration_scores,
        check_score,
        crps,
        ence,
        interval_score,
        mae,
        mdae,
        mean_absolute_calibration_error,
        miscalibration_area,
        nll,
        nll_ref,
        r2,
        rank_correlation,
        rms_calibration_error,
        rmse,
        sharpness,
        uce,
        zmse,
    )
    from uqval.scores.murphy import (
        MurphyDiagram,
        murphy_diagram,
    )
    from uqval.simref import (
        SimulatedReference,
        Validation,
        simulated_reference,
        validate_statistic,
    )
    from uqval.stats.bootstrap import (
        BootstrapResult,
        bca_bootstrap,
    )
    from uqval.stats.robust import (
        beta_gm,
        hd_quantile,
    )
    from uqval.stats.zeta import (
        zeta_score,
    )
    from uqval.ucc import (
        PredictionIntervals,
        UCCCurve,
        auucc,
        auucc_gain,
        auucc_permutation_test,
        partial_auucc_gain,
        ucc_curve,
    )
    from uqval.validation.engine import validate
    from uqval.validation.parts import PartColumns, validate_parts
    from uqval.validation.predictive_engine import PredictiveValidation
    from uqval.validation.result import ValidationResult


def __getattr__(name: str) -> Any:
    """Load an exported name from its module on first access (PEP 562)."""
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'uqval' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
