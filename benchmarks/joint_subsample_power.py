"""False-alarm rate and power of the joint test on the rows it sees in a large set (issue 41).

Above ``JOINT_ROWS`` = 2·10^5 rows the joint boosting test of ``uqval.validate`` runs on a
seeded subsample of 2·10^5 rows (docs/choices.md, "One process at 10^6 rows"), with the
sequential rule (h = 20, at most 999 permutations per half) and 10 random splits. Whatever
M, that is the test on 2·10^5 rows: this script measures it there, as
``uqval.validate`` calls it (``joint_calibration(..., max_rows=JOINT_ROWS,
exceedances=20)``), on sets of ``--m`` rows (default 2·10^5, so that the subsample is the
whole set; give a larger M to draw the subsample as the engine does).

Data: uE ~ U(0.5, 2), x1, x2, x3 ~ U(0, 1), E = uE N(0, 1) times a planted factor:

* ``calibrated``: no factor;
* ``t(4) calibrated``: E = uE t(4)/sqrt(2) (unit variance, heavy tails);
* ``box 25 % x1.10``: uE 1.10x too small where x1 > 0.5 and x2 > 0.5 (an interaction at the
  ±10 % tolerance; the marginal effect along x1 alone is half as large);
* ``xor 50 % x1.10``: 1.10x where (x1 > 0.5) xor (x2 > 0.5), 1/1.10 elsewhere (invisible
  along each feature alone);
* ``box 5 % x1.20``: 1.20x where x1 > 0.9 and x2 > 0.5.

Per case the rate of p <= 0.05 of the spread test (Z²), with 95 % Wilson intervals, and the
mean CPU seconds per test. Usage::

    nice -n 10 python benchmarks/joint_subsample_power.py [--sets 40] [--m 200000]

Results: printed as Markdown and written to ``benchmarks/joint_subsample_power.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from uqval.calibration.joint import joint_calibration
from uqval.stats.binomial import wilson_interval
from uqval.validation.stages import HETEROGENEITY_EXCEEDANCES, JOINT_ROWS

ROOT = Path(__file__).resolve().parents[1]


def planted(case: str, m: int, seed: int):
    rng = np.random.default_rng([seed, m])
    u = rng.uniform(0.5, 2.0, m)
    x1, x2, x3 = rng.uniform(size=m), rng.uniform(size=m), rng.uniform(size=m)
    if case.startswith("t(4)"):
        z = rng.standard_t(4, m) / np.sqrt(2.0)
    else:
        z = rng.standard_normal(m)
    factor = np.ones(m)
    if case == "box 25 % x1.10":
        factor[(x1 > 0.5) & (x2 > 0.5)] = 1.10
    elif case == "xor 50 % x1.10":
        factor = np.where((x1 > 0.5) ^ (x2 > 0.5), 1.10, 1 / 1.10)
    elif case == "box 5 % x1.20":
        factor[(x1 > 0.9) & (x2 > 0.5)] = 1.20
    return u * z * factor, u, {"x1": x1, "x2": x2, "x3": x3}


CASES = ["calibrated", "t(4) calibrated", "box 25 % x1.10", "xor 50 % x1.10", "box 5 % x1.20"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=40)
    parser.add_argument("--m", type=int, default=JOINT_ROWS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--permutations", type=int, default=999,
                        help="most permutations per half (the engine's: 999; fewer make the "
                        "power a lower bound: the smallest attainable p-value grows)")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "joint_subsample_power.md")
    args = parser.parse_args()
    lines = [f"Sets of M = {args.m} rows, the joint test on at most {JOINT_ROWS} of them "
             f"(sequential, h = {HETEROGENEITY_EXCEEDANCES}, {args.permutations} "
             f"permutations per half at most, 10 splits), {args.sets} sets per case, rate of "
             "p <= 0.05 (spread, Z²), 95 % Wilson intervals "
             f"(`benchmarks/joint_subsample_power.py --sets {args.sets} --permutations "
             f"{args.permutations}`).", "",
             "| case | rejects | mean CPU-s per test |", "|---|---|---|"]
    for case in args.cases.split(","):
        hits, cpu = 0, 0.0
        for s in range(args.sets):
            e, u, f = planted(case, args.m, s)
            t0 = time.process_time()
            res = joint_calibration(e, u, f, n_permutations=args.permutations, seed=s,
                                    n_workers=args.workers,
                                    max_rows=JOINT_ROWS, exceedances=HETEROGENEITY_EXCEEDANCES)
            cpu += time.process_time() - t0
            hits += res.spread.p_value <= 0.05
        lo, hi = wilson_interval(hits, args.sets)
        lines.append(f"| {case} | {100 * hits / args.sets:.1f} % [{100 * lo:.1f}, "
                     f"{100 * hi:.1f}] ({hits}/{args.sets}) | {cpu / args.sets:.1f} |")
        print(lines[-1], flush=True)
    text = "# The joint test on its large-set subsample\n\n" + "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
