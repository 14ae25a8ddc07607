"""Fetch: raw files from a mirror directory or their upstream URL, checksum-verified.

No `library` input (library.smk): the output is pinned by its SHA-256.
"""


rule fetch_raw_file:
    output:
        ensure(
            "data/raw/{rawfile}", sha256=lambda wc: REGISTRY.files[wc.rawfile].sha256
        ),
    log:
        "logs/fetch/{rawfile}.log",
    retries: 2
    localrule: True
    conda:
        "../../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=256,
        runtime=15,
    params:
        # plain data, so that a new pin or URL re-fetches the file
        entry=lambda wc: dataclasses.asdict(REGISTRY.files[wc.rawfile]),
        data_root=lambda wc, output: output[0][: -len(wc.rawfile) - 1],
        timeout_s=config["download"]["timeout_s"],
        attempts=config["download"]["attempts"],
    script:
        "../../../scripts/fetch.py"
