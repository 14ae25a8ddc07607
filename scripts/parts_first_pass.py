"""Rule parts_first_pass: pass A of one part (uqval.pipeline.parts.first_pass): row count,
exact sums, Poisson-bootstrap sums, Z^2 histogram and subsample candidates."""

import logging

from threadpoolctl import threadpool_limits

from uqval.pipeline.parts import first_pass
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params
    with threadpool_limits(limits=1, user_api="blas"):
        first_pass(smk.input.index, int(smk.wildcards.k), smk.input.part, p.columns,
                   seed=p.seed, n_boot=p.n_boot, out=smk.output.first)
    logging.info("%s: first pass of %s", smk.wildcards.dataset, smk.input.part)


run_logged(snakemake, main)  # noqa: F821
