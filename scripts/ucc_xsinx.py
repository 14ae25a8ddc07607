"""Rule ucc_xsinx: the UCC paper's x sin(x) experiment (Sect. 4.1): Tables 2-3, Figs 7 and 4.1a."""

import pandas as pd

from uqval._internal.atomic import write_csv
from uqval.papers.ucc import figures as plots
from uqval.papers.ucc.experiments import GBR_TUNED, GBR_WEAK, run_xsinx, table3
from uqval.pipeline.scripting import run_logged
from uqval.plots.style import save


def main(smk):
    s, out = smk.params.settings, smk.output
    res = run_xsinx(seed=smk.params.seed, n_train=s["n_train"], n_test=s["n_test"], n_heldout=s["n_heldout"],
                    n_permutations=s["n_permutations"], target=smk.params.target)
    write_csv(pd.DataFrame([{"model": "GBR", **GBR_TUNED.__dict__}, {"model": "GBR-Weak", **GBR_WEAK.__dict__}]),
              out.tab2)
    tab3 = table3(res.summary, c=0.1)
    write_csv(tab3.reset_index(), out.tab3)
    write_csv(res.summary, out.summary)
    write_csv(res.permutation, out.permutation)
    save(plots.fig_xsinx_data(res.data, res.models["GBR"].test), out.fig07_png, out.fig07_pdf)
    save(plots.fig_xsinx_ucc(res.curves, res.operating_points), out.fig4_1a_png, out.fig4_1a_pdf)
    values = []
    for coords in ("Ex-De", "Bw-MR"):
        col = f"{coords} AUUCC"
        ranks = tab3[col].rank(method="min")
        for model, row in tab3.iterrows():
            values += [(f"ucc/tab3/{model}/{coords}/{k}", row[f"{coords} {k}"]) for k in ("AUUCC", "Cost", "Opt. Cost")]
            values.append((f"ucc/tab3/{model}/{coords}/AUUCC_rank", float(ranks[model])))
    perm = res.permutation
    values.append(("ucc/xsinx/max_p_value", float(perm["p_value"].max())))
    bw_mr = perm[perm["coordinates"] == "Bw-MR"]
    values.append(("ucc/xsinx/max_p_value_bw_mr", float(bw_mr["p_value"].max())))
    write_csv(pd.DataFrame(values, columns=["key", "value"]), out.values)


run_logged(snakemake, main)  # noqa: F821
