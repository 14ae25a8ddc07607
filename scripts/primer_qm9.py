"""Rule primer_qm9: Figs 16-18 of the primer paper (BUS2022 QM9)."""

import numpy as np
import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.calibration.local import global_zvar
from uqval.papers.primer import figures as primer
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    settings = primer.PrimerSettings.from_config(smk.params.settings, smk.params.seed)
    data = pd.read_csv(smk.input.table[0])
    save(primer.fig_qm9_exploration(data), out.fig16_png, out.fig16_pdf)
    figure, counts = primer.fig_qm9_validation(data, settings)
    save(figure, out.fig17_png, out.fig17_pdf)
    save(primer.fig_qm9_t(data, settings), out.fig18_png, out.fig18_pdf)
    var_z = global_zvar(data["E"], data["uE"], method="cho").iloc[0]
    values = [
        ("primer/qm9/M", len(data)),
        ("primer/qm9/var_z", var_z["value"]),
        ("primer/qm9/var_z_se", (var_z["ci_high"] - var_z["ci_low"]) / (2 * 1.959964)),
        ("primer/qm9/n_uE_above_0.05", int(np.sum(data["uE"] > 0.05))),
        *[(f"primer/fig17/adaptive_bins_{k}", n) for k, n in counts.items()],
    ]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
