"""The recommended actions of a validation, as data (``ValidationResult.advice``, advice.csv).

One row per action, columns :data:`ADVICE_COLUMNS`:

* ``stage``: ``data`` (a few rows decide the average), ``average``, ``consistency``,
  ``adaptivity``, ``joint`` (:mod:`uqval.validation.joint_stage`);
* ``variable``: the binning variable of a range ("" for the whole set); ``low``, ``high``: the
  range in the variable's own units; ``rows``, ``share``: how many rows it covers;
* ``action``: ``inspect_rows`` (look at the rows named in dominant_rows.csv before changing
  any uncertainty), ``scale`` (multiply every uncertainty by ``factor``),
  ``correct_bias`` (the predictions are offset: correct them, not the uncertainties),
  ``recalibrate_per_range`` (multiply the uncertainties *as given* in that range by
  ``factor``, which replaces the global factor there), ``recalibrate_monotone`` (a monotone
  map along the uncertainty, added by :mod:`uqval.validation.judgement`), ``none``;
* ``factor`` (``scale``, ``recalibrate_per_range``), ``reason`` (one sentence);
* ``region``: for the ``joint`` stage, the box of feature space in the features' units
  ("x1 > 0.50 and x2 ≤ 0.50"; ``variable`` then lists the features that bound it, and
  ``low``/``high`` are empty); "" otherwise.

Rules (:mod:`uqval.validation.rules`, "Advice"): only departures whose effect is
``relevant`` (:mod:`uqval.validation.effects`) are advised; when a few rows dominate the
average (:func:`is_dominated`), the first action names them and no global factor beyond
what the robust (median-of-means) factor supports is advised; ranges narrower than
:data:`MIN_RANGE_SHARE` of the rows are not listed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.formatting import fmt, fmt_interval, fmt_range, fmt_span
from uqval.calibration.robust_scale import RobustScale, TailShares, dominant_rows_unchecked
from uqval.stats.robust import beta_gm
from uqval.validation import rules
from uqval.validation.advice_inputs import AdviceInputs
from uqval.validation.attribution import (
    bin_factors,
    explained_by_advised_feature,
    explained_by_strongest_feature,
)
from uqval.validation.bin_ranges import grid_ranges
from uqval.validation.effects import factor_band, is_bias_test, is_spread_test
from uqval.validation.joint_stage import joint_advice
from uqval.validation.rest_scale import rest_factor, sd_after_offset, spread_factor

__all__ = ["ADVICE_COLUMNS", "AdviceInputs", "advice_table", "consistency_factors",
           "is_dominated"]

ADVICE_COLUMNS = ["stage", "variable", "low", "high", "rows", "share", "action", "factor",
                  "reason", "region"]

MIN_RANGE_SHARE = 0.01
"""Ranges covering fewer rows than this share are not advised (they are in the bins table)."""

MAX_RANGES = 6
"""Most ranges advised per variable (the largest ones)."""
REST_PASSES = 3
"""Passes of the rest's factor (:func:`_rest_average`): the ranges judged against the rest's
factor, the rest judged again outside them, until the factor moves by less than 1 %."""


def is_dominated(tails: TailShares, scale: float, robust: RobustScale,
                 errors: NDArray[np.float64], uncertainties: NDArray[np.float64]) -> bool:
    """A few rows decide the average: sqrt(ZMS) lies above the robust factor's interval
    (without them, the rows say something else) *and* either the top 1 % of rows carry more
    than half of sum(Z^2) (:data:`uqval.validation.rules.DOMINANT_SHARE`), or the dominant
    rows (:func:`uqval.calibration.robust_scale.dominant_rows`) are at most
    :data:`uqval.validation.rules.FEW_ROWS` of the rows (at least one) and carry more than
    :data:`uqval.validation.rules.FEW_ROWS_SUM_SHARE` of sum(Z^2) (one row at z = 35 among
    2500 carries a quarter of the sum while the top 1 % carry less than half).

    >>> from uqval.calibration.robust_scale import robust_scale_factor, z2_tail_shares
    >>> rng = np.random.default_rng(0)
    >>> e, u = rng.standard_normal(2500), np.ones(2500)
    >>> e[0] = 35.0  # 1225 of sum(Z^2) = 3714: a third, and the top 1 % carry 39 %
    >>> tails, robust = z2_tail_shares(e, u), robust_scale_factor(e, u)
    >>> scale = float(np.sqrt(np.mean(e**2)))
    >>> round(tails.top_1_percent, 2), is_dominated(tails, scale, robust, e, u)
    (0.39, True)
    """
    if scale <= robust.ci_high:
        return False
    if tails.top_1_percent > rules.DOMINANT_SHARE:
        return True
    rows = dominant_rows_unchecked(errors, uncertainties, robust)
    if not 0 < rows.size <= max(1, int(rules.FEW_ROWS * errors.size)):
        return False
    z2 = np.square(errors / uncertainties)
    return float(z2[rows].sum() / z2.sum()) > rules.FEW_ROWS_SUM_SHARE


def _row(stage: str, action: str, reason: str, *, variable: str = "", low: float = math.nan,
         high: float = math.nan, rows: int, m: int, factor: float = math.nan,
         region: str = "") -> dict:
    return {"stage": stage, "variable": variable, "low": low, "high": high, "rows": rows,
            "share": rows / m, "action": action, "factor": factor, "reason": reason,
            "region": region}


def _dominant_reason(a: AdviceInputs, m: int) -> str:
    n = a.dominant.size
    share = a.tails.top_1_percent
    if n == 0:
        return (f"the 1 % of rows with the largest z-scores carry {fmt(100 * share, 2)} % of "
                "sum(Z^2): a few rows decide the average; look at them (dominant_rows.csv)")
    u = a.uncertainties
    sample = u.size  # the rows held (a subsample of the m rows for a set read in parts)
    rest = np.ones(sample, dtype=bool)
    rest[a.dominant] = False
    ratio = float(np.median(u[rest]) / np.median(u[a.dominant]))
    z2 = np.square(a.errors / u)
    own = float(z2[a.dominant].sum() / z2.sum())
    top = max(1, int(np.ceil(0.01 * m)))
    what = [f"{n} row(s) ({fmt(100 * n / sample, 2)} % of the rows) carry {fmt(100 * own, 2)} % of "
            f"sum(Z^2) (the top 1 %, {top} rows, carry {fmt(100 * share, 2)} %)"]
    if ratio >= 3.0:
        what.append(f"their uncertainties are {fmt(ratio, 2)}x smaller than the others' "
                    "(median): zero-spread ensembles, crossing quantiles or points of the "
                    "training set often give such values")
    for name, x in a.features.items():
        lo, hi = float(np.min(x[a.dominant])), float(np.max(x[a.dominant]))
        inside = float(np.mean((x >= lo) & (x <= hi)))
        if inside <= 0.25:
            span = float(np.ptp(x))
            what.append(f"they all have {fmt_span(name, lo, hi, span)}")
    return "; ".join(what) + "; check them (dominant_rows.csv) before changing any uncertainty"


def _average_rows(a: AdviceInputs, m: int, dominated: bool) -> list[dict]:
    out = []
    v = a.verdicts
    zms = v[(v["stage"] == "average") & (v["statistic"] == "ZMS")].iloc[0]
    mz = v[(v["stage"] == "average") & (v["statistic"] == "<Z>")].iloc[0]
    value, low, high = a.scale
    band = factor_band(a.tolerance)
    if dominated:
        r = a.robust
        # the robust factor is biased low for very heavy tails (docs/choices.md): a global
        # factor is advised only when it and sqrt(ZMS) lie beyond the band on the same side
        # downward, the median of means is normalised for a normal bulk: it is trusted only
        # when the rows left without the dominant ones are no heavier-tailed than that
        # (rules.downward_tail_limit), else a calibrated heavy tail reads as "too large"
        if (r.ci_low > band[1] and value > band[1]) or (
                r.ci_high < band[0] and value < band[0] and _light_rest(a)):
            out.append(_row("average", "scale", (
                f"without the dominant rows' pull, the uncertainties are too "
                f"{'small' if r.value > 1 else 'large'} on average by the robust factor "
                f"{fmt_interval(r.value, r.ci_low, r.ci_high)} (median of means); "
                f"sqrt(ZMS) = {fmt(value)} is decided by a few rows"), rows=m, m=m,
                factor=r.value))
    elif mz["effect"] == "relevant" and zms["verdict"] != "inconclusive":
        # a bias raises ZMS = Var(Z) + <Z>^2: once the predictions' offset is corrected, the
        # uncertainties are off by sd(Z), the factor advised (when it matters) next to it,
        # whether or not ZMS itself departs from 1 (a bias can hide a spread too large);
        # its interval from the rows (cluster-robust over the groups or blocks), or from
        # the stage's intervals of ZMS and <Z> for an ensemble or a set in parts; not with
        # heavy tails that leave ZMS untrusted
        if a.direct_spread and a.rows is None:
            sd, sd_low, sd_high = spread_factor(a.errors / a.uncertainties, a.groups,
                                                n_boot=a.n_boot, seed=a.seed)
            how = ("its 95 % interval from a studentized bootstrap of the groups"
                   if a.groups is not None else "its 95 % interval by the delta method")
        else:
            sd, sd_low, sd_high = sd_after_offset(
                (zms["value"], zms["ci_low"], zms["ci_high"]),
                (mz["value"], mz["ci_low"], mz["ci_high"]))
            how = f"its interval from those of {a.mean_square} and the mean z"
        if sd == 0.0:  # every z-score equal: the errors are the offset times the uncertainty
            out.append(_row("average", "none", (
                f"every z-score equals the mean z ({fmt(float(mz['value']), 3)}): the errors are "
                "exactly the uncertainties times one number, so once the predictions' offset "
                "is corrected no error is left and no spread can be judged; check that the "
                "error and uncertainty columns are not computed from each other"),
                rows=m, m=m))
        elif (sd_low > 1.0 or sd_high < 1.0) and not band[0] <= sd <= band[1]:
            out.append(_row("average", "scale", (
                f"once the predictions' offset is corrected, the uncertainties are too "
                f"{'small' if sd > 1 else 'large'} on average: sd(Z) = "
                f"{fmt_interval(sd, sd_low, sd_high)} {_beyond(sd_low, sd_high, a.tolerance)} "
                f"(sd(Z)^2 = {a.mean_square} - (mean z)^2, {how}; "
                f"{_root(a)} = {fmt(value)} counts the bias too)"), rows=m, m=m,
                factor=sd))
        elif zms["verdict"] == "fail" and zms["effect"] == "relevant":
            # sqrt(ZMS) departs, but the offset explains it (or may): say so, so that the
            # average's "too small" is not left without an action or a reason
            if band[0] <= sd_low and sd_high <= band[1]:
                state = (f"right within the ±{fmt(100 * a.tolerance, 2)} % tolerance: the "
                         "average miss is the offset's")
            elif band[0] <= sd <= band[1]:
                state = f"within the ±{fmt(100 * a.tolerance, 2)} % tolerance"
            else:
                state = "compatible with 1: not enough to advise a factor"
            out.append(_row("average", "none", (
                f"{_root(a)} = {fmt(value)} counts the offset too: once the "
                "predictions' offset "
                f"is corrected, sd(Z) = {fmt_interval(sd, sd_low, sd_high)}, {state} (sd(Z)^2 "
                f"= {a.mean_square} - (mean z)^2, {how})"),
                rows=m, m=m))
    elif zms["effect"] == "relevant" and zms["verdict"] == "fail":
        out.append(_row("average", "scale", (
            f"the uncertainties are too {'small' if value > 1 else 'large'} on average: scale "
            f"factor {fmt_interval(value, low, high)} {_beyond(low, high, a.tolerance)}"),
            rows=m, m=m, factor=value))
    if mz["effect"] == "relevant":
        direction = "too low" if mz["value"] > 0 else "too high"
        # first: the spread factor beside it is the one left once the offset is corrected
        out.insert(0, _row("average", "correct_bias", (
            f"the predictions are {direction} on average by {_offset_text(mz, a.reference)}: "
            "correct the predictions' offset, not the uncertainties"), rows=m, m=m))
    return out


def _root(a: AdviceInputs) -> str:
    """The name of the factor sqrt of the mean square: sqrt(ZMS), or an ensemble's k."""
    return "sqrt(ZMS)" if a.mean_square == "ZMS" else "the net factor k"


def _offset_text(mz: pd.Series, reference: float) -> str:
    """The set's offset in units of the uncertainties after the global factor ``reference``
    (what its effect is judged on, :mod:`uqval.validation.effects`), with the mean z of the
    uncertainties as given when the two differ."""
    scaled = (f"{fmt(abs(mz['value']) / reference, 2)} uncertainties (mean z "
              f"{fmt(mz['value'] / reference, 2)} [{fmt(mz['ci_low'] / reference, 2)}, "
              f"{fmt(mz['ci_high'] / reference, 2)}]")
    if abs(reference - 1.0) < 0.005:
        return scaled + ")"
    return (f"{scaled} with the uncertainties multiplied by the global factor "
            f"{fmt(reference)}; {fmt(mz['value'], 2)} [{fmt(mz['ci_low'], 2)}, "
            f"{fmt(mz['ci_high'], 2)}] as given)")


def _light_rest(a: AdviceInputs) -> bool:
    """Whether beta_GM(Z^2) of the rows without the dominant ones is at most
    :func:`uqval.validation.rules.downward_tail_limit` of their number."""
    keep = np.ones(a.errors.size, dtype=bool)
    keep[a.dominant] = False
    z2 = np.square(a.errors[keep] / a.uncertainties[keep])
    return beta_gm(z2) <= rules.downward_tail_limit(z2.size)


def _beyond(low: float, high: float, tolerance: float) -> str:
    """"beyond the ±t tolerance" when the whole interval is, else "at the edge of" it."""
    band = factor_band(tolerance)
    where = "beyond" if low > band[1] or high < band[0] else "at the edge of"
    return f"({where} the ±{fmt(100 * tolerance, 2)} % tolerance)"


def _relevant(verdicts: pd.DataFrame, stage: str, name: str, kind: str) -> bool:
    """A failed test of that kind (spread or bias, binned or not) with a relevant effect."""
    v = verdicts
    test = {"spread": is_spread_test, "bias": is_bias_test,
            "LZMS": lambda s: str(s).startswith("LZMS")}[kind]
    rows = v[(v["stage"] == stage) & (v["feature"] == name) & v["scaled"]
             & v["statistic"].map(test)]
    return bool(((rows["verdict"] == "fail") & (rows["effect"] == "relevant")).any())


def consistency_factors(a: AdviceInputs) -> NDArray[np.float64] | None:
    """Each row's factor for the given uncertainties in its bin of uE (sqrt(<Z^2>) over the
    bin, without the dominant rows), or None when the consistency stage has no relevant
    spread departure. Multiplying uE by it recalibrates per range of uE, the remedy of a
    consistency error, to be done before judging the features (P003 Fig. 1)."""
    name = a.uncertainty_name
    if name not in a.bins or not _relevant(a.verdicts, "consistency", name, "LZMS"):
        return None
    return bin_factors(a, a.bins[name], a.uncertainties)


def _explained_by_consistency(a: AdviceInputs, name: str, low: float, high: float,
                              per_row: NDArray[np.float64], band: tuple[float, float]) -> bool:
    """Is a feature range right within the band once uE is recalibrated per range of uE?"""
    x = a.features[name]
    keep = (x >= low) & (x <= high)
    keep[a.dominant] = False
    if keep.sum() < rules.MIN_BIN_COUNT:
        return False
    z2 = np.square(a.errors[keep] / (a.uncertainties[keep] * per_row[keep]))
    return band[0] <= float(np.sqrt(np.mean(z2))) <= band[1]


def _wide_enough(a: AdviceInputs, r: dict, m: int, *, lone_bin: bool) -> bool:
    """A range is advised when it covers at least :data:`MIN_RANGE_SHARE` of the rows but not
    every row of the variable (a "range" of all rows is the global factor or offset, which
    the average stage decides with its own interval: over dependent groups a range's pooled
    per-bin interval can be far narrower than the average's, [1.16, 2.17] against
    [0.884, 5.31] for the same 400 rows) and,
    when the screening finds Z^2 heavy-tailed (mean-square intervals unreliable), at least
    two adjacent bins unless ``lone_bin`` (spread ranges, whose simultaneous intervals must
    lie wholly beyond the tolerance band: a lone bin that clears the band by itself is a
    finding). One bin's interval under-covers with heavy tails (P003 Sect. III.B.1), so a
    lone bin of a bias range stays in the bins table."""
    if r["n"] < MIN_RANGE_SHARE * m or r["n"] >= m:
        return False
    return a.zms_reliable or r["last"] > r["first"] or lone_bin


def _global_offset(a: AdviceInputs) -> tuple[float, bool]:
    """The set's mean z-score in the units of the bins (uncertainties times the reference
    factor), and whether the average stage advises to correct it. A range's bias is the
    dependence of the offset on the variable, what the binned <Z> and cumulative tests test:
    its size is the range's mean z minus the set's. When the global offset is advised, it is
    corrected first and a range states its own offset instead; when it is not, a range is
    advised only when its own offset also lies beyond the band around 0 (else correcting it
    would mostly correct the global offset judged not worth correcting)."""
    v = a.verdicts
    mz = v[(v["stage"] == "average") & (v["statistic"] == "<Z>")]
    if mz.empty:
        return 0.0, False
    return float(mz["value"].iloc[0]) / a.reference, mz["effect"].iloc[0] == "relevant"


def _range_rows(a: AdviceInputs, stage: str, name: str, m: int, global_factor: float,
                per_row: NDArray[np.float64] | None = None) -> list[dict]:
    """Advice rows along one variable. ``per_row``: the consistency factors
    (:func:`consistency_factors`); a feature range that they bring within the band is not
    advised on its own (one ``none`` row says so): fixing consistency fixes it."""
    table = a.bins[name]
    span = float(table["high"].max() - table["low"].min())
    band = factor_band(a.tolerance)
    out: list[dict] = []
    bias = _relevant(a.verdicts, stage, name, "bias")
    # E[Z^2] = Var(Z) + <Z>^2: a bias alone moves the bin-free tests of Z^2 - 1; with a
    # relevant bias, ranges of the spread are advised only when the binned LZMS test fails too
    spread = _relevant(a.verdicts, stage, name, "LZMS" if bias else "spread")
    # a range is advised when its pooled interval, simultaneous over the bins of every
    # variable of the stage, lies wholly beyond the tolerance band: for a bias, around the
    # global offset advised (0 when none)
    names = [name] if stage == "consistency" else [f for f in a.features if f in a.bins]
    family = sum(len(a.bins[f]) + len(a.fine_bins.get(f, ())) for f in names)
    grids = [table] + ([a.fine_bins[name]] if name in a.fine_bins else [])
    offset, corrected = _global_offset(a)
    bias_ranges = [r for r in grid_ranges(grids, "mean_z", "mean_z_low", "mean_z_high",
                                           offset, family=family,
                                           band=(offset - a.tolerance, offset + a.tolerance))
                   if _wide_enough(a, r, m, lone_bin=False) and (
                       corrected or r["pooled_low"] > a.tolerance
                       or r["pooled_high"] < -a.tolerance)] if bias else []
    x_all = a.uncertainties if stage == "consistency" else a.features[name]
    if spread:
        # for the spread, the band of the factor relative to the global factor advised (1
        # when none), in the units of the bins' <Z^2> (uncertainties times the reference)
        relative = a.reference / global_factor
        ranges = [r for r in grid_ranges(grids, target=1.0 / relative**2, family=family,
                                          band=((band[0] / relative) ** 2,
                                                (band[1] / relative) ** 2))
                  if _wide_enough(a, r, m, lone_bin=True)]
        if per_row is not None and stage == "adaptivity":
            explained = [r for r in ranges
                         if _explained_by_consistency(a, name, r["low"], r["high"], per_row, band)]
            ranges = [r for r in ranges if r not in explained]
            if explained:
                n = sum(r["n"] for r in explained)
                out.append(_row(stage, "none", (
                    f"{len(explained)} range(s) of {name} ({fmt(100 * n / m, 2)} % of the rows) "
                    "depart only as much as their mix of uncertainties explains: once the "
                    "uncertainties are recalibrated per range of uncertainty (consistency), "
                    f"they are right within ±{fmt(100 * a.tolerance, 2)} %; fix consistency "
                    "first, then validate again"), variable=name, rows=n, m=m))
        for r in sorted(sorted(ranges, key=lambda r: -r["n"])[:MAX_RANGES],
                        key=lambda r: r["low"]):
            given = math.sqrt(r["mean"]) * a.reference  # the bins use uE·reference
            where = fmt_span(name, r['low'], r['high'], span)
            size_ci = (f"simultaneous interval [{fmt(math.sqrt(max(r['pooled_low'], 0.0)) * a.reference)}, "
                       f"{fmt(math.sqrt(r['pooled_high']) * a.reference)}]")
            if a.dominant.size:  # the range's factor without the rows that decide the average
                x = a.uncertainties if stage == "consistency" else a.features[name]
                keep = (x >= r["low"]) & (x <= r["high"])
                keep[a.dominant] = False
                if keep.sum() < rules.MIN_BIN_COUNT:
                    continue
                given = float(np.sqrt(np.mean(np.square(a.errors[keep] / a.uncertainties[keep]))))
                if band[0] <= given / global_factor <= band[1]:
                    continue
                where += " (without the dominant rows)"
                size_ci = ""
            biased = _inside_bias_ranges(x_all, r, bias_ranges)
            if biased.any():
                # the range is also biased: judge its spread by sd(Z) there, once the bias is
                # corrected (advising both the factor of <Z^2> and the bias over-corrects)
                keep = biased.copy()
                keep[a.dominant] = False
                if keep.sum() < rules.MIN_BIN_COUNT:
                    continue
                sd, sd_low, sd_high = spread_factor(
                    a.errors[keep] / a.uncertainties[keep],
                    None if a.groups is None else a.groups.subset(np.flatnonzero(keep)),
                    n_boot=a.n_boot, seed=a.seed)
                if band[0] <= sd_high / global_factor and sd_low / global_factor <= band[1]:
                    continue  # the bias advised below explains the range (or may)
                given = sd
                where += " (sd(Z) once the bias there is corrected)"
                size_ci = f"interval [{fmt(sd_low)}, {fmt(sd_high)}]"
            instead = "" if global_factor == 1.0 else f" instead of the global {fmt(global_factor)}"
            if band[0] <= given <= band[1]:
                text = (f"{where}: the given uncertainties are right there (factor "
                        f"{fmt(given)}{size_ci and ', ' + size_ci}); keep them"
                        f"{instead and ' (no global factor there)'}")
            else:
                how = "small" if given > 1 else "large"
                size = given if given > 1 else 1 / given
                text = (f"{where}: the given uncertainties are too {how} by a factor "
                        f"{fmt(size)}; multiply them by {fmt(given)} there"
                        f"{size_ci and ' (' + size_ci + ')'}{instead}")
            out.append(_row(stage, "recalibrate_per_range", text, variable=name, low=r["low"],
                            high=r["high"], rows=r["n"], m=m, factor=given))
    if bias:
        spread_text = "" if spread else "spread right; "
        for r in sorted(sorted(bias_ranges, key=lambda r: -r["n"])[:MAX_RANGES],
                        key=lambda r: r["low"]):
            where = f"where {name} is {fmt_range(r['low'], r['high'], span)}"
            around = (f"{fmt(offset, 2)}, the global offset advised" if corrected else
                      f"0 and of the set's mean z {fmt(offset, 2)}")
            clear = (f"simultaneous interval [{fmt(r['pooled_low'], 2)}, "
                     f"{fmt(r['pooled_high'], 2)}], beyond ±{fmt(a.tolerance, 2)} of {around}")
            if abs(r["mean"]) <= a.tolerance:  # only beside a global offset
                text = (f"{spread_text}predictions right on average {where} (mean z "
                        f"{fmt(r['mean'], 2)}; {clear}): do not apply the global correction "
                        "there (the bias depends on it)")
            else:
                direction = "too low" if r["mean"] > 0 else "too high"
                instead = f" instead of the global {fmt(offset, 2)}" if corrected else ""
                text = (f"{spread_text}predictions {direction} by {fmt(abs(r['mean']), 2)} "
                        f"uncertainties (mean z) {where} ({clear}): correct the predictions "
                        f"there by that{instead} (a bias that depends on it), not the "
                        "uncertainties")
            out.append(_row(stage, "correct_bias", text, variable=name, low=r["low"],
                            high=r["high"], rows=r["n"], m=m))
    return out


def _inside_bias_ranges(x: NDArray[np.float64], r: dict,
                        bias_ranges: list[dict]) -> NDArray[np.bool_]:
    """Rows of the range ``r`` that lie in a range advised for a bias (empty mask when fewer
    than half of its rows do: the range is then judged by its <Z^2> as before)."""
    inside = (x >= r["low"]) & (x <= r["high"])
    if not bias_ranges:
        return np.zeros_like(inside)
    biased = np.zeros_like(inside)
    for b in bias_ranges:
        biased |= (x >= b["low"]) & (x <= b["high"])
    both = inside & biased
    return both if both.sum() >= 0.5 * inside.sum() else np.zeros_like(inside)


def advice_table(a: AdviceInputs) -> pd.DataFrame:
    """The advice rows of a validation (module docstring), most important first."""
    m = int(a.uncertainties.size) if a.rows is None else a.rows
    dominated = is_dominated(a.tails, a.scale[0], a.robust, a.errors, a.uncertainties)
    rows: list[dict] = []
    if dominated:
        rows.append(_row("data", "inspect_rows", _dominant_reason(a, m),
                         rows=int(a.dominant.size) or int(math.ceil(0.01 * m)), m=m))
    average = _average_rows(a, m, dominated)
    global_factor = next((r["factor"] for r in average if r["action"] == "scale"), 1.0)
    per_row = consistency_factors(a)
    ranges = _conditional_advice(a, m, global_factor, per_row)
    first = (average, global_factor, ranges)
    for i in range(REST_PASSES):  # the global factor is the rest's (or none): ranges against it
        judged = _rest_average(a, first[0], ranges, m, pulling_only=i == 0)
        if judged is None:  # no range left against the rest's factor: as at first
            average, global_factor, ranges = first
            break
        average, factor = judged
        if abs(factor / global_factor - 1.0) < 0.01:
            break
        global_factor = factor
        ranges = _conditional_advice(a, m, global_factor, per_row)
    rows += average + ranges
    advised = [r for r in rows if r["stage"] == "adaptivity"
               and r["action"] == "recalibrate_per_range"]
    rows += joint_advice(a.joint, a.verdicts, a.reference, global_factor, a.tolerance, m,
                         advised, a.features, _row,
                         explained=explained_by_advised_feature(a, advised, global_factor))
    return pd.DataFrame(rows, columns=ADVICE_COLUMNS)


def _conditional_advice(a: AdviceInputs, m: int, global_factor: float,
                        per_row: NDArray[np.float64] | None) -> list[dict]:
    """The range rows along the uncertainty and each feature, against ``global_factor``,
    without the ranges the strongest feature explains."""
    conditional: Sequence[tuple[str, str]] = [("consistency", a.uncertainty_name)] + [
        ("adaptivity", name) for name in a.features
    ]
    rows: list[dict] = []
    for stage, name in conditional:
        if name in a.bins:
            rows += _range_rows(a, stage, name, m, global_factor, per_row)
    return explained_by_strongest_feature(a, rows, m, global_factor, _row)


def _rest_average(a: AdviceInputs, average: list[dict], ranges: list[dict], m: int, *,
                  pulling_only: bool = False) -> tuple[list[dict], float] | None:
    """The average rows once the rows outside every advised range are judged on their own
    (:mod:`uqval.validation.rest_scale`): the ``scale`` row then carries their factor, or
    becomes a ``none`` row when it is not beyond the band with confidence; with the global
    factor the ranges are then judged against. None unless a ``scale`` row sits beside
    ranges advised along one variable (the uncertainty or one feature: the ranges and the
    rest then partition the rows; ranges along several variables overlap).

    ``pulling_only`` (the first pass, ranges judged against the global factor itself): only
    the ranges beyond the global factor on its side of 1 are set apart, those that pull it
    there; against an inflated global factor the right rows look too large and would be set
    apart too. When no range pulls it (half the rows right, the other half 1.6x off: only
    the right half clears the band against the mean factor 1.33), the advised ranges are set
    apart all the same, so that the others get their own factor (1.6) and not the mean of
    both halves; only when those others are at least half of the rows (a factor for a
    minority is a range, not a global factor) and no few rows decide the average (its factor
    is then the robust one, :func:`is_dominated`). The later passes, against the rest's
    factor, set apart every advised range."""
    scale = next((r for r in average if r["action"] == "scale"), None)
    advised = [r for r in ranges if r["action"] == "recalibrate_per_range"]
    if scale is None or len({(r["stage"], r["variable"]) for r in advised}) != 1:
        return None  # ranges along several variables overlap: no partition of the rows
    if pulling_only:
        up = scale["factor"] > 1.0
        pulling = [r for r in advised if (r["factor"] > scale["factor"]) == up]
        # no range pulls the factor: the ranges on the other side (rows right as given, say,
        # beside rows that need more) set the others apart, when those others are most of
        # the rows (a "global" factor for a minority is a range) and no few rows decide the
        # average (its factor is then the robust one)
        if not pulling and (a.dominant.size or sum(r["rows"] for r in advised) > m / 2):
            return None
        advised = pulling or advised
    spans = [(a.uncertainties if r["stage"] == "consistency" else a.features[r["variable"]],
              float(r["low"]), float(r["high"])) for r in advised]
    bias = any(r["action"] == "correct_bias" for r in average)
    rest = rest_factor(a.errors, a.uncertainties, spans, a.dominant, spread=bias,
                       groups=a.groups, n_boot=a.n_boot, seed=a.seed)
    if rest is None:
        return None
    band = factor_band(a.tolerance)
    share = rest.rows / a.errors.size
    outside = (f"outside the {len(advised)} range(s) advised below ({rest.rows} rows, "
               f"{fmt(100 * share, 2)} % of the rows"
               + (", without the dominant rows" if a.dominant.size else "") + ")")
    factor = fmt_interval(rest.value, rest.ci_low, rest.ci_high)
    measure = "sd(Z)" if bias else "factor"
    if (rest.ci_low > 1.0 or rest.ci_high < 1.0) and not band[0] <= rest.value <= band[1]:
        row = {**scale, "factor": rest.value, "reason": (
            f"{outside}, the uncertainties are too {'small' if rest.value > 1 else 'large'} "
            f"on average: {measure} {factor} {_beyond(rest.ci_low, rest.ci_high, a.tolerance)}"
            f"; multiply them by {fmt(rest.value)} (all rows together: {fmt(scale['factor'])}"
            ", which counts the ranges too)")}
        global_factor = rest.value
    else:
        if band[0] <= rest.ci_low and rest.ci_high <= band[1]:
            state = f"right within the ±{fmt(100 * a.tolerance, 2)} % tolerance"
        elif rest.ci_low > 1.0 or rest.ci_high < 1.0:
            state = f"off by less than the ±{fmt(100 * a.tolerance, 2)} % tolerance"
        else:
            state = "compatible with 1"
        row = _row("average", "none", (
            f"the average miss (factor {fmt(scale['factor'])}) comes from the ranges advised "
            f"below: {outside} the {measure} is {factor}, {state}; keep the other uncertainties "
            "as they are and multiply only the ranges below"), rows=rest.rows, m=m)
        global_factor = 1.0
    return [row if r is scale else r for r in average], global_factor
