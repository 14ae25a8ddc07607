"""Average: ZMS and RCE with BCa intervals and zeta-scores, trimmed sets, decimation."""


rule average_calibration:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        summary="results/average/{dataset}.json",
        decimation="results/average/{dataset}_decimation.csv",
    log:
        "logs/average/{dataset}.log",
    benchmark:
        "results/benchmarks/average/{dataset}.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        n_boot=ANALYSIS["bootstrap"]["n_boot"],
        confidence=ANALYSIS["bootstrap"]["confidence"],
        seed=lambda wc: dataset_seed("average", wc.dataset),
        trimmed_fraction=ANALYSIS["average"]["trimmed_fraction"],
        decimation=ANALYSIS["average"]["decimation"],
    script:
        "../../../scripts/average_calibration.py"
