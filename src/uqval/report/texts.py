"""Fixed texts of the report: the glossary and the "how to read this" of each plot.

Notation: E errors (reference minus prediction), uE standard uncertainties, Z = E/uE, M
points. Paper keys: P000 primer, P001 heavy tails, P002 simulated references, P003
adaptivity, P004 uncertainty characteristics curves (UCC).
"""

from __future__ import annotations

__all__ = ["GLOSSARY", "HOW_TO_READ"]

GLOSSARY: dict[str, str] = {
    "Z-score": "Z = E/uE, the error measured in units of its uncertainty. If the "
    "uncertainties are right, Z has mean 0 and variance 1 (P000 Sect. II).",
    "ZMS": "Mean squared z-score <Z²>. Target 1: below 1 the uncertainties are too "
    "large on average, above 1 too small (P001 Eq. 11; P003 Eq. 2).",
    "scale factor": "√ZMS: the number by which all uncertainties should be multiplied to be "
    "right on average (e.g. 1.6 means uncertainties 1.6 times too small).",
    "RCE": "Relative calibration error (RMV − RMSE)/RMV, with RMV = √<uE²> and "
    "RMSE = √<E²>. Target 0; negative when the uncertainties are too small (P001 Eq. 7).",
    "LZMS": "Local ZMS: <Z²> in each bin of the uncertainty (consistency) or of an input "
    "feature (adaptivity), with its 95 % interval; target 1 in every bin (P003 Sect. III.B).",
    "LZISD": "Local inverse standard deviation of Z, 1/sd(Z) per bin; target 1 "
    "(P000 Sect. III.3.4).",
    "f_v": "Fraction of valid bins: the share of bins whose 95 % interval contains the "
    "target. About 0.95 is expected when the uncertainties are right (P003 Sect. III.B.2).",
    "BCa": "Bias-corrected and accelerated bootstrap interval: a confidence interval from "
    "resampling the data, corrected for the bias and skewness of the statistic (P001 Sect. II.3).",
    "ζ-score": "(estimate − target) divided by the distance from the estimate to the "
    "interval limit on the target's side; |ζ| ≤ 1 means the interval contains the target "
    "(P001 Eqs. 14-15).",
    "ENCE": "Expected normalised calibration error: mean over equal-count bins of uE of "
    "|RMV_b − RMSE_b|/RMV_b (P002 Eq. 11). Its value for calibrated data depends on the bin "
    "count and on M, so it is judged against a simulated reference.",
    "UCC": "Uncertainty characteristics curve: the band ±k·uE is scaled by every k and each "
    "scale gives one point, here its mean excess width against its mean deficit (P004).",
    "AUUCC": "Area under the UCC; smaller is better. The gain (A_constant − A_uE)/A_constant "
    "compares the uncertainties with a band of constant width (P004 Eq. 6).",
    "Bins tables": "One row per equal-count bin of the variable (low, high: its range in the "
    "variable's units; n: rows). value: <Z²> of the bin with the uncertainties multiplied by "
    "the global factor, ci_low/ci_high its 95 % BCa interval, valid: the interval contains 1; "
    "factor, factor_low, factor_high: √<Z²> of the bin with its interval, also after the global "
    "factor (times the global factor: the number to multiply the given uncertainties by "
    "there); mean_z with mean_z_low/high: <Z> with its 95 % interval, mean_z_valid: it "
    "contains 0.",
    "Stages table": "One row per stage and variable (stages.csv), the judgement the summary "
    "and the advice are written from: label (right; right within the tolerance; not right; "
    "inconclusive; not testable), effect, factor_low/factor_high (average: the interval of "
    "√ZMS; consistency, adaptivity: the smallest and largest bin factor after the global "
    "factor; joint: the regions' factors), the smallest adjusted p-value, the number of "
    "actions and the reason.",
    "Advice table": "One row per recommended action (advice.csv): the stage, the variable and "
    "its range (low, high, in its units), the rows and share of rows it covers, the action "
    "(scale, inspect_rows, correct_bias, recalibrate_per_range, recalibrate_monotone, none), "
    "the factor to apply and "
    "the reason in one sentence.",
}
"""Terms of the report's glossary and their plain-language definitions."""

HOW_TO_READ: dict[str, str] = {
    "calibration_curve_plot": "Calibrated uncertainties follow the diagonal, inside the "
    "dashed 95 % band. A curve above it at small p and below it at large p means "
    "uncertainties too small; the reverse, too large.",
    "reliability_diagram_plot": "Each point is a group of predictions of similar "
    "uncertainty: observed RMSE against predicted RMV. Above the diagonal the uncertainties "
    "are too small, below it too large.",
    "isotonic_reliability_plot": "The line is the best increasing fit of the squared errors "
    "against the squared uncertainties (no bins). Calibrated uncertainties follow the diagonal; "
    "the shaded band shows where the fit of calibrated data with these same uncertainties "
    "falls. A fit above the band means the uncertainties are too small there, below it too "
    "large.",
    "local_zm_plot": "Each point is the mean z-score <Z> of one bin with its 95 % interval and "
    "should be near 0. Points off 0 on one side mean the predictions are biased there (too "
    "low if > 0, errors = reference - prediction), in units of the uncertainty: a bias, which "
    "rescaling the uncertainties cannot fix.",
    "local_zms_plot": "Each point is <Z²> of one bin with its 95 % interval and should be "
    "near 1. Red points and shaded ranges: uncertainties too small there (above 1) or too "
    "large (below 1).",
    "z_vs_feature_plot": "Dots are errors divided by their uncertainties; the orange lines "
    "enclose the middle 95 % of a sliding window and should stay near ±2. Where they spread "
    "out, the uncertainties are too small.",
    "confidence_curve_plot": "RMSE left after discarding the k % most uncertain "
    "predictions. It should decrease and stay in the shaded band, which is what right "
    "uncertainties would give.",
    "ucc_plot": "Lower-left is better: less excess width for less shortfall. A positive "
    "gain means the uncertainties sort the errors better than a band of constant width.",
    "intervals_plot": "Errors with their 95 % intervals, sorted by uncertainty; red points "
    "fall outside. About 5 % should, spread evenly from left to right.",
}
"""Two-sentence reading guide of each one-call plot of :mod:`uqval.plots.diagnostics`."""
