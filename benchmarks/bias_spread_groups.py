"""The spread advised beside an offset, on rows in groups: false alarms and power.

Sets of ``group_error_rates.grouped_set`` (G groups of n rows, Z = sqrt(rho) a_g +
sqrt(1 - rho) b_i, Var(Z) = 1, ICC(Z) = rho, uE ~ U(0.5, 2)), then E = uE (s Z + b): an offset
b (in units of uE) and a spread s. With s = 1 a ``scale`` row is a false alarm (the spread is
right once the offset is corrected); with s = 0.6 and b = 0.8 (ZMS = 1: the offset hides
uncertainties 1.7x too large) or s = 0.8 and b = 0.5 it is the finding. One
``validate(e, u, features, groups=g, seed=seed, n_boot=500, n_permutations=199,
n_ucc_permutations=99)`` per set; counted: a ``scale`` row of the average stage with a factor
beyond the band, a ``correct_bias`` row of the average stage, and the factor advised.

Usage: ``PYTHONPATH=src python benchmarks/bias_spread_groups.py [--reps 100]``; prints a
Markdown table (``benchmarks/advice_rules.md`` holds a run, before and after).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from group_error_rates import grouped_set

from uqval import validate

CELLS = [  # groups, rows per group, ICC, offset b, spread s
    (100, 10, 0.3, 0.5, 1.0), (100, 10, 0.3, 0.8, 0.6), (100, 10, 0.3, 0.5, 0.8),
    (30, 30, 0.5, 0.5, 1.0), (30, 30, 0.5, 0.8, 0.6)]


def one(seed: int, cell: tuple[int, int, float, float, float]) -> dict:
    n_groups, size, rho, b, s = cell
    e, u, feats, g = grouped_set(seed, n_groups, size, rho, "normal")
    e = u * (s * e / u + b)
    res = validate(e, u, feats, groups=g, seed=seed, n_boot=500, n_permutations=199,
                   n_ucc_permutations=99)
    a = res.advice[res.advice["stage"] == "average"]
    scale = a[(a["action"] == "scale") & ((a["factor"] > 1.1) | (a["factor"] < 1 / 1.1))]
    return {"cell": f"G={n_groups} n={size} ICC={rho} b={b} s={s}", "scale": len(scale) > 0,
            "correct_bias": bool((a["action"] == "correct_bias").any()),
            "factor": float(scale["factor"].iloc[0]) if len(scale) else np.nan}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=100)
    args = ap.parse_args()
    rows = [one(seed, cell) for cell in CELLS for seed in range(args.reps)]
    df = pd.DataFrame(rows)
    table = df.groupby("cell", sort=False).agg(
        sets=("scale", "size"), scale=("scale", "mean"), correct_bias=("correct_bias", "mean"),
        factor=("factor", "mean"))
    table[["scale", "correct_bias"]] *= 100
    print(table.round(3).to_markdown())


if __name__ == "__main__":
    main()
