"""Validate: the validation flowchart (average -> consistency -> adaptivity) per dataset, and
the table of every dataset's verdicts."""


rule validate_dataset:
    input:
        table="data/prepared/{dataset}.csv",
        report="data/prepared/{dataset}.json",
        library=LIBRARY,
    output:
        checks="results/validate/{dataset}.csv",
        summary=report(
            "results/validate/{dataset}.md",
            caption="../../report/validate.rst",
            category="validation",
            subcategory="{dataset}",
        ),
    log:
        "logs/validate/{dataset}.log",
    benchmark:
        "results/benchmarks/validate/{dataset}.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        features=dataset_features,
        levels=dataset_levels,
        n_boot=ANALYSIS["bootstrap"]["n_boot"],
        n_bins=ANALYSIS["validate"]["n_bins"],
        limits=ANALYSIS["screening"]["limits"],
        seed=lambda wc: dataset_seed("validate", wc.dataset),
    script:
        "../../../scripts/validate_dataset.py"


rule verdicts_table:
    input:
        checks=expand("results/validate/{dataset}.csv", dataset=BAND_DATASETS),
        library=LIBRARY,
    output:
        table=report(
            "results/tables/verdicts.csv",
            caption="../../report/verdicts.rst",
            category="validation",
        ),
    log:
        "logs/verdicts_table.log",
    localrule: True
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        datasets=BAND_DATASETS,
    script:
        "../../../scripts/verdicts_table.py"
