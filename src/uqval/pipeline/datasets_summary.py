"""Summary table of prepared datasets (results/tables/datasets.csv)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from uqval.report.files import csv_safe

COLUMNS = ["id", "family", "title", "M", "n_raw", "n_filtered", "filtered", "kind", "features",
           "units", "source"]
"""Columns of the table (also of an empty one: every selected dataset given as parts)."""


def summarize_reports(report_files: Iterable[str | Path]) -> pd.DataFrame:
    """One row per dataset: id, family, M, raw rows, rows removed per filter, units, source.

    Titles, units and sources come from contributed YAML files: text cells are made
    formula-safe for spreadsheets (:func:`uqval.report.files.csv_safe`)."""
    rows = []
    for path in report_files:
        rep = json.loads(Path(path).read_text())
        removed = "; ".join(f"{f['name']}: {f['removed']}" for f in rep["filters"]) or "none"
        rows.append(
            {
                "id": rep["id"],
                "family": rep["family"],
                "title": rep["title"],
                "M": rep["M"],
                "n_raw": rep["n_raw"],
                "n_filtered": rep["n_raw"] - rep["M"],
                "filtered": removed,
                "kind": rep["kind"],
                "features": ";".join(rep["features"]),
                "units": rep["units"],
                "source": rep["citation"],
            }
        )
    return csv_safe(pd.DataFrame(rows, columns=COLUMNS))


def size_values(summary: pd.DataFrame) -> pd.DataFrame:
    """Long-format values ``M/<id>`` and ``n_raw/<id>`` for the reproduction scoreboard."""
    keys = [f"M/{i}" for i in summary["id"]] + [f"n_raw/{i}" for i in summary["id"]]
    values = list(summary["M"]) + list(summary["n_raw"])
    return pd.DataFrame({"key": keys, "value": values})
