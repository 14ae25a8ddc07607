"""Files of a model comparison: tables (CSV), overlay figures (PNG), summary and HTML report.

Written by :meth:`uqval.comparison.ModelComparison.save`:

* ``comparison.csv``: every score of every model with its paired-bootstrap interval and its
  probabilistic reference (``ModelComparison.scores``);
* ``verdicts.csv``: the scale factor and the stage verdicts of :func:`uqval.validate` per
  model;
* ``pairwise.csv``: the paired differences and p-values (``ModelComparison.differences``);
* ``ranking.csv``: the rank of each model per score (1 = best; models whose paired difference
  is not significant tie), the mean rank over those scores and the overall rank (models
  ordered by mean rank, equal mean ranks tie);
* ``murphy.csv``: the Murphy diagram, mean elementary score of each model's variance forecasts
  at each threshold (:mod:`uqval.scores.murphy`), and ``murphy_dominance.csv``: per pair,
  whether one model is better for every consistent score of the variance;
* ``summary.md``, the overlay figures of :mod:`uqval.plots.comparison` as PNG, and
  ``report.html``, one self-contained page rendered by :func:`uqval.report.render_html`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from matplotlib.axes import Axes

from uqval._internal.formatting import fmt, fmt_interval
from uqval.plots import comparison as overlay
from uqval.plots.style import literal_text
from uqval.report import FigureSection, ReportContent
from uqval.report import write_html as write_report
from uqval.report.content import AnswerLine, FirstScreen, rendered_figures
from uqval.report.files import csv_safe, describe_names, unique_names, write_outputs
from uqval.report.markdown import md_text
from uqval.report.summary import next_steps
from uqval.report.validation import WORST_FIRST

if TYPE_CHECKING:  # the result types (imported for the type checker only: import cost)
    from uqval.comparison import ModelComparison
    from uqval.validation.result import ValidationResult

__all__ = ["feature_stems", "ranking_table", "report_content", "save_all",
           "comparison_summary_markdown", "write_html"]

_HOW_TO_READ = {
    "calibration": "Each model's observed fraction of z-scores below the normal quantile; "
    "calibrated uncertainties follow the diagonal inside the dashed 95 % band. The smaller "
    "the area between a curve and the diagonal, the better.",
    "ucc": "Miss rate of the band ±k·uE against its mean half-width as k grows; lower-left is "
    "better. The curve ignores a global scale of uE: it measures how well each model's "
    "uncertainties sort the errors (AUUCC in the legend, smaller is better).",
    "murphy": "Mean elementary score of each model's variances uE² as forecasts of E², against "
    "the threshold θ; lower is better. Every consistent score of the variance (squared error "
    "of E², the Gaussian NLL at fixed mean, ...) is a weighted sum of these curves: a model "
    "below the other at every θ wins for all of them; crossing curves mean that the ranking "
    "depends on the score.",
    "lzms": "<Z²> per equal-count bin with its 95 % interval; right uncertainties stay near "
    "1 everywhere. A model whose points sit above 1 has uncertainties too small there, below "
    "1 too large.",
}


def ranking_table(result: ModelComparison) -> pd.DataFrame:
    """``result.ranking`` with the mean rank over its scores and the overall rank."""
    table = result.ranking.copy()
    table["mean_rank"] = result.ranking.mean(axis=1)
    table["overall"] = table["mean_rank"].rank(method="min").astype(int)
    return table.sort_values(["overall", "mean_rank"], kind="stable")


def _stage_text(res: ValidationResult) -> str:
    """Each stage's label from the model's own judgement (``res.stages``)."""
    if res.stages.empty:
        return ", ".join(f"{md_text(stage)} **{v}**" for stage, v in res.stage_verdicts.items())
    return ", ".join(f"{md_text(stage + (': ' + var if stage == 'adaptivity' else ''))} "
                     f"**{label}**" for stage, var, label in
                     zip(res.stages["stage"], res.stages["variable"], res.stages["label"],
                         strict=True))


def comparison_summary_markdown(result: ModelComparison) -> str:
    """Plain-language summary: overall ranking, each model's verdicts, significant pairs."""
    ranks = ranking_table(result)
    alpha = 1.0 - result.confidence
    points = result.parameters.get("points", "?")
    lines = [
        "# Which model has the better uncertainties?",
        "",
        f"{len(ranks)} models on the same {points} points; {result.confidence:.0%} "
        f"intervals from a paired bootstrap ({result.n_boot} resamples: every model sees the "
        "same resampled points).",
        "",
        "## Ranking",
        "",
        f"Per score, a model's rank is 1 + the number of models significantly better on it "
        f"(paired {result.confidence:.0%} interval of the difference excludes 0); models not "
        f"significantly different tie. Overall order by the mean rank over the "
        f"{result.ranking.shape[1]} ranked scores:",
        "",
    ]
    for name, row in ranks.iterrows():
        lines.append(f"- rank {int(row['overall'])}: **{md_text(name)}** (mean rank "
                     f"{row['mean_rank']:.2f})")
    if result.validations:
        lines += ["", "## Each model's validation", ""]
        for name, res in result.validations.items():
            s = res.scale_factor
            lines.append(f"- **{md_text(name)}**: scale factor "
                         f"{fmt_interval(s.value, s.ci_low, s.ci_high)}; "
                         f"{_stage_text(res)}.")
    lines += ["", "## Significant differences", ""]
    diff = result.differences.reset_index()
    for (a_name, b_name), group in diff.groupby(["model_a", "model_b"], sort=False):
        a, b = md_text(a_name), md_text(b_name)
        sig = group[group["p_value"] < alpha]
        if sig.empty:
            lines.append(f"- {a} vs {b}: no score differs significantly.")
            continue
        floor_p = 2.0 / (result.n_boot + 1)
        floor = fmt(floor_p, 1)
        shown = ", ".join(
            f"{md_text(r.score)}: " + (f"**{md_text(r.better)}** better, " if r.better not in ("", "tie") else "")
            + f"Δ = {fmt(r.delta)} "
            + (f"(p = {fmt(r.p_value, 2)})" if r.p_value > floor_p * 1.0000001
               else f"(p ≤ {floor}, the smallest with {result.n_boot} resamples)")
            for r in sig.itertuples()
        )
        lines.append(f"- {a} vs {b} (Δ = {a} − {b}): {shown}.")
    lines += _murphy_lines(result)
    lines += ["", "AUUCC: paired permutation test of the UCC areas (uncertainty "
              "characteristics curves); other scores: paired bootstrap. p-values are not "
              "adjusted for the number of scores."]
    return "\n".join(lines) + "\n"


def _murphy_lines(result: ModelComparison) -> list[str]:
    """Does one model win for every consistent score of the variance (Murphy diagram)?"""
    murphy = getattr(result, "murphy", None)
    if murphy is None:
        return []
    lines = ["", "## For every consistent score of the variance? (Murphy diagram)", ""]
    level = f"{murphy.confidence:.0%}"
    for r in murphy.dominance.itertuples(index=False):
        a, b = md_text(r.model_a), md_text(r.model_b)
        if r.verdict == "crossing":
            text = (f"neither dominates: {a} is better beyond noise at "
                    f"{fmt(100 * r.a_better_share, 2)} % of the thresholds, {b} at "
                    f"{fmt(100 * r.b_better_share, 2)} %; which is better depends on the score")
        elif r.verdict == "no difference":
            text = ("no threshold where they differ beyond the sampling noise (simultaneous "
                    f"{level} band): no elementary score of the variance separates them once "
                    "every threshold is looked at together, a weaker test than one score "
                    "alone (a score above may still differ)")
        else:
            win, lose = (a, b) if r.verdict == f"{r.model_a} dominates" else (b, a)
            share = r.a_better_share if win == a else r.b_better_share
            text = (f"**{win}** is better than {lose} beyond noise at "
                    f"{fmt(100 * share, 2)} % of the thresholds and worse beyond noise at none "
                    f"(simultaneous {level} band): {win} wins for every consistent score of "
                    "the variance, up to differences smaller than the noise where the band "
                    "contains 0")
        lines.append(f"- {a} vs {b}: {text}.")
    return lines


FigureSpec = tuple[str, str, str, Callable[[Axes], object]]


def feature_stems(result: ModelComparison) -> dict[str, str]:
    """File-name stem of each feature (``lzms_<stem>.png``): distinct even when two names
    sanitise alike, and never ``uE`` (the overlay along each model's uncertainty)."""
    return unique_names(map(str, result.features), reserved=["uE"])


def _figure_specs(result: ModelComparison) -> list[FigureSpec]:
    models = result.data
    stems = feature_stems(result)
    given = result.parameters.get("seed", 0)
    seed = int(given) if isinstance(given, int) else 0
    specs: list[FigureSpec] = [
        ("calibration_curves", "Calibration curves", _HOW_TO_READ["calibration"],
         lambda ax: overlay.calibration_curves_plot(models, ax=ax)),
        ("ucc", "Uncertainty characteristics curves", _HOW_TO_READ["ucc"],
         lambda ax: overlay.ucc_curves_plot(models, ax=ax)),
        ("lzms_uE", "Local ZMS along each model's uncertainty", _HOW_TO_READ["lzms"],
         lambda ax: overlay.lzms_curves_plot(models, ax=ax, seed=seed)),
    ]

    def along(name: str, x) -> FigureSpec:
        return (f"lzms_{stems[str(name)]}", f"Local ZMS along {name}", _HOW_TO_READ["lzms"],
                lambda ax: overlay.lzms_curves_plot(models, x, x_name=literal_text(str(name)), ax=ax,
                                                   seed=seed))

    specs += [along(name, x) for name, x in result.features.items()]
    murphy = getattr(result, "murphy", None)
    if murphy is not None:
        specs.append(("murphy", "Murphy diagram of the variance forecasts", _HOW_TO_READ["murphy"],
                      lambda ax: overlay.murphy_diagram_plot(murphy, ax=ax)))
    return specs


def _figures(result: ModelComparison) -> list[tuple[str, FigureSection]]:
    return rendered_figures(_figure_specs(result))


def _verdict_rows(result: ModelComparison) -> pd.DataFrame:
    rows = []
    for name, res in result.validations.items():
        s = res.scale_factor
        for stage, verdict in res.stage_verdicts.items():
            rows.append({"model": name, "stage": stage, "verdict": verdict,
                         "scale_factor": s.value, "scale_low": s.ci_low,
                         "scale_high": s.ci_high})
    return pd.DataFrame(rows)


def _worst_label(res: ValidationResult) -> str:
    """The worst of a model's stage labels (its own judgement), else of its verdicts."""
    if not res.stages.empty:
        present = set(res.stages["label"].astype(str))
        return next((label for label in WORST_FIRST if label in present), "")
    present = set(res.stage_verdicts.values())
    return next((v for v in ("fail", "inconclusive", "pass") if v in present), "")


def first_screen(result: ModelComparison, stems: list[str]) -> FirstScreen:
    """The comparison's first screen: one line per model in ranking order (its worst stage
    label, rank, mean rank and scale factor), the calibration curves, and each model's
    actions (its own judgement, :func:`uqval.report.summary.next_steps`)."""
    ranks = ranking_table(result)
    answer, actions = [], []
    for name, row in ranks.iterrows():
        res = result.validations.get(name)
        detail = f"rank {int(row['overall'])} (mean rank {row['mean_rank']:.2f})"
        label = ""
        if res is not None:
            s = res.scale_factor
            detail += f"; scale factor {fmt_interval(s.value, s.ci_low, s.ci_high)}"
            label = _worst_label(res)
            actions += [f"**{md_text(name)}**: {line}" for line in
                        next_steps(res, actions_only=True)]
        answer.append(AnswerLine(str(name), label, detail))
    figure = stems.index("calibration_curves") if "calibration_curves" in stems else None
    return FirstScreen(answer=answer, figure=figure, actions=actions)


def report_content(result: ModelComparison,
                   figures: list[tuple[str, FigureSection]] | None = None) -> ReportContent:
    """The :class:`uqval.report.ReportContent` of a comparison (figures drawn if not given)."""
    figs = _figures(result) if figures is None else figures
    parameters = dict(result.parameters)
    renamed = describe_names(feature_stems(result))
    if renamed:
        parameters["file names of features (name → stem)"] = renamed
    return ReportContent(
        title="Model comparison",
        verdicts=_verdict_rows(result),
        summary_markdown=comparison_summary_markdown(result),
        figures=[section for _, section in figs],
        parameters=parameters,
        input_sha256=result.input_sha256,
        tables={
            "Ranking (1 = best)": ranking_table(result).round(3),
            "Scores with paired-bootstrap intervals and probabilistic references":
                result.scores.round(6),
            "Paired differences (Δ = model_a − model_b)": result.differences.round(6),
            **({"Murphy diagram: one model better for every consistent score of the variance?":
                result.murphy.dominance.round(4)} if result.murphy is not None else {}),
        },
        first_screen=first_screen(result, [stem for stem, _ in figs]),
    )


def write_html(result: ModelComparison, path: Path,
               figures: list[tuple[str, FigureSection]] | None = None) -> Path:
    """Write the self-contained comparison report to ``path`` (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_report(report_content(result, figures), path)


def save_all(result: ModelComparison, directory: Path,
             inputs: Sequence[str | Path] = ()) -> list[Path]:
    """Write every file of a comparison to ``directory`` (module docstring), all or nothing
    (:func:`uqval.report.files.write_outputs`); ``inputs``: files the folder must not
    contain."""
    files = [
        ("comparison.csv", csv_safe(result.scores).to_csv()),
        ("verdicts.csv", csv_safe(result.verdicts).to_csv()),
        ("pairwise.csv", csv_safe(result.differences).to_csv()),
        ("ranking.csv", csv_safe(ranking_table(result)).to_csv()),
        ("summary.md", comparison_summary_markdown(result)),
    ]
    if result.murphy is not None:
        curves = pd.DataFrame({"threshold": result.murphy.thresholds, **result.murphy.scores})
        files += [("murphy.csv", csv_safe(curves).to_csv(index=False)),
                  ("murphy_dominance.csv", csv_safe(result.murphy.dominance).to_csv(index=False))]
    figs = _figures(result)
    return write_outputs(Path(directory), files, figs,
                         lambda page: write_html(result, page, figs), inputs)
