"""One self-contained HTML page of a validation report.

The page needs nothing but itself: CSS is inline, figures are embedded as base64 PNG data
URIs, there is no script and no link to an external resource, so it opens offline and can
be mailed or archived as one file. Every piece of user text (title, summary, table cells,
parameter values) is HTML-escaped. Page order: summary, verdicts (coloured badges),
figures (each with "how to read this"), tables, glossary, parameters and provenance
(package version, input SHA-256, row counts).

With a first screen (:class:`uqval.report.content.FirstScreen`) the page opens with the
answer in a few lines, one figure and the actions beside it (below it on a narrow screen);
every other section is then collapsed (``<details>``) under it. The layout holds from 390 to
1280 px without horizontal scrolling (checked in headless Chromium:
tests/test_report_browser.py).
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
from uqval.report.content import PNG_SIGNATURE, FigureSection, FirstScreen, ReportContent
from uqval.report.markdown import render_inline, render_markdown
from uqval.report.texts import GLOSSARY

__all__ = ["MAX_FIRST_ACTIONS", "TABLES_SECTION", "TABLES_SECTION_COLLAPSED", "VERDICTS",
           "badge_kind", "insert_tables", "render_html",
           "write_html"]

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
nav a { color: #0969da; text-decoration: none; margin-right: 14px; display: inline-block;
        white-space: nowrap; }
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
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(520px, 100%), 1fr));
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
.first { margin: 12px 0 8px; }
.answer { margin: 0 0 14px; }
.answer p { margin: 0 0 6px; font-size: 16px; }
.answer .badge { margin-right: 6px; min-width: 84px; }
.answer p.check { font-size: 14px; border-left: 3px solid #b26a00; padding-left: 8px; }
.lead { display: grid; grid-template-columns: minmax(0, 600px) minmax(0, 1fr); gap: 8px 28px;
        align-items: start; }
.lead figure { padding: 8px 10px; }
.lead figure img { margin: 0 auto; }
.lead figcaption { font-size: 13px; color: #3b434b; margin: 4px 0 0; }
.lead figcaption strong { color: #1f2328; }
.actions h2 { margin: 0 0 8px; font-size: 18px; }
.actions ol { margin: 0; padding-left: 22px; }
.actions li { margin: 0 0 8px; }
nav.more { margin: 18px 0 0; font-size: 14px; border-top: 2px solid var(--line);
           padding-top: 8px; }
section > details > summary { cursor: pointer; border-bottom: 1px solid var(--line);
                              margin: 14px 0 10px; }
section > details > summary h2 { display: inline-block; margin: 6px 0 4px; border: 0;
                                 padding: 0; font-size: 18px; }
section > details > summary .hint { color: var(--muted); font-size: 13px; margin-left: 8px; }
@media (max-width: 760px) {
  main { padding: 6px 12px 40px; }
  h1 { font-size: 21px; margin: 2px 0 2px; }
  .meta { margin: 0 0 6px; }
  header .meta { display: none; }
  header { margin-bottom: 4px; }
  .answer p { font-size: 14px; margin: 0 0 4px; line-height: 1.4; }
  .answer .badge { min-width: 0; }
  .how-lead { display: none; }
  .lead figcaption { font-size: 12px; margin: 2px 0 0; }
  .lead { grid-template-columns: minmax(0, 1fr); }
  .lead figure { padding: 4px; border: 0; }
  .actions h2 { font-size: 16px; margin: 2px 0 4px; }
  .actions { font-size: 13px; line-height: 1.4; }
  .actions li { margin: 0 0 4px; }
  .figures { grid-template-columns: minmax(0, 1fr); }
  dl.glossary { grid-template-columns: minmax(0, 1fr); }
  td.long { min-width: 14em; }
}
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


def badge_kind(verdict: object) -> str:
    """The badge class of a verdict (pass, fail, inconclusive) or of a judgement label
    (:data:`LABEL_KINDS`); ``other`` (grey) for anything else.

    >>> badge_kind("fail"), badge_kind("right within the tolerance"), badge_kind("<b>")
    ('fail', 'pass', 'other')
    """
    text = str(verdict)
    return text if text in VERDICTS else LABEL_KINDS.get(text, "other")


def _badge(verdict: object) -> str:
    return f'<span class="badge {badge_kind(verdict)}">{html.escape(str(verdict))}</span>'


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


def _checked_png(index: int, section: FigureSection) -> bytes:
    if not isinstance(section.png, bytes | bytearray) or not section.png.startswith(
        PNG_SIGNATURE
    ) or len(section.png) < 24:
        raise ValueError(f"figures[{index}].png ({section.title!r}) is not PNG data")
    return bytes(section.png)


def _figure(index: int, section: FigureSection, lead: bool = False) -> str:
    """One figure of the Figures section; ``lead``: the figure is on the first screen, so
    it is linked there instead of embedded twice."""
    png = _checked_png(index, section)
    title = html.escape(section.title)
    how = (f'<p class="how"><strong>How to read this:</strong> '
           f"{render_inline(section.how_to_read)}</p>")
    if lead:
        return (f'<figure id="figure-{index + 1}"><h3>{title}</h3>{how}<p>Shown at the top '
                'of the page (<a href="#lead-figure">the figure</a>).</p></figure>')
    width, height = _png_size(png)
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure id="figure-{index + 1}"><h3>{title}</h3>{how}'
        f'<img src="data:image/png;base64,{data}" alt="{title}" width="{width}" '
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


def _section_head(anchor: str, title: str, collapsed: bool) -> str:
    """A section's opening tags up to its body: open, or collapsed under a ``<details>``
    whose summary is the heading."""
    if not collapsed:
        return f'<section id="{anchor}"><h2>{html.escape(title)}</h2>'
    return (f'<section id="{anchor}"><details><summary><h2>{html.escape(title)}</h2>'
            '<span class="hint">show</span></summary>')


def _section(anchor: str, title: str, body: str, collapsed: bool = False) -> str:
    tail = "</details></section>" if collapsed else "</section>"
    return f"{_section_head(anchor, title, collapsed)}{body}{tail}"


MAX_FIRST_ACTIONS = 3
"""Actions listed on the first screen; the others are counted there and listed in the
summary's "Next step"."""


def _first_screen(screen: FirstScreen, figures: list[FigureSection]) -> str:
    """The answer lines, the one figure and the actions (module docstring)."""
    lines = "".join(
        f"<p>{_badge(line.label) if line.label else ''}<strong>{html.escape(line.head)}</strong>"
        + (f": {render_inline(line.detail)}" if line.detail else "") + "</p>"
        for line in screen.answer)
    if screen.checks:
        lines += ('<p class="check"><strong>Check your input.</strong> '
                  + " ".join(html.escape(c[:1].upper() + c[1:] + ".") for c in screen.checks)
                  + "</p>")
    figure = ""
    if screen.figure is not None:
        if not 0 <= screen.figure < len(figures):
            raise ValueError(f"first_screen.figure = {screen.figure} is not the index of a "
                             f"figure (the content has {len(figures)})")
        section = figures[screen.figure]
        png = _checked_png(screen.figure, section)
        width, height = _png_size(png)
        title = html.escape(section.title)
        why = f" {render_inline(screen.why_figure)}" if screen.why_figure else ""
        figure = (f'<figure id="lead-figure"><img src="data:image/png;base64,'
                  f'{base64.b64encode(png).decode("ascii")}" alt="{title}" width="{width}" '
                  f'height="{height}"><figcaption><strong>{title}</strong>.{why} '
                  f'<span class="how-lead">{render_inline(section.how_to_read)}</span>'
                  "</figcaption></figure>")
    shown = screen.actions[:MAX_FIRST_ACTIONS]
    items = "".join(f"<li>{render_inline(a)}</li>" for a in shown)
    more = len(screen.actions) - len(shown)
    rest = (f'<p class="meta">{more} more: see <a href="#summary">Summary</a>, Next step.</p>'
            if more > 0 else "")
    actions = (f'<div class="actions" id="actions"><h2>What to do</h2><ol>{items}</ol>{rest}'
               "</div>" if shown else "")
    return (f'<section id="answer" class="first"><div class="answer">{lines}</div>'
            f'<div class="lead">{figure}{actions}</div></section>')


def render_html(content: ReportContent) -> str:
    """The report as one self-contained HTML document (see the module docstring).

    Raises:
        ValueError: if a figure's ``png`` is not PNG data (naming ``figures[i].png``), or
            the first screen names a figure that does not exist.
    """
    screen = content.first_screen
    lead = None if screen is None else screen.figure
    figures = "".join(_figure(i, f, lead=i == lead) for i, f in enumerate(content.figures))
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
    nav = " ".join(f'<a href="#{a}">{html.escape(t)}</a>' for a, t, _ in sections)
    title = html.escape(content.title)
    collapsed = screen is not None
    body = "".join(_section(*s, collapsed=collapsed) for s in sections)
    if screen is None:
        top = f"<nav>{nav}</nav></header>"
    else:
        top = (f"</header>{_first_screen(screen, content.figures)}"
               f'<nav class="more">Everything else (click to open): {nav}</nav>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{CSS}</style></head><body><main>"
        f'<header><h1>{title}</h1><p class="meta">Uncertainty validation report · uqval '
        f"{html.escape(content.version)}</p>{top}{body}"
        f"<footer>Made by uqval {html.escape(content.version)}. Self-contained page: "
        "no script, no external resource.</footer></main></body></html>\n"
    )


def _tables_html(tables: Mapping[str, pd.DataFrame]) -> str:
    return "".join(f"<h3>{html.escape(name)}</h3>{_table(df)}" for name, df in tables.items())


TABLES_SECTION = _section_head("tables", "Tables", collapsed=False)
"""How :func:`render_html`'s Tables section starts (its first table follows)."""

TABLES_SECTION_COLLAPSED = _section_head("tables", "Tables", collapsed=True)
"""The same on a page with a first screen (the section collapsed)."""


def insert_tables(page: str, tables: Mapping[str, pd.DataFrame]) -> str:
    """A page of :func:`render_html` with ``tables`` put first in its Tables section.

    The result is the document ``render_html`` gives for the same content with ``tables``
    before its own tables (sections are concatenated, so this is exact: tested). A pipeline
    job renders a dataset's report while other jobs still compute tables of that page.

    Raises:
        ValueError: if ``page`` has no Tables section (its content had no tables).
    """
    for head in (TABLES_SECTION, TABLES_SECTION_COLLAPSED):
        at = page.find(head)
        if at >= 0:
            at += len(head)
            return page[:at] + _tables_html(tables) + page[at:]
    raise ValueError("the page has no Tables section to insert tables into")


def write_html(content: ReportContent, path: str | Path) -> Path:
    """Write :func:`render_html` of ``content`` to ``path`` as UTF-8, atomically."""
    page = render_html(content).encode("utf-8")
    dest = Path(path)
    with atomic_path(dest, suffix=".html") as tmp:
        tmp.write_bytes(page)
    return dest
