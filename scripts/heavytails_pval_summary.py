"""Rule heavytails_pval_summary: p_val per scenario and nu with binomial intervals (Fig. 5)."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails.montecarlo import (
    pval_summary,
    pval_upper_axis,
    tig_fixed_uncertainties,
)
from uqval.pipeline.scripting import run_logged


def main(smk):
    p = smk.params
    rows = pd.concat([pd.read_csv(f) for f in smk.input.chunks], ignore_index=True)
    fixed_uE = tig_fixed_uncertainties(p.M, p.seed)
    summary = []
    for (scenario, nu), group in rows.groupby(["scenario", "nu"], sort=True):
        upper = pval_upper_axis(scenario, nu, p.M, p.upper_axis_samples, p.seed,
                                fixed_uE=fixed_uE if scenario == "TIG" else None)
        summary.append(pval_summary(group) | {"beta_GM": upper})
    table = pd.DataFrame(summary)
    write_csv(table, smk.output.summary)
    values = [(f"mc/pval/{r.scenario}/{r.nu:g}/{s}", getattr(r, f"{s}_pval"))
              for r in table.itertuples() for s in ("ZMS", "RCE")]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), smk.output.values)


run_logged(snakemake, main)  # noqa: F821
