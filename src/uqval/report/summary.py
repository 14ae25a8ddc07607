"""Plain-language summary of a :class:`~uqval.validation.engine.ValidationResult`.

For a reader who has not read the papers: first the global error (direction, size and
interval of the scale factor sqrt(ZMS), P001; bias <Z>), then, after multiplying the
uncertainties by that factor, whether they are right across the uncertainty itself
(consistency) and across each feature (adaptivity, P003), with the ranges where they are
still too small or too large (adjacent bins whose LZMS interval misses 1 on the same side
are merged; the factor of a range is sqrt of its count-weighted <Z^2>), and what to do next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from uqval._internal.formatting import fmt, fmt_interval
from uqval.report.markdown import md_code, md_text

if TYPE_CHECKING:  # the result types; report/ never imports the engines at run time
    from uqval.validation.engine import ValidationResult


__all__ = ["summary_markdown"]

MAX_RANGES = 6


def _is_spread(statistic: str) -> bool:
    """A test of the spread of Z (binned LZMS, cumulative Z²−1, isotonic MCB)."""
    s = str(statistic)
    return s.startswith(("LZMS", "isotonic")) or (s.startswith("cumulative") and s.endswith("−1"))


def _tol(result: ValidationResult) -> str:
    return f"±{fmt(100 * float(result.parameters.get('tolerance', 0.1)), 2)} %"


def _advice(result: ValidationResult, stage: str, variable: str = "") -> pd.DataFrame:
    a = result.advice
    if a.empty:
        return a
    return a[(a["stage"] == stage) & (a["variable"] == variable)]


def _average(result: ValidationResult) -> list[str]:
    v = result.verdicts
    s = result.scale_factor
    zms = v[(v["stage"] == "average") & (v["statistic"] == "ZMS")].iloc[0]
    mz = v[(v["stage"] == "average") & (v["statistic"] == "<Z>")].iloc[0]
    interval = fmt_interval(s.value, s.ci_low, s.ci_high)
    lines = ["## On average", ""]
    data = _advice(result, "data")
    if not data.empty:
        r = result.robust_scale
        lines.append(f"- **A few rows decide the average**: {md_text(data['reason'].iloc[0])}. "
                     "With all "
                     f"rows the scale factor sqrt(ZMS) is {interval}; the robust factor (median "
                     f"of means, which those rows cannot move) is {fmt(r.value)} "
                     f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]." if r else "")
    effect, verdict = zms["effect"], zms["verdict"]
    side = "small" if s.value > 1 else "large"
    if not data.empty:
        pass
    elif verdict == "fail" and effect == "relevant":
        lines.append(f"- The uncertainties are **too {side} on average** by a factor {interval} "
                     f"(95 % interval): errors are {'larger' if s.value > 1 else 'smaller'} than "
                     "the uncertainties say.")
    elif effect == "negligible":
        extra = (f"; the departure is beyond chance (adjusted p = {fmt(zms['p_adjusted'], 2)}) "
                 "but too small to matter" if verdict == "fail" else "")
        lines.append(f"- The uncertainties are **right on average within {_tol(result)}**: scale "
                     f"factor {interval} (95 % interval){extra}.")
    elif verdict == "pass":
        lines.append(f"- The uncertainties are **right on average**: scale factor {interval} "
                     "(95 % interval) is compatible with 1.")
    elif verdict == "fail":
        lines.append(f"- The uncertainties are too {side} on average by a factor {interval} "
                     f"(95 % interval), possibly by less than the {_tol(result)} tolerance.")
    else:
        lines.append(f"- Average scale factor {interval} (95 % interval), but this interval "
                     "**cannot be trusted**: the errors are too heavy-tailed relative to the "
                     "uncertainties (heavy-tail screening).")
    if mz["effect"] == "relevant":
        direction = "too low" if mz["value"] > 0 else "too high"
        lines.append(f"- The errors are **biased**: mean z-score {fmt(mz['value'], 2)} "
                     f"[{fmt(mz['ci_low'], 2)}, {fmt(mz['ci_high'], 2)}] instead of 0, i.e. the "
                     f"predictions are {direction} on average (errors = reference - prediction).")
    elif mz["verdict"] == "fail":
        lines.append(f"- A small bias: mean z-score {fmt(mz['value'], 2)} "
                     f"[{fmt(mz['ci_low'], 2)}, {fmt(mz['ci_high'], 2)}], within the "
                     f"{_tol(result)} tolerance or not clearly beyond it.")
    t = result.tail_shares
    if t is not None:
        lines.append(f"- The 1 % of rows with the largest z-scores carry "
                     f"{fmt(100 * t.top_1_percent, 2)} % of sum(Z^2) (the top 0.1 %: "
                     f"{fmt(100 * t.top_0_1_percent, 2)} %; calibrated normal errors: about 8 %).")
    if not result.screening.zms_reliable:
        reasons = [r for r in result.screening.reasons if "ZMS" in r]
        lines.append("- Warning: heavy-tailed z-scores (" + "; ".join(reasons)
                     + "); intervals of mean squares may be too narrow (heavy-tails paper).")
    return lines


def _evidence(rows: pd.DataFrame, n_tests: int, name: str, alpha: float) -> str:
    raw = float(rows["p_value"].min())
    adjusted = float(rows["p_adjusted"].min())
    if raw <= alpha < adjusted:
        return (f" Weak evidence along {md_code(name)}: p = {fmt(raw, 2)} alone, "
                f"{fmt(adjusted, 2)} after the {n_tests} tests of this stage (Holm).")
    return ""


def _conditional(result: ValidationResult, name: str, stage: str) -> list[str]:
    v = result.verdicts
    rows = v[(v["stage"] == stage) & (v["feature"] == name) & v["scaled"]]
    if rows.empty:
        return []
    label = "the uncertainty itself" if stage == "consistency" else md_code(name)
    if name not in result.bins:  # the variable cannot be binned (validation/degenerate.py)
        reason = str(result.parameters.get("not_testable", {}).get(name, rows["note"].iloc[0]))
        other = ("the average and the features are still tested" if stage == "consistency"
                 else "the other stages are still tested")
        return [f"- Across {label}: **not testable**: {md_text(reason)}; {other}."]
    table = result.bins[name]
    p = rows["p_adjusted"].min()
    alpha = float(result.parameters["alpha"])
    n_tests = int(len(v[(v["stage"] == stage) & v["scaled"]]))
    failed = rows[rows["verdict"] == "fail"]
    advice = _advice(result, stage, name)
    if failed.empty:
        if (rows["verdict"] == "inconclusive").any():
            note = md_text(rows["note"].iloc[0].split("; ")[-1])
            return [f"- Across {label}: **inconclusive** ({note})."]
        return [f"- Across {label}: **right** (no difference between its {len(table)} bins "
                f"nor along its cumulative sums beyond chance; adjusted p = {fmt(p, 2)})."
                + _evidence(rows, n_tests, name, alpha)]
    explained = advice[advice["action"] == "none"]
    advice = advice[advice["action"] != "none"]
    if (failed["effect"] == "relevant").any() and advice.empty and not explained.empty:
        return [f"- Across {label}: **follows the uncertainty ranges** (the bins differ beyond "
                f"chance, adjusted p = {fmt(p, 2)}, but {md_text(explained['reason'].iloc[0])})."]
    tests = ", ".join(dict.fromkeys(str(t).split(" spread ratio")[0]
                                    for t in failed["statistic"]))
    if not (failed["effect"] == "relevant").any() or advice.empty:
        return [f"- Across {label}: **right within {_tol(result)}** (a departure beyond chance "
                f"by {tests}, adjusted p = {fmt(p, 2)}, but by less than the tolerance or too "
                "little to localise in the bins)."]
    spread = (failed["statistic"].map(_is_spread) & (failed["effect"] == "relevant")).any()
    what = (f"departure beyond chance by {tests}" if spread
            else f"spread right, but biased ({tests})")
    out = [f"- Across {label}: **not right** ({what}; adjusted p = {fmt(p, 2)}):"]
    out += [f"  - {md_text(r)} ({fmt(100 * sh, 2)} % of the rows)."
            for r, sh in zip(advice["reason"], advice["share"], strict=True)]
    out += [f"  - Not advised separately: {md_text(r)}." for r in explained["reason"]]
    return out


def _joint(result: ValidationResult) -> list[str]:
    """The joint stage: the features together (regions in their units)."""
    v = result.verdicts
    rows = v[(v["stage"] == "joint") & v["scaled"]]
    if rows.empty:
        if len(result.names["features"]) < 2:
            return ["- All features together (joint stage): skipped, it needs at least 2 "
                    "features."]
        note = str(result.parameters.get("joint", ""))
        return [f"- All features together (joint stage): {note}."] if note.startswith(
            "skipped") else []
    joint = result.joint
    p = float(rows["p_adjusted"].min())
    failed = rows[rows["verdict"] == "fail"]
    if failed.empty or joint is None:
        return [f"- All features together: **right** (a gradient-boosting learner fitted on "
                f"half of the rows does not predict Z² or Z on the other half beyond chance; "
                f"adjusted p = {fmt(p, 2)})."]
    a = result.advice
    advice = a[a["stage"] == "joint"] if not a.empty else a
    out = [f"- All features together: **not right** (a learner fitted on half of the rows "
           f"predicts {' and '.join('Z²' if t.endswith('Z²') else 'Z' for t in failed['statistic'])}"
           f" on the other half; adjusted p = {fmt(p, 2)}):"]
    if not advice.empty:
        out += [f"  - {r} ({fmt(100 * sh, 2)} % of the rows)."
                for r, sh in zip(advice["reason"], advice["share"], strict=True)]
        return out
    for t in (joint.spread, joint.bias):
        if (failed["statistic"].str.endswith("Z²") if t.kind == "spread"
                else ~failed["statistic"].str.endswith("Z²")).any():
            what = "factor" if t.kind == "spread" else "mean z"
            out.append(f"  - largest {what} where {t.high.description}: {fmt(t.high.value)} "
                       f"[{fmt(t.high.ci_low)}, {fmt(t.high.ci_high)}]; smallest where "
                       f"{t.low.description}: {fmt(t.low.value)} [{fmt(t.low.ci_low)}, "
                       f"{fmt(t.low.ci_high)}] (held-out rows, after the global factor); "
                       f"within {_tol(result)} or not localised, nothing to advise.")
    return out


def _ucc_text(g, alpha: float) -> str:
    test = (f"UCC gain {g.gain_percent:+.0f} % over a constant band, p = {fmt(g.p_value, 2)} "
            f"({g.n_permutations} permutations)")
    if g.p_value > alpha:
        return (f"do **not** tell the large errors from the small ones better than a constant "
                f"uncertainty would ({test})")
    if g.gain_percent > 0:
        return f"**do** tell the large errors from the small ones: {test}"
    return (f"rank the errors **worse** than a constant uncertainty would ({test}): large "
            "uncertainties are not where the large errors are")


def _ranking(result: ValidationResult) -> list[str]:
    """Whether the uncertainties sort the errors better than a constant band (UCC gain)."""
    g = result.ucc
    if g is None:
        return []
    alpha = float(result.parameters["alpha"])
    text = f"- The uncertainties {_ucc_text(g, alpha)}."
    without = result.ucc_without_dominant
    if without is not None:
        n = int(result.dominant_rows.size)
        text = (f"- With all rows, the uncertainties {_ucc_text(g, alpha)}. That is decided by "
                f"the {n} dominant row(s): without them they {_ucc_text(without, alpha)}.")
    return ["", "## Do the uncertainties point at the large errors?", "", text]


_ACTION_TEXT = {
    "inspect_rows": "Inspect the rows that decide the average (dominant_rows.csv)",
    "scale": "Multiply all uncertainties by {factor} (fit the factor on a calibration set, not "
             "on this test set)",
    "correct_bias": "Correct the predictions' bias",
    "recalibrate_per_range": "Recalibrate per range",
}


def _next_steps(result: ValidationResult) -> list[str]:
    lines = []
    for r in result.advice.itertuples(index=False):
        if r.action == "none" and r.variable:
            lines.append(f"- No separate action along {md_text(r.variable)}: "
                         f"{md_text(r.reason)}.")
            continue
        if r.action == "none":
            lines.append(f"- Nothing to fix: {md_text(r.reason)}; smaller miscalibrations need more data "
                         "to show.")
            continue
        head = _ACTION_TEXT[r.action].format(factor=fmt(r.factor))
        where = f" ({md_text(r.variable)})" if r.variable else ""
        if getattr(r, "stage", "") == "joint":
            where = f" (region of {md_text(r.variable)})"
        lines.append(f"- {head}{where}: {md_text(r.reason)}.")
    a = result.advice
    if ((a["stage"] == "consistency") & (a["action"] == "recalibrate_per_range")).sum() >= 2:
        lines.append("- Several ranges of the uncertainty need different factors: a monotone "
                     "map fitted along the uncertainty does them in one step (isotonic "
                     "recalibration, `uqval.isotonic` or `--recalibrate isotonic`, fitted on a "
                     "calibration set).")
    if any(a["action"].isin(["scale", "recalibrate_per_range", "correct_bias"])):
        lines.append("- Then validate again on new data.")
    if any(x == "inconclusive" for x in result.stage_verdicts.values()):
        lines.append("- Some tests are inconclusive: collect more data (more rows per bin).")
    return lines


def summary_markdown(result: ValidationResult) -> str:
    """The summary as Markdown (module docstring)."""
    counts = result.row_counts
    removed = counts["rows in input"] - counts["rows used"]
    head = [
        "# Are the uncertainties right?",
        "",
        f"{counts['rows used']} predictions"
        + (f" ({removed} of {counts['rows in input']} rows removed: "
           + ", ".join(f"{k.removeprefix('removed: ')} {n}" for k, n in counts.items()
                       if k.startswith("removed")) + ")" if removed else "")
        + f"; rule `{result.parameters['rule']}`, false-alarm rate "
        f"{fmt(100 * float(result.parameters['alpha']), 2)} % per stage, practical tolerance "
        f"{_tol(result)}.",
        "",
    ]
    if result.warnings:
        head += ["**Check your input.** " + " ".join(w[0].upper() + w[1:] + "." for w in
                                                    result.warnings), ""]
    if result.parameters.get("recalibration"):
        head += [f"**The uncertainties validated here are not the given ones**: they were "
                 f"{md_text(result.parameters['recalibration'])}. Each point's uncertainty comes from "
                 "a fit on the other folds, so the verdicts below are honest estimates of "
                 "how the recalibration will do on new data.", ""]
    if result.parameters["rule"] == "paper":
        v = result.verdicts
        lines = head + ["## Verdicts of the adaptivity paper's flowchart", ""]
        for _, r in v.iterrows():
            where = f" along {md_text(r['feature'])}" if r["feature"] else ""
            if r["verdict"] == "not testable":
                reason = str(r["note"]).rpartition("not testable: ")[2]
                lines.append(f"- {r['stage']}{where}: **not testable**: {md_text(reason)}; the "
                             "other stages are still tested")
                continue
            lines.append(f"- {r['stage']}{where}: {r['statistic']} = {fmt(r['value'])} "
                         f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] → **{r['verdict']}**")
        lines += ["", "These are the paper's rules (f_v against 0.95); they flag calibrated "
                  "data too often. Use the default rule for decisions."]
        return "\n".join(lines) + "\n"
    lines = head + _average(result) + [""]
    factor = float(result.parameters.get("conditional_scaling", result.scale_factor.value))
    lines += [f"## Across the uncertainty and the features (after multiplying the uncertainties "
              f"by {fmt(factor)}, so that only differences between ranges count)", ""]
    u_name = str(result.names["uncertainty"])
    lines += _conditional(result, u_name, "consistency")
    for name in result.names["features"]:
        lines += _conditional(result, str(name), "adaptivity")
    if not result.names["features"]:
        lines.append("- No feature given: adaptivity not tested (pass features to test it).")
    else:
        lines += _joint(result)
    lines += _ranking(result)
    lines += ["", "## Next step", ""] + _next_steps(result)
    return "\n".join(lines) + "\n"
