"""Simref: simulated reference values of ZMS, CC, ENCE, ZMSE per dataset, their sensitivity to
the generative distribution and the ZMSE extrapolation (simref paper methods).

The N and T simulations and the bootstrap intervals of the statistics on the data are three
one-thread jobs (they run side by side, and beside the dataset's other stages); simref_set
compares them (zeta schemes, verdicts) and extrapolates ZMSE."""


rule simref_references:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        values=f"{SR}/sets/{{dataset}}_values_{{dist}}.npy",
    log:
        "logs/simref/values/{dataset}_{dist}.log",
    benchmark:
        "results/benchmarks/simref/values/{dataset}_{dist}.tsv"
    wildcard_constraints:
        dist="N|T",
    priority: 2
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        settings=ANALYSIS["simref"],
        seed=lambda wc: dataset_seed("simref", wc.dataset),
    script:
        "../../../scripts/simref_references.py"


rule simref_bootstrap:
    input:
        table="data/prepared/{dataset}.csv",
        library=LIBRARY,
    output:
        intervals=f"{SR}/sets/{{dataset}}_intervals.json",
    log:
        "logs/simref/intervals/{dataset}.log",
    benchmark:
        "results/benchmarks/simref/intervals/{dataset}.tsv"
    priority: 2
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        settings=ANALYSIS["simref"],
        seed=lambda wc: dataset_seed("simref", wc.dataset),
    script:
        "../../../scripts/simref_bootstrap.py"


rule simref_set:
    input:
        table="data/prepared/{dataset}.csv",
        values_N=f"{SR}/sets/{{dataset}}_values_N.npy",
        values_T=f"{SR}/sets/{{dataset}}_values_T.npy",
        intervals=f"{SR}/sets/{{dataset}}_intervals.json",
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
    priority: 2
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=ANALYSIS["simref"],
        seed=lambda wc: dataset_seed("simref", wc.dataset),
    script:
        "../../../scripts/simref_set.py"
