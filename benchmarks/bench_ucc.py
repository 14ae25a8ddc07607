"""Benchmark: O(N log N) UCC/AUUCC (uqval.ucc) vs Algorithm 1 in O(N²) and vs UQ360.

For each N (default 10³, 10⁴, 10⁵) on random asymmetric bands:

* ours: ``auucc(ucc_curve(...))`` in bandwidth–miss-rate and excess–deficit coordinates;
* Algorithm 1 (P004 App. 7): for every critical scale, all four metrics recomputed over all
  points from the bounds (numpy-vectorised over points, a Python loop over scales);
* UQ360 (``UncertaintyCharacteristicsCurve.fit`` + ``get_AUUCC``, trapezoid rule), run in a
  separate interpreter (``--uq360-python``; UQ360 0.2 needs numpy < 2 and scipy < 1.14).
  ``pip install uq360`` fails on Python 3.11 (it pins numpy < 1.21, which does not build);
  the benchmark used ``pip install --no-deps uq360`` plus numpy 1.26, scipy 1.13,
  scikit-learn, matplotlib and pandas in /tmp/uq360env.

Up to ``--full-max`` points both O(N²) codes run in full and the AUUCCs are compared
(|Δ| ≤ 1e-9 expected; UQ360's Bw-MR area differs by O(1/N) through a floating-point
artefact, see :func:`uq360_rounding_auucc`, and agrees once it is emulated). Above it they are timed on ``--subset`` critical scales
(metrics compared pointwise with ours at those scales) and the time is extrapolated
linearly to all N scales (marked "extrap." in the output).

Usage: ``python benchmarks/bench_ucc.py [--sizes 1000 10000 100000] [--full-max 10000]
[--subset 300] [--uq360-python /tmp/uq360env/bin/python]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uqval.ucc import PredictionIntervals, auucc, metrics_at_scale, ucc_curve

COORDS = {"Bw-MR": ("bandwidth", "miss_rate"), "Ex-De": ("excess", "deficit")}
UQ360_AXES = {"Bw-MR": ("bandwidth", "missrate"), "Ex-De": ("excess", "deficit")}

UQ360_RUNNER = r"""
import json, sys, time
import numpy as np
from uq360.metrics.uncertainty_characteristics_curve.uncertainty_characteristics_curve import (
    UncertaintyCharacteristicsCurve,
)
data = np.load(sys.argv[1])
full, subset_k = sys.argv[2] == "full", data["subset_k"]
y, X = data["y"], np.column_stack([data["y_pred"], data["z_lower"], data["z_upper"]])
ucc = UncertaintyCharacteristicsCurve(normalize=False, precompute_bias_data=False)
out = {}
if full:
    start = time.perf_counter()
    ucc.fit(X, y)
    out["fit"] = time.perf_counter() - start
    for name, (xa, ya) in json.loads(sys.argv[3]).items():
        ucc.set_coordinates(x_axis_name=xa, y_axis_name=ya, normalize=False)
        start = time.perf_counter()
        out[name] = float(ucc.get_AUUCC())
        out["auc_time_" + name] = time.perf_counter() - start
else:
    d, lb, ub = y - X[:, 0], X[:, 1], X[:, 2]
    start = time.perf_counter()
    rows = [ucc._calc_missrate_bandwidth_excess_deficit(d, lb, ub, scale=k) for k in subset_k]
    out["per_scale"] = (time.perf_counter() - start) / len(subset_k)
    out["rows"] = [list(map(float, r)) for r in rows]
print(json.dumps(out))
"""


def random_case(n: int, seed: int = 0) -> tuple[np.ndarray, PredictionIntervals]:
    rng = np.random.default_rng(seed)
    y_pred = rng.normal(size=n)
    y = y_pred + rng.normal(size=n) * rng.uniform(0.2, 2.0, n)
    return y, PredictionIntervals.from_half_widths(
        y_pred, rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 3.0, n)
    )


def algorithm1_metrics(y: np.ndarray, pi: PredictionIntervals, k: float) -> tuple[float, ...]:
    """Miss rate, bandwidth, excess, deficit at scale k from the bounds, over all points."""
    lower, upper = pi.bounds(k)
    tol = 1e-9 * (1.0 + np.abs(y))  # rounding of k_i ẑ_i at a point's own critical scale
    inside = (y >= lower - tol) & (y <= upper + tol)
    room = np.where(y >= pi.y_pred, upper - y, y - lower)
    return (
        float(np.mean(~inside)),
        float(np.mean(upper - lower) / 2.0),
        float(np.mean(np.where(inside, np.maximum(room, 0.0), 0.0))),
        float(np.mean(np.where(inside, 0.0, np.maximum(-room, 0.0)))),
    )


def algorithm1_auucc(y: np.ndarray, pi: PredictionIntervals) -> dict[str, float]:
    z = y - pi.y_pred
    k = np.where(z >= 0.0, z / pi.z_upper, -z / pi.z_lower)
    rows = np.array(sorted((kk, *algorithm1_metrics(y, pi, kk)) for kk in k))
    col = {"miss_rate": 1, "bandwidth": 2, "excess": 3, "deficit": 4}
    return {
        name: float(abs(np.trapezoid(rows[:, col[ya]], rows[:, col[xa]])))
        for name, (xa, ya) in COORDS.items()
    }


def uq360_rounding_auucc(y: np.ndarray, pi: PredictionIntervals) -> float:
    """Our Bw-MR AUUCC with UQ360's floating-point inclusion test emulated (no ties).

    UQ360 tests |d_i| ≤ k ẑ_i with k = k_i = |d_i|/ẑ_i; fl(k_i ẑ_i) < |d_i| happens for a few
    per cent of the points, which UQ360 then counts as missed at their own critical scale
    (1/N too high a miss rate there), while Lemma 1 (and uqval.ucc) counts them as captured.
    """
    z = y - pi.y_pred
    a = np.where(z >= 0.0, pi.z_upper, pi.z_lower)
    k = np.abs(z) / a
    order = np.argsort(k)
    missed_own = (k * a < np.abs(z))[order]
    curve = ucc_curve(y, pi)
    return float(abs(np.trapezoid(curve.y + missed_own / y.size, curve.x)))


def best_time(func: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def run_uq360(python: str, y, pi, subset_k, full: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.npz"
        np.savez(
            path, y=y, y_pred=pi.y_pred, z_lower=pi.z_lower, z_upper=pi.z_upper, subset_k=subset_k
        )
        args = [
            python,
            "-c",
            UQ360_RUNNER,
            str(path),
            "full" if full else "subset",
            json.dumps(UQ360_AXES),
        ]
        res = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--full-max", type=int, default=10_000)
    parser.add_argument("--subset", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--uq360-python", default="/tmp/uq360env/bin/python")
    args = parser.parse_args()
    have_uq360 = Path(args.uq360_python).exists()
    if not have_uq360:
        print(f"UQ360 interpreter {args.uq360_python} not found: UQ360 skipped")
    for n in args.sizes:
        y, pi = random_case(n)
        ours = {name: auucc(ucc_curve(y, pi, *axes)) for name, axes in COORDS.items()}
        t_ours = {
            name: best_time(
                lambda y=y, pi=pi, axes=axes: auucc(ucc_curve(y, pi, *axes)), args.repeats
            )
            for name, axes in COORDS.items()
        }
        full = n <= args.full_max
        rng = np.random.default_rng(1)
        k_all = np.sort(
            np.where(y >= pi.y_pred, (y - pi.y_pred) / pi.z_upper, (pi.y_pred - y) / pi.z_lower)
        )
        subset_k = k_all if full else np.sort(rng.choice(k_all, args.subset, replace=False))
        print(
            f"\nN = {n}: ours  Bw-MR {ours['Bw-MR']:.12f} in {t_ours['Bw-MR'] * 1e3:.2f} ms, "
            f"Ex-De {ours['Ex-De']:.12f} in {t_ours['Ex-De'] * 1e3:.2f} ms"
        )
        if full:
            start = time.perf_counter()
            ref = algorithm1_auucc(y, pi)
            t_ref = time.perf_counter() - start
            diff = max(abs(ref[c] - ours[c]) for c in COORDS)
            tag = ""
        else:
            start = time.perf_counter()
            rows = np.array([algorithm1_metrics(y, pi, k) for k in subset_k])
            t_ref = (time.perf_counter() - start) / subset_k.size * n
            m = metrics_at_scale(y, pi, subset_k)
            diff = float(
                np.max(
                    np.abs(rows - np.column_stack([m.miss_rate, m.bandwidth, m.excess, m.deficit]))
                )
            )
            tag = f" extrap. from {subset_k.size} scales"
        print(
            f"  Algorithm 1 O(N^2): {t_ref:.2f} s{tag}; max |diff| {diff:.2e}; "
            f"ratio vs ours (Ex-De) {t_ref / t_ours['Ex-De']:.0f}x"
        )
        if not have_uq360:
            continue
        uq = run_uq360(args.uq360_python, y, pi, subset_k, full)
        if full:
            t_uq = uq["fit"] + uq["auc_time_Ex-De"]
            diffs = {c: abs(uq[c] - ours[c]) for c in COORDS}
            emulated = abs(uq["Bw-MR"] - uq360_rounding_auucc(y, pi))
            print(
                f"  UQ360: fit {uq['fit']:.2f} s; AUUCC Bw-MR {uq['Bw-MR']:.12f} (|diff| {diffs['Bw-MR']:.2e}; "
                f"{emulated:.2e} with its rounding emulated), Ex-De {uq['Ex-De']:.12f} "
                f"(|diff| {diffs['Ex-De']:.2e}); ratio vs ours {t_uq / t_ours['Ex-De']:.0f}x"
            )
        else:
            t_uq = uq["per_scale"] * n
            m = metrics_at_scale(y, pi, subset_k)
            rows = np.array(uq["rows"])
            diff = np.abs(
                rows - np.column_stack([m.miss_rate, m.bandwidth, m.excess, m.deficit])
            ).max(axis=0)
            print(
                f"  UQ360: {t_uq:.1f} s extrap. from {subset_k.size} scales; max |diff| miss rate "
                f"{diff[0]:.2e} (1/N = rounding at own scale), others {diff[1:].max():.2e}; "
                f"ratio vs ours {t_uq / t_ours['Ex-De']:.0f}x"
            )


if __name__ == "__main__":
    main()
