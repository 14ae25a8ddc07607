"""Benchmark: one p_val repeat of P001 Fig. 5 and the cost of the Monte Carlo figures.

One repeat of a scenario = for each nu of its grid (11 nu each), draw a calibrated set
(M = 5000), then bootstrap ZMS and RCE of every set on n_boot = 5000 resamples shared by all
nu (:func:`uqval.stats.bootstrap.bca_bootstrap_means_sets`: the kernel counts the draws once
and takes the sums of all 33 columns as one matrix product) and take their zeta-scores.
The script prints the per-repeat time with its breakdown (data, draw counting, the sums by
matrix product and, for comparison, by gathering, jackknife + BCa), the time of the former
design (one bootstrap per nu, 3 columns gathered), the throughput of ``--cores`` processes
running repeats concurrently, and extrapolations at paper fidelity:

* Fig. 5: 1000 repeats of each scenario (11 nu each; TIG nu_D 2.1 and 2.5 both;
  docs/choices.md, "p_val grids"), plus the upper axis (500 beta_GM samples per nu);
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
NIG_NU = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0]
TIG_NU_D = [2.1, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 20.0]
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
    """Time of each step of one NIG repeat (all 11 nu) and of one TIG repeat."""
    from uqval.papers.heavytails import montecarlo as mc
    from uqval.stats import bootstrap as bs
    from uqval.stats import resample_kernel as rk
    from uqval.stats.synthetic import nig_dataset
    from uqval.stats.zscore_statistics import RCE, ZMS

    stats = {"ZMS": ZMS, "RCE": RCE}

    def data() -> list:
        return [nig_dataset(np.random.default_rng([SEED, i]), nu, M) for i, nu in enumerate(NIG_NU)]

    sets = data()
    per_set = [
        bs._distinct_columns([s.column_matrix(E, uE) for s in stats.values()])[0] for E, uE in sets
    ]
    columns = np.concatenate(per_set)

    def blocks() -> list:
        return bs._stream_blocks(np.random.SeedSequence(SEED), M, N_BOOT)

    def count_only() -> None:
        state = np.zeros(6, dtype=np.uint64)
        for block in blocks():
            state[:4] = rk.sfc64_state(block.seed)
            rk._draw_counts(state, M, np.empty((block.size, M)))

    def gathered_sums() -> None:  # the same sums without the matrix product
        for cols in per_set:
            bs._resampled_sums(cols, blocks(), N_BOOT, 1)

    def jackknife_bca() -> None:
        boot = np.zeros(N_BOOT) + np.linspace(0.9, 1.1, N_BOOT)
        for E, uE in sets:
            for s in stats.values():
                bs._bca(1.0, boot, bs._mean_jackknife(s, s.column_matrix(E, uE)), 0.95)

    def former_design() -> None:  # one bootstrap (own resamples) per nu
        for i, (E, uE) in enumerate(sets):
            bs.bca_bootstrap_means((E, uE), stats, n_boot=N_BOOT, seed=SEED + i)

    steps = {
        "data (11 NIG sets)": data,
        "draw counting (kernel)": count_only,
        f"sums of {columns.shape[0]} columns (counts @ columns)": lambda: bs._resampled_sums(
            columns, blocks(), N_BOOT, 1
        ),
        "same sums gathered per nu (3 columns)": gathered_sums,
        "jackknife + BCa (22 statistics)": jackknife_bca,
        "pval_repeats, NIG (1 repeat, 11 nu)": lambda: mc.pval_repeats(
            "NIG", NIG_NU, [0], M, N_BOOT, SEED
        ),
        "pval_repeats, TIG (1 repeat, 11 nu)": lambda: mc.pval_repeats(
            "TIG", TIG_NU_D, [0], M, N_BOOT, SEED
        ),
        "former design: 11 bootstraps, NIG": former_design,
    }
    return {name: _best(func, repeats) for name, func in steps.items()}


def _repeat_chunk(args: tuple[int, int]) -> float:
    from uqval.papers.heavytails import montecarlo as mc

    first, count = args
    start = time.perf_counter()
    mc.pval_repeats("NIG", NIG_NU, range(first, first + count), M, N_BOOT, SEED)
    return time.perf_counter() - start


def concurrent_per_repeat(cores: int, per_process: int) -> float:
    """Wall time per NIG repeat (all nu) when ``cores`` processes run repeats at once."""
    with mp.get_context("spawn").Pool(cores) as pool:
        pool.map(_repeat_chunk, [(1000 + i, 1) for i in range(cores)])  # warm-up imports
        start = time.perf_counter()
        pool.map(_repeat_chunk, [(i * per_process, per_process) for i in range(cores)])
        wall = time.perf_counter() - start
    return wall / (cores * per_process)


def other_figures() -> dict[str, float]:
    """Time of one unit of work of Figs 3, 4/11 and of the Fig. 5 upper axis."""
    from uqval.papers.heavytails import montecarlo as mc

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
        print(f"  {name:40s} {wall:7.3f} s / {cpu:7.3f} s")
    nig_cpu = steps["pval_repeats, NIG (1 repeat, 11 nu)"][1]
    tig_cpu = steps["pval_repeats, TIG (1 repeat, 11 nu)"][1]
    parallel = concurrent_per_repeat(args.cores, args.per_process)
    print(f"  {args.cores} concurrent processes: {parallel:.3f} s wall per NIG repeat")

    others = other_figures()
    for name, seconds in others.items():
        print(f"  {name:34s} {seconds:7.3f} s")

    n_nu = len(NIG_NU) + len(TIG_NU_D)
    fig5_cpu = N_REPEATS_FIG5 * (nig_cpu + tig_cpu)
    fig5 = (
        2 * N_REPEATS_FIG5 * parallel
        + n_nu * others["Fig 5 upper axis nu (500 samples)"] / args.cores
    )
    fig4 = N_POINTS_FIG4 * others["Fig 4/11 point (N = 1000, M = 5000)"] / args.cores
    fig3 = N_NU_FIG3 * others["Fig 3 nu (2 samples of 5e5)"] / args.cores
    print(f"Extrapolation at paper fidelity on {args.cores} cores:")
    print(
        f"  Fig. 5: 2 x {N_REPEATS_FIG5} repeats ({n_nu} nu) -> {fig5 / 60:.1f} min "
        f"({fig5_cpu / 60:.1f} CPU-min at the best single-process CPU time)"
    )
    print(f"  Figs 4/11: {N_POINTS_FIG4} points -> {fig4:.0f} s")
    print(f"  Fig. 3: {N_NU_FIG3} nu -> {fig3:.0f} s")


if __name__ == "__main__":
    main()
