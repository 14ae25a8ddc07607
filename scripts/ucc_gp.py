"""Rule ucc_gp: the UCC paper's GP vs GBR-QR example (Sect. 2.2, Figs 2 and 4.1b-c)."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.ucc import figures as plots
from uqval.papers.ucc.experiments import gp_example
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    ex = gp_example(seed=smk.params.seed, target=smk.params.target)
    write_csv(ex.summary, out.summary)
    save(plots.fig_gp_intervals(ex), out.fig02_png, out.fig02_pdf)
    save(plots.fig_gp_ucc(ex), out.fig4_1bc_png, out.fig4_1bc_pdf)
    values = [(f"ucc/gp/{r.model}/gain_sign", float(r.auucc_gain > 0) * 2 - 1) for r in ex.summary.itertuples()]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
