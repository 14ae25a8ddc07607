"""Reproduction scoreboard: compare values printed in the papers with computed ones.

Printed values live in ``config/expected/*.yaml`` (one file per paper or topic); each names the
key of the computed value in the long-format value tables ``results/values/*.csv`` (columns
``key, value``) written by the pipeline stages. Statuses: ``pass``/``fail`` against the stated
tolerance, ``missing`` when no stage has computed the key (yet), ``not_reproducible`` with the
reason for values that need unavailable data (an entry may give both a key and a reason: it is
compared as soon as the data are there, e.g. after the Jacobs et al. download).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import jsonschema
import pandas as pd
import yaml

from uqval.errors import ConfigError

COLUMNS = [
    "paper", "item", "quantity", "key", "expected", "obtained", "tolerance", "tolerance_class",
    "status", "note",
]


def load_expected(files: Iterable[str | Path], schema_path: str | Path) -> pd.DataFrame:
    """Read and validate expected-value files into one table (one row per printed value)."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    rows = []
    for path in sorted(Path(f) for f in files):
        doc = yaml.safe_load(path.read_text())
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        if errors:
            err = errors[0]
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            raise ConfigError(f"{path}: at '{where}': {err.message}")
        for entry in doc["values"]:
            rows.append({"paper": doc["paper"], **entry})
    return pd.DataFrame(rows)


def load_values(files: Iterable[str | Path]) -> dict[str, float]:
    """Merge ``key,value`` tables; a key computed twice with different values is an error."""
    values: dict[str, float] = {}
    for path in files:
        table = pd.read_csv(path)
        for key, value in zip(table["key"], table["value"], strict=True):
            if key in values and values[key] != value:
                raise ConfigError(f"{path}: value key '{key}' is also produced by another table")
            values[key] = float(value)
    return values


def _tolerance(entry: pd.Series) -> float:
    tol = entry.get("tolerance")
    rel = entry.get("rel_tolerance")
    candidates = [float(tol)] if tol is not None and not pd.isna(tol) else []
    if rel is not None and not pd.isna(rel):
        candidates.append(float(rel) * abs(float(entry["value"])))
    return max(candidates) if candidates else 0.0


def compare(expected: pd.DataFrame, values: dict[str, float]) -> pd.DataFrame:
    """One row per expected value with the obtained value and a status."""
    rows = []
    for _, entry in expected.iterrows():
        reason = entry.get("not_reproducible")
        key = entry.get("key")
        base = {
            "paper": entry["paper"],
            "item": entry["item"],
            "quantity": entry["quantity"],
            "key": key if isinstance(key, str) else "",
            "expected": float(entry["value"]),
            "tolerance": _tolerance(entry),
            "tolerance_class": entry.get("tolerance_class") if isinstance(entry.get("tolerance_class"), str) else "",
        }
        accept = entry.get("accept_range")
        if isinstance(accept, list):
            base["note"] = f"accepted range [{accept[0]:g}, {accept[1]:g}]"
        if key in values:
            obtained = values[key]
            if isinstance(accept, list):
                ok = accept[0] <= obtained <= accept[1]
            else:
                ok = abs(obtained - base["expected"]) <= base["tolerance"] * (1 + 1e-12)
            rows.append({"note": "", **base, "obtained": obtained, "status": "pass" if ok else "fail"})
        elif isinstance(reason, str):
            rows.append({**base, "obtained": math.nan, "status": "not_reproducible", "note": reason})
        else:
            rows.append({**base, "obtained": math.nan, "status": "missing", "note": "not computed"})
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(board: pd.DataFrame) -> str:
    """One line overall plus one per paper (passed / compared, failed, missing, not reproducible),
    each paper followed by one line per reason its values are not reproducible."""

    def line(label: str, df: pd.DataFrame) -> str:
        counts = df["status"].value_counts()
        compared = int(counts.get("pass", 0) + counts.get("fail", 0))
        return (
            f"{label}: {int(counts.get('pass', 0))}/{compared} passed, {int(counts.get('fail', 0))} "
            f"failed, {int(counts.get('missing', 0))} missing, "
            f"{int(counts.get('not_reproducible', 0))} not reproducible"
        )

    def reasons(df: pd.DataFrame) -> list[str]:
        notes = df.loc[df["status"] == "not_reproducible", "note"].value_counts()
        return [f"    {count} not reproducible: {note}" for note, count in notes.items()]

    lines = [line("reproduction", board)]
    for paper, df in board.groupby("paper", sort=True):
        lines += [line(f"  {paper}", df), *reasons(df)]
    return "\n".join(lines)
