"""Rule simref_references: the simulated values of the statistics of one dataset under one
generative distribution (N or T), one row per statistic, for rule simref_set."""

import logging

import numpy as np
import pandas as pd

from uqval import simref
from uqval._internal.atomic import atomic_path
from uqval.pipeline.scripting import run_logged
from uqval.pipeline.workflow_config import simref_plan


def main(smk):
    uE = pd.read_csv(smk.input.table, usecols=["uE"])["uE"].to_numpy()
    plan = simref_plan(smk.params.settings, len(uE), smk.params.seed)
    stats, distribution, seed = plan.simulated(smk.wildcards.dist)
    refs = simref.simulated_references(uE, stats, distribution, plan.counts.n_mc, seed,
                                       n_workers=smk.threads)
    with atomic_path(smk.output.values) as tmp, tmp.open("wb") as out:
        np.save(out, np.stack([r.values for r in refs]), allow_pickle=False)
    logging.info("%s: %d statistics x %d simulated sets (%s)", smk.wildcards.dist, len(stats),
                 plan.counts.n_mc, ", ".join(s.label for s in stats))


run_logged(snakemake, main)  # noqa: F821
