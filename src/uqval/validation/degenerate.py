"""Degenerate inputs of :func:`uqval.validate`: a verdict or a clear message, never a crash.

* **A variable that cannot be binned** (one uncertainty value for every row: a model with a
  global sigma; a feature with 399 equal values and one other): conditional calibration
  along it is *not testable*, since no split into two bins of at least
  :data:`~uqval.validation.rules.MIN_BIN_COUNT` rows keeps tied values together
  (:func:`untestable_reason`). The stage gets the verdict ``"not testable"`` with the
  reason; the average stage (and adaptivity along the other variables) is still tested.
* **Errors that are all zero** (or all negligible, \\|E/uE\\| < 1e-150, so that every Z^2
  underflows to 0): nothing can be validated, the scale factor would be 0; refused with
  the reason (:func:`check_errors_not_all_zero`).
* **Extreme scales** (values near 1e-300 or 1e300): Z = E/uE does not depend on the unit,
  but E^2 and uE^2 under- or overflow. :func:`unit_scaled` divides both by the same power of
  two (exact in floating point; :func:`uqval._internal.checks.unit_scaled`) for the statistics
  that square them (heavy-tail screening, UCC, the figures); the results are unchanged by a common unit. A row whose Z^2 itself overflows
  (E/uE beyond 1.3e154) is named by the input checks (:mod:`uqval.validation.inputs`), and so
  are rows that no common unit holds with the others: values spread over more than about
  150 orders of magnitude (uE from 1e-300 to 1e300), whose squares and fourth powers cannot
  all be finite and non-zero in one unit (:func:`uqval._internal.checks.unit_outliers`,
  :func:`unit_outlier_message`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from uqval._internal.checks import MAX_UNIT_SPAN_DECADES, first_rows

__all__ = [
    "NOT_TESTABLE",
    "check_errors_not_all_zero",
    "unit_outlier_message",
    "untestable_reason",
    "z_square_overflow",
]

NOT_TESTABLE = "not testable"
"""The verdict of a conditional stage whose variable cannot be binned."""

def _value(x: float) -> str:
    return f"{x:.6g}"


def untestable_reason(x: NDArray[np.float64], min_count: int, what: str = "value") -> str | None:
    """Why ``x`` cannot be split into two bins of at least ``min_count`` rows without
    separating tied values, or None when it can.

    >>> untestable_reason(np.full(100, 0.7), 30, "uncertainty value")
    'one uncertainty value (0.7) in every row'
    >>> untestable_reason(np.r_[np.zeros(399), 1.0], 30)
    '399 of 400 rows share the value 0: no split into two bins of at least 30 rows keeps equal values together'
    >>> untestable_reason(np.arange(100.0), 30) is None
    True
    """
    xs = np.sort(np.asarray(x, dtype=np.float64))
    m = xs.size
    if m == 0 or xs[0] == xs[-1]:
        return f"one {what} ({_value(float(xs[0])) if m else 'none'}) in every row"
    cuts = np.flatnonzero(np.diff(xs)) + 1  # positions where a new value starts
    if np.any((cuts >= min_count) & (m - cuts >= min_count)):
        return None
    values, counts = np.unique(xs, return_counts=True)
    top = int(np.argmax(counts))
    return (f"{int(counts[top])} of {m} rows share the {what} {_value(float(values[top]))}: "
            f"no split into two bins of at least {min_count} rows keeps equal values together")


def check_errors_not_all_zero(e: NDArray[np.float64], u: NDArray[np.float64]) -> None:
    """Raise a ValueError when every Z^2 = (E/uE)^2 is 0 (module docstring).

    >>> check_errors_not_all_zero(np.zeros(3), np.ones(3))
    Traceback (most recent call last):
    ...
    ValueError: errors: every value is 0 (3 rows): the predictions equal the reference values, so there is nothing to validate; is it the right column (an error is reference minus prediction)?
    """
    if np.any(np.square(e / u) > 0.0):
        return
    if not np.any(e):
        raise ValueError(
            f"errors: every value is 0 ({e.size} rows): the predictions equal the reference "
            "values, so there is nothing to validate; is it the right column (an error is "
            "reference minus prediction)?")
    ratio = float(np.max(np.abs(e / u)))
    raise ValueError(
        f"errors: every value is negligible against its uncertainty (largest |E/uE| = "
        f"{ratio:.3g}, so every Z^2 is 0 in floating point): are errors and uncertainties in "
        "the same unit (a variance given where a standard deviation belongs, or a unit "
        "factor of 1e-150 or more between them)?")


def z_square_overflow(e: NDArray[np.float64], u: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Rows whose Z^2 = (E/uE)^2 is not finite although E and uE are (E/uE > 1.3e154)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return ~np.isfinite(np.square(e / u))


def z_overflow_message(e: NDArray[np.float64], u: NDArray[np.float64],
                       bad: NDArray[np.bool_]) -> str:
    """The message of :func:`z_square_overflow` rows: how many, where, the first ratio."""
    i = int(np.flatnonzero(bad)[0])
    with np.errstate(over="ignore", divide="ignore"):
        ratio = float(abs(e[i] / u[i]))
    return (f"errors and uncertainties: {int(bad.sum())} row(s) ({first_rows(bad)}) have "
            f"|E/uE| = {ratio:.3g} (row {i + 1}: E = {e[i]:.3g}, uE = {u[i]:.3g}), whose "
            f"square overflows (|E/uE| must stay below {math.sqrt(np.finfo(float).max):.2g}); "
            "such a row is an input mistake (a wrong unit or a placeholder value): fix or "
            "remove it")


def unit_outlier_message(name: str, values: NDArray[np.float64], bad: NDArray[np.bool_],
                         e: NDArray[np.float64], u: NDArray[np.float64]) -> str:
    """The message of rows of ``name`` (errors, uncertainties, variances) that no common unit
    holds with the others (:func:`uqval._internal.checks.unit_outliers`): how many, where, the
    first value and the range of the data.

    >>> u = np.r_[np.ones(5), 1e-300]
    >>> unit_outlier_message("uncertainties", u, u < 1e-200, u, u)[:71]
    'uncertainties has 1 value(s) (row 6) too far from the others to share a'
    """
    i = int(np.flatnonzero(bad)[0])
    magnitudes = np.abs(np.r_[e[e != 0], u])
    return (f"{name} has {int(bad.sum())} value(s) ({first_rows(bad)}) too far from the others "
            f"to share a unit with them (row {i + 1}: {values[i]:.3g}; the values range over "
            f"{float(magnitudes.min()):.3g} to {float(magnitudes.max()):.3g} in absolute value, "
            f"the median uncertainty is {float(np.median(u)):.3g}): the statistics that square "
            f"errors and uncertainties need the smallest uncertainty and the largest |error| or "
            f"uncertainty less than {int(MAX_UNIT_SPAN_DECADES)} orders of magnitude apart; such "
            "a value is an input mistake (a wrong unit or a placeholder): fix or remove it")
