"""Writing a report's files: the figures as PNG, the page, and the run's manifest."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from uqval._internal.atomic import atomic_path
from uqval.report.content import FigureSection
from uqval.report.manifest import replace_previous_outputs

__all__ = ["finish_outputs"]


def finish_outputs(
    directory: Path,
    written: list[Path],
    figures: Sequence[tuple[str, FigureSection]],
    write_page: Callable[[Path], Path],
) -> list[Path]:
    """Write each figure as ``<stem>.png`` and the page as ``report.html`` (atomically), then
    remove the previous run's files this run did not write (:mod:`uqval.report.manifest`).
    Returns ``written`` with the new paths."""
    for stem, section in figures:
        path = directory / f"{stem}.png"
        with atomic_path(path, suffix=".png") as tmp:
            tmp.write_bytes(section.png)
        written.append(path)
    written.append(write_page(directory / "report.html"))
    replace_previous_outputs(directory, written)
    return written
