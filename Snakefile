"""uqval: validation of ML uncertainty quantification, reproducing five papers.

`snakemake --cores 8` rebuilds every result available from the configured datasets;
`snakemake --cores 2 validate --config datasets=<id>` builds the page of one dataset.
Usable as a Snakemake module (`module uqval: snakefile: ...; config: config`): every path of
the workflow itself is taken from this file's folder, data and results from the working
directory.
"""

import os
import sys

from snakemake.utils import min_version, validate

min_version("9.0")


# This checkout (workflow.basedir is the host's folder when used as a module).
UQVAL_DIR = str(workflow.current_basedir)
AS_MODULE = os.path.realpath(workflow.basedir) != os.path.realpath(UQVAL_DIR)


configfile: f"{UQVAL_DIR}/config/config.yaml"


sys.path.insert(0, f"{UQVAL_DIR}/src")

from uqval.pipeline.workflow_config import effective_config  # noqa: E402

# As a module, Snakemake skips configfile: and passes the host's config: start from ours.
config = effective_config(
    config,
    f"{UQVAL_DIR}/config/config.yaml",
    f"{UQVAL_DIR}/config/schema/config.schema.yaml",
    AS_MODULE,
)


validate(config, "config/schema/config.schema.yaml")

# Scripts import the library from this checkout, whichever environment (conda or not, local or
# cluster node, where the Snakefile is parsed again) runs them.
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        p for p in (f"{UQVAL_DIR}/src", os.environ.get("PYTHONPATH", "")) if p
    )
)


# Shared state and helpers, then the library fingerprint (an input of every job whose script
# imports uqval: a library change re-runs them), one file per per-dataset stage, one file per
# paper (its rules, settings and outputs), and the scoreboard, runtime table and gallery.
include: "workflow/rules/common.smk"
include: "workflow/rules/library.smk"
include: "workflow/rules/stages/fetch.smk"
include: "workflow/rules/stages/prepare.smk"
include: "workflow/rules/stages/screen.smk"
include: "workflow/rules/stages/average.smk"
include: "workflow/rules/stages/validate.smk"
include: "workflow/rules/stages/simref.smk"
include: "workflow/rules/stages/ucc.smk"
include: "workflow/rules/stages/parts.smk"
include: "workflow/rules/stages/dataset_page.smk"
include: "workflow/rules/papers/heavytails.smk"
include: "workflow/rules/papers/primer.smk"
include: "workflow/rules/papers/adaptivity.smk"
include: "workflow/rules/papers/simref.smk"
include: "workflow/rules/papers/ucc.smk"
include: "workflow/rules/report.smk"


# Cheap jobs (fetch, aggregation, gallery, report) are `localrule: True`: Snakemake runs them
# itself instead of submitting them to a cluster (compute nodes are often offline, and a
# sub-minute job waits longer in the queue than it runs). Per rule, so that it also holds when
# this workflow is used as a module (a `localrules:` list would name the unprefixed rules).


rule all:
    # A host workflow using this one as a module keeps its own default target.
    default_target: not AS_MODULE
    input:
        PAPER_OUTPUTS,
        rules.scoreboard.output.board,
        rules.runtime_table.output.table,
        rules.gallery.output.index,
    localrule: True


onsuccess:
    if os.path.exists("results/index.html"):
        print(
            "uqval: done. Open results/index.html (gallery: your datasets and the papers); "
            "scoreboard summary: results/reproduction_summary.txt"
        )
    if os.path.exists("results/datasets/index.html"):
        print(
            "uqval: dataset pages: results/datasets/index.html "
            "(one page each: results/datasets/<id>/index.html)"
        )


onerror:
    print(
        "uqval: the run failed. The failing job's log is printed above (its path is the 'log:' "
        f"line of the error, under logs/); Snakemake's own log of this run: {log}"
    )
