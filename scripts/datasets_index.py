"""Rule datasets_index: results/datasets/index.html, one row per dataset page present.

The pages of this run's datasets are inputs; pages that earlier runs built for other
datasets (``--config datasets=...``) stay listed as long as their page.json is there.
"""

import os

from uqval._internal.atomic import write_atomic
from uqval.pipeline.dataset_page import pages_index, pages_present
from uqval.pipeline.scripting import run_logged


def main(smk):
    root = os.path.dirname(smk.output.index)
    pages = [os.path.join(d, "page.json") for d in smk.input.pages]
    text = pages_index(pages_present(root, pages), root)
    write_atomic(smk.output.index, lambda fh: fh.write(text))


run_logged(snakemake, main)  # noqa: F821
