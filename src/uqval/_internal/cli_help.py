"""The help texts of the ``uqval`` command line (``uqval validate --help``, ``uqval compare
--help``): what the input may be, what is written, the exit codes and examples."""

__all__ = ["COMPARE_EPILOG", "VALIDATE_EPILOG"]

INPUT = """\
The input is CSV, TSV (.tsv, .tab) or Parquet (.parquet, needs pyarrow), optionally
compressed (.csv.gz, .tsv.xz, .bz2, .zip); the separator comes from the suffix before the
compression suffix (.txt: sniffed on the first 64 KiB). Refused with the line or column:
NUL bytes, lines over 1 MiB, rows with more non-empty fields than the header, duplicate
column names, names with control characters; a compressed file may expand to at most
min(2 GiB, max(16 MiB, 100 x its size)).
"""

EXIT_WRITE = """\
  3  the report cannot be written to --out (an existing file, a folder that cannot be
     created or written, a folder holding the input file, a name too long; checked before
     computing where possible) or standard output (a full disk); one line on stderr
"""

VALIDATE_EPILOG = """\
Errors are reference minus prediction (--error, or --y-true and --y-pred). Rows in messages
are data rows counted from 1. A variable that cannot be cut into two bins of 30 rows without
separating equal values (one uncertainty for every row, a feature with one value almost
everywhere) is reported as "not testable"; the other stages still run.
""" + INPUT + """

Writes to --out (default: uqval-report): report.html (open it in a browser),
verdicts.csv, summary.md, bins_<name>.csv for the uncertainty and each feature, and the
figures as PNG. The summary is also printed.

Exit codes:
  0  validation ran (whatever the verdicts)
  1  some test failed and --fail-on-miscalibration was given (for CI)
  2  bad input or usage (one line on stderr naming the file, column and reason)
""" + EXIT_WRITE + """
With --recalibrate the uncertainties are first recalibrated by 5-fold cross-validation
(each fold by the method fitted on the other four) and the out-of-fold uncertainties are
validated: an honest check of how the recalibration will do on new data.

A test set in parts (a folder or a quoted glob of Parquet files, e.g. 10^8 force components
in 100 files) is read twice, --jobs files at a time, never all rows at once: ZMS, <Z>, the
scale factor's interval (Poisson bootstrap), the tail shares and the per-bin values use all
rows; the tests and figures a seeded subsample of --subsample rows (the report says so). A
group (--group) must not be split across files. Sets of at most --subsample rows are
validated whole, as from one file.

Predictive outputs: the coverage of central intervals at each level (exact binomial tests,
and along the interval width and each feature), the shape of the predictive distributions
(PIT uniformity) and, where a variance exists, the variance stages on y - mean with the sd.
Data problems (crossing quantiles, low > high, NaN members, zero spread) are counted with
their rows and handled by the documented rule, never silently; scores.csv lists every score
that applies (crps, interval scores, check score, ...).

Examples:
  uqval validate preds.csv --error err --uncertainty sigma --feature T --feature P
  uqval validate forces.csv --error err --uncertainty sigma --feature T --group structure
  uqval validate forces/ --error err --uncertainty sigma --group structure --jobs 2
  uqval validate 'runs/*/part-*.parquet' --error err --uncertainty sigma --feature T
  uqval validate preds.parquet --y-true y --y-pred yhat --uncertainty var --variance \\
      --out report/ --fail-on-miscalibration
  uqval validate preds.csv --error err --uncertainty sigma --feature T --recalibrate binned:T
  uqval validate ngb.csv --y-true y --y-pred mu --uncertainty sd --distribution t:4
  uqval validate rf.csv --y-true y --members 'tree_*' --feature T
  uqval validate qgb.csv --y-true y --quantiles 0.05:q05,0.5:q50,0.95:q95
  uqval validate conformal.csv --y-true y --interval 0.9:lo90:hi90 --interval 0.5:lo50:hi50
"""

COMPARE_EPILOG = """\
Each --model is NAME:ERRCOL:UNCCOL (errors = reference - prediction), or with --y-true COL
NAME:PREDCOL:UNCCOL (errors = y_true - prediction). All models are scored on the same rows.

Writes to --out (default: uqval-comparison): report.html, comparison.csv (every score of
every model with its paired-bootstrap interval and probabilistic reference), verdicts.csv
(validation verdicts per model), pairwise.csv (paired differences and p-values),
ranking.csv (rank per score, ties when not significantly different; mean and overall rank),
summary.md and the overlay figures as PNG. The summary is also printed.

""" + INPUT + """
Exit codes:
  0  comparison ran
  2  bad input or usage (one line on stderr)
""" + EXIT_WRITE + """
Predictive models (with --y-true) are NAME:KIND=SPEC, KIND one of members=PATTERN,
samples=PATTERN (glob or comma list), normal=MEAN,SD, laplace=MEAN,SD, t=MEAN,SD,NU (NU a
number or a column), quantiles=LEVEL:COL,..., interval=LEVEL:LOW:HIGH[;LEVEL:LOW:HIGH]. Models
of different kinds are compared on the scores they all have (check score at common quantile
levels, interval scores at common levels; CRPS and NLL when every model has them) and on
coverage; writes comparison.csv, pairwise.csv, coverage.csv, summary.md and report.html.

Examples:
  uqval compare preds.csv --model A:err_a:sigma_a --model B:err_b:sigma_b --feature T
  uqval compare preds.csv --y-true y --model A:pred_a:sigma_a --model B:pred_b:sigma_b
  uqval compare preds.csv --y-true y --model 'RF:members=tree_*' --model NGB:normal=mu,sd \\
      --model QGB:quantiles=0.05:q05,0.5:q50,0.95:q95
"""
