"""Rule average_calibration: ZMS/RCE tests (full and trimmed) and decimation of one dataset."""

import logging

import pandas as pd

from uqval._internal.atomic import write_csv, write_json
from uqval.calibration.average import average_calibration, decimation
from uqval.pipeline.scripting import run_logged


def main(smk):
    table = pd.read_csv(smk.input.table)
    E, uE = table["E"].to_numpy(), table["uE"].to_numpy()
    result = average_calibration(
        E, uE, n_boot=smk.params.n_boot, seed=smk.params.seed,
        confidence=smk.params.confidence, trimmed_fraction=smk.params.trimmed_fraction,
    )
    for test in result.full:
        logging.info("%s = %.4g, BCa [%.4g, %.4g], zeta %.3g", test.statistic, test.estimate,
                     test.ci_low, test.ci_high, test.zeta)
    write_json({"dataset": smk.wildcards.dataset, "n_boot": smk.params.n_boot, **result.as_dict()},
               smk.output.summary)
    dec = smk.params.decimation
    write_csv(decimation(E, uE, dec["max_percent"], dec["step"]), smk.output.decimation)


run_logged(snakemake, main)  # noqa: F821
