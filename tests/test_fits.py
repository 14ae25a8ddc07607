"""Tests for uqval.stats.fits: minimum-KS-distance IG / scaled-F fits (P001 Sect. III,
Table 1) and the ML scaled-and-shifted Student t fit of z-scores (P002 Table II)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy import stats

from uqval.stats.fits import (
    KSFit,
    fit_invgamma_ks,
    fit_scaled_f_ks,
    fit_scaled_t,
    invgamma_cdf,
    ks_distance,
    scaled_f_cdf,
)
from uqval.stats.synthetic import rinvgamma


def rng(seed: int = 12345) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- KS distance and CDFs -----------------------------------------------------------------


def test_ks_distance_matches_scipy_kstest() -> None:
    x = np.sort(rng().standard_normal(1000))
    cdf = stats.norm(0.1, 1.1).cdf
    assert ks_distance(x, cdf(x)) == pytest.approx(stats.kstest(x, cdf).statistic, abs=1e-12)


def test_ks_distance_with_ties_matches_scipy_kstest() -> None:
    x = np.sort(np.round(rng().exponential(size=500), 1) + 0.05)
    cdf = stats.expon(scale=1.2).cdf
    assert ks_distance(x, cdf(x)) == pytest.approx(stats.kstest(x, cdf).statistic, abs=1e-12)


def test_cdfs_match_scipy() -> None:
    x = np.geomspace(1e-3, 1e3, 50)
    nu, sigma = 2.7, 0.4
    np.testing.assert_allclose(
        invgamma_cdf(x, nu, sigma), stats.invgamma(nu, scale=nu * sigma**2).cdf(x), rtol=1e-10
    )
    np.testing.assert_allclose(
        scaled_f_cdf(x, nu, sigma), stats.f(1, nu, scale=sigma**2).cdf(x), rtol=1e-8
    )


# --- recovery of known parameters ---------------------------------------------------------


def test_invgamma_fit_recovers_parameters() -> None:
    nu, sigma, n = 3.0, 2.0, 20_000
    x = sigma**2 * rinvgamma(rng(), nu, nu, n)  # x / sigma^2 ~ Gamma^-1(nu, nu)
    fit = fit_invgamma_ks(x)
    # sampling sd of the KS estimates at this n: nu ~ 0.03, sigma ~ 0.004 (20 seeded reps)
    assert fit.nu == pytest.approx(nu, rel=0.05)
    assert fit.sigma == pytest.approx(sigma, rel=0.02)
    assert fit.model == "invgamma" and fit.n == n
    assert fit.scale == pytest.approx(fit.sigma**2)
    assert fit.params == {"nu": fit.nu, "sigma": fit.sigma}
    assert stats.kstest(x, fit.cdf).statistic == pytest.approx(fit.ks_distance, abs=1e-12)
    # KS distance is invariant under x -> 1/x: the IG fit is a Gamma fit of 1/x (fitdistrplus)
    gamma = stats.gamma(fit.nu, scale=1 / (fit.nu * fit.sigma**2))
    assert stats.kstest(1 / x, gamma.cdf).statistic == pytest.approx(fit.ks_distance, abs=1e-9)


def test_scaled_f_fit_recovers_parameters() -> None:
    nu, sigma, n = 5.0, 0.5, 50_000
    x = sigma**2 * stats.f.rvs(1, nu, size=n, random_state=rng())
    fit = fit_scaled_f_ks(x)
    # sampling sd of the KS estimates at this n: nu ~ 0.16 (3%), sigma ~ 0.002
    assert fit.nu == pytest.approx(nu, rel=0.10)
    assert fit.sigma == pytest.approx(sigma, rel=0.02)
    assert fit.model == "scaled_f"
    assert stats.kstest(x, fit.cdf).statistic == pytest.approx(fit.ks_distance, abs=1e-12)


def test_ks_fit_is_a_minimum() -> None:
    x = 0.3 * stats.f.rvs(1, 4.0, size=3000, random_state=rng(3))
    fit = fit_scaled_f_ks(x)
    for dnu, dsig in [(1.05, 1.0), (0.95, 1.0), (1.0, 1.02), (1.0, 0.98), (1.1, 1.02)]:
        d = ks_distance(np.sort(x), scaled_f_cdf(np.sort(x), fit.nu * dnu, fit.sigma * dsig))
        assert d >= fit.ks_distance - 1e-12


def test_ks_fit_is_scale_equivariant() -> None:
    x = rinvgamma(rng(4), 2.0, 2.0, 3000)
    a, b = fit_invgamma_ks(x), fit_invgamma_ks(7.0 * x)
    assert b.nu == pytest.approx(a.nu, rel=1e-3)
    assert b.sigma == pytest.approx(a.sigma * math.sqrt(7.0), rel=1e-3)


@pytest.mark.parametrize("bad", [[1.0], [1.0, -2.0, 3.0], [0.0, 1.0, 2.0], [1.0, math.nan]])
def test_ks_fits_reject_invalid_data(bad: list[float]) -> None:
    with pytest.raises(ValueError):
        fit_invgamma_ks(bad)
    with pytest.raises(ValueError):
        fit_scaled_f_ks(bad)


def test_scaled_t_fit_recovers_parameters() -> None:
    nu, mu, sigma, n = 5.0, 0.1, 1.2, 50_000
    z = mu + sigma * stats.t.rvs(nu, size=n, random_state=rng())
    fit = fit_scaled_t(z)
    assert fit.nu == pytest.approx(nu, rel=0.08)
    assert fit.mu == pytest.approx(mu, abs=0.015)
    assert fit.sigma == pytest.approx(sigma, rel=0.02)
    assert fit.mean == pytest.approx(np.mean(z))
    assert fit.sd == pytest.approx(np.std(z, ddof=1))
    assert fit.relative_bias == pytest.approx(100 * abs(np.mean(z)) / np.std(z, ddof=1))
    assert fit.n == n
    assert fit.loglik == pytest.approx(np.sum(stats.t.logpdf(z, fit.nu, fit.mu, fit.sigma)))
    assert fit.loglik >= np.sum(stats.t.logpdf(z, nu, mu, sigma))  # ML property


def test_scaled_t_fit_rejects_invalid_data() -> None:
    with pytest.raises(ValueError):
        fit_scaled_t([0.1, 0.2])
    with pytest.raises(ValueError):
        fit_scaled_t([0.1, 0.2, math.inf])


# --- the nine sets of the heavy-tails paper (P001 Table 1, P002 Table II) -----------------

# P001 Table 1: M, nu(uE^2), nu(E^2), nu(Z^2)
TABLE1 = {
    1: (2040, 1.72, 2.17, 7.91),
    2: (3834, 0.79, 1.18, 4.91),
    3: (2040, 5.34, 6.32, 15.10),
    4: (3836, 1.53, 2.72, 8.15),
    5: (2040, 30.8, 2.75, 2.72),
    6: (3818, 1.19, 0.78, 0.85),
    7: (13885, 1.91, 2.43, 3.95),
    8: (5000, 24.7, 4.24, 3.66),
    9: (5000, 17.3, 10.0, 20.2),
}
# P002 Table II: mu_Z, sigma_Z (printed digits), b_Z (%), nu_Z
TABLE2 = {
    1: (-0.027, 0.980, 3, 6.0),
    2: (-0.018, 0.940, 2, 3.3),
    3: (0.002, 1.058, 0, 20.1),
    4: (-0.021, 1.107, 2, 9.1),
    5: (0.006, 0.920, 1, 3.9),
    6: (-0.005, 0.992, 1, 1.4),
    7: (0.0174, 0.9858, 2, 4.4),
    8: (0.050, 0.961, 5, 3.9),
    9: (-0.260, 0.951, 27, 3.1),
}


Datasets = dict[int, tuple[NDArray[np.float64], NDArray[np.float64]]]


@pytest.fixture(scope="module")
def datasets(nine_sets) -> Datasets:
    return dict(enumerate(nine_sets, start=1))


@pytest.fixture(scope="module")
def table1_fits(datasets: Datasets) -> dict[int, tuple[KSFit, KSFit, KSFit]]:
    return {
        k: (fit_invgamma_ks(uE**2), fit_scaled_f_ks(E**2), fit_scaled_f_ks((E / uE) ** 2))
        for k, (E, uE) in datasets.items()
    }


@pytest.mark.parametrize("set_id", range(1, 10))
def test_p001_table1_shape_parameters(
    set_id: int, datasets: Datasets, table1_fits: dict[int, tuple[KSFit, KSFit, KSFit]]
) -> None:
    """Class F tolerance: 2% relative, 10% where nu > 15 (flat objective).

    Set 5 nu(uE^2) is loose: printed 30.8, but the exact minimiser is nu ~ 33.3
    (D = 0.0291, vs D = 0.0348 at nu = 30.8 with its best sigma), so the printed value looks
    like an early stop of the authors' optimiser; it falls inside the 10% band (8% off).
    """
    M, *printed = TABLE1[set_id]
    E, uE = datasets[set_id]
    assert E.size == M
    samples = (uE**2, E**2, (E / uE) ** 2)
    for fit, value, x in zip(table1_fits[set_id], printed, samples, strict=True):
        rel = 0.10 if value > 15 else 0.02
        assert fit.nu == pytest.approx(value, rel=rel), (set_id, fit.model, fit.nu, value)
        assert fit.n == M
        assert stats.kstest(x, fit.cdf).statistic == pytest.approx(fit.ks_distance, abs=1e-12)


@pytest.mark.parametrize("set_id", range(1, 10))
def test_p002_table2_z_summary(set_id: int, datasets: Datasets) -> None:
    mu, sd, b, nu = TABLE2[set_id]
    E, uE = datasets[set_id]
    fit = fit_scaled_t(E / uE)
    last_digit = 1e-4 if set_id == 7 else 1e-3
    assert fit.mean == pytest.approx(mu, abs=last_digit)
    assert fit.sd == pytest.approx(sd, abs=last_digit)
    assert abs(fit.relative_bias - b) <= 0.51
    tol = 0.10 * nu if set_id == 3 else 0.15
    assert fit.nu == pytest.approx(nu, abs=tol)


def test_exact_ks_distance_from_blocks_equals_all_points() -> None:
    # every point counts: the blocked evaluation must return the same maximum bit for bit,
    # at arbitrary parameters and at a KS optimum (where many terms are near the maximum)
    from uqval.stats import fits
    from uqval.stats.fits import _ks_terms

    rng = np.random.default_rng(11)
    x = np.sort(np.square(rng.standard_t(4, 20_000) * 1.3))
    x[:50] = x[50]  # ties merged into one ECDF step
    terms = _ks_terms(x)
    fit = fits.fit_scaled_f_ks(x)
    for nu, sigma in [(fit.nu, fit.sigma), (4.0, 1.3), (1.0, 0.2), (50.0, 3.0),
                      (fit.nu * 1.001, fit.sigma)]:
        def cdf(v, nu=nu, sigma=sigma):
            return fits.scaled_f_cdf(v, nu, sigma)

        want = terms.distance(cdf(terms.x))
        for block in (7, 64, 1000):
            assert terms.exact_distance(cdf, block=block) == want
    # and the fitted distance is the KS statistic of all points (scipy)
    assert fit.ks_distance == pytest.approx(
        stats.kstest(x, lambda v: fits.scaled_f_cdf(v, fit.nu, fit.sigma)).statistic, abs=1e-15)


@pytest.mark.parametrize(("shape", "seed"), [(4.0, 1), (12.0, 2), (math.inf, 3)])
def test_gradient_t_fit_of_large_sets_is_scipys_maximum(shape: float, seed: int) -> None:
    # from FAST_T_FIT_MIN values on, L-BFGS-B with the analytic gradient replaces SciPy's
    # Nelder-Mead: same likelihood maximum (to the optimisers' tolerances), never a worse one
    from uqval.stats.fits import FAST_T_FIT_MIN

    g = rng(seed)
    m = FAST_T_FIT_MIN + 1000
    z = (g.standard_normal(m) if math.isinf(shape) else g.standard_t(shape, m)) * 1.3 + 0.2
    fast = fit_scaled_t(z)
    nu, mu, sigma = stats.t.fit(z, 20.0, loc=z.mean(), scale=z.std(ddof=1))
    scipy_ll = float(np.sum(stats.t.logpdf(z, nu, loc=mu, scale=sigma)))
    assert fast.loglik >= scipy_ll - 1e-6 * m
    assert fast.mu == pytest.approx(mu, abs=1e-4)
    assert fast.sigma == pytest.approx(sigma, rel=1e-4)
    if math.isfinite(shape):
        assert fast.nu == pytest.approx(nu, rel=1e-3)
        assert fast.nu == pytest.approx(shape, rel=0.15)
    else:
        assert fast.nu > 50 and nu > 50  # normal data: both far in the normal limit
