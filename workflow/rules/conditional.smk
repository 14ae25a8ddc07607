"""Conditional: the validation flowchart (average -> consistency -> adaptivity) per dataset,
and the adaptivity paper's random-order test."""


rule validate_dataset:
    input:
        table="data/prepared/{dataset}.csv",
        report="data/prepared/{dataset}.json",
    output:
        checks="results/validate/{dataset}.csv",
        summary=report(
            "results/validate/{dataset}.md",
            caption="../report/validate.rst",
            category="validation",
            subcategory="{dataset}",
        ),
    log:
        "logs/validate/{dataset}.log",
    benchmark:
        "results/benchmarks/validate/{dataset}.tsv"
    conda:
        "../../envs/uqval.yaml"
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
        "../../scripts/validate_dataset.py"


rule verdicts_table:
    input:
        checks=expand("results/validate/{dataset}.csv", dataset=DATASETS),
    output:
        table=report(
            "results/tables/verdicts.csv",
            caption="../report/verdicts.rst",
            category="validation",
        ),
    log:
        "logs/verdicts_table.log",
    localrule: True
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        datasets=DATASETS,
    script:
        "../../scripts/verdicts_table.py"


rule adaptivity_random_order_chunk:
    input:
        table=f"data/prepared/{ADAPT_PAPER['dataset']}.csv",
    output:
        perms=f"{AD}/random_order/{{variable}}_{{chunk}}.csv",
    log:
        f"logs/adaptivity/random_order/{{variable}}_{{chunk}}.log",
    benchmark:
        f"results/benchmarks/adaptivity/random_order/{{variable}}_{{chunk}}.tsv"
    wildcard_constraints:
        variable="|".join(ADAPT_VARIABLES),
        chunk=r"\d+",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        n_bins=ADAPT["n_bins"],
        n_boot_min=ADAPT["n_boot_min"],
        permutations=lambda wc: list(
            range(
                int(wc.chunk) * ADAPT["perms_per_job"],
                min((int(wc.chunk) + 1) * ADAPT["perms_per_job"], ADAPT["n_perm"]),
            )
        ),
        seed=lambda wc: dataset_seed("adaptivity_random_order", wc.variable),
    script:
        "../../scripts/adaptivity_random_order_chunk.py"
