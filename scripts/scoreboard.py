"""Rule scoreboard: compare printed paper values with computed ones."""

import logging

from uqval._internal.atomic import write_atomic, write_csv
from uqval.pipeline.scoreboard import compare, load_expected, load_values, summary
from uqval.pipeline.scripting import run_logged


def main(smk):
    board = compare(
        load_expected(smk.input.expected, smk.input.schema),
        load_values(smk.input.values),
        fidelity=smk.params.fidelity,
    )
    text = summary(board)
    write_csv(board, smk.output.board)
    write_atomic(smk.output.summary, lambda fh: fh.write(text + "\n"))
    for line in text.splitlines():
        logging.info("%s", line)


run_logged(snakemake, main)  # noqa: F821
