"""Rule ucc_literature: table and figure of the UCC gains of all configured datasets."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.ucc.literature import curves_for_plot
from uqval.papers.ucc.literature_figures import fig_literature_ucc
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    gains = pd.concat([pd.read_csv(p) for p in smk.input.gains], ignore_index=True)
    write_csv(gains, smk.output.table)
    bw = gains[gains["axes"] == "bandwidth-miss_rate"].set_index("dataset")["gain_percent"]
    curves = {name: curves_for_plot(pd.read_csv(p)) for name, p in zip(smk.params.names, smk.input.tables, strict=True)}
    save(fig_literature_ucc(curves, bw.to_dict()), smk.output.fig_png, smk.output.fig_pdf)
    values = [(f"ucc/{r.dataset}/{r.axes}/gain", r.gain_percent) for r in gains.itertuples()]
    if {"HU2022_latent", "HU2022_feature"} <= set(gains["dataset"]):
        for axes in gains["axes"].unique():
            g = gains[gains["axes"] == axes].set_index("dataset")["gain_percent"]
            values.append((f"ucc/HU2022/{axes}/latent_beats_feature", float(g["HU2022_latent"] > g["HU2022_feature"])))
    write_csv(pd.DataFrame(values, columns=["key", "value"]), smk.output.values)


run_logged(snakemake, main)  # noqa: F821
