"""Bin-free checks of calibration: the isotonic reliability of the variance (PAV fit of E² on
uE², its bands, the QLIKE CORP decomposition) and the cumulative-difference tests along x.

References are independent of the code under test: scikit-learn's IsotonicRegression, the
scores written out from their definitions, a hand-computed cumulative curve, a loop
implementation of the statistics and the exact permutation distribution of a tiny example.
"""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats
from sklearn.isotonic import IsotonicRegression

import uqval
from uqval.calibration.cumulative import cumulative_test
from uqval.calibration.isotonic import isotonic_reliability, pav_fit, qlike_decomposition
from uqval.plots.reliability import cumulative_plot, isotonic_reliability_plot


def t6(rng: np.random.Generator, n: int) -> np.ndarray:
    """Unit-variance Student t(6) draws."""
    return rng.standard_t(6, n) * np.sqrt(4.0 / 6.0)


def tied_set(seed: int, m: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """Calibrated errors with uncertainties on a grid of 40 values (many ties)."""
    rng = np.random.default_rng(seed)
    u = rng.integers(10, 50, m) / 20.0
    return u * rng.standard_normal(m), u


# --- isotonic reliability ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pav_fit_equals_scikit_learn_with_ties(seed):
    e, u = tied_set(seed)
    e[::7] *= 3.0  # a few rows with larger errors, so the fit has several pooled blocks
    res = isotonic_reliability(e, u, n_sim=5, n_boot=5)
    reference = IsotonicRegression().fit(u**2, e**2)
    np.testing.assert_array_equal(res.x, np.unique(u**2))
    assert res.counts.sum() == u.size and res.x.size == 40
    np.testing.assert_allclose(res.fitted, reference.predict(res.x), rtol=1e-12, atol=0)
    assert (np.diff(res.fitted) >= 0).all()
    x, fit = pav_fit(u**2, e**2)
    np.testing.assert_array_equal(x, res.x)
    np.testing.assert_allclose(fit, res.fitted, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("factor", [1.0, 1.5])
def test_decomposition_adds_up_and_matches_the_definitions(seed, factor):
    e, u = tied_set(seed)
    e = e * np.where(u > 1.5, factor, 1.0)
    d = qlike_decomposition(e, u)
    assert abs(d.miscalibration - d.discrimination + d.uncertainty - d.score) <= 1e-12
    assert d.miscalibration >= 0.0 and d.discrimination >= 0.0
    # the definitions, written out with scikit-learn's fit as the recalibrated forecast
    y, v = e**2, u**2
    recalibrated = IsotonicRegression().fit(v, y).predict(v)
    score = np.mean(y / v + np.log(v))
    score_rc = np.mean(y / recalibrated + np.log(recalibrated))
    score_mg = np.mean(y / y.mean() + np.log(y.mean()))
    assert d.score == pytest.approx(score, rel=1e-12)
    assert d.miscalibration == pytest.approx(score - score_rc, rel=1e-9, abs=1e-12)
    assert d.discrimination == pytest.approx(score_mg - score_rc, rel=1e-9)
    assert d.uncertainty == pytest.approx(score_mg, rel=1e-12)
    full = isotonic_reliability(e, u, n_sim=20, n_boot=5).decomposition
    assert full.score == d.score and full.miscalibration == d.miscalibration


def test_mcb_p_value_is_uniform_on_calibrated_data():
    p = []
    for s in range(100):
        rng = np.random.default_rng(31_000 + s)
        u = rng.uniform(0.5, 2.0, 200)
        p.append(isotonic_reliability(u * rng.standard_normal(u.size), u, n_sim=99, n_boot=1,
                                      seed=s).decomposition.p_value)
    p = np.asarray(p)
    assert np.mean(p <= 0.05) <= 0.10
    assert stats.kstest(p, "uniform").pvalue > 0.01


def test_mcb_p_value_with_student_t_errors():
    p = []
    for s in range(60):
        rng = np.random.default_rng(32_000 + s)
        u = rng.uniform(0.5, 2.0, 200)
        res = isotonic_reliability(u * t6(rng, u.size), u, n_sim=99, n_boot=1,
                                   distribution="t", nu=6, seed=s)
        p.append(res.decomposition.p_value)
    assert np.mean(np.asarray(p) <= 0.05) <= 0.12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcb_detects_uncertainties_too_small_in_the_upper_half(seed):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.5, 2.0, 1000)
    e = u * rng.standard_normal(u.size)
    e[u > np.median(u)] *= 1.5
    res = isotonic_reliability(e, u, n_sim=199, n_boot=50, seed=seed)
    assert res.decomposition.p_value < 0.01
    upper = res.x > np.quantile(res.x, 0.6)
    assert np.mean(res.fitted[upper] > res.band_high[upper]) > 0.8
    lower = res.x < np.quantile(res.x, 0.3)  # PAV pools across the step just below 0.5
    assert np.mean(res.fitted[lower] > res.band_high[lower]) < 0.1


def test_bands_on_calibrated_data():
    for s in range(4):
        rng = np.random.default_rng(33_000 + s)
        u = np.exp(rng.normal(0.0, 0.5, 3000))
        res = isotonic_reliability(u * rng.standard_normal(u.size), u, n_sim=200, n_boot=100,
                                   seed=s)
        assert res.share_inside > 0.8
        assert (res.band_low <= res.band_high).all() and (res.ci_low <= res.ci_high).all()
        # the simulated fits scatter around the diagonal, the bootstrap fits around the fit
        assert np.mean((res.band_low <= res.x) & (res.x <= res.band_high)) > 0.95
        assert np.mean((res.ci_low <= res.fitted) & (res.fitted <= res.ci_high)) > 0.9


def test_bands_above_the_band_point_limit_are_interpolated():
    rng = np.random.default_rng(4)
    u = rng.uniform(0.5, 2.0, 2500)  # more distinct uE² than MAX_BAND_POINTS
    res = isotonic_reliability(u * rng.standard_normal(u.size), u, n_sim=50, n_boot=20)
    assert res.band_low.shape == res.x.shape == res.ci_high.shape
    assert np.isfinite(res.band_low).all() and np.isfinite(res.ci_high).all()


def test_isotonic_reliability_is_reproducible_and_checks_its_options():
    e, u = tied_set(5, m=300)
    a = isotonic_reliability(e, u, n_sim=30, n_boot=30, seed=7)
    b = isotonic_reliability(e, u, n_sim=30, n_boot=30, seed=7)
    np.testing.assert_array_equal(a.band_high, b.band_high)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    assert a.decomposition == b.decomposition
    assert "IsotonicReliability(M=300" in repr(a)
    with pytest.raises(ValueError, match="n_sim"):
        isotonic_reliability(e, u, n_sim=0)
    with pytest.raises(ValueError, match="confidence"):
        isotonic_reliability(e, u, confidence=95)
    with pytest.raises(ValueError, match="nu"):
        isotonic_reliability(e, u, distribution="t")
    with pytest.raises(ValueError, match="all 0"):
        isotonic_reliability(np.zeros(10), np.ones(10))


def test_zero_error_block_keeps_the_score_finite():
    u = np.r_[np.full(5, 0.1), np.linspace(0.5, 2.0, 50)]
    e = np.r_[np.zeros(5), u[5:] * np.random.default_rng(0).standard_normal(50)]
    d = qlike_decomposition(e, u)
    assert np.isfinite([d.score, d.miscalibration, d.discrimination, d.uncertainty]).all()


# --- cumulative differences -------------------------------------------------------------------


def reference_statistics(e, u, x, kind):
    """Kuiper and KS statistics written out with loops (module docstring definitions)."""
    order = sorted(range(len(x)), key=lambda i: (x[i], i))  # ties in row order
    z = [e[i] / u[i] for i in order]
    d = [zi * zi - 1.0 for zi in z] if kind == "spread" else z
    m = len(d)
    mean = sum(d) / m
    partial, departures = 0.0, [0.0]
    for di in d:
        partial += (di - mean) / m
        departures.append(partial)
    sigma = np.sqrt(sum((di - mean) ** 2 for di in d)) / m
    kuiper = (max(departures) - min(departures)) / sigma
    ks = max(abs(t) for t in departures) / sigma
    return kuiper, ks


def test_cumulative_curve_in_closed_form_with_ties():
    # rows sorted by x: row 1 (x=1), rows 2 and 3 (x=2, in row order), row 0 (x=3)
    e, u, x = [2.0, 0.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 2.0, 2.0]
    res = cumulative_test(e, u, x, n_permutations=9)
    np.testing.assert_array_equal(res.x_sorted, [1.0, 2.0, 2.0, 3.0])
    # d = Z² − 1 in that order: −1, 3, −1, 3
    np.testing.assert_allclose(res.cumulative, [-0.25, 0.5, 0.25, 1.0])
    np.testing.assert_allclose(res.chord, [0.25, 0.5, 0.75, 1.0])
    # departures from the chord −0.5, 0, −0.5, 0 and 0 at the start: range 0.5; σ = 4/4 = 1
    assert res.value == pytest.approx(0.5) and res.scale == pytest.approx(1.0)
    bias = cumulative_test(e, u, x, kind="bias", n_permutations=9)
    np.testing.assert_allclose(bias.cumulative, [0.0, 0.5, 0.5, 1.0])


@pytest.mark.parametrize("kind", ["spread", "bias"])
def test_statistics_equal_the_loop_reference(kind):
    rng = np.random.default_rng(11)
    u = rng.uniform(0.5, 2.0, 60)
    e = u * rng.standard_normal(60)
    x = rng.integers(0, 10, 60).astype(float)  # ties
    kuiper, ks = reference_statistics(e, u, x, kind)
    assert cumulative_test(e, u, x, kind=kind, n_permutations=9).value == pytest.approx(kuiper)
    assert cumulative_test(e, u, x, kind=kind, statistic="ks",
                           n_permutations=9).value == pytest.approx(ks)


@pytest.mark.parametrize("statistic", ["kuiper", "ks"])
def test_permutation_p_value_matches_the_exact_permutation_distribution(statistic):
    rng = np.random.default_rng(12)
    u = rng.uniform(0.5, 2.0, 7)
    e = u * rng.standard_normal(7)
    x = np.arange(7.0)
    observed = reference_statistics(e, u, x, "spread")[statistic == "ks"]
    count = total = 0
    for perm in itertools.permutations(range(7)):
        p = list(perm)
        value = reference_statistics(e[p], u[p], x, "spread")[statistic == "ks"]
        count += value >= observed * (1 - 1e-12)
        total += 1
    exact = count / total
    res = cumulative_test(e, u, x, statistic=statistic, n_permutations=9999, seed=3)
    assert res.p_value == pytest.approx(exact, abs=0.015)


def test_size_on_calibrated_normal_and_t6_data():
    rates = {}
    for name, draw in (("normal", lambda r, n: r.standard_normal(n)), ("t6", t6)):
        for kind in ("spread", "bias"):
            p = []
            for s in range(100):
                rng = np.random.default_rng(50_000 + s)
                x = rng.uniform(0.0, 1.0, 300)
                u = rng.uniform(0.5, 2.0, 300)
                p.append(cumulative_test(u * draw(rng, 300), u, x, kind=kind, n_permutations=99,
                                         seed=s).p_value)
            rates[name, kind] = np.mean(np.asarray(p) <= 0.05)
    assert max(rates.values()) <= 0.10, rates
    assert np.mean(list(rates.values())) <= 0.07, rates


def rejection_rate(make, kind, statistic="kuiper", n_sets=20, m=1000):
    p = []
    for s in range(n_sets):
        rng = np.random.default_rng(40_000 + s)
        x = rng.uniform(0.0, 1.0, m)
        u = rng.uniform(0.5, 2.0, m)
        e = make(x, u, rng.standard_normal(m))
        p.append(cumulative_test(e, u, x, kind=kind, statistic=statistic, n_permutations=199,
                                 seed=s).p_value)
    return float(np.mean(np.asarray(p) <= 0.05))


def test_power_against_a_narrow_region_and_a_smooth_trend():
    def narrow(x, u, d):
        return u * d * np.where((x >= 0.40) & (x <= 0.45), 2.0, 1.0)

    def trend(x, u, d):
        return u * d * (0.75 + 0.5 * x)

    assert rejection_rate(narrow, "spread") >= 0.9
    assert rejection_rate(trend, "spread") >= 0.9
    assert rejection_rate(trend, "spread", statistic="ks") >= 0.9


def test_bias_test_fires_on_bias_and_spread_test_stays_quiet():
    def biased(x, u, d):  # E[Z | x] = 0.4 for x > 0.5, E[Z² | x] = 1 everywhere
        b = 0.4 * (x > 0.5)
        return u * (b + np.sqrt(1.0 - b**2) * d)

    assert rejection_rate(biased, "bias") >= 0.9
    assert rejection_rate(biased, "spread", n_sets=40) <= 0.15


def test_cumulative_test_ignores_a_global_scale_and_checks_its_inputs():
    rng = np.random.default_rng(13)
    u = rng.uniform(0.5, 2.0, 500)
    e = u * rng.standard_normal(500)
    a = cumulative_test(e, u, n_permutations=99)
    b = cumulative_test(e, 0.7 * u, n_permutations=99)
    assert b.value == pytest.approx(a.value) and b.p_value == a.p_value
    np.testing.assert_array_equal(cumulative_test(e, u, u, n_permutations=99).null, a.null)
    assert "CumulativeTest(spread, Kuiper" in repr(a)
    with pytest.raises(ValueError, match="x has 499 values"):
        cumulative_test(e, u, u[:-1])
    with pytest.raises(ValueError, match="NaN"):
        cumulative_test(e, u, np.where(np.arange(500) == 2, np.nan, u))
    with pytest.raises(ValueError, match="kind"):
        cumulative_test(e, u, kind="scale")
    with pytest.raises(ValueError, match="statistic"):
        cumulative_test(e, u, statistic="cvm")
    constant = cumulative_test(u, u, n_permutations=9)  # Z = 1 everywhere: nothing to test
    assert constant.value == 0.0 and constant.p_value == 1.0


# --- plots and exports ------------------------------------------------------------------------


def test_plots_draw_and_choose_their_axes():
    rng = np.random.default_rng(14)
    u = np.exp(rng.normal(0.0, 1.0, 800))  # uE² spans more than two decades
    e = u * rng.standard_normal(800)
    ax = isotonic_reliability_plot(e, u, n_sim=30, n_boot=20, units="eV")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == "$u_E^2$ (eV²)"
    x = rng.uniform(0.0, 1.0, 800)
    ax2 = cumulative_plot(e, u, x, kind="bias", x_name="feature", n_permutations=49)
    assert ax2.get_xscale() == "linear" and ax2.get_xlabel() == "feature"
    assert any("too low" in t.get_text() for t in ax2.texts)
    ax3 = cumulative_plot(e, u, statistic="ks", n_permutations=49)
    assert ax3.get_xscale() == "log"
    assert any("too small" in t.get_text() for t in ax3.texts)
    plt.close("all")


def test_new_names_are_exported():
    for name in ("isotonic_reliability", "IsotonicReliability", "CorpDecomposition",
                 "cumulative_test", "CumulativeTest"):
        assert name in uqval.__all__
    assert uqval.isotonic_reliability is isotonic_reliability
    assert uqval.cumulative_test is cumulative_test


def test_compiled_pav_qlike_equals_scipys_pav_per_row():
    # the MCB permutation test's compiled PAV (stack of blocks) and QLIKE summed over the
    # blocks: the value of SciPy's PAV summed over the rows, to rounding, with groups of tied
    # uE and zero blocks (all errors 0 there) raised as before
    from uqval.calibration.isotonic import _pav, _qlike_recalibrated
    from uqval.calibration.pav_kernel import recalibrated_qlike

    rng = np.random.default_rng(21)
    for m in (5, 300, 20_000):
        u2 = np.linspace(0.5, 2.0, m)
        z2 = np.square(rng.standard_normal(m))
        if m > 5:
            z2[: m // 10] = 0.0  # a leading block with all errors 0
        ends = np.unique(np.r_[np.sort(rng.choice(np.arange(1, m), m // 3)), m])  # tied groups
        starts = np.r_[0, ends[:-1]]
        counts = np.diff(np.r_[starts, m]).astype(np.float64)
        sums = np.add.reduceat(u2 * z2, starts)
        want = _qlike_recalibrated(sums, counts, _pav(sums, counts))
        got = recalibrated_qlike(u2, z2, ends.astype(np.int64), counts)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_mcb_test_threads_and_sequential_rule():
    rng = np.random.default_rng(5)
    u = rng.uniform(0.5, 2.0, 30_000)  # above 2**14 rows: the scatter-then-shuffle path
    e = u * rng.standard_normal(u.size)
    e[u > 1.6] *= 1.08
    one = uqval.mcb_permutation_test(e, u, n_permutations=199, seed=3)
    two = uqval.mcb_permutation_test(e, u, n_permutations=199, seed=3, n_workers=2)
    assert (one.miscalibration, one.p_value) == (two.miscalibration, two.p_value)
    seq = uqval.mcb_permutation_test(e, u, n_permutations=199, seed=3, exceedances=5)
    assert seq.miscalibration == one.miscalibration
    if seq.n_permutations < 199:  # stopped early at its 5th exceedance
        assert seq.p_value == pytest.approx(5 / seq.n_permutations)
        assert one.p_value >= 5 / 200
    else:
        assert seq.p_value == one.p_value
