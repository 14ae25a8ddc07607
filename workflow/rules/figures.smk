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
            category="heavy-tails",
        ),
        tab2=report(
            f"{HT}/tab2.csv",
            caption="../report/heavytails_tab2.rst",
            category="heavy-tails",
        ),
        tab3=report(
            f"{HT}/tab3.csv",
            caption="../report/heavytails_tab3.rst",
            category="heavy-tails",
        ),
        tab4=report(
            f"{HT}/tab4.csv",
            caption="../report/heavytails_tab4.rst",
            category="heavy-tails",
        ),
        tab4_trimmed=f"{HT}/tab4_trimmed.csv",
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
                    category="heavy-tails",
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
            category="heavy-tails",
        ),
        tab6=report(
            f"{HT}/tab6.csv",
            caption="../report/heavytails_tab6.rst",
            category="heavy-tails",
        ),
        fig09_png=report(
            f"{HT}/fig09.png",
            caption="../report/heavytails_fig09.rst",
            category="heavy-tails",
        ),
        fig09_pdf=f"{HT}/fig09.pdf",
        fig10_png=report(
            f"{HT}/fig10.png",
            caption="../report/heavytails_fig10.rst",
            category="heavy-tails",
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
                    category="heavy-tails",
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
