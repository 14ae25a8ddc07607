"""Library fingerprint: the content of src/uqval as an input of every job whose script imports
uqval, so that a change of the library re-runs those jobs and never passes on stale results.

Snakemake's code trigger follows a rule's `script:` file, not the modules the script imports.
Here the SHA-256 of every library file is taken when the Snakefile is parsed; the digest names
the output of the local rule `library_fingerprint`, results/library/uqval-<digest>.sha256
(a `sha256sum` listing of src/). A changed byte gives a new name: that output is missing, the
rule runs and every job that takes it as input runs after it. An unchanged library (a touched
or re-checked-out file, a new checkout elsewhere) keeps the name, and nothing re-runs. This
works from file existence alone (no Snakemake metadata, any --rerun-triggers). See
docs/choices.md, "Library changes re-run the jobs that use it".

fetch_raw_file alone does not take it: its output is pinned by its SHA-256 (ensure), so no
library change can alter it.
"""

LIBRARY_LISTING = library_listing(f"{UQVAL_DIR}/src/uqval")
LIBRARY_DIGEST = hashlib.sha256("\n".join(LIBRARY_LISTING).encode()).hexdigest()
# Input `library=LIBRARY` of every rule whose script imports uqval.
LIBRARY = f"results/library/uqval-{LIBRARY_DIGEST[:16]}.sha256"


rule library_fingerprint:
    output:
        listing=LIBRARY,
    log:
        "logs/library_fingerprint.log",
    localrule: True
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=200,
        runtime=1,
    params:
        listing=LIBRARY_LISTING,
    script:
        "../../scripts/library_fingerprint.py"
