"""Turn the raw files of a registered dataset into a tidy validation table.

The prepared table has one row per validation point and the columns

* ``row``: 1-based index of the point in the raw source files (traceability),
* ``E``: errors (reference - prediction),
* ``uE``: standard uncertainties, when the dataset has them,
* ``U_<P>``: symmetric prediction-interval half-widths for coverage P %, when it has them,
* ``V``: predicted values, when given,
* ``X_<name>``: input features;
* ``G``: the group of every row as text, when the entry names a ``group`` column (rows
  whose errors share a part; passed to :func:`uqval.validate` as ``groups=``);

and for a predictive dataset (``y_true`` with a distribution, members, samples, quantiles or
[low, high] intervals, :mod:`uqval.pipeline.quantities`) also ``Y`` (observed values), ``V``
(the predictive's point, E = Y - V), ``uE`` (its sd, where one exists) and what rebuilds it:
``NU``, ``M_<k>``, ``S_<k>``, ``Q_<level>``, ``L_<level>``/``H_<level>``; the sidecar's
``kind`` names it (``normal``, ``t``, ``ensemble``, ``quantiles``, ...) and ``predictive``
holds the form, family, levels and member columns.

Rows are removed only by the explicit filters of the registry entry, each counted in the
report (the papers drop uE <= 1e-6 sd(E); Jacobs et al. sets have non-positive uE). With
``nonpositive_uncertainty: false`` such rows are not dropped but refused: the dataset fails
with the rows named (z = E/uE needs uE > 0).
Anything else that is wrong raises DataError naming the file, column and rows: a raw file
whose SHA-256 no longer matches its pin, a missing file or column, duplicate column names,
non-numeric or missing values, an empty file, values whose square overflows or underflows
(abs(E), uE or abs(E/uE) beyond about 1e±150), or no rows left after filtering.
CSV sources are read by the one table reader of uqval, :mod:`uqval._internal.tables` (the rules
of ``uqval validate``: separator from the suffix, bounded decompression, NUL bytes, line length,
rows with extra non-empty fields refused with their line number).

The SHA-256 recorded for each source (``source_sha256``) is that of the bytes parsed: they are
hashed as they are read (a pinned file is hashed and verified first, and the parse must read
the same bytes). A source that changes while it is read, or before both outputs are written
(:meth:`PreparedDataset.confirm_written`, called by the rule after writing), fails the job
and leaves no output, so the next run prepares the dataset again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uqval._internal.errors import DataError
from uqval._internal.tables import FileBytes, cell_excerpt, read_csv_table
from uqval.pipeline.expression import evaluate, referenced_names
from uqval.pipeline.fetch import sha256_file
from uqval.pipeline.formula import formula_property
from uqval.pipeline.quantities import level_text, quantity_expressions, table_predictive
from uqval.pipeline.registry import DatasetSpec, check_key_value_pattern, resolve_under
from uqval.predictive.columns import columns_of, parse_distribution
from uqval.validation.inputs import MIN_ROWS

__all__ = ["MIN_PREPARED_ROWS", "FilterCount", "PreparedDataset", "check_enough_rows",
           "prepare_dataset"]

_MAX_ROWS_LISTED = 10
_MAX_KEY_VALUE_BYTES = 1 << 20
_MAX_KEY_VALUE_LINE = 1000
_DEFAULT_PATTERN = r"(\w+)\s*=\s*([-+0-9.eE]+)"


@dataclass(frozen=True)
class FilterCount:
    """How many rows one filter removed and how many remained after it."""

    name: str
    description: str
    removed: int
    remaining: int


@dataclass
class PreparedDataset:
    """The tidy table and the facts recorded in its JSON sidecar; once both are written,
    :meth:`confirm_written` checks that no source changed meanwhile."""

    table: pd.DataFrame
    report: dict[str, Any] = field(default_factory=dict)
    sources: _Sources | None = field(default=None, repr=False)

    def confirm_written(self, outputs: Sequence[str | Path]) -> None:
        """After the outputs were written: when a source file changed since it was read,
        remove them and raise a DataError (the job fails, the next run prepares the dataset
        again). Waits first until the clock is past the outputs' modification times, so that
        an edit after this check is newer than the outputs and makes the next run prepare
        the dataset again, however coarse the file system's clock."""
        written = [Path(o) for o in outputs]
        newest = max((o.stat().st_mtime_ns for o in written if o.exists()), default=0)
        wait_ns = newest + _CLOCK_MARGIN_NS - time.time_ns()
        if wait_ns > 0:
            time.sleep(min(wait_ns, _CLOCK_MARGIN_NS) / 1e9)
        if self.sources is None:
            return
        try:
            self.sources.check_unchanged()
        except DataError:
            for o in written:
                o.unlink(missing_ok=True)
            raise


_CLOCK_MARGIN_NS = 50_000_000
"""50 ms: more than the tick of a file system's coarse clock (1-10 ms)."""


def _rows_text(mask: np.ndarray) -> str:
    rows = np.flatnonzero(mask) + 1
    listed = ", ".join(str(r) for r in rows[:_MAX_ROWS_LISTED])
    more = f" and {len(rows) - _MAX_ROWS_LISTED} more" if len(rows) > _MAX_ROWS_LISTED else ""
    return f"data row(s) {listed}{more}"


def _short(text: object, limit: int = 200) -> str:
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}..."


def _duplicates(names: list[str]) -> list[str]:
    return sorted({n for n in names if names.count(n) > 1})


def _read_csv(src: dict[str, Any], path: Path, raw: FileBytes) -> pd.DataFrame:
    """A CSV source through the one table reader of uqval (:mod:`uqval._internal.tables`):
    the rules of ``uqval validate`` (bounded decompression, NUL bytes, line length, duplicate
    header names, rows with extra non-empty fields refused with their line) plus
    ``skipinitialspace``, ``header: false`` and ``names``."""
    header = src.get("header", True)
    names = src.get("names")
    if names is not None and _duplicates(list(names)):
        raise DataError(f"{path}: sources[].names has duplicate column name(s) {_duplicates(list(names))}")
    df = read_csv_table(path, header=bool(header), names=names, skipinitialspace=True,
                        duplicate_hint="rename them or give names: [...]", raw=raw)
    if _duplicates(list(df.columns)):
        raise DataError(f"{path}: duplicate column name(s) {_short(_duplicates(list(df.columns)))}")
    return df


def _read_key_values(src: dict[str, Any], path: Path, raw: FileBytes) -> dict[str, float]:
    """Constants from a text file: ``pattern`` (screened, see registry.check_key_value_pattern)
    is applied line by line to lines of at most _MAX_KEY_VALUE_LINE characters. The bytes
    parsed are those ``raw`` hashed."""
    pattern = check_key_value_pattern(src.get("pattern", _DEFAULT_PATTERN), f"{path}: pattern")
    template = src.get("key_template", "{key}")
    if path.stat().st_size > _MAX_KEY_VALUE_BYTES:
        raise DataError(f"{path}: larger than {_MAX_KEY_VALUE_BYTES} bytes; not a key-value file")
    with raw.open() as reader:
        data = reader.read(_MAX_KEY_VALUE_BYTES + 1)
        if len(data) > _MAX_KEY_VALUE_BYTES:
            raise DataError(f"{path}: larger than {_MAX_KEY_VALUE_BYTES} bytes; not a key-value "
                            "file")
        reader.read(1)  # the end of the file: the pass is whole, its digest recorded
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text: {exc}") from None
    constants: dict[str, float] = {}
    for number, line in enumerate(lines, start=1):
        if len(line) > _MAX_KEY_VALUE_LINE:
            raise DataError(f"{path}: line {number} is longer than {_MAX_KEY_VALUE_LINE} characters")
        for key, value in pattern.findall(line):
            name = template.replace("{key}", key)
            try:
                number_value = float(value)
            except ValueError:  # neither the key nor the value is quoted: the file may hold
                raise DataError(  # secrets (a local: path naming the wrong file)
                    f"{path}: line {number}: the value matched by the pattern is not a number "
                    f"({len(value)} characters; not shown)"
                ) from None
            if name in constants and constants[name] != number_value:
                raise DataError(f"{path}: line {number}: a key is defined twice with different "
                                "values")
            constants[name] = number_value
    if not constants:
        raise DataError(f"{path}: no key/value pair matches the pattern '{_short(pattern.pattern)}'")
    return constants


def _numeric_column(series: pd.Series, path: Path, column: str) -> np.ndarray:
    values = pd.to_numeric(series, errors="coerce")
    missing = series.isna().to_numpy()
    non_numeric = values.isna().to_numpy() & ~missing
    if non_numeric.any():
        examples = ", ".join(cell_excerpt(v) for v in series[non_numeric].head(3))
        raise DataError(
            f"{path}: column '{column}' has non-numeric values in {_rows_text(non_numeric)} "
            f"(e.g. {examples})"
        )
    if missing.any():
        raise DataError(f"{path}: column '{column}' has missing (NaN/empty) values in {_rows_text(missing)}")
    return values.to_numpy(dtype=float)


class _Sources:
    """Columns of a dataset's CSV sources (joined column-wise) and key-value constants."""

    def __init__(self, spec: DatasetSpec, data_root: Path):
        self.frames: list[tuple[Path, pd.DataFrame]] = []
        self.constants: dict[str, float] = {}
        self.sha256: dict[str, str] = {}
        """SHA-256 of each source file: that of the bytes parsed (recorded in the sidecar)."""
        self._read: list[tuple[Path, FileBytes]] = []
        self._id = spec.id
        for src in spec.entry["sources"]:
            local = spec.local_files.get(src["file"])
            if local is not None:  # a user's own file, read in place (no pin)
                path = Path(local)
            else:
                path = resolve_under(data_root, src["file"], f"dataset '{spec.id}': sources[].file")
            if not path.is_file():
                hint = f"(listed in {spec.config_file})" if local else "(fetch it first)"
                raise DataError(f"dataset '{spec.id}': source file {path} does not exist {hint}")
            raw = FileBytes(path)
            self._read.append((path, raw))
            pin = spec.pins.get(src["file"])
            if pin is not None:  # verified before anything is parsed; every pass must agree
                digest = raw.hash_whole()
                if digest != pin:
                    raise DataError(
                        f"dataset '{spec.id}': raw file {path} no longer matches the SHA-256 pinned in "
                        f"{spec.config_file} (expected {pin}, got {digest}); it was modified "
                        f"or replaced after the fetch. Delete it and run again to fetch a verified copy."
                    )
            if src.get("format", "csv") == "key_value":
                self.constants.update(_read_key_values(src, path, raw))
            else:
                self.frames.append((path, _read_csv(src, path, raw)))
            assert raw.sha256 is not None  # every reader makes one whole pass
            self.sha256[src["file"]] = raw.sha256
        if not self.frames:
            raise DataError(f"dataset '{spec.id}': no CSV source with data rows")
        lengths = {str(p): len(df) for p, df in self.frames}
        if len(set(lengths.values())) > 1:
            raise DataError(
                f"dataset '{spec.id}': sources have different row counts and cannot be joined: {lengths}"
            )
        self.n_rows = next(iter(lengths.values()))

    def check_unchanged(self) -> None:
        """DataError when a source file changed since it was read: its identity (inode,
        size, modification or change time) differs from when it was first opened, or
        its SHA-256 is no longer that of the bytes parsed. The job then fails and keeps no
        output, so the next run prepares the dataset again (a prepared table older than an
        edit is never kept as if it were current)."""
        for path, raw in self._read:
            if raw.changed() or sha256_file(path) != raw.sha256:
                raise DataError(
                    f"dataset '{self._id}': source file {path} changed while it was being "
                    f"prepared (SHA-256 {str(raw.sha256)[:16]}... when read); nothing was "
                    "written. Run again once the file is no longer being written")

    def check_columns(self, spec: DatasetSpec) -> None:
        """One DataError listing every column that an expression or a formula feature of the
        entry uses and no source file has (rather than stopping at the first)."""
        q = spec.entry["quantities"]
        uses = [(what.removeprefix("quantities."), expr) for what, expr in quantity_expressions(q)]
        problems = []
        for key in ("members", "samples"):
            if key in q:
                try:
                    names = self.member_names(spec, key)
                except DataError as exc:
                    problems.append(str(exc))
                    continue
                missing = [n for n in names if self.locate(n) is None]
                if missing:
                    problems.append(f"{key}: column(s) {_short(', '.join(map(repr, missing)))}")
        for name, fspec in spec.entry.get("features", {}).items():
            if isinstance(fspec, str):
                uses.append((f"features.{name}", fspec))
            elif self.locate(fspec["formula_column"]) is None:
                problems.append(f"features.{name}: formula column '{fspec['formula_column']}'")
        group = spec.entry.get("group")
        if group is not None and self.locate(group) is None:
            problems.append(f"group: column '{_short(group)}'")
        for what, expr in uses:
            missing = [n for n in referenced_names(expr) if n not in self.constants and self.locate(n) is None]
            if missing:
                problems.append(f"{what} = '{_short(expr)}': column(s) {', '.join(map(repr, missing))}")
        if problems:
            constants = f"\n  constants: {', '.join(self.constants)}" if self.constants else ""
            raise DataError(
                f"dataset '{spec.id}' ({spec.config_file}): {len(problems)} expression(s) use "
                f"columns that are not in the source files:\n  "
                + "\n  ".join(problems)
                + f"\n  columns available: {_short(self.describe_columns(), 2000)}{_short(constants, 500)}"
            )

    def locate(self, column: str) -> tuple[Path, pd.Series] | None:
        for path, df in self.frames:
            if column in df.columns:
                return path, df[column]
        return None

    def member_names(self, spec: DatasetSpec, key: str) -> list[str]:
        """Columns of ``quantities.members`` (or ``samples``): a YAML list, or a glob or comma
        list read as ``uqval validate --members`` reads it (y_true's and the features' columns
        excluded from a glob)."""
        given = spec.entry["quantities"][key]
        if isinstance(given, list):
            return [str(n) for n in given]
        q = spec.entry["quantities"]
        exclude = set(referenced_names(q["y_true"]))
        for fspec in spec.entry.get("features", {}).values():
            exclude |= set(referenced_names(fspec)) if isinstance(fspec, str) else set()
        every = [str(c) for _, df in self.frames for c in df.columns]
        return columns_of(given, every, f"quantities.{key}", sorted(exclude))

    def member_column(self, name: str) -> np.ndarray:
        """A member's values; empty cells are NaN (the predictive reports and handles them),
        text that is not a number is refused with its rows."""
        found = self.locate(name)
        if found is None:
            raise DataError(f"dataset '{self._id}': member column '{_short(name)}' is not in the "
                            f"source files (columns: {_short(self.describe_columns(), 500)})")
        path, series = found
        values = pd.to_numeric(series, errors="coerce")
        bad = values.isna().to_numpy() & ~series.isna().to_numpy()
        if bad.any():
            raise DataError(f"{path}: column '{name}' has non-numeric values in {_rows_text(bad)}")
        return values.to_numpy(dtype=float)

    def describe_columns(self) -> str:
        return "; ".join(f"{p.name}: {', '.join(df.columns)}" for p, df in self.frames)

    def namespace_for(self, expr: str, spec: DatasetSpec, what: str) -> dict[str, Any]:
        namespace: dict[str, Any] = {}
        for name in referenced_names(expr):
            if name in self.constants:
                namespace[name] = self.constants[name]
                continue
            found = self.locate(name)
            if found is None:
                constants = f"; constants: {', '.join(self.constants)}" if self.constants else ""
                raise DataError(
                    f"dataset '{spec.id}' ({spec.config_file}): {what} = '{_short(expr)}' uses column "
                    f"'{name}', which is not in the source files (columns: "
                    f"{_short(self.describe_columns(), 500)}{_short(constants)})"
                )
            path, series = found
            namespace[name] = _numeric_column(series, path, name)
        return namespace

    def evaluate(self, expr: str, spec: DatasetSpec, what: str) -> np.ndarray:
        try:
            values = evaluate(expr, self.namespace_for(expr, spec, what))
        except ValueError as exc:
            raise DataError(f"dataset '{spec.id}' ({spec.config_file}): {what}: {exc}") from None
        values = np.broadcast_to(values, (self.n_rows,)).astype(float)
        bad = ~np.isfinite(values)
        if bad.any():
            raise DataError(
                f"dataset '{spec.id}': {what} = '{_short(expr)}' is not finite (NaN or infinite) in "
                f"{_rows_text(bad)}; check the source values there (e.g. a negative variance under sqrt)"
            )
        return values

    def formula_feature(self, spec: DatasetSpec, name: str, fspec: dict[str, Any]) -> np.ndarray:
        found = self.locate(fspec["formula_column"])
        if found is None:
            raise DataError(
                f"dataset '{spec.id}' ({spec.config_file}): feature '{name}' needs the formula "
                f"column '{fspec['formula_column']}', which is not in the source files "
                f"(columns: {self.describe_columns()})"
            )
        path, series = found
        missing = series.isna().to_numpy()
        if missing.any():
            raise DataError(f"{path}: column '{fspec['formula_column']}' is empty in {_rows_text(missing)}")
        try:
            return formula_property(series.astype(str), fspec["property"])
        except ValueError as exc:
            raise DataError(f"{path}: column '{fspec['formula_column']}': {exc}") from None


def _apply_filters(
    table: pd.DataFrame, filters: dict[str, Any], uncertainty_columns: list[str], where: str
) -> tuple[pd.DataFrame, list[FilterCount]]:
    counts: list[FilterCount] = []

    def apply(name: str, description: str, drop: np.ndarray) -> None:
        nonlocal table
        table = table.loc[~drop]
        counts.append(FilterCount(name, description, int(drop.sum()), len(table)))

    # Threshold of the relative filter from the unfiltered errors, as in the authors' code.
    with np.errstate(over="ignore"):
        sd_e = float(np.std(table["E"].to_numpy(), ddof=1)) if len(table) > 1 else 0.0
    nonpositive = np.zeros(len(table), dtype=bool)
    undefined = np.zeros(len(table), dtype=bool)
    for col in uncertainty_columns:
        nonpositive |= table[col].to_numpy() <= 0
        undefined |= np.isnan(table[col].to_numpy())  # an ensemble without spread
    nonpositive |= undefined
    if not uncertainty_columns:  # quantiles, [low, high] intervals: the predictive's checks
        pass
    elif filters.get("nonpositive_uncertainty", True):
        apply("nonpositive_uncertainty", f"{' or '.join(uncertainty_columns)} <= 0"
              + (" or undefined (members without spread)" if undefined.any() else ""), nonpositive)
    elif nonpositive.any():
        raise DataError(
            f"{where}: {' or '.join(uncertainty_columns)} <= 0 in {_rows_text(nonpositive)}, and "
            f"filters.nonpositive_uncertainty is false; z = E/uE needs positive uncertainties. "
            f"Fix these rows or set nonpositive_uncertainty: true to drop and count them."
        )
    if "min_uE_rel_sd" in filters and "uE" in table:
        factor = float(filters["min_uE_rel_sd"])
        apply(
            "min_uE_rel_sd",
            f"uE <= {factor:g} * sd(E) = {factor * sd_e:.6g}",
            table["uE"].to_numpy() <= factor * sd_e,
        )
    if filters.get("zero_error", False):
        apply("zero_error", "E == 0", table["E"].to_numpy() == 0)
    return table, counts


def _check_magnitudes(
    table: pd.DataFrame, uncertainty_columns: list[str], quantities: dict[str, Any], spec: DatasetSpec
) -> None:
    """Refuse values whose squares overflow to inf or underflow to 0 (E², uE², U², z²): every
    statistic of uqval squares them, and the failure would otherwise surface much later."""
    e = table["E"].to_numpy()
    e_text = quantities.get("E", f"({quantities.get('y_true')}) - prediction")
    if "E" not in quantities and "uE" not in table:  # quantiles, intervals: rows whose
        e = np.where(np.isnan(e), 1.0, e)  # point is undefined are the predictive's to report
    checks = []
    with np.errstate(all="ignore"):
        checks.append(("E", e_text, np.square(e), False))
        for col in uncertainty_columns:
            u = table[col].to_numpy()
            expr = quantities.get("uE", "sd") if col == "uE" else quantities["intervals"][col[2:]]
            checks.append((col, expr, np.square(u), True))
            checks.append((f"E/{col}", f"({e_text}) / ({expr})", np.square(e / u), False))
    for name, expr, squares, positive in checks:
        bad = ~np.isfinite(squares) | (positive & (squares == 0))
        if bad.any():
            rows = table["row"].to_numpy()[bad]
            listed = ", ".join(str(r) for r in rows[:_MAX_ROWS_LISTED])
            more = f" and {len(rows) - _MAX_ROWS_LISTED} more" if len(rows) > _MAX_ROWS_LISTED else ""
            raise DataError(
                f"dataset '{spec.id}' ({spec.config_file}): {name} = '{_short(expr)}' (source files "
                f"{', '.join(spec.source_files)}) is too large or too small for its square to be a "
                f"finite non-zero number in data row(s) {listed}{more}; keep |values| within about "
                f"1e-150 .. 1e150 (rescale the units)"
            )


MIN_PREPARED_ROWS = MIN_ROWS
"""Fewest rows of a prepared dataset: its page validates it in at least two bins of 30 rows
(:data:`uqval.validation.inputs.MIN_ROWS`); the simulated references bin it too."""


def check_enough_rows(prepared: PreparedDataset) -> None:
    """DataError unless the table has the MIN_PREPARED_ROWS (60) rows its page and the
    binned tests need; the workflow calls it after preparing, so a tiny dataset stops there,
    with the minimum stated, before any analysis."""
    report = prepared.report
    if report["M"] < MIN_PREPARED_ROWS:
        raise DataError(
            f"dataset '{report['id']}' ({report['config_file']}): M = {report['M']} row(s) after "
            f"filtering ({report['n_raw']} raw); at least {MIN_PREPARED_ROWS} are needed (the "
            "validation bins the rows in at least two bins of 30)"
        )


def prepare_dataset(spec: DatasetSpec, data_root: str | Path) -> PreparedDataset:
    """Read, derive, check and filter one dataset; see the module docstring for the columns."""
    data_root = Path(data_root)
    sources = _Sources(spec, data_root)
    sources.check_columns(spec)
    quantities = spec.entry["quantities"]
    columns: dict[str, np.ndarray] = {"row": np.arange(1, sources.n_rows + 1)}
    kind = spec.predictive_kind
    predictive: dict[str, Any] | None = None
    if kind is not None:
        predictive = _predictive_columns(sources, spec, kind, columns)
    else:
        columns["E"] = sources.evaluate(quantities["E"], spec, "E")
    uncertainty_columns = []
    if "uE" in quantities and kind is None:
        columns["uE"] = sources.evaluate(quantities["uE"], spec, "uE")
    if "uE" in columns:
        uncertainty_columns.append("uE")
    levels = sorted(quantities.get("intervals", {}), key=float) if kind is None else []
    for level in levels:
        col = f"U_{level}"
        columns[col] = sources.evaluate(quantities["intervals"][level], spec, f"intervals.{level}")
        uncertainty_columns.append(col)
    if "V" in quantities:
        columns["V"] = sources.evaluate(quantities["V"], spec, "V")
    feature_units: dict[str, str] = {}
    for name, fspec in spec.entry.get("features", {}).items():
        if isinstance(fspec, str):
            columns[f"X_{name}"] = sources.evaluate(fspec, spec, f"features.{name}")
            feature_units[name] = ""
        else:
            columns[f"X_{name}"] = sources.formula_feature(spec, name, fspec)
            feature_units[name] = fspec.get("unit", "")
    group = spec.entry.get("group")
    if group is not None:  # group labels as text; a missing label stays missing (validate refuses it)
        found = sources.locate(group)
        if found is None:
            raise DataError(f"dataset '{spec.id}' ({spec.config_file}): group column "
                            f"'{_short(group)}' is not in the source files")
        group_labels = found[1]
        group_text = group_labels.astype(str).to_numpy(dtype=object)
        group_text[group_labels.isna().to_numpy()] = None
        columns["G"] = group_text
    table = pd.DataFrame(columns)
    n_raw = len(table)
    n_zero_errors = int((table["E"] == 0).sum())
    where = f"dataset '{spec.id}' ({spec.config_file})"
    table, counts = _apply_filters(table, spec.entry.get("filters", {}), uncertainty_columns, where)
    if len(table) == 0:
        raise DataError(
            f"dataset '{spec.id}': no rows left after filtering ("
            + ", ".join(f"{c.name} removed {c.removed}" for c in counts)
            + ")"
        )
    table = table.reset_index(drop=True)
    _check_magnitudes(table, uncertainty_columns, quantities, spec)
    report = {
        "id": spec.id,
        "family": spec.family,
        "title": spec.title,
        "citation": spec.citation,
        "units": spec.units,
        "config_file": spec.config_file,
        "sources": spec.source_files,
        "constants": sources.constants,
        "source_sha256": sources.sha256,
        "local_files": dict(spec.local_files),
        "kind": ("variance" if "uE" in quantities else "interval") if predictive is None
        else predictive["name"],
        "interval_levels": [float(level) for level in levels],
        **({"predictive": predictive} if predictive is not None else {}),
        "features": feature_units,
        **({"group": group} if group is not None else {}),
        "columns": list(table.columns),
        "n_raw": n_raw,
        "n_zero_errors": n_zero_errors,
        "filters": [c.__dict__ for c in counts],
        "M": len(table),
    }
    sources.check_unchanged()
    return PreparedDataset(table=table, report=report, sources=sources)


def _predictive_columns(sources: _Sources, spec: DatasetSpec, kind: str,
                        columns: dict[str, np.ndarray]) -> dict[str, Any]:
    """Add the columns of a predictive dataset to ``columns`` (Y, V, E, uE where a variance
    exists, and what rebuilds the predictive: NU, M_k, S_k, Q_level, L_level, H_level; see
    :mod:`uqval.pipeline.quantities`); return the sidecar's ``predictive`` entry."""
    q = spec.entry["quantities"]
    columns["Y"] = sources.evaluate(q["y_true"], spec, "y_true")
    info: dict[str, Any] = {"kind": kind}
    raw: dict[str, np.ndarray] = {}
    if kind == "distribution":
        dist = parse_distribution(q.get("distribution", "normal"), "quantities.distribution")
        info.update(dist)
        columns["V"] = sources.evaluate(q["y_pred"], spec, "y_pred")
        columns["uE"] = sources.evaluate(q["uE"], spec, "uE")
        columns["E"] = columns["Y"] - columns["V"]
        if "nu_column" in dist:
            columns["NU"] = sources.evaluate(dist["nu_column"], spec, "distribution")
        info["name"] = dist["family"]
        return info
    if kind in ("members", "samples"):
        names = sources.member_names(spec, kind)
        prefix = "M_" if kind == "members" else "S_"
        raw = {f"{prefix}{k}": sources.member_column(n) for k, n in enumerate(names, start=1)}
        info["columns"] = names
    else:
        mapping = q["quantiles"] if kind == "quantiles" else q["intervals"]
        levels = sorted(mapping, key=float)
        info["levels"] = [float(x) for x in levels]
        for x in levels:
            what = f"{'quantiles' if kind == 'quantiles' else 'intervals'}.{x}"
            if kind == "quantiles":
                raw[f"Q_{level_text(float(x))}"] = sources.evaluate(mapping[x], spec, what)
            else:
                raw[f"L_{level_text(float(x))}"] = sources.evaluate(mapping[x][0], spec, what)
                raw[f"H_{level_text(float(x))}"] = sources.evaluate(mapping[x][1], spec, what)
    built = table_predictive(pd.DataFrame({"Y": columns["Y"], **raw}), {"predictive": info})
    assert built is not None
    pred = built[1]
    info["name"] = pred.kind
    columns["V"] = pred.point
    columns["E"] = columns["Y"] - columns["V"]
    if pred.variance is not None:
        with np.errstate(invalid="ignore"):
            columns["uE"] = np.sqrt(pred.variance)
    columns.update(raw)
    return info
