"""Does the monotone map along uE get advised where a monotone map is the remedy, and only there?

``recalibrate_monotone`` is advised when a spread test along uE fails with a relevant effect
and no single range is clear (``uqval.validation.judgement._monotone``). Requiring the
isotonic MCB test to fail too was tried and rejected on these numbers (docs/choices.md). Data: uE lognormal(0, 0.5), E = uE·s·D
with D standard normal and, by case,

* ``calibrated``: s = 1;
* ``grows with uE``: s = (uE/median uE)^0.25, the error sd growing faster than uE (a monotone
  map is the remedy);
* ``bump x1.5``: s = 1.5 for the rows whose uE lies between its 40th and 60th percentiles,
  1 elsewhere: the spread depends on uE in a way no monotone map captures (an isotonic fit
  of E^2 on uE pools the bump with its neighbours); a per-range factor is the remedy, a
  monotone map is not.

Per case, % of sets whose advice holds ``recalibrate_monotone``, a consistency
``recalibrate_per_range``, or neither while the consistency stage is not right.
Usage: ``python benchmarks/monotone_support.py [--sets N] [--rows M]`` (``PYTHONPATH=<other
checkout>/src`` runs another version on the same sets); prints a Markdown table.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sim_args import sets_and_rows

import uqval

CASES = ["calibrated", "grows with uE", "bump x1.5"]


def one(case: str, m: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, CASES.index(case), m])
    u = rng.lognormal(0.0, 0.5, m)
    if case == "calibrated":
        s = np.ones(m)
    elif case == "grows with uE":
        s = (u / np.median(u)) ** 0.25
    else:
        lo, hi = np.quantile(u, [0.4, 0.6])
        s = np.where((u >= lo) & (u <= hi), 1.5, 1.0)
    e = u * s * rng.standard_normal(m)
    res = uqval.validate(e, u, seed=seed, n_boot=300, n_permutations=299,
                         n_ucc_permutations=99)
    a = res.advice[res.advice["stage"] == "consistency"]
    st = res.stages
    label = st.loc[st["stage"] == "consistency", "label"]
    monotone = bool((a["action"] == "recalibrate_monotone").any())
    per_range = bool((a["action"] == "recalibrate_per_range").any())
    return {"case": case, "seed": seed, "monotone": monotone, "per_range": per_range,
            "neither": bool(len(label) and label.iloc[0] == "not right"
                            and not monotone and not per_range)}


def main() -> None:
    args = sets_and_rows(__doc__, rows=1000)
    start = time.time()
    df = pd.DataFrame([one(c, args.rows, s) for c in CASES for s in range(args.sets)])
    print(f"{len(df)} sets of {args.rows} rows in {time.time() - start:.0f} s "
          f"({uqval.__file__})\n")
    print("| case | `recalibrate_monotone` % | per-range along uE % | not right, no action % |")
    print("|---|--:|--:|--:|")
    for c, d in df.groupby("case", sort=False):
        print(f"| {c} | {100 * d['monotone'].mean():.1f} | {100 * d['per_range'].mean():.1f} "
              f"| {100 * d['neither'].mean():.1f} |")


if __name__ == "__main__":
    main()
