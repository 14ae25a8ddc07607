"""Rule primer_synthetic: cases A-F, Tables 1-2, Figs 1-11 and A1 of the primer paper."""

import logging

import numpy as np
import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.primer import figures as primer
from uqval.papers.primer.cases import synthetic_cases, table2
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    cfg, out = smk.params.settings, smk.output
    settings = primer.PrimerSettings.from_config(cfg, smk.params.seed)
    c = cfg["cases"]
    cases = synthetic_cases(np.random.default_rng(smk.params.seed), M=c["M"], a=c["a"], b=c["b"])
    write_csv(pd.concat([df.assign(case=name) for name, df in cases.items()]), out.cases, float_format="%.17g")
    write_csv(primer.table1_design(), out.tab1)
    tab2 = table2(cases, n_boot=cfg["table2_n_boot"], seed=smk.params.seed)
    write_csv(tab2.reset_index(), out.tab2)
    values = [(f"primer/tab2/{case}/{col}", float(tab2.loc[case, col]))
              for case in tab2.index for col in ("ratio", "var_z", "ratio_flag", "var_z_flag")]
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)

    consistency, all_cases = "ABCDE", "ABCDEF"
    figures = {
        "fig01": lambda: primer.fig_calibration_curves(cases, all_cases),
        "fig02": lambda: primer.fig_errors_vs_uncertainty(cases, consistency),
        "fig03": lambda: primer.fig_conditional_curves(cases, consistency, "uE", settings, t_panel="E"),
        "fig04": lambda: primer.fig_reliability(cases, consistency, settings),
        "fig05": lambda: primer.fig_lzisd(cases, consistency, "uE", settings, log_x=True),
        "fig06": lambda: primer.fig_lcp(cases, consistency, "uE", settings, log_x=True, t_panel="E"),
        "fig07": lambda: primer.fig_confidence(cases, consistency, settings, t_panel="E"),
        "fig08": lambda: primer.fig_z_vs(cases, all_cases, "X", log_x=False),
        "fig09": lambda: primer.fig_conditional_curves(cases, all_cases, "X", settings),
        "fig10": lambda: primer.fig_lzisd(cases, all_cases, "X", settings, log_x=False),
        "fig11": lambda: primer.fig_lcp(cases, all_cases, "X", settings, log_x=False),
        "figA1": lambda: primer.fig_a1(cases, all_cases, settings),
    }
    for fig in smk.params.figs:
        save(figures[fig](), out[f"{fig}_png"], out[f"{fig}_pdf"])
        logging.info("%s done", fig)


run_logged(snakemake, main)  # noqa: F821
