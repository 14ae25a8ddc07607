"""Glue for the thin scripts run by Snakemake rules: logging to the rule's log file."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from uqval._internal.terminal import printable


class PrintableFormatter(logging.Formatter):
    """Log records as printable text: control characters (terminal escape sequences, ...)
    removed from the message and the traceback, line breaks kept
    (:func:`uqval._internal.terminal.printable`)."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record), None, keep_newlines=True)


def run_logged(snakemake: Any, main: Callable[[Any], None]) -> None:
    """Run ``main(snakemake)`` with logging sent to the rule's log file (INFO and above) and to
    stderr (warnings and errors only, so a run's console stays readable), without control
    characters (:class:`PrintableFormatter`); third-party debug and info chatter (fontTools
    subsetting fonts for PDFs, matplotlib) is silenced.

    An exception is logged (message only for uqval's own errors, which are written to be read
    by users; full traceback otherwise) and re-raised so that Snakemake marks the job failed and
    removes its outputs.
    """
    from uqval._internal.errors import UqvalError

    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING if snakemake.log else logging.INFO)
    handlers: list[logging.Handler] = [console]
    if snakemake.log:
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w"))
    for handler in handlers:  # messages quote YAML values and file names: no escape sequences
        handler.setFormatter(PrintableFormatter("%(asctime)s %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=handlers, force=True)
    for noisy in ("fontTools", "matplotlib", "PIL", "numba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    log = logging.getLogger(f"uqval.{snakemake.rule}")
    try:
        main(snakemake)
    except UqvalError as exc:
        log.error("%s", exc)
        raise SystemExit(1) from None  # the message above is the whole report: no traceback
    except Exception:
        log.exception("rule %s failed", snakemake.rule)
        raise
