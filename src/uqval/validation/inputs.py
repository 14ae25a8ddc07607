"""Turn the arguments of :func:`uqval.validate` into clean arrays, counting removed rows.

Accepted forms: arrays or pandas Series for ``errors`` and ``uncertainties``; ``features``
as a mapping name -> array, a DataFrame (every column a feature) or, with ``data=``, a list
of column names. With ``data=`` a DataFrame, ``errors`` and ``uncertainties`` are column
names. Every problem raises a ``ValueError`` that names the argument (and column).

**Repeated rows.** Rows that repeat an earlier row exactly (same error, uncertainty and
features) are kept and counted (``row_counts``, :func:`repeated_rows`); when more than
:data:`REPEATED_SHARE` of the rows are copies (a table concatenated with itself, rows written
twice) the result carries a warning: each copy counts as one more independent point and
narrows every interval.

pandas Series are paired **by label** when their indexes hold the same labels in another
order, and refused (naming both arguments) when the labels differ; masked arrays with
masked values are refused (:func:`uqval._internal.checks.aligned`). Row numbers in
messages count data rows from 1, in the order of ``errors``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import (
    MAX_LISTED_ROWS,
    aligned,
    first_rows,
    flag,
    numeric_values,
    unit_outliers,
)
from uqval._internal.tables import cell_excerpt
from uqval.predictive import Predictive
from uqval.validation.degenerate import (
    unit_outlier_message,
    z_overflow_message,
    z_square_overflow,
)

__all__ = ["MIN_ROWS", "REPEATED_ROWS", "REPEATED_SHARE", "CleanInputs", "CleanPredictive",
           "clean_inputs", "clean_predictive_inputs", "repeated_rows"]

MIN_ROWS = 60
"""Fewest rows accepted: two bins of 30 (:data:`uqval.validation.rules.MIN_BIN_COUNT`)."""
REPEATED_SHARE = 0.10
"""Share of the rows repeating an earlier row exactly above which the result warns."""
REPEATED_ROWS = "repeat an earlier row exactly"
"""Words of the repeated-rows warning (the command line does not attribute it to a column)."""
_REPEATED_COUNT = "rows repeating an earlier row (kept)"


Features: TypeAlias = Mapping[str, ArrayLike] | pd.DataFrame | Sequence[str] | None


@dataclass(frozen=True)
class CleanInputs:
    """Validated inputs: float arrays of equal length and the row bookkeeping."""

    errors: NDArray[np.float64]
    uncertainties: NDArray[np.float64]
    features: dict[str, NDArray[np.float64]]
    uncertainty_name: str
    row_counts: dict[str, int]
    warnings: tuple[str, ...] = ()
    groups: NDArray[np.intp] | None = None
    group_names: NDArray[np.object_] | None = None
    """The group labels as given, by code (``group_names[groups[i]]`` is row i's label)."""


def _column(data: pd.DataFrame, name: object, argument: str) -> pd.Series:
    if not isinstance(name, str):
        raise ValueError(f"{argument} must be a column name when data= is given, got {name!r}")
    if name not in data.columns:
        available = ", ".join(map(str, data.columns))
        raise ValueError(f"{argument}: no column {name!r} in data (available: {available})")
    if (count := int(np.count_nonzero(data.columns == name))) > 1:
        raise ValueError(f"{argument}: data has {count} columns named {name!r}; rename or drop "
                         "the copies")
    return data[name]


def repeated_rows(columns: Sequence[NDArray[np.float64]]) -> int:
    """How many rows repeat an earlier row exactly (every column equal; -0.0 equals 0.0).

    >>> repeated_rows([np.array([1.0, 2.0, 1.0, 1.0]), np.array([5.0, 5.0, 5.0, 6.0])])
    1
    """
    first = columns[0]
    if first.size < 2:
        return 0
    _, inverse, counts = np.unique(first, return_inverse=True, return_counts=True)
    candidates = counts[inverse.ravel()] > 1  # only rows whose first value repeats
    if not candidates.any():
        return 0
    frame = pd.DataFrame({j: c[candidates] + 0.0 for j, c in enumerate(columns)})
    return int(frame.duplicated().sum())


def repeated_rows_warning(repeated: int, m: int) -> str | None:
    """The warning when more than :data:`REPEATED_SHARE` of the ``m`` rows are copies."""
    if repeated <= REPEATED_SHARE * m:
        return None
    return (f"{repeated} of the {m} rows ({100 * repeated / m:.0f} %) {REPEATED_ROWS} (same "
            "error, uncertainty and features): a table concatenated with itself, or rows "
            "written twice? Each copy counts as one more independent point and narrows every "
            "interval; remove the copies unless the repeats are genuine")


def refuse_copies(arrays: Mapping[str, NDArray[np.float64]], what: str) -> None:
    """The same column passed as errors and as uncertainties, or as errors and as a feature,
    is a mistake whose result means nothing: refused, naming both arguments."""
    e = arrays["errors"]
    if np.array_equal(e, arrays[what]):
        raise ValueError(f"errors and {what} hold the same values (the same column passed "
                         "twice?)")
    for name, x in arrays.items():
        if name.startswith("features") and np.array_equal(e, x):
            raise ValueError(f"{name} holds the same values as the errors (the error column "
                             "given as a feature?): every range would look miscalibrated")


def _feature_names(names: list[object]) -> list[str]:
    """Feature names as strings, non-empty and distinct (1 and "1" would share a name)."""
    out = [str(n) for n in names]
    for raw, name in zip(names, out, strict=True):
        if not name.strip():
            raise ValueError(f"features: name {raw!r} is empty; give every feature a name")
    seen: dict[str, object] = {}
    for raw, name in zip(names, out, strict=True):
        if name in seen:
            raise ValueError(f"features: names {seen[name]!r} and {raw!r} are the same name "
                             f"{name!r}; rename one")
        seen[name] = raw
    return out


def _as_float(values: ArrayLike, argument: str) -> NDArray[np.float64]:
    values = numeric_values(values, argument)
    if isinstance(values, pd.Series) and not pd.api.types.is_numeric_dtype(values.dtype):
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna() & values.notna()
        if bad.any():
            rows = np.flatnonzero(bad.to_numpy())[:MAX_LISTED_ROWS]
            examples = ", ".join(f"row {i + 1}: {cell_excerpt(values.iloc[i])}" for i in rows)
            raise ValueError(f"{argument} has non-numeric values ({examples})")
        values = converted
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{argument} must be numeric ({exc})") from None
    if arr.ndim != 1:
        raise ValueError(f"{argument} must be 1-D, got shape {arr.shape}")
    return arr


def _features(features: Features, data: pd.DataFrame | None) -> dict[str, ArrayLike]:
    if features is None:
        return {}
    if isinstance(features, pd.DataFrame):
        names = _feature_names(list(features.columns))
        return {n: features.iloc[:, i] for i, n in enumerate(names)}
    if isinstance(features, Mapping):
        return dict(zip(_feature_names(list(features)), features.values(), strict=True))
    if isinstance(features, str):
        features = [features]
    if data is None:
        raise ValueError(
            "features must be a mapping name -> values or a DataFrame (a list of column "
            "names needs data=)"
        )
    return {str(n): _column(data, n, "features") for n in features}


def clean_inputs(
    errors: ArrayLike | str,
    uncertainties: ArrayLike | str,
    features: Features,
    *,
    data: pd.DataFrame | None,
    variance: bool,
    drop_invalid: bool,
    uncertainty_name: str | None,
    groups: ArrayLike | str | None = None,
) -> CleanInputs:
    """Validate the arguments of :func:`uqval.validate` (module docstring).

    Rows with a NaN or infinite value in any used column, or a non-positive uncertainty, are
    an error, or are removed and counted (in ``row_counts``) with ``drop_invalid=True``.
    ``groups`` (values of any kind, or a column name of ``data``): the group of every row,
    returned as integer codes of the rows kept (a missing group is invalid like a NaN).
    """
    variance, drop_invalid = flag(variance, "variance"), flag(drop_invalid, "drop_invalid")
    if uncertainty_name is not None and (not isinstance(uncertainty_name, str)
                                         or not uncertainty_name.strip()):
        raise ValueError(f"uncertainty_name must be a non-empty string, got {uncertainty_name!r}")
    if data is not None:
        if not isinstance(data, pd.DataFrame):
            raise ValueError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        if uncertainty_name is None and isinstance(uncertainties, str):
            uncertainty_name = uncertainties
        errors = _column(data, errors, "errors")
        uncertainties = _column(data, uncertainties, "uncertainties")
        if isinstance(groups, str):
            groups = _column(data, groups, "groups")
    elif uncertainty_name is None and isinstance(uncertainties, pd.Series) and uncertainties.name:
        uncertainty_name = str(uncertainties.name)
    u_name = uncertainty_name or "uncertainty"
    what = "variances" if variance else "uncertainties"
    feats = _features(features, data)
    named = aligned({"errors": errors, what: uncertainties,
                     **{f"features[{k!r}]": v for k, v in feats.items()},
                     **({} if groups is None else {"groups": groups})})
    errors, uncertainties = named["errors"], named[what]
    feats = {k: named[f"features[{k!r}]"] for k in feats}
    arrays = {"errors": _as_float(errors, "errors"), what: _as_float(uncertainties, what)}
    if u_name in feats:
        raise ValueError(f"features: name {u_name!r} is used for the uncertainties; rename it")
    labels = {"errors": "errors", what: what}
    for name, values in feats.items():
        arrays[f"features[{name!r}]"] = _as_float(values, f"features[{name!r}]")
        labels[f"features[{name!r}]"] = f"feature {name}"
    sizes = {k: v.size for k, v in arrays.items()}
    if len(set(sizes.values())) != 1:
        listed = ", ".join(f"{k} ({n})" for k, n in sizes.items())
        raise ValueError(f"arguments have different lengths: {listed}")
    n = arrays["errors"].size
    counts = {"rows in input": n}
    keep = np.ones(n, dtype=bool)
    codes, names = (None, None) if groups is None else _group_codes_and_names(
        named["groups"], n)
    if codes is not None and (codes < 0).any():
        if not drop_invalid:
            raise ValueError(f"groups has {int((codes < 0).sum())} missing value(s) "
                             f"({first_rows(codes < 0)}); remove them or pass drop_invalid=True")
        counts["removed: missing group"] = int((codes < 0).sum())
        keep &= codes >= 0
    for name, arr in arrays.items():
        bad = ~np.isfinite(arr) & keep
        if bad.any():
            if not drop_invalid:
                raise ValueError(
                    f"{name} has {np.count_nonzero(~np.isfinite(arr))} NaN or infinite value(s) "
                    f"({first_rows(~np.isfinite(arr))}); remove them or pass drop_invalid=True"
                )
            counts[f"removed: NaN or infinite {labels[name]}"] = int(bad.sum())
            keep &= ~bad
    nonpositive = keep & ~(arrays[what] > 0)
    if nonpositive.any():
        if not drop_invalid:
            raise ValueError(
                f"{what} has {int(nonpositive.sum())} non-positive value(s) "
                f"({first_rows(nonpositive)}); {what} must be > 0: remove them or pass "
                "drop_invalid=True"
            )
        counts[f"removed: non-positive {what}"] = int(nonpositive.sum())
        keep &= ~nonpositive
    unc_all = np.sqrt(np.abs(arrays[what])) if variance else arrays[what]
    overflow = keep & z_square_overflow(arrays["errors"], unc_all)
    if overflow.any():
        message = z_overflow_message(arrays["errors"], unc_all, overflow)
        if not drop_invalid:
            raise ValueError(f"{message}, or pass drop_invalid=True")
        counts["removed: (E/uE)^2 overflows"] = int(overflow.sum())
        keep &= ~overflow
    kept = np.flatnonzero(keep)
    outside = unit_outliers(arrays["errors"][kept], unc_all[kept])
    for name, inside in zip(("errors", what), outside, strict=True):
        bad = np.zeros(n, dtype=bool)
        bad[kept[inside]] = True
        bad &= keep  # a row is counted once
        if not bad.any():
            continue
        if not drop_invalid:
            message = unit_outlier_message(name, arrays[name], bad, arrays["errors"][kept],
                                           unc_all[kept])
            raise ValueError(f"{message}, or pass drop_invalid=True")
        counts[f"removed: {labels[name]} too far from the others for one unit"] = int(bad.sum())
        keep &= ~bad
    m = int(keep.sum())
    counts["rows used"] = m
    if m < MIN_ROWS:
        raise ValueError(
            f"errors: {m} usable rows; at least {MIN_ROWS} are needed (two bins of 30)"
        )
    clean = {k: v[keep] for k, v in arrays.items()}
    refuse_copies(clean, what)
    repeated = repeated_rows(list(clean.values()))
    if repeated:
        counts = {**{k: v for k, v in counts.items() if k != "rows used"},
                  _REPEATED_COUNT: repeated, "rows used": m}
    warning = repeated_rows_warning(repeated, m)
    unc = np.sqrt(clean[what]) if variance else clean[what]
    out_features = {name: clean[f"features[{name!r}]"] for name in feats}
    return CleanInputs(clean["errors"], unc, out_features, u_name, counts,
                       () if warning is None else (warning,),
                       None if codes is None else codes[keep], names)


def _group_codes(values: ArrayLike, n: int) -> NDArray[np.intp]:
    """Integer codes of the group labels (-1 for a missing label), checked for length."""
    return _group_codes_and_names(values, n)[0]


def _group_codes_and_names(values: ArrayLike, n: int) -> tuple[NDArray[np.intp],
                                                               NDArray[np.object_]]:
    """:func:`_group_codes` and the labels by code."""
    if isinstance(values, str) or np.ndim(values) != 1:
        raise ValueError("groups must be a 1-D array of group labels, one per row (or a "
                         "column name of data)")
    codes, names = pd.factorize(np.asarray(values, dtype=object) if not isinstance(
        values, pd.Series) else values, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.intp)
    if codes.size != n:
        raise ValueError(f"groups has {codes.size} values for {n} rows")
    return codes, np.asarray(names, dtype=object)


@dataclass(frozen=True)
class CleanPredictive:
    """Validated (y_true, predictive, features): the rows that can be validated, and the row
    bookkeeping (``row_counts``; the predictive's own data problems are in its
    ``data_issues``, with row numbers of the input)."""

    y: NDArray[np.float64]
    predictive: Predictive
    features: dict[str, NDArray[np.float64]]
    row_counts: dict[str, int]
    kept: NDArray[np.bool_]
    groups: NDArray[np.intp] | None = None
    group_names: NDArray[np.object_] | None = None
    """The group labels as given, by code."""


def clean_predictive_inputs(
    y_true: ArrayLike | str,
    predictive: Predictive,
    features: Features,
    *,
    data: pd.DataFrame | None,
    drop_invalid: bool,
    groups: ArrayLike | str | None = None,
) -> CleanPredictive:
    """Check the arguments of ``validate(y_true, predictive, ...)``.

    Rows the predictive cannot use (its documented data rules: NaN parameters, rows without
    2 finite members, NaN quantiles, intervals with low > high) are always left out and counted
    ("removed: data problems of the predictive"); NaN or infinite y or features are an error,
    or are removed and counted with ``drop_invalid=True``. ``groups`` (labels of any kind, or
    a column name of ``data``): returned as integer codes of the rows kept; a missing label
    is invalid like a NaN.
    """
    if data is not None:
        if not isinstance(data, pd.DataFrame):
            raise ValueError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        y_true = _column(data, y_true, "y_true")
        if isinstance(groups, str):
            groups = _column(data, groups, "groups")
    y = _as_float(y_true, "y_true")
    n = len(predictive)
    if y.size != n:
        raise ValueError(f"y_true and the predictive have different lengths ({y.size} and {n})")
    feats = {name: _as_float(v, f"features[{name!r}]") for name, v in
             _features(features, data).items()}
    for name, x in feats.items():
        if x.size != n:
            raise ValueError(f"features[{name!r}] has {x.size} values for {n} rows")
    counts = {"rows in input": n}
    keep = predictive.usable
    if (~keep).any():
        counts["removed: data problems of the predictive"] = int((~keep).sum())
    codes, names = (None, None) if groups is None else _group_codes_and_names(groups, n)
    if codes is not None and (codes < 0).any():
        if not drop_invalid:
            raise ValueError(f"groups has {int((codes < 0).sum())} missing value(s) "
                             f"({first_rows(codes < 0)}); remove them or pass drop_invalid=True")
        counts["removed: missing group"] = int(((codes < 0) & keep).sum())
        keep = keep & (codes >= 0)
    arrays = {"y_true": y, **{f"features[{k!r}]": v for k, v in feats.items()}}
    for name, arr in arrays.items():
        bad = ~np.isfinite(arr)
        if bad.any():
            if not drop_invalid:
                raise ValueError(f"{name} has {int(bad.sum())} NaN or infinite value(s) "
                                 f"({first_rows(bad)}); remove them or pass drop_invalid=True")
            newly = bad & keep
            if newly.any():
                counts[f"removed: NaN or infinite {name}"] = int(newly.sum())
            keep = keep & ~bad
    m = int(keep.sum())
    counts["rows used"] = m
    if m < MIN_ROWS:
        raise ValueError(f"y_true: {m} usable rows; at least {MIN_ROWS} are needed (two bins "
                         "of 30)")
    out_features = {}
    for name, x in feats.items():
        if np.ptp(x[keep]) == 0:
            raise ValueError(f"features[{name!r}] is constant: it cannot be binned")
        out_features[name] = x[keep]
    return CleanPredictive(y[keep], predictive.take(keep), out_features, counts, keep,
                           None if codes is None else codes[keep], names)
