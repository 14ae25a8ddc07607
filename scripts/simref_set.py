"""Rule simref_set: z-score summary, simulated references, zeta schemes, ZMSE extrapolation."""

import logging

import numpy as np
import pandas as pd

from uqval import simref
from uqval._internal.atomic import write_csv, write_json
from uqval.papers.simref import statistics as paper_stats
from uqval.pipeline.scripting import run_logged
from uqval.pipeline.workflow_config import simref_counts


def main(smk):
    cfg, out = smk.params.settings, smk.output
    t = pd.read_csv(smk.input.table)
    E, uE = t["E"].to_numpy(), t["uE"].to_numpy()
    counts = simref_counts(cfg, len(E))
    logging.info("M = %d: %s", len(E), counts.describe())
    # child 1 drew the sensitivity sets, now the N sets' (one simulation per distribution)
    s_summary, _, s_N, s_T, s_boot = np.random.SeedSequence(smk.params.seed).spawn(5)
    workers = smk.threads
    summary = paper_stats.zscore_summary(E, uE, n_boot=counts.n_boot, seed=s_summary)
    stats = [simref.as_statistic(s, cfg["zeta_bins"]) for s in ("ZMS", "CC", "ENCE", "ZMSE")]
    sens_stats = simref.sensitivity_statistics(cfg["sensitivity_bins"])
    n_stats = stats + [s for s in sens_stats if s not in stats]
    ref_n = simref.simulated_references(uE, n_stats, "normal", counts.n_mc, s_N, n_workers=workers)
    sens_refs = [ref_n[n_stats.index(s)] for s in sens_stats]
    write_csv(simref.reference_table(E, uE, sens_stats, sens_refs), out.sensitivity)
    logging.info("simulated references (N, %d and %d bins) done", cfg["zeta_bins"], cfg["sensitivity_bins"])
    refs = {
        "N": ref_n[: len(stats)],
        "T": simref.simulated_references(uE, stats, ("t", cfg["t_nu"]), counts.n_mc, s_T, n_workers=workers),
    }
    rows = []
    for i, (stat, seed) in enumerate(zip(stats, s_boot.spawn(len(stats)), strict=True)):
        v = simref.validate_statistic(
            E, uE, stat, n_boot=counts.n_boot, n_mc=counts.n_mc, t_nu=cfg["t_nu"], seed=seed,
            all_schemes=True, references={k: r[i] for k, r in refs.items()},
            jackknife_groups=counts.jackknife_groups, n_workers=workers,
        )
        rows.append(v.as_row())
        logging.info("%s: %s (%s)", stat.name, v.verdict, v.reason)
    write_csv(pd.DataFrame(rows), out.zeta)
    x = cfg["extrapolation"]
    n_values = range(x["n_min"], x["n_max"] + 1, x["n_step"])
    # App. C needs more than fit_min_n bins of min_per_bin points: M > 3 * 20 * 20 or so.
    if len(uE) // x["min_per_bin"] > x["fit_min_n"] + 2 * x["n_step"]:
        ext = paper_stats.zmse_extrapolation(E, uE, n_values, x["min_per_bin"], x["fit_min_n"])
        write_csv(ext.table, out.extrapolation)
        extrapolation = {"intercept": ext.fit.intercept, "slope": ext.fit.slope, "ci_low": ext.ci_low,
                         "ci_high": ext.ci_high, "consistent": ext.consistent}
    else:
        logging.warning("ZMSE extrapolation skipped: M = %d is too small for bins of %d points "
                        "beyond N = %d", len(uE), x["min_per_bin"], x["fit_min_n"])
        write_csv(pd.DataFrame(columns=["N", "min_bin", "x", "ZMSE", "in_fit"]), out.extrapolation)
        extrapolation = {}
    write_json({"dataset": smk.wildcards.dataset, "zscores": summary, "extrapolation": extrapolation,
                "monte_carlo": {"n_mc": counts.n_mc, "n_boot": counts.n_boot,
                                "jackknife_groups": counts.jackknife_groups,
                                "description": counts.describe()}},
               out.summary)


run_logged(snakemake, main)  # noqa: F821
