"""Rule simref_bootstrap: the z-score summary and the BCa intervals I_BS of the simref
statistics on one dataset (no simulated set needed: this job runs beside the simulations)."""

import logging

import pandas as pd

from uqval import simref
from uqval._internal.atomic import write_json
from uqval.papers.simref import statistics as paper_stats
from uqval.pipeline.scripting import run_logged
from uqval.pipeline.workflow_config import simref_plan
from uqval.stats.bootstrap_io import result_to_dict


def main(smk):
    t = pd.read_csv(smk.input.table, usecols=["E", "uE"])
    E, uE = t["E"].to_numpy(), t["uE"].to_numpy()
    plan = simref_plan(smk.params.settings, len(E), smk.params.seed)
    counts = plan.counts
    s_summary, _, _, _, s_boot = plan.children()
    summary = paper_stats.zscore_summary(E, uE, n_boot=counts.n_boot, seed=s_summary)
    intervals = {}
    for stat, seed in zip(plan.zeta, s_boot.spawn(len(plan.zeta)), strict=True):
        bs = simref.validation_bootstrap(E, uE, stat, n_boot=counts.n_boot, seed=seed,
                                         jackknife_groups=counts.jackknife_groups,
                                         n_workers=smk.threads)
        intervals[stat.label] = None if bs is None else result_to_dict(bs)
        logging.info("%s: I_BS %s", stat.label, "not testable" if bs is None else
                     f"[{bs.ci_low:.4g}, {bs.ci_high:.4g}]")
    write_json({"zscores": summary, "intervals": intervals}, smk.output.intervals)


run_logged(snakemake, main)  # noqa: F821
