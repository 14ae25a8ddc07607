"""Rule heavytails_jacobs: Tables 5-6 and Figs 9-10 of the heavy-tails paper (Jacobs sets)."""

import json
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails import figures as plots
from uqval.papers.heavytails import tables as ht
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def load(paths):
    return [json.loads(Path(p).read_text()) for p in paths]


def main(smk):
    out = smk.output
    table = ht.jacobs_table(load(smk.input.reports), load(smk.input.screens), load(smk.input.averages))
    split = smk.params.first_table_size
    write_csv(table.iloc[:split], out.tab5)
    write_csv(table.iloc[split:], out.tab6)
    write_csv(ht.jacobs_values(table), out.values)
    save(plots.fig_skewness_map(table, pd.read_csv(smk.input.nig_curve), smk.params.limits),
         out.fig09_png, out.fig09_pdf)
    save(plots.fig_jacobs_tests(table), out.fig10_png, out.fig10_pdf)


run_logged(snakemake, main)  # noqa: F821
