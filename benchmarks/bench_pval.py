"""Benchmark: one p_val repeat of P001 Fig. 5 and the cost of the Monte Carlo figures.

One repeat = draw a calibrated set (M = 5000), bootstrap ZMS and RCE together on
n_boot = 5000 shared resamples (BCa, :func:`uqval.stats.bootstrap.bca_bootstrap_means`) and
take their zeta-scores. The script prints the per-repeat time with its breakdown (data,
index drawing, the kernel's draw and sums, jackknife + BCa), the time of two separate
``bca_bootstrap`` calls for comparison, the throughput of ``--cores`` processes running
repeats concurrently, and extrapolations at paper fidelity:

* Fig. 5: 11 NIG nu + 12 TIG nu_D (2.1 and 2.5 both; docs/choices.md, "p_val grids") = 23 nu x 1000
  repeats, plus the upper axis (500 beta_GM samples per nu);
* Figs 4/11: 7 x 6 (nu_IG, nu_D) points of N = 1000 sets of M = 5000;
* Fig. 3: 30 nu, two samples of 5e5.

Usage: ``python benchmarks/bench_pval.py [--repeats 5] [--cores 2]``
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time
from collections.abc import Callable

import numpy as np

M = 5000
N_BOOT = 5000
SEED = 20240216
N_NU_FIG5 = 23
N_REPEATS_FIG5 = 1000
N_UPPER_SAMPLES = 500
N_POINTS_FIG4 = 42
N_SETS_FIG4 = 1000
N_NU_FIG3 = 30
SAMPLE_FIG3 = 500_000


def _best(func: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(min wall time, min CPU time) of ``repeats`` calls.

    The CPU time (all threads of the process) is less affected by other jobs sharing the
    cores; the two agree on an idle machine.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def breakdown(repeats: int) -> dict[str, tuple[float, float]]:
    """Per-repeat time of each step of one NIG repeat (nu = 4)."""
    from uqval import mc_average as mc
    from uqval.stats import bootstrap as bs
    from uqval.stats import resample_kernel as rk
    from uqval.stats.calibration import RCE, ZMS
    from uqval.synthetic import nig_dataset

    rng = np.random.default_rng(SEED)
    E, uE = nig_dataset(rng, 4.0, M)
    stats = {"ZMS": ZMS, "RCE": RCE}
    matrices = [s.column_matrix(E, uE) for s in stats.values()]
    columns, _ = bs._distinct_columns(matrices)

    def blocks() -> list:
        return bs._stream_blocks(np.random.SeedSequence(SEED), M, N_BOOT)

    def draw_only() -> None:
        for block in blocks():
            rk.draw_indices(block.seed, M, block.size * M)

    def jackknife_bca() -> None:
        boot = np.zeros(N_BOOT) + np.linspace(0.9, 1.1, N_BOOT)
        for s, mat in zip(stats.values(), matrices, strict=True):
            bs._bca(1.0, boot, bs._mean_jackknife(s, mat), 0.95)

    steps = {
        "data (nig_dataset)": lambda: nig_dataset(np.random.default_rng(SEED), 4.0, M),
        "index drawing (kernel)": draw_only,
        "kernel: draw + sums (3 columns)": lambda: bs._resampled_sums(columns, blocks(), N_BOOT, 1),
        "jackknife + BCa (2 statistics)": jackknife_bca,
        "bca_bootstrap_means (ZMS, RCE)": lambda: bs.bca_bootstrap_means(
            (E, uE), stats, n_boot=N_BOOT, seed=SEED
        ),
        "two bca_bootstrap calls": lambda: [
            bs.bca_bootstrap((E, uE), s, n_boot=N_BOOT, seed=SEED) for s in stats.values()
        ],
        "pval_repeats, NIG (1 repeat)": lambda: mc.pval_repeats("NIG", 4.0, [0], M, N_BOOT, SEED),
        "pval_repeats, TIG (1 repeat)": lambda: mc.pval_repeats("TIG", 3.0, [0], M, N_BOOT, SEED),
    }
    return {name: _best(func, repeats) for name, func in steps.items()}


def _repeat_chunk(args: tuple[int, int]) -> float:
    from uqval import mc_average as mc

    first, count = args
    start = time.perf_counter()
    mc.pval_repeats("NIG", 4.0, range(first, first + count), M, N_BOOT, SEED)
    return time.perf_counter() - start


def concurrent_per_repeat(cores: int, per_process: int) -> float:
    """Wall time per repeat when ``cores`` processes run repeats at the same time."""
    with mp.get_context("spawn").Pool(cores) as pool:
        pool.map(_repeat_chunk, [(1000 + i, 1) for i in range(cores)])  # warm-up imports
        start = time.perf_counter()
        pool.map(_repeat_chunk, [(i * per_process, per_process) for i in range(cores)])
        wall = time.perf_counter() - start
    return wall / (cores * per_process)


def other_figures() -> dict[str, float]:
    """Time of one unit of work of Figs 3, 4/11 and of the Fig. 5 upper axis."""
    from uqval import mc_average as mc

    out = {}
    start = time.perf_counter()
    mc.tig_bias_point(3.0, 4.0, N_SETS_FIG4, M, SEED)
    out["Fig 4/11 point (N = 1000, M = 5000)"] = time.perf_counter() - start
    start = time.perf_counter()
    mc.shape_statistic_curves([4.0], SAMPLE_FIG3, SEED)
    out["Fig 3 nu (2 samples of 5e5)"] = time.perf_counter() - start
    start = time.perf_counter()
    mc.pval_upper_axis("TIG", 3.0, M, N_UPPER_SAMPLES, SEED)
    out["Fig 5 upper axis nu (500 samples)"] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each step")
    parser.add_argument("--cores", type=int, default=2, help="concurrent processes")
    parser.add_argument("--per-process", type=int, default=8, help="repeats per process")
    args = parser.parse_args()

    print(f"One p_val repeat: M = {M}, n_boot = {N_BOOT} (best wall / CPU of {args.repeats} runs)")
    steps = breakdown(args.repeats)
    for name, (wall, cpu) in steps.items():
        print(f"  {name:34s} {wall:7.3f} s / {cpu:7.3f} s")
    single = steps["pval_repeats, NIG (1 repeat)"][1]
    parallel = concurrent_per_repeat(args.cores, args.per_process)
    print(f"  {args.cores} concurrent processes: {parallel:.3f} s wall per repeat")

    others = other_figures()
    for name, seconds in others.items():
        print(f"  {name:34s} {seconds:7.3f} s")

    n_fig5 = N_NU_FIG5 * N_REPEATS_FIG5
    fig5 = n_fig5 * parallel + N_NU_FIG5 * others["Fig 5 upper axis nu (500 samples)"] / args.cores
    fig4 = N_POINTS_FIG4 * others["Fig 4/11 point (N = 1000, M = 5000)"] / args.cores
    fig3 = N_NU_FIG3 * others["Fig 3 nu (2 samples of 5e5)"] / args.cores
    print(f"Extrapolation at paper fidelity on {args.cores} cores:")
    print(
        f"  Fig. 5: {n_fig5} repeats -> {fig5 / 3600:.2f} h "
        f"({n_fig5 * single / 3600:.2f} CPU-h at the best single-process CPU time)"
    )
    print(f"  Figs 4/11: {N_POINTS_FIG4} points -> {fig4:.0f} s")
    print(f"  Fig. 3: {N_NU_FIG3} nu -> {fig3:.0f} s")


if __name__ == "__main__":
    main()
