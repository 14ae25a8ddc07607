"""Unit tests of uqval.calibration.average (heavy-tails paper P001 Sects. II and V, Table 4, Figs 7-8).

Reference values are computed here with plain NumPy (ZMS = <Z^2>, RCE = (RMV - RMSE)/RMV,
P001 Eqs. 7 and 11), brute-force loops (decimation), SciPy's BCa bootstrap and the defining
properties of the zeta-score (P001 Eq. 14: its sign is that of estimate - reference and
abs(zeta) <= 1 exactly when the interval contains the reference).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from uqval.calibration.average import average_calibration, calibration_tests, decimation


def calibrated_set(M: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    uE = rng.uniform(0.5, 2.0, M)
    return uE * rng.standard_normal(M), uE


def numpy_zms(E, uE) -> float:
    return float(np.mean((np.asarray(E) / np.asarray(uE)) ** 2))


def numpy_rce(E, uE) -> float:
    rmv, rmse = math.sqrt(np.mean(np.square(uE))), math.sqrt(np.mean(np.square(E)))
    return (rmv - rmse) / rmv


def by_name(tests) -> dict:
    return {t.statistic: t for t in tests}


def test_estimates_are_the_plain_formulas():
    E, uE = calibrated_set(300, 1)
    t = by_name(calibration_tests(E, uE, n_boot=200, seed=3))
    assert set(t) == {"ZMS", "RCE"}
    assert t["ZMS"].estimate == pytest.approx(numpy_zms(E, uE), rel=1e-12)
    assert t["RCE"].estimate == pytest.approx(numpy_rce(E, uE), rel=1e-12, abs=1e-15)
    assert t["ZMS"].reference == 1.0 and t["RCE"].reference == 0.0


def test_zms_interval_agrees_with_scipy_bca():
    E, uE = calibrated_set(500, 2)
    ours = by_name(calibration_tests(E, uE, n_boot=4000, seed=11))["ZMS"]
    ref = stats.bootstrap(
        ((E / uE) ** 2,), np.mean, method="BCa", n_resamples=4000, random_state=5
    ).confidence_interval
    # Different resamples: the limits agree to Monte Carlo precision (about 0.005 here).
    assert ours.ci_low == pytest.approx(ref.low, abs=0.02)
    assert ours.ci_high == pytest.approx(ref.high, abs=0.02)
    # Bootstrap bias of a mean is zero in expectation: small compared with the interval.
    assert abs(ours.bias) < 0.1 * (ours.ci_high - ours.ci_low)


def check_zeta_properties(test) -> None:
    delta = test.estimate - test.reference
    contains = test.ci_low <= test.reference <= test.ci_high
    assert np.sign(test.zeta) == np.sign(delta)
    assert (abs(test.zeta) <= 1.0) == contains == test.valid
    # Eq. 14 by hand: the half-width is the distance to the limit facing the reference.
    limit = test.ci_low if delta > 0 else test.ci_high
    assert test.zeta == pytest.approx(delta / abs(test.estimate - limit), rel=1e-12)


@pytest.mark.parametrize(
    ("scale", "zms_sign", "rce_sign"),
    [(0.5, 1, -1), (2.0, -1, 1)],  # uE too small: ZMS ~ 4, RCE ~ -1; too large: 0.25, 0.5
)
def test_planted_miscalibration_gives_zeta_of_the_right_sign(scale, zms_sign, rce_sign):
    E, uE = calibrated_set(400, 4)
    t = by_name(calibration_tests(E, scale * uE, n_boot=500, seed=8))
    for name, sign in (("ZMS", zms_sign), ("RCE", rce_sign)):
        check_zeta_properties(t[name])
        assert np.sign(t[name].zeta) == sign and abs(t[name].zeta) > 1.0
        assert not t[name].valid
    assert t["ZMS"].estimate == pytest.approx(numpy_zms(E, uE) / scale**2, rel=1e-12)


def test_calibrated_set_zeta_properties_and_seeds():
    E, uE = calibrated_set(1000, 6)
    first = calibration_tests(E, uE, n_boot=500, seed=21)
    for test in first:
        check_zeta_properties(test)
    assert calibration_tests(E, uE, n_boot=500, seed=21) == first
    other = by_name(calibration_tests(E, uE, n_boot=500, seed=22))
    assert other["ZMS"].ci_low != by_name(first)["ZMS"].ci_low


def brute_force_decimation(E, uE, percents):
    order = sorted(range(len(E)), key=lambda i: (-uE[i], -E[i]))  # largest uE, then largest E
    rows = []
    for k in percents:
        n = int(math.floor(k * len(E) / 100 + 1e-9))
        keep = sorted(order[n:])
        rows.append((n, numpy_rce(E[keep], uE[keep]), numpy_zms(E[keep], uE[keep])))
    return rows


def test_decimation_matches_brute_force_loop_with_ties():
    E, uE = calibrated_set(250, 7)
    uE = np.round(uE, 1)  # many ties in uE: the tie rule (E descending) matters
    table = decimation(E, uE, max_percent=10.0, step=0.4)
    percents = [0.4 * i for i in range(26)]
    np.testing.assert_allclose(table["k"], percents, atol=1e-12)
    expected = brute_force_decimation(E, uE, percents)
    np.testing.assert_array_equal(table["n_removed"], [row[0] for row in expected])
    np.testing.assert_allclose(table["RCE"], [row[1] for row in expected], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(table["ZMS"], [row[2] for row in expected], rtol=1e-10)
    np.testing.assert_allclose(table["delta_ZMS"], table["ZMS"] - expected[0][2], atol=1e-12)
    np.testing.assert_allclose(table["delta_RCE"], table["RCE"] - expected[0][1], atol=1e-12)
    assert table["n_removed"].iloc[-1] == 25  # floor(10 % of 250)


def test_decimation_removing_large_uncertainties_of_a_planted_set():
    # The 5 % largest uE carry errors ten times too large: removing them brings ZMS near 1.
    E, uE = calibrated_set(2000, 8)
    top = np.argsort(uE)[-100:]
    E = E.copy()
    E[top] *= 10.0
    table = decimation(E, uE, max_percent=5.0, step=5.0)
    assert list(table["n_removed"]) == [0, 100]
    assert table["ZMS"].iloc[0] > 3.0
    assert table["ZMS"].iloc[1] == pytest.approx(numpy_zms(np.delete(E, top), np.delete(uE, top)))
    assert table["delta_ZMS"].iloc[1] < -2.0


def test_average_calibration_descriptive_statistics_and_trimmed_set():
    E, uE = calibrated_set(400, 9)
    result = average_calibration(E, uE, n_boot=300, seed=5, trimmed_fraction=0.05)
    z = E / uE
    assert result.M == 400 and result.trimmed_fraction == 0.05
    assert result.mean_z == pytest.approx(float(np.mean(z)), rel=1e-12)
    assert result.var_z == pytest.approx(float(np.var(z, ddof=1)), rel=1e-12)
    keep = np.argsort(uE)[:380]  # drop the round(0.05 * 400) = 20 largest uE (no ties)
    trimmed = by_name(result.trimmed)
    assert trimmed["ZMS"].estimate == pytest.approx(numpy_zms(E[keep], uE[keep]), rel=1e-12)
    assert trimmed["RCE"].estimate == pytest.approx(numpy_rce(E[keep], uE[keep]), rel=1e-12)
    full = by_name(result.full)
    assert full["ZMS"].estimate == pytest.approx(numpy_zms(E, uE), rel=1e-12)
    for test in (*result.full, *result.trimmed):
        check_zeta_properties(test)
    assert average_calibration(E, uE, n_boot=300, seed=5) == result
