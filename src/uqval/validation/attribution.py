"""Which variable a departure belongs to: per-bin factors and the attribution of ranges.

A range of one feature can be the shadow of another's: with x2 = x1 + noise and errors off
where x1 is large, x2's bins there are off too. :func:`explained_by_strongest_feature`
re-judges every other feature's ranges once the rows are recalibrated by the bins of the
feature whose ranges gain most (:func:`feature_gain`), and
:func:`explained_by_advised_feature` does the same for the joint stage's regions
(docs/explanations/decision-rules.md, "A range of a correlated feature is attributed to the
feature that explains it"). :func:`bin_factors` gives each row the factor of its bin.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.formatting import fmt
from uqval.validation import rules
from uqval.validation.advice_inputs import AdviceInputs
from uqval.validation.effects import factor_band

__all__ = ["RowMaker", "bin_factors", "explained_by_advised_feature",
           "explained_by_strongest_feature", "feature_gain"]

RowMaker = Callable[..., dict]
"""Makes one advice row (:func:`uqval.validation.advice` ``_row``)."""


def bin_factors(a: AdviceInputs, table: pd.DataFrame,
                 x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row's sqrt(<Z^2>) over its bin of ``x`` (bins of ``table``), for the given
    uncertainties and without the dominant rows (1 in a bin they leave empty)."""
    # tie-aware bins never split a tie group: the first bin whose upper end reaches x
    labels = np.minimum(np.searchsorted(table["high"].to_numpy(dtype=float), x),
                        len(table) - 1)
    z2 = np.square(a.errors / a.uncertainties)
    keep = np.ones(z2.size, dtype=bool)
    keep[a.dominant] = False
    counts = np.bincount(labels[keep], minlength=len(table))
    sums = np.bincount(labels[keep], weights=z2[keep], minlength=len(table))
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.sqrt(sums / counts)
    # a bin left empty by the dominant rows keeps the given uncertainties
    factor = np.where(np.isfinite(factor) & (factor > 0), factor, 1.0)
    return np.asarray(factor[labels], dtype=np.float64)


def feature_gain(ranges: list[dict], global_factor: float) -> float:
    """Gain of a feature's advised ranges: sum over them of n (g - 1 - ln g), g the squared
    ratio of the range's factor to the global one (the drop in the normal deviance, QLIKE, of
    those rows when their variances are rescaled by g)."""
    g = [(r["factor"] / global_factor) ** 2 for r in ranges]
    return float(sum(r["rows"] * (x - 1.0 - math.log(x)) for r, x in zip(ranges, g, strict=True)))


def explained_by_strongest_feature(a: AdviceInputs, rows: list[dict], m: int,
                                   global_factor: float, row: RowMaker) -> list[dict]:
    """Drop the ranges of a feature that the ranges of the strongest feature explain.

    Two correlated features (x2 = x1 + noise) share the rows of a range that only one of them
    causes: the other's range is then off too, and advising both recalibrates those rows
    twice. The strongest feature is the one whose advised ranges gain most
    (:func:`feature_gain`); every other feature's range is re-judged with each row's
    uncertainty multiplied by the factor of its bin of the strongest feature (sqrt(<Z^2>) of
    the bin, as :func:`consistency_factors` does along uE), without the dominant rows: a
    range then right within the band is not advised, and one ``none`` row per feature says so
    (fix the strongest feature first). A range that stays off (an effect of its own) is
    kept."""
    by_feature: dict[str, list[dict]] = {}
    for r in rows:
        if r["stage"] == "adaptivity" and r["action"] == "recalibrate_per_range":
            by_feature.setdefault(r["variable"], []).append(r)
    if len(by_feature) < 2:
        return rows
    best = max(by_feature, key=lambda k: feature_gain(by_feature[k], global_factor))
    per_row = bin_factors(a, a.bins[best], a.features[best])
    band = factor_band(a.tolerance)
    dropped: dict[str, list[dict]] = {}
    for name, ranges in by_feature.items():
        if name == best:
            continue
        for r in ranges:
            keep = (a.features[name] >= r["low"]) & (a.features[name] <= r["high"])
            keep[a.dominant] = False
            if keep.sum() < rules.MIN_BIN_COUNT:
                continue
            z2 = np.square(a.errors[keep] / (a.uncertainties[keep] * per_row[keep]))
            if band[0] <= float(np.sqrt(np.mean(z2))) <= band[1]:
                dropped.setdefault(name, []).append(r)
    if not dropped:
        return rows
    gone = {id(r) for ranges in dropped.values() for r in ranges}
    out = [r for r in rows if id(r) not in gone]
    for name, ranges in dropped.items():
        n = sum(r["rows"] for r in ranges)
        out.append(row("adaptivity", "none", (
            f"{len(ranges)} range(s) of {name} ({fmt(100 * n / m, 2)} % of the rows) depart "
            f"only as much as the ranges advised along {best} explain: once the uncertainties "
            f"are recalibrated there, they are right within ±{fmt(100 * a.tolerance, 2)} %; "
            f"fix {best} first, then validate again"), variable=name, rows=n, m=m))
    return out


def explained_by_advised_feature(a: AdviceInputs, advised: list[dict], global_factor: float
                                  ) -> Callable[[NDArray[np.bool_]], str | None] | None:
    """For the joint stage's regions: the feature whose advised ranges explain a region
    (its rows recalibrated by the factors of their bins of that feature, as
    :func:`explained_by_strongest_feature` does, are right within the band), else None; None
    when no range was advised along a feature. The strongest advised feature is tried (the
    one whose ranges gain most, :func:`feature_gain`)."""
    by_feature: dict[str, list[dict]] = {}
    for r in advised:
        by_feature.setdefault(r["variable"], []).append(r)
    if not by_feature:
        return None
    best = max(by_feature, key=lambda k: feature_gain(by_feature[k], global_factor))
    if best not in a.bins:
        return None
    per_row = bin_factors(a, a.bins[best], a.features[best])
    band = factor_band(a.tolerance)

    def explained(mask: NDArray[np.bool_]) -> str | None:
        keep = mask.copy()
        keep[a.dominant] = False
        if keep.sum() < rules.MIN_BIN_COUNT:
            return None
        z2 = np.square(a.errors[keep] / (a.uncertainties[keep] * per_row[keep]))
        return best if band[0] <= float(np.sqrt(np.mean(z2))) <= band[1] else None

    return explained
