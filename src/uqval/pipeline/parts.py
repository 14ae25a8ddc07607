"""Datasets given as parts (``parts:`` in a dataset YAML): a folder or glob of Parquet files
validated without holding all rows at once (issue 41), one pipeline job per part and pass.

The rules (``workflow/rules/stages/parts.smk``) call one function each, the steps of
:func:`uqval.validation.parts.validate_parts` with their results written to files
(:mod:`uqval.validation.parts_io`):

1. :func:`write_index`: the parts in reading order, each part's first global row and the
   share of the key range whose rows are subsample candidates (from the Parquet metadata);
2. :func:`first_pass` per part (:func:`~uqval.validation.parts.summarise_part`);
3. :func:`write_plan`: the combination of every first pass
   (:func:`~uqval.validation.parts.plan_parts`), the bins of the second pass;
4. :func:`second_pass` per part (:func:`~uqval.validation.parts.bin_part`);
5. :func:`parts_result`: the validation (:func:`~uqval.validation.parts.finish_parts`), the
   numbers of :func:`~uqval.validation.parts.validate_parts` bit for bit
   (``tests/test_workflow_parts.py``).

The YAML entry of such a dataset (:func:`parts_columns`, :func:`resolve_parts`) names the
columns with the keys of every dataset: ``quantities.E`` (or ``y_true`` and ``y_pred``),
``quantities.uE`` (``sqrt(COLUMN)`` when the column holds variances), ``features``
(``name: name``), ``group``; each value is a column of the Parquet files, not an expression.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from uqval._internal.atomic import write_json
from uqval._internal.errors import ConfigError, DataError
from uqval._internal.parts import PartsSource
from uqval.validation import parts as vparts
from uqval.validation import parts_io
from uqval.validation.engine import _options
from uqval.validation.result import ValidationResult

__all__ = [
    "first_pass",
    "parts_columns",
    "parts_result",
    "resolve_parts",
    "second_pass",
    "write_index",
    "write_plan",
]

_SQRT = re.compile(r"^\s*sqrt\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$")
_QUANTITIES = ("E", "y_true", "y_pred", "uE")
_GLOB = set("*?[")
_FIELDS = {"id", "title", "units", "parts", "quantities", "features", "group", "filters"}


def _column(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.isidentifier():
        raise ConfigError(f"{where}: '{str(value)[:80]}' is not a column name; in a dataset "
                          "given as parts each quantity is a column of the Parquet files "
                          "(letters, digits and _), not an expression")
    return value


def parts_columns(entry: Mapping[str, Any], where: str) -> vparts.PartColumns:
    """The columns of a dataset given as parts (module docstring), or a ConfigError naming the
    field: ``E`` or both ``y_true`` and ``y_pred``, and ``uE``, each a column name
    (``uE: sqrt(var)``: the column ``var`` holds variances, uE = sqrt(var)); features as
    ``name: name``; ``filters.nonpositive_uncertainty`` (default true) removes and counts the
    rows with a non-positive uncertainty, a missing group or a NaN or infinite value
    (``uqval validate --drop-invalid``), false refuses them naming the file and row."""
    other = sorted(set(entry) - _FIELDS)
    if other:
        raise ConfigError(f"{where}: {', '.join(other)} cannot be used with parts: (a dataset "
                          "given as parts reads the columns of its Parquet files directly)")
    q = entry.get("quantities")
    if not isinstance(q, Mapping):
        raise ConfigError(f"{where} needs quantities (E or y_true and y_pred, and uE)")
    unknown = sorted(set(q) - set(_QUANTITIES))
    if unknown:
        raise ConfigError(f"{where}: quantities.{unknown[0]} is not available for a dataset given "
                          "as parts; give E (or y_true and y_pred) and uE")
    if "uE" not in q:
        raise ConfigError(f"{where}: quantities.uE (the uncertainty column) is needed")
    if ("E" in q) == ("y_true" in q or "y_pred" in q) or ("E" not in q and len(q) != 3):
        raise ConfigError(f"{where}: give quantities.E (the error column) or both "
                          "quantities.y_true and quantities.y_pred, not both")
    variance = _SQRT.match(str(q["uE"]))
    uncertainty = variance.group(1) if variance else _column(q["uE"], f"{where}, quantities.uE")
    features = entry.get("features", {})
    for name, column in features.items():
        if column != name:
            raise ConfigError(f"{where}, features.{name}: with parts a feature is a column, "
                              f"written '{name}: {name}' (the page names it by its column)")
    filters = dict(entry.get("filters", {}))
    drop = bool(filters.pop("nonpositive_uncertainty", True))
    if filters:
        raise ConfigError(f"{where}: filters.{sorted(filters)[0]} is not available for a "
                          "dataset given as parts (only nonpositive_uncertainty)")
    group = entry.get("group")
    return vparts.PartColumns(
        uncertainty,
        error=_column(q["E"], f"{where}, quantities.E") if "E" in q else None,
        y_true=_column(q["y_true"], f"{where}, quantities.y_true") if "y_true" in q else None,
        y_pred=_column(q["y_pred"], f"{where}, quantities.y_pred") if "y_pred" in q else None,
        features=tuple(_column(f, f"{where}, features") for f in features),
        group=None if group is None else str(group), variance=variance is not None,
        drop_invalid=drop)


def resolve_parts(yaml_file: str | Path, value: str, where: str) -> str:
    """Absolute form of ``parts: value``: ``~`` expanded, a relative path taken from the
    folder of ``yaml_file`` (as ``files: [{local: ...}]``); a folder, or a glob pattern whose
    fixed leading folder exists. ConfigError otherwise (the files themselves are listed when
    the workflow is planned, under the rules of :class:`uqval._internal.parts.PartsSource`:
    none may lead out of the folder)."""
    if any(ord(c) < 32 for c in value):
        raise ConfigError(f"{where}: path '{value[:200]}' has control characters; refused")
    given = Path(value).expanduser()
    full = given if given.is_absolute() else Path(yaml_file).resolve().parent / given
    fixed = []
    for part in full.parts:
        if any(c in _GLOB for c in part):
            break
        fixed.append(part)
    folder = Path(*fixed)
    if not folder.is_dir():
        what = "the folder before the first *, ? or [" if len(fixed) < len(full.parts) else "folder"
        raise ConfigError(f"{where}: parts '{value[:200]}': {what} {folder} does not exist or is "
                          "not a folder; parts are a folder of Parquet files or a glob pattern "
                          f"such as preds/*.parquet, absolute or relative to the folder of "
                          f"{yaml_file}")
    return str(full)


def _read_json(path: str | Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def write_index(source: str, files: Sequence[str], subsample: int, out: str | Path) -> None:
    """Write ``out`` (JSON): the parts of ``source`` in reading order, refusing a listing
    other than ``files`` (the one the workflow was planned with), their first global rows,
    the rows stored and the candidate share of the subsample
    (:func:`~uqval.validation.parts._candidate_fraction`)."""
    found = [str(p) for p in PartsSource(source).files()]
    if found != list(files):
        raise DataError(f"{source}: the parts changed after the workflow was planned ({len(files)} "
                        f"then, {len(found)} now); run the workflow again")
    firsts, stored = vparts._first_rows([Path(f) for f in found])
    write_json({"source": source, "root": str(PartsSource(source).root), "files": found,
                "first_rows": firsts, "rows_stored": stored, "subsample": subsample,
                "fraction": vparts._candidate_fraction(subsample, stored)}, Path(out))


def _columns(columns: Mapping[str, Any]) -> vparts.PartColumns:
    return vparts.PartColumns(**{**columns, "features": tuple(columns["features"])})


def first_pass(index: str | Path, k: int, part: str, columns: Mapping[str, Any], *, seed: int,
               n_boot: int, out: str | Path) -> None:
    """Pass A of part ``k`` (:func:`~uqval.validation.parts.summarise_part`) to ``out``."""
    ix = _read_json(index)
    if ix["files"][k] != part:
        raise DataError(f"{part}: not part {k} of the index {index}; run the workflow again")
    summary = vparts.summarise_part(Path(part), _columns(columns), first_row=ix["first_rows"][k],
                                    seed=seed, n_boot=n_boot, fraction=ix["fraction"])
    parts_io.save_summary(summary, Path(out))


def _plan(index: str | Path, firsts: Sequence[str], columns: Mapping[str, Any],
          n_bins: int | None) -> vparts.PartsPlan:
    ix = _read_json(index)
    summaries = [parts_io.load_summary(Path(f)) for f in firsts]
    plan = vparts.plan_parts(summaries, _columns(columns), Path(ix["root"]),
                             subsample=ix["subsample"], n_bins=n_bins)
    if plan is None:
        raise DataError(
            f"{ix['source']}: the subsample candidates of the first pass hold fewer than "
            f"{ix['subsample']} rows (8 binomial standard deviations below the expected count: "
            "a chance below 1e-15); change analysis.seed or analysis.validate.parts_subsample "
            "and run again")
    return plan


def write_plan(index: str | Path, firsts: Sequence[str], columns: Mapping[str, Any], *,
               n_bins: int | None, out: str | Path) -> None:
    """The combination of the first passes (:func:`~uqval.validation.parts.plan_parts`):
    write the bins of the second pass to ``out``. When every row is in the subsample the
    second pass is not needed: an empty plan (no variable, no tail bucket) is written."""
    plan = _plan(index, firsts, columns, n_bins)
    bins = plan.bins or vparts.BinPlan(zms=plan.sum_z2 / plan.m, mean_z=plan.sum_z / plan.m,
                                       starts={}, tail_buckets=(),
                                       uncertainty_name=plan.inputs.uncertainty_name)
    parts_io.save_bin_plan(bins, Path(out))


def second_pass(plan: str | Path, first: str | Path, part: str, columns: Mapping[str, Any], *,
                out: str | Path) -> None:
    """Pass B of one part (:func:`~uqval.validation.parts.bin_part`) to ``out``, refusing a
    file whose bytes changed since its first pass."""
    summary = parts_io.load_summary(Path(first))
    if summary.path != part:
        raise DataError(f"{first}: the first pass of {summary.path}, not of {part}")
    bins = vparts.bin_part(Path(part), _columns(columns), parts_io.load_bin_plan(Path(plan)),
                           sha256=summary.sha256)
    parts_io.save_part_bins(bins, Path(out))


def parts_result(index: str | Path, firsts: Sequence[str], seconds: Sequence[str],
                 columns: Mapping[str, Any], *, seed: int, n_boot: int, n_bins: int | None,
                 n_permutations: int | None, n_workers: int = 1) -> ValidationResult:
    """The validation of the dataset from the files of both passes: the plan is formed again
    from the first passes (the same numbers as :func:`write_plan`'s), and with the second
    passes :func:`~uqval.validation.parts.finish_parts` gives the result of
    :func:`~uqval.validation.parts.validate_parts` with the same settings (``alpha`` 0.05,
    the default tolerance and UCC permutations)."""
    from uqval.validation import rules

    cols = _columns(columns)
    alpha, tolerance, n_ucc = 0.05, rules.DEFAULT_TOLERANCE, 1999
    n_boot, n_perm, n_ucc, n_bins = _options(list(cols.features), "uqval", alpha, tolerance,
                                             n_boot, n_permutations, n_ucc, n_bins, None)
    plan = _plan(index, firsts, columns, n_bins)
    part_bins = ([] if plan.bins is None
                 else [parts_io.load_part_bins(Path(s)) for s in seconds])
    return vparts.finish_parts(plan, part_bins, seed=seed, n_boot=n_boot, n_permutations=n_perm,
                               n_bins=n_bins, n_ucc_permutations=n_ucc, alpha=alpha,
                               tolerance=tolerance, n_workers=n_workers, say=lambda _: None)
