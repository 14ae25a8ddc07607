"""Benchmark: Harrell-Davis quantiles and robust shape statistics on large samples.

Replaces the former timed unit test (tests stay untimed): ``hd_quantile`` of three
probabilities on 10^6 chi^2_1 points used to be required to take under 1 s. The script prints
the best wall time of ``--repeats`` calls of ``hd_quantile``, ``beta_gm`` and ``kappa_cs``
(P001 Sect. IV.1) on samples of ``--size`` points.

Usage: ``python benchmarks/bench_robust.py [--size 1000000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from uqval.stats.robust import beta_gm, hd_quantile, kappa_cs


def _best(func: Callable[[], object], repeats: int) -> float:
    """Minimum wall time of ``repeats`` calls."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    x = np.random.default_rng(5).chisquare(1, size=args.size)
    cases = {
        "hd_quantile(x, [0.025, 0.5, 0.975])": lambda: hd_quantile(x, [0.025, 0.5, 0.975]),
        "beta_gm(x)": lambda: beta_gm(x),
        "kappa_cs(x)": lambda: kappa_cs(x),
    }
    print(f"M = {args.size}, best of {args.repeats}")
    for label, func in cases.items():
        print(f"{label:40s} {_best(func, args.repeats):8.3f} s")


if __name__ == "__main__":
    main()
