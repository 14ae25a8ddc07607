"""The rows outside the advised coverage ranges: when is a global widening advised?

Predictive route, ``Normal(0, sd)`` declared, sd ~ U(0.5, 2), a feature x ~ U(0, 1), M rows;
errors sd * s(x) * N(0, 1) with the true scale s per cell:

* ``calibrated``: s = 1 (every coverage action is false);
* ``local 2x``: s = 2 where x > 0.8, else 1 (the range along x is the finding; a global
  widening is wrong for the 80 % of rows that are right);
* ``all 1.25x``: s = 1.25 everywhere (a global widening is the finding);
* ``all 1.25x, local 2x``: s = 1.25, and 2.5 where x > 0.8 (both).

Per cell and rule (``--label before``: run with ``PYTHONPATH`` on an older tree's ``src``;
``--label after``: this tree): the share of sets with a global ``widen`` row at any level, with a coverage range
along x (``recalibrate_per_range``, stage ``coverage``), and with a ``none`` row saying the
rest is right. Seeds 0..n-1.

Usage: ``nice -n 10 python benchmarks/coverage_rest_rates.py [--n 40] [--rows 1000]``
(``PYTHONPATH=<old tree>/src`` for the before column: run twice, ``--label before|after``);
writes ``benchmarks/results/coverage_rest_<label>.csv``.
"""

from __future__ import annotations

import argparse
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

import uqval
from uqval.predictive import Normal

HERE = Path(__file__).resolve().parent
CELLS = {"calibrated": (1.0, 1.0), "local 2x": (1.0, 2.0), "all 1.25x": (1.25, 1.25),
         "all 1.25x, local 2x": (1.25, 2.5)}


def one(args: tuple[str, int, int]) -> dict:
    cell, seed, m = args
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(seed)
    sd = rng.uniform(0.5, 2.0, m)
    x = rng.uniform(0.0, 1.0, m)
    base, local = CELLS[cell]
    e = sd * np.where(x > 0.8, local, base) * rng.standard_normal(m)
    res = uqval.validate(e, Normal(np.zeros(m), sd), {"x": x}, seed=seed, n_boot=200,
                         n_permutations=199)
    a = res.advice
    cov = a[a["stage"] == "coverage"]
    return {"cell": cell, "seed": seed,
            "global widen": bool((cov["action"] == "widen").any()),
            "range along x": bool(((cov["action"] == "recalibrate_per_range")
                                   & (cov["variable"] == "x")).any()),
            "rest right": bool(cov["reason"].str.startswith("no global").any())}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--label", default="after")
    args = ap.parse_args()
    jobs = [(c, s, args.rows) for c in CELLS for s in range(args.n)]
    with Pool(2) as pool:
        df = pd.DataFrame(pool.map(one, jobs, chunksize=4))
    (HERE / "results").mkdir(exist_ok=True)
    df.to_csv(HERE / "results" / f"coverage_rest_{args.label}.csv", index=False)
    print(df.groupby("cell", sort=False)[["global widen", "range along x", "rest right"]]
          .mean().mul(100).round(0).to_string())


if __name__ == "__main__":
    main()
