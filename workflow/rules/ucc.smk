"""UCC: Uncertainty Characteristics Curves of the UCC paper's synthetic experiments and of
every configured dataset."""


rule ucc_dataset:
    input:
        table="data/prepared/{dataset}.csv",
    output:
        gains=f"{UC}/datasets/{{dataset}}.csv",
    log:
        "logs/ucc/{dataset}.log",
    benchmark:
        "results/benchmarks/ucc/{dataset}.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        n_permutations=UCC["n_permutations"],
        seed=lambda wc: dataset_seed("ucc", wc.dataset) % 2**31,
    script:
        "../../scripts/ucc_dataset.py"


rule ucc_xsinx:
    output:
        tab2=report(f"{UC}/tab2.csv", caption="../report/ucc_tab2.rst", category="ucc"),
        tab3=report(f"{UC}/tab3.csv", caption="../report/ucc_tab3.rst", category="ucc"),
        summary=f"{UC}/xsinx_summary.csv",
        permutation=f"{UC}/xsinx_permutation.csv",
        values="results/values/ucc_xsinx.csv",
        fig07_png=report(
            f"{UC}/fig07.png", caption="../report/ucc_fig07.rst", category="ucc"
        ),
        fig07_pdf=f"{UC}/fig07.pdf",
        fig4_1a_png=report(
            f"{UC}/fig4_1a.png", caption="../report/ucc_fig4_1a.rst", category="ucc"
        ),
        fig4_1a_pdf=f"{UC}/fig4_1a.pdf",
    log:
        "logs/ucc/xsinx.log",
    benchmark:
        "results/benchmarks/ucc/xsinx.tsv"
    conda:
        "../../envs/ucc.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=UCC["xsinx"],
        target=UCC["gbr_target"],
        seed=dataset_seed("ucc_xsinx") % 2**31,
    script:
        "../../scripts/ucc_xsinx.py"


rule ucc_gp:
    output:
        summary=f"{UC}/gp_summary.csv",
        values="results/values/ucc_gp.csv",
        fig02_png=report(
            f"{UC}/fig02.png", caption="../report/ucc_fig02.rst", category="ucc"
        ),
        fig02_pdf=f"{UC}/fig02.pdf",
        fig4_1bc_png=report(
            f"{UC}/fig4_1bc.png", caption="../report/ucc_fig4_1bc.rst", category="ucc"
        ),
        fig4_1bc_pdf=f"{UC}/fig4_1bc.pdf",
    log:
        "logs/ucc/gp.log",
    conda:
        "../../envs/ucc.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        target=UCC["gbr_target"],
        seed=dataset_seed("ucc_gp") % 2**31,
    script:
        "../../scripts/ucc_gp.py"


rule ucc_literature:
    input:
        gains=expand(f"{UC}/datasets/{{dataset}}.csv", dataset=UCC_DATASETS),
        tables=expand("data/prepared/{dataset}.csv", dataset=UCC_DATASETS),
    output:
        table=report(
            f"{UC}/literature_gains.csv",
            caption="../report/ucc_literature.rst",
            category="ucc",
        ),
        values="results/values/ucc_literature.csv",
        fig_png=report(
            f"{UC}/literature.png",
            caption="../report/ucc_literature.rst",
            category="ucc",
        ),
        fig_pdf=f"{UC}/literature.pdf",
    log:
        "logs/ucc/literature.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        names=UCC_DATASETS,
    script:
        "../../scripts/ucc_literature.py"


VALUE_TABLES.extend(
    [
        rules.ucc_xsinx.output.values,
        rules.ucc_gp.output.values,
        rules.ucc_literature.output.values,
    ]
)
