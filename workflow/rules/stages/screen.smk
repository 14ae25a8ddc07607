"""Screen: heavy-tail screening of each dataset (robust skewness, shape fits)."""


rule screen_dataset:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        summary="results/screen/{dataset}.json",
    log:
        "logs/screen/{dataset}.log",
    benchmark:
        "results/benchmarks/screen/{dataset}.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
    script:
        "../../../scripts/screen_dataset.py"
