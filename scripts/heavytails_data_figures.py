"""Rule heavytails_data_figures: Figs. 1, 2, 6, 7, 8 of the heavy-tails paper."""

import json
from pathlib import Path

import pandas as pd

from uqval.papers.heavytails import figures as plots
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    sets = []
    for number, (name, table, report, screen) in enumerate(
        zip(smk.params.names, smk.input.tables, smk.input.reports, smk.input.screens, strict=True),
        start=1,
    ):
        data = pd.read_csv(table)
        fits = json.loads(Path(screen).read_text())["fits"]
        units = json.loads(Path(report).read_text()).get("units", "")  # the preparation sidecar
        sets.append(plots.SetData(number, name, data["E"].to_numpy(), data["uE"].to_numpy(), fits, units))
    tab3, tab4 = pd.read_csv(smk.input.tab3), pd.read_csv(smk.input.tab4)
    save(plots.fig_uE2_histograms(sets), out.fig01_png, out.fig01_pdf)
    save(plots.fig_E2_histograms(sets), out.fig02_png, out.fig02_pdf)
    save(plots.fig_skewness_map(tab3, pd.read_csv(smk.input.nig_curve), smk.params.limits),
         out.fig06_png, out.fig06_pdf)
    save(plots.fig_zeta_comparison(tab4, pd.read_csv(smk.input.tab4_trimmed), smk.params.trimmed_fraction),
         out.fig07_png, out.fig07_pdf)
    decimations = [(s.number, s.name, pd.read_csv(p)) for s, p in zip(sets, smk.input.decimations, strict=True)]
    save(plots.fig_decimation(decimations, tab4), out.fig08_png, out.fig08_pdf)


run_logged(snakemake, main)  # noqa: F821
