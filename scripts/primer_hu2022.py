"""Rule primer_hu2022: Fig. 19 of the primer paper (HU2022 conformal intervals)."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.primer import figures as primer
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    settings = primer.PrimerSettings.from_config(smk.params.settings, smk.params.seed)
    feature, latent = (pd.read_csv(p) for p in smk.input.tables)
    figure, coverages = primer.fig_hu(feature, latent, settings)
    save(figure, out.fig19_png, out.fig19_pdf)
    values = [(f"primer/fig19/{name}/coverage_{round(100 * p)}", v) for (name, p), v in coverages.items()]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
