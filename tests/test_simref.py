"""Tests of the simulated-reference module (simref paper P002 Sect. II.D, Apps A-C)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval import simref as sr
from uqval.binning import equal_count_bins
from uqval.calibration.binned_errors import ence_from_bins as ence
from uqval.calibration.binned_errors import zmse_from_bins as zmse
from uqval.papers.simref import appendix_b as appb
from uqval.papers.simref import statistics as paper_stats
from uqval.simref import statistics as sr_statistics
from uqval.stats.bootstrap import bca_bootstrap, jackknife_values
from uqval.stats.variate_kernel import unit_t
from uqval.stats.zscore_statistics import ZMS


def _heavy_set(m: int, seed: int, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ue = np.sqrt(1.0 / rng.gamma(2.0, 0.5, m))
    e = ue * rng.standard_t(5, m) * 0.9
    if ties:
        ue, e = np.round(ue, 1), np.round(e, 1)
    return e, ue


def _reference_value(name: str, n_bins: int | None, e: np.ndarray, ue: np.ndarray) -> float:
    if name == "ZMS":
        return float(np.mean((e / ue) ** 2))
    if name == "CC":
        return float(stats.spearmanr(np.abs(e), ue).statistic)
    bins = equal_count_bins(ue, n_bins)
    return ence(e, ue, bins) if name == "ENCE" else zmse(e, ue, bins)


STATS = [("ZMS", None), ("CC", None), ("ENCE", 7), ("ZMSE", 7), ("ENCE", 20), ("ZMSE", 1)]


# --- statistics -----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "n_bins"), STATS)
def test_value_and_batch_equal_per_set_loops(name, n_bins):
    e, ue = _heavy_set(600, 1)
    stat = sr.SimRefStatistic(name, n_bins)
    assert stat.value(e, ue) == pytest.approx(_reference_value(name, n_bins, e, ue), abs=1e-12)
    rng = np.random.default_rng(2)
    sims = ue * rng.standard_normal((25, ue.size))
    got = stat.batch(sims, ue)
    expected = [_reference_value(name, n_bins, row, ue) for row in sims]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("name", "n_bins"), STATS)
@pytest.mark.parametrize("ties", [False, True])
def test_resample_statistic_resorts_and_rebins(name, n_bins, ties):
    """Bootstrap/jackknife path: every resample re-sorted by uE, index bins reapplied."""
    e, ue = _heavy_set(400, 3, ties=ties)
    stat = sr.SimRefStatistic(name, n_bins)
    frame = sr_statistics.SortedFrame(ue)
    fn = sr_statistics.ResampleStatistic(stat, e[frame.order], frame)
    es, us = e[frame.order], frame.u
    rng = np.random.default_rng(4)
    # sorted positions = the stable re-sort by uE (tied uE ordered by file order)
    idx = np.sort(rng.integers(0, ue.size, (15, ue.size)), axis=1)
    expected = [_reference_value(name, n_bins, es[r], us[r]) for r in idx]
    np.testing.assert_allclose(fn(rng.permuted(idx, axis=1)), expected, rtol=0, atol=1e-12)
    loo = np.array([np.delete(np.arange(ue.size), i) for i in (0, 17, 399)])
    expected = [_reference_value(name, n_bins, es[r], us[r]) for r in loo]
    np.testing.assert_allclose(fn(loo), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["ENCE", "ZMSE"])
def test_binned_jackknife_closed_form(name):
    e, ue = _heavy_set(300, 5, ties=True)
    frame = sr_statistics.SortedFrame(ue)
    fn = sr_statistics.ResampleStatistic(sr.SimRefStatistic(name, 9), e[frame.order], frame)
    direct = jackknife_values((np.arange(ue.size),), fn)
    np.testing.assert_allclose(fn.binned_jackknife(), direct, rtol=0, atol=1e-12)


def test_bootstrap_statistic_zms_is_mean_path():
    e, ue = _heavy_set(500, 6)
    a = sr.bootstrap_statistic(e, ue, "ZMS", n_boot=300, seed=9)
    b = bca_bootstrap((e, ue), ZMS, n_boot=300, seed=9)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    c = sr.bootstrap_statistic(e, ue, "ENCE20", n_boot=300, seed=9)
    assert c.ci_low < c.estimate < c.ci_high
    assert c.estimate == pytest.approx(sr.SimRefStatistic("ENCE", 20).value(e, ue))


def test_as_statistic_specs():
    assert sr.as_statistic("ENCE20") == sr.SimRefStatistic("ENCE", 20)
    assert sr.as_statistic("ZMSE", n_bins=50).label == "ZMSE(N=50)"
    assert sr.as_statistic("ZMS").reference == 1.0
    assert sr.as_statistic("CC").reference is None
    with pytest.raises(ValueError):
        sr.SimRefStatistic("ENCE")
    with pytest.raises(ValueError):
        sr.SimRefStatistic("CC", 5)


# --- simulated references ------------------------------------------------------------------


def test_simulated_reference_chunk_invariant():
    _, ue = _heavy_set(5000, 7)  # 209 sets per stream block: 3 blocks for 500 sets
    stats_ = ["ZMS", "CC", "ENCE20", "ZMSE20"]
    full = sr.simulated_references(ue, stats_, ("t", 6), n_mc=500, seed=11)
    chunked = sr.simulated_references(ue, stats_, ("t", 6), n_mc=500, seed=11, chunk=37)
    for a, b in zip(full, chunked, strict=True):
        np.testing.assert_array_equal(a.values, b.values)
    alone = sr.simulated_reference(ue, "ENCE20", ("t", 6), n_mc=500, seed=11, chunk=100)
    np.testing.assert_array_equal(alone.values, full[2].values)
    other = sr.simulated_reference(ue, "ENCE20", ("t", 6), n_mc=500, seed=12)
    assert not np.array_equal(other.values, alone.values)


def test_simulated_reference_summary():
    _, ue = _heavy_set(300, 8)
    ref = sr.simulated_reference(ue, "CC", "normal", n_mc=400, seed=1)
    assert ref.mean == pytest.approx(ref.values.mean())
    assert ref.u == pytest.approx(np.std(ref.values, ddof=1) / math.sqrt(400))
    assert (ref.ci_low, ref.ci_high) == tuple(np.quantile(ref.values, [0.025, 0.975]))


@pytest.mark.parametrize("dist", ["normal", ("t", 6.0)])
def test_zms_simulated_reference_is_one(dist):
    _, ue = _heavy_set(2000, 9)
    ref = sr.simulated_reference(ue, "ZMS", dist, n_mc=2000, seed=3)
    assert abs(ref.mean - 1.0) < 3.0 * ref.u


# --- zeta schemes ---------------------------------------------------------------------------


def _ref(mean: float, lo: float, hi: float, u: float = 0.0) -> sr.SimulatedReference:
    return sr.SimulatedReference("X", "N(0,1)", 100, mean, 10 * u, u, lo, hi, np.empty(0))


def test_sim2_sign_convention():
    # est below ref: divide by the lower half of I_D; above: by the upper half.
    assert sr.zeta_sim2(0.9, 1.0, 0.8, 1.3) == pytest.approx(-0.1 / 0.2)
    assert sr.zeta_sim2(1.2, 1.0, 0.8, 1.3) == pytest.approx(0.2 / 0.3)
    assert sr.zeta_sim2(0.5, 1.0, 0.8, 1.3) == pytest.approx(-2.5)
    assert sr.zeta_sim2(1.0, 1.0, 0.8, 1.3) == 0.0
    # the authors' -zeta(ref, est, I_D)
    from uqval.stats.zeta import zeta_score

    for est in (0.7, 0.95, 1.1, 1.6):
        assert sr.zeta_sim2(est, 1.0, 0.8, 1.3) == pytest.approx(-zeta_score(1.0, est, 0.8, 1.3))


def test_zeta_schemes_hand_numbers():
    refs = {"N": _ref(1.05, 0.9, 1.2, u=0.01), "T": _ref(0.98, 0.7, 1.4, u=0.02)}
    z = sr.zeta_schemes(0.9, 0.8, 1.0, refs, known_reference=1.0)
    assert list(z) == ["BS", "SimN", "SimT", "Sim2N", "Sim2T"]
    assert z["BS"] == pytest.approx((0.9 - 1.0) / (1.0 - 0.9))
    assert z["SimN"] == pytest.approx((0.9 - 1.05) / (1.0 - 0.9))
    assert z["SimT"] == pytest.approx((0.9 - 0.98) / (1.0 - 0.9))
    assert z["Sim2N"] == pytest.approx((0.9 - 1.05) / (1.05 - 0.9))
    assert z["Sim2T"] == pytest.approx((0.9 - 0.98) / (0.98 - 0.7))
    code = sr.zeta_schemes(0.9, 0.8, 1.0, refs, reference_uncertainty=True)
    assert "BS" not in code
    assert code["SimN"] == pytest.approx(-0.15 / math.hypot(0.1, 0.02))
    assert code["Sim2N"] == z["Sim2N"]


def test_validate_statistic_workflow():
    e, ue = _heavy_set(800, 10)
    kw = {"n_boot": 300, "n_mc": 400, "seed": 2}
    zms_v = sr.validate_statistic(e, ue, "ZMS", **kw)
    assert zms_v.scheme == "BS" and zms_v.references == {}
    assert zms_v.verdict == ("validated" if abs(zms_v.zeta["BS"]) <= 1 else "not validated")
    full = sr.validate_statistic(e, ue, "ZMS", all_schemes=True, **kw)
    assert set(full.zeta) == {"BS", "SimN", "SimT", "Sim2N", "Sim2T"}
    assert full.zeta["BS"] == zms_v.zeta["BS"]
    cc = sr.validate_statistic(e, ue, "CC", **kw)  # CC depends strongly on D (Sect. III.C)
    assert cc.sensitivity["sensitive"] and cc.verdict == "do not use"
    assert "do not use" in cc.reason and "BS" not in cc.zeta
    row = cc.as_row()
    assert {"theta_ref_N", "u_T", "I_N_low", "zeta_Sim2T", "verdict"} <= set(row)
    given = sr.validate_statistic(e, ue, "ENCE20", distribution="normal", **kw)
    assert given.scheme == "SimD" and set(given.zeta) == {"SimD", "Sim2D"}


def test_validate_statistic_insensitive_statistic_uses_sim():
    # ZMSE on a set whose z-scores are normal: with tiny n_mc the references cannot be
    # told apart when D is nearly normal (t_s(1000)).
    e, ue = _heavy_set(500, 11)
    kw = {"n_boot": 200, "n_mc": 200, "t_nu": 1000.0, "seed": 1}
    v = sr.validate_statistic(e, ue, "ZMSE10", **kw)
    assert not v.sensitivity["sensitive"]
    assert v.scheme == "SimN/SimT"
    # The estimate is the ZMSE of 10 equal-count bins computed independently.
    assert v.estimate == pytest.approx(_reference_value("ZMSE", 10, e, ue), abs=1e-12)
    # zeta_Sim by hand (P002 Eq. 23): the half-width is the distance from the estimate to
    # the limit of I_BS on the side of the reference.
    for key in ("N", "T"):
        ref = v.references[key].mean
        limit = v.ci_low if v.estimate > ref else v.ci_high
        assert v.zeta[f"Sim{key}"] == pytest.approx((v.estimate - ref) / abs(v.estimate - limit))
    # Planted miscalibration: errors three times too large make every bin's ZMS about 9 times
    # too large, so ZMSE far exceeds its reference and both zetas are > +1.
    bad = sr.validate_statistic(3.0 * e, ue, "ZMSE10", **kw)
    assert bad.verdict == "not validated"
    assert bad.zeta["SimN"] > 1.0 and bad.zeta["SimT"] > 1.0
    assert bad.estimate > 1.5  # each |ln ZMS_i| is near ln 9 = 2.2


# --- App. B and App. C -----------------------------------------------------------------------


def test_appb_nig_slopes_match_large_bin_asymptotes():
    tabs = [
        appb.ence_zmse_reference_grid_point(
            m, [5, 10, 20], 6.0, "NIG", 300, seed=appb.appb_seed(1, "NIG", m, [5, 10, 20], 6.0)
        )
        for m in (2000, 4000)
    ]
    table = pd.concat(tabs)
    ence_fit = appb.fit_sqrt_ratio(table, "ENCE")
    zmse_fit = appb.fit_sqrt_ratio(table, "ZMSE")
    assert ence_fit["slope0"] == pytest.approx(appb.ENCE_SLOPE_NORMAL, rel=0.03)
    assert zmse_fit["slope0"] == pytest.approx(appb.ZMSE_SLOPE_NORMAL, rel=0.03)
    assert abs(zmse_fit["intercept"]) < 3 * zmse_fit["intercept_se"] + 2e-3
    law = appb._fit_power_law(table, "ZMSE")
    assert law["beta"] == pytest.approx(-0.5, abs=0.05)
    assert law["gamma"] == pytest.approx(0.5, abs=0.05)


def test_appb_grid_point_matches_loop_and_seeds():
    seed = appb.appb_seed(7, "T6IG", 300, [3, 6], 4.0)
    assert seed == appb.appb_seed(7, "T6IG", 300, (3, 6), 4)
    assert seed != appb.appb_seed(7, "NIG", 300, [3, 6], 4.0)
    tab = appb.ence_zmse_reference_grid_point(300, [3, 6], 4.0, "T6IG", 40, seed=seed)
    # replay the stream: one block, uE^2 ~ IG(nu/2, nu/2) sorted, then eps ~ t_s(6)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    u2 = np.sort(1.0 / rng.gamma(2.0, 0.5, (40, 300)), axis=1)
    eps = unit_t(rng, 6.0, (40, 300))
    ue = np.sqrt(u2)
    for n, row in zip([3, 6], tab.itertuples(), strict=True):
        bins = equal_count_bins(np.arange(300), n)
        en = [ence(ue[i] * eps[i], ue[i], bins) for i in range(40)]
        zm = [zmse(ue[i] * eps[i], ue[i], bins) for i in range(40)]
        assert row.ENCE_mean == pytest.approx(np.mean(en), rel=1e-10)
        assert row.ZMSE_mean == pytest.approx(np.mean(zm), rel=1e-10)
        assert row.ZMSE_se == pytest.approx(np.std(zm, ddof=1) / math.sqrt(40), rel=1e-8)


def test_ols_line_with_and_without_intercept():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([1.1, 1.9, 3.2, 3.8])
    full = paper_stats.ols_line(x, y)
    slope, intercept, _, _, se = stats.linregress(x, y)
    assert (full.slope, full.intercept, full.slope_se) == pytest.approx((slope, intercept, se))
    origin = paper_stats.ols_line(x, y, intercept=False)
    assert origin.slope == pytest.approx(x @ y / (x @ x))


def test_zmse_extrapolation_calibrated_set_contains_zero():
    rng = np.random.default_rng(21)
    ue = np.sqrt(1.0 / rng.gamma(3.0, 1.0 / 3.0, 5000))
    e = ue * rng.standard_normal(5000)
    res = paper_stats.zmse_extrapolation(e, ue)
    assert list(res.table["N"]) == list(range(10, 151, 10))
    assert list(res.table["in_fit"]) == [n > 20 for n in range(10, 151, 10)]
    assert res.ci_low <= 0.0 <= res.ci_high and res.consistent
    assert res.fit.slope == pytest.approx(appb.ZMSE_SLOPE_NORMAL, rel=0.15)
    small = paper_stats.zmse_extrapolation(e[:2040], ue[:2040])
    assert small.table["N"].max() == 100  # 2040/110 < 20 points per bin


# --- Table II on the nine literature sets --------------------------------------------------

# P002 Table II as printed: mu_Z, SE, sigma_Z, SE, b_Z, nu_Z
TABLE2 = [
    (-0.027, 0.022, 0.980, 0.030, 3, 6.0),
    (-0.018, 0.015, 0.940, 0.026, 2, 3.3),
    (0.002, 0.023, 1.058, 0.018, 0, 20.1),
    (-0.021, 0.018, 1.107, 0.016, 2, 9.1),
    (0.006, 0.020, 0.920, 0.021, 1, 3.9),
    (-0.005, 0.016, 0.992, 0.037, 1, 1.4),
    (0.0174, 0.0084, 0.9858, 0.0099, 2, 4.4),
    (0.050, 0.014, 0.961, 0.016, 5, 3.9),
    (-0.260, 0.013, 0.951, 0.023, 27, 3.1),
]



def _digits(x: float) -> int:
    text = f"{x}"
    return len(text.split(".")[1]) if "." in text else 0


def test_table2_zscore_summary(nine_sets):
    for number, ((e, ue), row) in enumerate(zip(nine_sets, TABLE2, strict=True), start=1):
        mu, se_mu, sd, se_sd, b, nu = row
        got = paper_stats.zscore_summary(e, ue, n_boot=1000, seed=number)
        for value, printed in ((got["mu_Z"], mu), (got["se_mu_Z"], se_mu), (got["sigma_Z"], sd)):
            assert abs(value - printed) <= 10.0 ** -_digits(printed) * 0.51, (
                number,
                value,
                printed,
            )
        assert round(got["b_Z"]) == b, number
        assert got["se_sigma_Z"] == pytest.approx(se_sd, rel=0.15), number
        assert got["nu_Z"] == pytest.approx(nu, abs=0.1), number


def test_validate_statistic_with_shared_references():
    e, ue = _heavy_set(600, 12)
    stats_ = ["CC", "ENCE20"]
    root = np.random.SeedSequence(4)
    boot_seed, seed_n, seed_t = root.spawn(3)
    refs_n = sr.simulated_references(ue, stats_, "normal", 300, seed_n)
    refs_t = sr.simulated_references(ue, stats_, ("t", 6), 300, seed_t)
    shared = sr.validate_statistic(
        e, ue, "ENCE20", n_boot=200, seed=4, references={"N": refs_n[1], "T": refs_t[1]}
    )
    direct = sr.validate_statistic(e, ue, "ENCE20", n_boot=200, n_mc=300, seed=4)
    assert shared.zeta == direct.zeta and shared.n_mc == 300
    with pytest.raises(ValueError, match="not for"):
        sr.validate_statistic(
            e, ue, "ENCE20", n_boot=50, references={"N": refs_n[0], "T": refs_t[0]}
        )


def test_grouped_jackknife_of_cc_matches_the_leave_one_out_interval():
    # large-M option: CC's O(M^2) leave-one-out jackknife replaced by 200 groups; same
    # resamples, BCa limits within a few percent of the interval width at M = 4000
    rng = np.random.default_rng(12)
    uE = rng.lognormal(-1.0, 0.5, 4000)
    E = uE * rng.standard_t(5, 4000) * math.sqrt(3.0 / 5.0)
    exact = sr.bootstrap_statistic(E, uE, "CC", n_boot=1000, seed=3)
    grouped = sr.bootstrap_statistic(E, uE, "CC", n_boot=1000, seed=3, jackknife_groups=200)
    np.testing.assert_array_equal(grouped.replicates, exact.replicates)
    width = exact.ci_high - exact.ci_low
    assert abs(grouped.ci_low - exact.ci_low) < 0.03 * width
    assert abs(grouped.ci_high - exact.ci_high) < 0.03 * width
    # at most as many points as groups: the leave-one-out jackknife, unchanged
    small = sr.bootstrap_statistic(E[:150], uE[:150], "CC", n_boot=300, seed=3)
    same = sr.bootstrap_statistic(E[:150], uE[:150], "CC", n_boot=300, seed=3, jackknife_groups=200)
    assert same == small


def test_split_jobs_give_the_one_job_references():
    """Rules simref_references (N, T) + simref_set: the simulated values of the plan, summarised by
    reference_from_values, are the references of one simulated_references call per distribution."""
    import yaml

    from conftest import ROOT
    from uqval.pipeline.workflow_config import simref_plan

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    settings = config["analysis"]["simref"]
    u = np.random.default_rng(4).uniform(0.5, 2.0, 600)
    plan = simref_plan({**settings, "n_mc": 60}, u.size, seed=11)
    n_stats, dist_n, seed_n = plan.simulated("N")
    assert [s.label for s in n_stats] == ["ZMS", "CC", "ENCE(N=20)", "ZMSE(N=20)", "ENCE(N=50)",
                                          "ZMSE(N=50)"]
    assert plan.simulated("T")[1] == ("t", 6.0) and dist_n == "normal"
    children = np.random.SeedSequence(11).spawn(5)
    assert seed_n.spawn_key == children[2].spawn_key
    assert plan.simulated("T")[2].spawn_key == children[3].spawn_key
    direct = sr.simulated_references(u, n_stats, "normal", 60, children[2])
    stored = np.stack([r.values for r in direct])
    for stat, values, ref in zip(n_stats, stored, direct, strict=True):
        again = sr.reference_from_values(stat, "normal", values)
        assert (again.mean, again.sd, again.ci_low, again.ci_high, again.statistic,
                again.distribution) == (ref.mean, ref.sd, ref.ci_low, ref.ci_high, ref.statistic,
                                        ref.distribution)
    with pytest.raises(ValueError, match="'N' or 'T'"):
        plan.simulated("D")
    with pytest.raises(ValueError, match="at least 2"):
        sr.reference_from_values("ZMS", "normal", [1.0])
