"""UCC paper (P004): the synthetic experiments (x sin x with gradient-boosting quantile
regressors, Gaussian processes) and the AUUCC gains of every configured dataset, from the
per-dataset UCC stage.

Output names carry the stable ids of the inventory: results/ucc/<id>.{csv,png,pdf}.
"""

UCC = ANALYSIS["ucc"]
UCC_DATASETS = [
    d for d in BAND_DATASETS if REGISTRY.get(d).family != "JAC2024"
] + JACOBS_SETS


rule ucc_xsinx:
    input:
        library=LIBRARY,
    output:
        **png_pdf_outputs(UC, "ucc", ["fig07", "fig4_1a"]),
        tab2=report(
            f"{UC}/tab2.csv", caption="../../report/ucc_tab2.rst", category="ucc"
        ),
        tab3=report(
            f"{UC}/tab3.csv", caption="../../report/ucc_tab3.rst", category="ucc"
        ),
        summary=f"{UC}/xsinx_summary.csv",
        permutation=f"{UC}/xsinx_permutation.csv",
        values="results/values/ucc_xsinx.csv",
    log:
        "logs/ucc/xsinx.log",
    benchmark:
        "results/benchmarks/ucc/xsinx.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=UCC["xsinx"],
        target=UCC["gbr_target"],
        seed=dataset_seed("ucc_xsinx") % 2**31,
    script:
        "../../../scripts/ucc_xsinx.py"


rule ucc_gp:
    input:
        library=LIBRARY,
    output:
        **png_pdf_outputs(UC, "ucc", ["fig02", "fig4_1bc"]),
        summary=f"{UC}/gp_summary.csv",
        values="results/values/ucc_gp.csv",
    log:
        "logs/ucc/gp.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        target=UCC["gbr_target"],
        seed=dataset_seed("ucc_gp") % 2**31,
    script:
        "../../../scripts/ucc_gp.py"


rule ucc_literature:
    input:
        gains=expand(f"{UC}/datasets/{{dataset}}.csv", dataset=UCC_DATASETS),
        tables=expand("data/prepared/{dataset}.csv", dataset=UCC_DATASETS),
        library=LIBRARY,
    output:
        table=report(
            f"{UC}/literature_gains.csv",
            caption="../../report/ucc_literature.rst",
            category="ucc",
        ),
        values="results/values/ucc_literature.csv",
        fig_png=report(
            f"{UC}/literature.png",
            caption="../../report/ucc_literature.rst",
            category="ucc",
        ),
        fig_pdf=f"{UC}/literature.pdf",
    log:
        "logs/ucc/literature.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        names=UCC_DATASETS,
    script:
        "../../../scripts/ucc_literature.py"


VALUE_TABLES.extend(
    [
        rules.ucc_xsinx.output.values,
        rules.ucc_gp.output.values,
    ]
)
if UCC_DATASETS:
    VALUE_TABLES.append(rules.ucc_literature.output.values)

# Results of the paper built by `all` (the literature gains left out when no selected dataset
# has uE or half-widths: quantile sets, [low, high] intervals, datasets given as parts).
UCC_OUTPUTS = [
    rules.ucc_xsinx.output,
    rules.ucc_gp.output,
    rules.ucc_literature.output if UCC_DATASETS else [],
]
