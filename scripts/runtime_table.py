"""Rule runtime_table: wall time, CPU time and memory per rule from the benchmark files."""

import logging
from pathlib import Path

from uqval._internal.atomic import write_csv
from uqval.pipeline.gallery import runtime_table
from uqval.pipeline.scripting import run_logged


def main(smk):
    files = sorted(Path(smk.params.benchmark_dir).rglob("*.tsv"))
    table = runtime_table(files, smk.params.patterns)
    write_csv(table, smk.output.table)
    logging.info("%d benchmark files, %d rules, %.0f s in all", len(files), len(table), table["total_s"].sum())


run_logged(snakemake, main)  # noqa: F821
