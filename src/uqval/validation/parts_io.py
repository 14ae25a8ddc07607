"""Files of the per-part jobs of a test set in parts (the pipeline's SLURM jobs).

Each pass of each part (:func:`uqval.validation.parts.summarise_part`,
:func:`~uqval.validation.parts.bin_part`) and the plan of the second pass are written as one
NumPy ``.npz`` file, read back with ``allow_pickle=False`` (no object is unpickled: a file
from another machine cannot run code), with a ``format`` entry checked on reading. Every
float is stored as the float64 it was, so a combination of read-back files gives the numbers
of the in-process run bit for bit (``tests/test_parts.py``).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "plan.npz"
>>> plan = BinPlan(zms=1.25, mean_z=-0.01, starts={"u": np.array([0.1, 0.5])},
...                tail_buckets=(16000,), uncertainty_name="u")
>>> save_bin_plan(plan, path)
>>> back = load_bin_plan(path); back.zms, back.starts["u"].tolist(), back.tail_buckets
(1.25, [0.1, 0.5], (16000,))
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uqval._internal.errors import DataError
from uqval.stats.part_sums import BinSums, ExactSums
from uqval.validation.parts import BinPlan, PartBins, PartSummary

__all__ = [
    "load_bin_plan",
    "load_part_bins",
    "load_summary",
    "save_bin_plan",
    "save_part_bins",
    "save_summary",
]

_FORMAT = "uqval-parts-1"


def _write(path: Path, arrays: dict[str, Any], kind: str) -> None:
    """Write ``arrays`` to ``path`` atomically (a temporary file in the same folder, then
    renamed: no partial file is ever left under the final name)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, format=np.array(f"{_FORMAT}/{kind}"), **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path, kind: str) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a uqval parts file ({exc})") from None
    if str(arrays.get("format", "")) != f"{_FORMAT}/{kind}":
        raise DataError(f"{path}: not a uqval parts file of kind {kind!r}")
    return arrays


def _text(value: Any) -> np.ndarray:
    return np.array(json.dumps(value))


def save_summary(summary: PartSummary, path: Path) -> None:
    """Write the first pass of one part."""
    arrays = {
        "meta": _text({"path": summary.path, "first_row": summary.first_row,
                       "sha256": summary.sha256, "counts": summary.counts,
                       "candidate_columns": list(summary.candidates.columns)}),
        "sums_parts": summary.sums.parts, "sums_lengths": summary.sums.lengths,
        "boot": summary.boot, "hist_counts": summary.histogram[0],
        "hist_sums": summary.histogram[1],
        "groups": np.empty(0, np.uint64) if summary.groups is None else summary.groups,
        "has_groups": np.array(summary.groups is not None),
    }
    for i, column in enumerate(summary.candidates.columns):
        arrays[f"candidate_{i}"] = summary.candidates[column].to_numpy()
    _write(path, arrays, "first")


def load_summary(path: Path) -> PartSummary:
    """Read the first pass of one part (:func:`save_summary`)."""
    a = _read(path, "first")
    meta = json.loads(str(a["meta"]))
    candidates = pd.DataFrame({c: a[f"candidate_{i}"]
                               for i, c in enumerate(meta["candidate_columns"])})
    return PartSummary(meta["path"], int(meta["first_row"]), meta["sha256"],
                       {k: int(v) for k, v in meta["counts"].items()},
                       ExactSums(a["sums_parts"], a["sums_lengths"]), a["boot"],
                       (a["hist_counts"], a["hist_sums"]), candidates,
                       a["groups"] if bool(a["has_groups"]) else None)


def save_bin_plan(plan: BinPlan, path: Path) -> None:
    """Write what the second pass needs (:class:`~uqval.validation.parts.BinPlan`)."""
    names = list(plan.starts)
    arrays = {"meta": _text({"zms": plan.zms.hex(), "mean_z": plan.mean_z.hex(),
                             "names": names, "tail_buckets": list(plan.tail_buckets),
                             "uncertainty_name": plan.uncertainty_name})}
    for i, name in enumerate(names):
        arrays[f"starts_{i}"] = plan.starts[name]
    _write(path, arrays, "plan")


def load_bin_plan(path: Path) -> BinPlan:
    """Read a plan written by :func:`save_bin_plan`."""
    a = _read(path, "plan")
    meta = json.loads(str(a["meta"]))
    return BinPlan(zms=float.fromhex(meta["zms"]), mean_z=float.fromhex(meta["mean_z"]),
                   starts={n: a[f"starts_{i}"] for i, n in enumerate(meta["names"])},
                   tail_buckets=tuple(int(b) for b in meta["tail_buckets"]),
                   uncertainty_name=meta["uncertainty_name"])


def save_part_bins(bins: PartBins, path: Path) -> None:
    """Write the second pass of one part."""
    names = list(bins.bins)
    arrays: dict[str, Any] = {"meta": _text({"names": names,
                                             "tail_buckets": list(bins.tail_values)}),
                              "centred": bins.centred}
    for i, name in enumerate(names):
        b = bins.bins[name]
        arrays.update({f"counts_{i}": b.counts, f"low_{i}": b.low, f"high_{i}": b.high,
                       f"parts_{i}": b.sums.parts, f"lengths_{i}": b.sums.lengths})
    for j, bucket in enumerate(bins.tail_values):
        arrays[f"tail_{j}"] = bins.tail_values[bucket]
    _write(path, arrays, "second")


def load_part_bins(path: Path) -> PartBins:
    """Read the second pass of one part (:func:`save_part_bins`)."""
    a = _read(path, "second")
    meta = json.loads(str(a["meta"]))
    bins = {name: BinSums(a[f"counts_{i}"], a[f"low_{i}"], a[f"high_{i}"],
                          ExactSums(a[f"parts_{i}"], a[f"lengths_{i}"]))
            for i, name in enumerate(meta["names"])}
    tails = {int(b): a[f"tail_{j}"] for j, b in enumerate(meta["tail_buckets"])}
    return PartBins(bins, a["centred"], tails)
