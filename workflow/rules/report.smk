"""Report: reproduction scoreboard, runtime table and the static gallery results/index.html.

`snakemake --report results/report.html` builds Snakemake's own report from the same
report()-tagged outputs and captions.
"""

# Every result of the papers and per-dataset diagnostics (the `all` target builds these plus
# the scoreboard, the runtime table and the gallery).
PAPER_OUTPUTS = [
    rules.datasets_table.output.table,
    *HEAVYTAILS_OUTPUTS,
    *PRIMER_OUTPUTS,
    *ADAPTIVITY_OUTPUTS,
    rules.verdicts_table.output,
    *SIMREF_OUTPUTS,
    *UCC_OUTPUTS,
    expand("results/screen/{dataset}.json", dataset=UNCERTAINTY_DATASETS),
    expand("results/average/{dataset}.json", dataset=UNCERTAINTY_DATASETS),
    expand("results/validate/{dataset}.md", dataset=BAND_DATASETS),
]


# Benchmark files of the jobs runtime_table waits for. The dataset pages are left out: `all`
# builds them beside runtime_table, not before it, so counting them would depend on job order.
BENCHMARK_PATTERNS = {
    r.name: str(r.benchmark)
    for r in workflow.rules
    if r.benchmark is not None and r is not rules.dataset_page.rule
}


rule scoreboard:
    input:
        values=VALUE_TABLES,
        expected=sorted(glob.glob(f"{EXPECTED_DIR}/*.yaml")),
        schema=f"{UQVAL_DIR}/config/schema/expected.schema.yaml",
        library=LIBRARY,
    output:
        board=report(
            "results/reproduction.csv",
            caption="../report/reproduction.rst",
            category="Reproduction",
        ),
        summary="results/reproduction_summary.txt",
    log:
        "logs/scoreboard.log",
    localrule: True
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        fidelity=config["profile"],
    script:
        "../../scripts/scoreboard.py"


rule runtime_table:
    input:
        # Everything that writes a benchmark file runs before this rule.
        PAPER_OUTPUTS,
        library=LIBRARY,
    output:
        table=report(
            "results/tables/runtimes.csv",
            caption="../report/runtimes.rst",
            category="Runtime",
        ),
    log:
        "logs/runtime_table.log",
    localrule: True
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        patterns=BENCHMARK_PATTERNS,
        benchmark_dir="results/benchmarks",
    script:
        "../../scripts/runtime_table.py"


rule gallery:
    input:
        PAPER_OUTPUTS,
        board=rules.scoreboard.output.board,
        summary=rules.scoreboard.output.summary,
        runtimes=rules.runtime_table.output.table,
        captions=sorted(glob.glob(f"{UQVAL_DIR}/workflow/report/*.rst")),
        pages=expand("results/datasets/{dataset}", dataset=USER_DATASETS),
        library=LIBRARY,
    output:
        index="results/index.html",
    log:
        "logs/gallery.log",
    localrule: True
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        gallery_items=gallery_items(
            PAPER_OUTPUTS
            + [rules.scoreboard.output.board, rules.runtime_table.output.table],
            hidden_inputs=[LIBRARY],
        ),
        captions_dir=lambda w, input: os.path.dirname(input.captions[0]),
        datasets=DATASETS,
        profile=config["profile"],
        dataset_reports=expand("results/validate/{dataset}.md", dataset=BAND_DATASETS),
        dataset_pages=expand(
            "results/datasets/{dataset}/page.json", dataset=USER_DATASETS
        ),
    script:
        "../../scripts/gallery.py"
