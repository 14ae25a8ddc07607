"""Benchmark: the simulated references of a user's dataset page (rule ``simref_set``).

What the dataset page of ``snakemake validate --config datasets=<id>`` computes for the
simulated references is the work of ``scripts/simref_set.py``; this script repeats its calls
stage by stage on a synthetic user dataset (lognormal uE, E = uE x N(0, 1), two features that
the simref stage does not use) of 27 000 and 10^6 rows, with the counts of
``config/config.yaml`` (``analysis.simref``, ``simref_counts`` incl. ``large_sets``):

* ``zscores``       -- P002 Table II row: t fit of Z and the BCa bootstrap of sd(Z);
* ``refs_N``        -- ZMS, CC, ENCE(20), ZMSE(20), ENCE(50), ZMSE(50) simulated under
  N(0, 1), n_mc sets (the zeta references and the sensitivity table of Figs 4-5);
* ``refs_T``        -- ZMS, CC, ENCE(20), ZMSE(20) simulated under t_s(6);
* ``boot_<stat>``   -- the BCa bootstrap (n_boot) of each statistic (validate_statistic with
  the precomputed references);
* ``extrapolation`` -- ZMSE at N = 10..150 bins and the line fit (App. C);
* ``validate``      -- with ``--validate``: what the page's engine report computes,
  ``uqval.validate`` with the two features and ``n_boot`` = 1000 (the command line's work
  without reading and writing files), for comparison.

CPU time is ``time.process_time`` of this process (the machine is shared: wall time is also
printed but depends on the other jobs); ``--profile`` adds the cProfile breakdown (top
functions by internal time). Usage::

    nice -n 10 python benchmarks/bench_simref_page.py --m 27000 [--profile]
    nice -n 10 python benchmarks/bench_simref_page.py --m 1000000 [--n-mc 200 --n-boot 200]

Results: ``benchmarks/simref_page.md`` (raw JSON with ``--json``, e.g. into the ignored
``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import resource
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261125


def make_data(m: int) -> dict[str, np.ndarray]:
    """Seeded user dataset: uE lognormal(0, 0.5), E = uE eps, eps ~ N(0, 1), 2 features."""
    rng = np.random.default_rng([SEED, m])
    ue = rng.lognormal(0.0, 0.5, m)
    x = rng.random((2, m))
    return {"E": ue * rng.standard_normal(m), "uE": ue, "X_a": x[0], "X_b": x[1]}


def settings() -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    return cfg["analysis"]["simref"]


def stages(E: np.ndarray, uE: np.ndarray, cfg: dict, n_mc: int, n_boot: int,
           jackknife_groups: int | None, seed: int, workers: int = 1):
    """(name, thunk) of each stage of scripts/simref_set.py, in its order and with its seeds."""
    from uqval import simref
    from uqval.papers.simref import statistics as paper_stats

    s_summary, _, s_N, s_T, s_boot = np.random.SeedSequence(seed).spawn(5)
    stats = [simref.as_statistic(s, cfg["zeta_bins"]) for s in ("ZMS", "CC", "ENCE", "ZMSE")]
    sens_stats = simref.sensitivity_statistics(cfg["sensitivity_bins"])
    n_stats = stats + [s for s in sens_stats if s not in stats]
    refs: dict[str, list] = {}
    out: list = []

    def zscores():
        return paper_stats.zscore_summary(E, uE, n_boot=n_boot, seed=s_summary)

    def refs_n():  # one simulation for the zeta statistics and the sensitivity table
        ref_n = simref.simulated_references(uE, n_stats, "normal", n_mc, s_N, n_workers=workers)
        refs["N"] = ref_n[: len(stats)]
        return simref.reference_table(E, uE, sens_stats, [ref_n[n_stats.index(s)]
                                                          for s in sens_stats])

    def refs_t():
        refs["T"] = simref.simulated_references(uE, stats, ("t", cfg["t_nu"]), n_mc, s_T,
                                                n_workers=workers)
        return refs["T"]

    seeds = s_boot.spawn(len(stats))

    def boot(i):
        def run():
            v = simref.validate_statistic(
                E, uE, stats[i], n_boot=n_boot, n_mc=n_mc, t_nu=cfg["t_nu"], seed=seeds[i],
                all_schemes=True, references={k: r[i] for k, r in refs.items()},
                jackknife_groups=jackknife_groups, n_workers=workers)
            out.append(v.as_row())
            return v
        return run

    def extrapolation():
        x = cfg["extrapolation"]
        n_values = range(x["n_min"], x["n_max"] + 1, x["n_step"])
        return paper_stats.zmse_extrapolation(E, uE, n_values, x["min_per_bin"], x["fit_min_n"])

    return [("zscores", zscores), ("refs_N", refs_n),
            ("refs_T", refs_t)] + [(f"boot_{s.name}", boot(i)) for i, s in enumerate(stats)] + [
        ("extrapolation", extrapolation)]


def _summary(value) -> object:
    """A few numbers of a stage's result, to compare runs (before/after) for equality."""
    if isinstance(value, list):
        return [(r.statistic, r.mean, r.ci_low, r.ci_high) for r in value]
    if hasattr(value, "as_row"):
        row = value.as_row()
        return {k: row[k] for k in ("theta_est", "I_BS_low", "I_BS_high", "zeta_SimN")}
    if hasattr(value, "to_dict") and not hasattr(value, "fit"):
        return value[["statistic", "ref_mean", "I_low", "I_high"]].values.tolist()
    if hasattr(value, "fit"):
        return [value.fit.intercept, value.fit.slope]
    return value


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=27_000)
    ap.add_argument("--n-mc", type=int, default=None, help="default: simref_counts(config, M)")
    ap.add_argument("--n-boot", type=int, default=None)
    ap.add_argument("--jackknife-groups", type=int, default=-1, help="-1: from the config")
    ap.add_argument("--workers", type=int, default=2, help="threads (rule simref_set: 2)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--validate", action="store_true", help="also time uqval.validate")
    ap.add_argument("--only", nargs="*", default=None, help="stage names to run")
    ap.add_argument("--json", type=Path, default=None, help="write timings and values here")
    args = ap.parse_args()

    from uqval.pipeline.workflow_config import simref_counts

    cfg = settings()
    d = make_data(args.m)
    counts = simref_counts(cfg, args.m)
    n_mc = args.n_mc or counts.n_mc
    n_boot = args.n_boot or counts.n_boot
    groups = counts.jackknife_groups if args.jackknife_groups == -1 else (
        args.jackknife_groups or None)
    print(f"M = {args.m}: n_mc = {n_mc}, n_boot = {n_boot}, jackknife_groups = {groups} "
          f"(config: {counts.describe()})")
    work = stages(d["E"], d["uE"], cfg, n_mc, n_boot, groups, SEED, args.workers)
    if args.validate:
        from uqval.validation import validate

        work.append(("validate", lambda: validate(
            d["E"], d["uE"], features={"a": d["X_a"], "b": d["X_b"]}, seed=1, n_boot=1000,
            uncertainty_name="uE").stage_verdicts))
    prof = cProfile.Profile() if args.profile else None
    record: dict = {"M": args.m, "n_mc": n_mc, "n_boot": n_boot, "jackknife_groups": groups,
                    "stages": {}}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for name, thunk in work:
        wanted = set(args.only or [])
        if any(o.startswith("boot_") for o in wanted):
            wanted |= {"refs_N", "refs_T"}
        if args.only and name not in wanted:
            continue
        c, w = time.process_time(), time.perf_counter()
        if prof is not None:
            prof.enable()
        value = thunk()
        if prof is not None:
            prof.disable()
        c, w = time.process_time() - c, time.perf_counter() - w
        record["stages"][name] = {"cpu_s": c, "wall_s": w, "value": _summary(value)}
        print(f"{name:<14} CPU {c:8.2f} s   wall {w:8.2f} s", flush=True)
    record["total_cpu_s"] = time.process_time() - cpu0
    record["total_wall_s"] = time.perf_counter() - wall0
    record["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"{'total':<14} CPU {record['total_cpu_s']:8.2f} s   wall "
          f"{record['total_wall_s']:8.2f} s   peak RSS {record['max_rss_mib']:.0f} MiB")
    if prof is not None:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
        text = buf.getvalue()
        print(text[text.find("ncalls") - 2:])
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
