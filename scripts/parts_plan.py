"""Rule parts_plan: the combination of every part's first pass, the bins of the second pass
(uqval.pipeline.parts.write_plan)."""

import logging

from threadpoolctl import threadpool_limits

from uqval.pipeline.parts import write_plan
from uqval.pipeline.scripting import run_logged


def main(smk):
    with threadpool_limits(limits=1, user_api="blas"):
        write_plan(smk.input.index, list(smk.input.first), smk.params.columns,
                   n_bins=smk.params.n_bins, out=smk.output.plan)
    logging.info("%s: plan of %d parts", smk.wildcards.dataset, len(smk.input.first))


run_logged(snakemake, main)  # noqa: F821
