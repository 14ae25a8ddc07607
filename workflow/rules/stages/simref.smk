"""Simref: simulated reference values of ZMS, CC, ENCE, ZMSE per dataset, their sensitivity to
the generative distribution and the ZMSE extrapolation (simref paper methods)."""


rule simref_set:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        summary=f"{SR}/sets/{{dataset}}.json",
        zeta=f"{SR}/sets/{{dataset}}_zeta.csv",
        sensitivity=f"{SR}/sets/{{dataset}}_sensitivity.csv",
        extrapolation=f"{SR}/sets/{{dataset}}_extrapolation.csv",
    log:
        "logs/simref/{dataset}.log",
    benchmark:
        "results/benchmarks/simref/{dataset}.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 2
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=ANALYSIS["simref"],
        seed=lambda wc: dataset_seed("simref", wc.dataset),
    script:
        "../../../scripts/simref_set.py"
