"""Validate a test set given as parts (Parquet files) without holding all its rows at once.

:func:`validate_parts` reads a folder or glob of Parquet files (:mod:`uqval._internal.parts`)
in two passes, one job per part and pass, with ``n_jobs`` threads (the pipeline runs the
same per-part functions as SLURM jobs). Docs: docs/explanations/large-sets.md, "Test sets in
parts"; docs/choices.md, "Ten million predictions and beyond".

1. **Pass A** (:func:`summarise_part`): the part's columns are read and checked (the checks
   of :func:`uqval.validate`, with the file named in every message), and the part gives: its
   row count and exact sums of Z and Z^2; the Poisson-bootstrap sums of the scale factor
   (:func:`uqval.stats.part_sums.poisson_bootstrap_sums`, one weight per row or per group);
   the histogram of Z^2 (tail shares); and its candidates for the seeded uniform subsample
   (rows, or whole groups, whose key falls below a threshold chosen so that the union holds
   the ``subsample`` rows with the smallest keys with overwhelming probability; checked, and
   redone with a wider threshold otherwise). With groups the part's group keys are kept, to
   check that no group is split across parts.
2. **Combination**: the subsample (the ``subsample`` rows, or whole groups, with the smallest
   keys, in file order) fixes the tie-aware equal-count bins of uE and of each feature
   (:func:`uqval.validation.bin_tables.bin_variables`): its quantiles are those of all rows to
   a rank error of at most 1.36/sqrt(S) with 95 % probability (Dvoretzky-Kiefer-Wolfowitz
   with Massart's constant), 0.14 % at S = 10^6.
3. **Pass B** (:func:`bin_part`): the same files, checked to be the same bytes (SHA-256), give
   per-bin counts, extremes and exact sums of Z, Z^2 and Z^4 at those bins, the centred sums of
   the BCa acceleration, the values of the Z^2 histogram bucket holding each tail threshold,
   and with groups the sum of squared group residuals of <Z>.
4. The engine (:func:`uqval.validation.engine.run_engine`) runs on the subsample with the
   numbers of all rows (:class:`uqval.validation.all_rows.AllRows`): ZMS, <Z>, the scale
   factor and its interval, the tail shares and every per-bin value and interval are those of
   all rows; the permutation, bin-free, joint and UCC tests, the screening, the robust factor
   and the figures those of the subsample (the report's parameters say so).

Up to ``subsample`` rows in all, the rows are gathered and validated exactly as
:func:`uqval.validate` would (same numbers, bit for bit).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uqval._internal.batched import open_table
from uqval._internal.checks import seed_value
from uqval._internal.errors import DataError
from uqval._internal.parts import PartsSource
from uqval._internal.types import FloatArray
from uqval.calibration.robust_scale import TailShares
from uqval.stats.part_sums import (
    BinSums,
    ExactSums,
    bin_sums,
    combine_float_sums,
    group_keys,
    histogram_bucket,
    poisson_bootstrap_sums,
    selection_keys,
    z2_histogram,
)
from uqval.validation import rules
from uqval.validation.all_rows import AllRows
from uqval.validation.bin_tables import bin_variables
from uqval.validation.engine import _bin_count, _options, run_engine
from uqval.validation.inputs import CleanInputs, clean_inputs, z_square_overflow
from uqval.validation.result import ValidationResult

__all__ = [
    "SUBSAMPLE_ROWS",
    "PartColumns",
    "parts_digest",
    "validate_parts",
]

SUBSAMPLE_ROWS = 1_000_000
"""Default rows of the subsample (the rows a test set of at most this size is validated with
whole, as by :func:`uqval.validate`)."""
_KEY_SPAN = float(2**64)


@dataclass(frozen=True)
class PartColumns:
    """Which columns of the parts hold what (as in ``uqval validate``): ``error`` or
    (``y_true``, ``y_pred``), ``uncertainty``, ``features``, ``group``; ``variance``: the
    uncertainty column holds variances; ``drop_invalid``: remove and count bad rows."""

    uncertainty: str
    error: str | None = None
    y_true: str | None = None
    y_pred: str | None = None
    features: tuple[str, ...] = ()
    group: str | None = None
    variance: bool = False
    drop_invalid: bool = False

    def __post_init__(self) -> None:
        if (self.error is None) == (self.y_true is None or self.y_pred is None):
            raise ValueError("give the error column, or both y_true and y_pred")

    @property
    def used(self) -> list[str]:
        errors = [self.error] if self.error else [self.y_true, self.y_pred]
        cols = [*errors, self.uncertainty, *self.features, *([self.group] if self.group else [])]
        return [c for c in dict.fromkeys(cols) if c is not None]


@dataclass(frozen=True)
class _PartRows:
    """The checked rows of one part."""

    errors: FloatArray
    uncertainties: FloatArray
    features: dict[str, FloatArray]
    keys: np.ndarray | None  # group key per row (uint64), None without groups
    counts: dict[str, int]
    sha256: str


def _read_part(path: Path, columns: PartColumns) -> _PartRows:
    """Read and check one part (messages name the file, the column and the rows)."""
    table = open_table(path).read(columns.used)
    missing = [c for c in columns.used if c not in table.columns]
    if missing:
        raise DataError(f"{path}: no column {missing[0]!r} (columns: "
                        f"{', '.join(table.columns[:20])})")
    n = len(table)
    arrays: dict[str, FloatArray] = {}
    for name in columns.used:
        if name == columns.group:
            continue
        series = table[name]
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & series.notna().to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0]) + 1
            raise DataError(f"{path}: column {name!r}, data row {row}: not a number "
                            f"({str(series.iloc[row - 1])[:40]!r})")
        arrays[name] = values
    e = (arrays[columns.error] if columns.error else
         arrays[str(columns.y_true)] - arrays[str(columns.y_pred)])
    u = arrays[columns.uncertainty]
    keep = np.ones(n, dtype=bool)
    counts = {"rows in input": n}
    keys = None
    if columns.group is not None:
        codes, uniques = pd.factorize(table[columns.group], use_na_sentinel=True)
        keys = np.where(codes >= 0, group_keys(list(uniques))[np.maximum(codes, 0)]
                        if len(uniques) else 0, 0).astype(np.uint64)
        _drop(codes < 0, keep, counts, columns, path, "missing group", columns.group)
    for name, values in {**arrays, "errors": e}.items():
        what = "errors" if name == "errors" else name
        _drop(~np.isfinite(values) & keep, keep, counts, columns, path,
              f"NaN or infinite {what}", what)
    _drop(keep & ~(u > 0), keep, counts, columns, path, "non-positive uncertainty",
          columns.uncertainty)
    if columns.variance:
        u = np.sqrt(np.abs(u))
    _drop(keep & z_square_overflow(e, np.where(keep, u, 1.0)), keep, counts, columns, path,
          "(E/uE)^2 overflows", "errors")
    counts["rows used"] = int(keep.sum())
    return _PartRows(e[keep], u[keep], {f: arrays[f][keep] for f in columns.features},
                     None if keys is None else keys[keep], counts, str(table.sha256))


def _drop(bad: np.ndarray, keep: np.ndarray, counts: dict[str, int], columns: PartColumns,
          path: Path, reason: str, column: str) -> None:
    """Remove (and count) the rows ``bad``, or refuse them without ``drop_invalid``."""
    bad = bad & keep
    if not bad.any():
        return
    if not columns.drop_invalid:
        row = int(np.flatnonzero(bad)[0]) + 1
        raise DataError(f"{path}: column {column!r}, data row {row}: {reason} "
                        f"({int(bad.sum())} row(s)); remove them or use --drop-invalid")
    counts[f"removed: {reason}"] = counts.get(f"removed: {reason}", 0) + int(bad.sum())
    keep &= ~bad


@dataclass(frozen=True)
class PartSummary:
    """Pass A of one part (module docstring, 1)."""

    path: str
    first_row: int
    sha256: str
    counts: dict[str, int]
    sums: ExactSums = field(repr=False)
    boot: FloatArray = field(repr=False)
    histogram: tuple[np.ndarray, FloatArray] = field(repr=False)
    candidates: pd.DataFrame = field(repr=False)
    groups: np.ndarray | None = field(repr=False)

    @property
    def rows(self) -> int:
        return self.counts["rows used"]


def _unit_ids(rows: _PartRows, first_row: int) -> np.ndarray:
    """The bootstrap and subsample unit of every row: its global index, or its group key."""
    if rows.keys is not None:
        return rows.keys
    return np.arange(first_row, first_row + rows.errors.size, dtype=np.uint64)


def summarise_part(path: Path, columns: PartColumns, *, first_row: int, seed: int,
                   n_boot: int, fraction: float) -> PartSummary:
    """Pass A of one part: ``first_row`` its first global row (rows of the earlier parts as
    read), ``fraction`` the share of the key range whose rows (or groups) are subsample
    candidates."""
    rows = _read_part(path, columns)
    z = rows.errors / rows.uncertainties
    z2 = np.square(z)
    sums = ExactSums.zeros(2)
    sums.add(0, z)
    sums.add(1, z2)
    ids = _unit_ids(rows, first_row)
    boot = poisson_bootstrap_sums(z2[:, None], ids, seed=seed, n_boot=n_boot)
    keys = selection_keys(ids, seed=seed)
    chosen = np.flatnonzero(keys <= np.uint64(min(fraction * _KEY_SPAN, _KEY_SPAN - 2048)))
    candidates = pd.DataFrame({
        "key": keys[chosen], "row": first_row + chosen, "e": rows.errors[chosen],
        "u": rows.uncertainties[chosen],
        **{f"x{i}": rows.features[f][chosen] for i, f in enumerate(columns.features)},
        **({} if rows.keys is None else {"group": rows.keys[chosen]})})
    return PartSummary(str(path), first_row, rows.sha256, rows.counts, sums, boot,
                       z2_histogram(z2), candidates,
                       None if rows.keys is None else np.unique(rows.keys))


@dataclass(frozen=True)
class BinPlan:
    """What pass B needs from the combination: ZMS and <Z> of all rows, the bin starts of
    every binning variable (by name; the uncertainty's under its name), the Z^2 histogram
    buckets holding the tail thresholds."""

    zms: float
    mean_z: float
    starts: dict[str, FloatArray]
    tail_buckets: tuple[int, ...]
    uncertainty_name: str


@dataclass(frozen=True)
class PartBins:
    """Pass B of one part (module docstring, 3)."""

    bins: dict[str, BinSums] = field(repr=False)
    centred: FloatArray = field(repr=False)  # sum U^2, sum U^3, sum of squared <Z> residuals
    tail_values: dict[int, FloatArray] = field(repr=False)


def bin_part(path: Path, columns: PartColumns, plan: BinPlan, *, sha256: str) -> PartBins:
    """Pass B of one part (module docstring, 3), refusing a file changed since pass A."""
    rows = _read_part(path, columns)
    if rows.sha256 != sha256:
        raise DataError(f"{path}: the file changed while it was read (SHA-256 {rows.sha256[:12]} "
                        f"now, {sha256[:12]} in the first pass)")
    z = rows.errors / rows.uncertainties
    z2 = np.square(z)
    variables = {plan.uncertainty_name: rows.uncertainties, **rows.features}
    bins = {name: bin_sums(variables[name], z, starts) for name, starts in plan.starts.items()}
    if rows.keys is None:
        u = z2 - plan.zms
        resid = np.zeros(1)
    else:
        _, codes = np.unique(rows.keys, return_inverse=True)
        n_g = np.bincount(codes).astype(np.float64)
        u = np.bincount(codes, weights=z2) - plan.zms * n_g
        resid = np.bincount(codes, weights=z) - plan.mean_z * n_g
    centred = np.array([math.fsum(np.square(u)), math.fsum(u**3), math.fsum(np.square(resid))])
    bucket = histogram_bucket(z2)
    tails = {b: np.sort(z2[bucket == b]) for b in plan.tail_buckets}
    return PartBins(bins, centred, tails)


def _map(function: Callable[..., Any], calls: Sequence[dict[str, Any]], n_jobs: int,
         say: Callable[[str], None], what: str) -> list[Any]:
    """``function(**call)`` for every call, in order, with ``n_jobs`` threads (the reading
    and the compiled kernels release the GIL)."""
    if n_jobs <= 1 or len(calls) <= 1:
        out = []
        for i, call in enumerate(calls):
            say(f"{what}: part {i + 1} of {len(calls)}")
            out.append(function(**call))
        return out
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        futures = [pool.submit(function, **call) for call in calls]
        out = []
        for i, future in enumerate(futures):
            out.append(future.result())
            say(f"{what}: part {i + 1} of {len(calls)}")
        return out


def _candidate_fraction(subsample: int, m: int) -> float:
    """Share of the key range whose units are subsample candidates: S/M with a margin of
    8 binomial sd and 64 rows (1 when S >= M)."""
    if subsample >= m:
        return 1.0
    q = subsample / m
    return min(1.0, q * (1.0 + 8.0 / math.sqrt(subsample)) + 64.0 / m)


def _subsample(summaries: Sequence[PartSummary], subsample: int) -> pd.DataFrame | None:
    """The rows (or whole groups) with the smallest keys until ``subsample`` rows, in file
    order; None when the candidates hold fewer (the threshold must widen)."""
    pool = pd.concat([s.candidates for s in summaries], ignore_index=True)
    if len(pool) < subsample:
        return None
    pool = pool.sort_values(["key", "row"], kind="stable", ignore_index=True)
    if "group" in pool:  # whole groups: the first groups in key order reaching S rows
        starts = np.flatnonzero(np.r_[True, pool["key"].to_numpy()[1:]
                                      != pool["key"].to_numpy()[:-1]])
        ends = np.r_[starts[1:], len(pool)]
        last = int(np.searchsorted(ends, subsample, side="left"))
        pool = pool.iloc[: ends[min(last, ends.size - 1)]]
    else:
        pool = pool.iloc[:subsample]
    return pool.sort_values("row", kind="stable", ignore_index=True)


def _tail_plan(counts: np.ndarray, m: int) -> tuple[tuple[int, int], ...]:
    """(bucket, rows in higher buckets) of the ceil(0.1 % M)-th and ceil(1 % M)-th largest
    Z^2: the highest bucket b with at least k rows in buckets >= b."""
    at_or_above = np.cumsum(counts[::-1])[::-1]
    out = []
    for fraction in (0.001, 0.01):
        k = max(1, int(math.ceil(fraction * m)))
        bucket = int(np.flatnonzero(at_or_above >= k)[-1])
        out.append((bucket, int(at_or_above[bucket] - counts[bucket])))
    return tuple(out)


def _tail_shares(plan: tuple[tuple[int, int], ...], sums: FloatArray, m: int, total: float,
                 values: dict[int, FloatArray]) -> TailShares:
    """Shares of sum Z^2 of the ceil(0.1 % M) and ceil(1 % M) largest rows: the whole
    buckets above the threshold bucket plus the largest values inside it."""
    if total == 0.0:
        return TailShares(0.0, 0.0)
    shares = []
    for fraction, (bucket, above) in zip((0.001, 0.01), plan, strict=True):
        k = max(1, int(math.ceil(fraction * m)))
        inside = np.sort(values[bucket])[::-1][: k - above]
        shares.append(math.fsum([*sums[bucket + 1:], *inside]) / total)
    return TailShares(shares[0], shares[1])


def _row_counts(summaries: Sequence[PartSummary]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in summaries:
        for k, v in s.counts.items():
            counts[k] = counts.get(k, 0) + v
    rows_used = counts.pop("rows used")
    return {**counts, "rows used": rows_used}


def _check_groups_whole(summaries: Sequence[PartSummary]) -> int:
    """Number of groups, refusing a group whose rows lie in two parts."""
    keys = np.concatenate([s.groups for s in summaries if s.groups is not None])
    unique, first = np.unique(keys, return_counts=True)
    if (first > 1).any():
        key = unique[first > 1][0]
        owners = [s.path for s in summaries if s.groups is not None
                  and np.isin(key, s.groups)]
        raise DataError(f"a group has rows in {len(owners)} parts ({owners[0]}, {owners[1]}): "
                        "each part must hold whole groups (write the rows of one structure "
                        "or molecule into one file)")
    return int(unique.size)


def _inputs(sample: pd.DataFrame, columns: PartColumns, u_name: str) -> CleanInputs:
    """The subsample as the engine's checked inputs (features under their names)."""
    feats = {f: sample[f"x{i}"].to_numpy() for i, f in enumerate(columns.features)}
    groups = None if "group" not in sample else sample["group"].to_numpy()
    return clean_inputs(sample["e"].to_numpy(), sample["u"].to_numpy(), feats, data=None,
                        variance=False, drop_invalid=False, uncertainty_name=u_name,
                        groups=groups)


def validate_parts(
    source: str | Path,
    columns: PartColumns,
    *,
    subsample: int = SUBSAMPLE_ROWS,
    n_jobs: int = 1,
    seed: int = 0,
    n_boot: int = 1000,
    n_permutations: int | None = None,
    n_bins: int | None = None,
    n_ucc_permutations: int = 1999,
    alpha: float = 0.05,
    tolerance: float = rules.DEFAULT_TOLERANCE,
    n_workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> ValidationResult:
    """Validate a test set given as parts (module docstring) and return the result of
    :func:`uqval.validate`.

    Args:
        source: a folder (every ``*.parquet`` file below it, in path order), or a glob
            pattern of Parquet files (:class:`uqval._internal.parts.PartsSource`).
        columns: the columns (:class:`PartColumns`).
        subsample: rows of the seeded uniform subsample (at least 10 000); a set of at most
            this many rows is validated whole.
        n_jobs: threads reading the parts (no effect on the numbers).
        seed: seed of every random step (an integer >= 0).
        n_boot: Poisson-bootstrap replicates of all rows (scale factor).
        n_permutations: as for :func:`uqval.validate`.
        n_bins: as for :func:`uqval.validate`.
        n_ucc_permutations: as for :func:`uqval.validate`.
        alpha: as for :func:`uqval.validate`.
        tolerance: as for :func:`uqval.validate`.
        n_workers: threads of the engine's permutations (no effect on the numbers).
        progress: called with a short message before each long step.

    Raises:
        DataError: naming the file, column and row, for a bad part; a group split across
            parts; a file changed between the passes.

    Examples:
        >>> import tempfile, pathlib
        >>> import numpy as np, pandas as pd
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> rng = np.random.default_rng(0)
        >>> for k in range(3):
        ...     u = rng.uniform(0.5, 2.0, 4000)
        ...     frame = pd.DataFrame({"e": u * rng.standard_normal(4000), "u": u})
        ...     frame.to_parquet(folder / f"part-{k}.parquet")
        >>> res = validate_parts(folder, PartColumns("u", error="e"), subsample=10_000,
        ...                      n_boot=200, n_permutations=199, n_ucc_permutations=199)
        >>> res.row_counts["rows used"], res.stage_verdicts
        (12000, {'average': 'pass', 'consistency': 'pass'})
    """
    say = progress or (lambda _: None)
    checked = seed_value(seed)
    if not isinstance(checked, int):
        raise ValueError(f"seed must be an integer >= 0 for a set in parts, got {seed!r}")
    seed = checked
    if not isinstance(subsample, int) or subsample < 10_000:
        raise ValueError(f"subsample must be an integer >= 10000, got {subsample!r}")
    n_boot, n_permutations, n_ucc_permutations, n_bins = _options(
        list(columns.features), "uqval", alpha, tolerance, n_boot, n_permutations,
        n_ucc_permutations, n_bins, progress)
    source_files = PartsSource(source)
    parts = source_files.files()
    firsts, stored = _first_rows(parts)
    fraction = _candidate_fraction(subsample, stored)
    while True:  # widened (rarely) until the candidates hold the subsample
        calls = [dict(path=p, columns=columns, first_row=f, seed=seed, n_boot=n_boot,
                      fraction=fraction) for p, f in zip(parts, firsts, strict=True)]
        summaries = _map(summarise_part, calls, n_jobs, say, "first pass")
        plan = plan_parts(summaries, columns, source_files.root, subsample=subsample,
                          n_bins=n_bins)
        if plan is not None:
            break
        fraction = min(1.0, 2.0 * fraction)
    part_bins: list[PartBins] = []
    if plan.bins is not None:
        calls = [dict(path=Path(s.path), columns=columns, plan=plan.bins, sha256=s.sha256)
                 for s in summaries]
        part_bins = _map(bin_part, calls, n_jobs, say, "second pass")
    return finish_parts(plan, part_bins, seed=seed, n_boot=n_boot,
                        n_permutations=n_permutations, n_bins=n_bins,
                        n_ucc_permutations=n_ucc_permutations, alpha=alpha,
                        tolerance=tolerance, n_workers=n_workers, say=say)


@dataclass(frozen=True)
class PartsPlan:
    """The combination of the first pass (module docstring, 2): the subsample as the
    engine's inputs, the rows of all parts, their digest, the exact sums and bootstrap sums,
    and what the second pass needs (None when every row is in the subsample)."""

    m: int
    n_parts: int
    inputs: CleanInputs = field(repr=False)
    row_counts: dict[str, int]
    n_groups: int | None
    digest: str
    sum_z: float
    sum_z2: float
    boot: FloatArray = field(repr=False)
    tails: tuple[tuple[int, int], ...]
    bucket_sums: FloatArray = field(repr=False)
    bins: BinPlan | None


def plan_parts(summaries: Sequence[PartSummary], columns: PartColumns, root: Path, *,
               subsample: int, n_bins: int | None) -> PartsPlan | None:
    """Combine the first pass of every part (in reading order); None when the candidates
    hold fewer than the subsample's rows (the candidate threshold must widen)."""
    m = sum(s.rows for s in summaries)
    sample = _subsample(summaries, min(subsample, m))
    if sample is None:
        return None
    n_groups = _check_groups_whole(summaries) if columns.group else None
    inputs = _inputs(sample, columns, columns.uncertainty)
    totals = summaries[0].sums
    for s in summaries[1:]:
        totals = totals.merge(s.sums)
    sum_z, sum_z2 = (float(v) for v in totals.values())
    counts = np.sum([s.histogram[0] for s in summaries], axis=0)
    tails = _tail_plan(counts, m)
    bins = None
    if len(sample) < m:
        from uqval.stats.groups import GroupIndex

        group_index = None if inputs.groups is None else GroupIndex.from_codes(inputs.groups)
        candidates = [("consistency", inputs.uncertainty_name, inputs.uncertainties)] + [
            ("adaptivity", name, x) for name, x in inputs.features.items()]
        k = min(_bin_count(n_bins, m), max(2, inputs.errors.size // rules.MIN_BIN_COUNT))
        _, _, binned = bin_variables(candidates, k, group_index)
        bins = BinPlan(zms=sum_z2 / m, mean_z=sum_z / m,
                       starts={name: b.low for _, name, b in binned},
                       tail_buckets=tuple(sorted({b for b, _ in tails})),
                       uncertainty_name=inputs.uncertainty_name)
    return PartsPlan(
        m=m, n_parts=len(summaries), inputs=inputs, row_counts=_row_counts(summaries),
        n_groups=n_groups, digest=parts_digest(summaries, root), sum_z=sum_z, sum_z2=sum_z2,
        boot=combine_float_sums([s.boot for s in summaries]), tails=tails,
        bucket_sums=combine_float_sums([s.histogram[1] for s in summaries]), bins=bins)


def finish_parts(plan: PartsPlan, part_bins: Sequence[PartBins], *, seed: int, n_boot: int,
                 n_permutations: int, n_bins: int | None, n_ucc_permutations: int,
                 alpha: float, tolerance: float, n_workers: int,
                 say: Callable[[str], None]) -> ValidationResult:
    """The validation of a set in parts from its plan and the second pass of every part
    (none when every row is in the subsample: then exactly :func:`uqval.validate` of all
    rows)."""
    options: dict[str, Any] = dict(
        rule="uqval", seed=seed, n_boot=n_boot, n_permutations=n_permutations, n_bins=n_bins,
        n_ucc_permutations=n_ucc_permutations, alpha=alpha, tolerance=tolerance,
        variance=False, n_workers=n_workers, say=say, row_counts=plan.row_counts)
    if plan.bins is None:  # every row fits: the one-process validation of all rows
        return replace(run_engine(plan.inputs, **options), input_sha256=plan.digest)
    sample = plan.inputs.errors.size
    note = (f"{plan.m} rows in {plan.n_parts} parts: ZMS, <Z>, the scale factor's interval "
            f"({plan.boot.shape[0]} Poisson-bootstrap replicates), the tail shares and the "
            "per-bin values and intervals use all rows; the tests, screening, robust factor, "
            f"UCC and figures a seeded uniform subsample of {sample} "
            f"{'rows' if plan.n_groups is None else 'rows in whole groups'} (bin edges from its "
            f"quantiles: rank error below {1.36 / math.sqrt(sample):.2%} with 95 % "
            "probability)")
    return replace(run_engine(plan.inputs, all_rows=_all_rows(plan, part_bins),
                              parts_note=note, **options), input_sha256=plan.digest)


def parts_digest(summaries: Sequence[PartSummary], root: Path) -> str:
    """SHA-256 of the parts: of the lines "relative path TAB SHA-256 of its bytes", in
    reading order (the bytes used: each part's digest is that of the bytes it was read
    from, checked again in the second pass)."""
    lines = "".join(f"{Path(s.path).relative_to(root).as_posix()}\t{s.sha256}\n"
                    for s in summaries)
    return hashlib.sha256(lines.encode()).hexdigest()


def _first_rows(parts: Sequence[Path]) -> tuple[list[int], int]:
    """Global index of each part's first row (rows as stored, before any is dropped), and
    the rows of all parts (from the Parquet metadata)."""
    firsts, total = [], 0
    for path in parts:
        firsts.append(total)
        total += open_table(path).rows
    return firsts, total


def _all_rows(plan: PartsPlan, part_bins: Sequence[PartBins]) -> AllRows:
    """The :class:`AllRows` record from the plan and the second pass of every part."""
    if plan.bins is None or len(part_bins) != plan.n_parts:
        raise ValueError(f"the second pass of all {plan.n_parts} parts is needed")
    bins = {}
    for name in plan.bins.starts:
        merged = part_bins[0].bins[name]
        for pb in part_bins[1:]:
            merged = merged.merge(pb.bins[name])
        bins[name] = merged
    centred = combine_float_sums([pb.centred for pb in part_bins])
    values = {b: np.concatenate([pb.tail_values[b] for pb in part_bins])
              for b in plan.bins.tail_buckets}
    acceleration = (float(centred[1]) / (6.0 * float(centred[0]) ** 1.5)
                    if centred[0] > 0 else 0.0)
    mean_z_se = None
    if plan.n_groups is not None:
        mean_z_se = math.sqrt(plan.n_groups / (plan.n_groups - 1.0) * float(centred[2])) / plan.m
    return AllRows(m=plan.m, n_parts=plan.n_parts, subsample=plan.inputs.errors.size,
                   sum_z=plan.sum_z, sum_z2=plan.sum_z2, boot=plan.boot,
                   acceleration=acceleration,
                   tails=_tail_shares(plan.tails, plan.bucket_sums, plan.m, plan.sum_z2, values),
                   bins=bins, mean_z_se=mean_z_se, n_groups=plan.n_groups)
