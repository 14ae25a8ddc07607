"""Datasets given as parts (`parts:` in the dataset YAML, a folder or glob of Parquet files;
issue 41): the index of the parts, one first-pass job per part, the plan of the second pass,
one second-pass job per part, and the page results/datasets/<id>/ (rule parts_report).

The steps are those of uqval.validation.parts.validate_parts, each written to a file
(uqval.pipeline.parts), so the page holds the numbers of `uqval validate FOLDER/` with the
same settings. The per-part jobs are independent SLURM jobs (one part in memory each). The
page has the engine's report only: the simulated references, heavy-tail screening, UCC gain
and flowchart need the whole table in memory and are not run for such a dataset.
"""


rule parts_index:
    input:
        parts=lambda wc: PARTS_FILES[wc.dataset],
        library=LIBRARY,
    output:
        index="results/parts/{dataset}/index.json",
    log:
        "logs/parts/{dataset}/index.log",
    wildcard_constraints:
        dataset=PARTS_CONSTRAINT,
    localrule: True
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=10,
    params:
        source=lambda wc: REGISTRY.get(wc.dataset).parts,
        files=lambda wc: PARTS_FILES[wc.dataset],
        subsample=PARTS_SUBSAMPLE,
    script:
        "../../../scripts/parts_index.py"


rule parts_first_pass:
    input:
        part=parts_file,
        index=rules.parts_index.output.index,
        library=LIBRARY,
    output:
        first="results/parts/{dataset}/first/{k}.npz",
    log:
        "logs/parts/{dataset}/first/{k}.log",
    benchmark:
        "results/benchmarks/parts/{dataset}/first/{k}.tsv"
    wildcard_constraints:
        dataset=PARTS_CONSTRAINT,
        k=r"\d+",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        columns=parts_columns_param,
        seed=lambda wc: dataset_seed("dataset_page", wc.dataset),
        n_boot=ANALYSIS["validate"]["n_boot"],
    script:
        "../../../scripts/parts_first_pass.py"


rule parts_plan:
    input:
        first=parts_outputs("first"),
        index=rules.parts_index.output.index,
        library=LIBRARY,
    output:
        plan="results/parts/{dataset}/plan.npz",
    log:
        "logs/parts/{dataset}/plan.log",
    benchmark:
        "results/benchmarks/parts/{dataset}/plan.tsv"
    wildcard_constraints:
        dataset=PARTS_CONSTRAINT,
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        columns=parts_columns_param,
        n_bins=ANALYSIS["validate"]["n_bins"],
    script:
        "../../../scripts/parts_plan.py"


rule parts_second_pass:
    input:
        part=parts_file,
        first="results/parts/{dataset}/first/{k}.npz",
        plan=rules.parts_plan.output.plan,
        library=LIBRARY,
    output:
        second="results/parts/{dataset}/second/{k}.npz",
    log:
        "logs/parts/{dataset}/second/{k}.log",
    benchmark:
        "results/benchmarks/parts/{dataset}/second/{k}.tsv"
    wildcard_constraints:
        dataset=PARTS_CONSTRAINT,
        k=r"\d+",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        columns=parts_columns_param,
    script:
        "../../../scripts/parts_second_pass.py"


rule parts_report:
    input:
        first=parts_outputs("first"),
        second=parts_outputs("second"),
        index=rules.parts_index.output.index,
        library=LIBRARY,
    output:
        page=directory("results/datasets/{dataset}"),
    log:
        "logs/datasets/{dataset}.log",
    benchmark:
        "results/benchmarks/datasets/{dataset}.tsv"
    wildcard_constraints:
        dataset=PARTS_CONSTRAINT,
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        spec=dataset_spec,
        columns=parts_columns_param,
        seed=lambda wc: dataset_seed("dataset_page", wc.dataset),
        n_boot=ANALYSIS["validate"]["n_boot"],
        n_bins=ANALYSIS["validate"]["n_bins"],
        n_permutations=ANALYSIS["validate"].get("n_permutations"),
    script:
        "../../../scripts/parts_report.py"
