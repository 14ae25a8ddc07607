"""The one judgement of a validation: a label per stage and variable, and the actions.

The engine's stages compute records: verdict rows (one per test: statistic, value, interval,
p-value, Holm-adjusted p-value and the test's own pass/fail at level alpha) and per-bin
tables. This module turns them into what a reader acts on, and nothing else does:

* ``effect`` of every verdict row (:func:`uqval.validation.effects.row_effects`: does a
  departure matter against the practical tolerance t?);
* one **label** per stage and variable (:func:`stage_table`, ``stages.csv``,
  ``ValidationResult.stages``), from the rows judged (the average rows; the conditional and
  joint rows after the global factor, ``scaled``), in this order:

  ============================== =============================================================
  label                          when
  ============================== =============================================================
  ``not testable``               the variable cannot be binned (no test ran)
  ``not right``                  a test fails and its effect is ``relevant``: a departure
                                 beyond chance whose estimate lies outside the tolerance band
  ``inconclusive``               a test fails with an ``undetermined`` effect (its size cannot
                                 be told from the tolerance), or a test is inconclusive (a bin
                                 of fewer than 30 rows; heavy-tailed ZMS)
  ``right within the tolerance`` a test fails, every failing test with a ``negligible``
                                 effect (all intervals inside the band)
  ``right``                      every test passes
  ============================== =============================================================

  so no variable is called right while one of its tests fails with a relevant effect;
* the **actions** (:func:`uqval.validation.advice.advice_table`, ``advice.csv``), counted per
  stage and variable in the label's row (``n_actions``); a ``not right`` variable without an
  action says why in its reason (no range clear enough to localise, or explained by the
  consistency error).

The summary, the page's overview, ``advice.csv``, ``stages.csv`` and :func:`uqval.compare`
read these tables; none of them decides a label.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from uqval._internal.formatting import fmt, fmt_interval, fmt_range
from uqval.validation.advice import AdviceInputs, advice_table
from uqval.validation.effects import is_spread_test, row_effects

__all__ = [
    "INCONCLUSIVE",
    "LABELS",
    "NOT_RIGHT",
    "NOT_TESTABLE",
    "RIGHT",
    "RIGHT_WITHIN",
    "STAGE_COLUMNS",
    "Judgement",
    "judge",
    "stage_table",
    "stage_verdicts",
]

RIGHT = "right"
RIGHT_WITHIN = "right within the tolerance"
NOT_RIGHT = "not right"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable"
LABELS = (RIGHT, RIGHT_WITHIN, NOT_RIGHT, INCONCLUSIVE, NOT_TESTABLE)
"""The labels of a stage and variable (module docstring)."""

STAGE_COLUMNS = ["stage", "variable", "label", "effect", "factor_low", "factor_high",
                 "p_adjusted", "n_actions", "reason"]
"""Columns of ``stages.csv``: factor_low/factor_high are, for the average, the 95 % interval
of the scale factor sqrt(ZMS); for a conditional stage, the smallest and largest per-bin
factor sqrt(<Z^2>_b) after the global factor; for the joint stage, the factors of the
regions with the smallest and largest predicted factor (held-out rows)."""

ACTIONS = ("inspect_rows", "scale", "correct_bias", "recalibrate_per_range",
           "recalibrate_monotone")
"""The advice rows that ask for an action (``none`` rows explain why none is asked)."""


def stage_verdicts(verdicts: pd.DataFrame, rule: str = "uqval") -> dict[str, str]:
    """One verdict per stage (per feature for adaptivity): fail if any of its tests fails,
    else inconclusive if any is, else pass (else not testable); the conditional stages are
    judged after the global factor (``scaled`` rows), the paper's rule on its own rows."""
    v = verdicts
    rows = v if rule == "paper" else v[(v["stage"] == "average") | v["scaled"]]
    out: dict[str, str] = {}
    for (stage, feature), group in rows.groupby(["stage", "feature"], sort=False):
        key = stage if stage != "adaptivity" else f"adaptivity: {feature}"
        values = set(group["verdict"])
        out[key] = next(x for x in ("fail", "inconclusive", "pass", NOT_TESTABLE)
                        if x in values)
    return out


def _label(group: pd.DataFrame) -> str:
    verdict, effect = group["verdict"], group["effect"]
    failed = verdict == "fail"
    if (verdict == NOT_TESTABLE).all():
        return NOT_TESTABLE
    if (failed & (effect == "relevant")).any():
        return NOT_RIGHT
    if (failed & (effect != "negligible")).any() or (verdict == "inconclusive").any():
        return INCONCLUSIVE
    if failed.any():
        return RIGHT_WITHIN
    return RIGHT


def _tests(rows: pd.DataFrame) -> str:
    """The failing tests' names, shortened ("LZMS, cumulative Z²−1")."""
    return ", ".join(dict.fromkeys(str(t).split(" spread ratio")[0] for t in rows["statistic"]))


def _tol(tolerance: float) -> str:
    return f"±{fmt(100 * tolerance, 2)} %"


def _weak(row: pd.Series) -> str:
    """An average row whose 95 % interval excludes the target while its test passes after
    Holm's adjustment over the stage's two tests: said as weak evidence, not as agreement."""
    return (f"weak evidence, the interval excludes {fmt(row['target'])} and p = "
            f"{fmt(float(row['p_value']), 2)} alone, but {fmt(float(row['p_adjusted']), 2)} "
            "after the 2 tests of this stage (Holm): not beyond chance at the stage's level")


def _average_reason(group: pd.DataFrame, label: str, tolerance: float,
                    dominant: str, reference: float = 1.0,
                    alpha: float = 0.05) -> tuple[str, float, float]:
    zms = group[group["statistic"] == "ZMS"].iloc[0]
    mz = group[group["statistic"] == "<Z>"].iloc[0]
    lo, hi = math.sqrt(zms["ci_low"]), math.sqrt(zms["ci_high"])
    value = math.sqrt(zms["value"])
    factor = fmt_interval(value, lo, hi)
    side = "small" if value > 1 else "large"
    bias = (f"mean z {fmt(mz['value'], 2)} [{fmt(mz['ci_low'], 2)}, {fmt(mz['ci_high'], 2)}]")
    p = f"adjusted p = {fmt(float(group['p_adjusted'].min()), 2)}"
    parts = []
    if zms["verdict"] == "fail" and zms["effect"] == "relevant":
        parts.append(f"too {side} on average: scale factor {factor} (95 % interval), beyond "
                     f"the {_tol(tolerance)} tolerance")
    elif zms["verdict"] == "inconclusive" and hi < 1.0:
        parts.append(f"scale factor {factor} (95 % interval), wholly below 1 but not trusted: "
                     "the z-scores' skewness (beta_GM(Z^2) above its limit for this many rows) "
                     "allows a heavy tail this sample may have missed, and such a sample "
                     "underestimates ZMS")
    elif zms["verdict"] == "inconclusive":
        parts.append(f"scale factor {factor} (95 % interval), an interval that cannot be "
                     "trusted: the z-scores are too heavy-tailed")
    elif zms["verdict"] == "fail" and zms["effect"] == "negligible":
        parts.append(f"scale factor {factor} (95 % interval): beyond chance ({p}) but within "
                     f"the {_tol(tolerance)} tolerance")
    elif zms["verdict"] == "fail":
        parts.append(f"scale factor {factor} (95 % interval): beyond chance ({p}), possibly by "
                     f"less than the {_tol(tolerance)} tolerance")
    elif (lo > 1.0 or hi < 1.0) and zms["p_value"] <= alpha:  # passes after Holm only
        parts.append(f"scale factor {factor} (95 % interval): {_weak(zms)}")
    else:
        parts.append(f"scale factor {factor} (95 % interval) compatible with 1")
    if mz["verdict"] == "fail" and mz["effect"] == "relevant":
        direction = "too low" if mz["value"] > 0 else "too high"
        # judged in units of the uncertainties after the global factor (effects.row_effects)
        scaled = ("" if abs(reference - 1.0) < 0.005 else
                  f" ({fmt(mz['value'] / reference, 2)} once the uncertainties are "
                  f"multiplied by {fmt(reference)})")
        parts.append(f"biased: {bias}{scaled}, the predictions are {direction} on average")
    elif mz["verdict"] == "fail":
        parts.append(f"a small bias: {bias}, within the {_tol(tolerance)} tolerance or not "
                     "clearly beyond it")
    elif (mz["ci_low"] > 0.0 or mz["ci_high"] < 0.0) and mz["p_value"] <= alpha:
        parts.append(f"{bias}: {_weak(mz)}")
    else:
        parts.append(f"{bias} compatible with 0")
    if dominant:
        parts.append(dominant)
    return "; ".join(parts), lo, hi


def _bin_extremes(table: pd.DataFrame, span: float, name: str, m: int) -> str:
    """The bins with the smallest and largest factor, with intervals and ranges."""
    f = table["factor"].to_numpy(dtype=float)
    out = []
    for i, what in ((int(np.nanargmin(f)), "smallest"), (int(np.nanargmax(f)), "largest")):
        r = table.iloc[i]
        out.append(f"{what} bin factor {fmt_interval(r['factor'], r['factor_low'], r['factor_high'])} "
                   f"where {name} is {fmt_range(r['low'], r['high'], span)} "
                   f"({fmt(100 * r['n'] / m, 2)} % of the rows)")
    return "; ".join(out)


def _conditional_reason(group: pd.DataFrame, label: str, table: pd.DataFrame | None,
                        name: str, stage_tests: int, alpha: float, tolerance: float,
                        explained: str, n_actions: int, m: int) -> str:
    p = float(group["p_adjusted"].min())
    failed = group[group["verdict"] == "fail"]
    if label == NOT_TESTABLE:
        note = str(group["note"].iloc[0])
        return note.rpartition("not testable: ")[2] or note
    k = len(table) if table is not None else 0
    span = float(table["high"].max() - table["low"].min()) if table is not None else math.nan
    if label == RIGHT:
        cumulative = group["statistic"].astype(str).str.startswith("cumulative").any()
        text = (f"no difference between its {k} bins"
                f"{' nor along its cumulative sums' if cumulative else ''} beyond "
                f"chance (adjusted p = {fmt(p, 2)})")
        raw = float(group["p_value"].min())
        if raw <= alpha < p:
            text += (f"; weak evidence: p = {fmt(raw, 2)} alone, {fmt(p, 2)} after the "
                     f"{stage_tests} tests of this stage (Holm)")
        return text
    if label == RIGHT_WITHIN:
        return (f"a departure beyond chance by {_tests(failed)} (adjusted p = {fmt(p, 2)}), "
                f"every bin within the {_tol(tolerance)} tolerance")
    if label == INCONCLUSIVE:
        if failed.empty:
            return str(group["note"].iloc[0]).split("; ")[-1]
        extremes = "" if table is None else "; " + _bin_extremes(table, span, name, m)
        return (f"a departure beyond chance by {_tests(failed)} (adjusted p = {fmt(p, 2)}), "
                f"but whether it exceeds the {_tol(tolerance)} tolerance cannot be told with "
                f"these data{extremes}")
    relevant = failed[failed["effect"] == "relevant"]
    spread = bool(relevant["statistic"].map(is_spread_test).any())
    what = (f"departure beyond chance by {_tests(relevant)}" if spread
            else f"spread right, but biased ({_tests(relevant)})")
    text = f"{what}; adjusted p = {fmt(p, 2)}"
    if table is not None and spread:
        text += "; " + _bin_extremes(table, span, name, m)
    if n_actions == 0:
        text += ("; " + explained if explained else
                 "; no range of adjacent bins departs beyond the "
                 f"{_tol(tolerance)} tolerance with confidence (its simultaneous interval "
                 "wholly outside the band, at least 1 % of the rows) to advise a factor there")
    return text


def _joint_reason(group: pd.DataFrame, label: str, joint, tolerance: float,
                  n_actions: int) -> tuple[str, float, float]:
    p = float(group["p_adjusted"].min())
    lo = hi = math.nan
    if joint is not None:
        lo, hi = float(joint.spread.low.value), float(joint.spread.high.value)
    if label == NOT_TESTABLE:
        return str(group["note"].iloc[0]).rpartition("not testable: ")[2], lo, hi
    if label == RIGHT:
        return (f"a gradient-boosting learner fitted on half of the rows does not predict Z² "
                f"or Z on the other half beyond chance (adjusted p = {fmt(p, 2)})"), lo, hi
    failed = group[group["verdict"] == "fail"]
    what = " and ".join("Z²" if str(t).endswith("Z²") else "Z" for t in failed["statistic"])
    text = (f"a learner fitted on half of the rows predicts {what} on the other half "
            f"(adjusted p = {fmt(p, 2)})")
    if joint is not None:
        s = joint.spread
        text += (f"; largest factor where {s.high.description}: "
                 f"{fmt_interval(s.high.value, s.high.ci_low, s.high.ci_high)}; smallest where "
                 f"{s.low.description}: {fmt_interval(s.low.value, s.low.ci_low, s.low.ci_high)}"
                 " (held-out rows, after the global factor)")
    if label == RIGHT_WITHIN:
        text += f"; within the {_tol(tolerance)} tolerance"
    elif label == INCONCLUSIVE:
        text += f"; whether by more than the {_tol(tolerance)} tolerance cannot be told"
    elif n_actions == 0:
        text += ("; no region beyond the ranges advised along single features is clear "
                 "enough (held-out interval excluding the target, at least 1 % of the rows) "
                 "to advise")
    return text, lo, hi


def _dominant_text(advice: pd.DataFrame) -> str:
    data = advice[advice["stage"] == "data"] if not advice.empty else advice
    if data.empty:
        return ""
    n = int(data["rows"].iloc[0])
    return f"a few rows decide the average ({n} row{'s' if n != 1 else ''}; advice.csv)"


def stage_table(verdicts: pd.DataFrame, bins: Mapping[str, pd.DataFrame],
                advice: pd.DataFrame, parameters: Mapping, names: Mapping,
                joint=None, m: int | None = None, reference: float = 1.0) -> pd.DataFrame:
    """One row per stage and variable (columns :data:`STAGE_COLUMNS`; module docstring);
    ``reference``: the global factor the conditional stages used (the set's offset is
    judged in units of the uncertainties multiplied by it)."""
    rule = str(parameters.get("rule", "uqval"))
    tolerance = float(parameters.get("tolerance", 0.1))
    alpha = float(parameters.get("alpha", 0.05))
    v = verdicts
    rows = v if rule == "paper" else v[(v["stage"] == "average") | v["scaled"]]
    if m is None:
        m = int(bins[next(iter(bins))]["n"].sum()) if bins else 0
    out = []
    for (stage, feature), group in rows.groupby(["stage", "feature"], sort=False):
        label = _label(group) if rule != "paper" else _paper_label(group)
        variable = str(feature)
        if advice.empty:
            mine = advice
        elif stage == "average":
            mine = advice[advice["stage"].isin(["average", "data"])]
        elif stage == "joint":
            mine = advice[advice["stage"] == "joint"]
        else:
            mine = advice[(advice["stage"] == stage) & (advice["variable"] == variable)]
        actions = mine[mine["action"].isin(ACTIONS)] if not mine.empty else mine
        n_actions = len(actions)
        failing = group[group["verdict"] == "fail"]
        order = {"relevant": 0, "undetermined": 1, "negligible": 2}
        effects = list((failing if not failing.empty else group)["effect"])
        effect = (min(effects, key=lambda x: order.get(x, 3)) if effects and label not in
                  (RIGHT, NOT_TESTABLE) else "")
        lo = hi = math.nan
        if rule == "paper":
            reason = "; ".join(f"{r.statistic} = {fmt(r.value)} [{fmt(r.ci_low)}, "
                               f"{fmt(r.ci_high)}] → {r.verdict}" for r in group.itertuples())
        elif stage == "average":
            reason, lo, hi = _average_reason(group, label, tolerance, _dominant_text(advice),
                                             reference, alpha)
            rest = mine[(mine["stage"] == "average") & (mine["action"] == "none")] \
                if not mine.empty else mine
            if not rest.empty:  # the ranges explain the average miss (advice._rest_average)
                reason += "; " + str(rest["reason"].iloc[0])
            if not mine.empty and (mine["action"] == "correct_bias").any():
                spread = mine[(mine["stage"] == "average") & (mine["action"] == "scale")]
                if not spread.empty:  # the spread once the offset is corrected (advice)
                    reason += "; " + str(spread["reason"].iloc[0])
        elif stage == "joint":
            reason, lo, hi = _joint_reason(group, label, joint, tolerance, n_actions)
        else:
            table = bins.get(variable)
            if table is not None and len(table):
                lo, hi = float(table["factor"].min()), float(table["factor"].max())
            explained = mine[mine["action"] == "none"] if not mine.empty else mine
            n_tests = int(len(rows[rows["stage"] == stage]))
            reason = _conditional_reason(
                group, label, table, variable, n_tests, alpha, tolerance,
                str(explained["reason"].iloc[0]) if not explained.empty else "", n_actions, m)
        out.append({"stage": stage, "variable": variable, "label": label, "effect": effect,
                    "factor_low": lo, "factor_high": hi,
                    "p_adjusted": float(group["p_adjusted"].min()), "n_actions": n_actions,
                    "reason": reason})
    if rule != "paper":
        joint_note = str(parameters.get("joint", ""))
        features = list(names.get("features", []))
        if len(features) >= 2 and joint_note.startswith("skipped") \
                and not (v["stage"] == "joint").any():
            out.append({"stage": "joint", "variable": "all features", "label": NOT_TESTABLE,
                        "effect": "", "factor_low": math.nan, "factor_high": math.nan,
                        "p_adjusted": math.nan, "n_actions": 0,
                        "reason": joint_note.removeprefix("skipped: ")})
    return pd.DataFrame(out, columns=STAGE_COLUMNS)


def _paper_label(group: pd.DataFrame) -> str:
    values = set(group["verdict"])
    if values == {NOT_TESTABLE}:
        return NOT_TESTABLE
    if "fail" in values:
        return NOT_RIGHT
    if "inconclusive" in values:
        return INCONCLUSIVE
    return RIGHT


class Judgement:
    """The judgement of one validation: the verdict rows with their ``effect``, the advice
    and the stages table (:func:`judge`)."""

    __slots__ = ("advice", "stages", "verdicts")

    def __init__(self, verdicts: pd.DataFrame, advice: pd.DataFrame, stages: pd.DataFrame):
        self.verdicts, self.advice, self.stages = verdicts, advice, stages


def judge(verdicts: pd.DataFrame, bins: Mapping[str, pd.DataFrame],
          advice_inputs: AdviceInputs | None, parameters: Mapping, names: Mapping, *,
          reference: float, m: int) -> Judgement:
    """Effects, actions and labels of a validation (module docstring).

    ``verdicts``: the stages' test rows (``effect`` of the joint rows already set by
    :mod:`uqval.validation.joint_stage`, the others filled here from the per-bin tables
    ``bins``);
    ``advice_inputs``: what :func:`uqval.validation.advice.advice_table` reads (None with the
    paper's rule, which advises nothing); ``reference``: the global factor the conditional
    stages used."""
    tolerance = float(parameters.get("tolerance", 0.1))
    verdicts = verdicts.copy()
    joint = (verdicts["stage"] == "joint").to_numpy()
    if (~joint).any():
        verdicts.loc[~joint, "effect"] = row_effects(verdicts[~joint], dict(bins), reference,
                                                     tolerance)
    if advice_inputs is None:  # the paper's rule advises nothing
        advice = pd.DataFrame()
        stages = stage_table(verdicts, bins, advice, parameters, names, m=m,
                             reference=reference)
        return Judgement(verdicts, advice, stages)
    advice = advice_table(replace(advice_inputs, verdicts=verdicts))
    advice = _monotone(advice, verdicts, advice_inputs, m)
    stages = stage_table(verdicts, bins, advice, parameters, names, joint=advice_inputs.joint,
                         m=m, reference=reference)
    advice = _unlocalised(advice, stages, m)
    if not advice["action"].isin(ACTIONS).any() and stages["label"].isin(
            [RIGHT, RIGHT_WITHIN, NOT_TESTABLE]).all():
        nothing = pd.DataFrame([{
            "stage": "average", "variable": "", "low": math.nan, "high": math.nan, "rows": m,
            "share": 1.0, "action": "none", "factor": math.nan, "region": "",
            "reason": (f"right within {_tol(tolerance)} on average and across the variables "
                       f"tested, at this sample size ({m} rows)")}], columns=advice.columns)
        advice = nothing if advice.empty else pd.concat([advice, nothing], ignore_index=True)
    return Judgement(verdicts, advice, stages)


def _unlocalised(advice: pd.DataFrame, stages: pd.DataFrame, m: int) -> pd.DataFrame:
    """A ``none`` advice row for each consistency or adaptivity variable labelled ``not
    right`` without an action and without a ``none`` row saying why (no range is clear
    enough to advise a factor): the summary's next steps then say it, from advice.csv."""
    rows = []
    for r in stages.itertuples(index=False):
        if r.label != NOT_RIGHT or r.n_actions or r.stage not in ("consistency", "adaptivity"):
            continue
        said = (advice["stage"] == r.stage) & (advice["variable"] == r.variable) \
            & (advice["action"] == "none")
        if said.any():
            continue
        rows.append({"stage": r.stage, "variable": r.variable, "low": math.nan,
                     "high": math.nan, "rows": m, "share": 1.0, "action": "none",
                     "factor": math.nan, "region": "",
                     "reason": ("not right, but no range of adjacent bins departs beyond "
                                "the tolerance with confidence (its simultaneous interval "
                                "wholly outside the band, at least 1 % of the rows): no factor "
                                "or offset correction is advised there; see the bins table and "
                                "the figures, and validate on more data")})
    if not rows:
        return advice
    added = pd.DataFrame(rows, columns=advice.columns)
    return added if advice.empty else pd.concat([advice, added], ignore_index=True)


def _monotone(advice: pd.DataFrame, verdicts: pd.DataFrame, a: AdviceInputs,
              m: int) -> pd.DataFrame:
    """Add ``recalibrate_monotone`` after the consistency rows when the calibration depends on
    the uncertainty itself in a way one factor per range does not fix: two or more ranges
    need different factors, or the consistency spread fails with a relevant effect and no
    range is clear enough to advise (the failing test supports a dependence on uE; a monotone
    map fitted along uE, P003 Sect. III.B, estimates it without choosing ranges). Requiring
    the isotonic MCB test to fail too was measured and rejected (docs/choices.md)."""
    name = a.uncertainty_name
    v = verdicts
    rows = v[(v["stage"] == "consistency") & v["scaled"] & (v["verdict"] == "fail")
             & (v["effect"] == "relevant") & v["statistic"].map(is_spread_test)]
    if rows.empty:
        return advice
    ranges = advice[(advice["stage"] == "consistency")
                    & (advice["action"] == "recalibrate_per_range")]
    if len(ranges) == 1:
        return advice
    why = (f"{len(ranges)} ranges of the uncertainty need different factors"
           if len(ranges) >= 2 else
           "the spread of the z-scores depends on the uncertainty, but no single range is "
           "clear enough to advise its own factor")
    row = pd.DataFrame([{
        "stage": "consistency", "variable": name, "low": float(a.uncertainties.min()),
        "high": float(a.uncertainties.max()), "rows": m, "share": 1.0,
        "action": "recalibrate_monotone", "factor": math.nan, "region": "",
        "reason": (f"{why}: a monotone map fitted along the uncertainty does them in one step "
                   "(isotonic recalibration: uqval.isotonic, or --recalibrate isotonic on the "
                   "command line, fitted on a calibration set, not on this test set)")}],
        columns=advice.columns)
    after = advice.index[advice["stage"].isin(["data", "average", "consistency"])]
    cut = int(after.max()) + 1 if len(after) else 0
    parts = [part for part in (advice.iloc[:cut], row, advice.iloc[cut:]) if not part.empty]
    return pd.concat(parts, ignore_index=True)

