"""Adaptivity paper (P003): the random-order test in chunks, Table II and Figs 2-5 (QM9
running example).

Output names carry the stable ids of the inventory: results/adaptivity/<id>.{csv,png,pdf}.
"""

AD = "results/adaptivity"
ADAPT = ANALYSIS["adaptivity"]
ADAPT_PAPER = config["papers"]["adaptivity"]
ADAPT_DATASET = ADAPT_PAPER["dataset"] if ADAPT_PAPER["dataset"] in DATASETS else None
ADAPT_VARIABLES = ["uE"] + [f"X_{f}" for f in ADAPT_PAPER["features"]]
ADAPT_CHUNKS = list(range(-(-ADAPT["n_perm"] // ADAPT["perms_per_job"])))


rule adaptivity_random_order_chunk:
    input:
        table=f"data/prepared/{ADAPT_PAPER['dataset']}.csv",
        library=LIBRARY,
    output:
        perms=f"{AD}/random_order/{{variable}}_{{chunk}}.csv",
    log:
        f"logs/adaptivity/random_order/{{variable}}_{{chunk}}.log",
    benchmark:
        f"results/benchmarks/adaptivity/random_order/{{variable}}_{{chunk}}.tsv"
    wildcard_constraints:
        variable="|".join(ADAPT_VARIABLES),
        chunk=r"\d+",
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        n_bins=ADAPT["n_bins"],
        n_boot_min=ADAPT["n_boot_min"],
        permutations=lambda wc: list(
            range(
                int(wc.chunk) * ADAPT["perms_per_job"],
                min((int(wc.chunk) + 1) * ADAPT["perms_per_job"], ADAPT["n_perm"]),
            )
        ),
        seed=lambda wc: dataset_seed("adaptivity_random_order", wc.variable),
    script:
        "../../../scripts/adaptivity_random_order_chunk.py"


rule adaptivity_figures:
    input:
        table=f"data/prepared/{ADAPT_PAPER['dataset']}.csv",
        perms=expand(
            f"{AD}/random_order/{{variable}}_{{chunk}}.csv",
            variable=ADAPT_VARIABLES,
            chunk=ADAPT_CHUNKS,
        ),
        library=LIBRARY,
    output:
        **png_pdf_outputs(AD, "adaptivity", ["fig02", "fig03", "fig04", "fig05"]),
        tab2=report(
            f"{AD}/tab2.csv",
            caption="../../report/adaptivity_tab2.rst",
            category="adaptivity",
        ),
        fv=f"{AD}/fv_variants.csv",
        values="results/values/adaptivity.csv",
    log:
        "logs/adaptivity/figures.log",
    benchmark:
        "results/benchmarks/adaptivity/figures.tsv"
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        features=ADAPT_PAPER["features"],
        settings=ADAPT,
        seed=dataset_seed("adaptivity_figures"),
    script:
        "../../../scripts/adaptivity_figures.py"


if ADAPT_DATASET:
    VALUE_TABLES.append(rules.adaptivity_figures.output.values)

# Results of the paper built by `all`.
ADAPTIVITY_OUTPUTS = [rules.adaptivity_figures.output if ADAPT_DATASET else []]
