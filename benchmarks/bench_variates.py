"""Benchmark: the compiled polar samplers of D (``uqval.stats.variate_kernel``) beside NumPy's
``Generator.standard_normal`` and ``Generator.standard_t`` (issue 29).

Each sampler draws blocks of 2**20 values (the stream-block size of the simulated
references) ``--repeats`` times; the table gives CPU ns per value (``time.process_time``,
best of the repeats) on this machine. NumPy's t is scaled to unit variance as
``rt_unit_variance`` did before.

Usage::

    python benchmarks/bench_variates.py [--repeats 10] [--out benchmarks/variates.md]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uqval.stats.variate_kernel import unit_normal, unit_t

N = 1 << 20


def best_ns(draw: Callable[[], object], repeats: int) -> float:
    """Best CPU time of ``repeats`` calls, in ns per value."""
    draw()  # compile, warm the caches
    times = []
    for _ in range(repeats):
        start = time.process_time()
        draw()
        times.append(time.process_time() - start)
    return min(times) / N * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = [("N(0, 1)", best_ns(lambda: rng.standard_normal(N), args.repeats),
             best_ns(lambda: unit_normal(rng, N), args.repeats))]
    for nu in (3.0, 6.0, 12.0):
        scale = math.sqrt((nu - 2.0) / nu)
        rows.append((f"t_s({nu:g})", best_ns(lambda nu=nu, s=scale: rng.standard_t(nu, N) * s,
                                              args.repeats),
                     best_ns(lambda nu=nu: unit_t(rng, nu, N), args.repeats)))
    lines = ["| distribution | NumPy (ns / value) | compiled polar (ns / value) | speed-up |",
             "|---|---:|---:|---:|"]
    lines += [f"| {name} | {a:.1f} | {b:.1f} | {a / b:.1f}× |" for name, a, b in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
