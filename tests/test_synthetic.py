"""Tests for uqval.stats.synthetic: seeded generators of calibrated (E, uE) sets (P001 Sect. III-IV)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from uqval.stats.synthetic import (
    GenerativeDistribution,
    as_distribution,
    calibrated_errors,
    nig_dataset,
    rinvgamma,
    rt_unit_variance,
    t_unit_variance_factor,
    tig_dataset,
)
from uqval.stats.variate_kernel import unit_normal

N_LARGE = 1_000_000


def rng(seed: int = 20240501) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- unit-variance Student t (P001 Eq. 20) -------------------------------------------------


@pytest.mark.parametrize("nu", [5.0, 10.0])
def test_rt_unit_variance_has_unit_variance(nu: float) -> None:
    x = rt_unit_variance(rng(), nu, N_LARGE)
    kurt = 3 + 6 / (nu - 4)  # t(nu) kurtosis, finite for nu > 4
    se_var = math.sqrt((kurt - 1) / N_LARGE)
    assert abs(np.var(x) - 1.0) < 4 * se_var
    assert abs(np.mean(x)) < 4 / math.sqrt(N_LARGE)


def test_rt_unit_variance_is_scaled_student_t() -> None:
    nu = 3.0
    x = rt_unit_variance(rng(), nu, 200_000)
    assert stats.kstest(x / math.sqrt((nu - 2) / nu), stats.t(nu).cdf).pvalue > 1e-3


def test_rt_unit_variance_infinite_nu_is_standard_normal() -> None:
    np.testing.assert_array_equal(
        rt_unit_variance(rng(1), math.inf, 100), unit_normal(rng(1), 100)
    )


@pytest.mark.parametrize("nu", [2.0, 1.5, 0.0, -3.0, math.nan])
def test_rt_unit_variance_rejects_nu_le_2(nu: float) -> None:
    with pytest.raises(ValueError):
        rt_unit_variance(rng(), nu, 10)
    with pytest.raises(ValueError):
        t_unit_variance_factor(nu)


# --- inverse gamma ------------------------------------------------------------------------


def test_rinvgamma_mean_variance_and_law() -> None:
    a, b = 5.0, 3.0
    x = rinvgamma(rng(), a, b, N_LARGE)
    mean, var = b / (a - 1), b**2 / ((a - 1) ** 2 * (a - 2))
    assert abs(np.mean(x) - mean) < 4 * math.sqrt(var / N_LARGE)
    assert stats.kstest(x[:200_000], stats.invgamma(a, scale=b).cdf).pvalue > 1e-3


@pytest.mark.parametrize(("a", "b"), [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (math.nan, 1.0)])
def test_rinvgamma_rejects_invalid_parameters(a: float, b: float) -> None:
    with pytest.raises(ValueError):
        rinvgamma(rng(), a, b, 10)


# --- NIG and TIG (P001 Sect. III.2, IV.2) ------------------------------------------------


@pytest.mark.parametrize("nu", [6.0, 10.0])
def test_nig_second_moments(nu: float) -> None:
    E, uE = nig_dataset(rng(), nu, N_LARGE)
    target = nu / (nu - 2)
    var_u2 = target**2 / (nu / 2 - 2)  # Var of Gamma^-1(nu/2, nu/2), finite for nu > 4
    var_e2 = 3 * nu**2 / ((nu - 2) * (nu - 4)) - target**2  # from E[t^4]
    assert abs(np.mean(uE**2) - target) < 4 * math.sqrt(var_u2 / N_LARGE)
    assert abs(np.mean(E**2) - target) < 4 * math.sqrt(var_e2 / N_LARGE)


@pytest.mark.parametrize("nu", [3.0, 6.0])
def test_nig_marginal_is_student_t(nu: float) -> None:
    E, _ = nig_dataset(rng(), nu, 200_000)
    assert stats.kstest(E, stats.t(nu).cdf).pvalue > 1e-3
    assert stats.kstest(E**2, stats.f(1, nu).cdf).pvalue > 1e-3


def test_nig_equals_tig_with_normal_errors() -> None:
    e1, u1 = nig_dataset(rng(7), 4.0, 1000)
    e2, u2 = tig_dataset(rng(7), 4.0, math.inf, 1000)
    np.testing.assert_array_equal(e1, e2)
    np.testing.assert_array_equal(u1, u2)


def test_tig_z_scores_follow_unit_variance_t() -> None:
    nu_d = 4.0
    E, uE = tig_dataset(rng(), 3.0, nu_d, 200_000)
    z = E / uE
    assert stats.kstest(z, GenerativeDistribution("t", nu_d).cdf).pvalue > 1e-3
    assert stats.kstest(uE**2, stats.invgamma(1.5, scale=1.5).cdf).pvalue > 1e-3


def test_tig_with_fixed_uncertainties() -> None:
    uE_fixed = np.sqrt(rinvgamma(rng(3), 3.0, 3.0, 500))
    E1, uE1 = tig_dataset(rng(4), None, 6.0, 500, uncertainties=uE_fixed)
    E2, uE2 = tig_dataset(rng(5), None, 6.0, 500, uncertainties=uE_fixed)
    np.testing.assert_array_equal(uE1, uE_fixed)
    np.testing.assert_array_equal(uE2, uE_fixed)
    assert not np.array_equal(E1, E2)
    np.testing.assert_allclose(E1 / uE1, rt_unit_variance(rng(4), 6.0, 500))


def test_tig_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        tig_dataset(rng(), 3.0, 2.0, 10)
    with pytest.raises(ValueError):
        tig_dataset(rng(), None, 5.0, 10)
    with pytest.raises(ValueError):
        tig_dataset(rng(), None, 5.0, 10, uncertainties=np.ones(11))
    with pytest.raises(ValueError):
        nig_dataset(rng(), 0.0, 10)


@pytest.mark.parametrize(
    "make",
    [
        lambda r: nig_dataset(r, 4.0, 50),
        lambda r: tig_dataset(r, 4.0, 5.0, 50),
        lambda r: (rinvgamma(r, 2.0, 2.0, 50), rt_unit_variance(r, 3.0, 50)),
        lambda r: (calibrated_errors(r, np.ones(50), ("t", 5.0)),),
    ],
)
def test_generators_are_deterministic_given_seed(
    make: Callable[[np.random.Generator], tuple[np.ndarray, ...]],
) -> None:
    for a, b in zip(make(rng(11)), make(rng(11)), strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(make(rng(11))[0], make(rng(12))[0])


# --- GenerativeDistribution and calibrated_errors -----------------------------------------


def test_generative_distribution_validation() -> None:
    for args in [("t", 2.0), ("t", None), ("normal", 3.0), ("laplace", None), ("t", 1.0)]:
        with pytest.raises(ValueError):
            GenerativeDistribution(*args)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        as_distribution(("t",))  # type: ignore[arg-type]
    assert as_distribution("normal") == GenerativeDistribution("normal")
    assert as_distribution(("t", 4)) == GenerativeDistribution("t", 4.0)


def test_generative_distribution_quantiles() -> None:
    p = np.array([0.025, 0.16, 0.5, 0.84, 0.975])
    np.testing.assert_allclose(GenerativeDistribution("normal").quantile(p), stats.norm.ppf(p))
    nu = 4.0
    np.testing.assert_allclose(
        GenerativeDistribution("t", nu).quantile(p), stats.t.ppf(p, nu) * math.sqrt(0.5)
    )
    np.testing.assert_allclose(GenerativeDistribution("t", math.inf).quantile(p), stats.norm.ppf(p))
    x = GenerativeDistribution("t", nu).draw(rng(), 400_000)
    np.testing.assert_allclose(
        np.quantile(x, p), GenerativeDistribution("t", nu).quantile(p), atol=0.01
    )
    assert abs(np.var(GenerativeDistribution("normal").draw(rng(), 400_000)) - 1) < 0.01


@settings(max_examples=50, deadline=None)
@given(
    nu=st.floats(min_value=2.05, max_value=1e4),
    p=st.floats(min_value=1e-6, max_value=1 - 1e-6),
)
def test_quantile_inverts_cdf(nu: float, p: float) -> None:
    d = GenerativeDistribution("t", nu)
    assert d.cdf(d.quantile(p)) == pytest.approx(p, rel=1e-6, abs=1e-9)


def test_calibrated_errors_shapes_and_scaling() -> None:
    uE = np.array([0.5, 1.0, 2.0])
    E = calibrated_errors(rng(2), uE, "normal")
    np.testing.assert_allclose(E, uE * unit_normal(rng(2), 3))
    reps = calibrated_errors(rng(), uE, ("t", 5.0), size=(200_000, 3))
    assert reps.shape == (200_000, 3)
    np.testing.assert_allclose(np.std(reps, axis=0) / uE, 1.0, atol=0.015)
    with pytest.raises(ValueError):
        calibrated_errors(rng(), uE, "normal", size=(10, 4))
    with pytest.raises(ValueError):
        calibrated_errors(rng(), uE, "normal", size=2)
