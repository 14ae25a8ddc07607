"""Rule simref_set: simulated references (rule simref_references) and bootstrap intervals
(rule simref_bootstrap) into the zeta schemes and verdicts; ZMSE extrapolation."""

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from uqval import simref
from uqval._internal.atomic import write_csv, write_json
from uqval.papers.simref import statistics as paper_stats
from uqval.pipeline.scripting import run_logged
from uqval.pipeline.workflow_config import simref_plan
from uqval.stats.bootstrap_io import result_from_dict


def main(smk):
    cfg, out = smk.params.settings, smk.output
    t = pd.read_csv(smk.input.table)
    E, uE = t["E"].to_numpy(), t["uE"].to_numpy()
    plan = simref_plan(cfg, len(E), smk.params.seed)
    counts, stats = plan.counts, plan.zeta
    logging.info("M = %d: %s", len(E), counts.describe())
    s_boot = plan.children()[4]
    workers = smk.threads
    boot = json.loads(Path(smk.input.intervals).read_text(encoding="utf-8"))  # rule simref_bootstrap
    summary = boot["zscores"]
    refs = {}  # the simulated values of rule simref_references, one row per statistic
    for dist, path in (("N", smk.input.values_N), ("T", smk.input.values_T)):
        simulated, distribution, _ = plan.simulated(dist)
        values = np.load(path, allow_pickle=False)
        if values.shape != (len(simulated), counts.n_mc):
            raise ValueError(f"{path}: shape {values.shape}, expected {(len(simulated), counts.n_mc)}")
        refs[dist] = [simref.reference_from_values(s, distribution, v) for s, v in zip(simulated, values, strict=True)]
    n_stats = plan.simulated("N")[0]
    sens_refs = [refs["N"][n_stats.index(s)] for s in plan.sensitivity]
    write_csv(simref.reference_table(E, uE, plan.sensitivity, sens_refs), out.sensitivity)
    refs["N"] = refs["N"][: len(stats)]
    rows = []
    for i, (stat, seed) in enumerate(zip(stats, s_boot.spawn(len(stats)), strict=True)):
        interval = boot["intervals"][stat.label]
        v = simref.validate_statistic(
            E, uE, stat, n_boot=counts.n_boot, n_mc=counts.n_mc, t_nu=cfg["t_nu"], seed=seed,
            all_schemes=True, references={k: r[i] for k, r in refs.items()},
            jackknife_groups=counts.jackknife_groups, n_workers=workers,
            bootstrap=None if interval is None else result_from_dict(interval),
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
