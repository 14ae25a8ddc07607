"""Tests for calibration curves and confidence curves (P000 Sects. III.2.1, III.3.6)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from uqval.calibration.curves import (
    CONFIDENCE_K,
    P_GRID_DEFAULT,
    P_GRID_SYNTHETIC,
    calibration_curve,
    calibration_eta,
    conditional_calibration_curves,
    confidence_curve,
    confidence_statistic,
    curve_miscalibration_area,
    identity_band,
    probabilistic_reference,
)
from uqval.stats.binomial import wilson_cc_interval
from uqval.stats.robust import hd_quantile
from uqval.stats.synthetic import GenerativeDistribution


def calibrated_set(seed: int, m: int, nu: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    uE = np.exp(rng.normal(size=m))
    eps = rng.standard_normal(m) if nu is None else rng.standard_t(nu, m) * np.sqrt((nu - 2) / nu)
    return uE * eps, uE


def direct_eta(E, uE, p, quantile) -> np.ndarray:
    """Eq. 17 literally: (1/M) sum 1(E_i < uE_i Q_D(p)) for every p."""
    q = quantile(p)
    return np.array([np.mean(E < uE * qp) for qp in q])


# --- calibration curves ---------------------------------------------------------------------


def test_grids_are_the_authors():
    assert P_GRID_SYNTHETIC[0] == 0.005 and P_GRID_SYNTHETIC[-1] == 1.0
    assert P_GRID_SYNTHETIC.size == 996
    assert np.allclose(np.diff(P_GRID_SYNTHETIC), 0.001)
    assert P_GRID_DEFAULT[0] == 0.005 and P_GRID_DEFAULT[-1] == pytest.approx(0.995)
    assert P_GRID_DEFAULT.size == 199


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("dist", "quantile"),
    [
        ("normal", stats.norm.ppf),
        (("t", 4.0), lambda p: stats.t.ppf(p, 4) / np.sqrt(2.0)),
        (("t", 6.0), lambda p: stats.t.ppf(p, 6) * np.sqrt(4.0 / 6.0)),
    ],
)
def test_eta_equals_direct_indicator_sum(seed, dist, quantile):
    E, uE = calibrated_set(seed, 3000, nu=5.0)
    eta = calibration_eta(E, uE, P_GRID_SYNTHETIC, dist)
    np.testing.assert_array_equal(eta, direct_eta(E, uE, P_GRID_SYNTHETIC, quantile))
    assert eta[-1] == 1.0


def test_eta_strict_inequality():
    # Z = 0 exactly at p = 0.5 (Q = 0): E_i < 0 is false for E_i = 0.
    E = np.array([-1.0, 0.0, 0.0, 1.0])
    uE = np.ones(4)
    assert calibration_eta(E, uE, [0.5]) == pytest.approx([0.25])


def test_calibrated_normal_curve_is_close_to_identity():
    E, uE = calibrated_set(3, 50_000)
    curve = calibration_curve(E, uE)
    assert np.max(np.abs(curve.eta - curve.p)) < 0.01
    assert curve.area < 0.005
    assert curve.n_band == 50_000


def test_doubled_uncertainties_give_phi_of_2q():
    # Case D logic: Z/2 ~ N(0, 1/4), so eta_p -> Phi(2 Phi^-1(p)).
    E, uE = calibrated_set(4, 100_000)
    eta = calibration_eta(E, 2 * uE, P_GRID_DEFAULT)
    expected = stats.norm.cdf(2 * stats.norm.ppf(P_GRID_DEFAULT))
    assert np.max(np.abs(eta - expected)) < 0.01


def test_identity_band_matches_wilson_cc_per_point():
    p = P_GRID_SYNTHETIC
    low, high = identity_band(p, 5000)
    for i in (0, 1, 100, 495, 900, 995):
        lo, hi = wilson_cc_interval(round(p[i] * 5000), 5000)
        assert (low[i], high[i]) == pytest.approx((lo, hi), rel=1e-15)
    assert np.all((low <= p) & (p <= high))
    assert high[-1] == 1.0
    low333, high333 = identity_band(p, 333)
    assert np.all(high333 - low333 > high - low)


def test_miscalibration_area_trapezoid():
    p = np.array([0.25, 0.5, 0.75])
    eta = np.array([0.5, 0.5, 0.5])
    # |eta - p| on pt = [0, .25, .5, .75, 1]: [0, .25, 0, .25, 0] -> trapezoids 4 * 0.25 * 0.125.
    assert curve_miscalibration_area(p, eta) == pytest.approx(0.125)
    assert curve_miscalibration_area(P_GRID_SYNTHETIC, P_GRID_SYNTHETIC) == 0.0
    # eta = 0 on the whole grid: |eta - p| = p is linear, so the trapezoid rule gives 1/2.
    assert curve_miscalibration_area(P_GRID_SYNTHETIC, np.zeros(996)) == pytest.approx(0.5)
    E, uE = calibrated_set(5, 1000)
    curve = calibration_curve(E, uE, P_GRID_DEFAULT)
    pt = np.r_[0.0, P_GRID_DEFAULT, 1.0]
    pe = np.r_[0.0, curve.eta, 1.0]
    assert curve.area == pytest.approx(np.trapezoid(np.abs(pe - pt), pt), rel=1e-12)


def test_conditional_curves_per_bin_and_average():
    E, uE = calibrated_set(6, 5000)
    bins = np.array_split(np.argsort(uE, kind="stable"), 15)
    cond = conditional_calibration_curves(E, uE, bins, P_GRID_DEFAULT)
    assert cond.eta.shape == (15, P_GRID_DEFAULT.size)
    for row, b in zip(cond.eta, bins, strict=True):
        np.testing.assert_array_equal(row, direct_eta(E[b], uE[b], P_GRID_DEFAULT, stats.norm.ppf))
    np.testing.assert_allclose(cond.average, cond.eta.mean(axis=0))
    assert cond.n_band == 333
    low, high = identity_band(P_GRID_DEFAULT, 333)
    np.testing.assert_array_equal(cond.band_low, low)
    np.testing.assert_array_equal(cond.band_high, high)
    # Calibrated and consistent data: at most a few per-bin points outside the band.
    outside = (cond.eta < cond.band_low) | (cond.eta > cond.band_high)
    assert outside.mean() < 0.1


def test_calibration_input_validation():
    with pytest.raises(ValueError, match="positive"):
        calibration_eta([1.0, 2.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="different lengths"):
        calibration_eta([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="grid"):
        calibration_eta([1.0], [1.0], [0.0, 0.5])
    with pytest.raises(ValueError, match="bin"):
        conditional_calibration_curves([1.0], [1.0], [])


# --- confidence curves ----------------------------------------------------------------------


def brute_stat(x: np.ndarray, statistic: str) -> float:
    if statistic == "rmse":
        return float(np.sqrt(np.mean(x**2)))
    if statistic == "mae":
        return float(np.mean(np.abs(x)))
    return float(np.std(x, ddof=1)) if x.size > 1 else float("nan")


def brute_curve(E_sorted: np.ndarray, statistic: str) -> np.ndarray:
    m = E_sorted.size
    return np.array([brute_stat(E_sorted[(k * m) // 100 :], statistic) for k in range(100)])


@pytest.mark.parametrize("statistic", ["rmse", "rmsd", "mae"])
@pytest.mark.parametrize("m", [1000, 1234, 150])
def test_confidence_statistic_matches_loop(statistic, m):
    rng = np.random.default_rng(m)
    E = rng.standard_t(3, size=m) + 0.5  # biased, heavy-tailed
    np.testing.assert_allclose(
        confidence_statistic(E, CONFIDENCE_K, statistic), brute_curve(E, statistic), rtol=1e-10
    )
    stacked = rng.normal(size=(3, m))
    out = confidence_statistic(stacked, CONFIDENCE_K, statistic)
    for row, e in zip(out, stacked, strict=True):
        np.testing.assert_allclose(row, brute_curve(e, statistic), rtol=1e-10)


def test_rmsd_is_nan_with_a_single_point_left():
    E = np.arange(50.0)
    out = confidence_statistic(E, [0, 98], "rmsd")  # floor(98 * 50 / 100) = 49 -> 1 point left
    assert out[0] == pytest.approx(np.std(E, ddof=1))
    assert np.isnan(out[1])


@pytest.mark.parametrize("statistic", ["rmse", "rmsd", "mae"])
def test_confidence_curve_matches_brute_force_with_ties(statistic):
    rng = np.random.default_rng(7)
    m = 800
    uE = np.round(rng.uniform(0.1, 1.0, size=m), 1)  # many ties
    E = uE * rng.normal(size=m)
    # Decreasing uE, ties in input order (Python's sorted is stable).
    order = sorted(range(m), key=lambda i: -uE[i])
    e_sorted = E[order]
    oracle_order = sorted(range(m), key=lambda i: -abs(e_sorted[i]))
    curve = confidence_curve(E, uE, statistic)
    np.testing.assert_allclose(curve.values, brute_curve(e_sorted, statistic), rtol=1e-10)
    np.testing.assert_allclose(
        curve.oracle, brute_curve(e_sorted[oracle_order], statistic), rtol=1e-10
    )
    u_sorted = uE[order]
    assert curve.u_k == pytest.approx([u_sorted[(k * m) // 100] for k in range(100)])
    assert curve.u_k[0] == uE.max()
    # The oracle removes the largest errors first, so it lies below the data curve.
    assert np.all(curve.oracle <= curve.values + 1e-12)


def brute_reference(uE, seed, dist, statistic, n_mc):
    """Replicate by replicate, with the same draws as the vectorised pass."""
    u_sorted = uE[np.argsort(-uE, kind="stable")]
    eps = GenerativeDistribution(*dist).draw(np.random.default_rng(seed), (n_mc, uE.size))
    curves = np.array([brute_curve(u_sorted * eps[i], statistic) for i in range(n_mc)])
    band = np.array([hd_quantile(curves[:, k], [0.025, 0.975]) for k in range(100)])
    return curves.mean(axis=0), band[:, 0], band[:, 1]


@pytest.mark.parametrize(
    ("dist", "statistic"), [(("normal",), "rmse"), (("t", 4.0), "mae"), (("normal",), "rmsd")]
)
def test_probabilistic_reference_matches_loop(dist, statistic):
    _, uE = calibrated_set(8, 400)
    ref = probabilistic_reference(
        uE, np.random.default_rng(9), GenerativeDistribution(*dist), statistic, n_mc=60
    )
    mean, low, high = brute_reference(uE, 9, dist, statistic, 60)
    np.testing.assert_allclose(ref.mean, mean, rtol=1e-10)
    np.testing.assert_allclose(ref.low, low, rtol=1e-10)
    np.testing.assert_allclose(ref.high, high, rtol=1e-10)
    assert ref.n_mc == 60 and np.all(ref.low <= ref.high)


def test_probabilistic_reference_is_seeded_and_rmse_mean_ignores_d():
    _, uE = calibrated_set(10, 2000)
    a = probabilistic_reference(uE, np.random.default_rng(1))
    b = probabilistic_reference(uE, np.random.default_rng(1))
    np.testing.assert_array_equal(a.mean, b.mean)
    t4 = probabilistic_reference(uE, np.random.default_rng(2), ("t", 4.0))
    # P000 Sect. III.3.6: for RMSE curves the mean reference does not depend on D (up to
    # Jensen and MC noise, which grow when few points are left), the band does.
    assert np.max(np.abs(t4.mean[:90] / a.mean[:90] - 1.0)) < 0.02
    assert np.mean(t4.high - t4.low) > np.mean(a.high - a.low)


def test_reference_separates_consistent_from_overestimated_uncertainties():
    E, uE = calibrated_set(11, 5000)
    rng = np.random.default_rng(12)
    data = confidence_curve(E, uE)
    ref = probabilistic_reference(uE, rng)
    inside = (data.values >= ref.low) & (data.values <= ref.high)
    assert inside.mean() > 0.8
    # Doubling uE leaves the data curve unchanged (ranking only) but doubles the reference.
    doubled = probabilistic_reference(2 * uE, rng)
    np.testing.assert_array_equal(confidence_curve(E, 2 * uE).values, data.values)
    assert np.all(data.values < doubled.low)
