"""False-alarm rate and power of the sequential (Besag-Clifford, h = 20) permutation tests of
the conditional stages against the fixed rule (999 permutations), as used by
``uqval.validate`` above ``LARGE_ROWS`` rows (issue 29).

Sets of M = 5000 rows, uE ~ U(0.5, 2), x ~ U(0, 1), 10 equal-count bins of uE and of x;
calibrated: E = uE N(0, 1); planted: E = uE N(0, 1) sqrt(1 + slope (x - 1/2)), slopes 0.2 and 0.6.
Per set, both tests (T_ZMS, T_Z) along both variables, by both rules on the same seed (the
sequential rule draws the first permutations of the fixed one). Rate of p <= alpha with a
95 % Wilson interval, and the mean number of permutations drawn. Usage::

    nice -n 10 python benchmarks/sequential_permutation_rates.py [--sets 500]

Results: printed as Markdown (docs/explanations/large-sets.md).
"""

from __future__ import annotations

import argparse

import numpy as np

from uqval.stats.binomial import wilson_interval
from uqval.validation.permutation import heterogeneity_tests


def labels(x: np.ndarray, k: int) -> np.ndarray:
    return np.searchsorted(np.quantile(x, np.linspace(0, 1, k + 1)[1:-1]), x).astype(np.int32)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=500)
    parser.add_argument("--m", type=int, default=5000)
    args = parser.parse_args()
    alpha = 0.05
    print(f"| data | test | rule | rate of p <= {alpha} | mean permutations |")
    print("|---|---|---|---|---|")
    for case, slope in (("calibrated", 0.0), ("variance slope 0.2 along x", 0.2),
                        ("variance slope 0.6 along x", 0.6)):
        hits = {(r, t): [] for r in ("fixed", "sequential") for t in range(4)}
        used = {k: [] for k in hits}
        for i in range(args.sets):
            rng = np.random.default_rng([20261125, i, int(slope * 10)])
            u = rng.uniform(0.5, 2.0, args.m)
            x = rng.uniform(0.0, 1.0, args.m)
            e = u * rng.standard_normal(args.m) * np.sqrt(1.0 + slope * (x - 0.5))
            lab = [labels(u, 10), labels(x, 10)]
            for rule, h in (("fixed", None), ("sequential", 20)):
                res = heterogeneity_tests(e / u, lab, n_permutations=999, seed=i, exceedances=h)
                flat = [t for pair in res for t in pair]
                for t, test in enumerate(flat):
                    hits[(rule, t)].append(test.p_value <= alpha)
                    used[(rule, t)].append(test.n_permutations)
        names = ["T_ZMS along uE", "T_Z along uE", "T_ZMS along x", "T_Z along x"]
        for t, name in enumerate(names):
            for rule in ("fixed", "sequential"):
                k, n = int(np.sum(hits[(rule, t)])), len(hits[(rule, t)])
                lo, hi = wilson_interval(k, n)
                print(f"| {case} | {name} | {rule} | {k / n:.3f} [{lo:.3f}, {hi:.3f}] | "
                      f"{np.mean(used[(rule, t)]):.0f} |", flush=True)


if __name__ == "__main__":
    main()
