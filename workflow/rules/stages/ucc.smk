"""UCC: AUUCC gain of each dataset's uncertainties over a constant band (Uncertainty
Characteristics Curves)."""


rule ucc_dataset:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        gains=f"{UC}/datasets/{{dataset}}.csv",
    log:
        "logs/ucc/{dataset}.log",
    benchmark:
        "results/benchmarks/ucc/{dataset}.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        n_permutations=ANALYSIS["ucc"]["n_permutations"],
        seed=lambda wc: dataset_seed("ucc", wc.dataset) % 2**31,
    script:
        "../../../scripts/ucc_dataset.py"
