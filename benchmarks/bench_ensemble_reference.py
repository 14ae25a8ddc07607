"""Time of the perfect-ensemble reference and of a whole ``validate`` of an ensemble.

N rows of m members and y drawn iid from N(0, s^2), s ~ U(0.5, 2) per row (a perfect
ensemble), one feature x ~ U(0, 1); seed 0, the default settings (999 exchangeability
replicates, n_boot 1000). Prints the seconds of
:func:`uqval.validation.ensemble_reference.ensemble_reference` and of
``uqval.validate(y, Ensemble(members), {"x": x})``.

Usage: ``PYTHONPATH=src python benchmarks/bench_ensemble_reference.py [--n 100000] [--m 8]``
(``benchmarks/ensemble_floor.md`` holds a run).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import uqval
from uqval.validation.ensemble_reference import ensemble_reference


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--m", type=int, default=8)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    v = rng.standard_normal((args.n, args.m + 1)) * rng.uniform(0.5, 2.0, (args.n, 1))
    x = rng.uniform(size=args.n)
    y, members = v[:, args.m], uqval.Ensemble(v[:, : args.m])
    t0 = time.perf_counter()
    ref = ensemble_reference(y, members, seed=0, n_replicates=999)
    t1 = time.perf_counter()
    uqval.validate(y, members, {"x": x}, seed=0)
    t2 = time.perf_counter()
    print(f"reference {t1 - t0:.1f} s (factor {ref.factor:.4f} [{ref.factor_low:.4f}, "
          f"{ref.factor_high:.4f}], p {ref.p_average:.3f}); validate {t2 - t1:.1f} s")


if __name__ == "__main__":
    main()
