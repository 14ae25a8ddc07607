"""Rule simref_nu_sweep: simulated references under t_s(nu) for a range of nu (Fig. 5)."""

import logging

import numpy as np
import pandas as pd

from uqval import simref
from uqval._internal.atomic import write_csv
from uqval.pipeline.scripting import run_logged


def main(smk):
    cfg = smk.params.settings
    tables = []
    for number, path in zip(smk.params.sets, smk.input.tables, strict=True):
        t = pd.read_csv(path)
        seeds = np.random.SeedSequence([smk.params.seed, number]).spawn(len(cfg["nu_sweep"]))
        for nu, seed in zip(cfg["nu_sweep"], seeds, strict=True):
            sens = simref.reference_sensitivity(t["E"], t["uE"], ("t", nu), cfg["n_mc"], seed,
                                                n_bins=cfg["sensitivity_bins"])
            tables.append(sens.assign(set=number))
            logging.info("set %d, nu = %g done", number, nu)
    write_csv(pd.concat(tables, ignore_index=True), smk.output.sweep)


run_logged(snakemake, main)  # noqa: F821
