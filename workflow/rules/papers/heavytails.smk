"""Heavy-tails paper (P001): Monte Carlo studies (shape curves, NIG skewness curve, TIG bias,
p-values), Tables 1-6 and Figs 1-11, from the per-dataset screening and average stages.

Output names carry the stable ids of the inventory: results/heavytails/<id>.{csv,png,pdf}.
"""

HT = "results/heavytails"
HT_MC = ANALYSIS["heavytails_mc"]
PVAL = HT_MC["pval"]
PVAL_CHUNKS = list(range(-(-PVAL["n_repeats"] // PVAL["repeats_per_job"])))
PVAL_NUS = {"NIG": PVAL["nig_nu"], "TIG": PVAL["tig_nu_d"]}


rule nig_skewness_curve:
    input:
        library=LIBRARY,
    output:
        curve="results/screen/nig_curve.csv",
    log:
        "logs/screen/nig_curve.log",
    benchmark:
        "results/benchmarks/screen/nig_curve.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        curve=ANALYSIS["screening"]["nig_curve"],
        seed=dataset_seed("nig_curve"),
    script:
        "../../../scripts/nig_skewness_curve.py"


rule heavytails_shape_curves:
    input:
        library=LIBRARY,
    output:
        curves=f"{HT}/mc/shape_curves.csv",
        values="results/values/heavytails_chi2.csv",
    log:
        "logs/heavytails/shape_curves.log",
    benchmark:
        "results/benchmarks/heavytails/shape_curves.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        curves=HT_MC["shape_curves"],
        seed=dataset_seed("heavytails_shape_curves"),
    script:
        "../../../scripts/heavytails_shape_curves.py"


rule heavytails_tig_bias:
    input:
        library=LIBRARY,
    output:
        points=f"{HT}/mc/tig_bias.csv",
    log:
        "logs/heavytails/tig_bias.log",
    benchmark:
        "results/benchmarks/heavytails/tig_bias.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        grid=HT_MC["tig_bias"],
        seed=dataset_seed("heavytails_tig_bias"),
    script:
        "../../../scripts/heavytails_tig_bias.py"


rule heavytails_pval_chunk:
    input:
        library=LIBRARY,
    output:
        repeats=f"{HT}/mc/pval/{{scenario}}_{{chunk}}.csv",
    log:
        "logs/heavytails/pval/{scenario}_{chunk}.log",
    benchmark:
        "results/benchmarks/heavytails/pval/{scenario}_{chunk}.tsv"
    wildcard_constraints:
        scenario="NIG|TIG",
        chunk=r"\d+",
    conda:
        "../../../envs/uqval.yaml"
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
        "../../../scripts/heavytails_pval_chunk.py"


rule heavytails_pval_summary:
    input:
        chunks=expand(
            f"{HT}/mc/pval/{{scenario}}_{{chunk}}.csv",
            scenario=["NIG", "TIG"],
            chunk=PVAL_CHUNKS,
        ),
        library=LIBRARY,
    output:
        summary=f"{HT}/mc/pval_summary.csv",
        values="results/values/heavytails_pval.csv",
    log:
        "logs/heavytails/pval_summary.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        M=PVAL["M"],
        upper_axis_samples=PVAL["upper_axis_samples"],
        seed=dataset_seed("heavytails_pval"),
    script:
        "../../../scripts/heavytails_pval_summary.py"


rule heavytails_tables:
    input:
        screens=expand("results/screen/{dataset}.json", dataset=HEAVYTAILS_SETS),
        averages=expand("results/average/{dataset}.json", dataset=HEAVYTAILS_SETS),
        library=LIBRARY,
    output:
        tab1=report(
            f"{HT}/tab1.csv",
            caption="../../report/heavytails_tab1.rst",
            category="heavytails",
        ),
        tab2=report(
            f"{HT}/tab2.csv",
            caption="../../report/heavytails_tab2.rst",
            category="heavytails",
        ),
        tab3=report(
            f"{HT}/tab3.csv",
            caption="../../report/heavytails_tab3.rst",
            category="heavytails",
        ),
        tab4=report(
            f"{HT}/tab4.csv",
            caption="../../report/heavytails_tab4.rst",
            category="heavytails",
        ),
        tab4_trimmed=f"{HT}/tab4_trimmed.csv",
        # Table 3 is also Table I of the simref paper.
        simref_tab1=report(
            f"{SR}/tab1.csv",
            caption="../../report/simref_tab1.rst",
            category="simref",
        ),
        values="results/values/heavytails.csv",
    log:
        "logs/heavytails/tables.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        limits=ANALYSIS["screening"]["limits"],
    script:
        "../../../scripts/heavytails_tables.py"


rule heavytails_data_figures:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=HEAVYTAILS_SETS),
        reports=expand("data/prepared/{dataset}.json", dataset=HEAVYTAILS_SETS),
        screens=expand("results/screen/{dataset}.json", dataset=HEAVYTAILS_SETS),
        decimations=expand(
            "results/average/{dataset}_decimation.csv", dataset=HEAVYTAILS_SETS
        ),
        tab3=f"{HT}/tab3.csv",
        tab4=f"{HT}/tab4.csv",
        tab4_trimmed=f"{HT}/tab4_trimmed.csv",
        nig_curve="results/screen/nig_curve.csv",
        library=LIBRARY,
    output:
        **png_pdf_outputs(
            HT, "heavytails", ["fig01", "fig02", "fig06", "fig07", "fig08"]
        ),
    log:
        "logs/heavytails/data_figures.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
        names=HEAVYTAILS_SETS,
        trimmed_fraction=ANALYSIS["average"]["trimmed_fraction"],
    script:
        "../../../scripts/heavytails_data_figures.py"


rule heavytails_jacobs:
    input:
        reports=expand("data/prepared/{dataset}.json", dataset=JACOBS_SETS),
        screens=expand("results/screen/{dataset}.json", dataset=JACOBS_SETS),
        averages=expand("results/average/{dataset}.json", dataset=JACOBS_SETS),
        nig_curve="results/screen/nig_curve.csv",
        library=LIBRARY,
    output:
        **png_pdf_outputs(HT, "heavytails", ["fig09", "fig10"]),
        tab5=report(
            f"{HT}/tab5.csv",
            caption="../../report/heavytails_tab5.rst",
            category="heavytails",
        ),
        tab6=report(
            f"{HT}/tab6.csv",
            caption="../../report/heavytails_tab6.rst",
            category="heavytails",
        ),
        values="results/values/heavytails_jacobs.csv",
    log:
        "logs/heavytails/jacobs.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
        first_table_size=17,
    script:
        "../../../scripts/heavytails_jacobs.py"


rule heavytails_mc_figures:
    input:
        curves=rules.heavytails_shape_curves.output.curves,
        chi2=rules.heavytails_shape_curves.output.values,
        tig_bias=rules.heavytails_tig_bias.output.points,
        pval=rules.heavytails_pval_summary.output.summary,
        library=LIBRARY,
    output:
        **png_pdf_outputs(HT, "heavytails", ["fig03", "fig04", "fig05", "fig11"]),
    log:
        "logs/heavytails/mc_figures.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../../scripts/heavytails_mc_figures.py"


VALUE_TABLES.extend(
    [
        rules.heavytails_shape_curves.output.values,
        rules.heavytails_pval_summary.output.values,
    ]
)
if HEAVYTAILS_SETS:
    VALUE_TABLES.append(rules.heavytails_tables.output.values)
if JACOBS_SETS:
    VALUE_TABLES.append(rules.heavytails_jacobs.output.values)

# Results of the paper built by `all` (tables and figures of skipped datasets left out).
HEAVYTAILS_OUTPUTS = [
    rules.heavytails_tables.output if HEAVYTAILS_SETS else [],
    rules.heavytails_data_figures.output if HEAVYTAILS_SETS else [],
    rules.heavytails_jacobs.output if JACOBS_SETS else [],
    rules.heavytails_mc_figures.output,
]
