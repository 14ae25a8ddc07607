"""False-alarm rate and power of the bin-free and joint tests on the seeded subsample of the
large-set mode of ``uqval.validate`` (issue 29) against the same tests on all rows.

Above ``LARGE_ROWS`` = 10^6 rows the cumulative Kuiper tests, the isotonic MCB test and the
joint boosting test run on a seeded subsample of ``BINFREE_ROWS`` = 10^6 rows
(docs/choices.md, "Ten million predictions and beyond"). At 10^7 rows this costs a factor
sqrt(10) in detectable effect size; the same ratio is simulated here at a size where many
sets are affordable: sets of M = 10 000 rows against a subsample of 1000 rows, the tests
sequential with h = 20 as in the large-set mode (999 permutations at most; the joint test
999 per half).

Data: uE ~ U(0.5, 2), x1, x2 ~ U(0, 1); calibrated: E = uE N(0, 1); planted:
E = uE N(0, 1) sqrt(1 + slope (x1 - 1/2)) times ``factor`` where uE > 1.5 (uncertainties too
small at the top of their range: what the MCB test looks for). Per set the rates of p <= 0.05
(unadjusted) of: cumulative Kuiper Z²−1 along x1, cumulative Kuiper Z along x1, isotonic MCB
along uE, joint boosting Z² over (x1, x2), with 95 % Wilson intervals. Usage::

    nice -n 10 python benchmarks/large_subsample_rates.py [--sets 200]

Results: printed as Markdown and written to ``benchmarks/large_subsample_rates.md``
(docs/explanations/large-sets.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from uqval.calibration.joint import joint_calibration
from uqval.stats.binomial import wilson_interval
from uqval.validation.binfree import binfree_tests

ROOT = Path(__file__).resolve().parents[1]
TESTS = ["cumulative Kuiper Z²−1 along x1", "cumulative Kuiper Z along x1",
         "isotonic MCB along uE", "joint boosting Z² (x1, x2)"]


def p_values(e, u, x1, x2, seed: int, rows: int | None) -> list[float]:
    (cum,), mcb = binfree_tests(e / u, u, [x1], n_permutations=999, seed=seed, exceedances=20,
                                max_rows=rows)
    joint = joint_calibration(e, u, {"x1": x1, "x2": x2}, n_permutations=999, seed=seed,
                              max_rows=rows)
    return [cum[1], cum[3], mcb[1], joint.spread.p_value]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=200)
    parser.add_argument("--m", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "large_subsample_rates.md")
    args = parser.parse_args()
    alpha = 0.05
    lines = [f"Sets of M = {args.m} rows, subsample of {args.rows} rows, {args.sets} sets per "
             f"case, p <= {alpha} unadjusted, 95 % Wilson intervals "
             "(`benchmarks/large_subsample_rates.py`).", "",
             f"| data | test | all {args.m} rows | subsample of {args.rows} rows |",
             "|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    cases = (("calibrated", 0.0, 1.0),
             ("variance slope 0.6 along x1, factor 1.15 where uE > 1.5", 0.6, 1.15))
    for case, slope, factor in cases:
        hits = {r: np.zeros((args.sets, len(TESTS)), dtype=bool) for r in ("all", "sub")}
        for i in range(args.sets):
            rng = np.random.default_rng([20261126, i, int(slope * 10)])
            m = args.m
            u = rng.uniform(0.5, 2.0, m)
            x1, x2 = rng.uniform(0.0, 1.0, m), rng.uniform(0.0, 1.0, m)
            e = u * rng.standard_normal(m) * np.sqrt(1.0 + slope * (x1 - 0.5))
            e[u > 1.5] *= factor
            hits["all"][i] = np.array(p_values(e, u, x1, x2, i, None)) <= alpha
            hits["sub"][i] = np.array(p_values(e, u, x1, x2, i, args.rows)) <= alpha
        for t, name in enumerate(TESTS):
            cells = []
            for r in ("all", "sub"):
                k = int(hits[r][:, t].sum())
                lo, hi = wilson_interval(k, args.sets)
                cells.append(f"{k / args.sets:.3f} [{lo:.3f}, {hi:.3f}]")
            lines.append(f"| {case} | {name} | {cells[0]} | {cells[1]} |")
            print(lines[-1], flush=True)
    args.out.write_text("# Bin-free and joint tests on the large-set subsample\n\n"
                        + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
