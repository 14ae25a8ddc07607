"""Rule simref_figures: Tables II and A1-A4, Figs 2-7 and A1-A3 of the simref paper.

Reads what the per-dataset rule simref_set wrote (z-score summaries, zeta-scores, sensitivity
and ZMSE extrapolation tables) and only draws; a set whose extrapolation simref_set skipped
(too few points) has no Fig. A3 panel and no extrapolation value.
"""

import json
import logging
import math
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.simref import appendix_b
from uqval.papers.simref import figures as plots
from uqval.papers.simref.statistics import LinearFit, ZmseExtrapolation
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import figure, save


def _json(path):
    return json.loads(Path(path).read_text())


def stored_extrapolation(table_path, fit, m):
    """The ZMSE extrapolation of one set as simref_set wrote it (table and fit summary), or
    None when it was skipped. Only the fitted line and the intercept interval are stored: the
    standard errors of the fit are NaN (Fig. A3 does not use them)."""
    if not fit:
        return None
    table = pd.read_csv(table_path, float_precision="round_trip")
    table["in_fit"] = table["in_fit"].astype(bool)
    line = LinearFit(intercept=fit["intercept"], slope=fit["slope"], intercept_se=math.nan,
                     slope_se=math.nan, residual_sd=math.nan, n=int(table["in_fit"].sum()),
                     with_intercept=True)
    return ZmseExtrapolation(table, line, fit["ci_low"], fit["ci_high"], bool(fit["consistent"]), m)


def no_extrapolation_figure():
    """Fig. A3 when simref_set skipped the extrapolation of every set."""
    fig, ax = figure()
    ax.set_axis_off()
    ax.text(0.5, 0.5, "ZMSE extrapolation skipped for every set\n(too few points per bin)",
            ha="center", va="center", fontsize=8)
    return fig


def main(smk):
    out, cfg = smk.output, smk.params.settings
    names = smk.params.names
    data = [pd.read_csv(p) for p in smk.input.tables]
    units = [str(_json(p).get("units") or "") for p in smk.input.reports]
    sets = [plots.SetSample(i, n, d["E"].to_numpy(), d["uE"].to_numpy(), u)
            for i, (n, d, u) in enumerate(zip(names, data, units, strict=True), 1)]
    summaries = [_json(p) for p in smk.input.summaries]
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
    for (i, n), p, s, d in zip(enumerate(names, 1), smk.input.extrapolations, summaries, data, strict=True):
        ext = stored_extrapolation(p, s["extrapolation"], len(d))
        if ext is None:
            logging.warning("set %d (%s): no ZMSE extrapolation (skipped by simref_set): no Fig. A3 panel", i, n)
        else:
            extrapolations.append((i, n, ext))

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
    save(plots.fig_zmse_extrapolation(extrapolations) if extrapolations else no_extrapolation_figure(),
         out.figA3_png, out.figA3_pdf)

    values = []
    for r in tab2.itertuples():
        values += [(f"simref/{r.dataset}/{k}", getattr(r, k)) for k in ("mu_Z", "se_mu_Z", "sigma_Z", "se_sigma_Z", "b_Z", "nu_Z")]
    for r in fits.itertuples():
        values += [(f"simref/appb/{r.model}/{r.statistic}/{k}", getattr(r, k)) for k in ("intercept", "slope", "slope0")]
    for _i, n, ext in extrapolations:
        values.append((f"simref/{n}/extrapolation_consistent", float(ext.consistent)))
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
