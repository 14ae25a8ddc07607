"""Rule library_fingerprint: write the SHA-256 listing of the library files (taken when the
Snakefile was parsed) and remove the listings of earlier library versions.

Imports nothing from uqval: this job must not depend on the library it fingerprints.
"""

import logging
from pathlib import Path


def main(smk):
    out = Path(smk.output.listing)
    out.write_text("".join(f"{line}\n" for line in smk.params.listing), encoding="utf-8")
    for old in sorted(out.parent.glob("uqval-*.sha256")):
        if old != out:
            old.unlink()
            logging.info("removed %s (an earlier library version)", old)
    logging.info("%s: %d files of src/uqval", out, len(smk.params.listing))


logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(message)s")  # noqa: F821
main(snakemake)  # noqa: F821
