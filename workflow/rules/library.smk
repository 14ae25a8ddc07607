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

import hashlib


def _library_listing(package_dir):
    """`sha256sum` lines (digest, two spaces, path relative to src/) of every file of the
    package, sorted by path; caches (__pycache__, also numba's), hidden and backup files
    excluded."""
    src = os.path.dirname(package_dir)
    entries = []
    for folder, dirs, files in os.walk(package_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for name in files:
            if name.startswith((".", "#")) or name.endswith(("~", ".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            entries.append((os.path.relpath(path, src).replace(os.sep, "/"), digest))
    return [f"{digest}  {rel}" for rel, digest in sorted(entries)]


LIBRARY_LISTING = _library_listing(f"{UQVAL_DIR}/src/uqval")
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
