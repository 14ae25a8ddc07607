"""Rows that come in groups (issue #38): cluster bootstrap, group permutations, ICC, validate.

References are independent of the code under test: resamples of groups rebuilt row by row,
the BCa formula written here, the ICC from scipy's one-way ANOVA F, and small simulations
in which the naive (rows-independent) test over-rejects and the group test does not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval import validate
from uqval.stats.groups import (
    GroupIndex,
    cluster_bca_bootstrap,
    cluster_mean_se,
    cluster_t_bootstrap,
    constant_within,
    design_effect,
    icc_oneway,
)
from uqval.stats.serial_groups import serial_blocks
from uqval.validation.permutation import grouped_heterogeneity_tests, heterogeneity_tests
from uqval.validation.stages import SQRT_ZMS


def grouped_z(rng, n_groups, size, rho):
    g = np.repeat(np.arange(n_groups), size)
    z = np.sqrt(rho) * rng.standard_normal(n_groups)[g] + np.sqrt(1 - rho) * rng.standard_normal(
        n_groups * size)
    return z, g


def equal_bins(x, k):
    """Equal-count bins of x by rank (ties broken by row), written here."""
    ranks = np.argsort(np.argsort(x, kind="stable"), kind="stable")
    return (ranks * k // x.size).astype(np.int32)


def test_group_index_and_constant_within():
    idx = GroupIndex.from_codes([5, 2, 5, 9, 2, 2])
    assert idx.n_groups == 3 and idx.counts.tolist() == [3, 2, 1]  # codes 2, 5, 9
    assert idx.codes.tolist() == [1, 0, 1, 2, 0, 0]
    assert idx.order.tolist() == [1, 4, 5, 0, 2, 3]
    assert idx.sums([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).tolist() == [13.0, 4.0, 4.0]
    assert constant_within([1.0, 7.0, 1.0, 3.0, 7.0, 7.0], idx)
    assert not constant_within([1.0, 7.0, 1.5, 3.0, 7.0, 7.0], idx)
    assert GroupIndex.from_codes(np.arange(4)).singleton


def test_icc_matches_anova_f_for_equal_groups():
    rng = np.random.default_rng(1)
    z, g = grouped_z(rng, 40, 12, 0.4)
    f = stats.f_oneway(*[z[g == k] for k in range(40)]).statistic
    expected = (f - 1.0) / (f + 12 - 1.0)  # ICC(1) = (F - 1)/(F + n - 1), equal sizes
    assert icc_oneway(z, GroupIndex.from_codes(g)) == pytest.approx(expected, rel=1e-10)


def test_icc_unequal_groups_brute_force_and_design_effect():
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 9, 60)
    g = np.repeat(np.arange(60), sizes)
    y = rng.standard_normal(60)[g] + rng.standard_normal(g.size)
    m, k = y.size, 60
    means = np.array([y[g == j].mean() for j in range(k)])
    msb = sum(sizes[j] * (means[j] - y.mean()) ** 2 for j in range(k)) / (k - 1)
    msw = sum(((y[g == j] - means[j]) ** 2).sum() for j in range(k)) / (m - k)
    n0 = (m - (sizes**2).sum() / m) / (k - 1)
    expected = (msb - msw) / (msb + (n0 - 1) * msw)
    idx = GroupIndex.from_codes(g)
    assert icc_oneway(y, idx) == pytest.approx(expected, rel=1e-10)
    assert design_effect(0.25, idx) == pytest.approx(1 + ((sizes**2).sum() / m - 1) * 0.25)
    assert 0.3 < expected < 0.7  # the planted ICC is 0.5


def test_cluster_mean_se_formula_and_singletons():
    rng = np.random.default_rng(3)
    z, g = grouped_z(rng, 25, 4, 0.5)
    mean, se = cluster_mean_se(z, GroupIndex.from_codes(g))
    resid = [z[g == k].sum() - 4 * z.mean() for k in range(25)]
    assert se == pytest.approx(np.sqrt(25 / 24 * np.sum(np.square(resid))) / z.size, rel=1e-12)
    _, se1 = cluster_mean_se(z, GroupIndex.from_codes(np.arange(z.size)))
    assert se1 == pytest.approx(np.std(z, ddof=1) / np.sqrt(z.size), rel=1e-12)
    assert mean == pytest.approx(z.mean())


def test_cluster_bca_matches_brute_force_group_resampling():
    rng = np.random.default_rng(4)
    sizes = rng.integers(2, 7, 50)
    g = np.repeat(rng.permutation(50), sizes)  # groups not in code order
    e = rng.standard_normal(g.size) * 1.3
    u = rng.uniform(0.5, 2.0, g.size)
    idx = GroupIndex.from_codes(g)
    n_boot = 300
    res = cluster_bca_bootstrap((e, u), SQRT_ZMS, idx, n_boot=n_boot, seed=11)
    # the same group draws, rebuilt row by row: one stream block (300 < 2**20 // 50)
    child = np.random.SeedSequence(11).spawn(1)[0]
    draws = np.random.Generator(np.random.SFC64(child)).integers(0, 50, size=(n_boot, 50))
    z2 = (e / u) ** 2
    members = [np.flatnonzero(idx.codes == k) for k in range(50)]
    brute = np.array([np.sqrt(np.mean(np.concatenate([z2[members[k]] for k in d])))
                      for d in draws])
    np.testing.assert_allclose(res.replicates, brute, rtol=1e-12)
    t0 = np.sqrt(z2.mean())
    assert res.estimate == pytest.approx(t0, rel=1e-14)
    # BCa written here: jackknife leaving one GROUP out
    jack = np.array([np.sqrt(np.delete(z2, members[k]).mean()) for k in range(50)])
    d = jack.mean() - jack
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    assert res.acceleration == pytest.approx(a, rel=1e-9)
    dist = np.concatenate([[t0], brute])
    z0 = stats.norm.ppf(np.mean(dist < t0))
    q = [stats.norm.cdf(z0 + (z0 + zk) / (1 - a * (z0 + zk)))
         for zk in stats.norm.ppf([0.025, 0.975])]
    lo, hi = np.quantile(dist, q)
    assert (res.ci_low, res.ci_high) == pytest.approx((lo, hi), rel=1e-12)


@pytest.mark.parametrize(("share", "k"), [(1.0, 41), (0.5, 21), (0.01, 2)])
def test_cluster_t_bootstrap_matches_brute_force(share, k):
    """k of the 41 groups drawn per resample (k = max(2, ceil(share G))), the t statistic
    with the cluster-robust se of those k groups, the interval never narrower than t(40)."""
    rng = np.random.default_rng(14)
    sizes = rng.integers(2, 9, 41)
    g = np.repeat(np.arange(41), sizes)
    y = rng.standard_normal(g.size) ** 2
    idx = GroupIndex.from_codes(g)
    res = cluster_t_bootstrap(y, idx, n_boot=200, seed=5, share=share)
    child = np.random.SeedSequence(5).spawn(1)[0]  # one stream block
    draws = np.random.Generator(np.random.SFC64(child)).integers(0, 41, size=(200, k))
    members = [y[g == j] for j in range(41)]

    def mean_and_se(chosen):
        rows = [members[j] for j in chosen]
        r = np.concatenate(rows).mean()
        resid = np.array([x.sum() - x.size * r for x in rows])
        c = len(rows)
        return r, np.sqrt(c / (c - 1) * np.sum(resid**2)) / sum(x.size for x in rows)

    r0, se0 = mean_and_se(range(41))
    # a resample of one group drawn k times has no spread: t* = 0 by convention
    t = np.array([0.0 if np.unique(d).size == 1 else
                  (lambda r, se: (r - r0) / se)(*mean_and_se(d)) for d in draws])
    np.testing.assert_allclose(res.replicates, t, rtol=1e-9, atol=1e-12)
    lo, hi = np.quantile(t, [0.025, 0.975])
    q = stats.t.ppf(0.975, 40)  # never narrower than the cluster-robust t(G - 1) interval
    lo, hi = min(lo, -q), max(hi, q)
    assert (res.ci_low, res.ci_high) == pytest.approx((r0 - hi * se0, r0 - lo * se0), rel=1e-9)
    for target in (1.0, r0 + 0.5 * q * se0, r0 - 1.5 * q * se0):
        t_obs = (r0 - target) / se0
        p = 2 * min((1 + np.sum(t >= t_obs)) / 201, (1 + np.sum(t <= t_obs)) / 201)
        p = max(p, 2 * stats.t.sf(abs(t_obs), 40))
        assert res.p_value(target) == pytest.approx(min(1.0, p), rel=1e-12)
        # the test is the interval's: p > 5 % exactly when the target is inside
        assert (res.p_value(target) > 0.05) == (res.ci_low < target < res.ci_high) or \
            abs(res.p_value(target) - 0.05) < 2 / 201


def test_half_samples_widen_the_side_of_small_values():
    """Right-skewed group sums: the half-sample t* are more left-skewed than the full ones
    (a margin on the skewness correction), so the interval's upper end moves up."""
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(30), 20)
    z = 0.7 * rng.standard_t(6, 30)[codes] + 0.7 * rng.standard_normal(600)
    idx = GroupIndex.from_codes(codes)
    full = cluster_t_bootstrap(z**2, idx, n_boot=2000, seed=2, share=1.0)
    half = cluster_t_bootstrap(z**2, idx, n_boot=2000, seed=2)
    assert stats.skew(half.replicates) < stats.skew(full.replicates) < 0
    assert half.ci_high > full.ci_high
    with pytest.raises(ValueError, match="share"):
        cluster_t_bootstrap(z**2, idx, n_boot=10, seed=2, share=0.0)


def test_cluster_interval_covers_where_the_naive_one_does_not():
    """30 sets of 40 groups x 25 rows, ICC(Z) = 0.5, calibrated: the cluster BCa interval of
    sqrt(ZMS) holds 1 about 95 % of the time, the naive (rows resampled) one about half."""
    from uqval.stats.bootstrap import bca_bootstrap

    cover = {"cluster": 0, "naive": 0}
    for seed in range(30):
        rng = np.random.default_rng(100 + seed)
        z, g = grouped_z(rng, 40, 25, 0.5)
        u = np.ones_like(z)
        c = cluster_bca_bootstrap((z, u), SQRT_ZMS, GroupIndex.from_codes(g), n_boot=400,
                                  seed=seed)
        n = bca_bootstrap((z, u), SQRT_ZMS, n_boot=400, seed=seed)
        t = cluster_t_bootstrap(z**2, GroupIndex.from_codes(g), n_boot=400, seed=seed)
        cover["cluster"] += c.ci_low <= 1 <= c.ci_high
        cover["naive"] += n.ci_low <= 1 <= n.ci_high
        cover["t"] = cover.get("t", 0) + (t.ci_low <= 1 <= t.ci_high)
    assert cover["cluster"] >= 25 and cover["t"] >= 25  # expected about 28 (sd 1.2)
    assert cover["naive"] <= 22  # expected about 16 (design effect about 7)


def test_group_permutation_tests_hold_their_size_where_naive_ones_do_not():
    """Calibrated grouped sets (ICC 0.5): along a group-level variable the naive test rejects
    far more than 5 %; exchanging groups (group-level) and permuting inside groups
    (row-level) stay near 5 %."""
    naive = grouped_level = row_level = 0
    n_sets = 60
    for seed in range(n_sets):
        rng = np.random.default_rng(500 + seed)
        z, g = grouped_z(rng, 40, 20, 0.5)
        x_grp = rng.uniform(size=40)[g]
        x_row = rng.uniform(size=z.size)
        lab_g, lab_r = equal_bins(x_grp, 5), equal_bins(x_row, 5)
        # tie-aware equal-count bins keep groups together: check the helper did too
        assert all(np.unique(lab_g[g == k]).size == 1 for k in range(40))
        idx = GroupIndex.from_codes(g)
        (n_zms, _), = heterogeneity_tests(z, [lab_g], n_permutations=199, seed=seed)
        tests, levels = grouped_heterogeneity_tests(
            z, [lab_g, lab_r], idx, variables=[x_grp, x_row], n_permutations=199, seed=seed)
        assert levels == ["groups exchanged", "permuted within groups"]
        naive += n_zms.p_value <= 0.05
        grouped_level += tests[0][0].p_value <= 0.05
        row_level += tests[1][0].p_value <= 0.05
    assert naive >= 20  # measured about 50 %
    assert grouped_level <= 8 and row_level <= 8  # expected 3 of 60; P(> 8) < 0.5 %


def test_within_group_permutation_finds_a_row_level_error():
    rng = np.random.default_rng(9)
    z, g = grouped_z(rng, 40, 20, 0.5)
    x_row = rng.uniform(size=z.size)
    z = np.where(x_row > 0.7, 2.5 * z, z)
    tests, _ = grouped_heterogeneity_tests(z, [equal_bins(x_row, 5)], GroupIndex.from_codes(g),
                                           variables=[x_row], n_permutations=199, seed=0)
    assert tests[0][0].p_value == pytest.approx(1 / 200)


def _set(seed, n_groups=60, size=10, rho=0.5):
    rng = np.random.default_rng(seed)
    z, g = grouped_z(rng, n_groups, size, rho)
    u = rng.uniform(0.5, 2.0, z.size)
    feats = {"x_row": rng.uniform(size=z.size), "x_grp": rng.uniform(size=n_groups)[g]}
    return z * u, u, feats, g


FAST = dict(n_boot=200, n_permutations=199, n_ucc_permutations=99)


def test_singleton_groups_give_the_same_numbers_bit_for_bit():
    e, u, feats, _ = _set(3)
    plain = validate(e, u, feats, seed=5, **FAST)
    labels = np.random.default_rng(0).permutation(e.size).astype(str)  # any unique labels
    for groups in (np.arange(e.size), labels):
        res = validate(e, u, feats, seed=5, groups=groups, **FAST)
        pd.testing.assert_frame_equal(res.verdicts, plain.verdicts)
        for name in plain.bins:
            pd.testing.assert_frame_equal(res.bins[name], plain.bins[name])
        assert res.scale_factor == plain.scale_factor
        assert res.groups is None and "groups" not in res.parameters


def test_validate_with_groups_records_and_respects_them():
    e, u, feats, g = _set(4)
    res = validate(e, u, feats, seed=1, groups=g, **FAST)
    rec = res.groups
    assert rec.n_groups == 60 and rec.rows_min == rec.rows_max == 10
    assert rec.icc_z == pytest.approx(icc_oneway(e / u, GroupIndex.from_codes(g)))
    assert rec.procedures == {"uncertainty": "permuted within groups",
                              "x_row": "permuted within groups", "x_grp": "groups exchanged"}
    assert rec.effective_rows == pytest.approx(e.size / rec.design_effect)
    assert "60 groups" in res.parameters["groups"]
    mcb = res.verdicts[res.verdicts["statistic"] == "isotonic MCB (QLIKE)"]
    assert len(mcb) == 2 and mcb["note"].str.contains("groups: permuted within groups").all()
    z_row = res.verdicts[res.verdicts["statistic"] == "<Z>"].iloc[0]
    assert "cluster-robust" in z_row["note"]
    # the cluster interval is wider than the naive one on the same data and seed
    naive = validate(e, u, feats, seed=1, **FAST).scale_factor
    s = res.scale_factor
    assert s.value == naive.value
    assert s.ci_high - s.ci_low > 1.5 * (naive.ci_high - naive.ci_low)


def test_groups_as_a_column_missing_groups_and_too_few():
    e, u, feats, g = _set(6)
    data = pd.DataFrame({"E": e, "uE": u, **feats, "id": [f"mol{k}" for k in g]})
    res = validate("E", "uE", ["x_row", "x_grp"], data=data, groups="id", seed=0, **FAST)
    assert res.groups.n_groups == 60
    warned = validate("E", "uE", ["x_row", "x_grp"], data=data, seed=0, **FAST)
    assert any("'id' look like a group id" in w for w in warned.warnings)
    assert not any("group id" in w for w in res.warnings)
    data.loc[3, "id"] = None
    with pytest.raises(ValueError, match="groups has 1 missing"):
        validate("E", "uE", data=data, groups="id", **FAST)
    res = validate("E", "uE", data=data, groups="id", drop_invalid=True, **FAST)
    assert res.row_counts["removed: missing group"] == 1
    with pytest.raises(ValueError, match="at least 10"):
        validate(e, u, groups=g % 5, **FAST)


def test_joint_test_by_group_keeps_its_size():
    """The joint test on grouped calibrated sets: naive often fails, by group rarely."""
    from uqval.calibration.joint import joint_calibration

    naive = grouped = 0
    for seed in range(12):
        e, u, feats, g = _set(700 + seed, n_groups=40, size=20, rho=0.6)
        kw = dict(n_permutations=99, seed=seed)
        naive += joint_calibration(e, u, feats, **kw).spread.p_value <= 0.05
        grouped += joint_calibration(e, u, feats, groups=g, **kw).spread.p_value <= 0.05
    assert grouped <= 3  # expected 0.6 of 12
    assert naive >= 3


def test_dataset_yaml_group_column(make_family):
    from conftest import DATASET_SCHEMA
    from uqval._internal.errors import DataError
    from uqval.pipeline.prepare import prepare_dataset
    from uqval.pipeline.registry import load_registry

    datasets = [{"id": "g", "sources": [{"file": "T/a.csv"}], "quantities": {"E": "E", "uE": "uE"},
                 "group": "mol"}]
    raw, ddir = make_family({"T/a.csv": "E,uE,mol\n0.1,0.2,a\n-0.3,0.4,b\n0.2,0.1,a\n"}, datasets)
    out = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("g"), raw)
    assert out.table["G"].tolist() == ["a", "b", "a"] and out.report["group"] == "mol"
    bad = [{**datasets[0], "id": "h", "group": "nope"}]
    raw, ddir = make_family({"T/a.csv": "E,uE,mol\n0.1,0.2,a\n"}, bad)
    with pytest.raises(DataError, match="group: column 'nope'"):
        prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("h"), raw)


def test_command_line_group_and_id_warning(tmp_path, capsys):
    from uqval.cli import main

    e, u, feats, g = _set(8)
    path = tmp_path / "forces.csv"
    pd.DataFrame({"err": e, "sigma": u, "T": feats["x_row"],
                  "structure": [f"s{k}" for k in g]}).to_csv(path, index=False)
    base = ["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature", "T",
            "--n-boot", "200", "--n-permutations", "199", "--jobs", "1"]
    main([*base, "--out", str(tmp_path / "a")])
    assert "'structure' look like a group id" in capsys.readouterr().err
    main([*base, "--group", "structure", "--out", str(tmp_path / "b")])
    captured = capsys.readouterr()
    assert "group id" not in captured.err
    summary = (tmp_path / "b" / "summary.md").read_text()
    assert "**Rows in groups.** 600 rows in 60 groups of 10 rows" in summary


def test_compare_with_groups_resamples_groups():
    from uqval import compare

    e, u, feats, g = _set(9, n_groups=40, size=20, rho=0.8)
    kw = dict(n_boot=100, n_sim=50, n_permutations=50, seed=0)
    plain = compare({"a": (e, u), "b": (e, 1.5 * u)}, validate_models=False, **kw)
    grouped = compare({"a": (e, u), "b": (e, 1.5 * u)}, validate_models=False, groups=g, **kw)
    width = {k: float(r.scores.loc[("a", "rmse"), "ci_high"] - r.scores.loc[("a", "rmse"),
                                                                             "ci_low"])
             for k, r in (("plain", plain), ("grouped", grouped))}
    # ICC(Z^2) = 0.64 for groups of 20, diluted by uE: a design effect of several for E^2
    assert width["grouped"] > 1.5 * width["plain"]
    assert grouped.scores.loc[("a", "rmse"), "value"] == plain.scores.loc[("a", "rmse"), "value"]
    assert "40 groups" in grouped.parameters["groups"]


def test_compare_auucc_test_swaps_whole_groups():
    """The AUUCC test of a pair in compare(groups=) is the group-swap test (its seed: child
    3 of the comparison's seed, after the bootstrap and the two models' references)."""
    from uqval import compare
    from uqval.ucc import PredictionIntervals, auucc_permutation_test

    e, u, _, g = _set(10, n_groups=40, size=20, rho=0.8)
    noisy = u * np.exp(0.1 * np.random.default_rng(1).standard_normal(u.size))
    kw = dict(n_boot=50, n_sim=20, n_permutations=400, seed=0, validate_models=False)
    grouped = compare({"a": (e, u), "b": (e, noisy)}, groups=g, **kw)
    plain = compare({"a": (e, u), "b": (e, noisy)}, **kw)
    seed = int(np.random.SeedSequence(0).spawn(4)[3].generate_state(1)[0])
    zero = np.zeros(e.size)
    direct = auucc_permutation_test(
        e, PredictionIntervals.from_uncertainty(zero, u),
        PredictionIntervals.from_uncertainty(zero, noisy), "excess", "deficit",
        normalize="std", n_permutations=400, exceedances=20, seed=seed, groups=g)
    row = grouped.differences.loc[("a", "b", "auucc")]
    assert row["p_value"] == direct.p_value and row["delta"] == pytest.approx(direct.delta)
    # ICC 0.8: the rows test is the more eager (measured p = 0.17 against 0.31 by group)
    assert row["p_value"] > plain.differences.loc[("a", "b", "auucc"), "p_value"]
    assert "AUUCC tests swap whole groups" in grouped.parameters["groups"]


def test_cross_validate_folds_keep_groups_and_singletons_change_nothing():
    from uqval.recalibration import cross_validate

    e, u, feats, g = _set(10)
    # a fitting function that records which groups each fit saw
    seen: list[set[int]] = []

    class Unit:
        def apply(self, uu):
            return uu

    def fit(ee, uu):
        seen.append({int(k) for k in g[np.isin(e, ee)]})
        return Unit()

    cross_validate(fit, e, u, folds=5, seed=0, groups=g)
    # every group sits wholly in one test fold: the fit of that fold saw none of its rows
    assert len(seen) == 5 and all(len(s) in (47, 48) for s in seen)  # 60 groups, 12-ish per fold
    out = cross_validate("sigma", e, u / 2, folds=5, seed=3, groups=g)
    assert 1.6 < float(np.median(out / u * 2)) < 2.4
    np.testing.assert_array_equal(cross_validate("sigma", e, u, seed=3),
                                  cross_validate("sigma", e, u, seed=3, groups=np.arange(e.size)))


def test_sigma_scaling_interval_by_group_matches_cluster_bootstrap():
    from uqval.recalibration import sigma_scaling

    e, u, _, g = _set(11)
    s = sigma_scaling(e, u, n_boot=300, seed=2, groups=g)
    from uqval.stats.bootstrap import MeanStatistic

    zms = MeanStatistic(columns=lambda a, b: (np.square(a / b),), combine=lambda m: m[..., 0])
    ref = cluster_bca_bootstrap((e, u), zms, GroupIndex.from_codes(g), n_boot=300, seed=2)
    # sigma_scaling bootstraps ZMS and takes square roots
    assert (s.ci_low, s.ci_high) == pytest.approx(np.sqrt([ref.ci_low, ref.ci_high]), rel=1e-12)
    naive = sigma_scaling(e, u, n_boot=300, seed=2)
    assert s.ci_high - s.ci_low > 1.5 * (naive.ci_high - naive.ci_low)


def test_murphy_band_by_group_is_wider():
    from uqval.scores.murphy import murphy_diagram

    e, u, _, g = _set(12, n_groups=40, size=20, rho=0.8)
    models = {"a": (e, u), "b": (e, 1.3 * u)}
    plain = murphy_diagram(models, n_boot=200, seed=0)
    grouped = murphy_diagram(models, n_boot=200, seed=0, groups=g)
    d0, se0 = plain.differences[("a", "b")]
    d1, se1 = grouped.differences[("a", "b")]
    np.testing.assert_allclose(d0, d1, rtol=1e-9, atol=1e-15)
    ratio = se1[se0 > 0] / se0[se0 > 0]
    assert float(np.median(ratio)) > 1.2 and float(ratio.max()) > 1.5
    # brute-force cluster-robust se at one threshold
    from uqval.scores.murphy import elementary_scores

    t = plain.thresholds[len(plain.thresholds) // 2 : len(plain.thresholds) // 2 + 1]
    diff = (elementary_scores(u**2, e**2, t) - elementary_scores((1.3 * u) ** 2, e**2, t))[:, 0]
    resid = np.array([np.sum(diff[g == k] - diff.mean()) for k in range(40)])
    expected = np.sqrt(40 / 39 * np.sum(resid**2)) / diff.size
    k = len(plain.thresholds) // 2
    assert se1[k] == pytest.approx(expected, rel=1e-9)


def test_command_line_group_with_recalibration_and_compare(tmp_path):
    from uqval.cli import main

    e, u, feats, g = _set(13)
    path = tmp_path / "forces.csv"
    pd.DataFrame({"err": e, "sigma": u, "sigma2": 1.5 * u, "T": feats["x_row"],
                  "structure": [f"s{k}" for k in g]}).to_csv(path, index=False)
    main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature", "T",
          "--group", "structure", "--recalibrate", "sigma", "--n-boot", "200",
          "--n-permutations", "199", "--jobs", "1", "--out", str(tmp_path / "r")])
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "Rows in groups" in summary and "recalibrated by 5-fold" in summary
    main(["compare", str(path), "--model", "A:err:sigma", "--model", "B:err:sigma2",
          "--group", "structure", "--n-boot", "100", "--out", str(tmp_path / "c")])
    assert (tmp_path / "c" / "report.html").exists()


def test_group_level_uncertainty_is_exchanged_by_group_and_planted_group_error_found():
    """uE constant inside groups (one model per structure): consistency exchanges groups; a
    2x error in the quarter of groups with x_grp > 0.75 fails adaptivity along x_grp and its
    largest factor lies in that range."""
    rng = np.random.default_rng(21)
    z, g = grouped_z(rng, 120, 10, 0.5)
    u = rng.uniform(0.5, 2.0, 120)[g]
    x_grp = rng.uniform(size=120)[g]
    x_row = rng.uniform(size=z.size)
    e = np.where(x_grp > 0.75, 2.0, 1.0) * z * u
    res = validate(e, u, {"x_row": x_row, "x_grp": x_grp}, groups=g, seed=0, **FAST)
    assert res.groups.procedures["uncertainty"] == "groups exchanged"
    assert not (res.verdicts["statistic"] == "isotonic MCB (QLIKE)").any()  # nothing to permute
    assert res.stage_verdicts["adaptivity: x_grp"] == "fail"
    table = res.bins["x_grp"]
    assert float(table.iloc[int(np.argmax(table["factor"].to_numpy()))]["low"]) > 0.6


def test_bins_along_a_group_level_variable_hold_several_groups():
    e, u, feats, g = _set(15, n_groups=20, size=30)
    res = validate(e, u, feats, groups=g, seed=0, n_bins=10, **{**FAST, "n_boot": 100})
    assert res.bins["x_grp"].shape[0] == 4  # 20 groups / 5 per bin
    assert res.bins["x_row"].shape[0] == 10
    assert res.bins["x_grp"]["ci_low"].notna().all()


def test_default_bins_hold_thirty_effective_rows_where_a_variable_sorts_whole_groups():
    # 100 days of 24 hours sharing their error size: a variable that sorts whole days
    # together (the day's distance) gets fewer bins, each worth >= 30 independent rows by
    # Kish's n_B / (1 + (m_B - 1) ICC), computed here; the hour, which mixes the days in
    # every bin, keeps the default; a number of bins the user gives is kept
    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(100), 24)
    z = rng.standard_normal(2400) * np.exp(0.8 * rng.standard_normal(100) - 0.64)[g]
    u = np.full(2400, 1.0) * rng.uniform(0.9, 1.1, 2400)
    day_x = rng.uniform(size=100)[g] + 1e-6 * rng.standard_normal(2400)  # varies a hair
    hour = np.tile(np.arange(24.0), 100) + 0.01 * rng.uniform(size=2400)
    res = validate(z * u, u, {"day_x": day_x, "hour": hour}, groups=g, seed=0, **FAST)
    k = res.parameters["n_bins"]
    assert k["hour"] == 24 and 2 <= k["day_x"] < 24  # default for 2400 rows: 24
    icc = icc_oneway(np.square(z), GroupIndex.from_codes(g))

    def mean_effective(x, bins):
        b = equal_bins(x, bins)
        eff = []
        for j in range(bins):
            counts = np.bincount(g[b == j])
            m_b = np.sum(counts.astype(float) ** 2) / counts.sum()
            eff.append(counts.sum() / (1 + (m_b - 1) * icc))
        return np.mean(eff)

    assert mean_effective(day_x, k["day_x"]) >= 30 > mean_effective(day_x, k["day_x"] + 1)
    given = validate(z * u, u, {"day_x": day_x}, groups=g, seed=0, n_bins=24, **FAST)
    assert given.parameters["n_bins"]["day_x"] == 24


def test_bins_of_a_per_group_variable_in_blocks_hold_several_blocks_and_no_collapsed_interval():
    """Structures of 16 atoms whose consecutive structures share their error size (blocked
    by uqval.stats.serial_groups), a per-structure variable unrelated to file order: every
    bin holds on average >= 5 blocks (counted here), and no bin's <Z^2> interval collapses
    onto its estimate; a bin of fewer than 5 units gets the cluster-robust t interval,
    written here."""
    rng = np.random.default_rng(11)
    n_struct, size = 120, 16
    g = np.repeat(np.arange(n_struct), size)
    log_a = np.empty(n_struct)
    log_a[0] = rng.standard_normal()
    for i in range(1, n_struct):  # AR(1) 0.8 over the structures in file order
        log_a[i] = 0.8 * log_a[i - 1] + 0.6 * rng.standard_normal()
    u = rng.uniform(0.5, 2.0, g.size)
    e = u * np.exp(0.5 * log_a - 0.25)[g] * rng.standard_normal(g.size)
    per_structure = rng.uniform(size=n_struct)[g]
    res = validate(e, u, {"per_structure": per_structure}, groups=g, seed=0,
                   **{**FAST, "n_boot": 200})
    serial = serial_blocks(e / u, GroupIndex.from_codes(g),
                           variables={"u": u, "per_structure": per_structure})
    assert serial.block_size > 1 and "dependent" in res.parameters["serial_groups"]
    table = res.bins["per_structure"]
    block_of_structure = serial.codes[::size]
    units = [np.unique(block_of_structure[g[(per_structure >= b.low) & (per_structure <= b.high)]
                                          ]).size for b in table.itertuples()]
    assert np.mean(units) >= 5
    width = table["ci_high"] - table["ci_low"]
    assert (width > 0.05 * table["value"]).all()
    z2 = np.square(e / (u * res.parameters["conditional_scaling"]))
    for b, k in zip(table.itertuples(), units, strict=True):
        if k >= 5:
            continue
        rows = (per_structure >= b.low) & (per_structure <= b.high)
        blocks = block_of_structure[g[rows]]
        mean = z2[rows].mean()
        resid = np.array([np.sum(z2[rows][blocks == j] - mean) for j in np.unique(blocks)])
        se = np.sqrt(k / (k - 1) * np.sum(resid**2)) / rows.sum()
        half = stats.t.ppf(0.975, k - 1) * se
        assert (b.ci_low, b.ci_high) == pytest.approx((mean - half, mean + half), rel=1e-9)


def _mcb_brute(e, u):
    """QLIKE MCB of uE·s beyond one factor, written here: PAV of E² on uE (distinct uE)."""
    from scipy.optimize import isotonic_regression

    order = np.argsort(u)
    e2, u2 = e[order] ** 2, u[order] ** 2
    v = u2 * np.mean(e2 / u2)
    fit = isotonic_regression(e2, increasing=True).x
    fit = np.where(fit > 0, fit, fit[fit > 0].min())
    return np.mean(e2 / v + np.log(v)) - np.mean(e2 / fit + np.log(fit))


def test_mcb_group_permutations_match_the_enumerated_null():
    """Groups of 2, 2, 2, 3, 3 and 1 rows: every permutation inside groups combined with every
    exchange of whole groups of equal size (2^3 3!^2 x 3! 2! = 3456), enumerated here, gives
    the exact null of MCB; the compiled test's p-value agrees within its Monte Carlo error,
    and a uE constant inside groups of distinct sizes leaves nothing to permute (p = 1)."""
    import itertools

    from uqval.calibration.isotonic import mcb_permutation_test

    rng = np.random.default_rng(21)
    sizes = [2, 2, 2, 3, 3, 1]
    g = np.repeat(np.arange(6), sizes)
    m = g.size
    u = rng.uniform(0.5, 2.0, m)
    e = u * (rng.standard_normal(6)[g] + rng.standard_normal(m)) * np.where(u > 1.2, 1.5, 1)
    z = e / u
    observed = _mcb_brute(e, u)
    rows_of = [np.flatnonzero(g == k) for k in range(6)]
    by_size: dict[int, list[int]] = {}
    for k, n_k in enumerate(sizes):
        by_size.setdefault(n_k, []).append(k)
    # all combinations of one block permutation per size class
    classes = [[dict(zip(ks, perm, strict=True)) for perm in itertools.permutations(ks)]
               for ks in by_size.values()]
    within = [list(itertools.permutations(range(n_k))) for n_k in sizes]
    null = []
    for choice in itertools.product(*classes):
        target = {k: v for part in choice for k, v in part.items()}  # group k gets group v's Z
        for inner in itertools.product(*within):
            zp = np.empty(m)
            for k in range(6):
                source = rows_of[target[k]][list(inner[k])]
                zp[rows_of[k]] = z[source]
            null.append(_mcb_brute(u * zp, u))
    assert len(null) == 3456
    exact = np.mean(np.array(null) >= observed - 1e-12)
    assert 0.05 < exact < 0.95  # a case where the p-value is not at an edge
    n = 19_999
    res = mcb_permutation_test(e, u, n_permutations=n, seed=3, groups=g)
    assert res.miscalibration == pytest.approx(observed, rel=1e-10)
    assert abs(res.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / n) + 1 / n
    rows = mcb_permutation_test(e, u, n_permutations=n, seed=3)  # rows exchanged: other null
    assert abs(rows.p_value - exact) > 4 * np.sqrt(exact * (1 - exact) / n)
    distinct = np.repeat(np.arange(4), [1, 2, 3, 4])
    u_d = rng.uniform(0.5, 2.0, 4)[distinct]
    e_d = u_d * rng.standard_normal(distinct.size)
    same = mcb_permutation_test(e_d, u_d, n_permutations=99, seed=3, groups=distinct)
    assert same.p_value == 1.0


def test_robust_factor_blocks_of_whole_groups_brute_force_and_one_bad_group():
    """The grouped median of means rebuilt here (groups shuffled, cut by their middle row
    into K = min(M // 50, G // 5) blocks, block means, median and binomial order statistics,
    normalised by the median of chi2_nu/nu with nu = (M/K)/deff, deff from the ANOVA ICC of
    Z²); and one group of 30 rows with 20x too small uE moves it less than half as much as
    it moves the rows-partitioned factor (its rows spread over many blocks there)."""
    from uqval._internal.streams import value_generator
    from uqval.calibration.robust_scale import partitions_for, robust_scale_factor_unchecked

    rng = np.random.default_rng(8)
    z, g = grouped_z(rng, 200, 30, 0.5)
    u = rng.uniform(0.5, 2.0, z.size)
    e = u * z
    res = robust_scale_factor_unchecked(e, u, seed=4, groups=GroupIndex.from_codes(g))
    z2 = z**2
    m, n_groups, size = z.size, 200, 30
    k = min(m // 50, n_groups // 5)
    f = stats.f_oneway(*[z2[g == j] for j in range(n_groups)]).statistic
    icc = (f - 1.0) / (f + size - 1.0)
    nu = (m / k) / (1.0 + (size - 1.0) * icc)
    norm = stats.chi2.median(nu) / nu
    lo = max(1, int(stats.binom.ppf(0.025, k, 0.5)))
    ends = []
    for child in np.random.SeedSequence(4).spawn(partitions_for(m)):
        order = value_generator(child).permutation(n_groups)
        members = [[] for _ in range(k)]
        for position, j in enumerate(order):  # equal sizes: middle row (position + 1/2) 30
            members[min(k - 1, int(k * (position + 0.5) * size / m))].append(j)
        means = np.sort([np.mean(np.concatenate([z2[g == j] for j in b])) for b in members])
        ends.append([np.median(means), means[lo - 1], means[k - lo]])
    expected = np.sqrt(np.mean(ends, axis=0) / norm)
    assert (res.value, res.ci_low, res.ci_high) == pytest.approx(tuple(expected), rel=1e-10)
    assert res.n_blocks == k and res.block_size == m // k

    bad = u.copy()
    bad[g == 0] /= 20.0
    grouped = robust_scale_factor_unchecked(e, bad, seed=4, groups=GroupIndex.from_codes(g))
    rows = robust_scale_factor_unchecked(e, bad, seed=4)
    clean_rows = robust_scale_factor_unchecked(e, u, seed=4)
    # one block of 40 moved (measured +1.5 %); its 30 rows in up to 30 of the 120 row
    # blocks (measured +3.4 %)
    assert grouped.value / res.value - 1 < 0.02 < 0.03 < rows.value / clean_rows.value - 1


def test_per_bin_mean_z_intervals_are_over_the_groups_of_the_bin():
    """<Z> per bin with groups: mean ± t_(G_b - 1) · CR1 se over the G_b groups of the bin,
    written here group by group (scaled uE); wider than the rows' Student interval."""
    e, u, feats, g = _set(6)
    res = validate(e, u, feats, seed=2, groups=g, **FAST)
    plain = validate(e, u, feats, seed=2, **FAST)
    z = e / (u * res.parameters["conditional_scaling"])
    for name in ("x_row", "x_grp"):
        table = res.bins[name]
        x = feats[name]
        for _, b in table.iterrows():
            rows = (x >= b["low"]) & (x <= b["high"])
            assert rows.sum() == b["n"]
            labels = np.unique(g[rows])
            mean = z[rows].mean()
            resid = np.array([z[rows & (g == k)].sum() - (rows & (g == k)).sum() * mean
                              for k in labels])
            se = np.sqrt(labels.size / (labels.size - 1) * np.sum(resid**2)) / rows.sum()
            half = stats.t.ppf(0.975, labels.size - 1) * se
            assert (b["mean_z"], b["mean_z_low"], b["mean_z_high"]) == pytest.approx(
                (mean, mean - half, mean + half), rel=1e-10, abs=1e-13)
    wider = (res.bins["x_grp"]["mean_z_high"] - res.bins["x_grp"]["mean_z_low"]) / (
        plain.bins["x_grp"]["mean_z_high"] - plain.bins["x_grp"]["mean_z_low"])
    assert wider.mean() > 1.5  # groups of 10 at ICC 0.5: design effect 5.5 along x_grp


def _ed_area(e, a):
    """Excess-deficit AUUCC (raw units) of bands ±a, from its definition: the trapezoids of
    deficit against excess at the sorted critical scales e/a (both linear in between)."""
    k = np.sort(e / a)
    xi = np.array([np.mean(np.maximum(s * a - e, 0.0)) for s in k])
    delta = np.array([np.mean(np.maximum(e - s * a, 0.0)) for s in k])
    return float(np.sum(np.diff(xi) * (delta[1:] + delta[:-1]) / 2.0))


def test_ucc_permutations_swap_whole_groups_brute_force():
    """The paired AUUCC test with groups: one swap bit per group (bit g of the stream), the
    permuted AUUCCs rebuilt here from the definition; closed form and sorting agree."""
    from uqval.ucc import PredictionIntervals, auucc_permutation_test, constant_band
    from uqval.ucc.swap import swap_masks

    e, u, _, g = _set(11, n_groups=40, size=15)
    n_perm = max(1, min(256, (1 << 16) // e.size))  # one chunk: child 0 of the seed
    model = PredictionIntervals.from_uncertainty(np.zeros_like(e), u)
    const = constant_band(np.zeros_like(e))
    labels = np.array([f"s{k}" for k in g])  # any labels
    ae = np.abs(e)
    a_model, a_const = u * np.median(ae / u), np.full(e.size, np.median(ae))  # aligned bands
    observed = _ed_area(ae, a_model) - _ed_area(ae, a_const)
    codes = np.unique(labels, return_inverse=True)[1]  # groups in the order of their labels
    bits = swap_masks(np.random.SeedSequence(7).spawn(1)[0], n_perm, 40)[:, codes]
    brute = np.array([_ed_area(ae, np.where(b, a_const, a_model))
                      - _ed_area(ae, np.where(b, a_model, a_const)) for b in bits])
    tol = 1e-9 * max(_ed_area(ae, a_model), _ed_area(ae, a_const))
    p = (1 + np.sum(np.abs(brute) >= abs(observed) - tol)) / (n_perm + 1)
    for algorithm in ("auto", "sort"):
        res = auucc_permutation_test(e, model, const, "excess", "deficit", normalize="std",
                                     n_permutations=n_perm, seed=7, groups=labels,
                                     algorithm=algorithm)
        np.testing.assert_allclose(res.null_deltas / res.delta, brute / observed, rtol=1e-8)
        assert res.p_value == pytest.approx(p) and "40 groups swapped whole" in res.algorithm
    rows = auucc_permutation_test(e, model, const, "excess", "deficit", normalize="std",
                                  n_permutations=n_perm, seed=7)
    assert not np.allclose(rows.null_deltas, res.null_deltas)


def test_shuffle_exchangeable_is_uniform_on_its_group():
    """Groups of 1, 1, 2 and 2 rows: the permutations that exchange equal-size groups as
    blocks and shuffle rows inside groups are 2! x 2! x 2 x 2 = 16; successive draws visit
    each equally often (chi-square against uniform) and nothing else."""
    from scipy import stats as st

    from uqval.stats.groups import shuffle_exchangeable
    from uqval.stats.resample_kernel import sfc64_state

    index = GroupIndex.from_codes(np.array([0, 1, 2, 2, 3, 3]))
    layout = index.size_layout()
    assert layout.strata.tolist() == [0, 2, 4] and layout.starts.tolist() == [0, 1, 2, 4, 6]
    a = np.arange(6, dtype=np.float64)[layout.order]
    allowed = set()
    for single in ((0, 1), (1, 0)):
        for pair in (((2, 3), (4, 5)), ((4, 5), (2, 3))):
            for f0 in (False, True):
                for f1 in (False, True):
                    first = pair[0][::-1] if f0 else pair[0]
                    second = pair[1][::-1] if f1 else pair[1]
                    allowed.add((*single, *first, *second))
    assert len(allowed) == 16
    s = tuple(sfc64_state(np.random.SeedSequence(5)))
    seen: dict[tuple, int] = {}
    for _ in range(16_000):
        s = tuple(np.uint64(v) for v in shuffle_exchangeable(a, layout.starts, layout.strata,
                                                              layout.inner_starts, *s))
        key = tuple(int(v) for v in a)
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == allowed
    assert st.chisquare(list(seen.values())).pvalue > 0.001


def test_a_catch_all_group_is_named_and_escaped(tmp_path):
    """One group holding 60 % of the rows (the empty scaffold of acyclic molecules) and 40
    small ones: the groups weigh like (sum n)^2 / sum n^2 equal ones, computed here; the
    warning names the largest group, on the page escaped; equal groups get no warning."""
    rng = np.random.default_rng(31)
    labels = np.array(["<b>acyclic</b>"] * 300 + [f"scaffold {i}" for i in range(40) for _ in range(5)])
    u = rng.uniform(0.5, 2.0, labels.size)
    e = u * rng.standard_normal(labels.size)
    res = validate(e, u, groups=labels, seed=0, **{**FAST, "n_boot": 200})
    n = np.array([300] + [5] * 40, dtype=float)
    effective = n.sum() ** 2 / np.sum(n**2)
    (w,) = [w for w in res.warnings if "very unequal" in w]
    assert "'<b>acyclic</b>'" in w and "60 %" in w and f"like {effective:.1f} equal" in w
    res.save(tmp_path / "r")
    page = (tmp_path / "r" / "report.html").read_text()
    assert "&lt;b&gt;acyclic&lt;/b&gt;" in page and "<b>acyclic</b>" not in page
    equal = validate(e, u, groups=np.repeat(np.arange(100), 5), seed=0,
                     **{**FAST, "n_boot": 200})
    assert not any("very unequal" in w for w in equal.warnings)
    from uqval.predictive import Normal

    pred = validate(e, Normal(np.zeros_like(u), u), groups=labels, seed=0,
                    **{**FAST, "n_boot": 200})
    (w,) = [w for w in pred.warnings if "very unequal" in w]  # once, named
    assert "'<b>acyclic</b>'" in w
    assert not any("very unequal" in w for w in pred.variance.warnings)
