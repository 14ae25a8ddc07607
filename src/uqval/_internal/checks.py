"""The one place where the library checks its inputs.

Every exported function turns its array arguments into 1-D float64 arrays through
:func:`vector` or :func:`errors_uncertainties`, and its scalar options through
:func:`probability`, :func:`integer` and :func:`bin_count`. A bad input raises a
``ValueError`` whose message names the argument, says what is wrong and, for bad values,
how many there are and where: **row numbers count data rows from 1** (the first value of an
array is row 1), everywhere in uqval (library, command line and pipeline).

Accepted arrays: NumPy arrays, lists and pandas Series. Several Series given together are
paired by label (:func:`aligned`): reordered to the first one's index when they hold the same
labels, refused (naming both arguments) when the labels differ. Masked arrays are refused
when any value is masked (drop or fill the masked values first): silently using the values
behind the mask would validate numbers the user has excluded.

Values that are not numbers are refused, naming the argument (:func:`numeric_values`):
booleans for errors and uncertainties (a comparison such as ``e > 0`` passed by mistake;
features may be boolean), complex numbers (the imaginary part would be dropped), dates and
durations, and containers without a row order or a length (generators and iterators, sets,
dicts, a lone string or number). Option counts (:func:`integer`) have an upper bound where a
larger value would only exhaust memory or time: resamples and permutations at most
:data:`MAX_RESAMPLES`.

Seeds (:func:`seed_value`): an integer >= 0, a ``numpy.random.SeedSequence`` or None (a
fresh seed is drawn and returned, so that results can record it and the run be repeated).
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.types import FloatArray

__all__ = [
    "MAX_LISTED_ROWS",
    "MAX_RESAMPLES",
    "MAX_UNIT_SPAN_DECADES",
    "flag",
    "numeric_values",
    "aligned",
    "refuse_masked",
    "seed_value",
    "unit_outliers",
    "unit_scaled",
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

MAX_RESAMPLES = 1_000_000
"""Most bootstrap replicates or permutations accepted: p-values and interval ends are then
known to about 1e-6, and more would only exhaust memory or time (10^12 took 24 GB)."""


def first_rows(bad: NDArray[np.bool_]) -> str:
    """The first bad rows as "rows 3, 8, 10, ..." (1-based data rows)."""
    rows = np.flatnonzero(bad) + 1
    shown = ", ".join(str(int(i)) for i in rows[:MAX_LISTED_ROWS])
    more = ", ..." if rows.size > MAX_LISTED_ROWS else ""
    return f"row{'s' if rows.size > 1 else ''} {shown}{more}"


def refuse_masked(values: object, name: str) -> None:
    """Raise a ValueError naming ``name`` when ``values`` is a masked array with masked values.

    >>> refuse_masked(np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "errors")
    Traceback (most recent call last):
    ...
    ValueError: errors has 1 masked value(s) (row 2); drop or fill them first (numpy.ma.compressed or .filled)
    """
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        mask = np.ma.getmaskarray(values).ravel()
        raise ValueError(f"{name} has {int(mask.sum())} masked value(s) ({first_rows(mask)}); "
                         "drop or fill them first (numpy.ma.compressed or .filled)")


_VALUE_ARGUMENT = re.compile(r"(models\[.*\]: )?(errors|uncertainties|variances|y_true|y_pred)")


def numeric_values(values: Any, name: str, *, boolean: bool | None = None) -> Any:
    """``values`` checked to hold numbers in a row order (module docstring): returned as given
    (lists as NumPy arrays), or a ValueError naming ``name``. ``boolean=True`` accepts
    True/False (a binary feature); by default they are refused for errors, uncertainties,
    variances and y values (``name``) and accepted for a variable to bin by.

    >>> numeric_values([1, 2.5], "errors")
    array([1. , 2.5])
    >>> numeric_values(np.array([0.2, -0.1]) > 0, "errors")
    Traceback (most recent call last):
    ...
    ValueError: errors holds booleans (True/False), not numbers: pass the values themselves (a comparison such as e > 0 was passed?)
    >>> numeric_values((x for x in [1.0]), "errors")
    Traceback (most recent call last):
    ...
    ValueError: errors must be an array, a list or a pandas Series of numbers, got generator (pass list(...) of it)
    """
    refuse_masked(values, name)
    hint = ""
    if isinstance(values, Iterator):
        hint = " (pass list(...) of it)"
    elif isinstance(values, (set, frozenset)):
        hint = " (a set has no order, so its values cannot be paired with rows)"
    elif isinstance(values, Mapping):
        hint = " (pass list(d.values()) or pandas.Series(d))"
    elif isinstance(values, (str, bytes)):
        hint = " (a column name needs data=)"
    if hint:
        raise ValueError(f"{name} must be an array, a list or a pandas Series of numbers, got "
                         f"{type(values).__name__}"
                         f"{' ' + _label(values) if isinstance(values, (str, bytes)) else ''}"
                         f"{hint}")
    if not hasattr(values, "dtype"):
        try:
            values = np.asarray(values)
        except (TypeError, ValueError) as exc:  # ragged nested lists
            raise ValueError(f"{name} must be numeric ({exc})") from None
    kind = getattr(values.dtype, "kind", "O")
    if boolean is None:
        boolean = _VALUE_ARGUMENT.fullmatch(name) is None
    if kind == "b" and not boolean:
        raise ValueError(f"{name} holds booleans (True/False), not numbers: pass the values "
                         "themselves (a comparison such as e > 0 was passed?)")
    if kind == "c":
        raise ValueError(f"{name} holds complex numbers; pass real numbers (the imaginary part "
                         "would be dropped)")
    if kind in "mM":
        raise ValueError(f"{name} holds dates or durations; convert them to numbers first "
                         "(e.g. days since the first date)")
    return values


def flag(value: object, name: str) -> bool:
    """``value`` as a bool: True/False (NumPy's too) only; a string such as "no" is refused.

    >>> flag(np.True_, "drop_invalid")
    True
    >>> flag("no", "drop_invalid")
    Traceback (most recent call last):
    ...
    ValueError: drop_invalid must be True or False, got str 'no'
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {type(value).__name__} {_label(value)}")


def _label(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def aligned(named: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments in ``named`` (name -> values), with every pandas Series paired by label to
    the first Series: unchanged when its index equals the first one's, reordered when it
    holds the same (unique) labels in another order, refused when the labels differ.

    >>> import pandas as pd
    >>> a = pd.Series([1.0, 2.0], index=["x", "y"])
    >>> b = pd.Series([20.0, 10.0], index=["y", "x"])
    >>> aligned({"errors": a, "uncertainties": b})["uncertainties"].tolist()
    [10.0, 20.0]
    >>> aligned({"errors": a, "uncertainties": pd.Series([1.0, 2.0])})
    Traceback (most recent call last):
    ...
    ValueError: errors and uncertainties are pandas Series with different labels (label 'x' of errors is not in uncertainties): pair them by label first, or pass .to_numpy() to pair them by position
    """
    out = dict(named)
    pd = sys.modules.get("pandas")  # a Series exists only if pandas was imported (0.3 s per job)
    if pd is None:
        return out
    series = [(k, v) for k, v in named.items() if isinstance(v, pd.Series)]
    if len(series) < 2:
        return out
    first, ref = series[0]
    for name, values in series[1:]:
        if values.index.equals(ref.index):
            continue
        same = (len(values) == len(ref) and ref.index.is_unique and values.index.is_unique
                and set(values.index) == set(ref.index))
        if same:
            out[name] = values.reindex(ref.index)
            continue
        if len(values) != len(ref):
            continue  # the length check names the arguments and their lengths
        missing = [x for x in ref.index if x not in set(values.index)][:1]
        if missing:
            why = f"label {_label(missing[0])} of {first} is not in {name}"
        else:
            extra = [x for x in values.index if x not in set(ref.index)][:1]
            why = (f"label {_label(extra[0])} of {name} is not in {first}" if extra
                   else "repeated labels in another order")
        raise ValueError(f"{first} and {name} are pandas Series with different labels ({why}): "
                         "pair them by label first, or pass .to_numpy() to pair them by "
                         "position")
    return out


def seed_value(seed: object, name: str = "seed") -> int | np.random.SeedSequence:
    """``seed`` checked: an int >= 0 (NumPy integers too) or a ``SeedSequence`` is returned
    as is; None draws a fresh 63-bit seed from the operating system's entropy and returns it
    (record it to repeat the run). Anything else (a Generator, a string, a float, a bool, a
    negative integer) raises a ValueError naming ``name``.

    >>> seed_value(7)
    7
    >>> 0 <= seed_value(None) < 2**63
    True
    >>> seed_value("7")
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer >= 0, a numpy.random.SeedSequence or None, got str '7'
    """
    if seed is None:
        return int(np.random.SeedSequence().generate_state(2, np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return int(seed)
    hint = ""
    if isinstance(seed, np.random.Generator):
        hint = (" (a Generator's state cannot be recorded in the result; pass an integer, e.g. "
                "int(rng.integers(2**63)))")
    raise ValueError(f"{name} must be an integer >= 0, a numpy.random.SeedSequence or None, got "
                     f"{type(seed).__name__} {_label(seed)}{hint}")


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
    values = numeric_values(values, name)
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


def integer(value: object, name: str, *, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int in [``minimum``, ``maximum``] (integral floats such as 1e4 are
    accepted; NaN, infinities, bools and strings are not).

    >>> integer(1e4, "n_boot", minimum=2)
    10000
    >>> integer(1.5, "n_boot", minimum=2)
    Traceback (most recent call last):
    ...
    ValueError: n_boot must be an integer >= 2, got 1.5
    >>> integer(10**12, "n_boot", minimum=2, maximum=MAX_RESAMPLES)
    Traceback (most recent call last):
    ...
    ValueError: n_boot must be an integer from 2 to 1000000, got 1000000000000
    """
    ok = False
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number: int | float = int(value)
        ok = True
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
        ok = number.is_integer()
    if ok and number >= minimum and (maximum is None or number <= maximum):
        return int(number)
    bound = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
    raise ValueError(f"{name} must be an integer {bound}, got {value!r}")


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


_SAFE_LOG2 = 250  # values within 2^-250 .. 2^250 (about 1e±75): fourth powers stay normal
MAX_UNIT_SPAN_DECADES = 2 * _SAFE_LOG2 * math.log10(2.0)
"""Largest ratio, in orders of magnitude (about 150), between the largest abs(E) or uE and the
smallest uE that one common unit holds (:func:`unit_outliers`)."""


def _exponents(x: FloatArray) -> NDArray[np.int64]:
    """Binary exponents q of the non-zero finite values (x = m 2^q, 0.5 <= abs(m) < 1)."""
    x = np.abs(x[np.isfinite(x) & (x != 0)])
    return np.frexp(x)[1].astype(np.int64)


def _unit_range(e: FloatArray, u: FloatArray) -> tuple[int, int]:
    """The exponents k of the units 2^k in which every abs(E) and uE stays below 2^250 and every
    uE at or above 2^-250: k from the first to the second number (none when first > second)."""
    top = max(int(_exponents(e).max(initial=-1074)), int(_exponents(u).max(initial=-1074)))
    bottom = int(_exponents(u).min(initial=1024))
    return top - _SAFE_LOG2, bottom - 1 + _SAFE_LOG2


def unit_outliers(e: FloatArray, u: FloatArray) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Rows of ``e`` and of ``u`` (positive, finite) that no common unit holds with the others:
    none when one power of two keeps every abs(E) and uE below 2^250 (about 1e75) and every uE
    at or above 2^-250 (their squares and fourth powers finite and normal: every statistic
    that squares them, or squares their squares, is safe), that is when the smallest uE and
    the largest abs(E) or uE are less than :data:`MAX_UNIT_SPAN_DECADES` (about 150) orders of
    magnitude apart; else the rows outside the window of the median uncertainty's unit.

    >>> bad_e, bad_u = unit_outliers(np.array([1.0, -2.0, 1e-300]), np.array([1.0, 2.0, 1e-300]))
    >>> bad_e.tolist(), bad_u.tolist()
    ([False, False, False], [False, False, True])
    """
    low, high = _unit_range(e, u)
    none = np.zeros(e.shape, dtype=bool), np.zeros(u.shape, dtype=bool)
    if low <= high or u.size == 0:
        return none
    k = math.frexp(float(np.median(u)))[1]
    with np.errstate(divide="ignore"):
        e_exp = np.frexp(np.abs(e))[1]
        u_exp = np.frexp(u)[1]
    bad_e = (e != 0) & (e_exp - k > _SAFE_LOG2)
    bad_u = (u_exp - k > _SAFE_LOG2) | (u_exp - 1 - k < -_SAFE_LOG2)
    return bad_e, bad_u


def unit_scaled(e: FloatArray, u: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """Errors and uncertainties ``(e, u)`` divided by a common power of two ``unit`` when
    their magnitudes would under- or overflow on squaring (values near 1e-300 or 1e300),
    else unchanged (``unit`` 1): ``(e / unit, u / unit, unit)``. Exact in floating point, so
    Z = E/uE and every statistic of Z are unchanged. Unchanged when every abs(E) and uE lies
    below 2^250 (about 1e75) and every uE at or above 2^-250; else the unit is that of the
    median uncertainty, moved just enough (when the values spread widely) that they do; the
    input checks refuse (or drop) the rows for which no unit does (:func:`unit_outliers`).

    >>> e, u, unit = unit_scaled(np.array([1e300, -2e300]), np.array([1e300, 1e300]))
    >>> float(e[1] / u[1]), bool(np.isfinite(np.square(u)).all())
    (-2.0, True)
    """
    low, high = _unit_range(e, u)
    if low <= 0 <= high:
        return e, u, 1.0
    exponent = math.frexp(float(np.median(u)))[1]
    if low <= high:  # the median's unit, or the nearest unit that holds every value
        exponent = min(max(exponent, low), high)
    factor = math.ldexp(1.0, -exponent)
    return e * factor, u * factor, math.ldexp(1.0, exponent)
