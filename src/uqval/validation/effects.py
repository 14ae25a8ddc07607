"""Effect sizes next to the p-values: does a departure matter in practice?

A test answers "is there a departure beyond chance?"; at 10^5 rows a 3 % error of the
uncertainties is significant. The practical tolerance t (``tolerance=0.10`` by default) says
which departures matter (:mod:`uqval.validation.rules`, "Effect sizes"):

* scale-type statistics (the global factor sqrt(ZMS); a bin's local factor sqrt(<Z^2>_b)):
  the band [1/(1 + t), 1 + t] on the factor;
* bias statistics (<Z>, a bin's <Z>_b): abs(<Z>) <= t, in units of the uncertainty after
  the global factor (the conditional stages' scaled uncertainties; for the set's <Z>,
  <Z>/k with k the factor the conditional stages use, sqrt(ZMS) or the robust factor): an
  offset matters relative to the errors' actual spread, not to uncertainties that are off
  by k (with uncertainties 10 times too large, <Z> = -0.08 is an offset of 0.8 error sds;
  with uncertainties 4 times too small, <Z> = 0.3 is one of 0.075).

Every verdict row gets ``effect``:

* ``negligible``: the interval of the estimate lies inside the band (for a conditional test:
  the interval of *every* bin does), whatever the p-value;
* ``relevant``: the test fails and the estimate lies outside the band (for a conditional test:
  at least one bin whose interval excludes the target has its estimate outside the band);
* ``undetermined``: anything else (too few data to say either).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["bias_effect", "factor_band", "factor_effect", "is_bias_test", "is_spread_test",
           "row_effects"]


def is_spread_test(statistic: str) -> bool:
    """A conditional test of the spread of Z (binned LZMS, cumulative Z²−1, isotonic MCB)."""
    s = str(statistic)
    return s.startswith(("LZMS", "isotonic")) or (s.startswith("cumulative") and s.endswith("−1"))


def is_bias_test(statistic: str) -> bool:
    """A conditional test of the bias of Z (binned LZM, cumulative Z)."""
    s = str(statistic)
    return s.startswith("LZM ") or (s.startswith("cumulative") and s.endswith(" Z"))


def factor_band(tolerance: float) -> tuple[float, float]:
    """[1/(1 + t), 1 + t]: the local or global factors that do not matter in practice."""
    return 1.0 / (1.0 + tolerance), 1.0 + tolerance


def _inside(low: float, high: float, band: tuple[float, float]) -> bool:
    return band[0] <= low and high <= band[1]


def factor_effect(value: float, low: float, high: float, failed: bool, tolerance: float) -> str:
    """Effect of one factor estimate with its interval (module docstring).

    >>> factor_effect(1.05, 1.04, 1.07, failed=True, tolerance=0.1)
    'negligible'
    >>> factor_effect(1.5, 1.3, 1.7, failed=True, tolerance=0.1)
    'relevant'
    """
    band = factor_band(tolerance)
    if _inside(low, high, band):
        return "negligible"
    if failed and not band[0] <= value <= band[1]:
        return "relevant"
    return "undetermined"


def bias_effect(value: float, low: float, high: float, failed: bool, tolerance: float) -> str:
    """Effect of a mean z-score with its interval: band abs(<Z>) <= t.

    >>> bias_effect(0.3, 0.25, 0.35, failed=True, tolerance=0.1)
    'relevant'
    """
    if -tolerance <= low and high <= tolerance:
        return "negligible"
    if failed and abs(value) > tolerance:
        return "relevant"
    return "undetermined"


def _bins_effect(values: np.ndarray, lows: np.ndarray, highs: np.ndarray, target: float,
                 band: tuple[float, float], failed: bool) -> str:
    if np.all((band[0] <= lows) & (highs <= band[1])):
        return "negligible"
    significant = (lows > target) | (highs < target)
    outside = (values < band[0]) | (values > band[1])
    if failed and bool(np.any(significant & outside)):
        return "relevant"
    return "undetermined"


def row_effects(verdicts: pd.DataFrame, bins: dict[str, pd.DataFrame], scale: float,
                tolerance: float) -> list[str]:
    """``effect`` of every verdict row (module docstring), in the order of ``verdicts``.

    Conditional rows use the per-bin tables (scaled uncertainties); rows with
    ``scaled=False`` multiply the local factors (and mean z-scores) by the global factor
    ``scale``, which turns them into the values for the uncertainties as given. The set's
    <Z> is divided by ``scale``: its offset in units of the scaled uncertainties.

    >>> v = pd.DataFrame({"stage": ["average"], "feature": [""], "statistic": ["<Z>"],
    ...                   "value": [-0.08], "ci_low": [-0.09], "ci_high": [-0.07],
    ...                   "verdict": ["fail"], "scaled": [False]})
    >>> row_effects(v, {}, 1.0, 0.1), row_effects(v, {}, 0.1, 0.1)
    (['negligible'], ['relevant'])
    """
    band = factor_band(tolerance)
    out = []
    for r in verdicts.itertuples(index=False):
        failed = r.verdict == "fail"
        if r.stage == "average" and r.statistic == "ZMS":
            out.append(factor_effect(math.sqrt(r.value), math.sqrt(r.ci_low),
                                     math.sqrt(r.ci_high), failed, tolerance))
        elif r.stage == "average" and r.statistic == "<Z>":
            # in the units of the scaled uncertainties, as the bins' <Z>_b (docstring)
            out.append(bias_effect(r.value / scale, r.ci_low / scale, r.ci_high / scale,
                                   failed, tolerance))
        elif r.feature in bins and (is_spread_test(r.statistic) or is_bias_test(r.statistic)):
            # bin-free tests are judged by the same per-bin intervals: their effect size
            t = bins[r.feature]
            k = 1.0 if r.scaled else scale
            if is_spread_test(r.statistic):
                effect = _bins_effect(t["factor"].to_numpy() * k, t["factor_low"].to_numpy() * k,
                                      t["factor_high"].to_numpy() * k, 1.0, band, failed)
            else:
                zm = t["mean_z"].to_numpy() * k
                lo, hi = t["mean_z_low"].to_numpy() * k, t["mean_z_high"].to_numpy() * k
                effect = _bins_effect(zm, lo, hi, 0.0, (-tolerance, tolerance), failed)
            out.append(effect)
        else:
            out.append("undetermined")
    return out
