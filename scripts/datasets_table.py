"""Rule datasets_table: summary of prepared datasets and their sizes for the scoreboard."""

from uqval._internal.atomic import write_csv
from uqval.pipeline.datasets_summary import size_values, summarize_reports
from uqval.pipeline.scripting import run_logged


def main(smk):
    table = summarize_reports(smk.input.reports)
    write_csv(table, smk.output.table)
    write_csv(size_values(table), smk.output.values)


run_logged(snakemake, main)  # noqa: F821
