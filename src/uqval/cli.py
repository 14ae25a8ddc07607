"""Command line: ``uqval validate FILE ...`` (see ``uqval validate --help``).

Exit codes: 0 the validation ran (whatever the verdicts); 1 a test failed and
``--fail-on-miscalibration`` was given; 2 bad input or usage (one line on stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main"]

EXIT_OK, EXIT_MISCALIBRATED, EXIT_BAD_INPUT = 0, 1, 2

_EPILOG = """\
Errors are reference minus prediction (--error, or --y-true and --y-pred). The input is
CSV, TSV (.tsv) or Parquet (.parquet, needs pyarrow).

Writes to --out (default: uqval-report): report.html (open it in a browser),
verdicts.csv, summary.md, bins_<name>.csv for the uncertainty and each feature, and the
figures as PNG. The summary is also printed.

Exit codes:
  0  validation ran (whatever the verdicts)
  1  some test failed and --fail-on-miscalibration was given (for CI)
  2  bad input or usage (one line on stderr naming the file, column and reason)

Examples:
  uqval validate preds.csv --error err --uncertainty sigma --feature T --feature P
  uqval validate preds.parquet --y-true y --y-pred yhat --uncertainty var --variance \\
      --out report/ --fail-on-miscalibration
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uqval", description="Validate the uncertainties of regression predictions."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser(
        "validate",
        help="validate errors and uncertainties read from a table",
        description="Are the uncertainties right on average, along the uncertainty itself "
        "(consistency) and along each feature (adaptivity)? If not: by how much and where.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("file", type=Path, help="CSV, TSV or Parquet table, one row per prediction")
    err = v.add_mutually_exclusive_group(required=True)
    err.add_argument("--error", metavar="COL", help="column of errors (reference - prediction)")
    err.add_argument("--y-true", metavar="COL", help="column of reference values (with --y-pred)")
    v.add_argument("--y-pred", metavar="COL", help="column of predictions (with --y-true)")
    v.add_argument("--uncertainty", metavar="COL", required=True,
                   help="column of standard uncertainties (or variances with --variance)")
    v.add_argument("--variance", action="store_true", help="the uncertainty column holds variances")
    v.add_argument("--feature", metavar="COL", action="append", default=[],
                   help="numeric input feature to test along (repeatable)")
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
    v.add_argument("--rule", choices=("uqval", "paper"), default="uqval",
                   help="decision rules (default: uqval; paper: the adaptivity paper's "
                   "flowchart)")
    v.add_argument("--drop-invalid", action="store_true",
                   help="remove rows with NaN/infinite values or non-positive uncertainties "
                   "(and report how many) instead of stopping")
    v.add_argument("--fail-on-miscalibration", action="store_true",
                   help="exit with 1 when any test fails")
    v.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="threads (no effect on the results; default: 1)")
    return parser


def _progress(enabled: bool):
    start = time.monotonic()

    def say(message: str) -> None:
        if enabled:
            print(f"[{time.monotonic() - start:6.1f} s] {message}", file=sys.stderr, flush=True)

    return say


def _run(args: argparse.Namespace) -> int:
    from uqval.errors import DataError
    from uqval.validation import validate
    from uqval.validation.io import file_sha256, read_table, require_columns

    if args.y_true is not None and args.y_pred is None:
        raise DataError("--y-true needs --y-pred")
    if args.y_pred is not None and args.y_true is None:
        raise DataError("--y-pred needs --y-true (or use --error)")
    table = read_table(args.file)
    error_cols = [args.error] if args.error else [args.y_true, args.y_pred]
    require_columns(table, [*error_cols, args.uncertainty, *args.feature], args.file)
    say = _progress(sys.stderr.isatty())
    say(f"read {len(table)} rows from {args.file}")
    if args.error:
        errors = table[args.error]
    else:
        numeric = {}
        for col in error_cols:
            numeric[col] = _numeric(table[col], col, args.file)
        errors = numeric[args.y_true] - numeric[args.y_pred]
        errors.name = f"{args.y_true} - {args.y_pred}"
    try:
        result = validate(
            errors, table[args.uncertainty], {f: table[f] for f in args.feature},
            variance=args.variance, seed=args.seed, n_boot=args.n_boot,
            n_permutations=args.n_permutations, n_bins=args.bins, rule=args.rule,
            drop_invalid=args.drop_invalid, uncertainty_name=args.uncertainty,
            n_workers=max(1, args.jobs), progress=say,
        )
    except ValueError as exc:
        raise DataError(f"{args.file}: {_column_names(str(exc), args)}") from None
    result = dataclasses.replace(result, input_sha256=file_sha256(args.file))
    say(f"writing the report to {args.out}")
    result.save(args.out)
    print(result.summary())
    print(f"Report: {args.out / 'report.html'}")
    return EXIT_MISCALIBRATED if args.fail_on_miscalibration and result.miscalibrated else EXIT_OK


def _numeric(series, column: str, path: Path):
    import pandas as pd

    from uqval.errors import DataError

    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        first = bad.to_numpy().nonzero()[0][:5]
        shown = ", ".join(f"row {i + 2}: {series.iloc[i]!r}" for i in first)
        raise DataError(f"{path}: column {column!r} has non-numeric values ({shown})")
    return values


def _column_names(message: str, args: argparse.Namespace) -> str:
    """Rephrase the API's argument names as the user's column names and options."""
    error_name = args.error or f"{args.y_true} - {args.y_pred}"
    replacements = {
        "errors": f"column {error_name!r}",
        "uncertainties": f"column {args.uncertainty!r}",
        "variances": f"column {args.uncertainty!r} (variances)",
        "drop_invalid=True": "--drop-invalid",
    }
    for name in args.feature:
        replacements[f"features[{name!r}]"] = f"column {name!r}"
    keys = sorted(replacements, key=len, reverse=True)
    pattern = "|".join(re.escape(k) for k in keys)
    return re.sub(pattern, lambda match: replacements[match.group(0)], message)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``uqval`` console script; returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors exit 2, --help exits 0
        return int(exc.code or 0)
    from uqval.errors import UqvalError

    try:
        return _run(args)
    except UqvalError as exc:
        print(f"uqval: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("uqval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `uqval validate ... | head`: stop writing quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
