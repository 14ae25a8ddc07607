"""False-alarm rates and power of the coverage and shape stages of
``uqval.validate(y_true, predictive)`` by simulation.

Datasets: mean μ ~ N(0, 1), sd ~ U(0.5, 2), a feature x ~ U(0, 1) unrelated to both; y drawn
from the true predictive. Calibrated cases (every fail is a false alarm):

* ``normal``: y ~ N(μ, sd²), declared ``Normal(μ, sd)``;
* ``t(5) as t(5)``: unit-variance t(5) errors, declared ``StudentT(μ, sd, nu=5)``;
* ``ensemble 10``, ``ensemble 50``: m members and y all drawn from N(μ, sd²) (``Ensemble``);
* ``quantiles``: the true quantiles at 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95 (``Quantiles``);
* ``intervals``: the true central 50 % and 90 % intervals (``Intervals``; no shape stage).

Planted errors (power):

* ``t(3) as normal``: unit-variance t(3) errors (right variance, wrong shape) declared normal;
* ``20 % too narrow``: ``Normal(μ, 0.8 sd)``;
* ``q95 is q90``: the true quantile set, except that the 0.95 column holds the 0.90 quantile;
* ``low in x > 0.75``: errors 1.6 sd where x > 0.75, declared ``Normal(μ, sd)`` (local
  coverage along x must fail).

Columns: % of datasets whose stage fails: ``coverage`` (the overall levels, and the per-level
quantile rows of quantile sets; Holm over them), ``LCP`` (conditional coverage along the
interval width and x; Holm over levels x variables), ``LCP along x`` (a failing LCP row along
x), ``shape`` (PIT Cramér-von Mises). Levels: the default 0.5/0.8/0.9/0.95 (quantile sets and
intervals: their central levels). n_permutations = 199 (the smallest p-value 1/200 is below
Holm's strictest threshold 0.05/8).

Usage: ``nice -n 10 python benchmarks/predictive_error_rates.py [--reps N N] [--sizes M M]``;
writes ``benchmarks/results/predictive_error_rates.csv`` and ``.md``. With ``--shape-only``:
the shape stage's false-alarm rate on 1000 datasets per case at M = 10^3 and 10^4 and 200 at
10^5 (``predictive_shape_false_alarms.csv``/``.md``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import uqval
from uqval.validation.coverage_shape import coverage_rows, shape_check

CALIBRATED = ("normal", "t(5) as t(5)", "ensemble 10", "ensemble 50", "quantiles", "intervals")
PLANTED = ("t(3) as normal", "20 % too narrow", "q95 is q90", "low in x > 0.75")
CASES = CALIBRATED + PLANTED
TAU = np.array([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95])
OUT = Path(__file__).resolve().parent / "results"


def unit_t(rng: np.random.Generator, nu: float, m: int) -> np.ndarray:
    return rng.standard_t(nu, m) * np.sqrt((nu - 2) / nu)


def dataset(m: int, seed: int, case: str):
    rng = np.random.default_rng([seed, m, CASES.index(case)])
    mu, sd, x = rng.normal(size=m), rng.uniform(0.5, 2.0, m), rng.uniform(0.0, 1.0, m)
    if case == "t(5) as t(5)":
        return mu + sd * unit_t(rng, 5, m), uqval.StudentT(mu, sd=sd, nu=5), x
    if case == "t(3) as normal":
        return mu + sd * unit_t(rng, 3, m), uqval.Normal(mu, sd), x
    if case.startswith("ensemble"):
        k = int(case.split()[1])
        draws = mu[:, None] + sd[:, None] * rng.standard_normal((m, k + 1))
        return draws[:, k], uqval.Ensemble(draws[:, :k]), x
    y = mu + sd * rng.standard_normal(m)
    if case == "normal":
        return y, uqval.Normal(mu, sd), x
    if case == "20 % too narrow":
        return y, uqval.Normal(mu, 0.8 * sd), x
    if case == "low in x > 0.75":
        return mu + np.where(x > 0.75, 1.6, 1.0) * (y - mu), uqval.Normal(mu, sd), x
    if case in ("quantiles", "q95 is q90"):
        tau = TAU.copy()
        if case == "q95 is q90":
            tau[-1] = 0.90
        q = mu[:, None] + sd[:, None] * stats.norm.ppf(tau)[None, :]
        return y, uqval.Quantiles(TAU, q), x
    z50, z90 = stats.norm.ppf(0.75), stats.norm.ppf(0.95)
    return y, uqval.Intervals({0.5: (mu - z50 * sd, mu + z50 * sd),
                               0.9: (mu - z90 * sd, mu + z90 * sd)}), x


def one(m: int, seed: int, case: str) -> dict:
    y, pred, x = dataset(m, seed, case)
    levels = pred.default_levels
    cov = coverage_rows(y, pred, {"x": x}, levels=levels, seed=seed, alpha=0.05, tolerance=0.1,
                        n_permutations=199, n_bins=None)
    overall = pd.concat([cov.levels, cov.quantiles], ignore_index=True)
    cond = cov.conditional
    out = {"coverage": bool((overall["verdict"] == "fail").any()),
           "LCP": bool((cond["verdict"] == "fail").any()),
           "LCP along x": bool(((cond["verdict"] == "fail") & (cond["variable"] == "x")).any())}
    if pred.has_shape:
        out["shape"] = shape_check(pred.pit(y, seed=seed), alpha=0.05,
                                   tolerance=0.1).verdict == "fail"
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, nargs="+", default=(200, 100),
                        help="datasets at the first and second size")
    parser.add_argument("--sizes", type=int, nargs="+", default=(1000, 10000))
    parser.add_argument("--tag", default="", help="suffix of the output file names")
    parser.add_argument("--shape-only", action="store_true",
                        help="only the false-alarm rate of the shape stage, on more datasets")
    args = parser.parse_args()
    if args.shape_only:
        shape = shape_only()
        OUT.mkdir(exist_ok=True)
        shape.to_csv(OUT / "predictive_shape_false_alarms.csv", index=False)
        (OUT / "predictive_shape_false_alarms.md").write_text(
            shape.to_markdown(index=False, floatfmt=".1f") + "\n")
        return
    rows = []
    start = time.time()
    for m, reps in zip(args.sizes, args.reps, strict=True):
        for case in CASES:
            results = pd.DataFrame([one(m, seed, case) for seed in range(reps)])
            row = {"case": case, "kind": "calibrated" if case in CALIBRATED else "planted",
                   "M": m, "datasets": reps}
            row.update({c: 100.0 * results[c].mean() for c in results.columns})
            rows.append(row)
            print(f"[{time.time() - start:6.0f} s] M={m} {case}: {row}", flush=True)
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    stem = "predictive_error_rates" + (f"_{args.tag}" if args.tag else "")
    table.to_csv(OUT / f"{stem}.csv", index=False)
    (OUT / f"{stem}.md").write_text(
        table.to_markdown(index=False, floatfmt=".1f") + "\n")
    print(table.to_markdown(index=False, floatfmt=".1f"))


def shape_only(reps: int = 1000, sizes: tuple[int, ...] = (1000, 10000, 100000)) -> pd.DataFrame:
    """False-alarm rate of the shape stage alone on more datasets (it is cheap): every
    calibrated case with a shape stage, ``reps`` datasets per size (fewer at 10^5)."""
    rows = []
    for m in sizes:
        n = reps if m <= 10000 else reps // 5
        for case in CALIBRATED:
            if case == "intervals" or (case.startswith("ensemble") and m > 10000):
                continue
            fails = 0
            for seed in range(n):
                y, pred, _ = dataset(m, 10_000 + seed, case)
                fails += shape_check(pred.pit(y, seed=seed), alpha=0.05,
                                     tolerance=0.1).verdict == "fail"
            rows.append({"case": case, "M": m, "datasets": n, "shape": 100.0 * fails / n})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    main()
