"""False alarms of ``compare(models, y_true=y, groups=...)`` on predictive models in groups.

Each set: G groups of n rows, y = mu + sd (sqrt(ICC) a_g + sqrt(1 - ICC) b_i) (a_g, b_i
standard normal); two models equally good by construction, Normal(mu + d_A, sd') and
Normal(mu + d_B, sd') with d_A, d_B ~ N(0, (0.3 sd)^2) drawn per group the same way
(ICC of the shift) and sd' = sqrt(1 + 0.09) sd, so both predictives are right for y and
have the same expected scores. Counted per set: a difference of CRPS or of the 90 %
interval score called significant ("better" is not "tie"), and model A's 90 % coverage
rejected at 5 %; with the groups given and without. Power: a third model C, B with its sd
1.5 times too large, found worse than A on the CRPS.

Usage::

    nice -n 5 python benchmarks/group_compare_rates.py [--sets 100] [--cells 20:30:0.8,...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import uqval


def grouped_pair(seed: int, n_groups: int, size: int, icc: float):
    rng = np.random.default_rng(seed)
    m = n_groups * size
    g = np.repeat(np.arange(n_groups), size)
    mu, sd = rng.normal(size=m), rng.uniform(0.5, 2.0, m)

    def part():
        return np.sqrt(icc) * rng.standard_normal(n_groups)[g] + np.sqrt(1 - icc) * \
            rng.standard_normal(m)

    d_a, d_b = 0.3 * sd * part(), 0.3 * sd * part()
    y = mu + sd * part()
    wide = np.sqrt(1.09) * sd
    # y - (mu + d) = sd (part - 0.3 part'): variance 1.09 sd^2, with the same ICC
    return y, {"A": uqval.Normal(mu + d_a, wide), "B": uqval.Normal(mu + d_b, wide),
               "C": uqval.Normal(mu + d_b, 1.5 * wide)}, g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=100)
    parser.add_argument("--cells", default="20:30:0.8,60:20:0.5,200:10:0.2")
    args = parser.parse_args()
    print("| G x n | ICC | groups | CRPS difference called | 90 % interval score difference "
          "called | A's 90 % coverage rejected | power: A better than C (CRPS) | s per set |")
    print("|---|---|---|---|---|---|---|---|")
    for cell in args.cells.split(","):
        n_groups, size, icc = int(cell.split(":")[0]), int(cell.split(":")[1]), \
            float(cell.split(":")[2])
        for grouped in (True, False):
            crps = interval = cover = power = 0
            t0 = time.perf_counter()
            for seed in range(args.sets):
                y, models, g = grouped_pair(seed, n_groups, size, icc)
                res = uqval.compare(models, y_true=y, n_boot=500, seed=seed,
                                    groups=g if grouped else None)
                d = res.differences
                crps += d.loc[("A", "B", "crps"), "better"] != "tie"
                interval += d.loc[("A", "B", "interval_score_0.9"), "better"] != "tie"
                cover += res.coverage.loc[("A", 0.9), "p_value"] < 0.05
                power += d.loc[("A", "C", "crps"), "better"] == "A"
            n = args.sets
            secs = (time.perf_counter() - t0) / n
            print(f"| {n_groups} x {size} | {icc} | {'given' if grouped else 'not given'} | "
                  + " | ".join(f"{100 * k / n:.0f} % ({k}/{n})" for k in (crps, interval, cover, power))
                  + f" | {secs:.2f} |", flush=True)


if __name__ == "__main__":
    main()
