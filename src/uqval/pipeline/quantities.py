"""The ``quantities`` of a dataset entry: errors and uncertainties, or a predictive output.

Two forms, checked at load time (:func:`check_quantities`, one message per problem):

* **errors** (the papers' form): ``E`` (reference - prediction) with ``uE`` (standard
  uncertainties) and/or ``intervals: {"95": HALF_WIDTH, ...}`` (symmetric prediction-interval
  half-widths by coverage level in percent), optionally ``V`` (predicted values);
* **predictive** (the grammar of ``uqval validate``'s options, :mod:`uqval.predictive.columns`):
  ``y_true`` (observed values) and exactly one of

  - ``y_pred`` with ``uE`` (the standard deviation whatever the family) and optionally
    ``distribution: normal | laplace | t:NU | t:COL`` (default normal), like ``--y-pred
    --uncertainty --distribution``;
  - ``members: 'pred_*'`` (a glob over column names, or a comma list, or a YAML list of
    names), like ``--members``; ``samples:`` likewise (``--samples``);
  - ``quantiles: {"0.05": q05, "0.5": q50, "0.95": q95}``, like ``--quantiles``;
  - ``intervals: {"0.9": [lo90, hi90], ...}`` (central intervals by level in (0, 1)), like
    ``--interval``.

  Levels are probabilities in (0, 1), written as quoted keys. ``y_true``, ``y_pred``, ``uE``,
  quantiles and interval bounds are expressions (a column name is one); members and samples
  are column names.

The prepared table of a predictive dataset keeps the columns the predictive needs (``Y``,
``V`` = its point prediction, ``E = Y - V``, ``uE`` = its standard deviation where one exists,
``NU``, ``M_<k>``, ``S_<k>``, ``Q_<level>``, ``L_<level>``, ``H_<level>``) and its sidecar the
kind (:func:`table_predictive` rebuilds the predictive from them). A dataset given by
half-widths ``U_<P>`` is also a predictive: central intervals ``(-U_P, U_P)`` around 0 for the
observation E (``|E| <= U_P`` is exactly ``y`` inside the interval), so its coverage stage is
the library's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

# Only table_predictive needs NumPy and the predictive classes (they import scipy.special,
# 0.2 s), and pandas is for annotations: the registry, read by every fetch job, checks
# quantities without them.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from uqval.predictive import Predictive

from uqval._internal.errors import ConfigError, DataError
from uqval.predictive.columns import parse_distribution, parse_level

__all__ = ["PREDICTIVE_KEYS", "check_quantities", "level_text", "quantity_expressions",
           "table_predictive"]

PREDICTIVE_KEYS = ("y_pred", "members", "samples", "quantiles", "intervals")
"""Keys of which a predictive dataset (``y_true``) gives exactly one."""
_ONE_OF = ("y_pred with uE (and optionally distribution), members, samples, quantiles or "
           "intervals")


def level_text(level: float) -> str:
    """Column suffix of a level: ``0.05`` -> ``'0.05'``."""
    return f"{level:g}"


def _pairs(q: Mapping[str, Any]) -> bool | None:
    """True when ``intervals`` gives [low, high] pairs, False for half-widths, None without."""
    values = list((q.get("intervals") or {}).values())
    if not values:
        return None
    return isinstance(values[0], list)


def _levels(mapping: Mapping[str, Any], what: str, where: str) -> list[float]:
    levels = []
    for key in mapping:
        try:
            levels.append(parse_level(key, f"{where}, quantities.{what}"))
        except DataError as exc:
            raise ConfigError(f"{exc} (levels are probabilities written as quoted keys, such "
                              "as \"0.05\")") from None
    return levels


def check_quantities(q: Mapping[str, Any], where: str) -> str | None:
    """The predictive kind of a dataset's quantities (``distribution``, ``members``,
    ``samples``, ``quantiles``, ``interval``; None for the errors form), or a ConfigError
    naming the one rule the entry breaks (module docstring)."""
    pairs = _pairs(q)
    if pairs is not None:
        kinds = {isinstance(v, list) for v in q["intervals"].values()}
        if len(kinds) > 1:
            raise ConfigError(f"{where}: quantities.intervals mixes [low, high] pairs with "
                              "half-width expressions; use one form")
    if "y_true" not in q:
        wrong = [k for k in ("y_pred", "members", "samples", "quantiles", "distribution") if k in q]
        if wrong or pairs:
            what = ", ".join(wrong) or "intervals given as [low, high] pairs"
            raise ConfigError(f"{where}: quantities.{what} need(s) y_true (the observed "
                              "values, e.g. y_true: y); or give E with uE or intervals of "
                              "half-widths")
        if "E" not in q:
            raise ConfigError(f"{where}: quantities need E (errors, with uE or intervals) or "
                              "y_true (observed values, with a predictive output)")
        if "uE" not in q and not q.get("intervals"):
            raise ConfigError(f"{where} defines neither quantities.uE nor quantities.intervals; "
                              "one of them is needed to validate uncertainties")
        return None
    for key in ("E", "V"):
        if key in q:
            raise ConfigError(f"{where}: quantities.{key} goes with the errors form; with y_true "
                              "give the prediction as y_pred (E = y_true - prediction is derived)")
    given = [k for k in PREDICTIVE_KEYS if k in q]
    if len(given) != 1:
        got = " and ".join(given) if given else "none of them"
        raise ConfigError(f"{where}: quantities give {got}; with y_true give exactly one of "
                          f"{_ONE_OF}")
    kind = given[0]
    if "uE" in q and kind != "y_pred":
        raise ConfigError(f"{where}: quantities.uE goes with y_pred (the sd of a predictive "
                          f"distribution), not with {kind}")
    if "distribution" in q and kind != "y_pred":
        raise ConfigError(f"{where}: quantities.distribution goes with y_pred and uE, not with "
                          f"{kind}")
    if kind == "y_pred":
        if "uE" not in q:
            raise ConfigError(f"{where}: quantities.y_pred needs uE (the standard deviation of "
                              "the predictive distribution)")
        try:
            parse_distribution(q.get("distribution", "normal"), f"{where}, quantities.distribution")
        except DataError as exc:
            raise ConfigError(str(exc)) from None
        return "distribution"
    if kind == "quantiles":
        levels = _levels(q["quantiles"], "quantiles", where)
        if len(levels) < 2:
            raise ConfigError(f"{where}: quantities.quantiles needs at least two levels (a "
                              "central interval such as \"0.05\" and \"0.95\")")
        return "quantiles"
    if kind == "intervals":
        if not pairs:
            raise ConfigError(f"{where}: with y_true, quantities.intervals gives [low, high] "
                              "per level, e.g. {\"0.9\": [lo90, hi90]}")
        _levels(q["intervals"], "intervals", where)
        return "interval"
    return kind


def quantity_expressions(q: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, expression) pairs of the quantities (members and samples are column names)."""
    out = [(f"quantities.{k}", q[k]) for k in ("E", "uE", "V", "y_true", "y_pred") if k in q]
    for level, value in (q.get("intervals") or {}).items():
        if isinstance(value, list):
            out += [(f"quantities.intervals.{level}[{i}]", v) for i, v in enumerate(value)]
        else:
            out.append((f"quantities.intervals.{level}", value))
    out += [(f"quantities.quantiles.{k}", v) for k, v in (q.get("quantiles") or {}).items()]
    dist = str(q.get("distribution", ""))
    if dist.startswith("t:") and "nu_column" in parse_distribution(dist, "distribution"):
        out.append(("quantities.distribution", dist[2:]))
    return out


def _block(table: pd.DataFrame, prefix: str) -> np.ndarray:
    cols = [c for c in table.columns if str(c).startswith(prefix)]
    return table[sorted(cols, key=lambda c: int(str(c)[len(prefix):]))].to_numpy(dtype=float)


def table_predictive(table: pd.DataFrame, report: Mapping[str, Any]
                     ) -> tuple[np.ndarray, Predictive] | None:
    """(observations, predictive) of a prepared table (module docstring): the sidecar's
    ``predictive`` entry, or central intervals (-U_P, U_P) for E of a half-width dataset; None
    for a dataset given by E and uE only."""
    import numpy as np

    from uqval.predictive import (
        Ensemble,
        Intervals,
        Laplace,
        Normal,
        Quantiles,
        Samples,
        StudentT,
    )

    info = report.get("predictive")
    if not info:
        half = {float(str(c)[2:]): table[c].to_numpy(dtype=float)
                for c in table.columns if str(c).startswith("U_")}
        if not half:
            return None
        return table["E"].to_numpy(dtype=float), Intervals(
            {p / 100: (-u, u) for p, u in sorted(half.items())})
    y = table["Y"].to_numpy(dtype=float)
    kind = info["kind"]
    if kind == "distribution":
        mean, sd = table["V"].to_numpy(dtype=float), table["uE"].to_numpy(dtype=float)
        if info["family"] == "normal":
            return y, Normal(mean, sd)
        if info["family"] == "laplace":
            return y, Laplace(mean, sd)
        nu = table["NU"].to_numpy(dtype=float) if "NU" in table else info["nu"]
        return y, StudentT(mean, sd, nu)
    if kind == "members":
        return y, Ensemble(_block(table, "M_"))
    if kind == "samples":
        return y, Samples(_block(table, "S_"))
    levels = [float(x) for x in info["levels"]]
    if kind == "quantiles":
        return y, Quantiles(levels, np.column_stack(
            [table[f"Q_{level_text(x)}"].to_numpy(dtype=float) for x in levels]))
    return y, Intervals({x: (table[f"L_{level_text(x)}"].to_numpy(dtype=float),
                             table[f"H_{level_text(x)}"].to_numpy(dtype=float)) for x in levels})
