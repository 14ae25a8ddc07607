"""Figures and tables of the papers, assembled from the per-dataset stages.

Output names carry the stable ids of the inventory: results/<paper>/<id>.{csv,png,pdf}.
"""

HT = "results/heavytails"


rule heavytails_tables:
    input:
        screens=expand("results/screen/{dataset}.json", dataset=HEAVYTAILS_SETS),
        averages=expand("results/average/{dataset}.json", dataset=HEAVYTAILS_SETS),
    output:
        tab1=report(
            f"{HT}/tab1.csv",
            caption="../report/heavytails_tab1.rst",
            category="heavytails",
        ),
        tab2=report(
            f"{HT}/tab2.csv",
            caption="../report/heavytails_tab2.rst",
            category="heavytails",
        ),
        tab3=report(
            f"{HT}/tab3.csv",
            caption="../report/heavytails_tab3.rst",
            category="heavytails",
        ),
        tab4=report(
            f"{HT}/tab4.csv",
            caption="../report/heavytails_tab4.rst",
            category="heavytails",
        ),
        tab4_trimmed=f"{HT}/tab4_trimmed.csv",
        simref_tab1=report(
            "results/simref/tab1.csv",
            caption="../report/simref_tab1.rst",
            category="simref",
        ),
        values="results/values/heavytails.csv",
    log:
        "logs/heavytails/tables.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        limits=ANALYSIS["screening"]["limits"],
    script:
        "../../scripts/heavytails_tables.py"


rule heavytails_data_figures:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=HEAVYTAILS_SETS),
        screens=expand("results/screen/{dataset}.json", dataset=HEAVYTAILS_SETS),
        decimations=expand(
            "results/average/{dataset}_decimation.csv", dataset=HEAVYTAILS_SETS
        ),
        tab3=f"{HT}/tab3.csv",
        tab4=f"{HT}/tab4.csv",
        tab4_trimmed=f"{HT}/tab4_trimmed.csv",
        nig_curve="results/screen/nig_curve.csv",
    output:
        **{
            f"{fig}_{ext}": (
                report(
                    f"{HT}/{fig}.png",
                    caption=f"../report/heavytails_{fig}.rst",
                    category="heavytails",
                )
                if ext == "png"
                else f"{HT}/{fig}.pdf"
            )
            for fig in ("fig01", "fig02", "fig06", "fig07", "fig08")
            for ext in ("png", "pdf")
        },
    log:
        "logs/heavytails/data_figures.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
        names=HEAVYTAILS_SETS,
        trimmed_fraction=ANALYSIS["average"]["trimmed_fraction"],
    script:
        "../../scripts/heavytails_data_figures.py"


rule heavytails_jacobs:
    input:
        reports=expand("data/prepared/{dataset}.json", dataset=JACOBS_SETS),
        screens=expand("results/screen/{dataset}.json", dataset=JACOBS_SETS),
        averages=expand("results/average/{dataset}.json", dataset=JACOBS_SETS),
        nig_curve="results/screen/nig_curve.csv",
    output:
        tab5=report(
            f"{HT}/tab5.csv",
            caption="../report/heavytails_tab5.rst",
            category="heavytails",
        ),
        tab6=report(
            f"{HT}/tab6.csv",
            caption="../report/heavytails_tab6.rst",
            category="heavytails",
        ),
        fig09_png=report(
            f"{HT}/fig09.png",
            caption="../report/heavytails_fig09.rst",
            category="heavytails",
        ),
        fig09_pdf=f"{HT}/fig09.pdf",
        fig10_png=report(
            f"{HT}/fig10.png",
            caption="../report/heavytails_fig10.rst",
            category="heavytails",
        ),
        fig10_pdf=f"{HT}/fig10.pdf",
        values="results/values/heavytails_jacobs.csv",
    log:
        "logs/heavytails/jacobs.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        limits=ANALYSIS["screening"]["limits"],
        first_table_size=17,
    script:
        "../../scripts/heavytails_jacobs.py"


if HEAVYTAILS_SETS:
    VALUE_TABLES.append(rules.heavytails_tables.output.values)
if JACOBS_SETS:
    VALUE_TABLES.append(rules.heavytails_jacobs.output.values)


rule heavytails_mc_figures:
    input:
        curves="results/heavytails/mc/shape_curves.csv",
        tig_bias="results/heavytails/mc/tig_bias.csv",
        pval="results/heavytails/mc/pval_summary.csv",
    output:
        **{
            f"{fig}_{ext}": (
                report(
                    f"{HT}/{fig}.png",
                    caption=f"../report/heavytails_{fig}.rst",
                    category="heavytails",
                )
                if ext == "png"
                else f"{HT}/{fig}.pdf"
            )
            for fig in ("fig03", "fig04", "fig05", "fig11")
            for ext in ("png", "pdf")
        },
    log:
        "logs/heavytails/mc_figures.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/heavytails_mc_figures.py"


PRIMER_SYNTHETIC_FIGS = [f"fig{i:02d}" for i in range(1, 12)] + ["figA1"]


rule primer_synthetic:
    output:
        **primer_outputs(PRIMER_SYNTHETIC_FIGS),
        cases=f"{PR}/cases.csv",
        tab1=report(
            f"{PR}/tab1.csv", caption="../report/primer_tab1.rst", category="primer"
        ),
        tab2=report(
            f"{PR}/tab2.csv", caption="../report/primer_tab2.rst", category="primer"
        ),
        values="results/values/primer_synthetic.csv",
    log:
        "logs/primer/synthetic.log",
    benchmark:
        "results/benchmarks/primer/synthetic.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_synthetic"),
        figs=PRIMER_SYNTHETIC_FIGS,
    script:
        "../../scripts/primer_synthetic.py"


PRIMER_PAL_FIGS = ["fig12", "fig13", "fig14", "fig15", "figA2", "figA3"]


rule primer_pal2022:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["pal2022"]),
    output:
        **primer_outputs(PRIMER_PAL_FIGS),
        fig12_table=f"{PR}/fig12.csv",
        values="results/values/primer_pal2022.csv",
    log:
        "logs/primer/pal2022.log",
    benchmark:
        "results/benchmarks/primer/pal2022.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        names=config["papers"]["primer"]["pal2022"],
        settings=PRIMER,
        seed=dataset_seed("primer_pal2022"),
    script:
        "../../scripts/primer_pal2022.py"


rule primer_qm9:
    input:
        table=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["qm9"]),
    output:
        **primer_outputs(["fig16", "fig17", "fig18"]),
        values="results/values/primer_qm9.csv",
    log:
        "logs/primer/qm9.log",
    benchmark:
        "results/benchmarks/primer/qm9.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_qm9"),
    script:
        "../../scripts/primer_qm9.py"


rule primer_hu2022:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["hu2022"]),
    output:
        **primer_outputs(["fig19"]),
        values="results/values/primer_hu2022.csv",
    log:
        "logs/primer/hu2022.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_hu2022"),
    script:
        "../../scripts/primer_hu2022.py"


VALUE_TABLES.append(rules.primer_synthetic.output.values)
PRIMER_DATA_RULES = [
    rule_
    for rule_, group in (
        (rules.primer_pal2022, "pal2022"),
        (rules.primer_qm9, "qm9"),
        (rules.primer_hu2022, "hu2022"),
    )
    if PRIMER_SETS[group]
]
VALUE_TABLES.extend(r.output.values for r in PRIMER_DATA_RULES)


rule adaptivity_figures:
    input:
        table=f"data/prepared/{ADAPT_PAPER['dataset']}.csv",
        perms=expand(
            f"{AD}/random_order/{{variable}}_{{chunk}}.csv",
            variable=ADAPT_VARIABLES,
            chunk=ADAPT_CHUNKS,
        ),
    output:
        **{
            f"{fig}_{ext}": (
                report(
                    f"{AD}/{fig}.png",
                    caption=f"../report/adaptivity_{fig}.rst",
                    category="adaptivity",
                )
                if ext == "png"
                else f"{AD}/{fig}.pdf"
            )
            for fig in ("fig02", "fig03", "fig04", "fig05")
            for ext in ("png", "pdf")
        },
        tab2=report(
            f"{AD}/tab2.csv",
            caption="../report/adaptivity_tab2.rst",
            category="adaptivity",
        ),
        fv=f"{AD}/fv_variants.csv",
        values="results/values/adaptivity.csv",
    log:
        "logs/adaptivity/figures.log",
    benchmark:
        "results/benchmarks/adaptivity/figures.tsv"
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        features=ADAPT_PAPER["features"],
        settings=ADAPT,
        seed=dataset_seed("adaptivity_figures"),
    script:
        "../../scripts/adaptivity_figures.py"


if ADAPT_DATASET:
    VALUE_TABLES.append(rules.adaptivity_figures.output.values)


SIMREF_FIGS = [f"fig{i:02d}" for i in range(2, 8)] + ["figA1", "figA2", "figA3"]


rule simref_figures:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=HEAVYTAILS_SETS),
        summaries=expand(f"{SR}/sets/{{dataset}}.json", dataset=HEAVYTAILS_SETS),
        zetas=expand(f"{SR}/sets/{{dataset}}_zeta.csv", dataset=HEAVYTAILS_SETS),
        sensitivities=expand(
            f"{SR}/sets/{{dataset}}_sensitivity.csv", dataset=HEAVYTAILS_SETS
        ),
        extrapolations=expand(
            f"{SR}/sets/{{dataset}}_extrapolation.csv", dataset=HEAVYTAILS_SETS
        ),
        sweep=f"{SR}/nu_sweep.csv",
        appb=expand(
            f"{SR}/appb/{{model}}_{{M}}.csv",
            model=["NIG", "T6IG"],
            M=SIMREF["appb"]["M"],
        ),
    output:
        **{
            f"{fig}_{ext}": (
                report(
                    f"{SR}/{fig}.png",
                    caption=f"../report/simref_{fig}.rst",
                    category="simref",
                )
                if ext == "png"
                else f"{SR}/{fig}.pdf"
            )
            for fig in SIMREF_FIGS
            for ext in ("png", "pdf")
        },
        tab2=report(
            f"{SR}/tab2.csv", caption="../report/simref_tab2.rst", category="simref"
        ),
        tabA=report(
            f"{SR}/tabA1-A4.csv",
            caption="../report/simref_tabA.rst",
            category="simref",
        ),
        appb_fits=f"{SR}/appb_fits.csv",
        values="results/values/simref.csv",
    log:
        "logs/simref/figures.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        names=HEAVYTAILS_SETS,
        settings=SIMREF,
        seed=dataset_seed("simref_figures"),
    script:
        "../../scripts/simref_figures.py"


if HEAVYTAILS_SETS:
    VALUE_TABLES.append(rules.simref_figures.output.values)
