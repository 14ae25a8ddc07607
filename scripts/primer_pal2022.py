"""Rule primer_pal2022: Figs 12-15, A2 and A3 of the primer paper (PAL2022 sets)."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.primer import figures as primer
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    out = smk.output
    settings = primer.PrimerSettings.from_config(smk.params.settings, smk.params.seed)
    frames = iter(pd.read_csv(p) for p in smk.input.tables)
    sets = {name: (next(frames), next(frames)) for name in smk.params.names}  # (uncal, cal)
    table = primer.mean_var_intervals(sets)
    write_csv(table, out.fig12_table)
    save(primer.fig_mean_var(table), out.fig12_png, out.fig12_pdf)
    values = [(f"primer/fig12/{r.set}_{r.version}/var_z_ci_contains_1", float(r.var_z_ci_contains_1))
              for r in table.itertuples()]
    for fig, method in (("fig13", "RF"), ("fig14", "LR"), ("fig15", "GPR_Bayesian")):
        chosen = {k: v for k, v in sets.items() if k.endswith(f"_{method}")}
        figure, counts = primer.fig_pal_method(chosen, settings)
        save(figure, out[f"{fig}_png"], out[f"{fig}_pdf"])
        values += [(f"primer/{fig}/{name}_{version}/adaptive_bins", n) for (name, version), n in counts.items()]
    starts = smk.params.settings["binning_impact_starts"]
    for fig, name in (("figA2", "Diffusion_LR"), ("figA3", "Perovskite_GPR_Bayesian")):
        figure, counts = primer.fig_binning_impact(sets[name], starts, settings)
        save(figure, out[f"{fig}_png"], out[f"{fig}_pdf"])
        values += [(f"primer/{fig}/{name}_{version}/adaptive_bins_from_{n}", k)
                   for (version, n), k in counts.items()]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
