"""Real models' predictive outputs through ``uqval.validate(y_true, predictive)``.

scikit-learn's diabetes data (442 rows, shipped with scikit-learn: nothing is downloaded),
5-fold out-of-fold predictions for every row:

* random forest (300 trees): the per-tree predictions as an ``Ensemble``;
* gradient boosting with the quantile loss at 0.05, 0.25, 0.5, 0.75, 0.95 (one model per
  level, so the quantiles may cross): ``Quantiles``;
* NGBoost with a normal predictive: ``Normal(mean, sd)``;
* split-conformal 90 % intervals around the forest's mean (half-width: the 90 % quantile of
  the absolute residuals on a calibration third of each training fold): ``Intervals``.

Usage: ``nice -n 10 python benchmarks/real_models_predictive.py``; writes
``benchmarks/results/real_models_predictive.md``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
from sklearn.model_selection import KFold

import uqval

OUT = Path(__file__).resolve().parent / "results"
TAU = (0.05, 0.25, 0.5, 0.75, 0.95)
FAST = dict(n_boot=500, n_permutations=999, n_ucc_permutations=499)


def out_of_fold(x: np.ndarray, y: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    from ngboost import NGBRegressor

    m = y.size
    trees = np.empty((m, 300))
    quant = np.empty((m, len(TAU)))
    ngb_mu, ngb_sd = np.empty(m), np.empty(m)
    lo, hi = np.empty(m), np.empty(m)
    for train, test in KFold(5, shuffle=True, random_state=seed).split(x):
        rf = RandomForestRegressor(300, min_samples_leaf=3, random_state=seed).fit(x[train], y[train])
        trees[test] = np.column_stack([t.predict(x[test]) for t in rf.estimators_])
        for j, tau in enumerate(TAU):
            gb = GradientBoostingRegressor(loss="quantile", alpha=tau, n_estimators=200,
                                           max_depth=2, learning_rate=0.05, random_state=seed)
            quant[test, j] = gb.fit(x[train], y[train]).predict(x[test])
        ngb = NGBRegressor(n_estimators=400, verbose=False, random_state=seed)
        dist = ngb.fit(x[train], y[train]).pred_dist(x[test])
        ngb_mu[test], ngb_sd[test] = dist.params["loc"], dist.params["scale"]
        fit, cal = train[: 2 * len(train) // 3], train[2 * len(train) // 3:]
        rf2 = RandomForestRegressor(300, min_samples_leaf=3, random_state=seed).fit(x[fit], y[fit])
        resid = np.abs(y[cal] - rf2.predict(x[cal]))
        k = int(np.ceil(0.9 * (resid.size + 1)))
        half = np.sort(resid)[min(k, resid.size) - 1]
        centre = rf2.predict(x[test])
        lo[test], hi[test] = centre - half, centre + half
    return {"trees": trees, "quantiles": quant, "ngb_mu": ngb_mu, "ngb_sd": ngb_sd,
            "lo": lo, "hi": hi}


def main() -> None:
    warnings.filterwarnings("ignore")
    data = load_diabetes()
    x, y = data.data, data.target
    p = out_of_fold(x, y)
    bmi = x[:, list(data.feature_names).index("bmi")]
    models = {
        "random forest (Ensemble of 300 trees)": uqval.Ensemble(p["trees"]),
        "quantile boosting (Quantiles)": uqval.Quantiles(TAU, p["quantiles"]),
        "NGBoost (Normal)": uqval.Normal(p["ngb_mu"], p["ngb_sd"]),
        "split conformal (Intervals 0.9)": uqval.Intervals({0.9: (p["lo"], p["hi"])}),
    }
    lines = ["# Real models on scikit-learn's diabetes data (442 rows, 5-fold out of fold)", ""]
    rows = []
    for name, pred in models.items():
        res = uqval.validate(y, pred, {"bmi": bmi}, **FAST)
        cov = res.coverage.levels
        scores = res.scores.set_index("score")["value"]
        rows.append({
            "model": name, "data issues": "; ".join(f"{k}: {v}" for k, v in
                                                   res.data_issues.counts.items()) or "none",
            **{f"cov {lv:g}": f"{100 * v:.1f} %" for lv, v in zip(cov["level"], cov["value"],
                                                                  strict=True)},
            "stages": ", ".join(f"{k}={v}" for k, v in res.stage_verdicts.items()),
            "interval score 0.9": round(float(scores["interval_score_0.9"]), 1),
        })
        lines += [f"## {name}", "", res.summary(), ""]
    comparison = uqval.compare(models, y_true=y, n_boot=1000)
    ranks = comparison.scores["rank"].unstack("score")
    for row in rows:
        row["rank (interval score 0.9)"] = int(ranks.loc[row["model"], "interval_score_0.9"])
        row["rank (check score 0.05, 0.95)"] = int(ranks.loc[row["model"], "check_score"])
    lines += ["## All four compared on the scores they share", "", comparison.summary()]
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    text = table.to_markdown(index=False) + "\n\n" + "\n".join(lines)
    (OUT / "real_models_predictive.md").write_text(text)
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
