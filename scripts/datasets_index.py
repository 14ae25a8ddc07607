"""Rule datasets_index: results/datasets/index.html, one row per dataset page."""

import os

from uqval._internal.atomic import write_atomic
from uqval.pipeline.dataset_page import pages_index
from uqval.pipeline.scripting import run_logged


def main(smk):
    pages = [os.path.join(d, "page.json") for d in smk.input.pages]
    text = pages_index(pages, os.path.dirname(smk.output.index))
    write_atomic(smk.output.index, lambda fh: fh.write(text))


run_logged(snakemake, main)  # noqa: F821
