"""Rule heavytails_mc_figures: Figs 3, 4, 5 and 11 of the heavy-tails paper."""

import pandas as pd

from uqval.papers.heavytails import figures_mc as plots
from uqval.papers.heavytails.montecarlo import squared_normal_shape_statistics
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    save(plots.fig_shape_statistics(pd.read_csv(smk.input.curves), squared_normal_shape_statistics()),
         out.fig03_png, out.fig03_pdf)
    points = pd.read_csv(smk.input.tig_bias)
    save(plots.fig_tig_bias(points, ("RCE", "1-ZMS")), out.fig04_png, out.fig04_pdf)
    save(plots.fig_tig_bias(points, "RCE2"), out.fig11_png, out.fig11_pdf)
    summary = pd.read_csv(smk.input.pval)
    save(plots.fig_pval(summary[summary["scenario"] == "NIG"], summary[summary["scenario"] == "TIG"]),
         out.fig05_png, out.fig05_pdf)


run_logged(snakemake, main)  # noqa: F821
