"""Static results gallery (``results/index.html``) and the per-rule runtime table.

The gallery needs no server: every figure and table of the five papers under its stable id
(``<paper>_<fig|tab>``), with the caption of ``workflow/report/<id>.rst`` (what the paper shows
there), the rule, datasets and parameters that produced it, and the reproduction-scoreboard
status of the numbers the paper prints for it. Items are described by the workflow (its
``report()``-tagged outputs), so the gallery and Snakemake's own report never disagree.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from uqval.pipeline.dataset_page import pages_html
from uqval.pipeline.scoreboard import STATUSES
from uqval.report import render_markdown

PAPER_ORDER = ["Datasets", "heavytails", "primer", "adaptivity", "simref", "ucc", "validation", "Reproduction", "Runtime"]
PAPER_TITLES = {
    "Datasets": "Datasets",
    "validation": "Validation of every dataset (flowchart verdicts)",
    "Reproduction": "Reproduction scoreboard",
    "Runtime": "Runtime per rule",
    "heavytails": "Heavy tails and average calibration (heavy-tails)",
    "primer": "Conditional calibration primer (primer)",
    "adaptivity": "Adaptivity validation (adaptivity)",
    "simref": "Simulated reference values (simref)",
    "ucc": "Uncertainty Characteristics Curves (UCC)",
}
STATUS_ORDER = list(STATUSES)


@dataclass(frozen=True)
class GalleryItem:
    """One report-tagged output: a figure (PNG, with its PDF beside it) or a table (CSV)."""

    item_id: str
    category: str
    path: str
    rule: str
    inputs: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "figure" if self.path.endswith(".png") else "table"


def datasets_in(paths: Iterable[str], dataset_ids: Iterable[str]) -> list[str]:
    """Dataset ids named by a path component (``<id>``, ``<id>.csv``, ``<id>_zeta.csv``...).

    Longest ids are tried first so that ``QM9_E_cal`` is not mistaken for a prefix match of a
    longer id; the result keeps the order of first appearance.
    """
    ids = sorted(set(dataset_ids), key=len, reverse=True)
    if not ids:
        return []
    pattern = re.compile(r"(?:^|/)(" + "|".join(map(re.escape, ids)) + r")(?=[_.]|/|$)")
    found: list[str] = []
    for path in paths:
        for match in pattern.finditer(str(path)):
            if match.group(1) not in found:
                found.append(match.group(1))
    return found


def benchmark_rule(path: str, patterns: Mapping[str, str]) -> str | None:
    """Rule whose ``benchmark:`` pattern (wildcards in braces) matches ``path``.

    Patterns with fewer wildcards are tried first, so ``screen/nig_curve.tsv`` belongs to the
    rule that names it literally rather than to ``screen/{dataset}.tsv``.
    """
    def regex(pattern: str) -> re.Pattern[str]:
        parts = re.split(r"\{[^{}]*\}", pattern)
        return re.compile("[^/]+".join(map(re.escape, parts)) + "$")

    for rule, pattern in sorted(patterns.items(), key=lambda kv: (kv[1].count("{"), kv[0])):
        if regex(pattern).fullmatch(path):
            return rule
    return None


def runtime_table(benchmark_files: Iterable[str | Path], patterns: Mapping[str, str]) -> pd.DataFrame:
    """Per-rule wall time and memory from Snakemake ``benchmark:`` files.

    Columns: rule, jobs, total_s (sum of wall-clock seconds), max_s, mean_s, cpu_s (sum of the
    ``cpu_time`` column), max_rss_mb; sorted by total_s, largest first.
    """
    rows = []
    for file in benchmark_files:
        rule = benchmark_rule(Path(file).as_posix(), patterns)
        bench = pd.read_csv(file, sep="\t")
        if rule is None or bench.empty:
            continue
        last = bench.iloc[-1]
        rows.append(
            {
                "rule": rule,
                "s": float(last["s"]),
                "cpu_s": float(pd.to_numeric(last["cpu_time"], errors="coerce")),
                "max_rss": float(pd.to_numeric(last["max_rss"], errors="coerce")),
            }
        )
    columns = ["rule", "jobs", "total_s", "max_s", "mean_s", "cpu_s", "max_rss_mb"]
    if not rows:
        return pd.DataFrame(columns=columns)
    df = pd.DataFrame(rows)
    table = df.groupby("rule").agg(
        jobs=("s", "size"),
        total_s=("s", "sum"),
        max_s=("s", "max"),
        mean_s=("s", "mean"),
        cpu_s=("cpu_s", "sum"),
        max_rss_mb=("max_rss", "max"),
    )
    table = table.reset_index().sort_values(["total_s", "rule"], ascending=[False, True])
    return table.round(2)[columns].reset_index(drop=True)


def caption_html(rst_file: str | Path) -> str:
    """A caption written in reStructuredText, as an HTML fragment (docutils, as Snakemake does)."""
    from docutils.core import publish_parts

    text = Path(rst_file).read_text()
    parts = publish_parts(text, writer="html5", settings_overrides={"report_level": 5})
    return parts["body"]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value:.6g}"
    return html.escape(str(value))


LONG_TEXT = 60
"""Text cells longer than this (characters) get a column of 24em to 40em."""


def _table_html(df: pd.DataFrame, max_rows: int = 60) -> str:
    shown = df.head(max_rows)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    def cell(value: Any) -> str:
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if numeric:
            return f"<td>{_fmt(value)}</td>"
        text = _fmt(value)  # a long text (a citation) gets a wide column: a row stays low
        return f"<td class='text long'>{text}</td>" if len(text) > LONG_TEXT else f"<td class='text'>{text}</td>"

    body = "".join("<tr>" + "".join(cell(v) for v in row) + "</tr>" for row in shown.itertuples(index=False))
    more = f"<p class='note'>{len(df) - max_rows} more rows in the CSV.</p>" if len(df) > max_rows else ""
    return (
        f"<div class='tablewrap'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}"
    )


def _status_badges(rows: pd.DataFrame) -> str:
    counts = rows["status"].value_counts()
    badges = [
        f"<span class='badge {s}'>{int(counts[s])} {s.replace('_', ' ')}</span>"
        for s in STATUS_ORDER
        if s in counts
    ]
    return " ".join(badges) if badges else "<span class='badge none'>no printed values</span>"


def _scoreboard_html(rows: pd.DataFrame) -> str:
    if rows.empty:
        return "<p class='note'>The paper prints no number for this item.</p>"
    cols = ["quantity", "expected", "obtained", "tolerance", "tolerance_class", "status", "note"]
    return (
        f"<details><summary>Scoreboard: {_status_badges(rows)}</summary>"
        f"{_table_html(rows[cols], max_rows=400)}</details>"
    )


def _params_html(params: Mapping[str, Any]) -> str:
    if not params:
        return "none"
    return "; ".join(
        f"<code>{html.escape(k)}</code> = <code>{html.escape(json.dumps(v, default=str))}</code>"
        for k, v in params.items()
    )


def _file_html(item: GalleryItem, root: Path) -> str:
    rel = os.path.relpath(root / item.path, root / "results")
    if item.kind == "table":
        return f"{_table_html(pd.read_csv(root / item.path))}<p><a href='{html.escape(rel)}'>CSV</a></p>"
    pdf = Path(item.path).with_suffix(".pdf")
    pdf_link = (
        f" (<a href='{html.escape(os.path.relpath(root / pdf, root / 'results'))}'>PDF</a>)"
        if (root / pdf).exists()
        else ""
    )
    return f"<a href='{html.escape(rel)}'><img src='{html.escape(rel)}' alt='{item.item_id}'></a>{pdf_link}"


def _item_html(
    group: Sequence[GalleryItem], root: Path, captions: Path, board: pd.DataFrame, datasets: list[str]
) -> str:
    """One item id: caption, its files (figures first, then tables), provenance, scoreboard."""
    item_id = group[0].item_id
    caption_file = captions / f"{item_id}.rst"
    caption = caption_html(caption_file) if caption_file.exists() else "<p class='note'>no caption</p>"
    files = sorted(group, key=lambda it: (it.kind != "figure", it.path))
    body = "".join(_file_html(it, root) for it in files)
    provenance = []
    for rule in dict.fromkeys(it.rule for it in files):
        first = next(it for it in files if it.rule == rule)
        used = datasets_in([p for it in files if it.rule == rule for p in it.inputs], datasets)
        provenance.append(
            f"<p class='prov'>Rule <code>{html.escape(rule)}</code>; datasets: "
            f"{', '.join(f'<code>{d}</code>' for d in used) if used else 'none (simulated)'}; "
            f"parameters: {_params_html(first.params)}</p>"
        )
    rows = board[board["item"] == item_id]
    return (
        f"<section class='item' id='{item_id}'><h3>{item_id} "
        f"<a class='anchor' href='#{item_id}'>#</a></h3>{caption}{body}{''.join(provenance)}"
        f"{_scoreboard_html(rows)}</section>"
    )


STYLE = """
*{box-sizing:border-box}
body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em;color:#222;overflow-wrap:break-word}
h1{font-size:1.5em} h2{border-bottom:2px solid #1f77b4;padding-top:1em} h3{margin-bottom:.2em}
img{max-width:100%;border:1px solid #ddd} table{border-collapse:collapse;font-size:.8em;margin:.4em 0}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;max-width:22em} th{background:#f4f4f4}
td.text{text-align:left;white-space:nowrap} td.long{white-space:normal;min-width:24em;max-width:40em;overflow-wrap:anywhere}
td,th{vertical-align:top} .item td.text:not(.long){max-width:none} .tablewrap{overflow:auto;max-height:32em;max-width:100%;margin:.4em 0}
details summary{cursor:pointer} details{max-width:100%}
.item{border-top:1px solid #ddd;padding:.5em 0 1em} .prov,.note{font-size:.85em;color:#555}
.badge{display:inline-block;border-radius:3px;padding:0 5px;font-size:.8em;color:#fff}
.pass{background:#2ca02c}.fail{background:#d62728}.missing{background:#ff7f0e}
.not_reproducible{background:#7f7f7f}.needs_download{background:#8c564b}
.paper_inconsistency{background:#9467bd}.inconclusive{background:#ff7f0e}.not_at_this_fidelity{background:#17becf}.none{background:#bbb} a.anchor{color:#bbb;text-decoration:none}
pre{background:#f7f7f7;padding:.5em;white-space:pre-wrap;overflow-x:auto;max-width:100%}
table.pages td.text{white-space:normal} table.pages td.verdicts{min-width:16em;max-width:26em} table.pages td.summary{min-width:18em}
table.pages td.id{max-width:16em;overflow-wrap:anywhere} .badge{white-space:nowrap;margin:1px}
@media (max-width:760px){body{padding:.5em} td,th{max-width:14em}}
"""


def build_gallery(
    items: Sequence[GalleryItem],
    *,
    root: str | Path,
    captions_dir: str | Path,
    scoreboard: pd.DataFrame,
    summary_text: str,
    dataset_ids: Iterable[str],
    profile: str,
    dataset_reports: Sequence[str] = (),
    dataset_pages: Sequence[str] = (),
) -> str:
    """The HTML text of ``results/index.html``.

    ``root`` is the workflow directory (paths of ``items`` are relative to it); links are
    relative to ``results/`` so the folder can be copied or served as it is. ``dataset_reports``
    are the per-dataset validation summaries (``results/validate/<id>.md``), rendered in their
    own section. ``dataset_pages`` are the ``page.json`` files of the user's dataset pages
    (``results/datasets/<id>/``), listed first under "Your datasets".
    """
    root, captions = Path(root), Path(captions_dir)
    datasets = list(dataset_ids)
    by_category: dict[str, list[GalleryItem]] = {}
    for item in items:
        by_category.setdefault(item.category, []).append(item)
    order = [c for c in PAPER_ORDER if c in by_category] + sorted(c for c in by_category if c not in PAPER_ORDER)
    toc, sections = [], []
    for category in order:
        title = PAPER_TITLES.get(category, category)
        groups: dict[str, list[GalleryItem]] = {}
        for it in by_category[category]:
            groups.setdefault(it.item_id, []).append(it)
        shown = sorted(groups, key=_natural_key)
        toc.append(
            f"<li><a href='#{category}'>{html.escape(title)}</a>: "
            + ", ".join(f"<a href='#{item_id}'>{item_id}</a>" for item_id in shown)
            + "</li>"
        )
        blocks = [_item_html(groups[item_id], root, captions, scoreboard, datasets) for item_id in shown]
        other = scoreboard[(scoreboard["paper"] == category) & ~scoreboard["item"].isin(shown)]
        for item_id, rows in sorted(other.groupby("item"), key=lambda kv: _natural_key(kv[0])):
            blocks.append(
                f"<section class='item' id='{item_id}'><h3>{item_id}</h3>"
                f"<p class='note'>Values printed in the paper without a figure or table of their own "
                f"here (text, or items that need data not available).</p>{_scoreboard_html(rows)}</section>"
            )
        sections.append(f"<h2 id='{category}'>{html.escape(title)}</h2>{''.join(blocks)}")
    if dataset_reports:
        summaries = "".join(
            f"<details><summary><code>{html.escape(Path(r).stem)}</code> (<a href='"
            f"{html.escape(os.path.relpath(root / r, root / 'results'))}'>Markdown</a>)</summary>"
            f"{render_markdown((root / r).read_text(encoding='utf-8'), heading_offset=2)}</details>"
            for r in dataset_reports
        )
        toc.append("<li><a href='#per-dataset'>Validation summary of every dataset</a></li>")
        sections.append(
            "<h2 id='per-dataset'>Validation summary of every dataset</h2><p>Average calibration, "
            "consistency and adaptivity checks (validation flowchart) of each built dataset, "
            f"with the parameters used:</p>{summaries}"
        )
    yours = (
        "<h2 id='your-datasets'>Your datasets</h2>"
        + pages_html([root / p for p in dataset_pages], root / "results")
    )
    toc.insert(0, "<li><a href='#your-datasets'>Your datasets</a></li>")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'><title>uqval results</title>"
        f"<style>{STYLE}</style></head><body><h1>uqval: reproduction of five UQ-validation papers</h1>"
        f"<p>Profile <code>{html.escape(profile)}</code>. Every figure and table of the papers under its stable "
        "id, with the caption of what the paper shows, the rule, datasets and parameters that made it, and "
        "the status of the paper's printed numbers in the reproduction scoreboard "
        "(<a href='reproduction.csv'>reproduction.csv</a>).</p>"
        f"<pre>{html.escape(summary_text.strip())}</pre><ul>{''.join(toc)}</ul>"
        f"{yours}{''.join(sections)}</body></html>\n"
    )


def _natural_key(text: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]
