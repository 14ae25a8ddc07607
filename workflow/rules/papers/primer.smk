"""Primer paper (P000): synthetic cases A-F, PAL2022, QM9 and HU2022 figures and tables.

Output names carry the stable ids of the inventory: results/primer/<id>.{csv,png,pdf}.
"""

PR = "results/primer"
PRIMER = ANALYSIS["primer"]


# Datasets of each primer group; [] (group skipped, with a warning) when some are not built.
_PRIMER_PAPER = config["papers"]["primer"]
PRIMER_SETS = {
    "pal2022": [
        f"PAL2022_{s}_{v}" for s in _PRIMER_PAPER["pal2022"] for v in ("uncal", "cal")
    ],
    "qm9": [_PRIMER_PAPER["qm9"]],
    "hu2022": _PRIMER_PAPER["hu2022"],
}
for _group, _ids in PRIMER_SETS.items():
    _missing = [d for d in _ids if d not in DATASETS]
    if _missing and not USER_SELECTION:
        logger.warning(
            f"primer {_group} figures skipped: datasets not built: {', '.join(_missing)}"
        )
    if _missing:
        PRIMER_SETS[_group] = []
PRIMER_SYNTHETIC_FIGS = [f"fig{i:02d}" for i in range(1, 12)] + ["figA1"]
PRIMER_PAL_FIGS = ["fig12", "fig13", "fig14", "fig15", "figA2", "figA3"]


rule primer_synthetic:
    input:
        library=LIBRARY,
    output:
        **png_pdf_outputs(PR, "primer", PRIMER_SYNTHETIC_FIGS),
        cases=f"{PR}/cases.csv",
        tab1=report(
            f"{PR}/tab1.csv", caption="../../report/primer_tab1.rst", category="primer"
        ),
        tab2=report(
            f"{PR}/tab2.csv", caption="../../report/primer_tab2.rst", category="primer"
        ),
        values="results/values/primer_synthetic.csv",
    log:
        "logs/primer/synthetic.log",
    benchmark:
        "results/benchmarks/primer/synthetic.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_synthetic"),
        figs=PRIMER_SYNTHETIC_FIGS,
    script:
        "../../../scripts/primer_synthetic.py"


rule primer_pal2022:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["pal2022"]),
        library=LIBRARY,
    output:
        **png_pdf_outputs(PR, "primer", PRIMER_PAL_FIGS),
        fig12_table=f"{PR}/fig12.csv",
        values="results/values/primer_pal2022.csv",
    log:
        "logs/primer/pal2022.log",
    benchmark:
        "results/benchmarks/primer/pal2022.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        names=config["papers"]["primer"]["pal2022"],
        settings=PRIMER,
        seed=dataset_seed("primer_pal2022"),
    script:
        "../../../scripts/primer_pal2022.py"


rule primer_qm9:
    input:
        table=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["qm9"]),
        library=LIBRARY,
    output:
        **png_pdf_outputs(PR, "primer", ["fig16", "fig17", "fig18"]),
        values="results/values/primer_qm9.csv",
    log:
        "logs/primer/qm9.log",
    benchmark:
        "results/benchmarks/primer/qm9.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_qm9"),
    script:
        "../../../scripts/primer_qm9.py"


rule primer_hu2022:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=PRIMER_SETS["hu2022"]),
        library=LIBRARY,
    output:
        **png_pdf_outputs(PR, "primer", ["fig19"]),
        values="results/values/primer_hu2022.csv",
    log:
        "logs/primer/hu2022.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        settings=PRIMER,
        seed=dataset_seed("primer_hu2022"),
    script:
        "../../../scripts/primer_hu2022.py"


# The data figures of the groups whose datasets are all built.
PRIMER_DATA_RULES = [
    rule_
    for rule_, group in (
        (rules.primer_pal2022, "pal2022"),
        (rules.primer_qm9, "qm9"),
        (rules.primer_hu2022, "hu2022"),
    )
    if PRIMER_SETS[group]
]
VALUE_TABLES.append(rules.primer_synthetic.output.values)
VALUE_TABLES.extend(r.output.values for r in PRIMER_DATA_RULES)

# Results of the paper built by `all`.
PRIMER_OUTPUTS = [
    rules.primer_synthetic.output,
    [r.output for r in PRIMER_DATA_RULES],
]
