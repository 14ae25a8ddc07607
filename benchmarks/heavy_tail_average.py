"""The average stage on heavy-tailed z-scores: false alarms and power, by simulation.

When the screening flags Z^2 as heavy-tailed (beta_GM(Z^2) > 0.8), the ZMS interval is
unreliable, but not on both sides alike: the mean of a right-skewed Z^2 is underestimated far
more often than overestimated. This script measures, on the same datasets, what the rule of
``uqval.validation.stages._average_rows`` decides (an interval wholly above 1 fails, one wholly
below 1 only if |zeta| > 3) and the rates of both one-sided events among the flagged sets.

Datasets: uE lognormal(0, 0.5); E = k·uE·D, D unit-variance Student t(nu), nu in 2.5, 3, 4;
k = 1 (calibrated: every fail or scale advice is a false alarm) or 1.5 (uncertainties 1.5x
too small: power); M = 150, 500, 2000; rows alone or in groups of 8 on average (group ids
drawn at random, i.e. ``groups=`` given, no group effect). 300 datasets per cell, seeds
0..299, ``n_boot=500``.

Columns: ``flagged`` share of sets the screening flags; ``fail`` the ZMS row fails;
``scale`` the advice holds a ``scale`` row; among the flagged sets: ``below`` the interval
lies wholly below 1, ``above`` wholly above 1, ``above band`` its lower limit above 1.1.

Usage: ``nice -n 10 python benchmarks/heavy_tail_average.py [--n 300]``; writes
``benchmarks/heavy_tail_average.md`` (and the rows to ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import datetime
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

import uqval

HERE = Path(__file__).resolve().parent
SETTINGS = {"n_boot": 500, "n_permutations": 99, "n_ucc_permutations": 19}
CELLS = [(nu, m, k, grouped) for grouped in (False, True) for nu in (2.5, 3.0, 4.0)
         for m in (150, 500, 2000) for k in (1.0, 1.5)]


def one(args: tuple[float, int, float, bool, int]) -> dict:
    nu, m, k, grouped, seed = args
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0, 0.5, m)
    z = rng.standard_t(nu, m) / np.sqrt(nu / (nu - 2))
    groups = rng.integers(0, m // 8, m) if grouped else None
    res = uqval.validate(k * u * z, u, seed=seed, groups=groups, **SETTINGS)
    v = res.verdicts
    zms = v[(v["stage"] == "average") & (v["statistic"] == "ZMS")].iloc[0]
    advice = res.advice
    return {"nu": nu, "m": m, "k": k, "grouped": grouped, "seed": seed,
            "flagged": not res.screening.zms_reliable, "fail": zms["verdict"] == "fail",
            "scale": bool(len(advice) and (advice["action"] == "scale").any()),
            "low": float(np.sqrt(zms["ci_low"])), "high": float(np.sqrt(zms["ci_high"]))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    n = ap.parse_args().n
    t0 = time.time()
    jobs = [(*cell, seed) for cell in CELLS for seed in range(n)]
    with Pool(2) as pool:
        df = pd.DataFrame(pool.map(one, jobs, chunksize=8))
    (HERE / "results").mkdir(exist_ok=True)
    df.to_csv(HERE / "results" / "heavy_tail_average.csv", index=False)
    df["below"], df["above"], df["above_band"] = df.high < 1, df.low > 1, df.low > 1.1
    keys = ["grouped", "nu", "m", "k"]
    allsets = df.groupby(keys)[["flagged", "fail", "scale"]].mean()
    flagged = df[df.flagged].groupby(keys)[["below", "above", "above_band"]].mean()
    table = allsets.join(flagged).mul(100).round(1).reset_index()
    lines = ["# The average stage on heavy-tailed z-scores", "",
             f"Run {datetime.date.today().isoformat()}, `python benchmarks/heavy_tail_average.py "
             f"--n {n}` ({time.time() - t0:.0f} s on 2 cores), uqval {uqval.__version__}; "
             "design and columns in the script's docstring. Percent of the datasets "
             "(the last three: of those the screening flags).", "",
             "| groups | t(nu) | M | k | flagged | fail | scale | below (flagged) | "
             "above (flagged) | above band (flagged) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in table.itertuples(index=False):
        lines.append(f"| {'yes' if r.grouped else 'no'} | {r.nu:g} | {r.m} | {r.k:g} | "
                     f"{r.flagged:g} | {r.fail:g} | {r.scale:g} | {r.below:g} | {r.above:g} | "
                     f"{r.above_band:g} |")
    lines += ["", "## What this says", "", READING, ""]
    (HERE / "heavy_tail_average.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


READING = """\
- On calibrated sets (k = 1) the flagged intervals lie wholly below 1 in 7-37 % of the sets
  with t(3) and t(2.5) errors and wholly above 1 in 0-1.6 %: the downward side is the
  unreliable one, and a downward departure still needs |zeta| > 3.
- The upward side, which the rule lets fail: above 1 in 0-1.6 % of the flagged t(3) and
  t(2.5) sets, 4.7-9 % of the flagged t(4) sets (0-1.1 % with groups). Over all calibrated
  sets of 500 rows and more the ZMS row fails in 0.3-6.7 % and `scale` is advised in
  0-6.3 %.
- Power at k = 1.5 (uncertainties 1.5x too small), rows alone, 500 rows: the ZMS fails in
  83 % (t(2.5)), 100 % (t(3), t(4)) of the sets; `scale` is advised in 60 %, 95 %, 100 %
  (with t(2.5) the top 1 % of the rows often carry most of sum Z^2: `inspect_rows` first).
- Before this rule (|zeta| > 3 on both sides), the flagged sets with k = 1.5 failed in
  0-11 % of the M = 150-500 cells with t(3) and t(2.5) errors (the same seeds, 2026-12-04):
  the uncertainties 1.5x too small were called inconclusive.
- Not fixed here, measured: at M = 150 the calibrated t(3) and t(2.5) sets get a `scale`
  advice in 15-19 % (rows) and 8-11 % (groups), every one of them downward (uncertainties
  called too large), the same as before this rule: sets the screening does not flag whose
  BCa interval misses the tail, and the dominant rows' robust factor. With 150 rows and
  such tails a factor 0.7 cannot be told from 1.
"""


if __name__ == "__main__":
    main()
