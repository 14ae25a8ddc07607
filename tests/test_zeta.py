"""Tests for zeta-scores (P001 Eq. 14-15; P002 Eq. 20)."""

from __future__ import annotations

import itertools
from decimal import Decimal

import numpy as np
import pytest

from uqval.stats.zeta import is_valid_zeta, zeta_score

# P001 Table 4, as printed: (theta_est, I-, I+, zeta) for RCE (reference 0) and ZMS (reference 1).
TABLE4_RCE = [
    ("0.019", "-0.021", "0.055", "0.47"),
    ("-0.039", "-0.106", "0.020", "-0.66"),
    ("-0.0075", "-0.054", "0.040", "-0.16"),
    ("0.055", "-0.0025", "0.12", "0.96"),
    ("0.099", "0.057", "0.14", "2.33"),
    ("0.092", "0.00079", "0.16", "1.01"),
    ("-0.26", "-0.68", "-0.0012", "-1.00"),
    ("0.046", "0.0082", "0.077", "1.22"),
    ("-0.013", "-0.072", "0.027", "-0.33"),
]
TABLE4_ZMS = [
    ("0.96", "0.87", "1.11", "-0.27"),
    ("0.89", "0.80", "0.999", "-1.01"),
    ("1.12", "1.05", "1.2", "1.73"),
    ("1.23", "1.16", "1.3", "3.50"),
    ("0.85", "0.78", "0.93", "-1.84"),
    ("0.98", "0.85", "1.15", "-0.10"),
    ("0.97", "0.94", "1.01", "-0.69"),
    ("0.93", "0.87", "0.99", "-1.12"),
    ("0.97", "0.90", "1.08", "-0.26"),
]


def half_ulp(printed: str) -> float:
    """Half a unit in the last printed digit."""
    return 0.5 * 10.0 ** Decimal(printed).as_tuple().exponent


def zeta_range(est: str, lo: str, hi: str, ref: float) -> tuple[float, float]:
    """Range of zeta over all values that round to the printed estimate and limits."""
    values = [
        zeta_score(e, ref, low, high)
        for e, low, high in itertools.product(
            *[(float(s) - half_ulp(s), float(s) + half_ulp(s)) for s in (est, lo, hi)]
        )
    ]
    return min(values), max(values)


@pytest.mark.parametrize(
    ("row", "ref"), [(r, 0.0) for r in TABLE4_RCE] + [(r, 1.0) for r in TABLE4_ZMS]
)
def test_table4_zeta_is_reproduced_from_printed_estimate_and_interval(row, ref):
    est, lo, hi, printed = row
    zmin, zmax = zeta_range(est, lo, hi, ref)
    tol = half_ulp(printed)
    assert zmin - tol <= float(printed) <= zmax + tol
    zeta = zeta_score(float(est), ref, float(lo), float(hi))
    assert np.sign(zeta) == np.sign(float(printed))
    if abs(abs(float(printed)) - 1.0) > 0.05:  # A17: borderline cases may flip
        assert is_valid_zeta(zeta) == (abs(float(printed)) <= 1.0)


def test_set4_zms_uses_the_lower_limit():
    # 1.23 > 1: the distance is scaled by theta_est - I- = 0.07, not by I+ - theta_est.
    assert zeta_score(1.23, 1.0, 1.16, 1.30) == pytest.approx(0.23 / 0.07)
    assert zeta_score(0.89, 1.0, 0.80, 0.999) == pytest.approx(-0.11 / 0.109)


def test_vectorised_and_validity_equivalent_to_interval_test():
    rng = np.random.default_rng(0)
    est = rng.normal(size=1000)
    lo = est - rng.uniform(0.01, 2.0, size=1000)
    hi = est + rng.uniform(0.01, 2.0, size=1000)
    ref = rng.normal(size=1000)
    zeta = zeta_score(est, ref, lo, hi)
    assert zeta.shape == (1000,)
    np.testing.assert_array_equal(is_valid_zeta(zeta), (lo <= ref) & (ref <= hi))
    # broadcasting a scalar reference
    assert zeta_score(est[:3], 0.0, lo[:3], hi[:3]).shape == (3,)


def test_reference_uncertainty_extension():
    # simref code: half-width sqrt((theta_est - lim)^2 + U_t^2)
    assert zeta_score(1.2, 1.0, 1.1, 1.4, reference_uncertainty=0.1) == pytest.approx(
        0.2 / np.hypot(0.1, 0.1)
    )
    assert zeta_score(0.8, 1.0, 0.5, 0.9, reference_uncertainty=0.0) == pytest.approx(-2.0)


def test_special_cases():
    assert zeta_score(1.0, 1.0, 1.0, 1.0) == 0.0
    assert zeta_score(1.5, 1.0, 1.5, 1.5) == np.inf
    assert zeta_score(0.5, 1.0, 0.5, 0.5) == -np.inf
    assert isinstance(zeta_score(1.2, 1.0, 1.1, 1.3), float)
    assert is_valid_zeta(-1.0) and not is_valid_zeta(np.nan)
