"""Rule parts_index: the parts of a dataset given as parts, their first rows and the share
of the key range whose rows are subsample candidates (uqval.pipeline.parts.write_index)."""

import logging

from uqval.pipeline.parts import write_index
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params
    write_index(p.source, list(p.files), p.subsample, smk.output.index)
    logging.info("%s: %d parts", smk.wildcards.dataset, len(p.files))


run_logged(snakemake, main)  # noqa: F821
