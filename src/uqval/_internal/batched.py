"""Read only the columns a command uses, in batches of rows: the reader of ``uqval validate``
and ``uqval compare`` for tables of up to 10^7 rows and more.

:func:`open_table` checks a file under every rule of :mod:`uqval._internal.tables` (format from
the suffixes, bounded decompression, NUL bytes, UTF-8, line length, header names, Parquet
metadata) and lists its columns; :meth:`TableFile.read` then reads the columns asked for, in
batches of :data:`BATCH_ROWS` rows, into one array per column, and returns them as a
:class:`ColumnTable`. The other columns are never kept (a Parquet column not asked for is not
even read).

* **Parquet**: ``pyarrow.parquet.ParquetFile.iter_batches(columns=..., batch_size=...)`` row
  group by row group (an iterator over the whole file holds every batch it decoded), each
  batch turned into pandas as :func:`pandas.read_parquet` turns the whole table.
* **CSV/TSV** (plain or compressed): the checked first pass of
  :mod:`~uqval._internal.tables`, then pandas' C parser over the same bounded stream with
  ``chunksize``: the same parser, options, missing-value spellings and float conversion as the
  in-memory reader, so every value is the same double (pandas' default converter is not
  correctly rounded; ``pyarrow.csv`` is, and would change values: docs/choices.md,
  "Out-of-core reading"). Rows longer than the header are found
  and refused (or their empty extra fields dropped) exactly as there; all fields of a batch are
  parsed (``usecols`` would hide rows with extra fields) but only the asked-for columns are
  kept.

**Same values, same messages.** A column keeps the dtype the whole-table read would give it:
float64, the file's own float32 or integer type (NumPy's common type across batches, as pandas
concatenates its own internal chunks), bool. A column with a cell that is not a number (or of
another type: dates, decimals, nullable integers) keeps its batches as pandas gave them and is
concatenated at the end: the checks downstream (:mod:`uqval.validation.inputs`, the command
line) then report the first bad cells with their 1-based data rows, as before. Files the
batched path does not handle (a Parquet file with duplicate column names, or whose pandas
column names do not map to its fields) are read by the in-memory reader, which reports them as
before. Data rows count from 1, the header line not counted; lines in messages of the text
checks count from 1 in the (decompressed) file.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = path.write_text("e,u,note\\n0.1,0.2,a\\n-0.3,0.4,b\\n0.5,0.6,c\\n")
>>> source = open_table(path)
>>> source.columns
('e', 'u', 'note')
>>> table = source.read(["e", "u"], batch_rows=2)
>>> len(table), table["u"].tolist()
(3, [0.2, 0.4, 0.6])
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uqval._internal.errors import DataError
from uqval._internal.tables import (
    _CHUNK,
    _EXPECTED_FIELDS,
    CheckedText,
    FileBytes,
    _decompressed,
    _read_parquet,
    _where,
    checked_text,
    csv_failures,
    extra_fields_options,
    parquet_failures,
    parquet_file,
    printable,
    table_format,
)

__all__ = ["BATCH_ROWS", "ColumnTable", "TableFile", "open_table", "read_columns"]

BATCH_ROWS = 1 << 18
"""Rows per batch (262 144): 2 MiB per float64 column, few enough batches that the per-batch
overhead stays below 1 % of the reading time."""

_LOST_FIELDS = "does not match length of data"


@dataclass(frozen=True, eq=False)
class ColumnTable:
    """Columns read from a table file: ``columns`` every column name of the file (as text),
    ``rows`` its number of data rows, ``values`` the columns read (pandas Series named as the
    column, with a RangeIndex), ``sha256`` the SHA-256 of the file's bytes that were parsed
    (:class:`uqval._internal.tables.FileBytes`). ``table[name]`` and ``len(table)`` work as on
    a DataFrame."""

    path: Path
    columns: tuple[str, ...]
    rows: int
    values: Mapping[str, pd.Series] = field(repr=False)
    sha256: str | None = None

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, name: str) -> pd.Series:
        return self.values[name]


class _Column:
    """One column filled batch by batch: a growing array of the common dtype of the batches,
    or (from the first batch that is not plain numbers or booleans) the batches themselves."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self.array: np.ndarray | None = None
        self.n = 0
        self.parts: list[pd.Series] | None = None

    def add(self, part: pd.Series) -> None:
        dtype = part.dtype
        plain = isinstance(dtype, np.dtype) and dtype.kind in "biuf"
        if self.parts is None and plain and self._fits(dtype):
            k = len(part)
            if self.array is None:
                self.array = np.empty(max(self.capacity, k), dtype=dtype)
            elif self.n + k > self.array.size:
                grown = np.empty(max(2 * self.array.size, self.n + k), dtype=self.array.dtype)
                grown[: self.n] = self.array[: self.n]
                self.array = grown
            self.array[self.n : self.n + k] = part.to_numpy()
            self.n += k
            return
        if self.parts is None:
            self.parts = [] if self.array is None else [pd.Series(self.array[: self.n])]
            self.array = None
        self.parts.append(part.reset_index(drop=True))

    def _fits(self, dtype: np.dtype) -> bool:
        """Whether a batch of ``dtype`` joins the array (casting it to the common type once);
        booleans and numbers together make an object column, as in pandas."""
        if self.array is None:
            return True
        if (dtype.kind == "b") != (self.array.dtype.kind == "b"):
            return False
        common = np.result_type(self.array.dtype, dtype)
        if common != self.array.dtype:
            self.array = self.array.astype(common)
        return True

    def series(self, name: str) -> pd.Series:
        if self.parts is not None:
            values = (pd.concat(self.parts, ignore_index=True) if len(self.parts) > 1
                      else self.parts[0])
            return values.rename(name)
        array = self.array if self.array is not None else np.empty(0)
        if self.n < array.size:  # a view while the slack is small, else an exact copy
            array = array[: self.n] if self.n >= 0.75 * array.size else array[: self.n].copy()
        return pd.Series(array, name=name, copy=False)


class TableFile:
    """A table file that passed the checks of :mod:`uqval._internal.tables`; ``columns`` are
    its column names as text. Use :func:`open_table`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise DataError(f"{_where(self.path)}: file not found")
        if not self.path.is_file():
            raise DataError(f"{_where(self.path)}: not a file")
        self.format = table_format(self.path)
        self.raw = FileBytes(self.path)
        """The file's bytes across the passes (their SHA-256 once read)."""
        self._frame: pd.DataFrame | None = None  # the in-memory read, for files it must take
        self._checked: CheckedText | None = None
        self._parquet: Any = None
        self._fields: list[str] = []
        try:
            names = self._open()
        except OSError as exc:  # e.g. permission denied
            raise DataError(f"{_where(self.path)}: cannot read the file "
                            f"({printable(exc.strerror or exc, 200)})") from None
        self.columns: tuple[str, ...] = tuple(names)

    def _open(self) -> list[str]:
        if self.format.kind == "parquet":
            return self._open_parquet()
        with csv_failures(self.path, self.format):
            self._checked = checked_text(self.path, self.format, raw=self.raw)
            with _decompressed(self.path, self.format, self.raw) as stream:
                head = pd.read_csv(io.BufferedReader(stream, _CHUNK), encoding="utf-8",
                                   compression=None, index_col=False, nrows=0,
                                   **self._checked.options)
        return [str(c) for c in head.columns]

    def _open_parquet(self) -> list[str]:
        self._parquet = parquet_file(self.path, self.raw)
        with parquet_failures(self.path):
            schema = self._parquet.schema_arrow
            names = [str(c) for c in schema.empty_table().to_pandas().columns]
            index = {c for c in (schema.pandas_metadata or {}).get("index_columns", [])
                     if isinstance(c, str)}
            self._fields = [n for n in schema.names if n not in index]
        if len(set(names)) != len(names) or len(self._fields) != len(names):
            self._frame = _read_parquet(self.path, self.raw)  # refuses duplicates, as before
            return list(self._frame.columns)
        return names

    @property
    def rows(self) -> int:
        """Data rows of a Parquet file, from its metadata (text tables: a pass would be
        needed, refused)."""
        if self._frame is not None:
            return len(self._frame)
        if self._parquet is None:
            raise DataError(f"{_where(self.path)}: parts must be Parquet files")
        return int(self._parquet.metadata.num_rows)

    def read(self, columns: Iterable[str], *, batch_rows: int | None = None) -> ColumnTable:
        """The ``columns`` of the file (those it has; :func:`~uqval._internal.tables.
        require_columns` names the others), read in batches of ``batch_rows`` rows
        (default :data:`BATCH_ROWS`).

        Raises:
            DataError: on every failure of the in-memory reader, with its message.
        """
        wanted = list(dict.fromkeys(c for c in columns if c in self.columns))
        batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
        if batch_rows < 1:
            raise ValueError(f"batch_rows must be >= 1, got {batch_rows}")
        if self._frame is not None:
            frame = self._frame
            values = {c: frame[c].reset_index(drop=True) for c in wanted}
            return ColumnTable(self.path, self.columns, len(frame), values, self.raw.sha256)
        if self.format.kind == "parquet":
            rows, filled = self._read_parquet(wanted, batch_rows)
            self.raw.verify()
        else:
            rows, filled = self._read_csv(wanted, batch_rows)
        return ColumnTable(self.path, self.columns, rows,
                           {c: filled[c].series(c) for c in wanted}, self.raw.sha256)

    def _read_parquet(self, wanted: list[str], batch_rows: int) -> tuple[int, dict[str, _Column]]:
        import pyarrow as pa

        where = _where(self.path)
        rows = int(self._parquet.metadata.num_rows)
        if rows == 0:
            raise DataError(f"{where}: the table has no rows")
        filled = {c: _Column(rows) for c in wanted}
        if not wanted:
            return rows, filled
        fields = [self._fields[self.columns.index(c)] for c in wanted]
        with parquet_failures(self.path, self.raw):
            # one iterator per row group: pyarrow 26's iterator over the whole file keeps
            # every batch it decoded until it ends (397 MiB held at 10^7 rows x 5 columns)
            for group in range(self._parquet.metadata.num_row_groups):
                for batch in self._parquet.iter_batches(
                        batch_size=batch_rows, row_groups=[group], columns=fields,
                        use_pandas_metadata=False):
                    frame = pa.Table.from_batches([batch]).to_pandas()
                    for j, name in enumerate(wanted):
                        filled[name].add(frame.iloc[:, j])
        return rows, filled

    def _read_csv(self, wanted: list[str], batch_rows: int) -> tuple[int, dict[str, _Column]]:
        assert self._checked is not None
        checked = self._checked
        with csv_failures(self.path, self.format):
            found = self._csv_pass(checked.options, wanted, batch_rows)
            if found is None:  # rows longer than the header: refused, or their extras dropped
                found = self._csv_pass(
                    extra_fields_options(self.path, self.format, checked, self.raw), wanted,
                    batch_rows)
        assert found is not None  # the second pass reads at most n_fields fields per row
        rows, filled = found
        if rows == 0:
            raise DataError(f"{_where(self.path)}: the file has a header but no data rows")
        return rows, filled

    def _csv_pass(self, options: dict[str, Any], wanted: list[str],
                  batch_rows: int) -> tuple[int, dict[str, _Column]] | None:
        """One parse of the whole file; None when pandas reports rows with more fields than
        the header (as the in-memory reader, after the whole parse)."""
        assert self._checked is not None
        filled = {c: _Column(self._checked.lines) for c in wanted}
        positions = [self.columns.index(c) for c in wanted]
        rows, lost = 0, False
        with _decompressed(self.path, self.format, self.raw) as stream, \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with pd.read_csv(io.BufferedReader(stream, _CHUNK), encoding="utf-8",
                                 compression=None, index_col=False, chunksize=batch_rows,
                                 **options) as reader:
                    for chunk in reader:
                        for name, j in zip(wanted, positions, strict=True):
                            filled[name].add(chunk.iloc[:, j])
                        rows += len(chunk)
                        lost = lost or _lost(caught)
            except pd.errors.ParserError as exc:
                if not _EXPECTED_FIELDS.search(str(exc)):
                    raise
                return None
        return None if lost or _lost(caught) else (rows, filled)


def _lost(caught: list[warnings.WarningMessage]) -> bool:
    return any(issubclass(w.category, pd.errors.ParserWarning) and _LOST_FIELDS in str(w.message)
               for w in caught)


def open_table(path: Path | str) -> TableFile:
    """Check the table file ``path`` and list its columns (module docstring); read the
    columns a command uses with :meth:`TableFile.read`.

    Raises:
        DataError: one line naming the file, the line or column and the reason.
    """
    return TableFile(Path(path))


def read_columns(path: Path | str, columns: Iterable[str], *,
                 batch_rows: int | None = None) -> ColumnTable:
    """``open_table(path).read(columns, batch_rows=batch_rows)``."""
    return open_table(path).read(columns, batch_rows=batch_rows)
