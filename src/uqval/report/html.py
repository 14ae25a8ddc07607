"""One self-contained HTML page of a validation report.

The page needs nothing but itself: CSS is inline, figures are embedded as base64 PNG data
URIs, there is no script and no link to an external resource, so it opens offline and can
be mailed or archived as one file. Every piece of user text (title, summary, table cells,
parameter values) is HTML-escaped. Page order: verdicts (coloured badges), summary,
figures (each with "how to read this"), tables, glossary, parameters and provenance
(package version, input SHA-256, row counts).
"""

from __future__ import annotations

import base64
import html
import math
import struct
from collections.abc import Mapping
from numbers import Integral, Real
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import atomic_path
from uqval.report.content import PNG_SIGNATURE, FigureSection, ReportContent
from uqval.report.markdown import render_inline, render_markdown
from uqval.report.texts import GLOSSARY

__all__ = ["TABLES_SECTION", "VERDICTS", "insert_tables", "render_html", "write_html"]

VERDICTS = ("pass", "fail", "inconclusive")
"""Verdict values shown as coloured badges (others are shown as grey badges)."""

CSS = """
:root { --pass: #1a7f37; --fail: #c62828; --inconclusive: #9a6700; --line: #d8dee4;
        --muted: #57606a; --bg-soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
       sans-serif; color: #1f2328; background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
header { border-bottom: 2px solid var(--line); margin-bottom: 8px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 32px 0 12px; padding-bottom: 4px;
     border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 18px 0 6px; }
h4, h5, h6 { font-size: 15px; margin: 14px 0 4px; }
.meta { color: var(--muted); font-size: 13px; margin: 0 0 12px; }
nav { font-size: 13px; margin: 8px 0 0; }
nav a { color: #0969da; text-decoration: none; margin-right: 14px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
th { background: var(--bg-soft); text-align: left; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.row-fail td { background: #fff5f5; }
tr.row-inconclusive td { background: #fffbeb; }
.badge { display: inline-block; min-width: 92px; text-align: center; padding: 1px 8px;
         border-radius: 10px; color: #fff; font-weight: 600; font-size: 12px;
         letter-spacing: 0.02em; background: var(--muted); }
.badge.pass { background: var(--pass); }
.badge.fail { background: var(--fail); }
.badge.inconclusive { background: var(--inconclusive); }
.counts { font-size: 14px; margin: 0 0 8px; }
.counts .badge { min-width: 0; margin-right: 4px; }
.summary { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px;
           padding: 4px 20px 8px; }
.summary h2, .summary h3 { border: 0; margin-top: 14px; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
       background: #eff1f3; padding: 1px 4px; border-radius: 4px; }
pre { background: var(--bg-soft); padding: 10px; overflow-x: auto; border-radius: 6px; }
pre code { background: none; padding: 0; }
blockquote { margin: 8px 0; padding: 0 12px; border-left: 4px solid var(--line);
             color: var(--muted); }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
           gap: 20px 28px; }
figure { margin: 0; padding: 10px 12px; border: 1px solid var(--line); border-radius: 6px;
         break-inside: avoid; }
figure h3 { margin-top: 0; }
figure img { display: block; max-width: 100%; height: auto; margin: 6px auto 0; }
.how { font-size: 13px; color: #3b434b; margin: 0; min-height: 3em; }
.scroll { max-height: 460px; overflow: auto; display: inline-block; max-width: 100%;
          border-bottom: 1px solid var(--line); }
.scroll table { margin: 0; }
td.long { min-width: 22em; }
.scroll th { position: sticky; top: 0; }
dl.glossary { display: grid; grid-template-columns: max-content 1fr; gap: 6px 18px;
              font-size: 14px; }
dl.glossary dt { font-weight: 600; }
dl.glossary dd { margin: 0; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
        word-break: break-all; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media print { .scroll { max-height: none; overflow: visible; } }
"""


# --- values and tables --------------------------------------------------------------------


def _format(value: object) -> tuple[str, bool]:
    """Escaped text of a table cell and whether it is numeric (right-aligned)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—", True
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, Integral):
        return str(int(value)), True
    if isinstance(value, Real):
        x = float(value)
        if math.isinf(x):
            return ("∞" if x > 0 else "−∞"), True
        text = f"{x:.3g}" if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3) else f"{x:.4g}"
        return html.escape(text.replace("-", "−")), True
    if value is pd.NA or value is pd.NaT:
        return "—", True
    return html.escape(str(value)), False


LABEL_KINDS = {"right": "pass", "right within the tolerance": "pass", "not right": "fail",
               "inconclusive": "inconclusive"}
"""Badge colour of each label of the judgement (``stages.csv``)."""


def _badge(verdict: object) -> str:
    text = str(verdict)
    kind = text if text in VERDICTS else LABEL_KINDS.get(text, "other")
    return f'<span class="badge {kind}">{html.escape(text)}</span>'


LONG_CELL = 40
"""Text cells longer than this (characters) get a minimum width (class ``long``)."""


def _table(df: pd.DataFrame, badge_column: str | None = None, max_rows: int = 500) -> str:
    """A DataFrame as an HTML table (index dropped unless named); numbers right-aligned."""
    frame = df.reset_index() if any(name is not None for name in df.index.names) else df
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for record in frame.head(max_rows).itertuples(index=False, name=None):
        cells = []
        row_class = ""
        for column, value in zip(frame.columns, record, strict=True):
            if column == badge_column:
                cells.append(f"<td>{_badge(value)}</td>")
                if str(value) in ("fail", "inconclusive"):
                    row_class = f' class="row-{value}"'
                continue
            text, numeric = _format(value)
            if numeric:
                cells.append(f'<td class="num">{text}</td>')
            else:  # a sentence gets room to read instead of one word per line
                cells.append(f'<td class="long">{text}</td>' if len(text) > LONG_CELL
                             else f"<td>{text}</td>")
        rows.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    more = ""
    if len(frame) > max_rows:
        more = f'<p class="meta">First {max_rows} of {len(frame)} rows shown.</p>'
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f'<div class="scroll">{table}</div>{more}'


def _key_values(pairs: Mapping[str, object]) -> str:
    rows = []
    for key, value in pairs.items():
        text, numeric = _format(value)
        cell = f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>"
        rows.append(f"<tr><th>{html.escape(str(key))}</th>{cell}</tr>")
    return f"<table><tbody>{''.join(rows)}</tbody></table>"


# --- sections -----------------------------------------------------------------------------


def _verdicts(verdicts: pd.DataFrame, overview: pd.DataFrame | None = None) -> str:
    if verdicts.empty:
        return "<p>No test was run.</p>"
    if "verdict" not in verdicts.columns:
        return _table(verdicts)
    counts = verdicts["verdict"].astype(str).value_counts()
    tally = " ".join(
        f"{_badge(kind)}{int(counts.get(kind, 0))}"
        for kind in (*VERDICTS, *sorted(set(counts.index) - set(VERDICTS)))
        if kind in counts.index or kind in VERDICTS
    )
    full = f'<p class="counts">{tally}</p>{_table(verdicts, badge_column="verdict")}'
    if overview is None or overview.empty:
        return full
    badge = "label" if "label" in overview.columns else "verdict"
    return (f'{_table(overview, badge_column=badge)}<details><summary>All '
            f"{len(verdicts)} tests</summary>{full}</details>")


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG header (IHDR chunk)."""
    return struct.unpack(">II", png[16:24])


def _figure(index: int, section: FigureSection) -> str:
    if not isinstance(section.png, bytes | bytearray) or not section.png.startswith(
        PNG_SIGNATURE
    ) or len(section.png) < 24:
        raise ValueError(f"figures[{index}].png ({section.title!r}) is not PNG data")
    width, height = _png_size(bytes(section.png))
    data = base64.b64encode(section.png).decode("ascii")
    title = html.escape(section.title)
    return (
        f'<figure id="figure-{index + 1}"><h3>{title}</h3>'
        f'<p class="how"><strong>How to read this:</strong> {render_inline(section.how_to_read)}'
        f'</p><img src="data:image/png;base64,{data}" alt="{title}" width="{width}" '
        f'height="{height}"></figure>'
    )


def _glossary() -> str:
    items = "".join(
        f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>"
        for term, text in GLOSSARY.items()
    )
    return f'<dl class="glossary">{items}</dl>'


def _provenance(content: ReportContent) -> str:
    sha = (
        f'<span class="mono">{html.escape(content.input_sha256)}</span>'
        if content.input_sha256
        else "not recorded (the data were given as arrays)"
    )
    parts = [
        "<h3>Parameters</h3>",
        _key_values(content.parameters) if content.parameters else "<p>Defaults.</p>",
        "<h3>Input</h3>",
        f"<p>uqval version {html.escape(content.version)}<br>Input file SHA-256: {sha}</p>",
    ]
    if content.row_counts:
        parts += ["<h3>Rows</h3>", _key_values(content.row_counts)]
    return "".join(parts)


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{body}</section>'


def render_html(content: ReportContent) -> str:
    """The report as one self-contained HTML document (see the module docstring).

    Raises:
        ValueError: if a figure's ``png`` is not PNG data (naming ``figures[i].png``).
    """
    figures = "".join(_figure(i, f) for i, f in enumerate(content.figures))
    sections = [
        ("summary", "Summary",
         f'<div class="summary">{render_markdown(content.summary_markdown, 2)}</div>'),
        ("verdicts", "Verdicts", _verdicts(content.verdicts, content.stage_overview)),
    ]
    if content.figures:
        sections.append(("figures", "Figures", f'<div class="figures">{figures}</div>'))
    if content.tables:
        sections.append(("tables", "Tables", _tables_html(content.tables)))
    sections += [
        ("glossary", "Glossary", _glossary()),
        ("provenance", "Parameters and provenance", _provenance(content)),
    ]
    nav = "".join(f'<a href="#{a}">{html.escape(t)}</a>' for a, t, _ in sections)
    title = html.escape(content.title)
    body = "".join(_section(*s) for s in sections)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{CSS}</style></head><body><main>"
        f'<header><h1>{title}</h1><p class="meta">Uncertainty validation report · uqval '
        f"{html.escape(content.version)}</p><nav>{nav}</nav></header>{body}"
        f"<footer>Made by uqval {html.escape(content.version)}. Self-contained page: "
        "no script, no external resource.</footer></main></body></html>\n"
    )


def _tables_html(tables: Mapping[str, pd.DataFrame]) -> str:
    return "".join(f"<h3>{html.escape(name)}</h3>{_table(df)}" for name, df in tables.items())


TABLES_SECTION = _section("tables", "Tables", "")[: -len("</section>")]
"""How :func:`render_html`'s Tables section starts (its first table follows)."""


def insert_tables(page: str, tables: Mapping[str, pd.DataFrame]) -> str:
    """A page of :func:`render_html` with ``tables`` put first in its Tables section.

    The result is the document ``render_html`` gives for the same content with ``tables``
    before its own tables (sections are concatenated, so this is exact: tested). A pipeline
    job renders a dataset's report while other jobs still compute tables of that page.

    Raises:
        ValueError: if ``page`` has no Tables section (its content had no tables).
    """
    at = page.find(TABLES_SECTION)
    if at < 0:
        raise ValueError("the page has no Tables section to insert tables into")
    at += len(TABLES_SECTION)
    return page[:at] + _tables_html(tables) + page[at:]


def write_html(content: ReportContent, path: str | Path) -> Path:
    """Write :func:`render_html` of ``content`` to ``path`` as UTF-8, atomically."""
    page = render_html(content).encode("utf-8")
    dest = Path(path)
    with atomic_path(dest, suffix=".html") as tmp:
        tmp.write_bytes(page)
    return dest
