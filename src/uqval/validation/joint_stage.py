"""The ``joint`` stage: does the calibration depend on the features together?

Verdict rows of :func:`uqval.calibration.joint.joint_calibration` (cross-fitted gradient
boosting with exact permutation p-values) run on the *globally scaled* uncertainties, like
the other conditional stages, and the advice it supports:

* two tests, ``joint boosting Z²`` (spread) and ``joint boosting Z`` (bias), Holm-adjusted
  together (the stage's false-alarm rate is alpha); the rows ``scaled=False`` combine the
  adjusted p-value with the average test by min(1, 2 min(p_average, p_adjusted)), as the
  other conditional stages do (:mod:`uqval.validation.rules`);
* ``effect`` from the two described regions (largest and smallest local factor, estimated on
  held-out rows with 97.5 % intervals): ``relevant`` when the test fails and a region's
  interval excludes the target with its estimate outside the tolerance band, ``negligible``
  when both intervals lie inside the band;
* advice ``recalibrate_per_range`` (spread) or ``correct_bias`` (bias) for a region whose
  held-out interval excludes the target, whose factor (relative to the global factor
  advised) lies outside the band and which covers at least 1 % of the rows, with the region
  in the features' units in the column ``region``. Unlike a range of one feature (whose
  pooled simultaneous interval must lie wholly beyond the band), the estimate beyond the
  band suffices: the held-out factor of a learned box is already shrunk toward the global
  one, since the box only partly overlaps the rows that depart (an xor region planted at 2.0
  is estimated 1.84 [1.70, 1.96], ``tests/test_joint.py``). A region whose rows lie >= 80 % inside a
  range already advised along one feature (adaptivity) is not advised again, nor one whose
  rows are right within the band once recalibrated by the bins of the strongest feature
  advised (a ``none`` row says so: fix that feature first).

The stage is skipped (no rows, ``parameters["joint"]`` says why) with fewer than two
features.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from uqval._internal.formatting import fmt
from uqval.calibration.joint import JointCalibration, JointTest, Region
from uqval.validation import rules
from uqval.validation.effects import factor_band

__all__ = ["JOINT_BIAS", "JOINT_FEATURE", "JOINT_SPREAD", "MIN_SHARE", "joint_advice",
           "joint_rows"]

JOINT_SPREAD = "joint boosting Z²"
JOINT_BIAS = "joint boosting Z"
JOINT_FEATURE = "all features"
MIN_SHARE = 0.01
"""Smallest share of the rows of an advised region."""

COVERED = 0.8
"""A region whose rows lie at least this much inside one range advised along a single
feature adds nothing to that advice and is not advised again."""


def _region_text(r: Region, kind: str, k: float = 1.0) -> str:
    if kind == "spread":
        return (f"{r.description}: factor {fmt(r.value * k)} [{fmt(r.ci_low * k)}, "
                f"{fmt(r.ci_high * k)}] ({fmt(100 * r.share, 2)} % of rows)")
    return (f"{r.description}: mean z {fmt(r.value * k, 2)} [{fmt(r.ci_low * k, 2)}, "
            f"{fmt(r.ci_high * k, 2)}] ({fmt(100 * r.share, 2)} % of rows)")


def _effect(test: JointTest, failed: bool, k: float, tolerance: float) -> str:
    regions = (test.high, test.low)
    if test.kind == "spread":
        band, target = factor_band(tolerance), 1.0
    else:
        band, target = (-tolerance, tolerance), 0.0
    v = np.array([r.value for r in regions]) * k
    lo = np.array([r.ci_low for r in regions]) * k
    hi = np.array([r.ci_high for r in regions]) * k
    if not np.all(np.isfinite(lo) & np.isfinite(hi)):
        return "undetermined"
    if np.all((band[0] <= lo) & (hi <= band[1])):
        return "negligible"
    outside = (v < band[0]) | (v > band[1])
    if failed and bool(np.any(((lo > target) | (hi < target)) & outside)):
        return "relevant"
    return "undetermined"


def joint_rows(jc: JointCalibration, p_average: tuple[float, float], alpha: float,
               reference: float, tolerance: float, row) -> list[dict]:
    """Verdict rows of the stage (module docstring); ``row`` is the engine's row builder."""
    tests = (jc.spread, jc.bias)
    adjusted = rules.holm([t.p_value for t in tests])
    scaled, given = [], []
    names = ", ".join(jc.features)
    for test, adj, p_avg, statistic in zip(tests, adjusted, p_average,
                                           (JOINT_SPREAD, JOINT_BIAS), strict=True):
        what = "Z²" if test.kind == "spread" else "Z"
        note = (f"cross-fitted gradient boosting of {what} on {names}: out-of-sample "
                f"correlation, p = 2 min over the two halves ({test.n_permutations} "
                f"permutations each); largest: {_region_text(test.high, test.kind)}; "
                f"smallest: {_region_text(test.low, test.kind)} (held-out rows, 97.5 % "
                "intervals)")
        if jc.dropped:
            note += f"; constant features left out: {', '.join(jc.dropped)}"
        r = row("joint", JOINT_FEATURE, True, statistic, test.correlation, (math.nan, math.nan),
                0.0, test.p_value, note)
        r["p_adjusted"] = float(adj)
        r["verdict"] = rules.verdict(float(adj), alpha, False)
        r["effect"] = _effect(test, r["verdict"] == "fail", 1.0, tolerance)
        twin = dict(r, scaled=False)
        twin["p_value"] = twin["p_adjusted"] = rules.bonferroni_pair(p_avg, float(adj))
        twin["verdict"] = rules.verdict(twin["p_adjusted"], alpha, False)
        # as given: factors and mean z-scores are reference times those of the scaled uE
        twin["effect"] = _effect(test, twin["verdict"] == "fail", reference, tolerance)
        twin["note"] = (note.split("; largest:")[0] + "; as given: p = 2 min(p_average, "
                        "p_adjusted of the scaled test)")
        scaled.append(r)
        given.append(twin)
    return given + scaled


def _covered(region: Region, advised: Sequence[dict],
             features: Mapping[str, NDArray[np.float64]]) -> bool:
    """At least COVERED of the region's rows lie in one range already advised along a feature."""
    for a in advised:
        x = features.get(a["variable"])
        if x is None or not region.mask.any():
            continue
        inside = (x >= a["low"]) & (x <= a["high"])
        if float(inside[region.mask].mean()) >= COVERED:
            return True
    return False


def joint_advice(jc: JointCalibration | None, verdicts, reference: float, global_factor: float,
                 tolerance: float, m: int, advised: Sequence[dict],
                 features: Mapping[str, NDArray[np.float64]], row,
                 explained: Callable[[NDArray[np.bool_]], str | None] | None = None
                 ) -> list[dict]:
    """Advice rows of the stage (module docstring); ``advised``: the adaptivity advice rows
    already given; ``row`` is the advice row builder; ``explained``: the feature whose
    advised ranges explain a region's spread (its rows right within the band once
    recalibrated along it), else None: such a region gets a ``none`` row instead."""
    if jc is None:
        return []
    v = verdicts
    out: list[dict] = []
    band = factor_band(tolerance)
    z = 1.0 - 0.05 / 2.0
    for test, statistic in ((jc.spread, JOINT_SPREAD), (jc.bias, JOINT_BIAS)):
        rows = v[(v["stage"] == "joint") & v["scaled"] & (v["statistic"] == statistic)]
        if rows.empty or not ((rows["verdict"] == "fail") & (rows["effect"] == "relevant")).any():
            continue
        for r in (test.high, test.low):
            if r.share < MIN_SHARE or _covered(r, advised, features):
                continue
            variable = ", ".join(r.features)
            if test.kind == "spread" and explained is not None and (
                    cause := explained(r.mask)) is not None:
                out.append(row("joint", "none", (
                    f"where {r.description} (the features together) the uncertainties depart "
                    f"only as much as the ranges advised along {cause} explain: once they are "
                    f"recalibrated there, they are right within ±{fmt(100 * tolerance, 2)} % "
                    f"in this region too; fix {cause} first"), variable=variable, rows=r.rows,
                    m=m, region=r.description))
                continue
            if test.kind == "spread":
                given = r.value * reference
                if not (r.ci_low > 1.0 or r.ci_high < 1.0) or band[0] <= given / global_factor \
                        <= band[1]:
                    continue
                instead = "" if global_factor == 1.0 else f" instead of the global {fmt(global_factor)}"
                interval = (f"[{fmt(r.ci_low * reference)}, {fmt(r.ci_high * reference)}], "
                            f"{fmt(100 * z, 3)} % interval on held-out rows")
                where = f"where {r.description} (the features together)"
                if band[0] <= given <= band[1]:
                    text = (f"{where}: the given uncertainties are right there (factor "
                            f"{fmt(given)} {interval}); keep them"
                            f"{instead and ' (no global factor there)'}")
                else:
                    how = "small" if given > 1 else "large"
                    size = given if given > 1 else 1 / given
                    size_text = (f"{fmt(given)} ({interval})" if given > 1 else
                                 f"{fmt(size)} (factor {fmt(given)} {interval})")
                    text = (f"{where}: the given uncertainties are too {how} by a factor "
                            f"{size_text}; multiply them by {fmt(given)} there{instead}")
                out.append(row("joint", "recalibrate_per_range", text, variable=variable,
                               rows=r.rows, m=m, factor=given, region=r.description))
            else:
                mean = r.value * reference  # z-scores of the given uncertainties
                if not (r.ci_low > 0.0 or r.ci_high < 0.0) or abs(mean) <= tolerance:
                    continue
                direction = "too low" if mean > 0 else "too high"
                out.append(row("joint", "correct_bias", (
                    f"predictions {direction} by {fmt(abs(mean), 2)} uncertainties (mean z "
                    f"[{fmt(r.ci_low * reference, 2)}, {fmt(r.ci_high * reference, 2)}], "
                    f"held-out rows) where {r.description}: correct the predictions there, "
                    "not the uncertainties"), variable=variable, rows=r.rows, m=m,
                    region=r.description))
    return out
