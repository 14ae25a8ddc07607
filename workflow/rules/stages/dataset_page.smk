"""Dataset pages: results/datasets/<id>/ for each selected dataset, their index, and the
`validate` target. A dataset with uE is validated by dataset_engine, beside its simulated
references, screening and UCC gain; dataset_page then inserts their tables.

`snakemake --cores 2 validate --config datasets=<id>` builds only the jobs of that dataset.
"""


rule dataset_engine:
    input:
        table="data/prepared/{dataset}.csv",
        report="data/prepared/{dataset}.json",
        library=LIBRARY,
    output:
        engine=directory("results/engine/{dataset}"),
    log:
        "logs/datasets/engine/{dataset}.log",
    benchmark:
        "results/benchmarks/datasets/engine/{dataset}.tsv"
    wildcard_constraints:
        dataset=_alternation(SOURCE_IDS),
    priority: 1
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        seed=lambda wc: dataset_seed("dataset_page", wc.dataset),
        n_boot=ANALYSIS["validate"]["n_boot"],
        n_bins=ANALYSIS["validate"]["n_bins"],
        n_permutations=ANALYSIS["validate"].get("n_permutations"),
    script:
        "../../../scripts/dataset_engine.py"


rule dataset_page:
    input:
        unpack(dataset_page_inputs),
        library=LIBRARY,
    output:
        page=directory("results/datasets/{dataset}"),
    log:
        "logs/datasets/{dataset}.log",
    benchmark:
        "results/benchmarks/datasets/{dataset}.tsv"
    wildcard_constraints:
        dataset=_alternation(SOURCE_IDS),
    conda:
        "../../../envs/uqval.yaml"
    threads: lambda wc: 1 if validated_by_engine(wc.dataset) else 2
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        seed=lambda wc: dataset_seed("dataset_page", wc.dataset),
        n_boot=ANALYSIS["validate"]["n_boot"],
        n_bins=ANALYSIS["validate"]["n_bins"],
        n_permutations=ANALYSIS["validate"].get("n_permutations"),
    script:
        "../../../scripts/dataset_page.py"


rule datasets_index:
    input:
        pages=expand("results/datasets/{dataset}", dataset=DATASETS),
        library=LIBRARY,
    output:
        index="results/datasets/index.html",
    log:
        "logs/datasets/index.log",
    localrule: True
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../../scripts/datasets_index.py"


rule validate:
    input:
        rules.datasets_index.output.index,
    localrule: True
