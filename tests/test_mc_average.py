"""Tests for the Monte Carlo studies of average calibration (P001 Sect. IV)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from uqval.papers.heavytails import montecarlo as mc
from uqval.stats import zscore_statistics as cal
from uqval.stats.bootstrap import bca_bootstrap, bca_bootstrap_means, bca_bootstrap_means_sets


@pytest.fixture(scope="module")
def heavy_set():
    """Heavy-tailed calibrated set (uE^2 ~ IG(1.5, 1.5), E = uE t_s(5)), M = 3000."""
    rng = np.random.default_rng(42)
    ue = np.sqrt(1.0 / rng.gamma(1.5, 1.0 / 1.5, size=3000))
    return ue * rng.standard_t(5, size=3000) * math.sqrt(3.0 / 5.0), ue


# --- bca_bootstrap_means --------------------------------------------------------------------


def test_bca_bootstrap_means_identical_to_bca_bootstrap(heavy_set):
    """Shared resamples: each statistic gets bca_bootstrap's replicates and interval exactly.

    M = 3000 gives stream blocks of 349 replicates (the last one partial for n_boot = 1000)
    and gather sub-chunks of 21 rows (the last one partial), so all boundaries are crossed.
    """
    stats = {"ZMS": cal.ZMS, "RCE": cal.RCE, "RCE2": cal.RCE2}
    shared = bca_bootstrap_means(heavy_set, stats, n_boot=1000, seed=7)
    assert list(shared) == list(stats)
    for name, stat in stats.items():
        alone = bca_bootstrap(heavy_set, stat, n_boot=1000, seed=7)
        assert shared[name] == alone  # every field but the replicates, exactly
        np.testing.assert_array_equal(shared[name].replicates, alone.replicates)


def test_bca_bootstrap_means_single_statistic_and_threads(heavy_set):
    alone = bca_bootstrap(heavy_set, cal.ZMS, n_boot=700, seed=3)
    for workers in (1, 2):
        (res,) = bca_bootstrap_means(
            heavy_set, {"ZMS": cal.ZMS}, n_boot=700, seed=3, n_workers=workers
        ).values()
        assert res == alone
        np.testing.assert_array_equal(res.replicates, alone.replicates)


def test_bca_bootstrap_means_rejects_generic_statistics(heavy_set):
    with pytest.raises(TypeError, match="MeanStatistic"):
        bca_bootstrap_means(heavy_set, {"zms": cal.zms_rows}, n_boot=10, seed=0)
    with pytest.raises(ValueError, match="at least one"):
        bca_bootstrap_means(heavy_set, {}, n_boot=10, seed=0)


def test_sets_on_common_resamples_equal_one_call_per_set(heavy_set):
    """Several sets in one call: each gets bca_bootstrap's resamples with the same seed.

    Two sets (6 columns, the kernel's gathering path) give bca_bootstrap's result exactly;
    three sets (9 columns, the matrix-product path) the same replicates to rounding.
    """
    E, uE = heavy_set
    rng = np.random.default_rng(5)
    sets = [(E, uE), (E * rng.lognormal(0, 0.3, E.size), uE), (E[::-1], uE * 1.1)]
    stats = {"ZMS": cal.ZMS, "RCE": cal.RCE}
    for n_sets in (2, 3):
        together = bca_bootstrap_means_sets(
            sets[:n_sets], stats, n_boot=800, seed=np.random.SeedSequence(9)
        )
        assert len(together) == n_sets
        for data, results in zip(sets, together, strict=False):
            for name, stat in stats.items():
                alone = bca_bootstrap(data, stat, n_boot=800, seed=np.random.SeedSequence(9))
                if n_sets == 2:
                    assert results[name] == alone
                    np.testing.assert_array_equal(results[name].replicates, alone.replicates)
                else:
                    np.testing.assert_allclose(
                        results[name].replicates, alone.replicates, rtol=1e-12, atol=1e-14
                    )
                    for field in ("estimate", "bias", "ci_low", "ci_high", "se"):
                        assert getattr(results[name], field) == pytest.approx(
                            getattr(alone, field), rel=1e-10, abs=1e-13
                        )
    with pytest.raises(ValueError, match="same number of points"):
        bca_bootstrap_means_sets([(E, uE), (E[:-1], uE[:-1])], stats, n_boot=10, seed=0)
    with pytest.raises(ValueError, match="at least one data set"):
        bca_bootstrap_means_sets([], stats, n_boot=10, seed=0)


def test_single_precision_sums_change_the_intervals_by_float32_rounding_only(heavy_set):
    """P001 Fig. 5 sums in float32: same estimates and resamples, intervals to ~1e-5."""
    E, uE = heavy_set
    rng = np.random.default_rng(6)
    sets = [(E * rng.lognormal(0, 0.2, E.size), uE) for _ in range(5)]  # 6 distinct columns + uE^2
    stats = {"ZMS": cal.ZMS, "RCE": cal.RCE}
    double, single = (bca_bootstrap_means_sets(sets, stats, n_boot=600, seed=np.random.SeedSequence(4),
                                               single_precision_sums=flag) for flag in (False, True))
    for d, s in zip(double, single, strict=True):
        for name in stats:
            assert s[name].estimate == d[name].estimate  # the data's statistic: float64
            np.testing.assert_allclose(s[name].replicates, d[name].replicates, rtol=1e-4, atol=1e-6)
            assert s[name].ci_low == pytest.approx(d[name].ci_low, rel=1e-4, abs=1e-6)
            assert s[name].ci_high == pytest.approx(d[name].ci_high, rel=1e-4, abs=1e-6)


# --- Fig. 3 ---------------------------------------------------------------------------------


def test_squared_normal_reference_values():
    """P001 Sect. IV.1 shape statistics of chi^2_1: beta_GM = 0.636, kappa_CS = 1.20."""
    ref = mc.squared_normal_shape_statistics()
    assert ref["beta_GM"] == pytest.approx(0.636, abs=5e-4)
    assert ref["kappa_CS"] == pytest.approx(1.20, abs=5e-3)


def test_shape_curves_decrease_towards_squared_normal():
    """F(1, nu) -> chi^2_1 as nu -> inf: beta_GM and kappa_CS decrease to the chi^2_1 values.

    Successive population values differ by >= 0.01 (beta) while the sampling sd of beta_GM
    at n = 2e5 is about 0.002.
    """
    curves = mc.shape_statistic_curves([2.0, 4.0, 10.0, 50.0, 400.0], 200_000, seed=11)
    ref = mc.squared_normal_shape_statistics()
    assert list(curves.columns) == ["nu", "beta_F", "kappa_F", "beta_IG", "kappa_IG"]
    for column in ("beta_F", "kappa_F", "beta_IG", "kappa_IG"):
        assert np.all(np.diff(curves[column]) < 0), column
    assert curves["beta_F"].iloc[-1] == pytest.approx(ref["beta_GM"], abs=0.01)
    assert curves["kappa_F"].iloc[-1] == pytest.approx(ref["kappa_CS"], abs=0.1)
    assert np.all(curves["beta_F"] > ref["beta_GM"] - 0.01)


# --- Figs 4 and 11 --------------------------------------------------------------------------


def test_tig_bias_light_tails_unbiased():
    """nu_IG = 20, nu_D = 100: RCE, RCE2 and 1 - ZMS are ~0 within 3 SE.

    E[ZMS] = 1 exactly (Z = D, E[D^2] = 1). RCE has a Jensen bias ~ Var(MSE/MV)/8 ~
    Var(D^2) E[uE^4]/(8 M E[uE^2]^2) = 2.06 * 9/8 / (8 M) = 0.29/M, against an SE of
    ~0.76/sqrt(M N): 0.17 SE for M = 2000, N = 400 (RCE2 ~ 2 RCE, same ratio).
    """
    point = mc.tig_bias_point(20.0, 100.0, n_sets=400, M=2000, seed=5)
    assert point["n_sets"] == 400 and point["M"] == 2000
    for name in mc.TIG_STATISTICS:
        assert point[f"{name}_se"] == pytest.approx(point[f"{name}_sd"] / math.sqrt(400))
        assert abs(point[f"{name}_mean"]) < 3.0 * point[f"{name}_se"], name
    assert 0.6 < point["beta_Z2"] < 0.7 and 0.6 < point["beta_E2"] < 0.75


def test_tig_bias_heavy_tails_rce_positive():
    """nu_IG = 2 (uE^2 ~ IG(1, 1), infinite mean), normal D: RCE is biased upwards.

    Given uE, E[MSE/MV] = 1 exactly, so RCE = 1 - sqrt(MSE/MV) has E[RCE] > 0 by Jensen's
    inequality, the gap growing with Var(MSE/MV) = 2 sum uE^4/(sum uE^2)^2, which stays
    O(1) for this tail. With small sets (M = 100) and N = 4000 the bias is resolved far
    beyond 3 SE, whereas 1 - ZMS and RCE2 = 1 - MSE/MV (App. A) are exactly unbiased.
    """
    point = mc.tig_bias_point(2.0, math.inf, n_sets=4000, M=100, seed=9)
    assert point["RCE_mean"] > 3.0 * point["RCE_se"]
    for name in ("RCE2", "1-ZMS"):
        assert abs(point[f"{name}_mean"]) < 3.0 * point[f"{name}_se"], name
    assert point["beta_E2"] > 0.9


def test_tig_bias_point_is_seeded():
    a = mc.tig_bias_point(4.0, 6.0, n_sets=30, M=200, seed=1)
    b = mc.tig_bias_point(4.0, 6.0, n_sets=30, M=200, seed=1)
    c = mc.tig_bias_point(4.0, 6.0, n_sets=30, M=200, seed=2)
    assert a == b and a != c


# --- Fig. 5 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("scenario", "nu"), [("NIG", 3.0), ("TIG", 2.5)])
def test_pval_repeats_do_not_depend_on_chunking(scenario, nu):
    kwargs = {"M": 300, "n_boot": 200, "base_seed": 2024}
    whole = mc.pval_repeats(scenario, nu, range(6), **kwargs)
    chunks = pd.concat(
        [mc.pval_repeats(scenario, nu, part, **kwargs) for part in ([4, 5], [0], [1, 2, 3])]
    )
    chunks = chunks.sort_values("repeat").reset_index(drop=True)
    pd.testing.assert_frame_equal(whole, chunks, check_exact=True)
    assert list(whole["repeat"]) == list(range(6))
    assert whole["ZMS"].nunique() == 6


@pytest.mark.parametrize(("scenario", "nus"), [("NIG", [3.0, 8.0, 20.0]), ("TIG", [2.5, 6.0])])
def test_pval_repeats_do_not_depend_on_the_nu_grid_of_a_call(scenario, nus):
    # the resamples of a repeat are shared by all nu (common random numbers), the data sets
    # are not: each (nu, r) row is the same whichever other nu are in the call (to float32
    # rounding: many nu take the kernel's float32 matrix-product path, one nu the gathering
    # path in float64)
    kwargs = {"M": 300, "n_boot": 200, "base_seed": 77}
    grid = mc.pval_repeats(scenario, nus, [3, 0, 1], **kwargs)
    assert list(grid["nu"]) == [nu for nu in nus for _ in range(3)]
    assert list(grid["repeat"]) == [3, 0, 1] * len(nus)
    alone = pd.concat(
        [mc.pval_repeats(scenario, nu, [r], **kwargs) for nu in nus for r in (3, 0, 1)],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(grid, alone, check_exact=False, rtol=1e-4, atol=2e-6)
    # different nu give different data sets (the estimates differ)
    assert grid.groupby("repeat")["ZMS"].nunique().eq(len(nus)).all()
    with pytest.raises(ValueError, match="distinct"):
        mc.pval_repeats(scenario, [nus[0], nus[0]], [0], **kwargs)


def test_pval_repeats_tig_uses_fixed_uncertainties():
    """TIG: uE drawn once (Gamma^-1(3, 3)) and kept; the default is derived from base_seed."""
    fixed = mc.tig_fixed_uncertainties(300, seed=8)
    assert fixed.shape == (300,) and np.all(fixed > 0)
    default = mc.pval_repeats("TIG", 4.0, [0, 1], M=300, n_boot=100, base_seed=8)
    explicit = mc.pval_repeats("TIG", 4.0, [0, 1], M=300, n_boot=100, base_seed=8, fixed_uE=fixed)
    pd.testing.assert_frame_equal(default, explicit, check_exact=True)
    with pytest.raises(ValueError, match="TIG"):
        mc.pval_repeats("NIG", 4.0, [0], M=300, n_boot=100, base_seed=8, fixed_uE=fixed)
    with pytest.raises(ValueError, match="nu_D > 2"):
        mc.pval_repeats("TIG", 2.0, [0], M=300, n_boot=100, base_seed=8)


def test_pval_nig_light_tails_near_nominal():
    """NIG with nu = 100 (uE nearly constant, E nearly normal): p_val ~ 0.95.

    The BCa intervals of ZMS and RCE then have close to nominal coverage p ~ 0.95, so the
    number of validated repeats is ~ Binomial(100, 0.95). The 99.9 % Wilson-cc interval
    contains 0.95 iff at least 88 of 100 repeats validate: this fails with probability
    0.0015 if p = 0.95 (0.007 if p = 0.94), so the test is not seed-fragile.
    """
    rows = mc.pval_repeats("NIG", 100.0, range(100), M=500, n_boot=500, base_seed=31)
    summary = mc.pval_summary(rows, confidence=0.999)
    assert summary["n"] == 100
    for name in ("ZMS", "RCE"):
        assert summary[f"{name}_ci_low"] <= 0.95 <= summary[f"{name}_ci_high"], summary
        assert summary[f"{name}_n_undefined"] == 0


def test_pval_summary_counts_and_undefined_zeta():
    rows = pd.DataFrame(
        {
            "scenario": "NIG",
            "nu": 5.0,
            "repeat": [0, 1, 2, 3],
            "ZMS_zeta": [0.5, -1.0, 1.5, np.nan],
            "RCE_zeta": [0.0, 0.2, -0.3, 0.9],
        }
    )
    summary = mc.pval_summary(rows)
    assert summary["ZMS_pval"] == 0.5 and summary["ZMS_n_valid"] == 2
    assert summary["ZMS_n_undefined"] == 1
    assert summary["RCE_pval"] == 1.0 and summary["RCE_ci_high"] == 1.0
    with pytest.raises(ValueError, match="duplicated"):
        mc.pval_summary(pd.concat([rows, rows]))


def test_pval_upper_axis():
    """NIG: beta_GM(uE^2) decreases with nu; TIG: default fixed uE is that of the seed."""
    nig = [mc.pval_upper_axis("NIG", nu, M=1000, n_samples=5, seed=3) for nu in (2.0, 6.0, 20.0)]
    assert nig[0] > nig[1] > nig[2]
    fixed = mc.tig_fixed_uncertainties(1000, seed=3)
    tig = mc.pval_upper_axis("TIG", 3.0, M=1000, n_samples=5, seed=3)
    assert tig == mc.pval_upper_axis("TIG", 3.0, M=1000, n_samples=5, seed=3, fixed_uE=fixed)
    assert tig > mc.pval_upper_axis("TIG", 20.0, M=1000, n_samples=5, seed=3)
