"""Unit tests of uqval.calibration.adaptivity (adaptivity paper P003 Sect. III, Fig. 4, Table II).

References computed here: SciPy's spearmanr on each pair of columns, SciPy's Student-t and
BCa bootstrap intervals bin by bin, bins built by hand from np.argsort, binomial quantiles
from scipy.stats.binom, and planted data whose verdict is known.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval.calibration.adaptivity import local_analysis
from uqval.papers.adaptivity.random_order import (
    random_order_fv,
    random_order_summary,
    rank_correlations,
)


def hand_bins(x: np.ndarray, n_bins: int) -> list[np.ndarray]:
    """Equal-count bins of equal size (M divisible by n_bins, distinct x)."""
    return np.split(np.argsort(x), n_bins)


def calibrated(M: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, M)
    uE = 0.5 + x**2
    return uE * rng.standard_normal(M), uE, x


def test_rank_correlations_match_pairwise_spearmanr_with_ties():
    rng = np.random.default_rng(0)
    cols = {
        "X1": rng.normal(size=60),
        "X2": np.round(rng.normal(size=60), 0),  # heavy ties
        "absE": rng.exponential(size=60),
        "uE": rng.integers(0, 5, 60).astype(float),
    }
    cols["absE"] = cols["absE"] + 0.5 * cols["X1"]
    table = rank_correlations(cols)
    assert list(table.index) == list(cols) == list(table.columns)
    for a in cols:
        for b in cols:
            expected = 1.0 if a == b else stats.spearmanr(cols[a], cols[b]).statistic
            assert table.loc[a, b] == pytest.approx(expected, abs=1e-12), (a, b)


def test_rank_correlation_of_a_monotone_transform_is_one():
    x = np.linspace(0.1, 3.0, 25)
    table = rank_correlations({"x": x, "exp": np.exp(x), "neg": -(x**3)})
    assert table.loc["x", "exp"] == pytest.approx(1.0)
    assert table.loc["x", "neg"] == pytest.approx(-1.0)


def test_local_zm_intervals_are_student_t_per_bin():
    E, uE, x = calibrated(800, 1)
    bins = hand_bins(x, 8)
    result = local_analysis(E, uE, x, bins, seed=3, n_boot_min=200)
    assert len(result.zm) == len(result.zms) == 8
    for i, idx in enumerate(bins):
        z = E[idx] / uE[idx]
        row = result.zm.iloc[i]
        low, high = stats.t.interval(0.95, z.size - 1, loc=z.mean(), scale=stats.sem(z))
        assert row["n"] == 100
        assert row["value"] == pytest.approx(z.mean(), rel=1e-12, abs=1e-15)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-10)
        assert result.zms.iloc[i]["value"] == pytest.approx(np.mean(z**2), rel=1e-12)
    limits = zip(result.zm["ci_low"], result.zm["ci_high"], strict=True)
    n_valid = sum(lo <= 0.0 <= hi for lo, hi in limits)
    assert result.fv_zm.value == n_valid / 8 and result.fv_zm.n_bins == 8
    assert result.summary()["n_bins"] == 8


def test_local_zms_intervals_agree_with_scipy_bca():
    E, uE, x = calibrated(600, 2)
    bins = hand_bins(x, 3)
    result = local_analysis(E, uE, x, bins, seed=4, n_boot_min=4000)
    for i, idx in enumerate(bins):
        z2 = (E[idx] / uE[idx]) ** 2
        ref = stats.bootstrap((z2,), np.mean, method="BCa", n_resamples=4000, random_state=i)
        row = result.zms.iloc[i]
        # Independent resamples: the limits agree to Monte Carlo precision (about 0.01).
        assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.04)
        assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.04)


def test_planted_local_miscalibration_is_detected():
    # uE is halved for x > 0: those bins have <Z^2> near 4 and cannot contain 1.
    E, uE, x = calibrated(2000, 5)
    uE = np.where(x > 0.0, 0.5 * uE, uE)
    bins = hand_bins(x, 10)
    result = local_analysis(E, uE, x, bins, seed=6, n_boot_min=500)
    planted = np.array([np.all(x[idx] > 0.0) for idx in bins])
    assert planted.sum() >= 4
    assert not result.zms["valid"].to_numpy()[planted].any()
    assert (result.zms["value"].to_numpy()[planted] > 2.5).all()
    assert result.fv_zms.value <= 1.0 - planted.sum() / 10
    assert result.fv_zms.ci_high < 0.95  # fails the P003 f_v test


def test_random_order_fv_is_split_invariant_and_tie_free_order_is_irrelevant():
    E, uE, x = calibrated(400, 7)
    whole = random_order_fv(E, uE, x, 8, [0, 1, 2], base_seed=9, n_boot_min=200)
    parts = pd.concat(
        [
            random_order_fv(E, uE, x, 8, [0], base_seed=9, n_boot_min=200),
            random_order_fv(E, uE, x, 8, [1, 2], base_seed=9, n_boot_min=200),
        ],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(whole, parts)
    assert list(whole["perm"]) == [0, 1, 2]
    # Distinct x: every permutation gives the same bins, hence the same (Student-t) f_v(LZM).
    fixed = local_analysis(E, uE, x, hand_bins(x, 8), seed=1, n_boot_min=200)
    assert (whole["fv_zm"] == fixed.fv_zm.value).all()


def test_random_order_summary_percentiles_and_binomial_noise():
    perm = pd.DataFrame(
        {"perm": range(1001), "fv_zm": np.linspace(0.0, 1.0, 1001), "fv_zms": np.full(1001, 0.9)}
    )
    n_bins = 20
    out = random_order_summary(perm, n_bins, seed=3)
    zm = out["fv_zm"]
    assert zm["random_mean"] == pytest.approx(0.5)
    assert zm["random_low"] == pytest.approx(0.025) and zm["random_high"] == pytest.approx(0.975)
    zms = out["fv_zms"]
    for key in ("random_mean", "random_low", "random_high"):
        assert zms[key] == pytest.approx(0.9, abs=1e-12)
    # f' = Binomial(20, 0.9)/20: mean 0.9 (sd of the mean of 1001 draws ~ 0.002).
    assert zms["binomial_mean"] == pytest.approx(0.9, abs=0.01)
    binom = stats.binom(n_bins, 0.9)
    assert binom.ppf(0.01) / n_bins <= zms["binomial_low"] <= binom.ppf(0.05) / n_bins
    assert zms["binomial_high"] == pytest.approx(1.0)
    assert random_order_summary(perm, n_bins, seed=3) == out
