"""Do the decisions of ``uqval.validate`` hang on the seed? Share of labels and actions that
flip between two seeds on the same data.

Datasets as in ``benchmarks/validation_error_rates.py`` (uE lognormal(0, 0.5), features
x1 ~ U(0, 1), x2 ~ N(0, 1); D normal or unit-variance t(4)); cases ``calibrated``,
``local x2.5`` (E = 2.5 uE D where x1 > 0.75) and ``bias x1`` (E = uE (D + 0.3) where
x1 > 0.5). Each dataset is validated with seed 0 and seed 1 (every random step: bootstrap,
permutations, robust factor, joint split); a *flip* is a stage and variable whose label in
``res.stages`` differs, or an action kind of ``res.advice`` present under one seed only.

Usage: ``nice -n 10 python benchmarks/seed_stability.py [--m 1000] [--datasets 25]``;
prints a Markdown table (and writes ``benchmarks/results/seed_stability.md``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import uqval

OUT = Path(__file__).resolve().parent / "results"
CASES = ("calibrated", "local x2.5", "bias x1")
ERRORS = ("normal", "t4")


def dataset(m: int, seed: int, errors: str, case: str):
    rng = np.random.default_rng([seed, m, ERRORS.index(errors), CASES.index(case), 7])
    u = rng.lognormal(0.0, 0.5, m)
    x1, x2 = rng.uniform(0.0, 1.0, m), rng.normal(size=m)
    d = rng.normal(size=m) if errors == "normal" else rng.standard_t(4, m) / np.sqrt(2.0)
    e = u * d
    if case == "local x2.5":
        e = np.where(x1 > 0.75, 2.5 * e, e)
    elif case == "bias x1":
        e = np.where(x1 > 0.5, e + 0.3 * u, e)
    return e, u, {"x1": x1, "x2": x2}


def stage_p(res) -> dict[str, float]:
    """Smallest Holm-adjusted p-value of the rows judged per stage and variable."""
    v = res.verdicts
    out: dict[str, float] = {}
    for r in v.itertuples():
        key = f"{r.stage}: {r.feature or ''}"
        out[key] = min(out.get(key, 1.0), float(r.p_adjusted) if r.p_adjusted == r.p_adjusted
                       else 1.0)
    return out


def decisions(res) -> tuple[dict[str, str], set[str]]:
    labels = {f"{r.stage}: {r.variable}": r.label for r in res.stages.itertuples()}
    acts = {f"{r.stage}: {r.variable}: {r.action}" for r in res.advice.itertuples()
            if r.action != "none"}
    return labels, acts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=1000)
    parser.add_argument("--datasets", type=int, default=25)
    parser.add_argument("--detail", action="store_true",
                        help="print each flipped label with the stage's smallest adjusted "
                        "p-values under both seeds")
    args = parser.parse_args()
    rows = []
    for errors in ERRORS:
        for case in CASES:
            t0 = time.time()
            labels_total = labels_flipped = acts_total = acts_flipped = 0
            flipped_sets = 0
            for k in range(args.datasets):
                e, u, feats = dataset(args.m, k, errors, case)
                res_a = uqval.validate(e, u, feats, seed=0)
                res_b = uqval.validate(e, u, feats, seed=1)
                a, b = decisions(res_a), decisions(res_b)
                keys = set(a[0]) | set(b[0])
                flips = sum(a[0].get(x) != b[0].get(x) for x in keys)
                if args.detail:
                    pa, pb = stage_p(res_a), stage_p(res_b)
                    for x in sorted(keys):
                        if a[0].get(x) != b[0].get(x):
                            print(f"  flip {errors} {case} set {k} {x}: {a[0].get(x)} "
                                  f"(p {pa.get(x, float('nan')):.4f}) / {b[0].get(x)} "
                                  f"(p {pb.get(x, float('nan')):.4f})", flush=True)
                labels_total += len(keys)
                labels_flipped += flips
                acts_total += len(a[1] | b[1])
                acts_flipped += len(a[1] ^ b[1])
                flipped_sets += bool(flips or (a[1] ^ b[1]))
            rows.append({"errors": errors, "case": case, "M": args.m, "datasets": args.datasets,
                         "labels flipped (%)": 100 * labels_flipped / max(labels_total, 1),
                         "actions flipped (%)": 100 * acts_flipped / max(acts_total, 1),
                         "datasets with any flip (%)": 100 * flipped_sets / args.datasets,
                         "seconds": round(time.time() - t0, 1)})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows).round(1)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "seed_stability.md").write_text(table.to_markdown(index=False) + "\n")
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
