"""Murphy diagrams of variance forecasts: elementary scores, mixture, dominance verdicts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import uqval
from uqval.scores.murphy import elementary_scores, murphy_diagram


def test_elementary_score_follows_its_definition_row_by_row():
    """Brute force: S_θ(x, y) = |1{y <= θ} - 1{x <= θ}| |y - θ| with plain Python."""
    rng = np.random.default_rng(0)
    x, y, t = rng.exponential(size=30), rng.exponential(size=30), rng.exponential(size=7)
    s = elementary_scores(x, y, t)
    for i in range(30):
        for j in range(7):
            expected = abs(int(y[i] <= t[j]) - int(x[i] <= t[j])) * abs(y[i] - t[j])
            assert s[i, j] == pytest.approx(expected, abs=1e-15)


def test_mixture_over_thresholds_is_half_the_squared_error():
    """Ehm et al. (2016) Eq. 11 for the mean: ∫ S_θ(x, y) dθ = (x - y)²/2, so the integral of
    the Murphy curve is half the mean squared error of uE² against E² (closed form)."""
    rng = np.random.default_rng(1)
    u = rng.uniform(0.5, 2.0, 300)
    e = u * rng.standard_normal(300)
    x, y = np.square(1.3 * u), np.square(e)
    top = float(max(x.max(), y.max())) * 1.001
    # between consecutive x_i and y_i the integrand is linear in θ (it jumps at θ = x_i):
    # the midpoint rule on those pieces is exact
    edges = np.unique(np.concatenate([[0.0, top], x, y]))
    mid, width = (edges[1:] + edges[:-1]) / 2, np.diff(edges)
    curve = murphy_diagram({"a": (e, 1.3 * u), "b": (e, u)}, thresholds=mid,
                           n_boot=10).scores["a"]
    assert np.dot(curve, width) == pytest.approx(0.5 * np.mean(np.square(x - y)), rel=1e-9)
    # and row by row, against an adaptive quadrature of the definition
    one = integrate.quad(lambda t: elementary_scores(x[:1], y[:1], [t])[0, 0], 0.0, top,
                         points=[x[0], y[0]], limit=200)[0]
    assert one == pytest.approx(0.5 * (x[0] - y[0]) ** 2, rel=1e-7)


def planted(m: int, seed: int):
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.5, m)
    return u * rng.standard_normal(m), u


def test_the_right_variances_dominate_too_small_ones():
    e, u = planted(5000, 2)
    res = murphy_diagram({"right": (e, u), "too small": (e, u / 1.5)}, n_boot=500)
    row = res.dominance.iloc[0]
    assert row["verdict"] == "right dominates"
    assert row["b_better_share"] == 0.0 and row["a_better_share"] > 0.2


def test_half_and_double_the_variance_cross_at_the_mean():
    """Constant true variance 1: forecasts 0.5 and 2 give E S_θ(A) - E S_θ(B) = 1 - θ for θ in
    [0.5, 2) (closed form: E(Y - θ)+ - E(θ - Y)+ = E Y - θ), so the curves cross at θ = 1."""
    rng = np.random.default_rng(3)
    m = 20_000
    e = rng.standard_normal(m)
    ones = np.ones(m)
    res = murphy_diagram({"half": (e, np.sqrt(0.5) * ones), "double": (e, np.sqrt(2) * ones)},
                         thresholds=np.linspace(0.55, 1.95, 15), n_boot=500)
    assert res.dominance.iloc[0]["verdict"] == "crossing"
    d, _ = res.differences[("half", "double")]
    assert d == pytest.approx(np.mean(np.square(e))
                              - np.linspace(0.55, 1.95, 15), abs=1e-12)


def test_equally_good_models_are_seldom_ranked():
    """40 datasets where two models' variances are equally noisy versions of the truth: a
    dominance or a crossing claimed at most as often as a 5 % test allows."""
    n, claims = 40, 0
    for k in range(n):
        rng = np.random.default_rng([7, k])  # a stream of its own
        e, u = planted(2000, 100 + k)
        a = u * rng.lognormal(0.0, 0.2, u.size)
        b = u * rng.lognormal(0.0, 0.2, u.size)
        res = murphy_diagram({"a": (e, a), "b": (e, b)}, n_boot=300, seed=k)
        claims += res.dominance.iloc[0]["verdict"] != "no difference"
    assert claims <= stats.binom.ppf(0.999, n, 0.05), claims


def test_compare_reports_the_murphy_verdict():
    e, u = planted(1500, 5)
    res = uqval.compare({"good": (e, u), "small": (e, u / 2)}, n_boot=200, n_sim=100,
                        n_permutations=100, validate_models=False)
    assert res.murphy is not None
    assert res.murphy.dominance.iloc[0]["verdict"] == "good dominates"
    assert "**good** is better than small beyond noise" in res.summary()
