"""Screen: heavy-tail screening of each dataset (robust skewness, shape fits)."""


rule screen_dataset:
    input:
        table="data/prepared/{dataset}.csv",
    output:
        summary="results/screen/{dataset}.json",
    log:
        "logs/screen/{dataset}.log",
    benchmark:
        "results/benchmarks/screen/{dataset}.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
    script:
        "../../scripts/screen_dataset.py"


rule nig_skewness_curve:
    output:
        curve="results/screen/nig_curve.csv",
    log:
        "logs/screen/nig_curve.log",
    benchmark:
        "results/benchmarks/screen/nig_curve.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        curve=ANALYSIS["screening"]["nig_curve"],
        seed=dataset_seed("nig_curve"),
    script:
        "../../scripts/nig_skewness_curve.py"


rule heavytails_shape_curves:
    output:
        curves="results/heavytails/mc/shape_curves.csv",
        values="results/values/heavytails_chi2.csv",
    log:
        "logs/heavytails/shape_curves.log",
    benchmark:
        "results/benchmarks/heavytails/shape_curves.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        curves=ANALYSIS["heavytails_mc"]["shape_curves"],
        seed=dataset_seed("heavytails_shape_curves"),
    script:
        "../../scripts/heavytails_shape_curves.py"


VALUE_TABLES.append(rules.heavytails_shape_curves.output.values)
