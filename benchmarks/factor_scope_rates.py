"""How often the predictive route says the variance stages' factor is not for the intervals.

``uqval.validate(y, Normal(mu, sd))`` runs the variance stages on z = (y - mu)/sd and the
coverage stage on the normal central intervals. When the variance stages advise one factor f
and the intervals widened by f would cover too much (or too little) at some level beyond
the tolerance and beyond chance, a ``none`` row says the factor is the sd's as a standard
deviation, not those intervals' (``uqval.validation.predictive_judgement.factor_scope``).

Cases (sd = 1 for every row, mu = 0; M rows; grouped: groups of 8 rows whose errors share a
normal part of variance 0.4, the row-level part of variance 0.6 taking the case's shape):

* ``calibrated``: y ~ N(0, 1): no factor, no row;
* ``sd x1.3 too small``: y ~ N(0, 1.3^2): the factor fits the intervals, the row would be a
  false statement (false-row rate);
* ``5 % at 4 sd``: y ~ N(0, 1) for 95 % of the rows, N(0, 4^2) for 5 %: sqrt(E z^2) = 1.32
  while the 50-90 % intervals cover 48-87 %; the row is right (power);
* ``t(3) at x1.2``: y = 1.2 t(3)/sqrt(3) (unit-variance t(3) errors whose sd is 1.2 times the
  stated one): sqrt(E z^2) = 1.2 but the 50 % and 80 % intervals already cover too much
  (60 %, 84 %) and the 90 % one covers 90 %: the row is right.

Each set: seed s, ``n_boot=200``, ``n_permutations=199``, ``n_ucc_permutations=99``; the
columns give the % of sets whose advice holds a ``scale`` row and the % holding the row.
Usage: ``nice -n 10 python benchmarks/factor_scope_rates.py [--sets N] [--rows M]``; writes
``benchmarks/results/factor_scope_rates.csv`` and prints a Markdown table.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sim_args import sets_and_rows

import uqval

SCOPE = "is the sd's as a standard deviation"
CASES = ["calibrated", "sd x1.3 too small", "5 % at 4 sd", "t(3) at x1.2"]


def draw(case: str, m: int, grouped: bool, rng: np.random.Generator
         ) -> tuple[np.ndarray, np.ndarray | None]:
    """Observations y (mu = 0, sd = 1 stated) and the group labels: a shared normal part
    (variance 0.4) plus a row-level part (variance 0.6) of the case's shape when grouped."""
    g = np.repeat(np.arange(m // 8), 8) if grouped else None
    shared = np.sqrt(0.4) * rng.standard_normal(m // 8)[g] if grouped else np.zeros(m)
    w = np.sqrt(0.6) if grouped else 1.0
    if case == "calibrated":
        return shared + w * rng.standard_normal(m), g
    if case == "sd x1.3 too small":
        return 1.3 * (shared + w * rng.standard_normal(m)), g
    if case == "5 % at 4 sd":
        wide = np.where(rng.random(m) < 0.05, 4.0, 1.0)
        return shared + w * wide * rng.standard_normal(m), g
    if case == "t(3) at x1.2":
        return 1.2 * (shared + w * rng.standard_t(3, m) / np.sqrt(3.0)), g
    raise ValueError(case)


def one(case: str, m: int, grouped: bool, seed: int) -> dict:
    rng = np.random.default_rng([seed, CASES.index(case), int(grouped)])
    y, g = draw(case, m, grouped, rng)
    res = uqval.validate(y, uqval.Normal(np.zeros(y.size), np.ones(y.size)), groups=g,
                         seed=seed, n_boot=200, n_permutations=199, n_ucc_permutations=99)
    a = res.advice
    return {"case": case, "grouped": grouped, "rows": y.size, "seed": seed,
            "scale": bool((a["action"] == "scale").any()),
            "row": bool(a["reason"].str.contains(SCOPE).any())}


def main() -> None:
    args = sets_and_rows(__doc__, rows=1000)
    start = time.time()
    out = [one(case, args.rows, grouped, s) for grouped in (False, True) for case in CASES
           for s in range(args.sets)]
    df = pd.DataFrame(out)
    path = Path(__file__).parent / "results" / "factor_scope_rates.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    table = df.groupby(["grouped", "case"], sort=False)[["scale", "row"]].mean() * 100
    print(f"{len(df)} sets of {args.rows} rows in {time.time() - start:.0f} s\n")
    print("| rows | case | `scale` % | row % |\n|---|---|--:|--:|")
    for (grouped, case), r in table.iterrows():
        print(f"| {'125 groups of 8' if grouped else 'independent'} | {case} | "
              f"{r['scale']:.1f} | {r['row']:.1f} |")


if __name__ == "__main__":
    main()
