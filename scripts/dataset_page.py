"""Rule dataset_page: results/datasets/<id>/ (engine report, simulated references, heavy-tail
screening, UCC gain, provenance)."""

import json
import logging
from pathlib import Path

import pandas as pd

from uqval.pipeline.dataset_page import dataset_tables, interval_page, variance_page
from uqval.pipeline.scripting import run_logged


def _json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def main(smk):
    inp, p = smk.input, smk.params
    table = pd.read_csv(inp.table)
    report = _json(inp.report)
    extra = dataset_tables(
        report,
        screening=_json(inp.screen) if "screen" in inp.keys() else None,
        zeta=pd.read_csv(inp.zeta) if "zeta" in inp.keys() else None,
        simref_summary=_json(inp.simref) if "simref" in inp.keys() else None,
        ucc=pd.read_csv(inp.ucc),
    )
    if "uE" in table:
        page = variance_page(table, report, smk.output.page, seed=p.seed, n_boot=p.n_boot,
                             n_bins=p.n_bins, n_permutations=p.n_permutations, extra=extra)
    else:
        page = interval_page(pd.read_csv(inp.checks), Path(inp.summary).read_text(encoding="utf-8"),
                             report, smk.output.page, extra=extra)
    logging.info("%s: %s", page["id"], page["stage_verdicts"])


run_logged(snakemake, main)  # noqa: F821
