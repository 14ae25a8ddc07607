"""Fetch: raw files from a mirror directory or their upstream URL, checksum-verified."""


rule fetch_raw_file:
    output:
        ensure(
            "data/raw/{rawfile}", sha256=lambda wc: REGISTRY.files[wc.rawfile].sha256
        ),
    log:
        "logs/fetch/{rawfile}.log",
    retries: 2
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=256,
        runtime=15,
    params:
        entry=lambda wc: REGISTRY.files[wc.rawfile],
        mirrors=MIRRORS,
        timeout_s=config["download"]["timeout_s"],
        attempts=config["download"]["attempts"],
    script:
        "../../scripts/fetch.py"
