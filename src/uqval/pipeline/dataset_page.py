"""The page of one dataset, ``results/datasets/<id>/``, and the list of such pages.

For a dataset with standard uncertainties uE the page holds what the validation engine
writes (:func:`uqval.validate`, :meth:`~uqval.validation.ValidationResult.save`:
``report.html``, ``verdicts.csv``, ``summary.md``, ``bins_<name>.csv``, the figures as PNG)
and ``index.html``: the same report with, for this dataset,

* its simulated references (P002 Sect. III.C: reference values and intervals of ZMS, CC,
  ENCE and ZMSE simulated with its own uncertainties, and the zeta-score verdicts),
* its heavy-tail screening (P001 Table 2: robust skewness of E, uE and Z),
* its UCC gain over a constant band (P004 Sect. 4: AUUCC gain with a permutation test),
* where the data came from: the YAML entry, the source files and their SHA-256.

A dataset given only by prediction half-widths U_P gets the interval checks of the validation
flowchart (P003 Fig. 1) instead of the engine's stages, and the coverage stage of
``uqval.validate(E, Intervals({P: (-U_P, U_P)}))`` beside them (:func:`interval_page`; its
full report in ``coverage/``). A predictive dataset (``y_true`` with a distribution, members,
samples, quantiles or [low, high] intervals, :mod:`uqval.pipeline.quantities`) gets
``uqval.validate(y_true, predictive)`` (:func:`predictive_page`): the coverage and shape
stages, and the variance stages where a variance exists; without one (quantiles, intervals)
the page says which variance-only jobs were not run. ``page.json`` holds what the lists of
pages show (verdict per stage, a one-line summary).
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from uqval._internal.atomic import write_atomic, write_json
from uqval.report import FigureSection, ReportContent, render_html, render_markdown
from uqval.report.html import badge_kind
from uqval.report.markdown import render_inline

__all__ = [
    "dataset_tables",
    "finish_variance_page",
    "interval_page",
    "one_line_summary",
    "pages_html",
    "parts_page",
    "pages_index",
    "pages_present",
    "predictive_page",
    "predictive_result",
    "shown_path",
    "variance_page",
]

NO_VARIANCE_NOTE = (
    "**Not run for this dataset:** the simulated references, the heavy-tail screening, the "
    "UCC gain and the flowchart of `results/validate/` need a standard uncertainty (or a "
    "symmetric band); {kind} give none, so these jobs were skipped. The coverage and shape "
    "stages above validate the predictive without it.")
"""Note on the page of a predictive dataset without a variance (quantiles, intervals)."""

VERDICT_ORDER = ("fail", "inconclusive", "pass", "not testable")
"""A stage's verdict is the first of these that one of its checks has (as uqval.validate)."""
ZETA_COLUMNS = {
    "statistic": "statistic",
    "verdict": "verdict",
    "reason": "why",
    "theta_est": "value on this dataset",
    "I_BS_low": "95 % interval: low",
    "I_BS_high": "95 % interval: high",
    "theta_ref_N": "reference, normal errors",
    "I_N_low": "normal: 95 % range low",
    "I_N_high": "normal: 95 % range high",
    "theta_ref_T": "reference, t(6) errors",
    "I_T_low": "t(6): 95 % range low",
    "I_T_high": "t(6): 95 % range high",
    "zeta_BS": "zeta against the known value",
    "zeta_SimN": "zeta against the normal reference",
    "zeta_SimT": "zeta against the t(6) reference",
}
"""Columns of the simref table shown on a page, verdict first, with readable headers (the full
table: results/simref/sets/); |zeta| <= 1 validates, 1-3 is doubtful, > 3 fails (P002)."""


def one_line_summary(markdown: str) -> str:
    """The first statement of a validation summary: its first list item, else its first
    paragraph line, cut after the first sentence (inline markdown kept)."""
    lines = [ln.strip() for ln in markdown.splitlines() if ln.strip()]
    items = [ln[2:] for ln in lines if ln.startswith(("- ", "* "))]
    text = items[0] if items else next((ln for ln in lines if not ln.startswith("#")), "")
    match = re.search(r"(?<=[.!?])\s", text)
    return text[: match.start()] if match else text


def shown_path(path: str | Path, root: str | Path | None = None) -> str:
    """A path as a page shows it: relative to the workflow folder ``root`` (default: the
    current directory, where Snakemake runs) when it lies under it, else its file name
    alone: no page carries the folders of the machine that built it (the SHA-256 beside it
    identifies the bytes).

    >>> shown_path("/home/me/project/data/raw/x.csv", "/home/me/project")
    'data/raw/x.csv'
    >>> shown_path("/home/me/elsewhere/x.csv", "/home/me/project"), shown_path("data/raw/x.csv")
    ('x.csv', 'data/raw/x.csv')
    """
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    base = Path(root) if root is not None else Path.cwd()
    for candidate in (base, base.resolve()):
        try:
            return p.relative_to(candidate).as_posix()
        except ValueError:
            continue
    return p.name


def _sources_table(report: Mapping[str, Any]) -> pd.DataFrame:
    local = report.get("local_files", {})
    return pd.DataFrame(
        {
            "file": [shown_path(f) for f in report["sources"]],
            "location": [shown_path(local.get(f, f"data/raw/{f}")) for f in report["sources"]],
            "sha256": [report.get("source_sha256", {}).get(f, "") for f in report["sources"]],
        }
    )


def dataset_tables(
    report: Mapping[str, Any],
    screening: Mapping[str, Any] | None = None,
    zeta: pd.DataFrame | None = None,
    simref_summary: Mapping[str, Any] | None = None,
    ucc: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    """Tables of a dataset's page besides the engine's: simulated references (P002), heavy-
    tail screening (P001), UCC gain (P004), filters and source files."""
    tables: dict[str, pd.DataFrame] = {}
    if zeta is not None:
        zeta = zeta[[c for c in ZETA_COLUMNS if c in zeta.columns]].rename(columns=ZETA_COLUMNS)
        zeta = zeta.apply(lambda c: c.map(lambda x: float(f"{x:.4g}")) if c.dtype.kind == "f"
                          else c)
        counts = (simref_summary or {}).get("monte_carlo", {}).get("description")
        tables["Simulated references of the statistics (simref: reference and interval "
               "simulated with this dataset's uncertainties; zeta-score verdicts"
               + (f"; {counts}" if counts else "") + ")"] = zeta
    if simref_summary is not None:
        ext = simref_summary.get("extrapolation", {})
        if ext:
            tables["ZMSE extrapolation to zero bin size (simref)"] = pd.DataFrame([ext])
    if screening is not None:
        flat = {k: v for k, v in screening.items() if not isinstance(v, (dict, list))}
        flat["reasons"] = "; ".join(screening.get("reasons", [])) or "none"
        tables["Heavy-tail screening (robust skewness beta_GM, heavy-tails Table 2 limits)"] = (
            pd.DataFrame([flat]).drop(columns=["dataset"], errors="ignore")
        )
    if ucc is not None:
        tables["UCC: AUUCC gain of the uncertainties over a constant band (permutation test), "
               "in the two coordinate systems of the UCC paper (column axes; AUUCC in units of "
               "sd(E)); uqval validate and compare report the excess-deficit one"] = (
            ucc.drop(columns=["dataset"], errors="ignore")
        )
    if report.get("filters"):
        tables["Rows removed by the filters of the YAML entry"] = pd.DataFrame(report["filters"])
    tables["Source files"] = _sources_table(report)
    return tables


def _page_parameters(report: Mapping[str, Any], engine: Mapping[str, Any]) -> dict[str, object]:
    return {
        "dataset": report["id"],
        "title": report.get("title", report["id"]),
        "source": report.get("citation", ""),
        "dataset file": shown_path(report.get("config_file", "")),
        "units": report.get("units") or "n/a",
        "rows": f"{report['M']} used of {report['n_raw']} read",
        **engine,
    }


def _single_digest(report: Mapping[str, Any]) -> str | None:
    digests = list(report.get("source_sha256", {}).values())
    return digests[0] if len(digests) == 1 else None


def _figures_from_files(directory: Path, specs: Sequence[tuple[str, str, str, Any]]) -> list[FigureSection]:
    return [FigureSection(title, how, (directory / f"{stem}.png").read_bytes()) for stem, title, how, _ in specs]


def finish_variance_page(engine: str | Path, directory: str | Path,
                         tables: Mapping[str, pd.DataFrame]) -> dict[str, Any]:
    """The page of :func:`variance_page` with further ``tables`` first, from the page that
    rule ``dataset_engine`` wrote to ``engine`` (its files copied to ``directory``).

    The validation does not wait for the simulated references, the screening and the UCC
    gain: it runs beside them, and this step only inserts their tables (the same page as
    one :func:`variance_page` call with all the tables; tested). Returns ``page.json``.
    """
    from uqval.report.html import insert_tables

    engine, directory = Path(engine), Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for path in sorted(engine.iterdir()):
        if (path.is_file() and not path.is_symlink() and path.name != "index.html"
                and not path.name.startswith(".snakemake")):
            shutil.copy2(path, directory / path.name)
    page = insert_tables((engine / "index.html").read_text(encoding="utf-8"), tables)
    write_atomic(directory / "index.html", lambda fh: fh.write(page))
    summary: dict[str, Any] = json.loads((engine / "page.json").read_text(encoding="utf-8"))
    return summary


def _write_page(directory: Path, content: ReportContent, summary: dict[str, Any]) -> None:
    page = render_html(content)
    write_atomic(directory / "index.html", lambda fh: fh.write(page))
    write_json(summary, directory / "page.json")


def variance_page(
    table: pd.DataFrame,
    report: Mapping[str, Any],
    directory: str | Path,
    *,
    seed: int,
    n_boot: int,
    n_bins: int | None = None,
    n_permutations: int | None = None,
    extra: Mapping[str, pd.DataFrame] | None = None,
    n_workers: int = 1,
) -> dict[str, Any]:
    """Validate a prepared table (columns E, uE, X_<feature>) with :func:`uqval.validate`,
    save the engine's files to ``directory`` and write ``index.html`` and ``page.json``.
    Returns the content of ``page.json``."""
    from uqval.validation import validate

    directory = Path(directory)
    features = {name: table[f"X_{name}"].to_numpy() for name in report.get("features", {})}
    result = validate(
        table["E"].to_numpy(), table["uE"].to_numpy(), features=features or None, seed=seed,
        n_boot=n_boot, n_bins=n_bins, n_permutations=n_permutations, uncertainty_name="uE",
        n_workers=n_workers, groups=table["G"].to_numpy() if report.get("group") else None,
    )
    return _result_page(result, report, directory, extra, _single_digest(report))


def _result_page(result: Any, report: Mapping[str, Any], directory: Path,
                 extra: Mapping[str, pd.DataFrame] | None, digest: str | None,
                 note: str | None = None) -> dict[str, Any]:
    """Save the engine's files of ``result`` to ``directory``, write ``index.html`` (its
    report with ``note`` after the summary, the tables ``extra`` first and the dataset's
    parameters) and ``page.json``; return the content of ``page.json``."""
    from uqval.report.validation import figure_specs, report_content

    result.save(directory)
    base = report_content(result, figures=[
        (spec[0], section) for spec, section in zip(
            figure_specs(result), _figures_from_files(directory, figure_specs(result)), strict=True)
    ])
    content = dataclasses.replace(
        base,
        title=f"Uncertainty validation of {report['id']}",
        summary_markdown=base.summary_markdown + (f"\n\n{note}" if note else ""),
        tables={**(extra or {}), **base.tables},
        parameters=_page_parameters(report, base.parameters),
        input_sha256=digest,
    )
    summary = {
        "id": report["id"],
        "title": report.get("title", report["id"]),
        "M": report["M"],
        "stage_verdicts": result.stage_labels,  # the judgement's words, as in the summary
        "one_line": one_line_summary(result.summary()),
        "scale_factor": result.scale_factor.value,
    }
    _write_page(directory, content, summary)
    return summary


PARTS_NOTE = (
    "**Not run for this dataset:** the simulated references, the heavy-tail screening, the "
    "UCC gain over a constant band and the flowchart of `results/validate/` read the whole "
    "table in memory; a dataset given as parts is validated part by part (one job per part "
    "and pass), so these jobs were skipped. The stages, verdicts and advice below are those of "
    "`uqval validate` on the same parts.")


def parts_page(result: Any, spec: Mapping[str, Any], index: Mapping[str, Any],
               directory: str | Path) -> dict[str, Any]:
    """The page of a dataset given as parts (:mod:`uqval.pipeline.parts`): the engine's files
    of ``result`` (the :class:`~uqval.validation.ValidationResult` of its parts), the note
    :data:`PARTS_NOTE`, the parts (folder, count, rows stored) and the YAML entry's
    provenance; ``spec`` is the registry entry as plain data, ``index`` the parts' index
    (rule parts_index). Returns ``page.json``."""
    directory = Path(directory)
    counts = result.row_counts or {}
    entry = spec["entry"]
    report = {"id": spec["id"], "title": entry.get("title", spec["id"]),
              "citation": spec.get("citation", ""), "config_file": spec.get("config_file", ""),
              "units": entry.get("units"), "M": counts.get("rows used", 0),
              "n_raw": counts.get("rows in input", 0)}
    parts = pd.DataFrame({"parts": [shown_path(index["source"])], "files": [len(index["files"])],
                          "rows stored": [index["rows_stored"]],
                          "subsample rows": [index["subsample"]],
                          "SHA-256 of the parts": [result.input_sha256 or ""]})
    extra = {"Parts (SHA-256: of the lines 'relative path, TAB, SHA-256 of the file', in "
             "reading order)": parts}
    return _result_page(result, report, directory, extra, result.input_sha256, PARTS_NOTE)


def _features(table: pd.DataFrame, report: Mapping[str, Any]) -> dict[str, Any]:
    return {name: table[f"X_{name}"].to_numpy() for name in report.get("features", {})}


def predictive_result(table: pd.DataFrame, report: Mapping[str, Any], *, seed: int,
                         n_boot: int, n_bins: int | None, n_permutations: int | None,
                         n_workers: int = 1) -> Any:
    """``uqval.validate(y_true, predictive, features)`` of a prepared table, or None for a
    dataset given by E and uE only (:func:`uqval.pipeline.quantities.table_predictive`)."""
    from uqval.pipeline.quantities import table_predictive
    from uqval.validation import validate

    built = table_predictive(table, report)
    if built is None:
        return None
    y, predictive = built
    return validate(y, predictive, _features(table, report) or None, seed=seed, n_boot=n_boot,
                    n_bins=n_bins, n_permutations=n_permutations, n_workers=n_workers,
                    groups=table["G"].to_numpy() if report.get("group") else None)


def _predictive_figures(result: Any, directory: Path) -> list[tuple[str, FigureSection]]:
    from uqval.report.predictive import predictive_figure_specs

    specs = predictive_figure_specs(result)
    return list(zip([s[0] for s in specs], _figures_from_files(directory, specs), strict=True))


def predictive_page(
    table: pd.DataFrame,
    report: Mapping[str, Any],
    directory: str | Path,
    *,
    seed: int,
    n_boot: int,
    n_bins: int | None = None,
    n_permutations: int | None = None,
    extra: Mapping[str, pd.DataFrame] | None = None,
    n_workers: int = 1,
) -> dict[str, Any]:
    """Validate a predictive dataset's prepared table with ``uqval.validate(y_true,
    predictive, features)``, save its files (verdicts.csv with the coverage and shape stages,
    and the variance stages where a variance exists; coverage.csv, data_issues.csv, the PIT
    histogram, coverage-by-level and local coverage figures) to ``directory`` and write
    ``index.html`` and ``page.json``; without a variance the page says which jobs were not
    run (:data:`NO_VARIANCE_NOTE`). Returns the content of ``page.json``."""
    from uqval.report.predictive import predictive_content

    directory = Path(directory)
    result = predictive_result(table, report, seed=seed, n_boot=n_boot, n_bins=n_bins,
                                  n_permutations=n_permutations, n_workers=n_workers)
    if result is None:
        raise ValueError(f"dataset '{report['id']}': no predictive in its prepared table")
    result.save(directory)
    base = predictive_content(result, _predictive_figures(result, directory))
    summary_md = base.summary_markdown
    if result.variance is None:
        summary_md += "\n\n" + NO_VARIANCE_NOTE.format(kind=f"{result.kind} ({report['kind']})")
    content = dataclasses.replace(
        base,
        title=f"Uncertainty validation of {report['id']} ({result.kind})",
        summary_markdown=summary_md,
        tables={**(extra or {}), **base.tables},
        parameters=_page_parameters(report, base.parameters),
        input_sha256=_single_digest(report),
    )
    summary = {
        "id": report["id"],
        "title": report.get("title", report["id"]),
        "M": report["M"],
        "stage_verdicts": result.stage_verdicts,
        "one_line": one_line_summary(result.summary()),
        "scale_factor": (result.variance.scale_factor.value if result.variance is not None
                         else None),
        "kind": result.kind,
    }
    _write_page(directory, content, summary)
    return summary


def interval_page(
    checks: pd.DataFrame,
    summary_markdown: str,
    report: Mapping[str, Any],
    directory: str | Path,
    extra: Mapping[str, pd.DataFrame] | None = None,
    coverage: Any = None,
) -> dict[str, Any]:
    """Page of a dataset given by prediction half-widths: the flowchart's interval checks
    (``results/validate/<id>.csv`` and ``.md``) as ``verdicts.csv``, ``summary.md`` and
    ``index.html``. With ``coverage`` (the :class:`~uqval.validation.PredictiveValidation`
    of E and the intervals (-U_P, U_P), :func:`predictive_result`) the page adds its coverage
    stage: verdict rows (stage ``coverage``), coverage.csv, data_issues.csv, the coverage
    figures, and its full report in ``coverage/``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    testable = checks["testable"] if "testable" in checks else pd.Series(True, checks.index)
    verdicts = checks.assign(verdict=checks["passed"].map({True: "pass", False: "fail"}).where(
        testable.astype(bool), "not testable"))
    verdicts = verdicts.drop(columns=[c for c in ("passed", "testable") if c in verdicts])
    figures: list[FigureSection] = []
    tables = dict(extra or {})
    if coverage is not None:
        from uqval.report.predictive import predictive_content

        coverage.save(directory / "coverage")
        shown = predictive_content(coverage, _predictive_figures(coverage, directory / "coverage"))
        figures = list(shown.figures)
        tables = {**tables, **{f"Coverage stage (uqval): {k}": v for k, v in shown.tables.items()}}
        rows = coverage.verdicts.rename(columns={"feature": "conditioning", "statistic": "test"})
        rows["conditioning"] = rows["conditioning"].fillna("").replace("", "-")
        verdicts = pd.concat([verdicts, rows.drop(columns=["scaled"])], ignore_index=True)
        for name in ("coverage.csv", "data_issues.csv"):
            if (directory / "coverage" / name).is_file():
                shutil.copyfile(directory / "coverage" / name, directory / name)
        summary_markdown = (summary_markdown.rstrip() + "\n\n## Coverage stage (uqval)\n\n"
                            + "\n".join(ln for ln in coverage.summary().splitlines()
                                         if not ln.startswith("# ")))
    write_atomic(directory / "verdicts.csv", lambda fh: verdicts.to_csv(fh, index=False))
    write_atomic(directory / "summary.md", lambda fh: fh.write(summary_markdown))
    stages: dict[str, str] = {}
    for _, row in verdicts.iterrows():
        cond = row.get("conditioning", "-")
        key = row["stage"] if cond in ("-", "") or pd.isna(cond) else f"{row['stage']}: {cond}"
        prev = stages.get(key, VERDICT_ORDER[-1])
        stages[key] = min(prev, row["verdict"], key=VERDICT_ORDER.index)
    content = ReportContent(
        title=f"Uncertainty validation of {report['id']} (prediction intervals)",
        verdicts=verdicts,
        summary_markdown=summary_markdown,
        figures=figures,
        tables=tables,
        parameters=_page_parameters(report, {"rule": "paper (P003 Fig. 1), interval checks"}),
        input_sha256=_single_digest(report),
        row_counts={"rows read": int(report["n_raw"]), "rows used": int(report["M"])},
    )
    lines = [ln for ln in summary_markdown.splitlines() if ln.startswith("- **")]
    summary = {
        "id": report["id"],
        "title": report.get("title", report["id"]),
        "M": report["M"],
        "stage_verdicts": stages,
        "one_line": lines[0][2:] if lines else "",
    }
    _write_page(directory, content, summary)
    return summary


def _badges(stage_verdicts: Mapping[str, str]) -> str:
    """Badges of the stages' verdicts or labels, coloured by kind (pass, fail, inconclusive)."""
    return " ".join(
        f"<span class='badge {badge_kind(v)}' title='{html.escape(k)}: {html.escape(v)}'>"
        f"{html.escape(k)}: {html.escape(v)}</span>"
        for k, v in stage_verdicts.items()
    )


def pages_html(page_files: Sequence[str | Path], relative_to: str | Path) -> str:
    """HTML table of dataset pages, one row each: id and title (linked to the page), the
    verdict badges, the one-line summary (inline markdown rendered, never raw). ``page_files``
    are ``page.json`` files; links are relative to the folder ``relative_to``."""
    if not page_files:
        return (
            "<p class='note'>None yet. Write a YAML file for your data in the <code>datasets_dir</code> "
            "folder (default <code>config/datasets/</code>) and run <code>snakemake --cores 2 validate "
            "--config datasets=&lt;id&gt;</code>.</p>"
        )
    rows = []
    for file in page_files:
        page = json.loads(Path(file).read_text(encoding="utf-8"))
        link = os.path.relpath(Path(file).parent / "index.html", relative_to)
        rows.append(
            f"<tr><td class='text id'><a href='{html.escape(link)}'><code>{html.escape(page['id'])}</code></a>"
            f"<br>{html.escape(str(page.get('title', '')))}</td><td>{page['M']}</td>"
            f"<td class='text verdicts'>{_badges(page['stage_verdicts'])}</td>"
            f"<td class='text summary'>{render_inline(page.get('one_line', ''))}</td></tr>"
        )
    return (
        "<div class='tablewrap'><table class='pages'><thead><tr><th>dataset</th><th>M</th><th>verdicts</th>"
        f"<th>summary</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


PAGES_STYLE = """
body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em;color:#222}
.tablewrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.9em} td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f4f4f4} .badge{display:inline-block;border-radius:3px;padding:0 5px;margin:1px;font-size:.8em;color:#fff;white-space:nowrap}
table.pages td.verdicts{min-width:16em;max-width:26em} table.pages td.summary{min-width:18em}
table.pages td.id{max-width:16em;overflow-wrap:anywhere}
.pass{background:#2ca02c}.fail{background:#d62728}.inconclusive{background:#ff7f0e}.note{color:#555}
"""
"""Style of the list of dataset pages (also in the gallery's style): the verdict badges wrap
inside a column of at least 16em and the summary gets at least 18em, so that a row stays a
few lines tall; the table scrolls sideways inside its wrapper on a narrow screen."""


def pages_present(root: str | Path, pages: Sequence[str | Path]) -> list[Path]:
    """``pages`` and every other ``<root>/<id>/page.json`` already present (pages of earlier
    runs), each once, sorted by folder name; links and non-regular files are passed over.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for name in ("b", "a"):
    ...     (root / name).mkdir(); _ = (root / name / "page.json").write_text("{}")
    >>> [p.parent.name for p in pages_present(root, [root / "b" / "page.json"])]
    ['a', 'b']
    """
    found = {Path(p) for p in pages}
    for path in Path(root).glob("*/page.json"):
        if path.is_file() and not path.is_symlink() and not path.parent.is_symlink():
            found.add(path)
    return sorted(found, key=lambda p: p.parent.name)


def pages_index(page_files: Sequence[str | Path], directory: str | Path) -> str:
    """``results/datasets/index.html``: the list of dataset pages (:func:`pages_html`)."""
    intro = render_markdown(
        "Each row links to the dataset's page: verdicts, plain-language summary, figures, "
        "simulated references, heavy-tail screening and UCC gain."
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'><title>uqval: your datasets"
        f"</title><style>{PAGES_STYLE}</style></head><body><h1>Your datasets</h1>{intro}"
        f"{pages_html(page_files, directory)}</body></html>\n"
    )
