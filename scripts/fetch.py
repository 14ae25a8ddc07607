"""Rule fetch_raw_file: copy from a mirror or download, verifying the SHA-256."""

import logging

from uqval.pipeline.fetch import configured_mirrors, fetch_file
from uqval.pipeline.registry import RegisteredFile
from uqval.pipeline.scripting import run_logged


def main(smk):
    # Mirrors come from the configuration, not from params: where the data was copied from
    # does not change a file pinned by its SHA-256, so a new mirror path triggers no rebuild.
    result = fetch_file(
        RegisteredFile(**smk.params.entry),
        smk.output[0],
        mirrors=configured_mirrors(smk.config.get("data_mirror")),
        timeout=smk.params.timeout_s,
        attempts=smk.params.attempts,
        data_root=smk.params.data_root,
    )
    logging.info("%s from %s, sha256 %s verified", smk.output[0], result.source, result.sha256)


run_logged(snakemake, main)  # noqa: F821
