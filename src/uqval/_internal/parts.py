"""The files of a test set given as parts: a folder of Parquet files or a glob pattern.

:class:`PartsSource` resolves ``uqval validate PATH/`` (or ``parts:`` in a dataset YAML) to
an ordered list of Parquet files, under the rules for untrusted inputs: every file lies
inside the folder named (symbolic links that lead out are refused), only regular ``.parquet``
files are taken (hidden files and folders, such as ``.cache/`` or Spark's ``_SUCCESS``
markers, are skipped), at most :data:`MAX_PARTS` files, and the order is the files' paths
relative to the folder, compared as text, so that every machine reads the rows in the same
order. A partitioned dataset (``key=value/`` folders) is read file by file; its partition
columns are not added to the rows.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for name in ("b.parquet", "a.parquet", "notes.txt"):
...     _ = (root / name).write_bytes(b"")
>>> [p.name for p in PartsSource(root).files()]
['a.parquet', 'b.parquet']
>>> is_parts(str(root / "*.parquet")), is_parts(str(root / "a.parquet"))
(True, False)
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from uqval._internal.errors import DataError

__all__ = ["MAX_PARTS", "PartsSource", "is_parts"]

MAX_PARTS = 100_000
"""Most files in one test set given as parts."""
_GLOB = set("*?[")


def is_parts(path: str | Path) -> bool:
    """True for a folder or a glob pattern (a test set in parts), False for one file."""
    text = str(path)
    return Path(text).is_dir() or any(c in _GLOB for c in text)


class PartsSource:
    """The Parquet files of a test set in parts (module docstring)."""

    def __init__(self, source: str | Path) -> None:
        text = str(source)
        if any(c in _GLOB for c in text) and not Path(text).exists():
            root = _glob_root(text)
            candidates = [Path(p) for p in glob.glob(text, recursive=True)]
        else:
            root = Path(text)
            if not root.is_dir():
                raise DataError(f"{text}: not a folder of Parquet files")
            candidates = [Path(dirpath) / name
                          for dirpath, dirnames, names in os.walk(root, followlinks=False)
                          for name in names
                          if not _hidden(Path(dirpath).relative_to(root))]
        self.root = root
        self.source = text
        self._candidates = candidates

    def files(self) -> list[Path]:
        """The parts in reading order (module docstring)."""
        real_root = self.root.resolve()
        chosen: dict[str, Path] = {}
        for path in self._candidates:
            rel = path.relative_to(self.root) if path.is_relative_to(self.root) else None
            if rel is None or _hidden(rel) or path.suffix.lower() != ".parquet":
                continue
            resolved = path.resolve()
            if not resolved.is_relative_to(real_root):
                raise DataError(f"{path}: leads out of {self.root} (a link); parts must lie "
                                "inside the folder")
            if not resolved.is_file():
                continue
            chosen[rel.as_posix()] = path
            if len(chosen) > MAX_PARTS:
                raise DataError(f"{self.source}: more than {MAX_PARTS} Parquet files")
        if not chosen:
            raise DataError(f"{self.source}: no Parquet files (*.parquet) found")
        return [chosen[k] for k in sorted(chosen)]


def _hidden(rel: Path) -> bool:
    return any(part.startswith((".", "_")) for part in rel.parts)


def _glob_root(pattern: str) -> Path:
    """The folder above the first path component that holds a glob character."""
    parts = Path(pattern).parts
    fixed = []
    for part in parts:
        if any(c in _GLOB for c in part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")
