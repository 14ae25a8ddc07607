"""Read a user's table (CSV, TSV, compressed, or Parquet) for the command line, with clear
errors.

The reader itself is :mod:`uqval._internal.tables`, shared with the pipeline's preparation (one
set of rules: separator from the suffix, bounded decompression, NUL bytes, line length,
duplicate header names, rows with extra fields). Every failure raises
:class:`uqval._internal.errors.DataError` with one line naming the file, the line or column and
the reason. ``uqval validate`` and ``uqval compare`` read with :func:`open_table` /
:func:`read_columns` (:mod:`uqval._internal.batched`): under the same rules, only the columns
they use, in batches of rows, with the values and messages of :func:`read_table`.
"""

from __future__ import annotations

from uqval._internal.batched import ColumnTable, open_table, read_columns
from uqval._internal.tables import file_sha256, read_table, require_columns

__all__ = ["ColumnTable", "file_sha256", "open_table", "read_columns", "read_table",
           "require_columns"]
