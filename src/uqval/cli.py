"""Command line: ``uqval validate FILE ...`` and ``uqval compare FILE ...`` (see ``--help``).

Exit codes: 0 the validation (or comparison) ran (whatever the verdicts); 1 a test failed and
``--fail-on-miscalibration`` was given; 2 bad input or usage (one line on stderr); 3 the report
(``--out``, checked before the computation where possible) or standard output (a full disk)
cannot be written, one line on stderr; a closed pipe (``| head``) stops the printing quietly.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from uqval import __version__
from uqval._internal.cli_help import COMPARE_EPILOG, VALIDATE_EPILOG
from uqval._internal.terminal import StdoutError, discard_stdout, printable, progress, write_stdout

__all__ = ["main"]

EXIT_OK, EXIT_MISCALIBRATED, EXIT_BAD_INPUT, EXIT_CANNOT_WRITE = 0, 1, 2, 3

MIN_BOOT = 100
"""Fewest bootstrap replicates of ``validate`` (BCa intervals of the scale factor and bins)."""
MIN_COMPARE_BOOT = 40
"""Fewest paired-bootstrap resamples of ``compare``: a 95 % percentile interval needs at least
one resample beyond each 2.5 % tail."""
ALPHA = 0.05
"""False-alarm rate of each stage of ``uqval validate`` (the library's default)."""


MAX_DEFAULT_JOBS = 8


def _available_cores() -> int:
    """Cores this process may run on (the default thread count; results do not depend on it)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, MAX_DEFAULT_JOBS))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uqval", description="Validate the uncertainties of regression predictions."
    )
    parser.add_argument("--version", action="version", version=f"uqval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser(
        "validate",
        help="validate errors and uncertainties read from a table",
        description="Are the uncertainties right on average, along the uncertainty itself "
        "(consistency), along each feature (adaptivity) and across all features together "
        "(joint)? If not: by how much and where.",
        epilog=VALIDATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("file", type=Path, help="CSV, TSV or Parquet table, one row per prediction; "
                   "or a folder (or quoted glob) of Parquet files: a test set in parts, read "
                   "in two passes without holding all rows (see --subsample)")
    err = v.add_mutually_exclusive_group(required=True)
    err.add_argument("--error", metavar="COL", help="column of errors (reference - prediction)")
    err.add_argument("--y-true", metavar="COL", help="column of reference values (with --y-pred)")
    v.add_argument("--y-pred", metavar="COL", help="column of predictions (with --y-true)")
    v.add_argument("--uncertainty", metavar="COL",
                   help="column of standard uncertainties (or variances with --variance); with "
                   "--distribution, the standard deviation of the predictive distribution")
    p = v.add_argument_group(
        "predictive outputs (with --y-true; instead of --uncertainty alone)",
        "Give exactly one of: --y-pred with --uncertainty and --distribution, --members, "
        "--samples, --quantiles, or --interval (repeatable). Adds the coverage and shape stages "
        "and scores.csv; see the examples below.")
    p.add_argument("--distribution", metavar="FAMILY",
                   help="predictive family of --y-pred (mean) and --uncertainty (sd): normal, "
                   "laplace, t:NU (a number > 2) or t:COL (nu per row)")
    p.add_argument("--members", metavar="PATTERN",
                   help="ensemble members: a glob over column names ('tree_*') or a comma list")
    p.add_argument("--samples", metavar="PATTERN",
                   help="draws of a predictive (MC dropout, posterior): glob or comma list")
    p.add_argument("--quantiles", metavar="LEVEL:COL,...",
                   help="predicted quantiles, e.g. 0.05:q05,0.5:q50,0.95:q95")
    p.add_argument("--interval", metavar="LEVEL:LOW:HIGH", action="append", default=[],
                   help="a central prediction interval, e.g. 0.9:lo:hi (repeatable)")
    p.add_argument("--levels", metavar="L,...",
                   help="levels of the central intervals checked (default: the given ones, "
                   "else 0.5,0.8,0.9,0.95)")
    v.add_argument("--variance", action="store_true", help="the uncertainty column holds variances")
    v.add_argument("--feature", metavar="COL", action="append", default=[],
                   help="numeric input feature to test along (repeatable)")
    v.add_argument("--group", metavar="COL", help="column of group labels: rows of a group "
                   "share part of their error (atoms of one structure, frames of one run)")
    v.add_argument("--out", metavar="DIR", type=Path, default=Path("uqval-report"),
                   help="output directory (default: uqval-report)")
    v.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    v.add_argument("--n-boot", type=int, default=1000, metavar="N",
                   help="bootstrap replicates of the scale factor and of each bin (default: 1000)")
    v.add_argument("--n-permutations", type=int, default=None, metavar="N",
                   help="permutations per conditional test (default: 999, more with many "
                   "features)")
    v.add_argument("--bins", type=int, default=None, metavar="N",
                   help="bins per variable (default: min(sqrt(M), M/100), 2 to 50)")
    v.add_argument("--tolerance", type=float, default=0.10, metavar="T",
                   help="practical tolerance: factors within [1/(1+T), 1+T] and mean z-scores "
                   "within ±T do not matter (default: 0.10); only larger departures are advised")
    v.add_argument("--rule", choices=("uqval", "paper"), default="uqval",
                   help="decision rules (default: uqval; paper: the adaptivity paper's "
                   "flowchart)")
    v.add_argument("--drop-invalid", action="store_true",
                   help="remove rows with NaN/infinite values or non-positive uncertainties "
                   "(and report how many) instead of stopping")
    v.add_argument("--fail-on-miscalibration", action="store_true",
                   help="exit with 1 when any test fails")
    v.add_argument("--jobs", type=int, default=_available_cores(), metavar="N",
                   help="threads (no effect on the results; default: the cores available, "
                   f"at most {MAX_DEFAULT_JOBS})")
    v.add_argument("--subsample", type=int, default=1_000_000, metavar="N",
                   help="test set in parts: rows of the seeded subsample for the tests and "
                   "figures (default: 1000000); averages and per-bin values use all rows")
    v.add_argument("--recalibrate", metavar="METHOD",
                   help="validate 5-fold cross-validated recalibrated uncertainties instead: "
                   "sigma, isotonic or binned:FEATURE")
    c = sub.add_parser(
        "compare",
        help="compare the uncertainties of several models on the same rows",
        description="Which model has the better uncertainties? Scores with intervals and "
        "references, validation verdicts, paired tests and a ranking with ties.",
        epilog=COMPARE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("file", type=Path, help="CSV, TSV or Parquet table, one row per point")
    c.add_argument("--model", metavar="NAME:ERRCOL:UNCCOL", action="append", required=True,
                   help="a model: name, column of errors (or predictions with --y-true), "
                   "column of standard uncertainties (repeat for each model, at least 2); or "
                   "a predictive NAME:KIND=SPEC (below)")
    c.add_argument("--y-true", metavar="COL",
                   help="column of reference values: the models' middle columns are then "
                   "predictions")
    c.add_argument("--feature", metavar="COL", action="append", default=[],
                   help="numeric input feature (ZMSE and validation along it; repeatable)")
    c.add_argument("--group", metavar="COL", help="column of group labels: points of a group "
                   "share part of their error (the bootstrap resamples groups)")
    c.add_argument("--out", metavar="DIR", type=Path, default=Path("uqval-comparison"),
                   help="output directory (default: uqval-comparison)")
    c.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    c.add_argument("--n-boot", type=int, default=500, metavar="N",
                   help="paired bootstrap resamples (default: 500)")
    return parser


def _check_options(args: argparse.Namespace) -> None:
    """Refuse option values the tests cannot work with, naming the option and the bound."""
    from uqval._internal.checks import MAX_RESAMPLES
    from uqval._internal.errors import DataError

    if args.seed < 0:
        raise DataError(f"--seed {args.seed}: the seed must be a non-negative integer "
                        "(0, 1, 2, ...)")
    if getattr(args, "jobs", 1) < 1:
        raise DataError(f"--jobs {args.jobs}: at least 1 (the default, {_available_cores()}, "
                        "uses every available core)")
    for option in ("n_boot", "n_permutations"):
        value = getattr(args, option, None)
        if value is not None and value > MAX_RESAMPLES:
            raise DataError(f"--{option.replace('_', '-')} {value}: at most {MAX_RESAMPLES} "
                            "(more only costs memory and time: p-values and intervals are "
                            "then known to about 1e-6)")
    if args.command == "compare":
        if args.n_boot < MIN_COMPARE_BOOT:
            raise DataError(f"--n-boot {args.n_boot}: at least {MIN_COMPARE_BOOT} paired "
                            "bootstrap resamples are needed (95 % intervals)")
        return
    if args.n_boot < MIN_BOOT:
        raise DataError(f"--n-boot {args.n_boot}: at least {MIN_BOOT} bootstrap replicates "
                        "are needed (BCa intervals of the scale factor and of each bin)")
    variables = max(1, len(set(args.feature)))
    # the smallest permutation p-value 1/(n+1) must reach Holm's strictest threshold of a
    # stage: alpha/(4 F) for F features (binned and cumulative tests of spread and bias),
    # alpha/5 for consistency (the same four and the isotonic MCB)
    tests = max(5, 4 * variables)
    least = math.ceil(tests / ALPHA - 1e-9) - 1
    if args.n_permutations is not None and args.n_permutations < least:
        raise DataError(
            f"--n-permutations {args.n_permutations}: at least {least} are needed with "
            f"{variables} binning variable(s) (the smallest p-value 1/(n+1) must reach "
            f"alpha/{tests} = {ALPHA / tests:.4g}: Holm over the {tests} tests of a stage)")
    if args.bins is not None and args.bins < 2:
        raise DataError(f"--bins {args.bins}: at least 2 bins are needed")
    if not 0.0 < args.tolerance < 1.0:
        raise DataError(f"--tolerance {args.tolerance:g}: the tolerance must lie between 0 "
                        "and 1 (0.10: factors within ±10 % do not matter)")


def _check_bins(args: argparse.Namespace, rows: int) -> None:
    from uqval._internal.errors import DataError
    from uqval.validation.rules import MIN_BIN_COUNT

    most = rows // MIN_BIN_COUNT
    if args.bins is not None and most >= 2 and args.bins > most:
        raise DataError(f"--bins {args.bins}: the {rows} rows give at most {most} bins of "
                        f"{MIN_BIN_COUNT} rows (a bin needs at least {MIN_BIN_COUNT} rows "
                        "for a verdict)")


_PREDICTIVE = ("distribution", "members", "samples", "quantiles", "interval")


def _predictive_spec(args: argparse.Namespace, columns: Sequence[str]) -> tuple[str, dict]:
    """Which predictive the options describe, and its columns: (kind, spec)."""
    from uqval._internal.errors import DataError
    from uqval.predictive.columns import columns_of, parse_distribution, parse_level

    given = [k for k in _PREDICTIVE if getattr(args, k)]
    kinds = [k for k in given if k != "distribution"]
    if len(kinds) > 1 or ("distribution" in given and kinds):
        raise DataError("give exactly one of --y-pred/--uncertainty/--distribution, --members, "
                        "--samples, --quantiles, --interval; got "
                        + ", ".join("--" + k for k in given))
    if args.error or args.y_true is None:
        raise DataError("predictive outputs need --y-true COL (the observed values), not --error")
    if args.recalibrate or args.rule != "uqval":
        raise DataError("--recalibrate and --rule paper apply to --uncertainty alone")
    exclude = [args.y_true, *args.feature]
    if "distribution" in given:
        if not (args.y_pred and args.uncertainty):
            raise DataError("--distribution needs --y-pred COL (mean) and --uncertainty COL (sd)")
        spec: dict = {**parse_distribution(args.distribution, "--distribution"),
                      "mean": args.y_pred, "sd": args.uncertainty}
        return "distribution", spec
    if args.y_pred or args.uncertainty or args.variance:
        raise DataError("--y-pred, --uncertainty and --variance go with --distribution (or "
                        "without any predictive option)")
    if args.members or args.samples:
        option = "--members" if args.members else "--samples"
        pattern = args.members or args.samples
        return option[2:], {"columns": columns_of(pattern, columns, option, exclude)}
    if args.quantiles:
        pairs = {}
        for part in args.quantiles.split(","):
            level, sep, col = part.strip().partition(":")
            if not sep or not col:
                raise DataError(f"--quantiles: {part!r} is not LEVEL:COL")
            pairs[parse_level(level, "--quantiles")] = col
        return "quantiles", {"pairs": dict(sorted(pairs.items()))}
    intervals = {}
    for text in args.interval:
        parts = text.split(":")
        if len(parts) != 3 or not all(parts):
            raise DataError(f"--interval {text!r}: expected LEVEL:LOW:HIGH")
        intervals[parse_level(parts[0], "--interval")] = (parts[1], parts[2])
    return "interval", {"intervals": intervals}


def _run_predictive(args: argparse.Namespace) -> int:
    from uqval._internal.batched import open_table
    from uqval._internal.columns import numeric_column
    from uqval._internal.errors import DataError
    from uqval._internal.tables import require_columns
    from uqval.predictive.columns import build_predictive, parse_level, spec_columns
    from uqval.report.files import check_output_folder

    check_output_folder(args.out, [args.file])
    source = open_table(args.file)
    try:  # the file's own problems are reported first, as when it was read whole
        kind, spec = _predictive_spec(args, list(source.columns))
    except DataError as exc:
        source.read([])
        raise exc from None
    used = spec_columns(kind, spec)
    group = [args.group] if args.group else []
    table = source.read([args.y_true, *used, *args.feature, *group])
    require_columns(table, [args.y_true, *used, *args.feature, *group], args.file)
    _check_bins(args, len(table))
    levels = None
    if args.levels:
        levels = [parse_level(x.strip(), "--levels") for x in args.levels.split(",") if x.strip()]
    numeric = {c: numeric_column(table[c], c, args.file)
               for c in {args.y_true, *used, *args.feature}}
    from uqval.validation import validate

    say = progress(sys.stderr.isatty())
    say(f"read {len(table)} rows from {_text(args.file)}")
    try:
        predictive = build_predictive(kind, spec, numeric, args.variance)
        result = validate(
            numeric[args.y_true], predictive, {f: numeric[f] for f in args.feature},
            levels=levels, seed=args.seed, n_boot=args.n_boot,
            n_permutations=args.n_permutations, n_bins=args.bins, tolerance=args.tolerance,
            drop_invalid=args.drop_invalid, n_workers=max(1, args.jobs), progress=say,
            groups=table[args.group] if args.group else None)
    except ValueError as exc:
        message = str(exc).replace("y_true", f"column {args.y_true!r}")
        if args.group:
            message = re.sub(r"^groups\b", f"column {args.group!r}", message)
        message = re.sub(r"features\[('[^']*')\]", r"column \1", message)
        raise DataError(f"{args.file}: {message.replace('drop_invalid=True', '--drop-invalid')}"
                        ) from None
    result = dataclasses.replace(result, input_sha256=table.sha256)
    for warning in result.warnings:
        print(_text(f"uqval: warning: {args.file}: {warning}"), file=sys.stderr)
    say(f"writing the report to {_text(args.out)}")
    _save(result, args.out, _terminal(result.summary()))
    return EXIT_MISCALIBRATED if args.fail_on_miscalibration and result.miscalibrated else EXIT_OK


def _run(args: argparse.Namespace) -> int:
    # the engines are imported after the table is read: a refused file stops early and small
    from uqval._internal.batched import open_table
    from uqval._internal.columns import finite_column, numeric_column
    from uqval._internal.errors import DataError
    from uqval._internal.tables import require_columns
    from uqval.report.files import check_output_folder

    _check_options(args)
    if args.command == "compare":
        return _run_compare(args)
    if any(getattr(args, k) for k in _PREDICTIVE):
        return _run_predictive(args)
    if args.uncertainty is None:
        raise DataError("--uncertainty COL is required (or give a predictive output: "
                        "--distribution, --members, --samples, --quantiles or --interval)")
    if args.levels:
        raise DataError("--levels goes with a predictive output (--distribution, --members, "
                        "--samples, --quantiles, --interval)")
    recal_feature: str | None = None
    if args.recalibrate is not None:
        from uqval.validation.recalibrated import parse_method

        try:
            method, recal_feature = parse_method(args.recalibrate)
        except ValueError as exc:
            raise DataError(f"--recalibrate: {exc}") from None
    if args.y_true is not None and args.y_pred is None:
        raise DataError("--y-true needs --y-pred")
    if args.y_pred is not None and args.y_true is None:
        raise DataError("--y-pred needs --y-true (or use --error)")
    check_output_folder(args.out, [args.file])
    from uqval._internal.parts import is_parts

    if is_parts(args.file):
        return _run_parts(args)
    error_cols = [args.error] if args.error else [args.y_true, args.y_pred]
    used = [*error_cols, args.uncertainty, *args.feature,
            *([recal_feature] if recal_feature else []), *([args.group] if args.group else [])]
    from uqval.validation.grouping import SERIAL_GROUPS, id_columns_to_read, with_id_warning

    file_table = open_table(args.file)  # other columns too: a group id not given is warned of
    others = id_columns_to_read(file_table.columns, used, args.group)
    table = file_table.read([*used, *others])
    require_columns(table, used, args.file)
    _check_bins(args, len(table))
    from uqval.validation import validate
    from uqval.validation.inputs import REPEATED_ROWS
    from uqval.validation.recalibrated import validate_recalibrated
    from uqval.validation.rules import OFF_CENTRE_WARNING

    say = progress(sys.stderr.isatty())
    say(f"read {len(table)} rows from {_text(args.file)}")
    if args.error:
        errors = table[args.error]
    else:
        numeric = {}
        for col in error_cols:
            numeric[col] = numeric_column(table[col], col, args.file)
            if not args.drop_invalid:  # name the column, not their difference
                finite_column(numeric[col], col, args.file)
        errors = numeric[args.y_true] - numeric[args.y_pred]
        errors.name = f"{args.y_true} - {args.y_pred}"
    groups = table[args.group] if args.group else None
    options = dict(n_boot=args.n_boot, n_permutations=args.n_permutations, n_bins=args.bins,
                   rule=args.rule, tolerance=args.tolerance, n_workers=max(1, args.jobs),
                   progress=say)
    try:
        if args.recalibrate is None:
            result = validate(
                errors, table[args.uncertainty], {f: table[f] for f in args.feature},
                variance=args.variance, seed=args.seed, drop_invalid=args.drop_invalid,
                uncertainty_name=args.uncertainty, groups=groups, **options,
            )
        else:
            say(f"recalibrating ({args.recalibrate}) by 5-fold cross-validation")
            result = validate_recalibrated(
                errors, table[args.uncertainty], {f: table[f] for f in args.feature},
                method=method, feature_name=recal_feature,
                recalibration_feature=None if recal_feature is None else table[recal_feature],
                variance=args.variance, seed=args.seed, drop_invalid=args.drop_invalid,
                uncertainty_name=args.uncertainty, groups=groups, **options,
            )
    except ValueError as exc:
        raise DataError(f"{args.file}: {_column_names(str(exc), args)}") from None
    result = dataclasses.replace(result, input_sha256=table.sha256)
    result = with_id_warning(result, {c: table[c] for c in others}, used)
    if args.error is None:  # y - prediction by construction: no question about the column
        result = dataclasses.replace(result, warnings=tuple(
            w for w in result.warnings if not w.startswith(OFF_CENTRE_WARNING)))
    for warning in result.warnings:  # repeated rows are about whole rows, not a column
        source = ("" if REPEATED_ROWS in warning or "group id" in warning
                  else f"column {args.group!r}: " if SERIAL_GROUPS in warning
                  else f"column {args.error!r}: " if args.error
                  else f"errors ({args.y_true!r} - {args.y_pred!r}): ")
        print(_text(f"uqval: warning: {args.file}: {source}{warning}"), file=sys.stderr)
    say(f"writing the report to {_text(args.out)}")
    _save(result, args.out, _terminal(result.summary()))
    return EXIT_MISCALIBRATED if args.fail_on_miscalibration and result.miscalibrated else EXIT_OK


def _run_parts(args: argparse.Namespace) -> int:
    """``uqval validate FOLDER/`` (or a glob): a test set in parts
    (:mod:`uqval.validation.parts`)."""
    from uqval._internal.errors import DataError
    from uqval.validation.parts import PartColumns, validate_parts

    if args.recalibrate is not None or args.rule != "uqval":
        raise DataError("--recalibrate and --rule paper do not apply to a test set in parts")
    columns = PartColumns(args.uncertainty, error=args.error, y_true=args.y_true,
                          y_pred=args.y_pred, features=tuple(args.feature), group=args.group,
                          variance=args.variance, drop_invalid=args.drop_invalid)
    say = progress(sys.stderr.isatty())
    try:
        result = validate_parts(
            str(args.file), columns, subsample=args.subsample, n_jobs=max(1, args.jobs),
            seed=args.seed, n_boot=args.n_boot, n_permutations=args.n_permutations,
            n_bins=args.bins, tolerance=args.tolerance, n_workers=max(1, args.jobs),
            progress=say)
    except ValueError as exc:
        raise DataError(f"{_text(args.file)}: {_column_names(str(exc), args)}") from None
    for warning in result.warnings:
        print(_text(f"uqval: warning: {args.file}: {warning}"), file=sys.stderr)
    say(f"writing the report to {_text(args.out)}")
    _save(result, args.out, _terminal(result.summary()))
    return EXIT_MISCALIBRATED if args.fail_on_miscalibration and result.miscalibrated else EXIT_OK


def _model_specs(specs: list[str]) -> list[tuple[str, str, str]]:
    from uqval._internal.errors import DataError

    models = []
    for spec in specs:
        parts = spec.split(":")
        if len(parts) != 3 or not all(parts):
            raise DataError(f"--model {spec!r}: expected NAME:ERRCOL:UNCCOL (three non-empty "
                            "parts separated by ':')")
        # a model name is printed, drawn and written: without control characters
        models.append((_text(parts[0]) or parts[0], parts[1], parts[2]))
    names = [n for n, _, _ in models]
    if len(models) < 2:
        raise DataError("compare needs at least 2 --model options")
    if len(set(names)) != len(names):
        raise DataError(f"--model: model names must differ, got {', '.join(names)}")
    return models


def _run_compare_predictive(args: argparse.Namespace) -> int:
    from uqval._internal.batched import open_table
    from uqval._internal.columns import numeric_column
    from uqval._internal.errors import DataError
    from uqval._internal.tables import require_columns
    from uqval.predictive.columns import build_predictive, parse_model, spec_columns
    from uqval.report.files import check_output_folder

    if not args.y_true:
        raise DataError("predictive models (NAME:KIND=SPEC) need --y-true COL")
    check_output_folder(args.out, [args.file])
    source = open_table(args.file)
    try:  # the file's own problems are reported first, as when it was read whole
        specs = [parse_model(m, list(source.columns), [args.y_true]) for m in args.model]
        names = [n for n, _, _ in specs]
        if len(specs) < 2 or len(set(names)) != len(names):
            raise DataError("compare needs at least 2 --model options with different names")
    except DataError as exc:
        source.read([])
        raise exc from None
    used = {c for _, kind, spec in specs for c in spec_columns(kind, spec)}
    group = [args.group] if args.group else []
    table = source.read([args.y_true, *sorted(used), *group])
    require_columns(table, [args.y_true, *sorted(used), *group], args.file)
    numeric = {c: numeric_column(table[c], c, args.file) for c in {args.y_true, *used}}
    from uqval.comparison import compare

    try:
        models = {_text(n) or n: build_predictive(kind, spec, numeric, False)
                  for n, kind, spec in specs}
        result = compare(models, y_true=numeric[args.y_true].to_numpy(), seed=args.seed,
                         n_boot=args.n_boot,
                         groups=table[args.group].to_numpy() if args.group else None)
    except ValueError as exc:
        message = str(exc)
        if args.group:
            message = re.sub(r"^groups\b", f"column {args.group!r}", message)
        raise DataError(f"{args.file}: {message}") from None
    result = dataclasses.replace(result, input_sha256=table.sha256)
    _save(result, args.out, _terminal(result.summary()))
    return EXIT_OK


def _run_compare(args: argparse.Namespace) -> int:
    from uqval._internal.batched import read_columns
    from uqval._internal.columns import ROWS_NOTE, numeric_column
    from uqval._internal.errors import DataError
    from uqval._internal.tables import require_columns
    from uqval.predictive.columns import KINDS
    from uqval.report.files import check_output_folder

    if any(m.partition(":")[2].partition("=")[0] in KINDS and "=" in m for m in args.model):
        return _run_compare_predictive(args)
    models = _model_specs(args.model)
    check_output_folder(args.out, [args.file])
    columns = [c for _, a, b in models for c in (a, b)]
    used = [*([args.y_true] if args.y_true else []), *columns, *args.feature,
            *([args.group] if args.group else [])]
    table = read_columns(args.file, used)
    from uqval.comparison import compare

    require_columns(table, used, args.file)
    from uqval.validation.inputs import MIN_ROWS

    if len(table) < MIN_ROWS:
        raise DataError(f"{args.file}: {len(table)} data rows; compare needs at least "
                        f"{MIN_ROWS} (each model is validated in at least two bins of 30 rows)")
    say = progress(sys.stderr.isatty())
    numeric = {c: numeric_column(table[c], c, args.file)
               for c in {*columns, *args.feature, *([args.y_true] if args.y_true else [])}}
    data = {}
    for name, err_col, unc_col in models:
        errors = numeric[args.y_true] - numeric[err_col] if args.y_true else numeric[err_col]
        data[name] = (errors, numeric[unc_col])
    say(f"comparing {len(models)} models on {len(table)} rows")
    try:
        result = compare(data, {f: numeric[f] for f in args.feature}, seed=args.seed,
                         n_boot=args.n_boot,
                         groups=table[args.group].to_numpy() if args.group else None)
    except ValueError as exc:
        message = str(exc)
        for name, err_col, unc_col in models:
            message = message.replace(f"models[{name!r}]: errors",
                                      f"model {name!r} (column {err_col!r})")
            message = message.replace(f"models[{name!r}]: uncertainties",
                                      f"model {name!r}: column {unc_col!r}")
        message = re.sub(r"features\[('[^']*')\]", r"column \1", message)
        message = re.sub(r"models\[('[^']*')\]", r"model \1", message)
        if re.search(r"\brows? \d", message):
            message += ROWS_NOTE
        raise DataError(f"{args.file}: {message}") from None
    result = dataclasses.replace(result, input_sha256=table.sha256)
    for name, res in result.validations.items():
        for warning in res.warnings:
            print(_text(f"uqval: warning: model {name!r}: {warning}"), file=sys.stderr)
    say(f"writing the report to {_text(args.out)}")
    _save(result, args.out, _terminal(result.summary()))
    return EXIT_OK


def _save(result, out: Path, summary: str) -> None:
    """``result.save(out)``, then the summary and where the report is on standard output; any
    write failure becomes an OutputError or a StdoutError (exit code 3)."""
    from uqval.report.files import OutputError

    try:
        result.save(out)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"{printable(out, None)}: cannot write the report: "
                          f"{printable(exc.strerror or exc, 200)}") from None
    page = _text(out / "report.html")
    write_stdout(f"{summary}\nReport: {page}\n", f" (the report was written: {page})")


def _terminal(summary_md: str) -> str:
    """The summary for the terminal: readable plain text (Markdown escapes of names undone,
    bold markers dropped, control characters removed); summary.md keeps the escapes."""
    from uqval.report.markdown import md_plain

    return _text(md_plain(summary_md), keep_newlines=True)


def _text(value: object, keep_newlines: bool = False) -> str:
    """Text for the terminal: control characters (escape sequences, ...) removed."""
    return printable(value, None, keep_newlines=keep_newlines)


def _column_names(message: str, args: argparse.Namespace) -> str:
    """Rephrase the API's argument names as the user's column names and options."""
    from uqval._internal.columns import ROWS_NOTE

    error_name = (f"column {args.error!r}" if args.error
                  else f"errors ({args.y_true!r} - {args.y_pred!r})")
    replacements = {
        "errors": error_name,
        "uncertainties": f"column {args.uncertainty!r}",
        "variances": f"column {args.uncertainty!r} (variances)",
        "drop_invalid=True": "--drop-invalid",
    }
    for name in args.feature:
        replacements[f"features[{name!r}]"] = f"column {name!r}"
    if getattr(args, "recalibrate", None) and ":" in args.recalibrate:
        name = args.recalibrate.partition(":")[2]
        replacements["features['recalibration feature']"] = f"column {name!r}"
    keys = sorted(replacements, key=len, reverse=True)
    pattern = "|".join(re.escape(k) for k in keys)
    message = re.sub(pattern, lambda match: replacements[match.group(0)], message)
    return message + (ROWS_NOTE if re.search(r"\brows? \d", message) else "")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``uqval`` console script; returns the exit code."""
    code = _main(argv)
    try:  # what argparse printed (--help) and anything still buffered, unless it failed
        if code != EXIT_CANNOT_WRITE:
            write_stdout("")
    except BrokenPipeError:
        pass
    except StdoutError as exc:
        print(f"uqval: error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_WRITE
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors exit 2, --help exits 0
        return int(exc.code or 0)
    import numpy  # noqa: F401  (loads BLAS, so that its threads can be limited)
    from threadpoolctl import threadpool_limits

    from uqval._internal.errors import UqvalError
    from uqval.report.files import OutputError

    try:
        # BLAS on one thread: its sums then do not depend on the machine's cores, and its
        # threads do not spin on a busy machine (the command's threads are --jobs)
        with threadpool_limits(limits=1, user_api="blas"):
            return _run(args)
    except (OutputError, StdoutError) as exc:
        print(f"uqval: error: {_text(str(exc).replace(chr(10), ' '))}", file=sys.stderr)
        return EXIT_CANNOT_WRITE
    except UqvalError as exc:
        print(f"uqval: error: {_text(str(exc).replace(chr(10), ' '))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("uqval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `uqval validate ... | head`: stop writing quietly
        discard_stdout()
        return EXIT_OK
