"""Read a user's table (CSV, TSV or Parquet) for the command line, with clear errors.

Every failure raises :class:`uqval._internal.errors.DataError` with one line naming the file, the
column and the reason.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from uqval._internal.errors import DataError

__all__ = ["file_sha256", "read_table", "require_columns"]

_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_table(path: Path) -> pd.DataFrame:
    """The table in ``path``: Parquet (``.parquet``/``.pq``, needs pyarrow), TSV (``.tsv``,
    ``.tab``) or CSV (anything else; ``.txt`` and unknown suffixes: separator sniffed)."""
    if not path.exists():
        raise DataError(f"{path}: file not found")
    if not path.is_file():
        raise DataError(f"{path}: not a file")
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise DataError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow), "
                                "or save the table as CSV") from None
            table = pd.read_parquet(path)
        else:
            sep = _SUFFIXES.get(suffix)
            # index_col=False: a row ending with the separator (writers that print "value,"
            # in a loop) must not turn the first column into the index and shift the others
            table = pd.read_csv(path, sep=sep, engine="python" if sep is None else "c",
                                index_col=False)
    except DataError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError,
            ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{path}: cannot read the table ({reason})") from None
    if table.empty:
        raise DataError(f"{path}: the table has no rows")
    table.columns = [str(c) for c in table.columns]
    return table


def require_columns(table: pd.DataFrame, columns: list[str], path: Path) -> None:
    """Raise a :class:`DataError` naming the first missing column and the available ones."""
    for col in columns:
        if col not in table.columns:
            available = ", ".join(table.columns)
            raise DataError(f"{path}: no column {col!r} (available: {available})")
