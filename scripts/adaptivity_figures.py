"""Rule adaptivity_figures: Table II and Figs 2-5 of the adaptivity paper (QM9 running example)."""

import numpy as np
import pandas as pd

from uqval import binning
from uqval._internal.atomic import write_csv
from uqval.calibration.adaptivity import local_analysis
from uqval.calibration.local import global_zmean, global_zms
from uqval.papers.adaptivity import figures as plots
from uqval.papers.adaptivity.random_order import random_order_summary, rank_correlations
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save

LABELS = {"uE": (r"$u_E$ (eV)", True, None), "X_mass": ("molecular mass $X_1$ (Da)", False, (50, 150)),
          "X_hetero_fraction": ("heteroatom fraction $X_2$", False, None)}
# Panel titles (the value keys and CSV columns keep the short names uE, mass, hetero_fraction).
DISPLAY = {"uE": "$u_E$", "X_mass": "$X_1$ (mass)", "X_hetero_fraction": "$X_2$ (heteroatom fraction)"}


def main(smk):
    p, out, cfg = smk.params, smk.output, smk.params.settings
    t = pd.read_csv(smk.input.table)
    E, uE = t["E"].to_numpy(), t["uE"].to_numpy()
    variables = ["uE"] + [f"X_{f}" for f in p.features]
    names = {v: v.removeprefix("X_") for v in variables}
    seeds = dict(zip(variables, np.random.SeedSequence(p.seed).spawn(2 * len(variables))[::2], strict=True))
    strat_seeds = dict(zip(variables, np.random.SeedSequence(p.seed).spawn(2 * len(variables))[1::2], strict=True))

    corr = rank_correlations({"X1": t["X_mass"], "X2": t["X_hetero_fraction"], "|E|": np.abs(E), "uE": uE})
    write_csv(corr.reset_index(names="variable"), out.tab2)

    save(plots.fig_running(E, uE, {names[v]: (t[v].to_numpy(), *LABELS[v]) for v in variables}),
         out.fig02_png, out.fig02_pdf)
    nominal, stratified = {}, {}
    for v in variables:
        x = t[v].to_numpy()
        nominal[v] = local_analysis(E, uE, x, binning.equal_count_bins(x, cfg["n_bins"]), seeds[v], cfg["n_boot_min"])
        strata = binning.stratified_bins(x, cfg["strata_pop_min"])
        stratified[v] = local_analysis(E, uE, x, strata.bins, strat_seeds[v], cfg["n_boot_min"])
    whole_m = global_zmean(E, uE)
    whole_ms = global_zms(E, uE)
    save(plots.fig_local({DISPLAY.get(v, names[v]): (nominal[v], LABELS[v][0], LABELS[v][1], whole_m, whole_ms)
                          for v in variables}),
         out.fig03_png, out.fig03_pdf)
    save(plots.fig_stratified({DISPLAY.get(v, names[v]): (stratified[v], LABELS[v][0], LABELS[v][1], whole_m, whole_ms)
                               for v in variables}),
         out.fig05_png, out.fig05_pdf)

    variants, values = {}, []
    perms = pd.concat([pd.read_csv(f).assign(variable=f.split("/")[-1].rsplit("_", 1)[0]) for f in smk.input.perms])
    for v in variables:
        a, s = nominal[v], stratified[v]
        r = random_order_summary(perms[perms["variable"] == v], cfg["n_bins"], p.seed)
        rows = []
        for stat, fv_n, fv_s in (("fv_zm", a.fv_zm, s.fv_zm), ("fv_zms", a.fv_zms, s.fv_zms)):
            rr = r[stat]
            rows += [("Nominal", stat, fv_n.value, fv_n.ci_low, fv_n.ci_high),
                     ("Random", stat, rr["random_mean"], rr["random_low"], rr["random_high"]),
                     ("Random + Binomial", stat, rr["binomial_mean"], rr["binomial_low"], rr["binomial_high"]),
                     ("Stratified", stat, fv_s.value, fv_s.ci_low, fv_s.ci_high)]
            values += [(f"adaptivity/{names[v]}/{stat}/nominal", fv_n.value),
                       (f"adaptivity/{names[v]}/{stat}/stratified", fv_s.value)]
        variants[names[v]] = pd.DataFrame(rows, columns=["variant", "stat", "value", "low", "high"])
        values.append((f"adaptivity/{names[v]}/n_distinct", t[v].nunique()))
        values.append((f"adaptivity/{names[v]}/n_strata", len(s.zm)))
    write_csv(pd.concat([df.assign(variable=k) for k, df in variants.items()]), out.fv)
    display = {names[v]: DISPLAY.get(v, names[v]) for v in variables}
    save(plots.fig_fv({display[k]: df for k, df in variants.items()}), out.fig04_png, out.fig04_pdf)

    Z = E / uE
    values += [
        ("adaptivity/M", len(t)),
        ("adaptivity/zms", float(np.mean(Z**2))),
        ("adaptivity/zms_se", float(np.std(Z**2, ddof=1) / np.sqrt(len(Z)))),
        ("adaptivity/mean_z", float(np.mean(Z))),
        ("adaptivity/mean_z_se", float(np.std(Z, ddof=1) / np.sqrt(len(Z)))),
        ("adaptivity/n_uE_above_0.02", int(np.sum(uE > 0.02))),
    ]
    for a, b in (("X1", "X2"), ("X1", "|E|"), ("X1", "uE"), ("X2", "|E|"), ("X2", "uE"), ("|E|", "uE")):
        values.append((f"adaptivity/rho/{a}-{b}", float(corr.loc[a, b])))
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
