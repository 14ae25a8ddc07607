"""Text for a terminal or a log: the one helper that removes control characters from what
uqval prints (:func:`printable`), without importing NumPy or pandas (the pipeline's scripts
log through it, :mod:`uqval.pipeline.scripting`)."""

from __future__ import annotations

import re

__all__ = ["EXCERPT_CHARS", "printable"]

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
