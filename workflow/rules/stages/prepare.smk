"""Prepare: raw files -> tidy validation tables data/prepared/{dataset}.csv + JSON sidecar,
and the table of every prepared dataset."""


rule prepare_dataset:
    input:
        dataset_raw_files,
        library=LIBRARY,
    output:
        table="data/prepared/{dataset}.csv",
        report="data/prepared/{dataset}.json",
    log:
        "logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=_alternation(SOURCE_IDS),
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        spec=dataset_spec,
        data_root="data/raw",
    script:
        "../../../scripts/prepare.py"


rule datasets_table:
    input:
        reports=expand("data/prepared/{dataset}.json", dataset=PREPARED_DATASETS),
        library=LIBRARY,
    output:
        table=report(
            "results/tables/datasets.csv",
            caption="../../report/datasets.rst",
            category="Datasets",
        ),
        values="results/values/datasets.csv",
    log:
        "logs/datasets_table.log",
    localrule: True
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../../scripts/datasets_table.py"


VALUE_TABLES.append(rules.datasets_table.output.values)
