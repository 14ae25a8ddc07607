"""Benchmark: uqval BCa bootstrap vs ``scipy.stats.bootstrap(method="BCa")`` for ZMS.

Synthetic heavy-tailed calibrated set of M = 36 150 points (the size of the largest Jacobs
set), 10^4 replicates, same seed for both. Each method runs in a fresh process so that its
peak resident memory (``ru_maxrss``) is its own; the baseline after imports and data
generation is reported too. SciPy gets ``vectorized=True`` and ``batch=256``, which keeps
its memory well under 1 GiB (without a batch it would materialise 2 x 10^4 x M floats).

Both single-threaded uqval (the default) and ``n_workers=2`` are timed; the SciPy
bootstrap is single-threaded. Usage: ``python benchmarks/bench_bca.py [--repeats 3]``
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time

import numpy as np

M = 36_150
N_BOOT = 10_000
SEED = 20240215
SCIPY_BATCH = 256


def make_data() -> tuple[np.ndarray, np.ndarray]:
    """NIG-like set: uE^2 ~ InvGamma(3, 3), E = uE * t_s(6) (unit-variance Student t)."""
    rng = np.random.default_rng(12345)
    ue = np.sqrt(1.0 / rng.gamma(3.0, 1.0 / 3.0, size=M))
    return ue * rng.standard_t(6, size=M) * np.sqrt(4.0 / 6.0), ue


def _max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def run_uqval(repeats: int, n_workers: int = 1) -> dict:
    from uqval.stats.bootstrap import bca_bootstrap
    from uqval.stats.zscore_statistics import ZMS

    e, ue = make_data()
    baseline = _max_rss_mib()
    times, res = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        res = bca_bootstrap((e, ue), ZMS, n_boot=N_BOOT, seed=SEED, n_workers=n_workers)
        times.append(time.perf_counter() - start)
    return {
        "times": times,
        "ci": (res.ci_low, res.ci_high),
        "baseline": baseline,
        "peak": _max_rss_mib(),
    }


def run_scipy(repeats: int) -> dict:
    from scipy import stats

    def zms(E, uE, axis=-1):
        return np.mean((E / uE) ** 2, axis=axis)

    e, ue = make_data()
    baseline = _max_rss_mib()
    times, res = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        res = stats.bootstrap(
            (e, ue),
            zms,
            paired=True,
            vectorized=True,
            n_resamples=N_BOOT,
            batch=SCIPY_BATCH,
            method="BCa",
            random_state=np.random.default_rng(SEED),
        )
        times.append(time.perf_counter() - start)
    ci = res.confidence_interval
    return {"times": times, "ci": (ci.low, ci.high), "baseline": baseline, "peak": _max_rss_mib()}


def _in_fresh_process(func, *args) -> dict:
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(func, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of the uqval bootstrap")
    parser.add_argument("--scipy-repeats", type=int, default=1, help="runs of the SciPy bootstrap")
    args = parser.parse_args()

    ours = _in_fresh_process(run_uqval, args.repeats)
    threaded = _in_fresh_process(run_uqval, args.repeats, 2)
    theirs = _in_fresh_process(run_scipy, args.scipy_repeats)
    t_ours, t_threaded, t_scipy = (min(r["times"]) for r in (ours, threaded, theirs))
    print(f"ZMS BCa bootstrap, M = {M}, n_boot = {N_BOOT}, seed = {SEED}")
    for name, r in (("uqval", ours), ("uqval2", threaded), ("scipy", theirs)):
        runs = ", ".join(f"{t:.2f}" for t in r["times"])
        print(
            f"{name:6s} time {min(r['times']):7.2f} s (runs: {runs}); "
            f"CI [{r['ci'][0]:.5f}, {r['ci'][1]:.5f}]; peak RSS {r['peak']:.0f} MiB "
            f"(baseline {r['baseline']:.0f} MiB, +{r['peak'] - r['baseline']:.0f} MiB)"
        )
    print(
        f"speed-up, best scipy / best uqval: {t_scipy / t_ours:.1f}x (1 thread), "
        f"{t_scipy / t_threaded:.1f}x (uqval2 = n_workers=2)"
    )


if __name__ == "__main__":
    main()
