"""Plain-language summary of a :class:`~uqval.validation.engine.ValidationResult`.

For a reader who has not read the papers: first the global error (direction, size and
interval of the scale factor sqrt(ZMS), P001; bias <Z>), then, after multiplying the
uncertainties by that factor, whether they are right across the uncertainty itself
(consistency) and across each feature (adaptivity, P003), with the ranges where they are
still too small or too large (adjacent bins whose LZMS interval misses 1 on the same side
are merged; the factor of a range is sqrt of its count-weighted <Z^2>), and what to do next.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # the result types; report/ never imports the engines at run time
    from uqval.validation.engine import ValidationResult


__all__ = ["fmt", "fmt_range", "problem_ranges", "summary_markdown"]

MAX_RANGES = 6


def fmt(x: float, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, without exponent for 1e-3 <= abs(x) < 1e5."""
    if not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
        return f"{x:.{decimals}f}"
    return f"{x:.{digits}g}"


def fmt_range(low: float, high: float, span: float) -> str:
    """"low to high" with the decimals that give 3 significant digits of ``span`` (the
    variable's whole range), so both ends read alike: 0.00 to 0.80, 250 to 267."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{fmt(low)} to {fmt(high)}"
    if not (math.isfinite(span) and span > 0) or max(abs(low), abs(high)) >= 1e5:
        return f"{fmt(low)} to {fmt(high)}"
    decimals = max(0, 2 - math.floor(math.log10(span)))

    def end(x: float) -> str:
        text = f"{x:.{decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0.0 else text  # no "-0.00"

    return f"{end(low)} to {end(high)}"


def problem_ranges(table: pd.DataFrame) -> list[dict]:
    """Ranges of adjacent bins whose <Z^2> interval lies above 1 (``small``: uncertainties
    too small) or below 1 (``large``); each with low, high, n and the pooled factor."""
    side = np.where(table["ci_low"] > 1.0, "small", np.where(table["ci_high"] < 1.0, "large", ""))
    out: list[dict] = []
    for i, s in enumerate(side):
        if not s:
            continue
        row = table.iloc[i]
        if out and out[-1]["side"] == s and out[-1]["last"] == i - 1:
            r = out[-1]
            r.update(high=row["high"], n=r["n"] + row["n"], sum=r["sum"] + row["n"] * row["value"],
                     last=i)
        else:
            out.append({"side": s, "low": row["low"], "high": row["high"], "n": row["n"],
                        "sum": row["n"] * row["value"], "last": i})
    for r in out:
        r["factor"] = math.sqrt(r.pop("sum") / r["n"])
        r.pop("last")
    return out


def _range_text(r: dict, name: str, total: int, scale: float, span: float) -> str:
    share = 100.0 * r["n"] / total
    if r["side"] == "small":
        how = f"too small by a factor {fmt(r['factor'])}"
        act = f"multiply them by {fmt(r['factor'])} there ({fmt(r['factor'] * scale)} in all)"
    else:
        how = f"too large by a factor {fmt(1.0 / r['factor'])}"
        act = f"multiply them by {fmt(r['factor'])} there ({fmt(r['factor'] * scale)} in all)"
    return (f"{name} from {fmt_range(r['low'], r['high'], span)} ({fmt(share, 2)} % of the rows): "
            f"uncertainties {how}; {act}")


def _average(result: ValidationResult) -> tuple[list[str], bool]:
    v = result.verdicts
    s = result.scale_factor
    zms = v[(v["stage"] == "average") & (v["statistic"] == "ZMS")].iloc[0]
    mz = v[(v["stage"] == "average") & (v["statistic"] == "<Z>")].iloc[0]
    interval = f"{fmt(s.value)} [{fmt(s.ci_low)}, {fmt(s.ci_high)}]"
    lines = ["## On average", ""]
    rescale = False
    if zms["verdict"] == "fail" and s.value > 1:
        lines.append(f"- The uncertainties are **too small on average** by a factor {interval} "
                     f"(95 % interval): errors are larger than the uncertainties say. "
                     f"Multiply all uncertainties by {fmt(s.value)}.")
        rescale = True
    elif zms["verdict"] == "fail":
        lines.append(f"- The uncertainties are **too large on average**: scale factor {interval} "
                     f"(95 % interval). Multiply all uncertainties by {fmt(s.value)}.")
        rescale = True
    elif zms["verdict"] == "pass":
        lines.append(f"- The uncertainties are **right on average**: scale factor {interval} "
                     "(95 % interval) is compatible with 1.")
    else:
        lines.append(f"- Average scale factor {interval} (95 % interval), but this interval "
                     "**cannot be trusted**: the errors are too heavy-tailed relative to the "
                     "uncertainties (heavy-tail screening). "
                     + (f"If anything, multiply the uncertainties by {fmt(s.value)}."
                        if not s.ci_low <= 1.0 <= s.ci_high else ""))
        rescale = not s.ci_low <= 1.0 <= s.ci_high
    if mz["verdict"] == "fail":
        direction = "too low" if mz["value"] > 0 else "too high"
        lines.append(f"- The errors are **biased**: mean z-score {fmt(mz['value'], 2)} "
                     f"[{fmt(mz['ci_low'], 2)}, {fmt(mz['ci_high'], 2)}] instead of 0, i.e. the "
                     f"predictions are {direction} on average (errors = reference - prediction). "
                     "Correct the predictions' offset before trusting the uncertainties.")
    if not result.screening.zms_reliable:
        reasons = [r for r in result.screening.reasons if "ZMS" in r]
        lines.append("- Warning: heavy-tailed z-scores (" + "; ".join(reasons)
                     + "); intervals of mean squares may be too narrow (heavy-tails paper).")
    return lines, rescale


def _conditional(result: ValidationResult, name: str, stage: str) -> list[str]:
    v = result.verdicts
    rows = v[(v["stage"] == stage) & (v["feature"] == name) & v["scaled"]]
    if rows.empty:
        return []
    table = result.bins[name]
    label = "the uncertainty itself" if stage == "consistency" else f"`{name}`"
    verdicts = set(rows["verdict"])
    p = rows["p_adjusted"].min()
    if "fail" not in verdicts:
        if "inconclusive" in verdicts:
            note = rows["note"].iloc[0].split("; ")[-1]
            return [f"- Across {label}: **inconclusive** ({note})."]
        return [f"- Across {label}: **right** (no difference between its {len(table)} bins "
                f"beyond chance; adjusted p = {fmt(p, 2)})."]
    out = [f"- Across {label}: **not right** (the bins differ beyond chance; adjusted "
           f"p = {fmt(p, 2)})."]
    lzms = rows[rows["statistic"].str.startswith("LZMS")]
    if (lzms["verdict"] == "fail").any():
        ranges = problem_ranges(table)
        m = int(table["n"].sum())
        span = float(table["high"].max() - table["low"].min())
        shown = sorted(ranges, key=lambda r: -r["n"])[:MAX_RANGES]
        for r in sorted(shown, key=lambda r: r["low"]):
            out.append("  - " + _range_text(r, name, m, result.scale_factor.value, span))
        if len(ranges) > MAX_RANGES:
            out.append(f"  - and {len(ranges) - MAX_RANGES} smaller range(s) (see the bins table)")
        if not ranges:
            worst = table.iloc[int(np.argmax(np.abs(np.log(table["value"]))))]
            out.append(f"  - no single bin stands out; the largest deviation is for {name} from "
                       f"{fmt_range(worst['low'], worst['high'], span)} (factor "
                       f"{fmt(worst['factor'])}).")
    lzm = rows[rows["statistic"].str.startswith("LZM ")]
    if (lzm["verdict"] == "fail").any():
        biased = table[~table["mean_z_valid"]]
        where = ", ".join(f"{fmt(r.low)} to {fmt(r.high)} (mean z {fmt(r.mean_z, 2)})"
                          for r in biased.head(MAX_RANGES).itertuples())
        out.append("  - the errors are biased differently along it"
                   + (f": {where}" if where else "") + "; the predictions need a correction "
                   "that depends on it.")
    return out


def _ranking(result: ValidationResult) -> list[str]:
    """Whether the uncertainties sort the errors better than a constant band (UCC gain)."""
    g = result.ucc
    if g is None:
        return []
    test = (f"UCC gain {g.gain_percent:+.0f} % over a constant band, p = {fmt(g.p_value, 2)} "
            f"({g.n_permutations} permutations)")
    if g.p_value > float(result.parameters["alpha"]):
        text = (f"- The uncertainties do **not** tell the large errors from the small ones better "
                f"than a constant uncertainty would ({test}).")
    elif g.gain_percent > 0:
        text = (f"- The uncertainties **do** tell the large errors from the small ones: {test}.")
    else:
        text = (f"- The uncertainties rank the errors **worse** than a constant uncertainty would "
                f"({test}): large uncertainties are not where the large errors are.")
    return ["", "## Do the uncertainties point at the large errors?", "", text]


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
        f"{fmt(100 * float(result.parameters['alpha']), 2)} % per stage.",
        "",
    ]
    if result.parameters.get("recalibration"):
        head += [f"**The uncertainties validated here are not the given ones**: they were "
                 f"{result.parameters['recalibration']}. Each point's uncertainty comes from "
                 "a fit on the other folds, so the verdicts below are honest estimates of "
                 "how the recalibration will do on new data.", ""]
    if result.parameters["rule"] == "paper":
        v = result.verdicts
        lines = head + ["## Verdicts of the adaptivity paper's flowchart", ""]
        for _, r in v.iterrows():
            where = f" along {r['feature']}" if r["feature"] else ""
            lines.append(f"- {r['stage']}{where}: {r['statistic']} = {fmt(r['value'])} "
                         f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] → **{r['verdict']}**")
        lines += ["", "These are the paper's rules (f_v against 0.95); they flag calibrated "
                  "data too often. Use the default rule for decisions."]
        return "\n".join(lines) + "\n"
    average, rescale = _average(result)
    lines = head + average + [""]
    after = "after multiplying them by " + fmt(result.scale_factor.value) if rescale else "as given"
    lines += [f"## Across the uncertainty and the features ({after})", ""]
    u_name = str(result.names["uncertainty"])
    lines += _conditional(result, u_name, "consistency")
    for name in result.names["features"]:
        lines += _conditional(result, str(name), "adaptivity")
    if not result.names["features"]:
        lines.append("- No feature given: adaptivity not tested (pass features to test it).")
    lines += _ranking(result)
    lines += ["", "## Next step", ""]
    stages = result.stage_verdicts
    failing = [k for k, x in stages.items() if x == "fail" and k != "average"]
    if rescale:
        lines.append(f"- Multiply all uncertainties by {fmt(result.scale_factor.value)} "
                     "(e.g. fitted on a calibration set, not on this test set).")
    for key in failing:
        if key == "consistency":
            lines.append("- Recalibrate as a function of the uncertainty itself (e.g. isotonic "
                         "or binned scaling of uE), then validate again on new data.")
        else:
            feature = key.removeprefix("adaptivity: ")
            lines.append(f"- Recalibrate per range of `{feature}` (a scale factor per range, "
                         "or a model of the error size that uses it), then validate again.")
    if not rescale and not failing:
        if any(x == "inconclusive" for x in stages.values()):
            lines.append("- Some tests are inconclusive: collect more data (more rows per bin).")
        else:
            lines.append(f"- Nothing to fix at this sample size ({counts['rows used']} rows); "
                         "smaller miscalibrations need more data to show.")
    return "\n".join(lines) + "\n"
