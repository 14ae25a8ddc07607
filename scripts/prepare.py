"""Rule prepare_dataset: raw files -> tidy table + JSON sidecar with filter counts."""

import logging

from uqval._internal.atomic import write_csv, write_json
from uqval.pipeline.prepare import check_enough_rows, prepare_dataset
from uqval.pipeline.registry import DatasetSpec
from uqval.pipeline.scripting import run_logged


def main(smk):
    prepared = prepare_dataset(DatasetSpec(**smk.params.spec), smk.params.data_root)
    check_enough_rows(prepared)
    for f in prepared.report["filters"]:
        logging.info("filter %s (%s): removed %d, %d left", f["name"], f["description"], f["removed"], f["remaining"])
    write_csv(prepared.table, smk.output.table, float_format="%.17g")
    write_json(prepared.report, smk.output.report)
    prepared.confirm_written([smk.output.table, smk.output.report])  # no source edited meanwhile
    logging.info("%s: M = %d of %d raw rows", prepared.report["id"], prepared.report["M"], prepared.report["n_raw"])


run_logged(snakemake, main)  # noqa: F821
