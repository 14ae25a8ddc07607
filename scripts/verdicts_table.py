"""Rule verdicts_table: one row per dataset with the flowchart verdicts."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.pipeline.scripting import run_logged
from uqval.report.files import csv_safe
from uqval.validation.flowchart import Check, verdicts


def main(smk):
    rows = []
    for dataset, path in zip(smk.params.datasets, smk.input.checks, strict=True):
        checks = [Check(**{**r, "testable": r.get("testable", True) in (True, "True")})
                  for r in pd.read_csv(path, keep_default_na=False).to_dict("records")]
        v = verdicts(checks)
        failed = [f"{c.conditioning} {c.test}" if c.conditioning != "-" else c.test for c in checks
                  if c.testable and not c.passed]
        rows.append({
            "dataset": dataset,
            "average": v.get("average", ""),
            "consistency": v.get("consistency", ""),
            "adaptivity": "; ".join(f"{k.split(':', 1)[1]}: {val}" for k, val in v.items() if k.startswith("adaptivity:"))
            or "no feature",
            "failed_tests": "; ".join(failed),
            "notes": "; ".join(sorted({c.note for c in checks if c.note})),
        })
    columns = ["dataset", "average", "consistency", "adaptivity", "failed_tests", "notes"]
    write_csv(csv_safe(pd.DataFrame(rows, columns=columns)), smk.output.table)  # features come from YAML files


run_logged(snakemake, main)  # noqa: F821
