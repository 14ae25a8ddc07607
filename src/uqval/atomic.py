"""Atomic file writing: outputs appear complete or not at all.

Every writer writes to a temporary file in the destination directory and renames it into
place with :func:`os.replace`, which is atomic on POSIX file systems, so an interrupted run
never leaves a truncated output behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pandas as pd


@contextmanager
def atomic_path(dest: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``dest``; rename it to ``dest`` if the block succeeds.

    ``suffix`` keeps the extension for writers that infer the format from it (matplotlib).
    The file gets the permissions of a normally created one (0666 minus the umask), not the
    private 0600 of a temporary file, so results can be shared or served.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=suffix + ".tmp", dir=dest.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, dest)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(dest: str | Path, writer: Callable[[IO[str]], None]) -> None:
    """Call ``writer`` on a text handle of a temporary file, then move it to ``dest``."""
    with atomic_path(dest) as tmp, tmp.open("w", newline="") as fh:
        writer(fh)


def write_csv(df: pd.DataFrame, dest: str | Path, **kwargs: Any) -> None:
    """Write a DataFrame as CSV atomically (no index unless asked)."""
    kwargs.setdefault("index", False)
    write_atomic(dest, lambda fh: df.to_csv(fh, **kwargs))


def write_json(obj: Any, dest: str | Path) -> None:
    """Write an object as indented JSON atomically."""
    write_atomic(dest, lambda fh: fh.write(json.dumps(obj, indent=2, sort_keys=False) + "\n"))
