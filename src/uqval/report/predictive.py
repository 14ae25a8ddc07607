"""Summary, files and HTML report of a predictive validation
(:class:`~uqval.validation.predictive_engine.PredictiveValidation`).

The summary says, in this order: the data problems of the input (rows and the rule applied),
whether the central intervals cover what they claim at each level (by how many percentage
points, and by which factor to widen or narrow them), where the coverage differs (along the
interval width and each feature), whether the declared shape fits (PIT), the variance stages
when a variance exists, the scores, and the next step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes

from uqval._internal.formatting import fmt, fmt_span
from uqval.plots import predictive as plots
from uqval.plots.style import figure, literal_text
from uqval.report import FigureSection, ReportContent, png_bytes
from uqval.report import write_html as write_report
from uqval.report.content import AnswerLine, FirstScreen, rendered_figures
from uqval.report.files import csv_safe, unique_names, write_outputs
from uqval.report.markdown import md_text
from uqval.report.summary import next_steps
from uqval.report.validation import answer_lines, figure_specs
from uqval.validation.predictive_judgement import coverage_agreement

if TYPE_CHECKING:
    from uqval.comparison.predictive import PredictiveComparison
    from uqval.validation.predictive_engine import PredictiveValidation

__all__ = ["predictive_content", "predictive_figure_specs", "predictive_summary",
           "save_predictive", "save_predictive_comparison", "write_predictive_html"]

HOW_TO_READ = {
    "pit": "The PIT F(y) of each observation under its own predictive distribution: flat at 1 "
    "when the distributions are right. Bars outside the grey band (red) are beyond chance "
    "for that bin: a U shape means too narrow distributions, a hump too wide ones, high "
    "outer bars with a high centre heavier tails than declared, a slope a bias.",
    "coverage": "Observed coverage of the central intervals at each nominal level, with exact "
    "95 % intervals. On the diagonal the intervals cover what they claim; inside the grey "
    "band the departure is within the practical tolerance; red points fail the test.",
    "lcp": "Coverage of the central intervals in equal-count bins of the variable, one line per "
    "level (dotted: the nominal level). A line that dips below its level in a range means "
    "the intervals are too narrow there.",
}


def _lv(level: float) -> str:
    return f"{100 * level:g}"


def _pct(x: float) -> str:
    return f"{fmt(100 * x, 3)} %"


def _level_lines(table: pd.DataFrame, name: str, act: bool) -> list[str]:
    """One line per level of ``table`` (coverage.levels or coverage.built): ``name`` says
    which intervals; ``act``: say what to do (the intervals the advice is about)."""
    lines = []
    for r in table.itertuples():
        what = name.format(q=fmt(r.quantile, 3)) if hasattr(r, "quantile") else name
        head = (f"- The {_lv(r.level)} % {what} cover **{_pct(r.value)}** "
                f"[{_pct(r.ci_low)}, {_pct(r.ci_high)}] of the observations")
        gap = abs(r.deficit_pp)
        side = "too few" if r.deficit_pp > 0 else "too many"
        factor = (f" Multiplying their half-widths by {fmt(r.widen)} [{fmt(r.widen_low)}, "
                  f"{fmt(r.widen_high)}] about their midpoints would cover {_lv(r.level)} %."
                  if pd.notna(r.widen) and act else "")
        if r.verdict == "fail" and r.effect == "relevant":
            what = "too narrow" if r.deficit_pp > 0 else "too wide"
            if act:
                what += ": widen them" if r.deficit_pp > 0 else ": narrow them"
            lines.append(f"{head}: {fmt(gap, 2)} percentage points {side} (adjusted p = "
                         f"{fmt(r.p_adjusted, 2)}): **{what}**.{factor}")
        elif r.effect == "negligible":
            lines.append(f"{head}: right within the tolerance ({_pct(r.band_low)} to "
                         f"{_pct(r.band_high)})"
                         + (", although the departure is beyond chance." if r.verdict == "fail"
                            else "."))
        elif r.verdict == "fail":
            lines.append(f"{head}: {fmt(gap, 2)} percentage points {side} (adjusted p = "
                         f"{fmt(r.p_adjusted, 2)}), possibly within the tolerance.{factor}")
        else:
            lines.append(f"{head}: {coverage_agreement(r)}.")
    return lines


def _coverage_lines(result: PredictiveValidation) -> list[str]:
    lines = ["## Coverage of the central intervals", ""]
    table = result.coverage.levels
    built = result.coverage.built
    if table.empty:
        lines.append("- No central interval (no pair of levels τ and 1 - τ among the quantiles).")
    if built.empty:
        lines += _level_lines(table, "intervals", True)
    else:  # an ensemble: the intervals users build first, the rank intervals after
        lines += _level_lines(built, "intervals mean ± {q}·sd·√(1+1/m) ({q}: the t(m − 1) "
                              "quantile; the intervals users build from the members)", True)
        lines += _level_lines(table, "randomised rank intervals (y's rank among the members, "
                              "randomised over ties and the outer ranks, in its central "
                              "share: exactly the level for a perfect ensemble of any size; "
                              "not the interval between the members' empirical quantiles, "
                              "which cannot reach (m − 1)/(m + 1); the advice is about the "
                              "intervals above)", False)
    q = result.coverage.quantiles
    for r in q.itertuples():
        if r.verdict != "fail":
            continue
        direction = "too low: raise it" if r.value < r.level else "too high: lower it"
        lines.append(f"- y <= q{r.level:g} in **{_pct(r.value)}** [{_pct(r.ci_low)}, "
                     f"{_pct(r.ci_high)}] of the rows instead of {_pct(r.level)}: the "
                     f"{r.level:g} quantile is {direction} (it behaves like the {r.value:.3g} "
                     f"quantile; adjusted p = {fmt(r.p_adjusted, 2)}).")
    if not q.empty and not (q["verdict"] == "fail").any():
        lines.append(f"- Every quantile is right: y <= q_τ in a share τ of the rows at each level "
                     f"({', '.join(f'{t:g}' for t in q['level'])}; no test fails).")
    cond = result.coverage.conditional
    if cond.empty:
        lines.append("- Coverage along the width or features: nothing to bin (constant width, "
                     "no feature).")
        return lines
    failing = cond[cond["verdict"] == "fail"]
    for r in failing.itertuples():
        x = result.features.get(r.variable)
        span = float(x.max() - x.min()) if x is not None else r.worst_high - r.worst_low
        lines.append(f"- The coverage of the {_lv(r.level)} % intervals **varies along "
                     f"{r.variable}** (adjusted p = {fmt(r.p_adjusted, 2)}): "
                     f"{_pct(r.worst_value)} [{_pct(r.worst_ci_low)}, {_pct(r.worst_ci_high)}] "
                     f"for {fmt_span(r.variable, r.worst_low, r.worst_high, span)}"
                     + (": the intervals are too narrow there." if r.worst_value < r.level
                        else ": the intervals are too wide there."))
    if failing.empty:
        names = ", ".join(dict.fromkeys(cond["variable"]))
        incon = cond[cond["verdict"] == "inconclusive"]
        lines.append(f"- The coverage is the same along {names} at every level (no test fails)"
                     + (f"; {len(incon)} test(s) inconclusive (bins under 30 rows)."
                        if not incon.empty else "."))
    return lines


def _shape_lines(result: PredictiveValidation) -> list[str]:
    s = result.shape
    if s is None:
        return []
    lines = ["## Shape of the predictive distributions (PIT)", ""]
    shares = "; ".join(f"{r.share}: {_pct(r.value)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}] "
                       f"(expected {_pct(r.expected)})" for r in s.shares.itertuples())
    if s.verdict == "fail":
        size = " (within the tolerance)" if s.effect == "negligible" else ""
        lines.append(f"- The declared shape does **not** fit (Cramér-von Mises W² = "
                     f"{fmt(s.statistic)}, p = {fmt(s.p_value, 2)}){size}: {s.diagnosis}.")
    else:
        lines.append(f"- The PIT is compatible with uniform (W² = {fmt(s.statistic)}, p = "
                     f"{fmt(s.p_value, 2)}): no evidence against the declared shape.")
    lines.append(f"- Shares of the observations: {shares}.")
    return lines


def _variance_lines(result: PredictiveValidation) -> list[str]:
    if result.variance is None:
        return ["## Spread (variance stages)", "",
                f"- Predictives of kind `{result.kind}` have no variance: the variance stages do not "
                "apply; coverage and the scores judge the spread."]
    text = result.variance.summary()
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    body = re.sub(r"^## ", "### ", body, flags=re.MULTILINE)
    return ["## Spread: errors y - point against the predictive sd (variance stages)", "",
            body.strip()]


def _said(result: PredictiveValidation) -> list[tuple[str, str]]:
    """The coverage, shape and data rows of ``result.advice`` as (sentence, action), in their
    order; the per-range coverage rows of one variable in one sentence, at the place of its
    first (:func:`_ranges_sentence`)."""
    a = result.advice
    own = a[a["stage"].isin(["data", "shape", "coverage"])] if not a.empty else a
    out: list[tuple[str, str]] = []
    done: set[str] = set()
    for r in own.itertuples():
        ranged = r.stage == "coverage" and r.action == "recalibrate_per_range"
        if ranged and r.variable in done:
            continue
        if ranged:
            done.add(str(r.variable))
            rows = own[(own["stage"] == "coverage") & (own["action"] == r.action)
                       & (own["variable"] == r.variable)]
            text = _ranges_sentence(result, str(r.variable), rows)
        else:
            text = r.reason[0].upper() + r.reason[1:]
        out.append((f"{md_text(text)}.", str(r.action)))
    return out


def _ranges_sentence(result: PredictiveValidation, name: str, rows: pd.DataFrame) -> str:
    """One sentence for the coverage ranges of ``name`` at every level: each range with its
    share of the rows and its coverage at each level where it is advised, pooled from the
    per-bin records (the ranges' ends are bin ends), too narrow ranges first."""
    bins = result.coverage.bins.get(name)
    if bins is None or len(rows) == 1:
        return "; ".join(x[0].upper() + x[1:] for x in rows["reason"])
    span = float(bins["high"].max() - bins["low"].min())
    parts: dict[str, list[str]] = {"narrow": [], "wide": []}
    for (low, high), same in rows.groupby(["low", "high"], sort=False):
        covered = []
        side = "narrow"
        for level in same["level"]:
            table = bins[bins["level"] == level]
            inside = (table["low"] >= low) & (table["high"] <= high)
            n = table.loc[inside, "n"].to_numpy(dtype=float)
            value = float((n * table.loc[inside, "value"].to_numpy(dtype=float)).sum() / n.sum())
            side = "narrow" if value < level else "wide"
            covered.append(f"{fmt(100 * value, 3)} % covered at {100 * float(level):g} %")
        share = fmt(100 * float(same["share"].iloc[0]), 2)
        parts[side].append(f"{fmt_span(name, float(low), float(high), span)} ({share} % of the "
                           f"rows: {', '.join(covered)})")
    said = [f"too {side} where {'; where '.join(p)}" for side, p in parts.items() if p]
    hows: dict[tuple[str, ...], str] = {("narrow",): "widen them there",
                                        ("wide",): "narrow them there"}
    how = hows.get(
        tuple(side for side, p in parts.items() if p),
        "widen them where too narrow, narrow them where too wide")
    return (f"Recalibrate the central intervals per range of {name} (e.g. by conformal "
            f"prediction conditional on {name}), not with one factor for all rows: "
            + "; and ".join(said) + f"; {how}")


def _next_steps(result: PredictiveValidation) -> list[str]:
    """The coverage, shape and data actions of ``result.advice`` (the variance stages'
    actions are in their own section above)."""
    steps = [f"- {text}" for text, _ in _said(result)]
    if not steps:
        steps.append("- Nothing to fix in coverage and shape at this sample size.")
    else:
        steps.append("- Then validate again on new data.")
    return steps


def predictive_summary(result: PredictiveValidation) -> str:
    """The summary as Markdown (module docstring)."""
    counts = result.row_counts
    removed = counts["rows in input"] - counts["rows used"]
    head = ["# Are the predictive distributions right?", "",
            f"{counts['rows used']} predictions of kind `{result.kind}`"
            + (f" ({removed} of {counts['rows in input']} rows removed: "
               + ", ".join(f"{k.removeprefix('removed: ')} {n}" for k, n in counts.items()
                           if k.startswith("removed")) + ")" if removed else "")
            + f"; false-alarm rate {fmt(100 * float(result.parameters['alpha']), 2)} % per "
            f"stage, practical tolerance ±{fmt(100 * float(result.parameters['tolerance']), 2)} "
            "% on scale factors (translated into coverage percentage points per level).", ""]
    if result.data_issues:
        head += ["**Data problems.** " + " ".join(s[0].upper() + s[1:] + "." for s in
                                                  result.data_issues.sentences()), ""]
    if result.warnings:
        head += ["**Check your input.** " + " ".join(w[0].upper() + w[1:] + "." for w in
                                                     result.warnings), ""]
    lines = head + _coverage_lines(result) + [""] + _shape_lines(result)
    lines += [""] + _variance_lines(result) + ["", "## Scores (lower is better)", ""]
    lines += [f"- {r.score} = {fmt(r.value, 4)} ± {fmt(r.se, 2)} (standard error)"
              for r in result.scores.itertuples()]
    lines += ["", "## Next step", ""] + _next_steps(result)
    return "\n".join(lines) + "\n"


FigureSpec = tuple[str, str, str, Callable[[Axes], object]]


def predictive_figure_specs(result: PredictiveValidation) -> list[FigureSpec]:
    """(stem, title, how to read, draw) of each figure of a predictive validation."""
    specs: list[FigureSpec] = []
    if result.shape is not None:
        pit = result.shape.pit
        specs.append(("pit_histogram", "PIT histogram", HOW_TO_READ["pit"],
                      lambda ax: plots.pit_histogram_plot(pit, ax=ax)))
    if not result.coverage.levels.empty:
        table = result.coverage.levels
        specs.append(("coverage_levels", "Coverage by level", HOW_TO_READ["coverage"],
                      lambda ax: plots.coverage_levels_plot(table, ax=ax)))
    stems = unique_names(result.coverage.bins)
    def lcp(bins: pd.DataFrame, name: str) -> Callable[[Axes], object]:
        return lambda ax: plots.local_coverage_levels_plot(bins, x_name=literal_text(name), ax=ax)

    for name, bins in result.coverage.bins.items():
        specs.append((f"lcp_{stems[name]}", f"Coverage along {name}", HOW_TO_READ["lcp"],
                      lcp(bins, name)))
    if result.variance is not None:
        specs += [(f"variance_{s[0]}", *s[1:]) for s in figure_specs(result.variance)]
    return specs


def _figures(result: PredictiveValidation) -> list[tuple[str, FigureSection]]:
    return rendered_figures(predictive_figure_specs(result))


def _issues_table(result: PredictiveValidation) -> pd.DataFrame:
    issues = result.data_issues
    return pd.DataFrame([{"problem": k, "row": r, "rule": issues.actions.get(k, "")}
                         for k, rows in issues.rows.items() for r in rows])


def first_screen(result: PredictiveValidation, stems: list[str]) -> FirstScreen | None:
    """The predictive report's first screen: coverage (stage verdict, observed coverage per
    level), shape (stage verdict; its diagnosis is an action), the variance stages' answer
    lines, the coverage figure (else the PIT histogram) and the actions (coverage,
    shape and data rows of ``result.advice``, then the variance stages')."""
    verdicts = result.stage_verdicts
    answer = []
    if "coverage" in verdicts:
        levels = result.coverage.levels
        detail = (f"the {'/'.join(_lv(x) for x in levels['level'])} % intervals cover "
                  f"{'/'.join(fmt(100 * x, 3) for x in levels['value'])} %"
                  if not levels.empty else "")
        answer.append(AnswerLine("Coverage", verdicts["coverage"], detail))
    if "shape" in verdicts and result.shape is not None:  # the diagnosis is in the actions
        answer.append(AnswerLine("Shape (PIT)", verdicts["shape"]))
    if result.variance is not None:
        answer += [AnswerLine(f"Spread: {line.head[0].lower()}{line.head[1:]}", line.label,
                              line.detail) for line in answer_lines(result.variance)]
    figure = next((stems.index(s) for s in ("coverage_levels", "pit_histogram") if s in stems),
                  None)
    said = _said(result)
    # actions first (the predictive's, then the variance stages'), the none rows that
    # qualify them after
    actions = [text for text, action in said if action != "none"]
    if result.variance is not None:
        actions += next_steps(result.variance, actions_only=True)
    actions += [text for text, action in said if action == "none"]
    if not answer:
        return None
    return FirstScreen(answer=answer, figure=figure, actions=actions,
                       checks=list(result.warnings))


def predictive_content(result: PredictiveValidation,
                       figures: list[tuple[str, FigureSection]]) -> ReportContent:
    """What the report of a predictive validation shows (the dataset pages reuse it)."""
    tables = {"Coverage by level (coverage.csv)": result.coverage.levels.round(6),
              "Scores (scores.csv)": result.scores.round(6)}
    if not result.coverage.quantiles.empty:
        tables["Quantile calibration"] = result.coverage.quantiles.round(6)
    if result.shape is not None:
        tables["PIT shares"] = result.shape.shares.round(6)
    if not result.scaled_coverage.empty:
        tables["Coverage once widened by the variance factor (coverage_scaled.csv)"] = (
            result.scaled_coverage.round(6))
    if result.data_issues:
        tables["Data problems (data_issues.csv)"] = _issues_table(result).head(200)
    params: dict[str, object] = {k: str(v) for k, v in result.parameters.items()}
    return ReportContent(title="Predictive validation", verdicts=result.verdicts,
                         summary_markdown=result.summary(),
                         figures=[f for _, f in figures], parameters=params,
                         input_sha256=result.input_sha256, row_counts=dict(result.row_counts),
                         tables=tables,
                         first_screen=first_screen(result, [stem for stem, _ in figures]))


def write_predictive_html(result: PredictiveValidation, path: Path,
                          figures: list[tuple[str, FigureSection]] | None = None) -> Path:
    """Write the self-contained report to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_report(predictive_content(result, _figures(result) if figures is None else figures), path)


def _csv(table: pd.DataFrame) -> str:
    return csv_safe(table).to_csv(index=False)


def save_predictive(result: PredictiveValidation, directory: Path) -> list[Path]:
    """Write every file of a predictive validation to ``directory`` (all or nothing)."""
    files = [("verdicts.csv", _csv(result.verdicts)), ("summary.md", result.summary()),
             ("scores.csv", _csv(result.scores)),
             ("coverage.csv", _csv(result.coverage.levels))]
    if not result.coverage.quantiles.empty:
        files.append(("coverage_quantiles.csv", _csv(result.coverage.quantiles)))
    stems = unique_names(result.coverage.bins)
    files += [(f"coverage_bins_{stems[n]}.csv", _csv(t)) for n, t in result.coverage.bins.items()]
    if result.shape is not None:
        files.append(("pit_shares.csv", _csv(result.shape.shares)))
    if result.data_issues:
        files.append(("data_issues.csv", _csv(_issues_table(result))))
    if not result.scaled_coverage.empty:
        files.append(("coverage_scaled.csv", _csv(result.scaled_coverage)))
    if result.variance is not None:
        files.append(("stages.csv", _csv(result.variance.stages)))
        vstems = unique_names(map(str, result.variance.bins))
        files += [(f"variance_bins_{vstems[str(n)]}.csv", _csv(t))
                  for n, t in result.variance.bins.items()]
    files.append(("advice.csv", _csv(result.advice)))
    figs = _figures(result)
    return write_outputs(directory, files, figs,
                         lambda page: write_predictive_html(result, page, figs))


def _comparison_figure(result: PredictiveComparison) -> list[tuple[str, FigureSection]]:
    cov = result.coverage
    if cov.empty:
        return []
    fig, ax = figure(1, 1, width=4.2, height=3.3)
    try:
        models = list(dict.fromkeys(cov.index.get_level_values(0)))
        for j, model in enumerate(models):
            t = cov.xs(model, level=0)
            shift = 0.004 * (j - (len(models) - 1) / 2)
            lv = t.index.to_numpy(dtype=float) + shift
            value = t["value"].to_numpy(dtype=float)
            err = [value - t["ci_low"].to_numpy(dtype=float),
                   t["ci_high"].to_numpy(dtype=float) - value]
            ax.errorbar(lv, value, yerr=err, fmt="o", ms=4, capsize=2, label=str(model))
        lo = float(min(cov.index.get_level_values(1).min(), cov["ci_low"].min())) - 0.05
        ax.plot([0, 1], [0, 1], color="0.2", lw=0.8)
        ax.set_xlim(max(0.0, lo), 1.0)
        ax.set_ylim(max(0.0, lo), 1.0)
        ax.set_xlabel("nominal level L")
        ax.set_ylabel("observed coverage")
        ax.legend(loc="upper left")
        return [("coverage_by_model", FigureSection(
            "Coverage by level and model",
            "Observed coverage of each model's central intervals with exact 95 % intervals; on "
            "the diagonal a model covers what it claims.", png_bytes(fig)))]
    finally:
        plt.close(fig)


def save_predictive_comparison(result: PredictiveComparison, directory: Path) -> list[Path]:
    """Write comparison.csv (scores with intervals and ranks), pairwise.csv (paired
    differences), coverage.csv, summary.md, the coverage figure and report.html."""
    scores = result.scores.reset_index()
    pairwise = result.differences.reset_index()
    coverage = result.coverage.reset_index()
    files = [("comparison.csv", _csv(scores)), ("pairwise.csv", _csv(pairwise)),
             ("coverage.csv", _csv(coverage)), ("summary.md", result.summary())]
    figs = _comparison_figure(result)
    verdicts = pairwise.rename(columns={"score": "statistic", "delta": "value"})
    content = ReportContent(title="Predictive comparison", verdicts=verdicts,
                            summary_markdown=result.summary(), figures=[f for _, f in figs],
                            parameters={"check levels": ", ".join(f"{t:g}" for t in
                                                                   result.check_levels),
                                        "common central levels": ", ".join(
                                            f"{t:g}" for t in result.levels)},
                            row_counts={"rows compared": result.n_rows},
                            tables={"Scores (comparison.csv)": scores.round(6),
                                    "Coverage (coverage.csv)": coverage.round(6)})
    return write_outputs(directory, files, figs, lambda page: write_report(content, page))
