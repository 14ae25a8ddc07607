"""Coverage of the scale factor's 95 % interval in the parts route (issue 41).

The parts route gives sqrt(ZMS) a BCa interval from Poisson-bootstrap replicates of all rows
(:class:`uqval.validation.all_rows.AllRows`), the one-process engine a BCa interval from
multinomial resamples (:func:`uqval.bca_bootstrap`). Both are computed here on the same
seeded calibrated sets (E = uE D, uE lognormal, D standard normal or unit-variance t(nu)),
whose true scale factor is 1; the share of sets whose interval holds 1 is the coverage.
Rows in ``--parts`` parts of equal size (the route's per-part sums, combined as it does).

Usage::

    nice -n 10 python benchmarks/parts_interval_coverage.py --rows 20000 --sets 400

Writes a Markdown table to stdout and, with ``--record``, to ``benchmarks/parts.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from uqval import bca_bootstrap  # noqa: E402
from uqval.calibration.robust_scale import TailShares  # noqa: E402
from uqval.stats.binomial import wilson_interval  # noqa: E402
from uqval.stats.part_sums import combine_float_sums, poisson_bootstrap_sums  # noqa: E402
from uqval.validation.all_rows import AllRows  # noqa: E402
from uqval.validation.stages import SQRT_ZMS  # noqa: E402


def draw(m: int, tails: float | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.5, m)
    if tails is None:
        d = rng.standard_normal(m)
    else:
        d = rng.standard_t(tails, m) * math.sqrt((tails - 2.0) / tails)
    return u * d, u


def parts_interval(e: np.ndarray, u: np.ndarray, parts: int, n_boot: int,
                   seed: int) -> tuple[float, float]:
    z2 = np.square(e / u)
    keys = np.arange(z2.size, dtype=np.uint64)
    pieces = np.array_split(np.arange(z2.size), parts)
    boot = combine_float_sums([poisson_bootstrap_sums(z2[p, None], keys[p], seed=seed,
                                                      n_boot=n_boot) for p in pieces])
    zms = math.fsum(z2) / z2.size
    dev = z2 - zms
    acceleration = math.fsum(dev**3) / (6.0 * math.fsum(dev**2) ** 1.5)
    rec = AllRows(m=z2.size, n_parts=parts, subsample=0, sum_z=0.0, sum_z2=math.fsum(z2),
                  boot=boot, acceleration=acceleration, tails=TailShares(0.0, 0.0), bins={})
    res = rec.scale_bootstrap()
    return res.ci_low, res.ci_high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--sets", type=int, default=400)
    parser.add_argument("--parts", type=int, default=4)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    lines = ["| errors | rows | sets | Poisson BCa (parts route) | multinomial BCa (one process) "
             "| mean width, parts / one process |", "|---|---|---|---|---|---|"]
    start = time.perf_counter()
    for tails in (None, 6.0, 4.0):
        hits = {"parts": 0, "one": 0}
        widths = {"parts": 0.0, "one": 0.0}
        for s in range(args.sets):
            e, u = draw(args.rows, tails, s)
            lo, hi = parts_interval(e, u, args.parts, args.n_boot, s)
            one = bca_bootstrap((e, u), SQRT_ZMS, n_boot=args.n_boot, seed=s)
            for name, (a, b) in (("parts", (lo, hi)), ("one", (one.ci_low, one.ci_high))):
                hits[name] += a <= 1.0 <= b
                widths[name] += (b - a) / args.sets
        cells = []
        for name in ("parts", "one"):
            low, high = wilson_interval(hits[name], args.sets)
            cells.append(f"{100 * hits[name] / args.sets:.1f} % [{100 * low:.1f}, "
                         f"{100 * high:.1f}]")
        label = "normal" if tails is None else f"t({tails:g})"
        lines.append(f"| {label} | {args.rows} | {args.sets} | {cells[0]} | {cells[1]} | "
                     f"{widths['parts']:.4f} / {widths['one']:.4f} |")
    text = "\n".join(lines)
    print(text)
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    if args.record:
        with open(ROOT / "benchmarks" / "parts.md", "a", encoding="utf-8") as out:
            out.write("\n" + text + "\n")


if __name__ == "__main__":
    main()
