"""False alarms and power of an ensemble's variance stages against the perfect-ensemble
reference (:mod:`uqval.validation.ensemble_reference`); results in benchmarks/ensemble_floor.md.

Per row: x ~ U(0, 1), sd sigma = 0.5 + 2x, mean sin(3x); members and y drawn iid from
mu + sigma·D (D normal or t(6)); then the members are shrunk about their mean by ``spread``
(> 1: spread too small, under-dispersed; < 1: over-dispersed), in all rows or only where
x > 0.75 (``local``). A perfect ensemble is spread = 1. For each case and seed, one
``validate(y, Ensemble(members), {"x": x})`` run; counted: a stage labelled "not right", any
variance-route factor advised (scale or recalibrate_per_range of the average, consistency
and adaptivity stages), any coverage factor (widen, narrow, recalibrate_per_range of the
coverage stage), and the global factor.

    PYTHONPATH=src python benchmarks/ensemble_floor.py --seeds 60 --out results.csv
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from uqval import Ensemble, validate

CASES = [
    # name, m, base, spread, local
    ("perfect m=5 normal", 5, "normal", 1.0, False),
    ("perfect m=8 normal", 8, "normal", 1.0, False),
    ("perfect m=20 normal", 20, "normal", 1.0, False),
    ("perfect m=5 t(6)", 5, "t", 1.0, False),
    ("perfect m=8 t(6)", 8, "t", 1.0, False),
    ("perfect m=20 t(6)", 20, "t", 1.0, False),
    ("under 1.3 m=8", 8, "normal", 1.3, False),
    ("under 1.5 m=8", 8, "normal", 1.5, False),
    ("over 1.3 m=8", 8, "normal", 1 / 1.3, False),
    ("over 1.5 m=8", 8, "normal", 1 / 1.5, False),
    ("under 1.5 m=5", 5, "normal", 1.5, False),
    ("local under 1.5 (x > 0.75) m=8", 8, "normal", 1.5, True),
]


def make(m: int, base: str, spread: float, local: bool, n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 1.0, n)
    sigma, mu = 0.5 + 2.0 * x, np.sin(3.0 * x)
    d = rng.standard_normal((n, m + 1)) if base == "normal" else rng.standard_t(6, (n, m + 1))
    v = mu[:, None] + sigma[:, None] * d
    members, y = v[:, :m], v[:, m]
    shrink = np.where(x > 0.75, spread, 1.0) if local else np.full(n, spread)
    xb = members.mean(axis=1, keepdims=True)
    members = xb + (members - xb) / shrink[:, None]
    return y, members, x


VARIANCE_FACTORS = ("scale", "recalibrate_per_range")


def one(case, seed: int, n: int, n_boot: int) -> dict:
    name, m, base, spread, local = case
    y, members, x = make(m, base, spread, local, n, seed)
    res = validate(y, Ensemble(members), {"x": x}, seed=seed, n_boot=n_boot,
                   n_ucc_permutations=99)
    adv = res.advice
    var = adv[adv["stage"].isin(["average", "consistency", "adaptivity", "joint"])
              & adv["action"].isin(VARIANCE_FACTORS)]
    cov = adv[(adv["stage"] == "coverage")
              & adv["action"].isin(["widen", "narrow", "recalibrate_per_range"])]
    stages = res.variance.stages if res.variance is not None else pd.DataFrame()
    out = {"case": name, "seed": seed, "factor": res.variance.scale_factor.value,
           "factor_low": res.variance.scale_factor.ci_low,
           "factor_high": res.variance.scale_factor.ci_high,
           "scale_advised": bool((var["action"] == "scale").any()),
           "range_advised": bool((var["action"] == "recalibrate_per_range").any()),
           "range_consistency": bool(((var["action"] == "recalibrate_per_range")
                                      & (var["stage"] == "consistency")).any()),
           "monotone_advised": bool((adv["action"] == "recalibrate_monotone").any()),
           "coverage_factor": len(cov) > 0}
    for r in stages.itertuples():
        key = r.stage if r.stage != "adaptivity" else f"adaptivity {r.variable}"
        out[f"not right: {key}"] = r.label == "not right"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--cases", default="", help="comma-separated parts of case names")
    ap.add_argument("--out", default="ensemble_floor.csv")
    a = ap.parse_args()
    rows = []
    t0 = time.time()
    for case in CASES:
        if a.cases and not any(c in case[0] for c in a.cases.split(",")):
            continue
        for seed in range(a.seeds):
            rows.append(one(case, seed, a.n, a.n_boot))
        print(f"{case[0]}: {time.time() - t0:.0f} s", flush=True)
        pd.DataFrame(rows).to_csv(a.out, index=False)
    df = pd.DataFrame(rows)
    summary = df.drop(columns=["seed"]).groupby("case", sort=False).mean()
    print(summary.round(3).to_string())


if __name__ == "__main__":
    main()
