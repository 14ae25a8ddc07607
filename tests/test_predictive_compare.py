"""compare(models, y_true=...) with predictive objects of different kinds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import uqval


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(11)
    m = 1500
    mu, sd = rng.normal(size=m), rng.uniform(0.5, 2.0, m)
    y = mu + sd * rng.standard_normal(m)
    tau = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    models = {
        "normal": uqval.Normal(mu, sd),
        "ensemble": uqval.Ensemble(mu[:, None] + sd[:, None] * rng.standard_normal((m, 50))),
        "quantiles": uqval.Quantiles(tau, mu[:, None] + sd[:, None] * stats.norm.ppf(tau)),
        "too wide": uqval.Normal(mu, 2.0 * sd),
    }
    return y, mu, sd, tau, models


def test_models_of_different_kinds_share_the_applicable_scores(case):
    y, mu, sd, tau, models = case
    res = uqval.compare(models, y_true=y, n_boot=200)
    scores = set(res.scores.index.get_level_values("score"))
    assert scores == {"check_score", "interval_score_0.5", "interval_score_0.9", "mae", "rmse"}
    assert res.check_levels == tuple(tau) and res.levels == (0.5, 0.9)
    # brute force: pinball at the quantile levels, and the library's interval score
    q = mu[:, None] + sd[:, None] * stats.norm.ppf(tau)
    r = y[:, None] - q
    want = np.mean(r * (tau - (r < 0)))
    assert res.scores.loc[("normal", "check_score"), "value"] == pytest.approx(want)
    assert res.scores.loc[("normal", "interval_score_0.9"), "value"] == pytest.approx(
        uqval.interval_score(y - mu, sd, 0.9))
    ranks = res.scores.xs("interval_score_0.9", level="score")["rank"]
    assert ranks["too wide"] == 4 and ranks["normal"] == 1
    assert res.differences.loc[("normal", "too wide", "check_score"), "better"] == "normal"
    cov = res.coverage.xs(0.9, level="level")["value"]
    assert cov["too wide"] > 0.99 and abs(cov["normal"] - 0.9) < 0.03
    assert "check_score" in res.summary()


def test_crps_and_nll_only_when_every_model_has_them(case):
    y, _, _, _, models = case
    res = uqval.compare({k: models[k] for k in ("normal", "too wide")}, y_true=y, n_boot=100)
    scores = set(res.scores.index.get_level_values("score"))
    assert {"crps", "nll", "interval_score_0.8"} <= scores
    both = uqval.compare({k: models[k] for k in ("normal", "ensemble")}, y_true=y, n_boot=100)
    names = set(both.scores.index.get_level_values("score"))
    assert "crps" in names and "nll" not in names


def test_mixing_pairs_and_predictives_is_refused(case):
    y, mu, sd, _, models = case
    with pytest.raises(ValueError, match="give every model as a predictive object"):
        uqval.compare({"a": models["normal"], "b": (y - mu, sd)}, y_true=y)
