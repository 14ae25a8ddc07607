"""The terminal, without importing NumPy or pandas: the one helper that removes control
characters from what uqval prints (:func:`printable`; the pipeline's scripts log through it,
:mod:`uqval.pipeline.scripting`), progress lines (:func:`progress`) and writing standard
output (:func:`write_stdout`: a full disk is one line and :class:`StdoutError`, a closed pipe
stops quietly)."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable

from uqval._internal.errors import UqvalError

__all__ = ["EXCERPT_CHARS", "StdoutError", "discard_stdout", "printable", "progress",
           "write_stdout"]

EXCERPT_CHARS = 40
"""Longest excerpt of a value quoted in a message."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_CONTROL_KEEP_NEWLINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def printable(value: object, limit: int | None = EXCERPT_CHARS, *,
              keep_newlines: bool = False) -> str:
    """``value`` as text without control characters (C0, C1, zero-width and bidirectional
    controls, line separators), cut to ``limit`` characters (ending in ``...``).

    >>> printable("a\\x1b[31mb\\nc")
    'a[31mbc'
    >>> printable("x" * 50, 10)
    'xxxxxxx...'
    """
    pattern = _CONTROL_KEEP_NEWLINES if keep_newlines else _CONTROL
    text = pattern.sub("", str(value))
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 3)] + "..."
    return text


class StdoutError(UqvalError, OSError):
    """Standard output cannot be written (a full disk, an I/O error): exit code 3 of the
    command line."""


def write_stdout(text: str, note: str = "") -> None:
    """Write ``text`` on standard output and flush it. A failure raises :class:`StdoutError`
    (one line, ending in ``note``), a closed pipe ``BrokenPipeError``; standard output is then
    discarded, so that the interpreter's last flush at exit does not fail again."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
        raise
    except OSError as exc:
        discard_stdout()
        raise StdoutError(f"cannot write to standard output: "
                          f"{printable(exc.strerror or exc, None)}{note}") from None


def discard_stdout() -> None:
    """Send what is left of standard output to /dev/null."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def progress(enabled: bool) -> Callable[[str], None]:
    """A printer of progress lines on stderr, each with the seconds since this call (silent
    unless ``enabled``)."""
    start = time.monotonic()

    def say(message: str) -> None:
        if enabled:
            print(f"[{time.monotonic() - start:6.1f} s] {message}", file=sys.stderr, flush=True)

    return say
