"""uqval: validation of ML uncertainty quantification, reproducing five papers.

`snakemake --cores 8` rebuilds every result available from the configured datasets.
"""

import os

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "config/schema/config.schema.yaml")

# Scripts import the library from this checkout, whichever environment (conda or not, local or
# cluster node, where the Snakefile is parsed again) runs them.
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        p for p in (f"{workflow.basedir}/src", os.environ.get("PYTHONPATH", "")) if p
    )
)


include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/screen.smk"
include: "workflow/rules/average.smk"
include: "workflow/rules/conditional.smk"
include: "workflow/rules/simref.smk"
include: "workflow/rules/ucc.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        PAPER_OUTPUTS,
        rules.scoreboard.output.board,
        rules.runtime_table.output.table,
        rules.gallery.output.index,
