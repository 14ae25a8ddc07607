"""Rule simref_figures: Tables II and A1-A4, Figs 2-7 and A1-A3 of the simref paper."""

import json
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.simref import appendix_b
from uqval.papers.simref import figures as plots
from uqval.papers.simref import statistics as paper_stats
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def _units(table_path):
    """Units of E and uE from the preparation report written next to the prepared table
    (same rule output); empty when unavailable."""
    report = Path(table_path).with_suffix(".json")
    if not report.exists():
        return ""
    return str(json.loads(report.read_text()).get("units") or "")


def main(smk):
    out, cfg = smk.output, smk.params.settings
    names = smk.params.names
    data = [pd.read_csv(p) for p in smk.input.tables]
    units = [_units(p) for p in smk.input.tables]
    sets = [plots.SetSample(i, n, d["E"].to_numpy(), d["uE"].to_numpy(), u)
            for i, (n, d, u) in enumerate(zip(names, data, units, strict=True), 1)]
    summaries = [json.loads(Path(p).read_text()) for p in smk.input.summaries]
    tab2 = pd.DataFrame([{"set": i, "dataset": n, **s["zscores"]} for i, (n, s) in enumerate(zip(names, summaries, strict=True), 1)])
    write_csv(tab2, out.tab2)
    zetas = pd.concat([pd.read_csv(p).assign(set=i, dataset=n) for i, (n, p) in enumerate(zip(names, smk.input.zetas, strict=True), 1)])
    write_csv(zetas, out.tabA)
    sens = pd.concat([pd.read_csv(p).assign(set=i) for i, p in enumerate(smk.input.sensitivities, 1)])
    appb = pd.concat([pd.read_csv(p) for p in smk.input.appb], ignore_index=True)
    fits = []
    for model in ("NIG", "T6IG"):
        for stat in ("ENCE", "ZMSE"):
            fits.append({"model": model, "statistic": stat, **appendix_b.fit_sqrt_ratio(appb[appb["model"] == model], stat)})
    fits = pd.DataFrame(fits)
    write_csv(fits, out.appb_fits)
    extrapolations = []
    for (i, n), p, s in zip(enumerate(names, 1), smk.input.extrapolations, summaries, strict=True):
        extrapolations.append((i, n, pd.read_csv(p), s["extrapolation"]))

    save(plots.fig_z_histograms(sets), out.fig02_png, out.fig02_pdf)
    save(plots.fig_error_histograms(sets, tab2["nu_Z"].tolist(), seed=smk.params.seed), out.fig03_png, out.fig03_pdf)
    save(plots.fig_reference_by_set(sens), out.fig04_png, out.fig04_pdf)
    # The D = N(0,1) references of the same sets and bins (nu = inf rows) give the dashed nu -> inf lines.
    sweep = pd.read_csv(smk.input.sweep)
    normal = sens[sens["set"].isin(cfg["nu_sweep_sets"]) & sens["statistic"].isin(sweep["statistic"].unique())]
    save(plots.fig_reference_vs_nu(pd.concat([sweep, normal], ignore_index=True), sets=cfg["nu_sweep_sets"]),
         out.fig05_png, out.fig05_pdf)
    save(plots.fig_zeta_scores(zetas, ("ZMS", "CC")), out.fig06_png, out.fig06_pdf)
    save(plots.fig_zeta_scores(zetas, ("ENCE", "ZMSE")), out.fig07_png, out.fig07_pdf)
    save(plots.fig_appb_references(appb, "NIG"), out.figA1_png, out.figA1_pdf)
    save(plots.fig_appb_references(appb, "T6IG"), out.figA2_png, out.figA2_pdf)
    results = []
    for i, n, _table, _fit in extrapolations:
        results.append((i, n, paper_stats.zmse_extrapolation(sets[i - 1].E, sets[i - 1].uE,
                                                         range(cfg["extrapolation"]["n_min"], cfg["extrapolation"]["n_max"] + 1, cfg["extrapolation"]["n_step"]),
                                                         cfg["extrapolation"]["min_per_bin"], cfg["extrapolation"]["fit_min_n"])))
    save(plots.fig_zmse_extrapolation(results), out.figA3_png, out.figA3_pdf)

    values = []
    for r in tab2.itertuples():
        values += [(f"simref/{r.dataset}/{k}", getattr(r, k)) for k in ("mu_Z", "se_mu_Z", "sigma_Z", "se_sigma_Z", "b_Z", "nu_Z")]
    for r in fits.itertuples():
        values += [(f"simref/appb/{r.model}/{r.statistic}/{k}", getattr(r, k)) for k in ("intercept", "slope", "slope0")]
    for _i, n, _t, fit in extrapolations:
        values.append((f"simref/{n}/extrapolation_consistent", float(fit["consistent"])))
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
