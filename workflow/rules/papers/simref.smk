"""Simref paper (P002): the nu sweep and the App. B grid of simulated references, Tables II and
A1-A4, Figs 2-7 and A1-A3, from the per-dataset simref stage (Table I is heavy-tails Table 3,
papers/heavytails.smk).

Output names carry the stable ids of the inventory: results/simref/<id>.{csv,png,pdf}.
"""

SIMREF = ANALYSIS["simref"]
SIMREF_FIGS = [f"fig{i:02d}" for i in range(2, 8)] + ["figA1", "figA2", "figA3"]


rule simref_nu_sweep:
    input:
        tables=[
            f"data/prepared/{HEAVYTAILS_SETS[i - 1]}.csv"
            for i in SIMREF["nu_sweep_sets"]
            if HEAVYTAILS_SETS
        ],
        library=LIBRARY,
    output:
        sweep=f"{SR}/nu_sweep.csv",
    log:
        "logs/simref/nu_sweep.log",
    benchmark:
        "results/benchmarks/simref/nu_sweep.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        settings=SIMREF,
        sets=SIMREF["nu_sweep_sets"],
        seed=dataset_seed("simref_nu_sweep"),
    script:
        "../../../scripts/simref_nu_sweep.py"


rule simref_appb_chunk:
    input:
        library=LIBRARY,
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
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        settings=SIMREF,
        seed=dataset_seed("simref_appb"),
    script:
        "../../../scripts/simref_appb_chunk.py"


rule simref_figures:
    input:
        tables=expand("data/prepared/{dataset}.csv", dataset=HEAVYTAILS_SETS),
        reports=expand("data/prepared/{dataset}.json", dataset=HEAVYTAILS_SETS),
        summaries=expand(f"{SR}/sets/{{dataset}}.json", dataset=HEAVYTAILS_SETS),
        zetas=expand(f"{SR}/sets/{{dataset}}_zeta.csv", dataset=HEAVYTAILS_SETS),
        sensitivities=expand(
            f"{SR}/sets/{{dataset}}_sensitivity.csv", dataset=HEAVYTAILS_SETS
        ),
        extrapolations=expand(
            f"{SR}/sets/{{dataset}}_extrapolation.csv", dataset=HEAVYTAILS_SETS
        ),
        sweep=rules.simref_nu_sweep.output.sweep,
        appb=expand(
            f"{SR}/appb/{{model}}_{{M}}.csv",
            model=["NIG", "T6IG"],
            M=SIMREF["appb"]["M"],
        ),
        library=LIBRARY,
    output:
        **png_pdf_outputs(SR, "simref", SIMREF_FIGS),
        tab2=report(
            f"{SR}/tab2.csv", caption="../../report/simref_tab2.rst", category="simref"
        ),
        tabA=report(
            f"{SR}/tabA1-A4.csv",
            caption="../../report/simref_tabA.rst",
            category="simref",
        ),
        appb_fits=f"{SR}/appb_fits.csv",
        values="results/values/simref.csv",
    log:
        "logs/simref/figures.log",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=20,
    params:
        names=HEAVYTAILS_SETS,
        settings=SIMREF,
        seed=dataset_seed("simref_figures"),
    script:
        "../../../scripts/simref_figures.py"


if HEAVYTAILS_SETS:
    VALUE_TABLES.append(rules.simref_figures.output.values)

# Results of the paper built by `all` (Table I: HEAVYTAILS_OUTPUTS).
SIMREF_OUTPUTS = [rules.simref_figures.output if HEAVYTAILS_SETS else []]
