"""Tests for the Harrell-Davis quantiles and the robust shape statistics (P001 Sect. IV.1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, special, stats

from uqval.stats.robust import beta_gm, hd_quantile, kappa_cs


def hd_full_weights(x: np.ndarray, q: float) -> float:
    """Brute-force HD estimate with every weight evaluated (WRS::hd)."""
    xs = np.sort(x)
    n = xs.size
    a, b = (n + 1) * q, (n + 1) * (1 - q)
    return float(np.diff(special.betainc(a, b, np.arange(n + 1) / n)) @ xs)


def population_beta_gm(dist) -> float:
    """(mean - median) / E|X - median| by numerical integration of the density."""
    med = dist.median()
    mad = integrate.quad(lambda x: abs(x - med) * dist.pdf(x), dist.a, med)[0]
    mad += integrate.quad(lambda x: abs(x - med) * dist.pdf(x), med, np.inf)[0]
    return (dist.mean() - med) / mad


@pytest.mark.parametrize("n", [1, 2, 5, 50, 3000])
@pytest.mark.parametrize("q", [0.0005, 0.025, 0.25, 0.5, 0.9, 0.999])
def test_hd_quantile_matches_full_weight_sum(n, q):
    x = np.random.default_rng(n).standard_t(2, size=n)
    assert hd_quantile(x, q) == pytest.approx(hd_full_weights(x, q), rel=1e-12, abs=1e-12)


def test_hd_quantile_vectorised_over_q_and_edges():
    x = np.random.default_rng(3).normal(size=200)
    qs = np.array([[0.1, 0.5], [0.9, 0.99]])
    out = hd_quantile(x, qs)
    assert out.shape == (2, 2)
    for qi, oi in zip(qs.ravel(), out.ravel(), strict=True):
        assert oi == pytest.approx(hd_full_weights(x, qi), rel=1e-12)
    # WRS::hd conventions: q = 0 gives 0 (all weights vanish), q = 1 the maximum.
    assert hd_quantile(x + 10.0, 0.0) == 0.0
    assert hd_quantile(x, 1.0) == x.max()


def test_hd_quantile_rejects_bad_input():
    with pytest.raises(ValueError):
        hd_quantile([], 0.5)
    with pytest.raises(ValueError):
        hd_quantile([1.0, np.nan], 0.5)
    with pytest.raises(ValueError):
        hd_quantile([1.0, 2.0], 1.5)


def test_hd_median_of_normal_sample_is_near_zero():
    x = np.random.default_rng(11).normal(size=100_000)
    # sd of a median estimate ~ 1.25/sqrt(n) = 0.004
    assert abs(hd_quantile(x, 0.5)) < 0.016


def test_hd_quantiles_of_a_million_points_match_chi2_quantiles():
    # Speed on large samples lives in benchmarks/; here only the values are checked.
    x = np.random.default_rng(5).chisquare(1, size=1_000_000)
    q = hd_quantile(x, [0.025, 0.5, 0.975])
    assert q == pytest.approx(stats.chi2(1).ppf([0.025, 0.5, 0.975]), rel=0.02)


def test_beta_gm_of_symmetric_sample_is_zero():
    x = np.random.default_rng(2).normal(size=1001)
    symmetric = np.concatenate([x, -x])
    assert beta_gm(symmetric) == pytest.approx(0.0, abs=1e-12)


def test_beta_gm_of_exponential_matches_analytic_value():
    # Exp(1): mean 1, median ln 2, E|X - m| = m - 1 + 2 exp(-m) = ln 2 at m = ln 2.
    analytic = (1.0 - np.log(2.0)) / np.log(2.0)
    assert population_beta_gm(stats.expon()) == pytest.approx(analytic, rel=1e-9)
    x = np.random.default_rng(7).exponential(size=500_000)
    assert beta_gm(x) == pytest.approx(analytic, abs=0.005)


def test_beta_gm_and_kappa_cs_of_chi2_1():
    """P001 Fig. 3: beta_GM(chi2_1) = 0.636 and kappa_CS(chi2_1) = 1.20 (offset 2.91)."""
    med = stats.chi2(1).median()
    # E|X - m| = 1 - 2 F_chi2_3(m), since x f_1(x) = f_3(x).
    closed_form = (1.0 - med) / (1.0 - 2.0 * stats.chi2(3).cdf(med))
    assert population_beta_gm(stats.chi2(1)) == pytest.approx(closed_form, rel=1e-8)
    assert round(closed_form, 3) == 0.636
    q025, q25, q75, q975 = stats.chi2(1).ppf([0.025, 0.25, 0.75, 0.975])
    kappa_pop = (q975 - q025) / (q75 - q25) - 2.91
    assert round(kappa_pop, 2) == 1.20

    x = np.random.default_rng(2024).chisquare(1, size=500_000)
    assert beta_gm(x) == pytest.approx(closed_form, abs=0.005)
    assert kappa_cs(x) == pytest.approx(kappa_pop, abs=0.03)


def test_kappa_cs_of_normal_is_near_zero_and_larger_for_heavy_tails():
    rng = np.random.default_rng(9)
    assert kappa_cs(rng.normal(size=200_000)) == pytest.approx(0.0, abs=0.03)
    assert kappa_cs(rng.standard_t(3, size=200_000)) > 0.5


def test_constant_sample_gives_nan():
    assert np.isnan(beta_gm(np.ones(10)))
    assert np.isnan(kappa_cs(np.ones(10)))
