"""The judgement of a predictive's coverage and shape: the actions, as rows.

What ``validate(y_true, predictive)`` advises beyond the variance stages (whose advice is
:mod:`uqval.validation.judgement`'s), in the columns of ``advice.csv``
(:data:`uqval.validation.advice.ADVICE_COLUMNS` and ``level``), most important first:

1. ``fix_data`` (stage ``data``): the predictive has data problems (crossing quantiles, NaN
   members, ...): fix them at their source first.
2. ``fix_shape`` (stage ``shape``): the PIT test fails with a relevant effect and its
   diagnosis names the tails; coverage failures at the levels it explains are then not
   advised one by one (a factor per level would only patch a wrong shape).
3. ``recalibrate_per_range`` (stage ``coverage``): at a level whose coverage depends on a
   variable (its conditional test fails with a relevant effect), each range of adjacent bins
   whose coverage misses the level on one side (simultaneous intervals over the bins,
   :func:`uqval.validation.bin_ranges.problem_ranges`) and covers at least 1 % of the rows, with
   its coverage; no global factor is then advised at that level unless every such range
   misses on the side the global coverage does (a global factor would make the other
   ranges worse). When the level is missed in every bin, the ranges that miss it by more
   than all rows do (intervals beyond the overall coverage, on the same side, coverage
   outside the band) are advised next to the global factor, unless the rows outside the
   ranges (judged then against the level itself) are right: the variance stages' rule for
   the rest's factor on coverage (:func:`_rest_coverage`): the rest keeps the global miss
   only when it misses too, its interval beyond the level and its coverage beyond the band;
   otherwise a ``none`` row says "no global widening" with the rest's coverage, and only
   the ranges are widened (errors 2x for x > 0.8: a global widening in 100 % of the sets
   before, 8 % after; ``benchmarks/coverage_rest_rates.md``).
4. ``widen`` / ``narrow`` (stage ``coverage``): the level's coverage fails with a relevant
   effect: the factor k_L about the intervals' midpoints with its interval.
5. ``none`` (:func:`factor_scope`), when the variance stages advise one factor f for every
   sd and the judged intervals, widened by f about their midpoints
   (:func:`uqval.validation.scaled_coverage.scaled_interval_coverage`), would cover too much
   (or, f < 1, too little) at some level, beyond the tolerance and beyond chance: f is the
   sd's as a standard deviation, driven by the largest errors (heavy tails), not those
   intervals'; the row names the levels, their coverage as given and once widened, and the
   tails' share when the PIT shares show it.
6. ``none`` (:func:`no_action`), when nothing above and no variance stage advises anything:
   one row that says why, so that every route writes ``advice.csv``.

Which intervals: the central intervals of the predictive at each level (for quantile sets
the given quantiles, for a parametric predictive its quantiles), named in every reason. For
an unweighted ensemble both are measured: the randomised rank intervals (y's randomised rank
among the members in its central share, exact for a perfect ensemble of any size; not the
interval between the members' empirical quantiles, which cannot reach (m - 1)/(m + 1)) and
the intervals users build, mean ± q·sd·√(1 + 1/m) with q the
t(m - 1) quantile (:func:`uqval.validation.coverage_shape.built_interval_rows`); the global
``widen``/``narrow`` advice is about the latter ("the 90 % intervals mean ± 1.89·sd·√(1+1/m)
... cover 84 %: widen them, multiply 1.89 by 1.2"), and only when the rank intervals miss on
the same side: when they are right, the built intervals miss because the members are not
normal-shaped (a perfect t(6) ensemble), and a ``none`` row says to build the intervals
from the members' quantiles instead; the per-range advice is about the rank intervals along
the pooled spread.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np
import pandas as pd

from uqval._internal.formatting import fmt, fmt_span
from uqval.validation.advice import ADVICE_COLUMNS, MIN_RANGE_SHARE
from uqval.validation.bin_ranges import problem_ranges
from uqval.validation.coverage_shape import CoverageCheck, ShapeCheck

__all__ = ["INTERVALS", "PREDICTIVE_ADVICE_COLUMNS", "coverage_agreement", "factor_scope",
           "no_action", "predictive_advice"]

INTERVALS = {
    "ensemble": "central intervals (empirical quantiles of the members)",
    "samples": "central intervals (empirical quantiles of the samples)",
    "quantiles": "central intervals (between the given quantiles)",
    "intervals": "given intervals",
}
"""The intervals judged, by predictive kind; parametric predictives: their central
intervals (quantiles of the distribution)."""

PREDICTIVE_ADVICE_COLUMNS = [*ADVICE_COLUMNS, "level"]
"""``advice.csv`` of a predictive: the variance advice's columns and the nominal level."""


def _pct(level: float) -> str:
    """A nominal level as its name: "90 %", "97.5 %"."""
    return f"{100 * level:g} %"


class _LevelRow(Protocol):
    """A row of a coverage table (a named tuple of ``itertuples`` or a plain namespace)."""

    level: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float


def coverage_agreement(r: _LevelRow) -> str:
    """What a level that passes says of its coverage: "compatible with L %" when its interval
    holds L, else weak evidence (the interval excludes L, the test passes only after Holm's
    adjustment over the stage's tests), never "compatible" beside an interval without L.

    >>> from types import SimpleNamespace as R
    >>> print(coverage_agreement(R(level=0.9, ci_low=0.63, ci_high=0.897, p_value=0.042,
    ...                            p_adjusted=0.084)))
    weak evidence of too few: the interval excludes 90 % and p = 0.042 alone, but 0.084 after Holm over the stage's tests (not beyond chance at the stage's level)
    """
    level, low, high = float(r.level), float(r.ci_low), float(r.ci_high)
    shown = f"{100 * level:g} %"
    if low <= level <= high:
        return f"compatible with {shown}"
    side = "too few" if high < level else "too many"
    return (f"weak evidence of {side}: the interval excludes {shown} and p = "
            f"{fmt(float(r.p_value), 2)} alone, but {fmt(float(r.p_adjusted), 2)} after Holm "
            "over the stage's tests (not beyond chance at the stage's level)")


def _row(stage: str, action: str, reason: str, m: int, *, variable: str = "",
         low: float = math.nan, high: float = math.nan, rows: int | None = None,
         factor: float = math.nan, level: float = math.nan) -> dict:
    rows = m if rows is None else rows
    return {"stage": stage, "variable": variable, "low": low, "high": high, "rows": rows,
            "share": rows / m, "action": action, "factor": factor, "reason": reason,
            "region": "", "level": level}


def _range_rows(coverage: CoverageCheck, level: float, name: str, m: int,
                intervals: str, against_level: bool = False) -> list[dict]:
    """The ranges of ``name`` whose coverage at ``level`` misses it (module docstring, 3).

    When the level itself is missed (its coverage fails with a relevant effect: a global
    factor is advised), a range is one that misses it by more than all rows do: its
    simultaneous intervals lie beyond the overall coverage on the side of the global miss and
    its coverage is outside the level's tolerance band. The conditional test says the
    coverage depends on the variable, and one factor for all rows would leave those ranges
    short, so they are advised next to the global factor (the same side: it is kept); the
    ranges that miss the level only as much as every row does are the global miss itself,
    not ranges (judged against the level, they cover up to every bin). ``against_level``:
    judged against the level even when it is missed overall (the rows outside the ranges are
    right: :func:`_rest_coverage`)."""
    bins = coverage.bins.get(name)
    if bins is None:
        return []
    table = bins[bins["level"] == level].reset_index(drop=True)
    if table.empty:
        return []
    span = float(table["high"].max() - table["low"].min())

    def local(ranges: list[dict]) -> list[dict]:
        return [r for r in ranges if r["n"] >= MIN_RANGE_SHARE * m
                and not (r["first"] == 0 and r["last"] == len(table) - 1)]

    ranges, overall = ([], "") if against_level else _worse_than_overall(
        coverage, table, level, local)
    if not overall:
        ranges = local(problem_ranges(table, target=level, simultaneous=True))
    out = []
    for r in ranges:
        few = r["side"] == "below"
        where = fmt_span(name, r['low'], r['high'], span)
        out.append(_row("coverage", "recalibrate_per_range", (
            f"where {where} ({fmt(100 * r['n'] / m, 2)} % of the rows), the {_pct(level)} "
            f"{intervals} cover {fmt(100 * r['mean'], 3)} % of them{overall}: too "
            f"{'narrow' if few else 'wide'} there; recalibrate them per range "
            f"({'widen' if few else 'narrow'} them there, e.g. by conformal prediction "
            f"conditional on {name}), not with one factor for all rows"),
            m, variable=name, low=float(r["low"]), high=float(r["high"]), rows=int(r["n"]),
            level=level))
        out[-1]["side"] = r["side"]
    return out


def _worse_than_overall(coverage: CoverageCheck, table: pd.DataFrame, level: float,
                        local: Callable[[list[dict]], list[dict]]) -> tuple[list[dict], str]:
    """Ranges missing the level by more than the rows overall do (:func:`_range_rows`), and
    the words saying so; ([], "") when the level is not missed overall."""
    levels = coverage.levels.set_index("level")
    if level not in levels.index:
        return [], ""
    g = levels.loc[level]
    if g["verdict"] != "fail" or g["effect"] != "relevant":
        return [], ""
    side = "below" if g["value"] < level else "above"
    ranges = [r for r in local(problem_ranges(table, target=float(g["value"]),
                                              simultaneous=True))
              if r["side"] == side and not g["band_low"] <= r["mean"] <= g["band_high"]]
    worse = "less" if side == "below" else "more"
    return ranges, (f", {worse} than the {fmt(100 * float(g['value']), 3)} % of all rows (the "
                    "coverage depends on it, beyond the global miss advised below)")


def _rest_coverage(coverage: CoverageCheck, level: float, ranges: list[dict]
                   ) -> tuple[str, float, float, float, float] | None:
    """The rows outside the advised ranges of one variable at ``level``, when they do not
    miss the level themselves: (variable, share of the rows, coverage, 95 % interval), else
    None. The variance stages' rule for the rest's factor (:mod:`uqval.validation.rest_scale`)
    on coverage: a global miss belongs to the rest only when the rest misses too, its
    interval beyond the level and its coverage beyond the tolerance band (the level's
    ``relevant`` effect); and only when the rest holds at least half the rows. From the
    per-bin records of the variable (bins disjoint from its ranges): the count-weighted
    coverage, and its interval from the bins' 95 % half-widths as independent parts."""
    levels = coverage.levels.set_index("level")
    if level not in levels.index:
        return None
    g = levels.loc[level]
    band = (float(g["band_low"]), float(g["band_high"]))
    best = None
    for name in dict.fromkeys(str(r["variable"]) for r in ranges):
        bins = coverage.bins.get(name)
        if bins is None:
            continue
        table = bins[bins["level"] == level]
        own = [r for r in ranges if str(r["variable"]) == name]
        outside = np.ones(len(table), dtype=bool)
        for r in own:
            outside &= (table["high"].to_numpy() < r["low"]) | (table["low"].to_numpy() > r["high"])
        rest = table[outside]
        n = rest["n"].to_numpy(dtype=float)
        if n.sum() < 0.5 * table["n"].sum():
            continue
        w = n / n.sum()
        value = float(np.sum(w * rest["value"].to_numpy(dtype=float)))
        half = (rest["ci_high"].to_numpy(dtype=float) - rest["ci_low"].to_numpy(dtype=float)) / 2
        h = float(np.sqrt(np.sum(np.square(w * half))))
        low, high = value - h, value + h
        misses = (high < level or low > level) and not band[0] <= value <= band[1]
        if not misses and (best is None or n.sum() > best[1]):
            best = (name, float(n.sum() / table["n"].sum()), value, low, high)
    return best


def _rest_row(level: float, action: str, overall: float,
              rest: tuple[str, float, float, float, float], intervals: str, m: int) -> dict:
    """The ``none`` row of a level whose global miss the ranges explain (:func:`_rest_coverage`)."""
    name, share, value, low, high = rest
    return _row("coverage", "none", (
        f"no global {action}ing of the {_pct(level)} {intervals}: all rows cover "
        f"{fmt(100 * overall, 3)} %, but outside the ranges of {name} advised above "
        f"({fmt(100 * share, 2)} % of the rows) they cover {fmt(100 * value, 3)} % "
        f"[{fmt(100 * low, 3)}, {fmt(100 * high, 3)}], right within the tolerance: {action} "
        "only those ranges, keep the rest as they are"), m, level=level)


def predictive_advice(coverage: CoverageCheck, shape: ShapeCheck | None, data_sentences:
                      list[str], m: int, intervals: str) -> pd.DataFrame:
    """The coverage, shape and data actions (module docstring); ``intervals`` names the
    intervals judged ("central intervals (empirical quantiles of the members)")."""
    rows: list[dict] = []
    if data_sentences:
        rows.append(_row("data", "fix_data", (
            "the predictive has data problems (" + "; ".join(data_sentences) + "): fix them "
            "at their source; the rules applied here only let the rest be validated"), m))
    built = not coverage.built.empty
    levels = coverage.built if built else coverage.levels
    failing = levels[(levels["verdict"] == "fail") & (levels["effect"] == "relevant")
                     & levels["widen"].notna()] if not levels.empty else levels
    tails = (shape is not None and shape.verdict == "fail" and shape.effect != "negligible"
             and "tails are" in shape.diagnosis)
    if shape is not None and shape.verdict == "fail" and shape.effect != "negligible":
        explained = (" That also corrects the coverage at "
                     + ", ".join(_pct(x) for x in failing["level"]) + ", which one factor per "
                     "level would only patch." if tails and not failing.empty else "")
        rows.append(_row("shape", "fix_shape", f"{shape.diagnosis}.{explained}".rstrip("."),
                         m))
    if tails:
        failing = failing.iloc[:0]
    cond = coverage.conditional
    per_range: dict[float, list[dict]] = {}
    if not cond.empty:
        for r in cond[(cond["verdict"] == "fail") & (cond["effect"] == "relevant")].itertuples():
            per_range.setdefault(float(r.level), []).extend(
                _range_rows(coverage, float(r.level), str(r.variable), m, intervals))
    rests: dict[float, tuple[str, float, float, float, float]] = {}
    for r in failing.itertuples():  # the rows outside the ranges right: no global factor
        level = float(r.level)
        ranges = per_range.get(level, [])
        side = "below" if r.widen > 1 else "above"
        if built or not ranges or any(x["side"] != side for x in ranges):
            continue
        # the ranges judged against the level itself, and the rows outside them
        own = [x for name in dict.fromkeys(str(y["variable"]) for y in ranges)
               for x in _range_rows(coverage, level, name, m, intervals, against_level=True)]
        if not own or any(x["side"] != side for x in own):
            continue
        rest = _rest_coverage(coverage, level, own)
        if rest is not None:
            rests[level], per_range[level] = rest, own
    for ranges in per_range.values():
        rows += [{k: v for k, v in r.items() if k != "side"} for r in ranges]
    rank = coverage.levels.set_index("level") if built else None
    for r in failing.itertuples():
        level = float(r.level)
        side = "below" if r.widen > 1 else "above"
        ranges = per_range.get(level, [])
        action = "widen" if r.widen > 1 else "narrow"
        if level in rests:
            rows.append(_rest_row(level, action, float(r.value), rests[level], intervals, m))
            continue
        if ranges and any(x["side"] != side for x in ranges):
            continue  # ranges on both sides: one global factor would worsen some of them
        if rank is not None and level in rank.index:
            own = rank.loc[level]
            agrees = (own["verdict"] == "fail" and own["effect"] != "negligible"
                      and (own["value"] < level) == (r.value < level))
            if not agrees:  # the members' own intervals are right: the shape is not normal
                # beyond (m - 1)/(m + 1) no interval between members reaches the level (the
                # rank rows' widening factor is then undefined, coverage_shape._level_rows)
                reachable = math.isfinite(float(own["widen"]))
                how = ("build the intervals from the members' quantiles rather than from mean "
                       "and sd" if reachable else
                       "no interval between the members' quantiles reaches this level with so "
                       "few members (their range holds (m − 1)/(m + 1) of the observations of "
                       "a perfect ensemble): build it from a heavier-tailed family fitted to "
                       "the members (e.g. Student t), or use more members")
                rows.append(_row("coverage", "none", (
                    f"the {_pct(level)} intervals mean ± q·sd·√(1+1/m) (q from t(m − 1)) "
                    f"cover {fmt(100 * r.value, 3)} % of the rows, but y's randomised rank "
                    f"among the members lies in its central {_pct(level)} for "
                    f"{fmt(100 * own['value'], 3)} % of them: the ensemble is not at fault, the "
                    f"members are not normal-shaped; {how} (no factor)"), m, level=level))
                continue
        if built:
            q = (f"{fmt(r.quantile, 3)}" if math.isfinite(r.quantile) else "q")
            what = (f"the {_pct(level)} intervals mean ± {q}·sd·√(1+1/m) built from the "
                    f"members ({q} the {fmt(50 * (1 + level), 3)} % quantile of t(m − 1))")
            how = (f"multiply {q} (or the sd) by {fmt(r.widen)} [{fmt(r.widen_low)}, "
                   f"{fmt(r.widen_high)}]")
        else:
            what = f"the {_pct(level)} {intervals}"
            how = (f"multiplying their half-widths about their midpoints by {fmt(r.widen)} "
                   f"[{fmt(r.widen_low)}, {fmt(r.widen_high)}]")
        rows.append(_row("coverage", action, (
            f"{what} cover {fmt(100 * r.value, 3)} % [{fmt(100 * r.ci_low, 3)}, "
            f"{fmt(100 * r.ci_high, 3)}] of the rows: {action} them, {how} (or recalibrate "
            "them, e.g. by conformal prediction)"), m,
            factor=float(r.widen), level=level))
    return pd.DataFrame(rows, columns=PREDICTIVE_ADVICE_COLUMNS)


def no_action(coverage: CoverageCheck, shape: ShapeCheck | None, m: int,
              intervals: str) -> pd.DataFrame:
    """The one ``none`` row of a predictive with nothing to advise (module docstring, 5): the
    levels whose coverage departs beyond chance without a relevant effect are named with
    their coverage and interval (within the tolerance, or not clearly beyond it), the others
    are said to be right within the tolerance at this sample size."""
    levels = coverage.built if not coverage.built.empty else coverage.levels
    parts = []
    if not levels.empty:
        off = levels[levels["verdict"] == "fail"]
        for r in levels[levels["verdict"] != "fail"].itertuples():
            inside = (getattr(r, "band_low", math.nan) <= r.ci_low
                      and r.ci_high <= getattr(r, "band_high", math.nan))
            parts.append(f"the {_pct(float(r.level))} {intervals} cover "
                         f"{fmt(100 * r.value, 3)} % [{fmt(100 * r.ci_low, 3)}, "
                         f"{fmt(100 * r.ci_high, 3)}] of the rows: "
                         + ("right within the tolerance" if inside else
                            coverage_agreement(r) + (" (not off beyond chance)"
                                                     if r.ci_low <= r.level <= r.ci_high
                                                     else "")))
        for r in off.itertuples():
            parts.append(f"the {_pct(float(r.level))} {intervals} cover "
                         f"{fmt(100 * r.value, 3)} % [{fmt(100 * r.ci_low, 3)}, "
                         f"{fmt(100 * r.ci_high, 3)}] of the rows: off beyond chance but within "
                         "the tolerance, or not clearly beyond it")
    cond = coverage.conditional
    if not cond.empty and (cond["verdict"] == "fail").any():
        parts.append("the coverage varies along "
                     + ", ".join(dict.fromkeys(map(str, cond.loc[cond["verdict"] == "fail",
                                                                 "variable"])))
                     + " beyond chance, but no range is clearly off")
    if shape is not None:
        parts.append("the PIT shape is right" if shape.verdict != "fail" else
                     f"the PIT shape departs ({shape.diagnosis}) without a relevant effect")
    reason = "; ".join(parts) or "nothing was tested"
    return pd.DataFrame([_row("coverage", "none", f"{reason} (at this sample size, {m} rows): "
                              "no action", m)], columns=PREDICTIVE_ADVICE_COLUMNS)


def _tail_excess(shape: ShapeCheck | None) -> str:
    """The outermost PIT share above its expected value beyond chance (its interval above
    it) and beyond its tolerance band, said ("2.52 % [1.72 %, 3.56 %] of the observations
    lie outside the central 99 % interval, expected 1 %"), or "" when none is."""
    if shape is None or shape.shares.empty:
        return ""
    shares = shape.shares.set_index("share")
    for name, outside in (("outer 1 %", 99), ("outer 10 %", 90)):
        if name not in shares.index:
            continue
        r = shares.loc[name]
        if float(r["ci_low"]) > float(r["expected"]) and float(r["value"]) > float(r["band_high"]):
            return (f"{fmt(100 * float(r['value']), 3)} % [{fmt(100 * float(r['ci_low']), 3)} %, "
                    f"{fmt(100 * float(r['ci_high']), 3)} %] of the observations lie outside "
                    f"the central {outside} % interval, expected {100 * float(r['expected']):g} %")
    return ""


def _listed(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def factor_scope(scaled: pd.DataFrame, given: pd.DataFrame, shape: ShapeCheck | None,
                 m: int, intervals: str) -> list[dict]:
    """The ``none`` row of rule 5 (module docstring), or [] when the variance stages' factor
    f (``scaled["factor"]``) does not overshoot at any level. A level overshoots when its
    intervals widened by f miss it on f's side (over-cover for f > 1) with a ``relevant``
    effect; ``given`` (the coverage table of the intervals as given, ``built`` for an
    unweighted ensemble) supplies their coverage before widening.

    >>> import pandas as pd
    >>> scaled = pd.DataFrame({"level": [0.5, 0.9], "factor": [1.17, 1.17],
    ...                        "value": [0.60, 0.94], "ci_low": [0.58, 0.93],
    ...                        "ci_high": [0.62, 0.95], "effect": ["relevant", "relevant"]})
    >>> given = pd.DataFrame({"level": [0.5, 0.9], "value": [0.517, 0.899]})
    >>> print(factor_scope(scaled, given, None, 1744, "central intervals")[0]["reason"])
    ... # doctest: +NORMALIZE_WHITESPACE
    the variance stages' factor 1.17 is the sd's as a standard deviation (the largest errors
    weigh most in it), not for the 50 % and 90 % central intervals: as given they cover 51.7 %
    and 89.9 % of the rows; widened by 1.17 about their midpoints they would cover 60.0 % [58.0 %,
    62.0 %] and 94.0 % [93.0 %, 95.0 %], too many, beyond the tolerance; multiply the sd by 1.17 where it
    serves as a standard deviation (variances, error propagation), not these intervals
    """
    if scaled.empty:
        return []
    factor = float(scaled["factor"].iloc[0])
    up = factor > 1.0
    over = scaled[(scaled["effect"] == "relevant") & ((scaled["value"] > scaled["level"]) == up)]
    if over.empty:
        return []
    as_given = given.set_index("level")["value"]
    names = _listed([_pct(float(x)) for x in over["level"]])
    before = _listed([f"{fmt(100 * float(as_given.get(x, math.nan)), 3)} %"
                      for x in over["level"]])
    after = _listed([f"{fmt(100 * r.value, 3)} % [{fmt(100 * r.ci_low, 3)} %, "
                     f"{fmt(100 * r.ci_high, 3)} %]" for r in over.itertuples()])
    tails = _tail_excess(shape)
    return [_row("coverage", "none", (
        f"the variance stages' factor {fmt(factor)} is the sd's as a standard deviation (the "
        f"largest errors weigh most in it), not for the {names} {intervals}: as given they cover "
        f"{before} of the rows; {'widened' if up else 'narrowed'} by {fmt(factor)} about their "
        f"midpoints they would cover {after}, too {'many' if up else 'few'}, beyond the "
        "tolerance"
        + (f"; the excess variance sits in the tails ({tails}): a heavier-tailed predictive "
           "(e.g. Student t) would fit both" if tails and up else "")
        + f"; multiply the sd by {fmt(factor)} where it serves as a standard deviation "
        "(variances, error propagation), not these intervals"), m)]
