"""From table columns and option texts to predictive objects (command line ``uqval validate``
and ``uqval compare``): column patterns, levels, ``NAME:KIND=SPEC`` model specifications.
Every problem raises :class:`uqval._internal.errors.DataError` with one line naming the option.

>>> columns_of("tree_*", ["y", "tree_0", "tree_1", "x"], "--members", ["y"])
['tree_0', 'tree_1']
>>> parse_model("QGB:quantiles=0.05:q05,0.95:q95", [], [])
('QGB', 'quantiles', {'pairs': {0.05: 'q05', 0.95: 'q95'}})
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import TYPE_CHECKING

from uqval._internal.errors import DataError

# The parsers are light (the pipeline's registry checks every entry with them); NumPy and the
# predictive classes, which import scipy.special (0.2 s per job), are imported by
# build_predictive only.
if TYPE_CHECKING:
    from uqval.predictive.base import Predictive

__all__ = ["KINDS", "build_predictive", "columns_of", "parse_distribution", "parse_level",
           "parse_model", "spec_columns"]

KINDS = ("members", "samples", "normal", "laplace", "t", "quantiles", "interval")
"""Kinds of ``NAME:KIND=SPEC`` model specifications."""


def columns_of(pattern: str, columns: Sequence[str], option: str,
                exclude: Sequence[str]) -> list[str]:
    """Columns named by a comma list or matched by a glob (minus ``exclude``), in table order."""
    if any(ch in pattern for ch in "*?["):
        found = [c for c in columns if fnmatch.fnmatchcase(str(c), pattern) and c not in exclude]
    else:
        found = [c.strip() for c in pattern.split(",") if c.strip()]
    if len(found) < 2:
        raise DataError(f"{option} {pattern!r}: needs at least 2 columns, found "
                        f"{len(found)} ({', '.join(map(str, found)) or 'none'})")
    return found


def parse_level(text: str, option: str) -> float:
    """A level in (0, 1) from its text, or a DataError naming ``option``."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise DataError(f"{option}: level {text!r} must be a number between 0 and 1")
    return value


def parse_distribution(text: str, option: str) -> dict:
    """``normal``, ``laplace``, ``t:NU`` (a number) or ``t:COL`` (nu per row) -> the family
    part of a distribution specification, or a DataError naming ``option``.

    >>> parse_distribution("t:4", "--distribution"), parse_distribution("t:nu", "x")
    ({'family': 't', 'nu': 4.0}, {'family': 't', 'nu_column': 'nu'})
    """
    family, _, nu = str(text).partition(":")
    if family not in ("normal", "laplace", "t") or (family == "t") != bool(nu):
        raise DataError(f"{option} {text!r}: expected normal, laplace, t:NU or t:COL")
    spec: dict = {"family": family}
    if family == "t":
        try:
            spec["nu"] = float(nu)
        except ValueError:
            spec["nu_column"] = nu
    return spec


def spec_columns(kind: str, spec: dict) -> list[str]:
    """The table columns a predictive specification uses."""
    if kind == "distribution":
        return [spec["mean"], spec["sd"], *([spec["nu_column"]] if "nu_column" in spec else [])]
    if kind in ("members", "samples"):
        return list(spec["columns"])
    if kind == "quantiles":
        return list(spec["pairs"].values())
    return [c for pair in spec["intervals"].values() for c in pair]


def build_predictive(kind: str, spec: dict, numeric: dict, variance: bool) -> Predictive:
    """The predictive object of a specification, from numeric columns (pandas Series)."""
    import numpy as np

    from uqval.predictive.ensemble import Ensemble, Samples
    from uqval.predictive.parametric import Laplace, Normal, StudentT
    from uqval.predictive.quantiles import Intervals, Quantiles

    if kind == "distribution":
        sd = numeric[spec["sd"]].to_numpy()
        sd = np.sqrt(sd) if variance else sd
        mean = numeric[spec["mean"]].to_numpy()
        if spec["family"] == "normal":
            return Normal(mean, sd)
        if spec["family"] == "laplace":
            return Laplace(mean, sd)
        nu = numeric[spec["nu_column"]].to_numpy() if "nu_column" in spec else spec["nu"]
        return StudentT(mean, sd, nu)
    if kind in ("members", "samples"):
        block = np.column_stack([numeric[c].to_numpy() for c in spec["columns"]])
        return Ensemble(block) if kind == "members" else Samples(block)
    if kind == "quantiles":
        levels = list(spec["pairs"])
        return Quantiles(levels, np.column_stack([numeric[c].to_numpy()
                                                     for c in spec["pairs"].values()]))
    return Intervals({level: (numeric[lo].to_numpy(), numeric[hi].to_numpy())
                         for level, (lo, hi) in spec["intervals"].items()})


def parse_model(text: str, columns: Sequence[str], exclude: Sequence[str]
                      ) -> tuple[str, str, dict]:
    """``NAME:KIND=SPEC`` -> (name, kind for :func:`_build_predictive`, spec)."""

    name, _, rest = text.partition(":")
    kind, _, body = rest.partition("=")
    option = f"--model {text!r}"
    if not name or not body:
        raise DataError(f"{option}: expected NAME:KIND=SPEC")
    if kind in ("members", "samples"):
        return name, kind, {"columns": columns_of(body, columns, option, exclude)}
    if kind in ("normal", "laplace", "t"):
        parts = body.split(",")
        if len(parts) != (3 if kind == "t" else 2) or not all(parts):
            raise DataError(f"{option}: {kind} needs MEAN,SD" + (",NU" if kind == "t" else ""))
        spec: dict = {"family": kind, "mean": parts[0], "sd": parts[1]}
        if kind == "t":
            try:
                spec["nu"] = float(parts[2])
            except ValueError:
                spec["nu_column"] = parts[2]
        return name, "distribution", spec
    if kind == "quantiles":
        pairs = {}
        for part in body.split(","):
            level, sep, col = part.partition(":")
            if not sep or not col:
                raise DataError(f"{option}: {part!r} is not LEVEL:COL")
            pairs[parse_level(level, option)] = col
        return name, "quantiles", {"pairs": dict(sorted(pairs.items()))}
    if kind == "interval":
        intervals = {}
        for part in body.split(";"):
            bits = part.split(":")
            if len(bits) != 3 or not all(bits):
                raise DataError(f"{option}: {part!r} is not LEVEL:LOW:HIGH")
            intervals[parse_level(bits[0], option)] = (bits[1], bits[2])
        return name, "interval", {"intervals": intervals}
    raise DataError(f"{option}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
