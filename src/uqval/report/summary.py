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
from uqval.validation.judgement import INCONCLUSIVE, NOT_TESTABLE

if TYPE_CHECKING:  # the result types (imported for the type checker only: import cost)
    from uqval.stats.serial_groups import SerialBlocks
    from uqval.validation.result import ValidationResult


__all__ = ["next_steps", "summary_markdown"]

MAX_RANGES = 6


def _tol(result: ValidationResult) -> str:
    return f"±{fmt(100 * float(result.parameters.get('tolerance', 0.1)), 2)} %"


def _advice(result: ValidationResult, stage: str, variable: str = "") -> pd.DataFrame:
    a = result.advice
    if a.empty:
        return a
    return a[(a["stage"] == stage) & (a["variable"] == variable)]


def _stage(result: ValidationResult, stage: str, variable: str = "") -> pd.Series | None:
    """The judgement's row of a stage and variable (``result.stages``), None without one."""
    st = result.stages
    if st.empty:
        return None
    rows = st[(st["stage"] == stage) & (st["variable"] == variable)]
    return None if rows.empty else rows.iloc[0]


def _line(head: str, row: pd.Series) -> str:
    """"- head: **label** — reason." with the judgement's label and reason."""
    return f"- {head}: **{row['label']}** — {md_text(row['reason'])}."


def _average(result: ValidationResult) -> list[str]:
    lines = ["## On average", ""]
    row = _stage(result, "average")
    if row is not None:
        lines.append(_line("On average", row))
    data = _advice(result, "data")
    r = result.robust_scale
    if not data.empty and r is not None:
        s = result.scale_factor
        lines.append(f"- **A few rows decide the average**: {md_text(data['reason'].iloc[0])}. "
                     f"With all rows the scale factor sqrt(ZMS) is "
                     f"{fmt_interval(s.value, s.ci_low, s.ci_high)}; the robust factor (median "
                     f"of means, which those rows cannot move) is "
                     f"{fmt_interval(r.value, r.ci_low, r.ci_high)}.")
    t = result.tail_shares
    if t is not None:
        lines.append(f"- The 1 % of rows with the largest z-scores carry "
                     f"{fmt(100 * t.top_1_percent, 2)} % of sum(Z^2) (the top 0.1 %: "
                     f"{fmt(100 * t.top_0_1_percent, 2)} %; calibrated normal errors: about 8 %).")
    if not result.screening.zms_reliable:
        reasons = [r for r in result.screening.reasons if "ZMS" in r]
        lines.append("- Warning: heavy-tailed z-scores (" + "; ".join(reasons)
                     + "); intervals of mean squares may be too narrow (heavy-tails paper), "
                     "mostly by lying too low: one wholly below 1 is not trusted, one wholly "
                     "above 1 is.")
    return lines


def _conditional(result: ValidationResult, name: str, stage: str) -> list[str]:
    row = _stage(result, stage, name)
    if row is None:
        return []
    label = "the uncertainty itself" if stage == "consistency" else md_code(name)
    out = [_line(f"Across {label}", row)]
    if row["label"] == NOT_TESTABLE:
        other = ("the average and the features are still tested" if stage == "consistency"
                 else "the other stages are still tested")
        return [out[0][:-1] + f"; {other}."]
    advice = _advice(result, stage, name)
    out += [f"  - {md_text(r)} ({fmt(100 * sh, 2)} % of the rows)."
            for r, sh, action in zip(advice["reason"], advice["share"], advice["action"],
                                     strict=True) if action != "none"]
    return out


def _joint(result: ValidationResult) -> list[str]:
    """The joint stage: the features together (regions in their units)."""
    row = _stage(result, "joint", "all features")
    if row is None:
        if len(result.names["features"]) < 2:
            return ["- All features together (joint stage): skipped, it needs at least 2 "
                    "features."]
        return []
    out = [_line("All features together", row)]
    a = result.advice
    advice = a[a["stage"] == "joint"] if not a.empty else a
    out += [f"  - {md_text(r)} ({fmt(100 * sh, 2)} % of the rows)."
            for r, sh in zip(advice["reason"], advice["share"], strict=True)]
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
    "recalibrate_monotone": "Recalibrate along the uncertainty with a monotone map",
}


def next_steps(result: ValidationResult, *, actions_only: bool = False) -> list[str]:
    """The actions of ``result.advice`` in its order, then what the labels leave open, as
    inline markdown (one line each). ``actions_only``: without the rows that explain why a
    variable needs no separate action (the report's first screen lists what to do)."""
    lines = []
    acting = not result.advice.empty and bool(
        result.advice["action"].isin(list(_ACTION_TEXT)).any())
    for r in result.advice.itertuples(index=False):
        # beside actions, an average "none" row says the ranges explain the average miss
        if r.action == "none" and getattr(r, "stage", "") == "average" and acting:
            lines.append(f"No global factor: {md_text(r.reason)}.")
            continue
        if r.action == "none" and r.variable:
            if not actions_only:
                lines.append(f"No separate action along {md_text(r.variable)}: "
                             f"{md_text(r.reason)}.")
            continue
        if r.action == "none":
            lines.append(f"Nothing to fix: {md_text(r.reason)}; smaller miscalibrations need "
                         "more data to show.")
            continue
        head = _ACTION_TEXT[r.action].format(factor=fmt(r.factor))
        where = f" ({md_text(r.variable)})" if r.variable else ""
        if getattr(r, "stage", "") == "joint":
            where = f" (region of {md_text(r.variable)})"
        lines.append(f"{head}{where}: {md_text(r.reason)}.")
    a = result.advice
    if not a.empty and a["action"].isin(["scale", "recalibrate_per_range", "correct_bias",
                                         "recalibrate_monotone"]).any() and not actions_only:
        lines.append("Then validate again on new data.")
    st = result.stages
    unsure = st[st["label"] == INCONCLUSIVE] if not st.empty else st
    if not unsure.empty:
        where = ", ".join(md_code(v) if v else s for s, v in
                          zip(unsure["stage"], unsure["variable"], strict=True))
        lines.append(f"Inconclusive ({where}): collect more data (more rows per bin), see "
                     "the reasons above.")
    return lines


def _next_steps(result: ValidationResult) -> list[str]:
    return [f"- {line}" for line in next_steps(result)]


def _groups_paragraph(result: ValidationResult) -> str:
    """What the groups of dependent rows change (:class:`uqval.validation.grouping.GroupSummary`)."""
    g = result.groups
    assert g is not None
    by_kind: dict[str, list[str]] = {}
    for name, kind in g.procedures.items():
        by_kind.setdefault(kind, []).append(md_code(name))
    how = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in by_kind.items())
    sizes = (f"of {g.rows_min} rows" if g.rows_min == g.rows_max else
             f"of {g.rows_min} to {g.rows_max} rows (median {g.rows_median:g})")
    return (f"**Rows in groups.** {result.row_counts['rows used']} rows in {g.n_groups} groups "
            f"{sizes}. The "
            f"z-scores of a group share part of their variation: intra-class correlation "
            f"{fmt(g.icc_z, 2)} for Z and {fmt(g.icc_z2, 2)} for Z², so the average is worth "
            f"about {fmt(g.effective_rows, 3)} independent rows (design effect "
            f"{fmt(g.design_effect, 3)}). " + (
                f"Consecutive groups are dependent too, so every interval resamples whole "
                f"blocks of {g.serial.block_size} consecutive groups ({g.serial.n_blocks} "
                f"blocks) and every permutation test exchanges whole blocks and shuffles rows "
                f"only inside the groups ({how})." if g.serial is not None and g.blocked else
                f"Every interval resamples whole groups and every permutation test respects "
                f"them ({how})." + _trend_note(g.serial)))


def _trend_note(serial: SerialBlocks | None) -> str:
    """The sentence for consecutive groups alike only through a trend along a variable."""
    if serial is None or serial.dependent or not serial.explained_by:
        return ""
    return (f" Consecutive groups look alike in the file (lag-1 rank correlation "
            f"{fmt(serial.lag1, 2)}), but a trend along {md_code(serial.explained_by)} explains "
            "it (the groups come in about its order): the groups are independent units, and "
            "the trend is a calibration question for the stages below.")


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
    if result.groups is not None:
        head += [_groups_paragraph(result), ""]
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
