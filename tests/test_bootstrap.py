"""Tests for the BCa bootstrap (P001 Sect. II.3, R nptest::np.boot "bca")."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import stats

from uqval.stats import zscore_statistics as cal
from uqval.stats.bootstrap import (
    MeanStatistic,
    bca_bootstrap,
    bca_bootstrap_bins,
    group_jackknife_groups,
    group_jackknife_values,
    jackknife_values,
)
from uqval.stats.resample_kernel import COUNTING_MIN_POINTS


def sd_z(E, uE):
    """A statistic that is not a function of means (generic path)."""
    return np.std(np.divide(E, uE), ddof=1, axis=-1)


def spearman_abs_e_ue(E, uE):
    """Spearman correlation of |E| and uE (no ties in continuous data), vectorised."""

    def ranks(x):
        return np.argsort(np.argsort(x, axis=-1), axis=-1).astype(float)

    ra, rb = ranks(np.abs(E)), ranks(uE)
    ra -= ra.mean(axis=-1, keepdims=True)
    rb -= rb.mean(axis=-1, keepdims=True)
    return (ra * rb).sum(axis=-1) / np.sqrt((ra**2).sum(axis=-1) * (rb**2).sum(axis=-1))


@pytest.fixture(scope="module")
def heavy():
    """Heavy-tailed calibrated sample (NIG-like uE, scaled t4 errors), M = 300."""
    rng = np.random.default_rng(123)
    ue = np.sqrt(1 / rng.gamma(2, 1 / 2, size=300))
    return ue * rng.standard_t(4, size=300) / np.sqrt(2), ue


def brute_jackknife(E, uE, func):
    return np.array([func(np.delete(E, i), np.delete(uE, i)) for i in range(E.size)])


@pytest.mark.parametrize(
    ("mean_stat", "func"),
    [(cal.ZMS, cal.zms_rows), (cal.RCE, cal.rce_rows), (cal.NLL, cal.gaussian_nll_rows), (cal.MEAN_Z, cal.mean_z)],
)
def test_closed_form_jackknife_equals_leave_one_out_loop(heavy, mean_stat, func):
    e, ue = heavy
    expected = brute_jackknife(e, ue, func)
    assert jackknife_values((e, ue), mean_stat) == pytest.approx(expected, rel=1e-10, abs=1e-13)


def test_generic_jackknife_equals_leave_one_out_loop(heavy):
    e, ue = heavy
    for func in (sd_z, spearman_abs_e_ue):
        expected = brute_jackknife(e, ue, func)
        assert jackknife_values((e, ue), func) == pytest.approx(expected, rel=1e-12)


def test_closed_form_jackknife_survives_one_huge_value():
    e = np.array([1.0, 2.0, 1e12, 3.0])
    ue = np.ones(4)
    jack = jackknife_values((e, ue), cal.ZMS)
    assert jack[2] == pytest.approx((1 + 4 + 9) / 3, rel=1e-12)


@pytest.mark.parametrize(
    ("ours", "theirs", "tol_se"),
    [
        (cal.ZMS, lambda E, uE, axis=-1: cal.zms_rows(E, uE), 0.15),
        (cal.RCE, lambda E, uE, axis=-1: cal.rce_rows(E, uE), 0.1),
        (sd_z, lambda E, uE, axis=-1: sd_z(E, uE), 0.15),
    ],
)
def test_agrees_with_scipy_bca(heavy, ours, theirs, tol_se):
    e, ue = heavy
    res = bca_bootstrap((e, ue), ours, n_boot=20_000, seed=1)
    kwargs = dict(paired=True, vectorized=True, n_resamples=20_000)
    bca = stats.bootstrap(
        (e, ue), theirs, method="BCa", random_state=np.random.default_rng(2), **kwargs
    )
    pct = stats.bootstrap(
        (e, ue), theirs, method="percentile", random_state=np.random.default_rng(2), **kwargs
    )
    ours_ci = np.array([res.ci_low, res.ci_high])
    scipy_bca = np.array(bca.confidence_interval)
    scipy_pct = np.array(pct.confidence_interval)
    assert np.abs(ours_ci - scipy_bca).max() < tol_se * res.se
    # The BCa correction is visible: we are closer to SciPy's BCa than to its percentile CI.
    assert np.abs(ours_ci - scipy_bca).sum() < np.abs(ours_ci - scipy_pct).sum()
    assert res.se == pytest.approx(bca.standard_error, rel=0.03)


def test_bca_steps_follow_np_boot(heavy):
    """Recompute the nptest::np.boot BCa interval from the returned replicates."""
    e, ue = heavy
    res = bca_bootstrap((e, ue), cal.RCE, n_boot=4000, seed=5)
    t0 = cal.rce_rows(e, ue)
    dist = np.concatenate([[t0], res.replicates])  # R + 1 values, t0 included
    assert res.estimate == t0
    assert res.bias == pytest.approx(dist.mean() - t0, rel=1e-12)
    assert res.se == pytest.approx(np.std(dist, ddof=1), rel=1e-12)
    z0 = stats.norm.ppf(np.mean(dist < t0))
    jack = brute_jackknife(e, ue, cal.rce_rows)
    d = jack.mean() - jack
    acc = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    zq = stats.norm.ppf([0.025, 0.975])
    levels = stats.norm.cdf(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
    expected = np.quantile(dist, levels, method="linear")
    assert res.z0 == pytest.approx(z0, rel=1e-12)
    assert res.acceleration == pytest.approx(acc, rel=1e-9)
    assert [res.ci_low, res.ci_high] == pytest.approx(expected, rel=1e-12)


def test_mean_path_and_generic_path_give_the_same_interval(heavy):
    e, ue = heavy
    fast = bca_bootstrap((e, ue), cal.RCE, n_boot=3000, seed=11)
    slow = bca_bootstrap((e, ue), lambda E, uE: cal.rce_rows(E, uE), n_boot=3000, seed=11)
    # Same seed, same index stream: identical replicates up to rounding.
    assert fast.replicates == pytest.approx(slow.replicates, rel=1e-10, abs=1e-12)
    assert [fast.ci_low, fast.ci_high] == pytest.approx([slow.ci_low, slow.ci_high], rel=1e-9)
    assert fast.acceleration == pytest.approx(slow.acceleration, rel=1e-8)


def test_deterministic_and_independent_of_chunk_size_and_threads(heavy):
    e, ue = heavy
    ref = bca_bootstrap((e, ue), sd_z, n_boot=1500, seed=3)
    for chunk, workers in ((1, 1), (7, 2), (1000, 1), (None, 3)):
        other = bca_bootstrap(
            (e, ue), sd_z, n_boot=1500, seed=3, chunk_size=chunk, n_workers=workers
        )
        np.testing.assert_array_equal(other.replicates, ref.replicates)
        assert other == ref
    assert bca_bootstrap((e, ue), sd_z, n_boot=1500, seed=4) != ref
    # mean path, with several stream blocks (M = 300 -> 3495 replicates per block)
    fast = bca_bootstrap((e, ue), cal.RCE, n_boot=8000, seed=3)
    threaded = bca_bootstrap((e, ue), cal.RCE, n_boot=8000, seed=3, n_workers=2)
    np.testing.assert_array_equal(fast.replicates, threaded.replicates)


def test_seed_sequence_is_spawned_from(heavy):
    e, ue = heavy
    seq = np.random.SeedSequence(8)
    first = bca_bootstrap((e, ue), cal.ZMS, n_boot=200, seed=seq)
    second = bca_bootstrap((e, ue), cal.ZMS, n_boot=200, seed=seq)
    assert not np.array_equal(first.replicates, second.replicates)


def test_bootstrap_se_of_a_mean_matches_theory():
    rng = np.random.default_rng(17)
    z = rng.normal(size=500)
    res = bca_bootstrap((z, np.ones_like(z)), cal.MEAN_Z, n_boot=20_000, seed=2)
    expected_se = np.std(z, ddof=0) / np.sqrt(z.size)  # sd of a resampled mean
    assert res.se == pytest.approx(expected_se, rel=0.03)
    assert abs(res.bias) < 3 * expected_se / np.sqrt(20_000)


def test_multi_block_streams_cover_large_m():
    # M > 2**20 / 2: one replicate per stream block; spot-check the resampled means.
    rng = np.random.default_rng(0)
    x = rng.normal(size=600_000)
    res = bca_bootstrap((x, np.ones_like(x)), cal.MEAN_Z, n_boot=6, seed=1)
    assert res.replicates.shape == (6,)
    assert len(set(res.replicates)) == 6
    assert np.all(np.abs(res.replicates - x.mean()) < 6 * x.std() / np.sqrt(x.size))


def test_counting_path_at_large_m_equals_the_generic_path():
    """From COUNTING_MIN_POINTS on, the kernel sums draw counts: same resamples as NumPy's."""
    rng = np.random.default_rng(5)
    m = COUNTING_MIN_POINTS + 5
    e, ue = rng.standard_t(4, m), rng.lognormal(0.0, 0.3, m)
    fast = bca_bootstrap((e, ue), cal.ZMS, n_boot=8, seed=2)
    slow = bca_bootstrap((e, ue), lambda E, uE: np.mean((E / uE) ** 2, axis=-1), n_boot=8,
                         seed=2, jackknife=jackknife_values((e, ue), cal.ZMS))
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-12)


def _equal_bins(m, n_bins, seed):
    return np.array_split(np.random.default_rng(seed).permutation(m), n_bins)


def test_all_bins_at_once_equal_one_bootstrap_per_bin(heavy):
    e, ue = heavy
    bins = _equal_bins(e.size, 7, 0)
    n_boot = [400 + 50 * i for i in range(7)]

    def centred(data):  # a per-bin statistic: <(z - c)^2> with c the bin mean of z
        c = float(np.mean(data[0] / data[1]))
        return MeanStatistic(columns=lambda E, uE: (np.square(E / uE - c),),
                             combine=lambda means: means[..., 0])

    for statistic in (cal.ZMS, centred):
        together = bca_bootstrap_bins((e, ue), statistic, bins, n_boot=n_boot, seed=6)
        threaded = bca_bootstrap_bins((e, ue), statistic, bins, n_boot=n_boot, seed=6,
                                      n_workers=2)
        children = np.random.SeedSequence(6).spawn(len(bins))
        for i, idx in enumerate(bins):
            sample = (e[idx], ue[idx])
            stat = statistic if isinstance(statistic, MeanStatistic) else statistic(sample)
            alone = bca_bootstrap(sample, stat, n_boot=n_boot[i], seed=children[i])
            for res in (together[i], threaded[i]):
                assert res == alone
                np.testing.assert_array_equal(res.replicates, alone.replicates)


def test_all_bins_at_once_cover_the_true_mean_square():
    """Coverage of the per-bin BCa intervals of <Z^2> = 1 (normal Z): 300 bins of 200 points."""
    z = np.random.default_rng(9).normal(size=300 * 200)
    results = bca_bootstrap_bins((z,), MeanStatistic(columns=lambda v: (v * v,),
                                                     combine=lambda mm: mm[..., 0]),
                                 _equal_bins(z.size, 300, 1), n_boot=1000, seed=4)
    covered = np.mean([r.ci_low <= 1.0 <= r.ci_high for r in results])
    assert abs(covered - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300) + 0.01


def test_progress_reports_every_replicate_and_changes_nothing(heavy):
    e, ue = heavy
    for workers in (1, 2):
        calls: list[tuple[int, int]] = []
        res = bca_bootstrap((e, ue), cal.ZMS, n_boot=9000, seed=3, n_workers=workers,
                            progress=lambda done, total, c=calls: c.append((done, total)))
        assert res == bca_bootstrap((e, ue), cal.ZMS, n_boot=9000, seed=3)
        assert len(calls) == 3 and calls[-1] == (9000, 9000)  # 3495 replicates per block
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    calls = []
    bca_bootstrap_bins((e, ue), cal.ZMS, _equal_bins(e.size, 3, 0), n_boot=500, seed=1,
                       progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (1500, 1500)


def test_degenerate_input_gives_point_interval():
    e, ue = np.full(50, 0.3), np.full(50, 0.6)
    for statistic in (cal.ZMS, lambda E, uE: cal.zms_rows(E, uE)):
        res = bca_bootstrap((e, ue), statistic, n_boot=500, seed=1)
        assert res.ci_low == res.ci_high == res.estimate == pytest.approx(0.25)
        assert res.bias == 0.0 and res.se == 0.0
        assert np.isnan(res.z0) and np.isnan(res.acceleration)


def test_estimate_below_every_replicate_gives_nan_interval():
    # the minimum: every resample has min >= t0, so mean(T < t0) = 0 and z0 = -inf
    x = np.arange(1.0, 41.0)
    res = bca_bootstrap((x,), lambda a: a.min(axis=-1), n_boot=300, seed=1)
    assert res.z0 == -np.inf
    assert np.isnan(res.ci_low) and np.isnan(res.ci_high)


def test_peak_memory_is_bounded():
    rng = np.random.default_rng(1)
    ue = rng.uniform(0.5, 1.5, size=36_150)
    e = ue * rng.normal(size=ue.size)
    tracemalloc.start()
    bca_bootstrap((e, ue), cal.RCE, n_boot=300, seed=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 2**20


def test_precomputed_jackknife_is_used(heavy):
    e, ue = heavy
    res = bca_bootstrap((e, ue), cal.ZMS, n_boot=500, seed=1, jackknife=np.zeros(e.size))
    assert res.acceleration == 0.0
    # 2 to M values are accepted (leave-one-out or delete-a-group); fewer or more are not
    with pytest.raises(ValueError, match="jackknife must hold 2 to"):
        bca_bootstrap((e, ue), cal.ZMS, n_boot=10, seed=1, jackknife=np.zeros(e.size + 1))
    with pytest.raises(ValueError, match="jackknife must hold 2 to"):
        bca_bootstrap((e, ue), cal.ZMS, n_boot=10, seed=1, jackknife=np.zeros((2, 3)))


def test_input_validation(heavy):
    e, ue = heavy
    with pytest.raises(ValueError, match="same length"):
        bca_bootstrap((e, ue[:-1]), cal.ZMS, n_boot=10)
    with pytest.raises(ValueError, match="1-D"):
        bca_bootstrap((e[None, :], ue[None, :]), cal.ZMS, n_boot=10)
    with pytest.raises(ValueError, match="n_boot"):
        bca_bootstrap((e, ue), cal.ZMS, n_boot=0)
    with pytest.raises(ValueError, match="one value per sample"):
        bca_bootstrap((e, ue), lambda E, uE: np.mean(E), n_boot=10)


def test_mean_statistic_custom_columns():
    # MSE/MV ratio as a user-defined mean statistic
    ratio = MeanStatistic(
        columns=lambda E, uE: (np.square(E), np.square(uE)),
        combine=lambda m: m[..., 0] / m[..., 1],
    )
    e, ue = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 2.0])
    assert ratio(e, ue) == pytest.approx(14 / 6)
    assert jackknife_values((e, ue), ratio) == pytest.approx([13 / 5, 10 / 5, 5 / 2])


def test_group_partition_is_fixed_disjoint_and_balanced():
    groups = group_jackknife_groups(1003, 10)
    assert len(groups) == 10
    joined = np.concatenate(groups)
    np.testing.assert_array_equal(np.sort(joined), np.arange(1003))  # a partition
    assert {g.size for g in groups} == {100, 101}
    again = group_jackknife_groups(1003, 10)
    assert all(np.array_equal(a, b) for a, b in zip(groups, again, strict=True))
    with pytest.raises(ValueError, match="n_groups"):
        group_jackknife_groups(5, 6)


def test_group_jackknife_gives_the_leave_one_out_interval_at_large_m():
    # mean of a skewed sample, M = 20000: the acceleration from 400 delete-a-group values
    # is noisier than the leave-one-out one, but both are O(1/sqrt(M)) and the BCa limits
    # move by a small fraction of the interval width
    x = np.random.default_rng(0).lognormal(0.0, 1.0, 20_000)
    mean = MeanStatistic(lambda v: (v,), lambda means: means[..., 0])
    exact = bca_bootstrap((x,), mean, n_boot=2000, seed=4)
    values = group_jackknife_values(lambda kept: x[kept].mean(), x.size, 400)
    # each value is the mean without one group, computed independently here
    first = group_jackknife_groups(x.size, 400)[0]
    assert values[0] == pytest.approx(np.delete(x, first).mean(), rel=1e-12)
    grouped = bca_bootstrap((x,), mean, n_boot=2000, seed=4, jackknife=values)
    np.testing.assert_array_equal(grouped.replicates, exact.replicates)
    width = exact.ci_high - exact.ci_low
    assert abs(grouped.ci_low - exact.ci_low) < 0.02 * width
    assert abs(grouped.ci_high - exact.ci_high) < 0.02 * width
    assert 0.0 < grouped.acceleration < 3 * exact.acceleration
    with pytest.raises(ValueError, match="2 to"):
        bca_bootstrap((x,), mean, n_boot=10, seed=4, jackknife=[1.0])


def _one_row_bca(t0, boot, acc, confidence):
    """The former per-statistic computation (NumPy calls on one distribution)."""
    dist = np.concatenate([[t0], boot])
    if np.ptp(dist) <= 8 * np.finfo(np.float64).eps * np.max(np.abs(dist)):
        return 0.0, 0.0, t0, t0, np.nan
    z0 = stats.norm.ppf(np.mean(dist < t0))
    z = stats.norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    with np.errstate(invalid="ignore", divide="ignore"):
        levels = stats.norm.cdf(z0 + (z0 + z) / (1.0 - acc * (z0 + z)))
    lo = hi = np.nan
    if np.isfinite(z0) and np.all(np.isfinite(levels)):
        lo, hi = np.quantile(dist, levels, method="linear")
    return dist.mean() - t0, dist.std(ddof=1), lo, hi, z0


def test_many_rows_at_once_equal_one_row_at_a_time_bit_for_bit():
    """bca_limits on an (n, R) array against the one-row NumPy computation: every field
    identical, including levels at the top order statistic, t0 below every replicate (NaN
    interval) and a degenerate row ([t0, t0])."""
    from uqval.stats.bca import bca_limits, linear_quantiles

    rng = np.random.default_rng(21)
    for r in (1, 2, 999, 5000):
        boot = rng.standard_t(3, (40, r)) * rng.lognormal(0, 1, (40, 1))
        t0 = rng.normal(0.0, 0.3, 40)
        acc = rng.normal(0.0, 0.05, 40)
        t0[0] = boot[0].min() - 1.0  # z0 = -inf: NaN interval
        boot[1] = 2.5
        t0[1] = 2.5  # degenerate
        acc[2] = 0.4  # levels pushed towards the ends
        for conf in (0.95, 0.5):
            got = bca_limits(t0, boot, acc, conf)
            for i in range(40):
                want = _one_row_bca(t0[i], boot[i], acc[i], conf)
                have = (got.bias[i], got.se[i], got.ci_low[i], got.ci_high[i], got.z0[i])
                assert np.array_equal(have, want, equal_nan=True), (r, i)
    x = rng.normal(size=(3, 101))
    q = np.array([[0.0, 1.0], [0.5, 0.37], [0.999, 0.0001]])
    want = np.array([np.quantile(x[i], q[i], method="linear") for i in range(3)])
    assert linear_quantiles(x, q).tobytes() == want.tobytes()


def test_bootstrap_result_round_trips_through_strict_json():
    import json

    from uqval._internal.atomic import to_json_compatible
    from uqval.stats.bootstrap import BootstrapResult
    from uqval.stats.bootstrap_io import result_from_dict, result_to_dict

    res = BootstrapResult(estimate=1.0 / 3.0, bias=-2e-17, se=0.1, ci_low=float("nan"),
                          ci_high=0.7, n_boot=3, confidence=0.95, z0=float("inf"),
                          acceleration=0.01, replicates=np.array([0.1, 1.0 / 7.0, 2.0]))
    text = json.dumps(to_json_compatible(result_to_dict(res)), allow_nan=False)
    again = result_from_dict(json.loads(text))
    assert (again.estimate, again.bias, again.ci_high, again.n_boot) == (res.estimate, res.bias, 0.7, 3)
    assert np.isnan(again.ci_low) and np.isnan(again.z0)  # strict JSON: non-finite -> null -> NaN
    np.testing.assert_array_equal(again.replicates, res.replicates)
    with pytest.raises(ValueError, match="lacks"):
        result_from_dict({"estimate": 1.0})
    with pytest.raises(ValueError, match="n_boot = 3"):
        result_from_dict({**result_to_dict(res), "replicates": [1.0, 2.0]})
