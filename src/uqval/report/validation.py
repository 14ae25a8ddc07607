"""Files of a validation: report.html, verdicts.csv, stages.csv, summary.md, bins_<name>.csv,
advice.csv, figures.

The figures draw what the engine computed, with the drawing functions of
:mod:`uqval.plots.drawing`, each with the "how to read this" of
:data:`uqval.report.HOW_TO_READ`: the LZMS and LZM figures draw the bins tables
(``result.bins``, the bins of the verdicts), every other figure its record in
``result.figures`` (:class:`uqval.validation.figure_stage.FigureRecords`); saving computes
no statistic. The conditional figures (LZMS, LZM and z-scores along the uncertainty and
each feature) use the uncertainties multiplied by the scale factor, like the conditional
verdicts. The HTML page is rendered by :func:`uqval.report.render_html` and is
self-contained (figures embedded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes

from uqval._internal.formatting import fmt, fmt_interval
from uqval.plots import drawing
from uqval.plots.style import figure, literal_text
from uqval.report import HOW_TO_READ, FigureSection, ReportContent, png_bytes
from uqval.report import write_html as write_report
from uqval.report.content import AnswerLine, FirstScreen
from uqval.report.files import csv_safe, describe_names, safe_name, unique_names, write_outputs
from uqval.report.markdown import md_code
from uqval.report.summary import next_steps
from uqval.validation.judgement import (
    ACTIONS,
    INCONCLUSIVE,
    NOT_RIGHT,
    NOT_TESTABLE,
    RIGHT,
    RIGHT_WITHIN,
)

if TYPE_CHECKING:  # the result types (imported for the type checker only: import cost)
    from uqval.plots.records import ZAlongRecord
    from uqval.validation.result import ValidationResult

__all__ = [
    "RULES_MARKDOWN",
    "FigureSpec",
    "answer_lines",
    "figure_specs",
    "first_screen",
    "report_content",
    "dominant_table",
    "safe_name",
    "save_all",
    "variable_stems",
    "write_html",
]

FigureSpec = tuple[str, str, str, Callable[[Axes], object]]
"""(file stem, title, how to read, function drawing on an Axes)."""


def variable_stems(result: ValidationResult) -> dict[str, str]:
    """File-name stem of the uncertainty and of each feature (``bins_<stem>.csv``,
    ``lzms_<stem>.png``, ...): distinct even when two names sanitise alike
    (:func:`uqval.report.files.unique_names`)."""
    return unique_names([str(result.names["uncertainty"]), *map(str, result.features),
                         *map(str, result.bins)])


def figure_specs(result: ValidationResult) -> list[FigureSpec]:
    """The report's figures, in page order. They only read ``result.bins`` and
    ``result.figures``; without the records (``figures`` None) only the LZMS and LZM figures
    of the bins tables are drawn (without the line of all rows)."""
    rec = result.figures
    factor = float(result.parameters.get("conditional_scaling", result.scale_factor.value))
    u_name = str(result.names["uncertainty"])
    stems = variable_stems(result)
    scaled = f" (uncertainties × {factor:.3g})"
    drawn = in_unit = ""
    if rec is not None:
        drawn = rec.subsample_note
        in_unit = "" if rec.unit == 1.0 else f" (E and uE in units of {rec.unit:.3g})"

    def along(name: str, x_name: str, title: str) -> list[FigureSpec]:
        """LZMS and LZM of one binned variable (the lambdas close over this call's names)."""
        table = result.bins[name]
        log_x = None if rec is None else rec.log_x.get(name)
        whole_zms, whole_zm = (None, None) if rec is None else (rec.whole_zms, rec.whole_zmean)
        return [
            (f"lzms_{stems[name]}", f"Local ZMS along {title}{scaled}",
             HOW_TO_READ["local_zms_plot"],
             lambda ax: drawing.bins_table_plot(table, "lzms", ax=ax, x_name=literal_text(x_name),
                                                whole=whole_zms, log_x=log_x)),
            (f"lzm_{stems[name]}", f"Local mean z along {title}{scaled}",
             HOW_TO_READ["local_zm_plot"],
             lambda ax: drawing.bins_table_plot(table, "lzm", ax=ax, x_name=literal_text(x_name),
                                                whole=whole_zm, log_x=log_x)),
        ]

    def z_along(name: str, record: ZAlongRecord) -> FigureSpec:
        return (f"z_vs_{stems[name]}", f"Z-scores along {name}{scaled}{drawn}",
                HOW_TO_READ["z_vs_feature_plot"],
                lambda ax: drawing.draw_z_along(record, ax=ax, x_name=literal_text(name)))

    specs: list[FigureSpec] = []
    if rec is not None:
        specs += [
            ("calibration_curve", "Calibration curve" + drawn,
             HOW_TO_READ["calibration_curve_plot"],
             lambda ax: drawing.draw_calibration_curve(rec.calibration, ax=ax)),
            ("reliability_diagram", "Reliability diagram" + in_unit,
             HOW_TO_READ["reliability_diagram_plot"],
             lambda ax: drawing.draw_reliability_diagram(rec.reliability, ax=ax,
                                                         label=rec.reliability_bins)),
            ("isotonic_reliability", "Reliability of the variance without bins (isotonic fit)"
             + drawn + in_unit, HOW_TO_READ["isotonic_reliability_plot"],
             lambda ax: drawing.draw_isotonic_reliability(rec.isotonic, ax=ax)),
        ]
    if u_name in result.bins:  # not when the uncertainty cannot be binned (not testable)
        specs += along(u_name, f"{u_name} (as given)", f"{u_name} as given")
    for name in map(str, result.features):
        if name not in result.bins:
            continue
        specs += along(name, name, name)
        if rec is not None and name in rec.z_along:
            specs.append(z_along(name, rec.z_along[name]))
    if rec is not None:
        specs += [
            ("confidence_curve", "Confidence curve" + drawn + in_unit,
             HOW_TO_READ["confidence_curve_plot"],
             lambda ax: drawing.draw_confidence_curve(rec.confidence, ax=ax)),
            ("ucc", "Uncertainty characteristics curve" + drawn + in_unit,
             HOW_TO_READ["ucc_plot"], lambda ax: drawing.draw_ucc(rec.ucc, ax=ax)),
        ]
    return specs


RULES_MARKDOWN = """## How the verdicts are decided

- **Average**: the scale factor √ZMS gets a BCa bootstrap interval; its p-value for "factor
  = 1" comes from inverting that interval. The mean z-score <Z> gets a Student t test. The
  two p-values are Holm-adjusted; a test fails when its adjusted p-value is at most the
  false-alarm rate. If the heavy-tail screening says ZMS intervals are unreliable, the ZMS
  verdict is *inconclusive*.
- **Consistency and adaptivity**: the rows are split into equal-count bins of the
  uncertainty or of a feature. Two permutation tests ask whether the bins differ more than
  random bins would: the spread of <Z²> (T_ZMS = M ln ZMS − Σ n_b ln ZMS_b) and of <Z>
  (T_Z = Σ n_b (<Z>_b − <Z>)²). Shuffling the z-scores gives their exact distribution for
  any error distribution. The spread does not depend on a global rescaling, so these tests
  judge the uncertainties *after* multiplying them by the scale factor (`scaled = yes`). As
  given (`scaled = no`), a bin can only be right if the average is right too, so that row
  combines both p-values (2·min). Without bins, the same stages also test the cumulative
  sums of Z² − 1 and of Z in the order of each variable (Kuiper range about the chord) and,
  along the uncertainty, the isotonic miscalibration (QLIKE MCB of the PAV fit of E² on uE²);
  all by permutations. Holm's adjustment runs within each stage, over all its tests and
  features. A binned test whose bins hold fewer than 30 rows is *inconclusive*.
- **Joint** (two or more features): a gradient-boosting learner fitted on half of the rows
  predicts Z² (and Z) from all features on the other half; the held-out rows are permuted
  against its fixed predictions (exact p-value), halves swapped (2·min), the two tests
  Holm-adjusted. The regions with the largest and smallest predicted factor are described by a
  depth-3 tree in the features' units, their factor measured on held-out rows.
- The per-bin intervals and f_v in the figures and tables are descriptive: per-bin BCa
  intervals cover less than 95 % with heavy tails, so they are not used for decisions.
"""


def _render(spec: FigureSpec) -> bytes:
    fig, ax = figure(1, 1, width=4.2, height=3.3)
    try:
        spec[3](ax)
        return png_bytes(fig)
    finally:
        plt.close(fig)


def _figures(result: ValidationResult) -> list[tuple[str, FigureSection]]:
    return [(spec[0], FigureSection(spec[1], spec[2], _render(spec)))
            for spec in figure_specs(result)]


WORST_FIRST = (NOT_RIGHT, INCONCLUSIVE, RIGHT_WITHIN, RIGHT, NOT_TESTABLE)
"""Order of the judgement's labels when one line stands for several rows: the first label
present is the line's badge (not testable only when nothing was tested)."""


def _worst(labels: pd.Series) -> str:
    present = set(labels.astype(str))
    return next((label for label in WORST_FIRST if label in present), "")


def _by_label(rows: pd.DataFrame) -> str:
    """"not right: `bmi`; right: `bp`, all features together": each label with its rows."""
    parts = []
    for label in WORST_FIRST:
        hit = rows[rows["label"] == label]
        names = ["all features together" if stage == "joint" else md_code(str(variable))
                 for stage, variable in zip(hit["stage"], hit["variable"], strict=True)]
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    return "; ".join(parts)


def answer_lines(result: ValidationResult) -> list[AnswerLine]:
    """The answer in three lines, read from the judgement (``result.stages``): on average
    (label, scale factor sqrt(ZMS) with its interval), along the uncertainty (label, the
    smallest and largest bin factor after the global factor) and along the features (the
    worst label of the adaptivity and joint rows, each variable under its label). Empty
    without a stages table (the paper's rule judges test by test)."""
    st = result.stages
    if st.empty or result.parameters.get("rule") == "paper":
        return []
    out = []
    average = st[st["stage"] == "average"]
    if not average.empty:
        s = result.scale_factor
        out.append(AnswerLine("On average", str(average["label"].iloc[0]),
                              f"scale factor {fmt_interval(s.value, s.ci_low, s.ci_high)}"))
    consistency = st[st["stage"] == "consistency"]
    if not consistency.empty:
        r = consistency.iloc[0]
        low, high = float(r["factor_low"]), float(r["factor_high"])
        detail = (f"factor per bin {fmt(low)} to {fmt(high)} after the global one"
                  if r["label"] != NOT_TESTABLE and pd.notna(low) and pd.notna(high) else "")
        out.append(AnswerLine(f"Along the uncertainty ({r['variable']})", str(r["label"]),
                              detail))
    features = st[st["stage"].isin(["adaptivity", "joint"])]
    if not features.empty:
        out.append(AnswerLine("Along the features", _worst(features["label"]),
                              _by_label(features)))
    return out


def first_screen(result: ValidationResult, stems: list[str]) -> FirstScreen | None:
    """The report's first screen: :func:`answer_lines`, one figure and the actions
    (:func:`uqval.report.summary.next_steps`, actions only). ``stems``: the file stems of
    the report's figures, in page order. The figure: when an action of the consistency or
    adaptivity stage targets a variable, the LZMS (factor per bin) along the first such
    variable (the LZM when its only action corrects a bias); otherwise the reliability
    diagram, else the LZMS along the uncertainty. None without answer lines."""
    answer = answer_lines(result)
    if not answer:
        return None
    names = variable_stems(result)
    index = {stem: i for i, stem in enumerate(stems)}
    a = result.advice
    figure_at, why = None, ""
    if not a.empty:
        targeted = a[a["action"].isin(ACTIONS) & a["stage"].isin(["consistency", "adaptivity"])
                     & a["variable"].isin(list(names))]
        if not targeted.empty:
            variable = str(targeted["variable"].iloc[0])
            kinds = set(targeted.loc[targeted["variable"] == variable, "action"])
            stem = f"lzm_{names[variable]}" if kinds == {"correct_bias"} else f"lzms_{names[variable]}"
            if stem in index:
                figure_at = index[stem]
                why = f"Shown because the first action targets {md_code(variable)}."
    if figure_at is None:
        u_name = str(result.names["uncertainty"])
        for stem in ("reliability_diagram", f"lzms_{names.get(u_name, '')}"):
            if stem in index:
                figure_at = index[stem]
                break
    if figure_at is None and stems:
        figure_at = 0
    return FirstScreen(answer=answer, figure=figure_at,
                       actions=next_steps(result, actions_only=True), why_figure=why,
                       checks=list(result.warnings))


def report_content(result: ValidationResult,
                   figures: list[tuple[str, FigureSection]] | None = None) -> ReportContent:
    """The :class:`uqval.report.ReportContent` of a validation (figures drawn if not given)."""
    figs = _figures(result) if figures is None else figures
    params: dict[str, object] = {**_plain(result.parameters), **_headline(result),
              "heavy-tail screening": "; ".join(result.screening.reasons) or "no warning"}
    renamed = describe_names(variable_stems(result))
    if renamed:
        params["file names of variables (name → stem)"] = renamed
    tables = {}
    if not result.advice.empty:
        tables["Advice: what to do, where (advice.csv)"] = result.advice.round(6)
    if result.dominant_rows.size:
        tables["Rows that decide the average (dominant_rows.csv)"] = dominant_table(result)
    tables.update({f"Bins of {name} (scaled uncertainties)": table.round(6)
                   for name, table in result.bins.items()})
    return ReportContent(
        title="Uncertainty validation",
        verdicts=result.verdicts,
        summary_markdown=result.summary()
        + ("\n" + RULES_MARKDOWN if result.parameters["rule"] == "uqval" else ""),
        figures=[section for _, section in figs],
        parameters=params,
        input_sha256=result.input_sha256,
        row_counts=dict(result.row_counts),
        tables=tables,
        stage_overview=stage_overview(result),
        first_screen=first_screen(result, [stem for stem, _ in figs]),
    )


def _plain(parameters: dict) -> dict[str, str]:
    """Parameters as plain text: numbers, names and ``name: value`` lists, no Python reprs."""
    def text(value: object) -> str:
        if isinstance(value, dict):
            return ", ".join(f"{k}: {text(v)}" for k, v in value.items())
        if isinstance(value, list | tuple):
            return ", ".join(text(v) for v in value)
        if isinstance(value, float):
            return fmt(value, 4)
        return str(value)

    return {k: text(v) for k, v in parameters.items()}


def _headline(result: ValidationResult) -> dict[str, str]:
    s, out = result.scale_factor, {}
    out["scale factor sqrt(ZMS)"] = (f"{fmt(s.value, 4)} [{fmt(s.ci_low, 4)}, "
                                     f"{fmt(s.ci_high, 4)}] ({s.n_boot} BCa replicates)")
    if result.robust_scale is not None:
        r = result.robust_scale
        out["robust scale factor"] = (f"{fmt(r.value, 4)} [{fmt(r.ci_low, 4)}, "
                                      f"{fmt(r.ci_high, 4)}] (median of means, {r.n_blocks} "
                                      f"blocks of {r.block_size}, averaged over "
                                      f"{r.n_partitions} random partitions)")
    if result.tail_shares is not None:
        t = result.tail_shares
        out["share of sum(Z^2) in the top 0.1 % / 1 % of rows"] = (
            f"{fmt(100 * t.top_0_1_percent, 3)} % / {fmt(100 * t.top_1_percent, 3)} %")
    if result.ucc is not None:
        g = result.ucc
        out["UCC gain over a constant band"] = (
            f"{g.gain_percent:+.1f} % (AUUCC {fmt(g.auucc, 4)} against {fmt(g.auucc_constant, 4)}"
            f", excess-deficit, in units of sd(E)), p = {fmt(g.p_value, 2)}")
    return out


def stage_overview(result: ValidationResult) -> pd.DataFrame:
    """The judgement's one row per stage and variable (``result.stages``, stages.csv) as the
    page shows it first: label, effect, the range of factors, the smallest adjusted p-value,
    the number of actions and the reason."""
    st = result.stages
    if st.empty:
        return pd.DataFrame()
    out = st.rename(columns={"p_adjusted": "smallest adjusted p", "n_actions": "actions"})
    out["variable"] = out["variable"].where(out["variable"] != "", "(all rows)")
    return out


def dominant_table(result: ValidationResult) -> pd.DataFrame:
    """The dominant rows: row (1-based, among the rows used), error, uncertainty, z, features."""
    idx = result.dominant_rows
    e, u = result.errors[idx], result.uncertainties[idx]
    table = pd.DataFrame({"row": idx + 1, "error": e, "uncertainty": u, "z": e / u})
    for name, x in result.features.items():
        table[name] = x[idx]
    return table


def write_html(result: ValidationResult, path: Path,
               figures: list[tuple[str, FigureSection]] | None = None) -> Path:
    """Write the self-contained report to ``path`` (atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_report(report_content(result, figures), path)


def _csv(table: pd.DataFrame) -> str:
    return csv_safe(table).to_csv(index=False)


def save_all(result: ValidationResult, directory: Path,
             inputs: Sequence[str | Path] = ()) -> list[Path]:
    """Write every file of a validation to ``directory`` (module docstring), all or nothing
    (:func:`uqval.report.files.write_outputs`); ``inputs``: files the folder must not
    contain."""
    stems = variable_stems(result)
    files = [("verdicts.csv", _csv(result.verdicts)), ("stages.csv", _csv(result.stages)),
             ("summary.md", result.summary())]
    files += [(f"bins_{stems[str(name)]}.csv", _csv(table)) for name, table in result.bins.items()]
    if not result.advice.empty:
        files.append(("advice.csv", _csv(result.advice)))
    if result.dominant_rows.size:
        files.append(("dominant_rows.csv", _csv(dominant_table(result))))
    if result.ucc is not None:
        files.append(("ucc_gain.csv", _csv(pd.DataFrame([asdict(result.ucc)]))))
    figs = _figures(result)
    return write_outputs(Path(directory), files, figs,
                         lambda page: write_html(result, page, figs), inputs)
