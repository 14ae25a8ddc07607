"""False-alarm rate and power of the paired tests of ``uqval.compare`` by simulation.

Two models A and B on the same M points, u ~ lognormal(0, 0.5), ε, ε' standard normal:

* ``twins`` (null): one set of errors E = u·ε; uE_A = u·η_A and uE_B = u·η_B with independent
  η ~ lognormal(0, 0.3): two uncertainty sets of identical quality for the same errors;
* ``independent noise`` (null): the same calibrated model twice with independent noise,
  A = (u·ε, u) and B = (u·ε', u);
* ``too small x1.3`` (power): A = (E, u), B = (E, u/1.3);
* ``noisy`` (power): A = (E, u), B = (E, u·η), η ~ lognormal(0, 0.5).

A difference is significant when its paired-bootstrap 95 % interval excludes 0 (what the
ranking uses) or, for the AUUCC, when the permutation test gives p < 0.05. The table gives
the % of datasets where each score differs significantly, and where any ranked score does
(the chance that the two models do not tie on every score).

Usage: ``nice -n 10 python benchmarks/compare_error_rates.py [--quick]``; writes
``benchmarks/results/compare_error_rates.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import uqval

CASES = ("twins", "independent noise", "too small x1.3", "noisy")
OUT = Path(__file__).resolve().parent / "results"


def models(m: int, seed: int, case: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The two models of one simulated dataset (module doc)."""
    rng = np.random.default_rng([seed, m, CASES.index(case)])
    u = rng.lognormal(0.0, 0.5, m)
    e = u * rng.normal(size=m)
    if case == "twins":
        return {"A": (e, u * rng.lognormal(0, 0.3, m)), "B": (e, u * rng.lognormal(0, 0.3, m))}
    if case == "independent noise":
        return {"A": (e, u), "B": (u * rng.normal(size=m), u)}
    if case == "too small x1.3":
        return {"A": (e, u), "B": (e, u / 1.3)}
    return {"A": (e, u), "B": (e, u * rng.lognormal(0.0, 0.5, m))}


def significant(m: int, seed: int, case: str, n_boot: int) -> pd.Series:
    """Which differences of one dataset are significant (bool per score, and ``any``)."""
    res = uqval.compare(models(m, seed, case), n_boot=n_boot, n_sim=20, seed=seed,
                        validate_models=False)
    d = res.differences.loc[("A", "B")]
    flags = (d["ci_low"] > 0) | (d["ci_high"] < 0)
    flags["auucc"] = d.loc["auucc", "p_value"] < 0.05
    ranked = list(res.ranking.columns)
    out = flags.astype(bool)
    out["any ranked score"] = bool(flags[ranked].any())
    return out


def run(m: int, n_data: int, n_boot: int) -> pd.DataFrame:
    rows = {}
    for case in CASES:
        t0 = time.time()
        rows[case] = pd.DataFrame([significant(m, s, case, n_boot) for s in range(n_data)]).mean()
        print(f"{case}: {time.time() - t0:.0f} s", flush=True)
    return 100 * pd.DataFrame(rows).T


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 datasets instead of 200")
    parser.add_argument("--m", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=500)
    args = parser.parse_args()
    n_data = 20 if args.quick else 200
    table = run(args.m, n_data, args.n_boot)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "compare_error_rates.csv")
    shown = ["zms", "rce", "ence", "zmse", "uce", "nll", "crps", "interval_score",
             "miscalibration_area", "rank_correlation", "auucc", "any ranked score"]
    header = (f"% of {n_data} datasets (M = {args.m}, n_boot = {args.n_boot}) where A and B "
              "differ significantly at 5 %\n\n")
    (OUT / "compare_error_rates.md").write_text(
        header + table[shown].round(1).to_markdown() + "\n", encoding="utf-8")
    print(header + table[shown].round(1).to_string())


if __name__ == "__main__":
    main()
