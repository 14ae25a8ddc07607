"""Model comparison: table of scores, paired differences and ranking with ties."""

from __future__ import annotations

import numpy as np
import pytest

from uqval import scores
from uqval.comparison import compare


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(21)
    m = 800
    u = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, m))
    x = rng.uniform(size=m)
    e = u * rng.standard_normal(m)
    models = {
        "right": (e, u),
        "twin": (e, u * (1 + 0.01 * rng.standard_normal(m)) ** 2),  # indistinguishable
        "too wide": (e, 2.0 * u),
    }
    return models, x, compare(models, features={"x": x}, n_boot=200, n_sim=100,
                              n_permutations=200, seed=3)


def test_table_holds_the_scores_with_references(result):
    models, _, res = result
    e, u = models["too wide"]
    assert res.scores.loc[("too wide", "nll"), "value"] == pytest.approx(scores.nll(e, u))
    assert res.scores.loc[("too wide", "zmse"), "value"] == pytest.approx(scores.zmse(e, u))
    assert not res.scores.loc[("too wide", "zms"), "inside"]
    assert res.scores.loc[("right", "zms"), "inside"]
    row = res.scores.loc[("right", "crps")]
    assert row["ci_low"] < row["value"] < row["ci_high"]
    assert ("right", "zmse[x]") in res.scores.index


def test_paired_differences_and_ranking_with_ties(result):
    models, _, res = result
    d = res.differences.loc[("right", "too wide", "nll")]
    expected = scores.nll(*models["right"]) - scores.nll(*models["too wide"])
    assert d["delta"] == pytest.approx(expected)
    assert d["ci_high"] < 0 and d["p_value"] < 0.01
    assert res.ranking.loc["too wide", "nll"] == 3
    assert res.ranking.loc["right", "nll"] == res.ranking.loc["twin", "nll"] == 1
    assert res.ranking.loc["right", "mae"] == res.ranking.loc["too wide", "mae"] == 1  # same E
    assert ("right", "too wide", "auucc") in res.differences.index
    assert "ModelComparison(3 models" in repr(res)


def test_bad_models():
    with pytest.raises(ValueError, match="at least 2"):
        compare({"a": ([1.0, 2.0], [1.0, 1.0])})
    with pytest.raises(ValueError, match="different numbers"):
        compare({"a": ([1.0, 2.0], [1.0, 1.0]), "b": ([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])})
    with pytest.raises(ValueError, match=r"models\['b'\]: uncertainties"):
        compare({"a": ([1.0, 2.0], [1.0, 1.0]), "b": ([1.0, 2.0], [1.0, 0.0])})
