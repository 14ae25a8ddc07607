"""Simref: simulated reference values of ZMS, CC, ENCE, ZMSE and their sensitivity to the
generative distribution (simref paper), per dataset and on the App. B grid."""


rule simref_set:
    input:
        table="data/prepared/{dataset}.csv",
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
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=SIMREF,
        seed=lambda wc: dataset_seed("simref", wc.dataset),
    script:
        "../../scripts/simref_set.py"


rule simref_nu_sweep:
    input:
        tables=[
            f"data/prepared/{HEAVYTAILS_SETS[i - 1]}.csv"
            for i in SIMREF["nu_sweep_sets"]
            if HEAVYTAILS_SETS
        ],
    output:
        sweep=f"{SR}/nu_sweep.csv",
    log:
        "logs/simref/nu_sweep.log",
    benchmark:
        "results/benchmarks/simref/nu_sweep.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        settings=SIMREF,
        sets=SIMREF["nu_sweep_sets"],
        seed=dataset_seed("simref_nu_sweep"),
    script:
        "../../scripts/simref_nu_sweep.py"


rule simref_appb_chunk:
    output:
        table=f"{SR}/appb/{{model}}_{{M}}.csv",
    log:
        "logs/simref/appb/{model}_{M}.log",
    benchmark:
        "results/benchmarks/simref/appb/{model}_{M}.tsv"
    wildcard_constraints:
        model="NIG|T6IG",
        M=r"\d+",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=SIMREF,
        seed=dataset_seed("simref_appb"),
    script:
        "../../scripts/simref_appb_chunk.py"
