"""Unit tests of uqval.calibration.screening.screen (heavy-tails paper P001 Sect. IV, Table 2).

The robust shape statistics of uE^2, E^2 and Z^2 are compared with the population values of
known distributions, computed here from SciPy's cdf/ppf:

* beta_GM = (mean - median) / E|X - median|, with E|X - m| = mean - m + 2 int_0^m F(x) dx
  for a non-negative X with median m;
* kappa_CS = (Q_0.975 - Q_0.025) / (Q_0.75 - Q_0.25) - 2.91.

For the NIG model (P001 Sect. III.2, Eqs. 18-19) uE^2 ~ Gamma^-1(nu/2, nu/2),
E^2 ~ F(1, nu) and Z^2 ~ chi^2_1.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from uqval.calibration.screening import SkewnessLimits, screen


def population_shape(dist) -> tuple[float, float]:
    """(beta_GM, kappa_CS) of a frozen SciPy distribution on [0, inf)."""
    m, mean = float(dist.median()), float(dist.mean())
    mad = mean - m + 2.0 * integrate.quad(dist.cdf, 0.0, m)[0]
    q025, q25, q75, q975 = dist.ppf([0.025, 0.25, 0.75, 0.975])
    return (mean - m) / mad, (q975 - q025) / (q75 - q25) - 2.91


def nig_set(nu: float, M: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    uE = np.sqrt(1.0 / rng.gamma(nu / 2.0, 2.0 / nu, M))
    return uE * rng.standard_normal(M), uE


def test_population_helper_reproduces_the_printed_chi2_values():
    # P001 Fig. 3: beta_GM(chi2_1) = 0.636 and kappa_CS(chi2_1) = 1.20.
    beta, kappa = population_shape(stats.chi2(1))
    assert beta == pytest.approx(0.636, abs=5e-4)
    assert kappa == pytest.approx(1.20, abs=5e-3)


@pytest.mark.parametrize(("nu", "rce_reliable"), [(6.0, True), (3.5, False)])
def test_nig_shape_statistics_match_population_values(nu, rce_reliable):
    E, uE = nig_set(nu, 100_000, seed=int(nu * 10))
    result = screen(E, uE)
    expected = {
        "uE2": population_shape(stats.invgamma(nu / 2.0, scale=nu / 2.0)),
        "E2": population_shape(stats.f(1.0, nu)),
        "Z2": population_shape(stats.chi2(1)),
    }
    for name, (beta, kappa) in expected.items():
        # Sampling sd at M = 1e5: about 0.004 for beta_GM and 2-3 % for kappa_CS.
        assert getattr(result, f"beta_{name}") == pytest.approx(beta, abs=0.015), name
        assert getattr(result, f"kappa_{name}") == pytest.approx(kappa, rel=0.08), name
    assert result.M == 100_000
    # nu = 6: beta(uE^2) = 0.51 < 0.6 and beta(E^2) = 0.73 < 0.8; nu = 3.5: 0.70 and 0.82.
    assert result.rce_reliable is rce_reliable
    assert result.zms_reliable is True  # Z^2 ~ chi2_1: 0.636 < 0.8
    if rce_reliable:
        assert result.reasons == ()
    else:
        assert len(result.reasons) == 2
        assert all("RCE unreliable" in r for r in result.reasons)


def test_heavy_tailed_z_scores_make_zms_unreliable():
    # Z ~ t(3): Z^2 ~ F(1, 3), whose beta_GM is well above the 0.8 limit.
    rng = np.random.default_rng(5)
    M = 100_000
    uE = rng.uniform(1.0, 2.0, M)
    E = uE * rng.standard_t(3.0, M)
    beta, _ = population_shape(stats.f(1.0, 3.0))
    assert beta > 0.85
    result = screen(E, uE)
    assert result.beta_Z2 == pytest.approx(beta, abs=0.015)
    assert result.zms_reliable is False
    assert any("ZMS unreliable" in r for r in result.reasons)


def test_limits_are_strict_upper_bounds():
    E, uE = nig_set(6.0, 2000, seed=1)
    base = screen(E, uE)
    at = SkewnessLimits(uE2=base.beta_uE2, E2=base.beta_E2, Z2=base.beta_Z2)
    on_limit = screen(E, uE, at)  # beta == limit is still reliable ("> limit" fails)
    assert on_limit.rce_reliable and on_limit.zms_reliable and on_limit.reasons == ()
    eps = 1e-9
    for field, flag in (("uE2", "rce_reliable"), ("E2", "rce_reliable"), ("Z2", "zms_reliable")):
        limits = SkewnessLimits(**{**at.__dict__, field: getattr(at, field) - eps})
        below = screen(E, uE, limits)
        assert getattr(below, flag) is False, field
        assert len(below.reasons) == 1 and f"beta_GM({field[:-1]}^2)" in below.reasons[0]


def test_symmetric_design_and_scale_invariance():
    # beta_GM and kappa_CS are invariant under a scale change of uE and E together
    # (uE^2, E^2 scale by c^2, Z^2 is unchanged).
    E, uE = nig_set(8.0, 3000, seed=3)
    a, b = screen(E, uE), screen(7.0 * E, 7.0 * uE)
    for name in ("beta_uE2", "beta_E2", "beta_Z2", "kappa_uE2", "kappa_E2", "kappa_Z2"):
        assert getattr(b, name) == pytest.approx(getattr(a, name), rel=1e-9), name
    assert a.as_dict()["reasons"] == list(a.reasons)


def test_default_limits_are_those_of_p001_table_2():
    assert SkewnessLimits() == SkewnessLimits(uE2=0.6, E2=0.8, Z2=0.8)
