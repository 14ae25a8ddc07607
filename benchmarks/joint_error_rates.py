"""Size and power of the bin-free (cumulative, isotonic MCB) and joint tests of ``validate``.

Datasets: uE lognormal(0, 0.5); F = 2 or 10 features: x1, x2 ~ U(0, 1); with F = 10 also x3 =
ln uE + N(0, 1) (correlated with uE), x4..x10 alternately U(0, 1) and N(0, 1). Errors E = uE·D,
D standard normal or unit-variance Student t(6). Cases:

* ``calibrated``: every fail is a false alarm;
* ``xor x2``: E x 2 where (x1 > 0.5) xor (x2 > 0.5) (half of the rows): no single feature
  shows it after the global scaling;
* ``narrow x2.5``: E x 2.5 where 0.40 < x1 < 0.43 (3 % of the rows);
* ``trend x1``: E x (0.75 + 0.5 x1): a smooth trend along x1 (factor 0.75 to 1.25);
* ``consistency``: E x (uE/median uE)^0.25: the error SD grows faster than uE.

Columns (% of datasets; after the global scaling, alpha = 5 % per stage):

* ``consistency``, ``adaptivity``, ``joint``: the engine's stage verdicts (adaptivity: any
  feature), all tests of a stage Holm-adjusted together (``uqval.validation.rules``);
* ``adapt. binned only``: Holm over the binned tests only (LZMS, LZM of every feature): what
  per-feature binning alone finds; ``adapt. cumulative only``: Holm over the cumulative tests
  only; ``cons. binned only``, ``MCB alone`` (raw p <= 5 %): the same for consistency;
* ``any conditional``: consistency, adaptivity or joint fails (three stages, up to 3 alpha);
* ``located``: the planted region is named: ``xor``, the joint stage fails and its
  largest-factor region lies >= 80 % inside the xor; ``narrow``, an advised range of x1 or a
  joint region with factor > 1.5 lies >= 50 % inside 0.40 < x1 < 0.43.

Settings: n_boot = 100 (per-bin intervals of the advice), n_permutations = 999 (all tests),
n_ucc_permutations = 19 (unused here). Usage: ``nice -n 10 python
benchmarks/joint_error_rates.py [--quick]``; writes ``benchmarks/results/joint_error_rates.csv``
and ``.md`` (appending as it goes). ``--large N``: only the bin-free and joint tests (Holm
within each stage, as the engine does) on N calibrated sets of 10^5 rows x 10 features, to
``joint_error_rates_large.csv``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import uqval
from uqval.validation import rules

ERRORS = ("normal", "t6")
CASES = ("calibrated", "xor x2", "narrow x2.5", "trend x1", "consistency")
OUT = Path(__file__).resolve().parent / "results"
COLUMNS = ("consistency", "adaptivity", "joint", "adapt. binned only", "adapt. cumulative only",
           "cons. binned only", "MCB alone", "any conditional", "located")
SETTINGS = dict(n_boot=100, n_permutations=999, n_ucc_permutations=19)


def dataset(m: int, n_features: int, seed: int, errors: str, case: str):
    rng = np.random.default_rng([seed, m, n_features, ERRORS.index(errors), CASES.index(case)])
    u = rng.lognormal(0.0, 0.5, m)
    x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    feats = {"x1": x1, "x2": x2}
    if n_features > 2:
        feats["x3"] = np.log(u) + rng.normal(size=m)
        for j in range(4, n_features + 1):
            feats[f"x{j}"] = rng.uniform(size=m) if j % 2 else rng.normal(size=m)
    d = rng.normal(size=m) if errors == "normal" else rng.standard_t(6, m) * np.sqrt(4 / 6)
    e = u * d
    region = np.zeros(m, dtype=bool)
    if case == "xor x2":
        region = (x1 > 0.5) ^ (x2 > 0.5)
        e = np.where(region, 2.0 * e, e)
    elif case == "narrow x2.5":
        region = (x1 > 0.40) & (x1 < 0.43)
        e = np.where(region, 2.5 * e, e)
    elif case == "trend x1":
        e = e * (0.75 + 0.5 * x1)
    elif case == "consistency":
        e = e * (u / np.median(u)) ** 0.25
    return e, u, feats, region


def _holm_fails(rows: pd.DataFrame, alpha: float) -> bool:
    return bool(len(rows)) and bool((rules.holm(rows["p_value"].to_numpy()) <= alpha).any())


def _located(res, case: str, region: np.ndarray, feats) -> bool:
    if case == "xor x2":
        j = res.joint
        return bool(j is not None and res.stage_verdicts.get("joint") == "fail"
                    and region[j.spread.high.mask].mean() >= 0.8)
    if case != "narrow x2.5":
        return False
    a = res.advice
    x1 = feats["x1"]
    for r in a[a["action"] == "recalibrate_per_range"].itertuples(index=False):
        if r.factor <= 1.5:
            continue
        if r.stage == "adaptivity" and r.variable == "x1":
            inside = (x1 >= r.low) & (x1 <= r.high)
        elif r.stage == "joint" and res.joint is not None:
            inside = res.joint.spread.high.mask
        else:
            continue
        if inside.any() and region[inside].mean() >= 0.5:
            return True
    return False


def one(m: int, n_features: int, seed: int, errors: str, case: str) -> dict:
    e, u, feats, region = dataset(m, n_features, seed, errors, case)
    res = uqval.validate(e, u, feats, seed=seed, **SETTINGS)
    s = res.stage_verdicts
    v = res.verdicts
    alpha = float(res.parameters["alpha"])
    scaled = v[v["scaled"]]
    adapt = scaled[scaled["stage"] == "adaptivity"]
    cons = scaled[scaled["stage"] == "consistency"]
    binned = adapt["statistic"].str.startswith("LZM")
    mcb = cons[cons["statistic"].str.startswith("isotonic")]["p_value"]
    out = {
        "consistency": s.get("consistency") == "fail",
        "adaptivity": any(v == "fail" for k, v in s.items() if k.startswith("adaptivity")),
        "joint": s.get("joint") == "fail",
        "adapt. binned only": _holm_fails(adapt[binned], alpha),
        "adapt. cumulative only": _holm_fails(adapt[~binned], alpha),
        "cons. binned only": _holm_fails(cons[cons["statistic"].str.startswith("LZM")], alpha),
        "MCB alone": bool((mcb <= alpha).any()),
        "located": _located(res, case, region, feats),
    }
    out["any conditional"] = out["consistency"] or out["adaptivity"] or out["joint"]
    return out


PLAN_FULL = [  # (M, F, case, errors, datasets)
    *[(1000, f, "calibrated", err, 100) for f in (2, 10) for err in ERRORS],
    *[(1000, f, c, "normal", 40) for f in (2, 10) for c in CASES[1:]],
    *[(10_000, f, "calibrated", err, 30) for f in (2, 10) for err in ERRORS],
    *[(10_000, f, c, "normal", 15) for f in (2, 10) for c in CASES[1:]],
    (100_000, 10, "calibrated", "normal", 3),
]
PLAN_QUICK = [(1000, 2, "calibrated", "normal", 10), (1000, 2, "xor x2", "normal", 5)]


def large(n: int, m: int = 100_000, n_features: int = 10) -> None:
    """Size of the bin-free and joint tests alone at large M (no full validation): per
    calibrated dataset, Holm over the cumulative tests of the features (adaptivity), over the
    cumulative and MCB tests of uE (consistency), over the two joint tests."""
    from uqval.calibration.joint import joint_calibration
    from uqval.validation.binfree import binfree_tests

    rows = []
    for seed in range(n):
        start = time.process_time()
        e, u, feats, _ = dataset(m, n_features, 10_000 + seed, "normal", "calibrated")
        z = e / u
        cum, (_, p_mcb, _) = binfree_tests(z, u, [u, *feats.values()], n_permutations=999,
                                           seed=seed)
        cons = [cum[0][1], cum[0][3], p_mcb]
        adapt = [p for c in cum[1:] for p in (c[1], c[3])]
        joint = joint_calibration(e, u, feats, n_permutations=999, seed=seed)
        rows.append({"consistency (cumulative, MCB)": bool((rules.holm(cons) <= 0.05).any()),
                     "adaptivity (cumulative)": bool((rules.holm(adapt) <= 0.05).any()),
                     "joint": bool((rules.holm([joint.spread.p_value, joint.bias.p_value])
                                    <= 0.05).any()),
                     "cpu s": time.process_time() - start})
        print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    summary = {"M": m, "features": n_features, "datasets": n,
               **{c: round(100 * frame[c].mean(), 1) for c in frame.columns if c != "cpu s"},
               "cpu s/dataset": round(frame["cpu s"].mean(), 1)}
    pd.DataFrame([summary]).to_csv(OUT / "joint_error_rates_large.csv", index=False)
    print(summary)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--large", type=int, default=0,
                        help="only the size of the bin-free and joint tests at M = 10^5 on "
                        "this many calibrated datasets")
    parser.add_argument("--m", type=int, help="only the rows of the full plan with this M")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.large:
        large(args.large)
        return
    stem = "joint_error_rates" + ("_quick" if args.quick else "") + (f"_m{args.m}" if args.m else "")
    plan = PLAN_QUICK if args.quick else [r for r in PLAN_FULL if args.m in (None, r[0])]
    rows = []
    for m, f, case, errors, n in plan:
        start_cpu, start = time.process_time(), time.perf_counter()
        results = [one(m, f, seed, errors, case) for seed in range(n)]
        frame = pd.DataFrame(results)
        row = {"M": m, "features": f, "case": case, "errors": errors, "datasets": n,
               **{c: round(100 * frame[c].mean(), 1) for c in COLUMNS},
               "cpu s/dataset": round((time.process_time() - start_cpu) / n, 2),
               "wall s/dataset": round((time.perf_counter() - start) / n, 2)}
        rows.append(row)
        table = pd.DataFrame(rows)
        table.to_csv(OUT / f"{stem}.csv", index=False)
        (OUT / f"{stem}.md").write_text(table.to_markdown(index=False) + "\n")
        print(row, flush=True)


if __name__ == "__main__":
    main()
