"""Benchmark: uqval against its peers, in one run, on the same seeded arrays.

For each M (default 10³, 10⁴, 10⁵, 10⁶) the arrays are drawn from one seed: uncertainties
uE ~ lognormal(0, 0.5), three features x1..x3 ~ U(0, 1), errors E = uE (1 + 0.5 x1) N(0, 1)
(heteroscedastic along x1, so tests have something to find), predictions ŷ ~ N(0, 1) and
y = ŷ + E. Each (task, M) runs in its own interpreter (``--child``), which builds the
arrays, warms up on M = 1000 (loads the compiled kernels; not timed), then times one call;
peak memory is the child's maximum resident set size (``resource.getrusage``), which includes
the interpreter, the libraries and the arrays.

Tasks:

* uqval: BCa bootstrap of ZMS and RCE together (``bca_bootstrap_means``, 10⁴ replicates);
  LZMS on round(√M) equal-count bins of uE (``local_zms``, BCa per bin, R = max(1500, n));
  UCC gain over a constant band with the paired permutation test (bandwidth–miss rate,
  10⁴ permutations, fixed count); the full ``uqval.validate`` with the three features
  (default settings).
* uncertainty-toolbox: ``get_all_metrics`` (verbose off) and its calibration curve
  ``get_proportion_lists_vectorized``.
* SciPy: ``scipy.stats.bootstrap(method="BCa")`` of ZMS = mean(Z²) with 10⁴ resamples
  (vectorised, batched). Its jackknife is O(M²): a size is skipped when the time
  extrapolated from the previous size (×(M/M_prev)²) exceeds ``--scipy-max`` seconds.
* UQ360: ``pip install uq360`` fails on Python 3.11 (it pins numpy < 1.21; see
  ``benchmarks/bench_ucc.py``), so it is recorded as not installed.

Output: ``benchmarks/results/peers.csv`` (one row per task and M, with the 1-minute load
average when the child ran: other processes share the machine) and a markdown table of
times, peak memory and ratios (uqval / peer) on stdout. Speed is never asserted in tests.

Usage: ``nice -n 10 python benchmarks/bench_peers.py [--sizes 1000 10000 100000 1000000]``
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "peers.csv"
SEED = 20240518
N_BOOT = 10_000
N_PERM = 10_000


def arrays(m: int) -> dict[str, np.ndarray]:
    """The seeded arrays shared by every task at size m."""
    rng = np.random.default_rng([SEED, m])
    u = rng.lognormal(0.0, 0.5, m)
    x = rng.random((3, m))
    e = u * (1.0 + 0.5 * x[0]) * rng.normal(size=m)
    y_pred = rng.normal(size=m)
    return {"E": e, "uE": u, "x1": x[0], "x2": x[1], "x3": x[2], "y_pred": y_pred,
            "y": y_pred + e}


def _zms_rce(d: dict[str, np.ndarray]) -> None:
    from uqval.stats import zscore_statistics as cal
    from uqval.stats.bootstrap import bca_bootstrap_means

    bca_bootstrap_means((d["E"], d["uE"]), {"ZMS": cal.ZMS, "RCE": cal.RCE}, n_boot=N_BOOT,
                        seed=1)


def _lzms(d: dict[str, np.ndarray]) -> None:
    from uqval.binning import equal_count_bins
    from uqval.calibration.local import local_zms

    n_bins = max(2, round(np.sqrt(d["E"].size)))
    local_zms(d["E"], d["uE"], d["uE"], equal_count_bins(d["uE"], n_bins), seed=1)


def _ucc(d: dict[str, np.ndarray]) -> None:
    from uqval.ucc import (
        PredictionIntervals,
        auucc,
        auucc_gain,
        auucc_permutation_test,
        constant_band,
        ucc_curve,
    )

    model = PredictionIntervals.from_uncertainty(d["y_pred"], d["uE"])
    const = constant_band(d["y_pred"])
    auucc_gain(auucc(ucc_curve(d["y"], model)), auucc(ucc_curve(d["y"], const)))
    auucc_permutation_test(d["y"], model, const, n_permutations=N_PERM, seed=1)


def _validate(d: dict[str, np.ndarray]) -> None:
    import uqval

    uqval.validate(d["E"], d["uE"], {k: d[k] for k in ("x1", "x2", "x3")}, seed=1)


def _uct_metrics(d: dict[str, np.ndarray]) -> None:
    import uncertainty_toolbox as uct

    uct.get_all_metrics(d["y_pred"], d["uE"], d["y"], verbose=False)


def _uct_curve(d: dict[str, np.ndarray]) -> None:
    import uncertainty_toolbox as uct

    uct.get_proportion_lists_vectorized(d["y_pred"], d["uE"], d["y"])


def _scipy_bca(d: dict[str, np.ndarray]) -> None:
    from scipy import stats

    z2 = (d["E"] / d["uE"]) ** 2
    stats.bootstrap((z2,), np.mean, n_resamples=N_BOOT, method="BCa", vectorized=True,
                    batch=max(1, 2**22 // z2.size), random_state=np.random.default_rng(1))


TASKS = {
    "uqval ZMS+RCE BCa": _zms_rce,
    "uqval LZMS sqrt(M) bins": _lzms,
    "uqval UCC gain + permutation test": _ucc,
    "uqval validate (3 features)": _validate,
    "uct get_all_metrics": _uct_metrics,
    "uct calibration curve": _uct_curve,
    "SciPy bootstrap BCa (ZMS)": _scipy_bca,
}


def child(task: str, m: int) -> None:
    """Warm up at M = 1000, then time one call at M; print seconds and peak RSS as JSON."""
    run = TASKS[task]
    run(arrays(1000))
    d = arrays(m)
    start = time.perf_counter()
    run(d)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"seconds": seconds, "peak_mib": peak}))


def measure(task: str, m: int, timeout: float) -> dict:
    load = os.getloadavg()[0]
    cmd = [sys.executable, __file__, "--child", task, str(m)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1]) | {"status": "ok"}
    except subprocess.TimeoutExpired:
        row = {"seconds": np.nan, "peak_mib": np.nan, "status": f"timeout {timeout:.0f} s"}
    except subprocess.CalledProcessError as err:
        row = {"seconds": np.nan, "peak_mib": np.nan,
               "status": "failed: " + err.stderr.strip().splitlines()[-1][:80]}
    return {"M": m, "task": task, "load1": round(load, 2)} | row


def markdown(rows: list[dict]) -> str:
    """Times (s), peak memory (MiB) and uqval/peer ratios per M."""
    by = {(r["M"], r["task"]): r for r in rows}
    sizes = sorted({r["M"] for r in rows})

    def cell(m: int, task: str) -> str:
        r = by.get((m, task))
        if r is None or r["status"] != "ok":
            return "skipped" if r is None else r["status"]
        return f"{r['seconds']:.2f} s / {r['peak_mib']:.0f} MiB"

    def ratio(m: int, ours: str, peer: str) -> str:
        a, b = by.get((m, ours)), by.get((m, peer))
        if not a or not b or a["status"] != "ok" or b["status"] != "ok":
            return "–"
        return f"{a['seconds'] / b['seconds']:.3g}"

    lines = ["| task | " + " | ".join(f"M = {m:.0e}" for m in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for task in TASKS:
        lines.append(f"| {task} | " + " | ".join(cell(m, task) for m in sizes) + " |")
    lines.append("| UQ360 UCC | " + " | ".join("not installed (pins numpy < 1.21)"
                                                for _ in sizes) + " |")
    for label, ours, peer in [
        ("ratio validate / uct get_all_metrics", "uqval validate (3 features)",
         "uct get_all_metrics"),
        ("ratio ZMS+RCE BCa / SciPy BCa (ZMS)", "uqval ZMS+RCE BCa", "SciPy bootstrap BCa (ZMS)"),
    ]:
        lines.append(f"| {label} | " + " | ".join(ratio(m, ours, peer) for m in sizes) + " |")
    loads = [r["load1"] for r in rows]
    lines.append(f"\nLoad average (1 min) during the run: {min(loads):.1f}–{max(loads):.1f} "
                 f"on {os.cpu_count()} cores.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--scipy-max", type=float, default=180.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--child", nargs=2, metavar=("TASK", "M"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    rows: list[dict] = []
    scipy_last: tuple[int, float] | None = None
    for m in args.sizes:
        for task in TASKS:
            if task.startswith("SciPy") and scipy_last is not None:
                m0, t0 = scipy_last
                if t0 * (m / m0) ** 2 > args.scipy_max:
                    rows.append({"M": m, "task": task, "load1": round(os.getloadavg()[0], 2),
                                 "seconds": np.nan, "peak_mib": np.nan,
                                 "status": f"skipped (> {args.scipy_max:.0f} s extrapolated)"})
                    continue
            row = measure(task, m, args.timeout)
            if task.startswith("SciPy") and row["status"] == "ok":
                scipy_last = (m, row["seconds"])
            rows.append(row)
            print(json.dumps(row), flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(markdown(rows))


if __name__ == "__main__":
    main()
