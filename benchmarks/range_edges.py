"""Where the advised ranges end: rows advised a factor they do not need.

A range of adjacent bins gets one factor. When a bin just beyond the target is pooled with
a neighbour far beyond it, its rows get their mean, a factor they do not need. Since
2026-12-07 two adjacent bins are pooled only when their intervals overlap
(``uqval.validation.bin_ranges.problem_ranges``). This script plants a step and measures,
over seeded sets, how much of the advised ranges lies outside it.

Data: x = i/M (rows in the order of x), uE = 1, E = uE·D·s(x) with D standard normal and
s(x) = k for x in the planted range, 1 elsewhere; with ``groups``, rows in groups of 4
consecutive rows (the order of x: consecutive groups are dependent once the step is
there, and uqval resamples blocks of them). Cases:

* ``calibrated``: k = 1 (every range is false);
* ``top 25 % x3``: k = 3 for x >= 0.75;
* ``top 50 % x1.6``: k = 1.6 for x >= 0.5;
* ``middle 20 % x2.5``: k = 2.5 for 0.4 <= x < 0.6.

Per case: % of sets with a ``recalibrate_per_range`` row along x; the mean share of the rows
whose advised factor (their range's, else the global ``scale`` factor, else 1) is off the
planted one by more than 20 % (``misadvised``: rows given a factor they do not need, or left
without one they need; a range of the right rows beside a global factor for the others is
as good as the other way round); and the median over the sets of the median factor advised
to the planted rows.

Usage: ``python benchmarks/range_edges.py [--sets N] [--rows M]``; ``PYTHONPATH=<other
checkout>/src`` runs another version on the same sets. Prints a Markdown table.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sim_args import sets_and_rows

import uqval

CASES = {"calibrated": (0.0, 0.0, 1.0), "top 25 % x3": (0.75, 1.01, 3.0),
         "top 50 % x1.6": (0.5, 1.01, 1.6), "middle 20 % x2.5": (0.4, 0.6, 2.5)}


def one(case: str, m: int, grouped: bool, seed: int) -> dict:
    lo, hi, k = CASES[case]
    rng = np.random.default_rng([seed, list(CASES).index(case), int(grouped), m])
    x = np.arange(m) / m
    planted = (x >= lo) & (x < hi)
    e = rng.standard_normal(m) * np.where(planted, k, 1.0)
    groups = np.arange(m) // 4 if grouped else None
    res = uqval.validate(e, np.ones(m), {"x": x}, groups=groups, seed=seed, n_boot=300,
                         n_permutations=299, n_ucc_permutations=99)
    a = res.advice
    ranges = a[(a["action"] == "recalibrate_per_range") & (a["variable"] == "x")]
    scale = a.loc[a["action"] == "scale", "factor"]
    advised = np.full(m, float(scale.iloc[0]) if len(scale) else 1.0)
    for r in ranges.iloc[::-1].itertuples():  # the first range listed wins where they overlap
        advised[(x >= r.low) & (x <= r.high)] = r.factor
    truth = np.where(planted, k, 1.0)
    ratio = advised / truth
    return {"case": case, "grouped": grouped, "seed": seed, "range": bool(len(ranges)),
            "misadvised": float(np.mean((ratio > 1.2) | (ratio < 1 / 1.2))),
            "planted_factor": float(np.median(advised[planted])) if planted.any() else np.nan}


def main() -> None:
    args = sets_and_rows(__doc__, rows=400)
    start = time.time()
    df = pd.DataFrame([one(c, args.rows, g, s) for g in (False, True) for c in CASES
                       for s in range(args.sets)])
    print(f"{len(df)} sets of {args.rows} rows in {time.time() - start:.0f} s "
          f"({uqval.__file__})\n")
    print("| rows | case | range along x % | rows misadvised % | factor advised there (median) |")
    print("|---|---|--:|--:|--:|")
    for (g, c), d in df.groupby(["grouped", "case"], sort=False):
        print(f"| {'groups of 4' if g else 'independent'} | {c} | {100 * d['range'].mean():.1f} "
              f"| {100 * d['misadvised'].mean():.1f} | {d['planted_factor'].median():.2f} |")


if __name__ == "__main__":
    main()
