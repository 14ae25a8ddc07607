"""Tests for the local calibration analyses, ENCE/ZMSE, f_v and the ACF (uqval.calibration.local)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import (
    global_rce,
    lzisd_from_var,
    ms_stud_interval,
    rmse_cho_interval,
    segment_edges,
    var_cho_interval,
)
from scipy import integrate, stats

from uqval.calibration.binned_errors import (
    ence_batch,
    ence_from_bins,
    zmse_batch,
    zmse_from_bins,
)
from uqval.calibration.coverage import global_coverage, interval_half_widths, local_coverage
from uqval.calibration.fraction_valid import fraction_valid
from uqval.calibration.local import (
    global_zisd,
    global_zmean,
    global_zms,
    global_zvar,
    local_rce,
    local_zisd,
    local_zmean,
    local_zms,
    local_zvar,
    reliability_diagram,
)
from uqval.papers.adaptivity.acf import acf
from uqval.stats import zscore_statistics as cal
from uqval.stats.binomial import wilson_interval
from uqval.stats.bootstrap import bca_bootstrap
from uqval.stats.intervals import (
    cho_varvar,
    mean_t_interval,
)

Z95 = stats.norm.ppf(0.975)


def equal_bins(x, n):
    return np.array_split(np.argsort(x, kind="stable"), n)


@pytest.fixture(scope="module")
def calibrated():
    """Calibrated normal set: E = uE N(0, 1), uE^2 ~ IG, M = 20000, 20 equal-count bins."""
    rng = np.random.default_rng(20240601)
    ue = np.sqrt(1.0 / rng.gamma(3.0, 1.0 / 3.0, 20_000))
    e = ue * rng.standard_normal(ue.size)
    return e, ue, equal_bins(ue, 20)


@pytest.fixture(scope="module")
def small_bin():
    """One heavy-tailed bin of 400 points (unit-variance t4 errors, NIG-like uE)."""
    rng = np.random.default_rng(7)
    ue = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, 400))
    return ue * rng.standard_t(4, 400) / np.sqrt(2.0), ue


# --- CI helpers ---------------------------------------------------------------------------


def test_cho_varvar_equals_brute_force_moments():
    z = np.random.default_rng(1).standard_t(5, 57).tolist()
    n = len(z)
    mean = sum(z) / n
    mu2 = sum((v - mean) ** 2 for v in z) / n
    mu4 = sum((v - mean) ** 4 for v in z) / n
    vv = (mu4 - (n - 3) / (n - 1) * mu2**2) / n
    var = sum((v - mean) ** 2 for v in z) / (n - 1)
    assert cho_varvar(z) == pytest.approx(vv, rel=1e-12)
    res = var_cho_interval(z)
    assert res.value == pytest.approx(var, rel=1e-12)
    assert (res.ci_low, res.ci_high) == pytest.approx(
        (var - Z95 * vv**0.5, var + Z95 * vv**0.5), rel=1e-12
    )
    rows = np.random.default_rng(2).normal(size=(3, 40))
    assert cho_varvar(rows) == pytest.approx([cho_varvar(r) for r in rows], rel=1e-12)


def test_cho_varvar_estimates_the_variance_of_the_sample_variance():
    """Exponential population (mu_2 = 1, mu_4 = 9): Var(s^2) = mu_4/n - (n-3)/(n(n-1))."""
    n = 200
    x = np.random.default_rng(3).exponential(size=(20_000, n))
    exact = 9.0 / n - (n - 3.0) / (n * (n - 1.0))
    assert x.var(axis=1, ddof=1).var(ddof=1) == pytest.approx(exact, rel=0.04)
    assert cho_varvar(x).mean() == pytest.approx(exact, rel=0.05)


def test_delta_method_intervals_match_numerical_derivatives():
    v, vv, h = 0.8, 0.01, 1e-6
    res = lzisd_from_var(v, vv)
    slope = ((v + h) ** -0.5 - (v - h) ** -0.5) / (2 * h)
    assert res.value == pytest.approx(v**-0.5)
    assert res.sd == pytest.approx(abs(slope) * vv**0.5, rel=1e-8)
    assert res.ci_high - res.value == pytest.approx(Z95 * res.sd, rel=1e-12)
    assert res.sd == pytest.approx(vv**0.5 / (2 * v**1.5), rel=1e-12)

    e = np.random.default_rng(4).normal(0.3, 2.0, 300)
    sd_e = rmse_cho_interval(e, centered=True)
    var = e.var(ddof=1)
    assert sd_e.value == pytest.approx(var**0.5, rel=1e-12)
    assert sd_e.sd == pytest.approx(cho_varvar(e) ** 0.5 / (2 * var**0.5), rel=1e-12)
    rmse = rmse_cho_interval(e)
    mse = np.mean(e**2)
    se_mse = np.std(e**2, ddof=1) / np.sqrt(e.size)
    assert rmse.value == pytest.approx(mse**0.5, rel=1e-12)
    assert rmse.sd == pytest.approx(se_mse / (2 * mse**0.5), rel=1e-12)


def test_student_intervals_match_scipy():
    z = np.random.default_rng(5).standard_t(4, 35)
    for ours, sample in ((mean_t_interval(z, 0.9), z), (ms_stud_interval(z), z**2)):
        conf = 0.9 if sample is z else 0.95
        expected = stats.t.interval(conf, sample.size - 1, sample.mean(), stats.sem(sample))
        assert (ours.ci_low, ours.ci_high) == pytest.approx(expected, rel=1e-12)
        assert ours.value == pytest.approx(sample.mean(), rel=1e-12)


# --- local tables -------------------------------------------------------------------------


def test_local_tables_equal_per_bin_helpers(calibrated):
    e, ue, bins = calibrated
    x = np.log(ue)
    z = e / ue
    per_bin = [z[b] for b in bins]
    lzv = local_zvar(e, ue, x, bins)
    assert list(lzv.columns) == ["bin", "x", "n", "value", "ci_low", "ci_high", "target", "valid"]
    assert lzv["n"].tolist() == [b.size for b in bins]
    assert lzv["x"].to_numpy() == pytest.approx([(x[b].min() + x[b].max()) / 2 for b in bins])
    expected = [var_cho_interval(zb) for zb in per_bin]
    assert lzv["value"].to_numpy() == pytest.approx([r.value for r in expected], rel=1e-10)
    assert lzv["ci_low"].to_numpy() == pytest.approx([r.ci_low for r in expected], rel=1e-10)
    assert lzv["valid"].tolist() == [r.ci_low <= 1 <= r.ci_high for r in expected]

    lzisd = local_zisd(e, ue, x, bins)
    expected = [lzisd_from_var(zb.var(ddof=1), cho_varvar(zb)) for zb in per_bin]
    assert lzisd["ci_high"].to_numpy() == pytest.approx([r.ci_high for r in expected], rel=1e-10)

    lzm = local_zmean(e, ue, x, bins, confidence=0.9)
    expected = [mean_t_interval(zb, 0.9) for zb in per_bin]
    assert lzm["ci_low"].to_numpy() == pytest.approx([r.ci_low for r in expected], rel=1e-9)
    assert (lzm["target"] == 0.0).all()

    lzms = local_zms(e, ue, x, bins, method="stud")
    expected = [ms_stud_interval(zb) for zb in per_bin]
    assert lzms["ci_high"].to_numpy() == pytest.approx([r.ci_high for r in expected], rel=1e-10)

    lrce = local_rce(e, ue, x, bins, n_boot_min=100, seed=0)
    assert lrce["value"].to_numpy() == pytest.approx([cal.rce_rows(e[b], ue[b]) for b in bins])

    for scale in ("rmse", "sd"):
        rd = reliability_diagram(e, ue, bins, method="cho", error_scale=scale)
        expected = [rmse_cho_interval(e[b], centered=scale == "sd") for b in bins]
        assert rd["value"].to_numpy() == pytest.approx([r.value for r in expected], rel=1e-10)
        assert rd["ci_low"].to_numpy() == pytest.approx([r.ci_low for r in expected], rel=1e-10)
        rmv = [cal.rmv(ue[b]) for b in bins]
        assert rd["x"].to_numpy() == pytest.approx(rmv) and rd[
            "target"
        ].to_numpy() == pytest.approx(rmv)


def test_global_statistics(calibrated):
    e, ue, _ = calibrated
    z = e / ue
    checks = [
        (global_zvar(e, ue), var_cho_interval(z)),
        (global_zisd(e, ue), lzisd_from_var(z.var(ddof=1), cho_varvar(z))),
        (global_zmean(e, ue), mean_t_interval(z)),
        (global_zms(e, ue), ms_stud_interval(z)),  # "auto" -> "stud" for M >= 200
    ]
    for table, expected in checks:
        assert list(table.columns) == ["n", "value", "ci_low", "ci_high", "target", "valid"]
        row = table.iloc[0]
        assert row["n"] == e.size and bool(row["valid"])
        assert (row["value"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (expected.value, expected.ci_low, expected.ci_high), rel=1e-9
        )
    rce = global_rce(e[:2000], ue[:2000], n_boot=1000, seed=1).iloc[0]
    ref = bca_bootstrap(
        (e[:2000], ue[:2000]), cal.RCE, n_boot=1000, seed=np.random.SeedSequence(1).spawn(1)[0]
    )
    assert (rce["ci_low"], rce["ci_high"]) == (ref.ci_low, ref.ci_high)


def scipy_bca(data, statistic, paired=False):
    res = stats.bootstrap(
        data,
        statistic,
        paired=paired,
        vectorized=True,
        n_resamples=20_000,
        method="BCa",
        random_state=np.random.default_rng(11),
    )
    return np.array(res.confidence_interval), res.standard_error


@pytest.mark.parametrize("analysis", ["zms", "zisd", "zvar", "rce", "rmse", "sd"])
def test_bootstrap_intervals_agree_with_scipy_bca(small_bin, analysis):
    e, ue = small_bin
    z = e / ue
    one = [np.arange(e.size)]
    kw = dict(n_boot_min=20_000, seed=3)
    if analysis == "zms":
        table = local_zms(e, ue, ue, one, **kw)
        ref = scipy_bca((z,), lambda s, axis: np.mean(s**2, axis=axis))
    elif analysis == "zisd":
        table = local_zisd(e, ue, ue, one, method="bootstrap", **kw)
        ref = scipy_bca((z,), lambda s, axis: np.var(s, ddof=1, axis=axis) ** -0.5)
    elif analysis == "zvar":
        table = local_zvar(e, ue, ue, one, method="bootstrap", **kw)
        ref = scipy_bca((z,), lambda s, axis: np.var(s, ddof=1, axis=axis))
    elif analysis == "rce":
        table = local_rce(e, ue, ue, one, **kw)
        ref = scipy_bca((e, ue), lambda a, b, axis: cal.rce_rows(a, b), paired=True)
    elif analysis == "rmse":
        table = reliability_diagram(e, ue, one, **kw)
        ref = scipy_bca((e,), lambda s, axis: np.sqrt(np.mean(s**2, axis=axis)))
    else:
        table = reliability_diagram(e, ue, one, error_scale="sd", **kw)
        ref = scipy_bca((e,), lambda s, axis: np.std(s, ddof=1, axis=axis))
    ci, se = ref
    ours = table[["ci_low", "ci_high"]].to_numpy()[0]
    assert np.abs(ours - ci).max() < 0.15 * se


def test_bootstrap_streams_are_per_bin_and_deterministic(calibrated):
    e, ue, bins = calibrated
    two = [bins[0], bins[1]]
    first = local_zms(e, ue, ue, two, seed=42)
    pd.testing.assert_frame_equal(first, local_zms(e, ue, ue, two, seed=42))
    assert not first.equals(local_zms(e, ue, ue, two, seed=43))
    other = local_zms(e, ue, ue, [bins[0], bins[5]], seed=42)
    assert other.loc[0, "ci_low"] == first.loc[0, "ci_low"]  # bin 0 keeps its own stream
    child = np.random.SeedSequence(42).spawn(2)[1]
    ref = bca_bootstrap((e[bins[1]], ue[bins[1]]), cal.ZMS, n_boot=1500, seed=child)
    assert (first.loc[1, "ci_low"], first.loc[1, "ci_high"]) == (ref.ci_low, ref.ci_high)


def test_auto_methods_choose_by_bin_size(calibrated):
    e, ue, bins = calibrated
    mixed = [bins[0][:150], bins[1]]  # 150 < 200 <= 1000 points
    auto = local_zms(e, ue, ue, mixed, method="auto", seed=5)
    boot = local_zms(e, ue, ue, mixed, method="bootstrap", seed=5)
    stud = local_zms(e, ue, ue, mixed, method="stud")
    assert auto.loc[0, "ci_low"] == boot.loc[0, "ci_low"]
    assert auto.loc[1, "ci_low"] == stud.loc[1, "ci_low"]
    with pytest.raises(ValueError, match="unknown CI method"):
        local_zvar(e, ue, ue, mixed, method="stud")


# --- validation metric f_v on calibrated and miscalibrated sets ---------------------------


def test_fraction_valid_on_calibrated_and_case_d(calibrated):
    e, ue, bins = calibrated
    tables = {
        "LZMS": local_zms(e, ue, ue, bins, seed=1),
        "LZM": local_zmean(e, ue, ue, bins),
        "LZISD": local_zisd(e, ue, ue, bins),
        "LZV": local_zvar(e, ue, ue, bins),
    }
    for name, table in tables.items():
        fv = fraction_valid(table)
        assert fv.n_bins == 20 and fv.value == fv.n_valid / 20
        assert fv.ci_low <= 0.95 <= fv.ci_high, name
    # Case D of the primer: uncertainties overestimated by a factor 2.
    for table in (
        local_zisd(e, 2 * ue, ue, bins),
        local_zms(e, 2 * ue, ue, bins, seed=1),
    ):
        assert fraction_valid(table).value <= 0.05
    assert local_zisd(e, 2 * ue, ue, bins)["value"].to_numpy() == pytest.approx(2.0, rel=0.1)


def test_fraction_valid_interval_and_checks():
    table = pd.DataFrame({"valid": [True] * 17 + [False] * 3})
    fv = fraction_valid(table)
    assert (fv.value, fv.n_valid, fv.n_bins) == (0.85, 17, 20)
    # Newcombe (1998) method 4 interval, checked against DescTools in test_binomial.
    assert fv.ci_low < 0.85 < fv.ci_high < 1.0
    with pytest.raises(ValueError, match="several coverage"):
        fraction_valid(pd.DataFrame({"prob": [0.5, 0.95], "valid": [True, True]}))


# --- local coverage -----------------------------------------------------------------------


def test_local_coverage_of_exact_normal_intervals(calibrated):
    e, ue, bins = calibrated
    probs = [0.25, 0.5, 0.75, 0.95]
    half = interval_half_widths(ue, probs)
    assert half[:, 3] == pytest.approx(ue * Z95)
    lcp = local_coverage(e, half, ue, bins, probs)
    assert len(lcp) == 80 and lcp["prob"].tolist() == sorted(lcp["prob"].tolist())
    p95 = lcp[lcp["prob"] == 0.95]
    hits = np.array([np.sum(np.abs(e[b]) <= Z95 * ue[b]) for b in bins])
    assert p95["value"].to_numpy() == pytest.approx(hits / 1000)
    low, high = wilson_interval(hits, 1000)
    assert p95["ci_low"].to_numpy() == pytest.approx(low) and p95[
        "ci_high"
    ].to_numpy() == pytest.approx(high)
    for p in probs:
        fv = fraction_valid(lcp[lcp["prob"] == p])
        assert fv.ci_low <= 0.95 <= fv.ci_high
    whole = global_coverage(e, half, probs)
    se = np.sqrt(np.multiply(probs, 1 - np.array(probs)) / e.size)
    assert np.all(np.abs(whole["value"].to_numpy() - probs) < 3 * se)
    assert (whole["ci_low"] < whole["value"]).all() and (whole["value"] < whole["ci_high"]).all()
    # One P as a 1-D array of half-widths; t4 intervals are wider than normal ones.
    t4 = interval_half_widths(ue, [0.95], ("t", 4))[:, 0]
    assert t4 == pytest.approx(ue * stats.t.ppf(0.975, 4) / np.sqrt(2))
    single = local_coverage(e, t4, ue, bins, [0.95])
    assert (single["value"].to_numpy() >= p95["value"].to_numpy()).all()


# --- ENCE and ZMSE ------------------------------------------------------------------------


def ence_loop(e, u, bins):
    rce = [
        (np.sqrt(np.mean(u[b] ** 2)) - np.sqrt(np.mean(e[b] ** 2))) / np.sqrt(np.mean(u[b] ** 2))
        for b in bins
    ]
    return np.mean(np.abs(rce))


def zmse_loop(e, u, bins):
    return np.mean([abs(np.log(np.mean((e[b] / u[b]) ** 2))) for b in bins])


def test_ence_zmse_and_batched_versions_equal_loops():
    rng = np.random.default_rng(9)
    m, n_sets = 503, 7
    ue = np.sort(np.sqrt(1.0 / rng.gamma(2.0, 0.5, m)))
    e = ue * rng.standard_t(6, (n_sets, m))
    bins = np.array_split(np.arange(m), 13)  # uneven sizes 39/38
    edges = segment_edges(bins)
    assert edges[0] == 0 and edges[-1] == m and edges.size == 14
    assert ence_batch(e, ue, edges) == pytest.approx(
        [ence_loop(r, ue, bins) for r in e], rel=1e-12
    )
    assert zmse_batch(e, ue, edges) == pytest.approx(
        [zmse_loop(r, ue, bins) for r in e], rel=1e-12
    )
    ue_sets = ue * rng.uniform(0.8, 1.2, (n_sets, m))
    assert ence_batch(e, ue_sets, edges) == pytest.approx(
        [ence_loop(r, u, bins) for r, u in zip(e, ue_sets, strict=True)], rel=1e-12
    )
    # Non-contiguous bins in the single-set functions.
    shuffled = np.array_split(rng.permutation(m), 9)
    assert ence_from_bins(e[0], ue, shuffled) == pytest.approx(ence_loop(e[0], ue, shuffled), rel=1e-12)
    assert zmse_from_bins(e[0], ue, shuffled) == pytest.approx(zmse_loop(e[0], ue, shuffled), rel=1e-12)
    with pytest.raises(ValueError, match="contiguous"):
        segment_edges(shuffled)
    with pytest.raises(ValueError, match="edges"):
        ence_batch(e, ue, np.array([0, 10, 400]))


def expected_abs(h, n):
    """E[h(chi2_n/n)] by quadrature (split at the mode region)."""
    f = lambda t: h(t / n) * stats.chi2.pdf(t, n)  # noqa: E731
    return integrate.quad(f, 0, n)[0] + integrate.quad(f, n, np.inf)[0]


def test_ence_and_zmse_expectations_for_calibrated_normal_data():
    """E[ENCE] ~ 1/sqrt(pi n) = 0.564 (N/M)^1/2 and E[ZMSE] ~ 2/sqrt(pi n) (P002 App. B)."""
    rng = np.random.default_rng(12)
    m, n_bins, n_sets = 5000, 20, 400
    n = m // n_bins
    ue = np.repeat(np.linspace(0.5, 2.0, n_bins), n)  # constant within each bin
    e = ue * rng.standard_normal((n_sets, m))
    edges = segment_edges(equal_bins(ue, n_bins))
    for values, h, approx in (
        (ence_batch(e, ue, edges), lambda r: abs(1 - np.sqrt(r)), 0.564 * np.sqrt(n_bins / m)),
        (zmse_batch(e, ue, edges), lambda r: abs(np.log(r)), 1.128 * np.sqrt(n_bins / m)),
    ):
        exact = expected_abs(h, n)
        assert abs(values.mean() - exact) < 3 * values.std(ddof=1) / np.sqrt(n_sets)
        assert exact == pytest.approx(approx, rel=0.005)


# --- ACF ----------------------------------------------------------------------------------


def acf_loop(x, lag):
    d = np.asarray(x, float) - np.mean(x)
    return [sum(d[t] * d[t + k] for t in range(len(d) - k)) / sum(d**2) for k in range(lag + 1)]


def test_acf_follows_r_definition():
    res = acf(np.arange(1, 11))
    assert res.lags.tolist() == list(range(10))  # floor(10 log10 10) = 10, capped at N - 1
    assert res.values[1] == pytest.approx(0.7)  # R: acf(1:10)$acf[2] = 0.7
    assert res.values == pytest.approx(acf_loop(np.arange(1, 11), 9), rel=1e-12)
    assert acf(np.random.default_rng(0).normal(size=100)).lags[-1] == 20
    assert acf(np.arange(50.0) % 7, max_lag=5).values == pytest.approx(
        acf_loop(np.arange(50.0) % 7, 5), rel=1e-12
    )


def test_acf_of_white_noise_stays_within_the_band():
    x = np.random.default_rng(13).normal(size=2000)
    res = acf(x)
    assert res.band == pytest.approx(Z95 / np.sqrt(2000))
    assert res.values[0] == 1.0 and res.lags[-1] == 33
    assert np.mean(np.abs(res.values[1:]) <= res.band) >= 0.9


# --- input validation ---------------------------------------------------------------------


def test_input_validation(calibrated):
    e, ue, bins = calibrated
    with pytest.raises(ValueError, match="at least 2"):
        local_zvar(e, ue, ue, [np.array([0])])
    with pytest.raises(ValueError, match="lie in"):
        local_zmean(e, ue, ue, [np.array([0, e.size])])
    with pytest.raises(ValueError, match="integer"):
        local_zmean(e, ue, ue, [np.array([0.0, 1.0])])
    with pytest.raises(ValueError, match="x must"):
        local_zmean(e, ue, ue[:10], bins)
    with pytest.raises(ValueError, match="half_widths"):
        local_coverage(e, np.ones((e.size, 2)), ue, bins, [0.95])
    with pytest.raises(ValueError, match="error_scale"):
        reliability_diagram(e, ue, bins, error_scale="mad")
