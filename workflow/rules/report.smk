"""Report: reproduction scoreboard (printed paper values vs computed ones)."""


rule scoreboard:
    input:
        values=VALUE_TABLES,
        expected=sorted(glob.glob(f"{config['expected_dir']}/*.yaml")),
        schema="config/schema/expected.schema.yaml",
    output:
        board=report(
            "results/reproduction.csv",
            caption="../report/reproduction.rst",
            category="Reproduction",
        ),
        summary="results/reproduction_summary.txt",
    log:
        "logs/scoreboard.log",
    conda:
        "../../envs/uqval.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../scripts/scoreboard.py"
