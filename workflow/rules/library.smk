"""Library fingerprint: the content of src/uqval as an input of every job whose script imports
uqval, so that a change of the library re-runs those jobs and never passes on stale results.

Snakemake's code trigger follows a rule's `script:` file, not the modules the script imports.
When the Snakefile is parsed, the SHA-256 of every library file is listed (`sha256sum` format,
paths relative to src/) in results/library/uqval.sha256, and the file is rewritten only when
the listing differs from its content. It is an input of those jobs and no rule makes it, so
Snakemake compares its modification time with their outputs: a real change of the library
re-runs them, a touched or re-checked-out file with the same content re-runs nothing. This
needs no Snakemake metadata and holds whatever --rerun-triggers says. See docs/choices.md,
"Library changes re-run the jobs that use it".

fetch_raw_file alone does not take it: its output is pinned by its SHA-256 (ensure), so no
library change can alter it.
"""

# Input `library=LIBRARY` of every rule whose script imports uqval.
LIBRARY = "results/library/uqval.sha256"
write_if_changed(LIBRARY, library_listing(f"{UQVAL_DIR}/src/uqval"))
