"""Rule fetch_raw_file: copy from a mirror or download, verifying the SHA-256."""

import logging

from uqval.pipeline.fetch import fetch_file
from uqval.pipeline.scripting import run_logged


def main(smk):
    result = fetch_file(
        smk.params.entry,
        smk.output[0],
        mirrors=smk.params.mirrors,
        timeout=smk.params.timeout_s,
        attempts=smk.params.attempts,
    )
    logging.info("%s from %s, sha256 %s verified", smk.output[0], result.source, result.sha256)


run_logged(snakemake, main)  # noqa: F821
