"""Reproduction scoreboard: compare values printed in the papers with computed ones.

Printed values live in ``config/expected/*.yaml`` (one file per paper or topic); each names the
key of the computed value in the long-format value tables ``results/values/*.csv`` (columns
``key, value``) written by the pipeline stages.

Statuses (:data:`STATUSES`):

* ``pass`` / ``fail`` — compared with the printed value. Deterministic values (class ``D``)
  must round to the printed digits: their tolerance is half a unit of the last printed digit
  (``0.96`` → ±0.005), read from the YAML text as written; a wider ``tolerance`` needs a
  ``tolerance_reason``. Other classes use their stated ``tolerance``/``rel_tolerance`` or
  ``accept_range``. An entry's ``thresholds`` are the paper's verdict boundaries (e.g. 0 for
  a ζ-score or an RCE, 1 for a ZMS, 0.95 for f_v): the obtained value must lie on the same
  side of each as the printed value, whatever the tolerance, so a result that flips the
  paper's conclusion fails.
* ``not_at_this_fidelity`` — bootstrap, Monte Carlo and re-drawn-data values (classes B, MC,
  MC1, Q) of a run with reduced replicate counts and grids (``profile: quick``): compared
  only at paper fidelity; the obtained value, when the reduced grid has it, is still shown.
* ``paper_inconsistency`` — a documented case where the printed value cannot come from the
  paper's stated method (``paper_inconsistency: <reason with the computation>``); the
  obtained value is shown beside the reason.
* ``needs_download`` — needs data that is not fetched by default (e.g. the Jacobs et al.
  sets, ``needs_download: <what>``); compared as soon as the key has been computed.
* ``not_reproducible`` — cannot be computed from any available data (reason given).
* ``missing`` — no stage computed the key: a defect.

:func:`gate` lists the rows that must stop CI: every ``fail`` and every ``missing``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import yaml

from uqval._internal.errors import ConfigError

__all__ = [
    "COLUMNS",
    "REDUCED_FIDELITY_CLASSES",
    "STATUSES",
    "compare",
    "gate",
    "load_expected",
    "load_values",
    "printed_half_unit",
    "summary",
]

COLUMNS = [
    "paper", "item", "quantity", "key", "expected", "obtained", "tolerance", "tolerance_class",
    "status", "note",
]
STATUSES = (
    "pass", "fail", "missing", "not_at_this_fidelity", "paper_inconsistency", "needs_download",
    "not_reproducible",
)
REDUCED_FIDELITY_CLASSES = frozenset({"B", "MC", "MC1", "Q"})
"""Classes whose values depend on replicate counts or re-drawn data (bootstrap, Monte Carlo)."""

_GATE_STATUSES = ("fail", "missing")


def printed_half_unit(text: str) -> float:
    """Half a unit of the last digit of a number as printed: '0.96' → 0.005, '30150' → 0.5."""
    try:
        exponent = Decimal(text.strip()).as_tuple().exponent
    except InvalidOperation as exc:
        raise ValueError(f"not a printed number: {text!r}") from exc
    if not isinstance(exponent, int):
        raise ValueError(f"not a finite printed number: {text!r}")
    return 0.5 * 10.0**exponent


def _printed_texts(path: Path) -> list[str]:
    """The ``value`` scalars of a file's ``values`` list, as written (keeps trailing zeros)."""
    root = yaml.compose(path.read_text())
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, node in root.value:
        if key.value == "values" and isinstance(node, yaml.SequenceNode):
            texts = []
            for item in node.value:
                fields = {k.value: v for k, v in item.value} if isinstance(item, yaml.MappingNode) else {}
                value = fields.get("value")
                texts.append(value.value if isinstance(value, yaml.ScalarNode) else "")
            return texts
    return []


def load_expected(files: Iterable[str | Path], schema_path: str | Path) -> pd.DataFrame:
    """Read and validate expected-value files into one table (one row per printed value).

    Adds ``printed`` (the value as written) and ``tolerance`` resolved for class D (half a unit
    of the last printed digit). A class-D entry whose stated tolerance is wider than that
    without a ``tolerance_reason`` is an error naming the file and entry.
    """
    schema = yaml.safe_load(Path(schema_path).read_text())
    rows = []
    problems = []
    for path in sorted(Path(f) for f in files):
        doc = yaml.safe_load(path.read_text())
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
        if errors:
            err = errors[0]
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            raise ConfigError(f"{path}: at '{where}': {err.message}")
        texts = _printed_texts(path)
        for i, entry in enumerate(doc["values"]):
            printed = texts[i] if i < len(texts) else str(entry["value"])
            row: dict[str, Any] = {"paper": doc["paper"], **entry, "printed": printed}
            if entry.get("tolerance_class") == "D" and "accept_range" not in entry:
                half = printed_half_unit(printed)
                stated = _stated_tolerance(entry)
                if stated is None:
                    row["tolerance"] = half
                elif stated > half * (1 + 1e-9) and "tolerance_reason" not in entry:
                    problems.append(
                        f"{path}: values/{i} ({entry['quantity']}): tolerance {stated:g} is wider "
                        f"than the printed digits of {printed} allow (±{half:g}); tighten it or "
                        "give a tolerance_reason"
                    )
            rows.append(row)
    if problems:
        raise ConfigError("\n".join(problems))
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


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _stated_tolerance(entry: Any) -> float | None:
    tol, rel = entry.get("tolerance"), entry.get("rel_tolerance")
    candidates = [float(tol)] if _given(tol) else []
    if _given(rel):
        candidates.append(float(rel) * abs(float(entry["value"])))
    return max(candidates) if candidates else None


def _text(entry: pd.Series, field: str) -> str | None:
    value = entry.get(field)
    return value if isinstance(value, str) else None


def _side_flips(expected: float, obtained: float, thresholds: Any) -> list[float]:
    """Thresholds that separate the obtained value from the printed one (ties ignored)."""
    if not isinstance(thresholds, list):
        return []
    flips = []
    for t in thresholds:
        side_expected = (expected > t) - (expected < t)
        side_obtained = (obtained > t) - (obtained < t)
        if side_expected and side_expected != side_obtained:
            flips.append(float(t))
    return flips


def compare(
    expected: pd.DataFrame, values: dict[str, float], fidelity: str = "paper"
) -> pd.DataFrame:
    """One row per expected value with the obtained value and a status (:data:`STATUSES`).

    ``fidelity`` is the run's profile: anything but ``"paper"`` marks the values of
    :data:`REDUCED_FIDELITY_CLASSES` ``not_at_this_fidelity`` instead of comparing them.
    """
    rows = []
    for _, entry in expected.iterrows():
        key = entry.get("key")
        klass = _text(entry, "tolerance_class") or ""
        stated = _stated_tolerance(entry)
        base = {
            "paper": entry["paper"],
            "item": entry["item"],
            "quantity": entry["quantity"],
            "key": key if isinstance(key, str) else "",
            "expected": float(entry["value"]),
            "tolerance": stated if stated is not None else 0.0,
            "tolerance_class": klass,
            "obtained": math.nan,
            "note": _text(entry, "tolerance_reason") or "",
        }
        accept = entry.get("accept_range")
        if isinstance(accept, list):
            base["note"] = f"accepted range [{accept[0]:g}, {accept[1]:g}]"
        computed = isinstance(key, str) and key in values
        if computed:
            base["obtained"] = values[key]
        if reason := _text(entry, "paper_inconsistency"):
            rows.append({**base, "status": "paper_inconsistency", "note": reason})
            continue
        if fidelity != "paper" and klass in REDUCED_FIDELITY_CLASSES:
            note = f"class {klass}: compared at paper fidelity only (this run: profile {fidelity})"
            rows.append({**base, "status": "not_at_this_fidelity", "note": note})
            continue
        if not computed:
            for status in ("needs_download", "not_reproducible"):
                if reason := _text(entry, status):
                    rows.append({**base, "status": status, "note": reason})
                    break
            else:
                rows.append({**base, "status": "missing", "note": "not computed"})
            continue
        obtained = values[key]
        if isinstance(accept, list):
            ok = accept[0] <= obtained <= accept[1]
        else:
            ok = abs(obtained - base["expected"]) <= base["tolerance"] * (1 + 1e-9)
        flips = _side_flips(base["expected"], obtained, entry.get("thresholds"))
        if flips:
            ok = False
            sides = ", ".join(f"{t:g}" for t in flips)
            base["note"] = f"on the other side of {sides} than the printed value (verdict flips)"
        rows.append({**base, "status": "pass" if ok else "fail"})
    return pd.DataFrame(rows, columns=COLUMNS)


def gate(board: pd.DataFrame) -> pd.DataFrame:
    """Rows that must fail CI: values that fail (tolerance or verdict side) or were not computed."""
    return board[board["status"].isin(_GATE_STATUSES)]


def summary(board: pd.DataFrame) -> str:
    """One line overall plus one per paper (passed / compared and every other status), each
    paper followed by one line per reason its values are not compared."""

    def line(label: str, df: pd.DataFrame) -> str:
        counts = df["status"].value_counts()
        compared = int(counts.get("pass", 0) + counts.get("fail", 0))
        others = ", ".join(
            f"{int(counts.get(s, 0))} {s.replace('_', ' ')}" for s in STATUSES[1:]
        )
        return f"{label}: {int(counts.get('pass', 0))}/{compared} passed, {others}"

    def reasons(df: pd.DataFrame) -> list[str]:
        listed = df[df["status"].isin(["not_reproducible", "needs_download", "paper_inconsistency"])]
        notes = listed.groupby(["status", "note"], sort=True).size()
        return [
            f"    {count} {status.replace('_', ' ')}: {note}" for (status, note), count in notes.items()
        ]

    lines = [line("reproduction", board)]
    for paper, df in board.groupby("paper", sort=True):
        lines += [line(f"  {paper}", df), *reasons(df)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m uqval.pipeline.scoreboard gate results/reproduction.csv``: exit 1 and list
    the rows when any value fails or is missing, else print one line and exit 0."""
    parser = argparse.ArgumentParser(prog="python -m uqval.pipeline.scoreboard")
    parser.add_argument("command", choices=["gate"])
    parser.add_argument("board", type=Path, help="results/reproduction.csv")
    args = parser.parse_args(argv)
    if not args.board.is_file():
        print(f"scoreboard gate: {args.board}: no such file", file=sys.stderr)
        return 2
    board = pd.read_csv(args.board, keep_default_na=False, na_values=[""])
    bad = gate(board)
    counts = board["status"].value_counts().to_dict()
    print("scoreboard statuses: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in STATUSES))
    if len(bad):
        cols = ["item", "quantity", "expected", "obtained", "tolerance", "status", "note"]
        print(bad[cols].to_string(index=False))
        print(f"scoreboard gate: {len(bad)} value(s) failed or missing", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
