"""What a validation report holds: frozen dataclasses filled by the validation engine."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from uqval import __version__

if TYPE_CHECKING:  # annotations only: jobs that read reports' tables do not import Matplotlib
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["PNG_SIGNATURE", "AnswerLine", "FigureSection", "FirstScreen", "ReportContent",
           "png_bytes", "rendered_figures"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
"""The eight bytes every PNG file starts with."""


@dataclass(frozen=True)
class FigureSection:
    """One figure of the report.

    Attributes:
        title: heading of the figure.
        how_to_read: two short sentences telling a reader what to look at (inline markdown:
            bold, italics, code).
        png: the image as PNG bytes (:func:`png_bytes`).
    """

    title: str
    how_to_read: str
    png: bytes


@dataclass(frozen=True)
class AnswerLine:
    """One line of the answer on the report's first screen.

    Attributes:
        head: what the line is about, plain text (e.g. "On average").
        label: the judgement's label (right, not right, ...) or a verdict, shown as a
            coloured badge; empty for no badge.
        detail: inline markdown after the head (numbers and names of the records).
    """

    head: str
    label: str = ""
    detail: str = ""


@dataclass(frozen=True)
class FirstScreen:
    """What the report shows before anything else: the answer in a few lines, one figure
    and the actions; the rest of the page is collapsed under it.

    Attributes:
        answer: the lines of the answer (one per stage, from the judgement).
        figure: index in ``ReportContent.figures`` of the one figure shown (None: none).
        actions: the actions in the judgement's order, each inline markdown.
        why_figure: inline markdown saying why this figure is shown.
        checks: the input warnings (plain text, escaped when drawn): what to check before
            trusting the answer (dependent groups, errors far from centred, ...).
    """

    answer: list[AnswerLine]
    figure: int | None = None
    actions: list[str] = field(default_factory=list)
    why_figure: str = ""
    checks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReportContent:
    """Everything :func:`uqval.report.render_html` puts in a report, in page order.

    Attributes:
        title: page title.
        verdicts: one row per test (columns such as stage, feature, scaled, verdict,
            statistic, value, ci_low, ci_high, target, p_value, note); a ``verdict`` column
            of pass / fail / inconclusive is shown as coloured badges.
        summary_markdown: the plain-language summary (markdown: headings, lists, bold,
            italics, code, tables).
        figures: the figures, each with its "how to read this".
        parameters: the settings of the run (seed, bootstrap size, bins, ...).
        input_sha256: SHA-256 of the input file (None when arrays were given).
        row_counts: row counts in order, e.g. rows read, rows removed (with the reason in
            the key), rows used.
        tables: further tables by title (e.g. the bins of each feature).
        version: uqval version that made the report.
        stage_overview: optional one row per stage (verdict, effect, ...): shown first, with
            the full ``verdicts`` table collapsed below it.
        first_screen: optional answer, figure and actions shown first; with it every other
            section is collapsed (``<details>``) under the first screen.
    """

    title: str
    verdicts: pd.DataFrame
    summary_markdown: str
    figures: list[FigureSection] = field(default_factory=list)
    parameters: dict[str, object] = field(default_factory=dict)
    input_sha256: str | None = None
    row_counts: dict[str, int] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    version: str = __version__
    stage_overview: pd.DataFrame | None = None
    first_screen: FirstScreen | None = None


def png_bytes(figure: Figure, dpi: float = 150.0) -> bytes:
    """The figure as PNG bytes (no software tag, so identical figures give identical bytes).

    The figure is left open; close it with ``matplotlib.pyplot.close(figure)`` when done.
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def rendered_figures(
    specs: Sequence[tuple[str, str, str, Callable[[Axes], object]]],
) -> list[tuple[str, FigureSection]]:
    """``(stem, FigureSection)`` of each ``(stem, title, how to read, draw)`` spec: ``draw``
    fills one Axes of the report's size, the figure becomes PNG bytes and is closed."""
    import matplotlib.pyplot as plt

    from uqval.plots.style import figure

    out = []
    for stem, title, how, draw in specs:
        fig, ax = figure(1, 1, width=4.2, height=3.3)
        try:
            draw(ax)
            out.append((stem, FigureSection(title, how, png_bytes(fig))))
        finally:
            plt.close(fig)
    return out
