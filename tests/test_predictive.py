"""Predictive objects: CRPS against properscoring and numerical integration, PIT uniformity on
draws from the true law, intervals, data issues."""

from __future__ import annotations

import numpy as np
import properscoring as ps
import pytest
from scipy import integrate, stats

import uqval
from uqval.predictive import Ensemble, Intervals, Laplace, Normal, Quantiles, Samples, StudentT

RNG_SEED = 20261125


def crps_by_integration(cdf, y: float, lo: float, hi: float) -> float:
    """∫ (F(x) - 1{y <= x})² dx by adaptive quadrature, split at y."""
    left = integrate.quad(lambda x: cdf(x) ** 2, lo, y, limit=200)[0]
    right = integrate.quad(lambda x: (1.0 - cdf(x)) ** 2, y, hi, limit=200)[0]
    return left + right


def test_normal_crps_matches_properscoring():
    rng = np.random.default_rng(RNG_SEED)
    mu, sd = rng.normal(size=200), rng.uniform(0.2, 3.0, 200)
    y = mu + sd * rng.standard_normal(200)
    np.testing.assert_allclose(Normal(mu, sd).crps(y), ps.crps_gaussian(y, mu, sd), rtol=1e-10)


@pytest.mark.parametrize("nu", [2.5, 3.0, 5.0, 30.0])
def test_t_crps_matches_numerical_integration(nu):
    f = StudentT([0.3, -1.0, 2.0], sd=[1.0, 0.5, 2.0], nu=nu)
    y = np.array([0.0, 1.5, -3.0])
    got = f.crps(y)
    for i in range(3):
        scale = float(f.scale[i])
        cdf = lambda x, i=i, scale=scale: stats.t.cdf((x - f.mean[i]) / scale, nu)  # noqa: E731
        want = crps_by_integration(cdf, y[i], -np.inf, np.inf)
        assert got[i] == pytest.approx(want, rel=1e-6)


def test_laplace_crps_matches_numerical_integration():
    f = Laplace([0.0, 1.0, -2.0], [1.0, 0.3, 4.0])
    y = np.array([0.2, -1.0, 5.0])
    got = f.crps(y)
    for i in range(3):
        b = f.sd[i] / np.sqrt(2.0)
        cdf = lambda x, i=i, b=b: stats.laplace.cdf(x, loc=f.mean[i], scale=b)  # noqa: E731
        assert got[i] == pytest.approx(crps_by_integration(cdf, y[i], -np.inf, np.inf), rel=1e-7)


def test_t_accepts_scale_and_matches_scipy_quantiles():
    a = StudentT([1.0], sd=[2.0], nu=3.0)
    b = StudentT([1.0], scale=a.scale, nu=3.0)
    np.testing.assert_allclose(b.sd, [2.0])
    lo, hi = a.interval(0.9)
    assert hi[0] == pytest.approx(stats.t.ppf(0.95, 3, loc=1.0, scale=a.scale[0]))
    assert lo[0] == pytest.approx(stats.t.ppf(0.05, 3, loc=1.0, scale=a.scale[0]))
    with pytest.raises(ValueError, match="nu must be > 2"):
        StudentT([0.0], sd=[1.0], nu=2.0)
    with pytest.raises(ValueError, match="exactly one"):
        StudentT([0.0], sd=[1.0], nu=3.0, scale=[1.0])


def test_ensemble_crps_matches_properscoring_with_nan_and_weights():
    rng = np.random.default_rng(RNG_SEED)
    x = rng.normal(size=(300, 12))
    x[rng.random(x.shape) < 0.05] = np.nan
    x[5, :] = 1.0  # zero spread
    y = rng.normal(size=300)
    f = Ensemble(x)
    np.testing.assert_allclose(f.crps(y), ps.crps_ensemble(y, x), rtol=1e-10, atol=1e-12)
    w = rng.uniform(0.1, 2.0, 12)
    clean = rng.normal(size=(300, 12))
    np.testing.assert_allclose(Ensemble(clean, w).crps(y), ps.crps_ensemble(y, clean, weights=np.broadcast_to(w, clean.shape)),
                               rtol=1e-10)


def test_fair_crps_is_the_unbiased_pair_estimate():
    rng = np.random.default_rng(RNG_SEED)
    x = rng.normal(size=(50, 7))
    y = rng.normal(size=50)
    brute = np.array([
        np.mean(np.abs(r - t)) - 0.5 * np.abs(r[:, None] - r[None, :]).sum() / (7 * 6)
        for r, t in zip(x, y, strict=True)
    ])
    np.testing.assert_allclose(Ensemble(x).crps(y, fair=True), brute, rtol=1e-10)


def test_quantile_crps_approaches_the_normal_crps_with_many_levels():
    tau = np.linspace(0.0025, 0.9975, 399)
    mu, sd = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    q = Quantiles(tau, mu[:, None] + sd[:, None] * stats.norm.ppf(tau)[None, :])
    y = np.array([0.5, -2.0])
    np.testing.assert_allclose(q.crps(y), Normal(mu, sd).crps(y), rtol=0.01)


def _ks_p(u):
    return stats.kstest(u, "uniform").pvalue


def test_pit_is_uniform_for_draws_from_the_true_law():
    rng = np.random.default_rng(RNG_SEED)
    m = 4000
    mu, sd = rng.normal(size=m), rng.uniform(0.5, 2.0, m)
    assert _ks_p(Normal(mu, sd).pit(mu + sd * rng.standard_normal(m))) > 0.01
    t = stats.t.rvs(4, size=m, random_state=rng) * np.sqrt(2 / 4)
    assert _ks_p(StudentT(mu, sd=sd, nu=4).pit(mu + sd * t)) > 0.01
    lap = rng.laplace(0.0, 1 / np.sqrt(2), m)
    assert _ks_p(Laplace(mu, sd).pit(mu + sd * lap)) > 0.01
    # ensembles: y exchangeable with 10 members, including ties from rounding
    draws = np.round(mu[:, None] + sd[:, None] * rng.standard_normal((m, 11)), 1)
    assert _ks_p(Ensemble(draws[:, :10]).pit(draws[:, 10], seed=1)) > 0.01
    assert _ks_p(Samples(draws[:, :10]).pit(draws[:, 10], seed=2)) > 0.01
    # quantile set of the true law: randomised PIT within the bins
    tau = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    q = Quantiles(tau, mu[:, None] + sd[:, None] * stats.norm.ppf(tau)[None, :])
    assert _ks_p(q.pit(mu + sd * rng.standard_normal(m), seed=3)) > 0.01


def test_pit_detects_a_wrong_shape():
    rng = np.random.default_rng(RNG_SEED)
    e = stats.t.rvs(3, size=5000, random_state=rng) / np.sqrt(3)  # unit variance t(3)
    assert _ks_p(Normal(np.zeros(5000), np.ones(5000)).pit(e)) < 1e-6


def test_ensemble_point_variance_and_intervals():
    rng = np.random.default_rng(RNG_SEED)
    x = rng.normal(size=(20, 30))
    f = Ensemble(x)
    np.testing.assert_allclose(f.point, x.mean(axis=1))
    np.testing.assert_allclose(f.variance, (1 + 1 / 30) * x.var(axis=1, ddof=1))
    lo, hi = f.interval(0.8)
    np.testing.assert_allclose(lo, np.quantile(x, 0.1, axis=1, method="weibull"))
    np.testing.assert_allclose(hi, np.quantile(x, 0.9, axis=1, method="weibull"))
    assert f.cdf(x[:, 0]).min() >= 1 / 30


def test_ensemble_coverage_is_exact_for_few_members():
    rng = np.random.default_rng(RNG_SEED)
    draws = rng.standard_normal((40000, 6))
    f = Ensemble(draws[:, :5])
    for level in (0.5, 0.9):
        assert f.covered(draws[:, 5], level, seed=4).mean() == pytest.approx(level, abs=0.01)


def test_data_issues_are_counted_with_rows_and_handled():
    q = Quantiles([0.1, 0.5, 0.9], [[0.0, 1.0, 2.0], [2.0, 1.0, 0.0], [np.nan, 1.0, 2.0]])
    assert q.data_issues.rows == {"a missing quantile": (3,), "crossing quantiles": (2,)}
    assert q.usable.tolist() == [True, True, False]
    np.testing.assert_allclose(q.values[1], [0.0, 1.0, 2.0])
    iv = Intervals({0.5: ([0, 0, 0], [1, 1, 1]), 0.9: ([-1, 0.5, 2], [2, 2, 1])})
    assert iv.data_issues.rows == {"low > high at level 0.9": (3,),
                                   "intervals that are not nested": (2,)}
    e = Ensemble([[1.0, 1.0, 1.0], [np.nan, np.nan, 1.0], [0.0, np.nan, 2.0]])
    assert e.data_issues.rows == {"NaN members": (3,), "fewer than 2 finite members": (2,),
                                  "zero spread": (1,)}
    assert np.isnan(e.variance[[0, 1]]).all() and e.variance[2] == pytest.approx(3.0)
    n = Normal([0.0, np.nan, 1.0], [1.0, 1.0, -1.0])
    assert n.usable.tolist() == [True, False, False]
    assert "row 3" in " ".join(n.data_issues.sentences())


def test_quantile_interval_only_at_given_levels():
    q = Quantiles([0.05, 0.5, 0.95], [[-1.0, 0.0, 1.0]])
    assert q.central_levels == (0.9,)
    with pytest.raises(ValueError, match="levels given are 0.9"):
        q.interval(0.8)
    with pytest.raises(ValueError, match="strictly increasing"):
        Quantiles([0.5, 0.1], [[0.0, 1.0]])


def test_quantile_cdf_interpolates_with_linear_tails():
    q = Quantiles([0.25, 0.5, 0.75], [[0.0, 1.0, 3.0]])
    np.testing.assert_allclose([q.cdf([x])[0] for x in (-2.0, -0.5, 0.5, 2.0, 4.0, 9.0)],
                               [0.0, 0.125, 0.375, 0.625, 0.875, 1.0])


def test_objects_are_immutable_and_exported():
    f = uqval.Normal([0.0], [1.0])
    with pytest.raises(AttributeError):
        f.x = 1
    assert repr(uqval.StudentT([0.0], sd=[1.0], nu=5)) == "StudentT(M=1, nu=5)"
    taken = uqval.Ensemble(np.arange(12.0).reshape(4, 3)).take(np.array([True, False, True, False]))
    np.testing.assert_allclose(taken.point, [1.0, 7.0])


def test_a_few_quantiles_give_no_crps_score():
    """2 x the mean pinball of a calibrated normal's quantiles at 5 and at 3 levels
    understates its CRPS 1/sqrt(pi) by 12 % and 28 % (closed form here: the mean pinball at
    level tau of a calibrated normal is phi(z_tau)); validate's scores of a quantile set
    hold the check score, not a 'crps'."""
    from uqval.predictive.scores import score_rows

    rng = np.random.default_rng(3)
    m = 200_000
    y = rng.standard_normal(m)
    for levels, short in (([0.05, 0.25, 0.5, 0.75, 0.95], 0.120), ([0.05, 0.5, 0.95], 0.285)):
        tau = np.array(levels)
        q = Quantiles(tau, np.tile(stats.norm.ppf(tau), (m, 1)))
        closed = 2 * stats.norm.pdf(stats.norm.ppf(tau)).mean()
        assert q.crps(y).mean() == pytest.approx(closed, rel=0.01)
        assert 1 - closed * np.sqrt(np.pi) == pytest.approx(short, abs=0.001)
        rows = score_rows(y[:100], Quantiles(tau, np.tile(stats.norm.ppf(tau), (100, 1))),
                          [0.9])
        assert "crps" not in rows and "check_score" in rows
    assert "crps" in score_rows(y[:100], Normal(np.zeros(100), np.ones(100)), [0.9])
