"""The one place where the library checks its inputs.

Every exported function turns its array arguments into 1-D float64 arrays through
:func:`vector` or :func:`errors_uncertainties`, and its scalar options through
:func:`probability`, :func:`integer` and :func:`bin_count`. A bad input raises a
``ValueError`` whose message names the argument, says what is wrong and, for bad values,
how many there are and where: **row numbers count data rows from 1** (the first value of an
array is row 1), everywhere in uqval (library, command line and pipeline).

Accepted arrays: NumPy arrays, lists and pandas Series (by position). Masked arrays are
refused when any value is masked (drop or fill the masked values first): silently using the
values behind the mask would validate numbers the user has excluded.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.types import FloatArray

__all__ = [
    "MAX_LISTED_ROWS",
    "bin_count",
    "errors_uncertainties",
    "first_rows",
    "integer",
    "matrix",
    "probability",
    "vector",
]

MAX_LISTED_ROWS = 5
"""Bad rows listed in a message before "..."."""


def first_rows(bad: NDArray[np.bool_]) -> str:
    """The first bad rows as "rows 3, 8, 10, ..." (1-based data rows)."""
    rows = np.flatnonzero(bad) + 1
    shown = ", ".join(str(int(i)) for i in rows[:MAX_LISTED_ROWS])
    more = ", ..." if rows.size > MAX_LISTED_ROWS else ""
    return f"row{'s' if rows.size > 1 else ''} {shown}{more}"


def vector(
    values: ArrayLike,
    name: str,
    *,
    min_size: int = 1,
    positive: bool = False,
    finite: bool = True,
) -> FloatArray:
    """``values`` as a 1-D float64 array, checked.

    Raises:
        ValueError: naming ``name`` if the values are not numeric, not 1-D, fewer than
            ``min_size``, masked, NaN or infinite (``finite=True``), or not > 0
            (``positive=True``); bad values are counted and located (1-based rows).

    >>> vector([1, 2.5], "uncertainties", positive=True)
    array([1. , 2.5])
    >>> vector([1.0, -1.0], "uncertainties", positive=True)
    Traceback (most recent call last):
    ...
    ValueError: uncertainties has 1 non-positive value(s) (row 2); uncertainties must be > 0
    """
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        n = int(np.ma.count_masked(values))
        raise ValueError(f"{name} has {n} masked value(s); drop or fill them first")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} needs at least {min_size} value(s), got {arr.size}")
    if finite and not np.isfinite(arr).all():
        bad = ~np.isfinite(arr)
        raise ValueError(
            f"{name} has {int(bad.sum())} NaN or infinite value(s) ({first_rows(bad)})"
        )
    if positive and (arr <= 0.0).any():
        bad = arr <= 0.0
        raise ValueError(
            f"{name} has {int(bad.sum())} non-positive value(s) ({first_rows(bad)}); "
            f"{name} must be > 0"
        )
    return arr


def matrix(values: ArrayLike, name: str, *, min_columns: int = 1) -> FloatArray:
    """``values`` as a 2-D float64 array (rows = data rows), NaN allowed (callers count them).

    A DataFrame is taken by position (its columns in order); a 1-D input is refused (one
    column is not an ensemble or a quantile set).

    >>> matrix([[1, 2], [3, 4]], "members").shape
    (2, 2)
    >>> matrix([1, 2], "members")
    Traceback (most recent call last):
    ...
    ValueError: members must be 2-D (rows x columns), got shape (2,)
    """
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        raise ValueError(f"{name} has masked values; drop or fill them first")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows x columns), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < min_columns:
        raise ValueError(f"{name} needs at least 1 row and {min_columns} column(s), got shape "
                         f"{arr.shape}")
    if np.isinf(arr).any():
        bad = np.asarray(np.isinf(arr).any(axis=1))
        raise ValueError(f"{name} has infinite values ({first_rows(bad)})")
    return arr


def errors_uncertainties(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    min_size: int = 1,
    names: tuple[str, str] = ("errors", "uncertainties"),
) -> tuple[FloatArray, FloatArray]:
    """Checked (errors, uncertainties): 1-D, finite, same length >= ``min_size``, uncertainties > 0.

    >>> e, u = errors_uncertainties([0.1, -0.2], [0.1, 0.2])
    >>> errors_uncertainties([0.1, -0.2], [0.1])
    Traceback (most recent call last):
    ...
    ValueError: errors and uncertainties have different lengths (2 and 1)
    """
    e = vector(errors, names[0], min_size=min_size)
    u = vector(uncertainties, names[1], min_size=min_size, positive=True)
    if e.size != u.size:
        raise ValueError(
            f"{names[0]} and {names[1]} have different lengths ({e.size} and {u.size})"
        )
    return e, u


def probability(value: float, name: str = "confidence") -> float:
    """``value`` as a float strictly between 0 and 1 (a confidence, coverage or level).

    >>> probability(0.95)
    0.95
    >>> probability(95)
    Traceback (most recent call last):
    ...
    ValueError: confidence must lie in (0, 1), got 95
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return float(value)


def integer(value: object, name: str, *, minimum: int) -> int:
    """``value`` as an int >= ``minimum`` (integral floats such as 1e4 are accepted).

    >>> integer(1e4, "n_boot", minimum=2)
    10000
    >>> integer(1.5, "n_boot", minimum=2)
    Traceback (most recent call last):
    ...
    ValueError: n_boot must be an integer >= 2, got 1.5
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
        if number.is_integer() and number >= minimum:
            return int(number)
    raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def bin_count(n_bins: object, m: int, name: str = "n_bins") -> int:
    """``n_bins`` as an int in [1, m] (m the number of points).

    >>> bin_count(20, 1000)
    20
    >>> bin_count(2000, 1000)
    Traceback (most recent call last):
    ...
    ValueError: n_bins = 2000 exceeds the number of points (1000)
    """
    n = integer(n_bins, name, minimum=1)
    if n > m:
        raise ValueError(f"{name} = {n} exceeds the number of points ({m})")
    return n
