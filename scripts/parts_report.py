"""Rule parts_report: the page results/datasets/<id>/ of a dataset given as parts, from the
files of both passes (uqval.pipeline.parts.parts_result, uqval.pipeline.dataset_page.parts_page)."""

import json
import logging
from pathlib import Path

from threadpoolctl import threadpool_limits

from uqval.pipeline.dataset_page import parts_page
from uqval.pipeline.parts import parts_result
from uqval.pipeline.scripting import run_logged


def main(smk):
    inp, p = smk.input, smk.params
    # BLAS on one thread, as the command line: sums that do not depend on the cores given
    with threadpool_limits(limits=1, user_api="blas"):
        result = parts_result(inp.index, list(inp.first), list(inp.second), p.columns,
                              seed=p.seed, n_boot=p.n_boot, n_bins=p.n_bins,
                              n_permutations=p.n_permutations, n_workers=smk.threads)
        index = json.loads(Path(inp.index).read_text(encoding="utf-8"))
        page = parts_page(result, p.spec, index, smk.output.page)
    logging.info("%s: %s", page["id"], page["stage_verdicts"])


run_logged(snakemake, main)  # noqa: F821
