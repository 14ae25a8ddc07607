"""Rule heavytails_mc_figures: Figs 3, 4, 5 and 11 of the heavy-tails paper."""

import pandas as pd

from uqval.papers.heavytails import figures_mc as plots
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def chi2_limits(path):
    """beta_GM and kappa_CS of chi^2_1 as written by rule heavytails_shape_curves."""
    values = pd.read_csv(path, float_precision="round_trip").set_index("key")["value"]
    return {stat: float(values[f"mc/chi2_1/{stat}"]) for stat in ("beta_GM", "kappa_CS")}


def main(smk):
    out = smk.output
    save(plots.fig_shape_statistics(pd.read_csv(smk.input.curves), chi2_limits(smk.input.chi2)),
         out.fig03_png, out.fig03_pdf)
    points = pd.read_csv(smk.input.tig_bias)
    save(plots.fig_tig_bias(points, ("RCE", "1-ZMS")), out.fig04_png, out.fig04_pdf)
    save(plots.fig_tig_bias(points, "RCE2"), out.fig11_png, out.fig11_pdf)
    summary = pd.read_csv(smk.input.pval)
    save(plots.fig_pval(summary[summary["scenario"] == "NIG"], summary[summary["scenario"] == "TIG"]),
         out.fig05_png, out.fig05_pdf)


run_logged(snakemake, main)  # noqa: F821
