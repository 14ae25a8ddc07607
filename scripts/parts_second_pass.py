"""Rule parts_second_pass: pass B of one part (uqval.pipeline.parts.second_pass): per-bin
sums at the plan's bins, centred sums, tail values."""

import logging

from threadpoolctl import threadpool_limits

from uqval.pipeline.parts import second_pass
from uqval.pipeline.scripting import run_logged


def main(smk):
    with threadpool_limits(limits=1, user_api="blas"):
        second_pass(smk.input.plan, smk.input.first, smk.input.part, smk.params.columns,
                    out=smk.output.second)
    logging.info("%s: second pass of %s", smk.wildcards.dataset, smk.input.part)


run_logged(snakemake, main)  # noqa: F821
