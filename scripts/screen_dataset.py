"""Rule screen_dataset: robust skewness verdicts and shape fits of one dataset."""

import logging

import pandas as pd

from uqval._internal.atomic import write_json
from uqval.calibration.screening import SkewnessLimits, screen, shape_fits
from uqval.pipeline.scripting import run_logged


def main(smk):
    table = pd.read_csv(smk.input.table)
    E, uE = table["E"].to_numpy(), table["uE"].to_numpy()
    screening = screen(E, uE, SkewnessLimits(**smk.params.limits))
    fits = shape_fits(E, uE)
    for reason in screening.reasons:
        logging.info("%s", reason)
    write_json({"dataset": smk.wildcards.dataset, **screening.as_dict(), "fits": fits}, smk.output.summary)


run_logged(snakemake, main)  # noqa: F821
