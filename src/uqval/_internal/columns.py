"""Checks of the columns the command line reads: numbers, finite values, rows named.

Messages name the file, the column and the first rows (data rows counted from 1,
:data:`ROWS_NOTE`); cell contents are shown through :func:`uqval._internal.tables.cell_excerpt`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from uqval._internal.checks import first_rows
from uqval._internal.errors import DataError
from uqval._internal.tables import cell_excerpt

__all__ = ["ROWS_NOTE", "finite_column", "numeric_column"]

ROWS_NOTE = " (rows are data rows counted from 1, the header line not counted)"
"""What the command line's messages add when they name rows."""


def finite_column(values: pd.Series, column: str, path: Path) -> None:
    """Refuse NaN (empty cells) and infinite values in ``column``, naming it and the rows."""
    bad = ~np.isfinite(values.to_numpy(dtype=float))
    if bad.any():
        raise DataError(f"{path}: column {column!r} has {int(bad.sum())} empty, NaN or infinite "
                        f"value(s) ({first_rows(bad)}); remove them or pass --drop-invalid"
                        f"{ROWS_NOTE}")


def numeric_column(series: pd.Series, column: str, path: Path) -> pd.Series:
    """``column`` as numbers; text that is not a number is refused with its first rows (empty
    cells become NaN)."""
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        first = bad.to_numpy().nonzero()[0][:5]
        shown = ", ".join(f"row {i + 1}: {cell_excerpt(series.iloc[i])}" for i in first)
        raise DataError(f"{path}: column {column!r} has non-numeric values ({shown})"
                        f"{ROWS_NOTE}")
    return values
