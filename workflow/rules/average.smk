"""Average: ZMS and RCE with BCa intervals and zeta-scores, trimmed sets, decimation."""


rule average_calibration:
    input:
        table="data/prepared/{dataset}.csv",
    output:
        summary="results/average/{dataset}.json",
        decimation="results/average/{dataset}_decimation.csv",
    log:
        "logs/average/{dataset}.log",
    benchmark:
        "results/benchmarks/average/{dataset}.tsv"
    conda:
        "../../envs/uqval.yaml"
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
        "../../scripts/average_calibration.py"


HT_MC = ANALYSIS["heavytails_mc"]
PVAL = HT_MC["pval"]
PVAL_CHUNKS = list(range(-(-PVAL["n_repeats"] // PVAL["repeats_per_job"])))
PVAL_NUS = {"NIG": PVAL["nig_nu"], "TIG": PVAL["tig_nu_d"]}


rule heavytails_tig_bias:
    output:
        points="results/heavytails/mc/tig_bias.csv",
    log:
        "logs/heavytails/tig_bias.log",
    benchmark:
        "results/benchmarks/heavytails/tig_bias.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        grid=HT_MC["tig_bias"],
        seed=dataset_seed("heavytails_tig_bias"),
    script:
        "../../scripts/heavytails_tig_bias.py"


rule heavytails_pval_chunk:
    output:
        repeats="results/heavytails/mc/pval/{scenario}_{chunk}.csv",
    log:
        "logs/heavytails/pval/{scenario}_{chunk}.log",
    benchmark:
        "results/benchmarks/heavytails/pval/{scenario}_{chunk}.tsv"
    wildcard_constraints:
        scenario="NIG|TIG",
        chunk=r"\d+",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        nus=lambda wc: PVAL_NUS[wc.scenario],
        repeats=lambda wc: list(
            range(
                int(wc.chunk) * PVAL["repeats_per_job"],
                min((int(wc.chunk) + 1) * PVAL["repeats_per_job"], PVAL["n_repeats"]),
            )
        ),
        M=PVAL["M"],
        n_boot=PVAL["n_boot"],
        seed=dataset_seed("heavytails_pval"),
    script:
        "../../scripts/heavytails_pval_chunk.py"


rule heavytails_pval_summary:
    input:
        chunks=expand(
            "results/heavytails/mc/pval/{scenario}_{chunk}.csv",
            scenario=["NIG", "TIG"],
            chunk=PVAL_CHUNKS,
        ),
    output:
        summary="results/heavytails/mc/pval_summary.csv",
        values="results/values/heavytails_pval.csv",
    log:
        "logs/heavytails/pval_summary.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        M=PVAL["M"],
        upper_axis_samples=PVAL["upper_axis_samples"],
        seed=dataset_seed("heavytails_pval"),
    script:
        "../../scripts/heavytails_pval_summary.py"


VALUE_TABLES.append(rules.heavytails_pval_summary.output.values)
