"""Self-contained HTML validation reports.

Fill a :class:`ReportContent` (verdicts, summary, :class:`FigureSection` figures as PNG
bytes from :func:`png_bytes`, tables, parameters, provenance) and call
:func:`render_html` or :func:`write_html`. :data:`HOW_TO_READ` holds the reading guide of
each one-call plot of :mod:`uqval.plots.diagnostics`, :data:`GLOSSARY` the glossary.
"""

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.report.content import FigureSection, ReportContent, png_bytes
    from uqval.report.html import render_html, write_html
    from uqval.report.markdown import render_markdown
    from uqval.report.texts import GLOSSARY, HOW_TO_READ

__all__ = [
    "GLOSSARY",
    "HOW_TO_READ",
    "FigureSection",
    "ReportContent",
    "png_bytes",
    "render_html",
    "render_markdown",
    "write_html",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
