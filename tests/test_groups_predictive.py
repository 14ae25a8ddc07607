"""Predictive outputs (ensembles, distributions, quantiles, intervals) with rows in groups:
the Korn-Graubard shares, the multiplier-bootstrap PIT test, the grouped perfect-ensemble
reference, cluster-robust scores, against references written here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import uqval
from uqval.stats.cluster_cvm import cluster_cvm_uniform
from uqval.stats.cluster_proportion import cluster_proportion, gaussian_indicator_icc
from uqval.stats.groups import GroupIndex
from uqval.validation.coverage_shape import latent_icc

FAST = {"n_boot": 200, "n_ucc_permutations": 99}


def _grouped(seed: int, n_groups: int = 60, size: int = 20, icc: float = 0.5, m: int = 0,
             factor: float = 1.0):
    rng = np.random.default_rng(seed)
    n = n_groups * size
    g = np.repeat(np.arange(n_groups), size)
    mu, sd = rng.normal(size=n), rng.uniform(0.5, 2.0, n)
    x_row, x_grp = rng.uniform(size=n), np.repeat(rng.uniform(size=n_groups), size)

    def draw():
        a = np.repeat(rng.standard_normal(n_groups), size)
        return mu + factor * sd * (np.sqrt(icc) * a + np.sqrt(1 - icc) * rng.standard_normal(n))

    y = draw()
    members = np.column_stack([draw() for _ in range(m)]) if m else None
    return y, mu, sd, members, {"x_row": x_row, "x_grp": x_grp}, g


def _korn_graubard(hit, g, p0, icc=0.0):
    """Korn & Graubard (1998), written out: design effect max(1, CR1 variance over the
    binomial one, floor sum n_g (1 + (n_g - 1) icc)/n), effective n, df factor, beta
    quantiles; the test doubles the smaller beta tail at the same effective counts."""
    n, groups = hit.size, np.unique(g)
    n_g = np.array([(g == c).sum() for c in groups])
    k_g = np.array([hit[g == c].sum() for c in groups])
    p = hit.mean()
    cr1 = groups.size / (groups.size - 1) * np.sum((k_g - n_g * p) ** 2) / n**2
    floor = np.sum(n_g * (1 + (n_g - 1) * icc)) / n
    deff = max(1.0, floor, cr1 / (p * (1 - p) / n))
    n_eff = n / deff * (stats.t.ppf(0.975, n - 1) / stats.t.ppf(0.975, groups.size - 1)) ** 2
    x = p * n_eff
    low = stats.beta.ppf(0.025, x, n_eff - x + 1)
    high = stats.beta.ppf(0.975, x + 1, n_eff - x)
    upper = stats.beta.cdf(p0, x, n_eff - x + 1)  # P(X >= x) = I_p0(x, n - x + 1)
    lower = 1 - stats.beta.cdf(p0, x + 1, n_eff - x)
    return p, low, high, min(1.0, 2 * min(upper, lower)), n_eff


def test_cluster_proportion_is_korn_graubard():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(40), rng.integers(3, 30, 40))
    shared = np.repeat(rng.normal(size=40), np.bincount(g))
    hit = (shared + rng.normal(size=g.size)) < 1.2
    for icc in (0.0, 0.3):
        r = cluster_proportion(hit, GroupIndex.from_codes(g), 0.85, indicator_icc=icc)
        ref = _korn_graubard(hit, g, 0.85, icc)
        assert r.value == pytest.approx(ref[0], rel=1e-14)
        for got, want in zip((r.ci_low, r.ci_high, r.p_value, r.n_effective), ref[1:],
                             strict=True):
            assert got == pytest.approx(want, rel=1e-9)
        assert r.n_effective < hit.size / 2  # groups that move together: fewer than n rows


def test_gaussian_indicator_icc_by_simulation():
    from uqval.stats.cluster_proportion import gaussian_indicator_icc

    rng = np.random.default_rng(3)
    rho = 0.6
    a = rng.standard_normal(400_000)
    s1 = np.sqrt(rho) * a + np.sqrt(1 - rho) * rng.standard_normal(a.size)
    s2 = np.sqrt(rho) * a + np.sqrt(1 - rho) * rng.standard_normal(a.size)
    for level in (0.5, 0.9, 0.95):
        q = stats.norm.ppf(0.5 + level / 2)
        simulated = np.corrcoef(np.abs(s1) <= q, np.abs(s2) <= q)[0, 1]
        assert gaussian_indicator_icc(rho, level) == pytest.approx(simulated, abs=0.01)
    c = stats.norm.ppf(0.25)
    simulated = np.corrcoef(s1 <= c, s2 <= c)[0, 1]
    assert gaussian_indicator_icc(rho, 0.25, central=False) == pytest.approx(simulated, abs=0.01)


def test_cluster_proportion_interval_contains_the_level_when_the_test_passes():
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(30), 10)
    for seed in range(20):
        hit = np.random.default_rng(seed).uniform(size=300) < 0.8
        r = cluster_proportion(hit, GroupIndex.from_codes(g), 0.8)
        assert (r.p_value > 0.05) == (r.ci_low <= 0.8 <= r.ci_high) or abs(r.p_value - 0.05) < 0.01
    assert rng is not None


def test_cluster_cvm_statistic_and_level():
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(50), 20)
    index = GroupIndex.from_codes(g)
    u = special.ndtr((np.repeat(rng.normal(size=50), 20) + rng.normal(size=1000)) / np.sqrt(2))
    res = cluster_cvm_uniform(u, index, n_boot=199, seed=3)
    # W² on the grid t_j = j/T, written out
    t = np.arange(1, res.grid + 1) / res.grid
    f_n = np.searchsorted(np.sort(u), t, side="right") / u.size
    assert res.statistic == pytest.approx(u.size * np.mean((f_n - t) ** 2), rel=1e-9)
    # level on dependent uniform PITs: 200 sets, alpha 0.05 (binomial noise: 2-8 %)
    rejections = 0
    for s in range(200):
        r = np.random.default_rng([4, s])
        us = special.ndtr((np.repeat(r.normal(size=50), 20) + r.normal(size=1000)) / np.sqrt(2))
        rejections += cluster_cvm_uniform(us, index, n_boot=199, seed=s).p_value <= 0.05
    assert rejections <= 18
    # the independent-rows test rejects far more often on the same sets
    naive = sum(stats.cramervonmises(special.ndtr(
        (np.repeat(np.random.default_rng([4, s]).normal(size=50), 20)
         + np.random.default_rng([4, s]).normal(size=1000)) / np.sqrt(2)), "uniform").pvalue
        <= 0.05 for s in range(50))
    assert naive >= 15


def test_singleton_groups_give_the_numbers_without_groups():
    y, mu, sd, members, feats, _ = _grouped(5, m=8)
    ones = np.arange(y.size)
    for pred in (uqval.Normal(mu, sd), uqval.Ensemble(members)):
        a = uqval.validate(y, pred, feats, seed=1, **FAST)
        b = uqval.validate(y, pred, feats, seed=1, groups=ones, **FAST)
        pd.testing.assert_frame_equal(a.verdicts, b.verdicts)
        pd.testing.assert_frame_equal(a.scores, b.scores)
        assert "groups" not in b.parameters


def test_grouped_normal_coverage_rows_and_scores():
    y, mu, sd, _, feats, g = _grouped(6)
    res = uqval.validate(y, uqval.Normal(mu, sd), feats, groups=g, seed=0, **FAST)
    index = GroupIndex.from_codes(g)
    v = res.verdicts
    for level in (0.5, 0.8, 0.9, 0.95):
        row = v[(v["stage"] == "coverage") & (v["statistic"] == f"coverage {level:g}")].iloc[0]
        hit = np.abs(y - mu) <= stats.norm.ppf(0.5 + level / 2) * sd
        rho = latent_icc(stats.norm.ppf(np.clip(stats.norm.cdf((y - mu) / sd), 1e-12,
                                                1 - 1e-12)), index)
        ref = cluster_proportion(hit, index, level,
                                 indicator_icc=gaussian_indicator_icc(rho, level))
        assert row["value"] == pytest.approx(ref.value)
        assert (row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
            (ref.ci_low, ref.ci_high, ref.p_value))
        assert "Korn-Graubard" in row["note"] and "60 groups" in row["note"]
    # the CRPS's se: cluster-robust, written out
    crps = sd * (((y - mu) / sd) * (2 * stats.norm.cdf((y - mu) / sd) - 1)
                 + 2 * stats.norm.pdf((y - mu) / sd) - 1 / np.sqrt(np.pi))
    resid = np.bincount(g, weights=crps) - np.bincount(g) * crps.mean()
    se = np.sqrt(60 / 59 * np.sum(resid**2)) / y.size
    row = res.scores.set_index("score").loc["crps"]
    assert row["value"] == pytest.approx(crps.mean(), rel=1e-9)
    assert row["se"] == pytest.approx(se, rel=1e-9)
    assert res.variance is not None and res.variance.groups is not None
    assert res.parameters["groups"].startswith("60 groups of 20 to 20 rows")
    shape = v[v["stage"] == "shape"].iloc[0]
    assert "multiplier bootstrap over the 60 groups" in shape["note"]


def test_grouped_calibrated_sets_pass_where_rows_alone_fail():
    """A shared group part (ICC 0.8, 30 groups of 40): the independent-rows tests reject the
    right predictive; with the groups none of the coverage or shape rows does."""
    fails_rows = fails_groups = 0
    for seed in range(4):
        y, mu, sd, _, feats, g = _grouped(10 + seed, n_groups=30, size=40, icc=0.8)
        pred = uqval.Normal(mu, sd)
        rows = uqval.validate(y, pred, feats, seed=seed, **FAST).stage_verdicts
        grouped = uqval.validate(y, pred, feats, groups=g, seed=seed, **FAST).stage_verdicts
        fails_rows += rows["coverage"] == "fail" or rows["shape"] == "fail"
        fails_groups += grouped["coverage"] == "fail" or grouped["shape"] == "fail"
    # rows alone: all four rejected; with groups one set in four (the second: shape p = 0.044,
    # its average stage fails too: its 30 group effects happen to be large; the rate over
    # many sets is in benchmarks/group_predictive_rates.md)
    assert fails_rows == 4 and fails_groups <= 1


def test_grouped_coverage_finds_a_group_level_error():
    y, mu, sd, _, feats, g = _grouped(7, n_groups=200, size=10)
    narrow = np.where(feats["x_grp"] > 0.75, 0.5, 1.0) * sd  # sd 2x too small there
    res = uqval.validate(y, uqval.Normal(mu, narrow), feats, groups=g, seed=0, **FAST)
    v = res.verdicts
    lcp = v[(v["stage"] == "coverage") & (v["feature"] == "x_grp")]
    assert (lcp["verdict"] == "fail").all()
    cond = res.coverage.conditional
    worst = cond[cond["variable"] == "x_grp"]
    assert (worst["worst_low"] >= 0.7).all()  # the bin farthest from the level is a planted one
    assert (worst["worst_value"] < worst["level"]).all()


def test_grouped_perfect_ensemble_reference_picks_one_member_per_group():
    from uqval.validation.ensemble_reference import _picks

    rng = np.random.default_rng(8)
    codes = np.repeat(np.arange(5), 4)
    m = np.full(20, 8)
    picks = _picks(rng, m, codes)
    assert all(np.unique(picks[codes == c]).size == 1 for c in range(5))
    assert picks.min() >= 0 and picks.max() <= 8
    y, mu, sd, members, feats, g = _grouped(9, n_groups=80, size=15, icc=0.6, m=8)
    res = uqval.validate(y, uqval.Ensemble(members), feats, groups=g, seed=0, **FAST)
    assert not res.miscalibrated or res.stage_verdicts.get("joint") == "fail"
    assert res.variance is not None and res.variance.groups.n_groups == 80
    advice = res.advice
    assert not advice["action"].astype(str).str.contains("multiply|recalibrate").any()


def test_missing_group_labels():
    y, mu, sd, _, feats, g = _grouped(11)
    labels = g.astype(object)
    labels[[3, 50]] = None
    with pytest.raises(ValueError, match=r"groups has 2 missing value\(s\) \(rows 4, 51\)"):
        uqval.validate(y, uqval.Normal(mu, sd), feats, groups=labels, **FAST)
    res = uqval.validate(y, uqval.Normal(mu, sd), feats, groups=labels, drop_invalid=True,
                         **FAST)
    assert res.row_counts["removed: missing group"] == 2
    assert res.row_counts["rows used"] == y.size - 2


def test_cli_validate_members_with_group(tmp_path):
    from uqval.cli import main

    y, mu, sd, members, feats, g = _grouped(12, n_groups=40, size=10, m=5)
    frame = pd.DataFrame({"y": y, **{f"tree_{j}": members[:, j] for j in range(5)},
                          "x": feats["x_row"], "structure": [f"s{c}" for c in g]})
    path = tmp_path / "ens.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "report"
    code = main(["validate", str(path), "--y-true", "y", "--members", "tree_*", "--feature",
                 "x", "--group", "structure", "--n-boot", "200", "--out", str(out)])
    assert code == 0
    verdicts = pd.read_csv(out / "verdicts.csv")
    notes = verdicts.loc[verdicts["stage"] == "coverage", "note"].astype(str)
    assert notes.str.contains("Korn-Graubard test and interval over 40 groups").any()


def test_compare_predictive_singleton_groups_give_the_numbers_without_groups():
    y, mu, sd, _, _, _ = _grouped(20, n_groups=50, size=6)
    models = {"right": uqval.Normal(mu, sd), "wide": uqval.Normal(mu, 1.5 * sd)}
    plain = uqval.compare(models, y_true=y, n_boot=200, seed=3)
    ones = uqval.compare(models, y_true=y, n_boot=200, seed=3, groups=np.arange(y.size))
    pd.testing.assert_frame_equal(plain.scores, ones.scores)
    pd.testing.assert_frame_equal(plain.differences, ones.differences)
    pd.testing.assert_frame_equal(plain.coverage, ones.coverage)
    assert ones.n_groups is None


def test_compare_predictive_group_bootstrap_against_the_cluster_robust_interval():
    """The percentile interval of a score's mean from resampled groups against the
    cluster-robust normal interval mean ± 1.96 se, se² = G/(G-1) Σ_g (S_g - n_g r)²/M²,
    written out here; the interval of independent rows is several times narrower."""
    y, mu, sd, _, _, g = _grouped(21, n_groups=150, size=20, icc=0.8)
    models = {"right": uqval.Normal(mu, sd), "narrow": uqval.Normal(mu, 0.7 * sd)}
    res = uqval.compare(models, y_true=y, n_boot=2000, seed=0,
                        groups=np.array([f"s{c}" for c in g]))
    rows = res.scores.loc[("right", "crps")]
    crps = models["right"].crps(y)
    labels = np.unique(g)
    s_g = np.array([crps[g == c].sum() for c in labels])
    n_g = np.array([(g == c).sum() for c in labels])
    r = crps.mean()
    se = np.sqrt(labels.size / (labels.size - 1) * np.sum((s_g - n_g * r) ** 2)) / y.size
    assert rows["value"] == pytest.approx(r)
    assert rows["ci_low"] == pytest.approx(r - 1.96 * se, abs=0.15 * 1.96 * se)
    assert rows["ci_high"] == pytest.approx(r + 1.96 * se, abs=0.15 * 1.96 * se)
    plain = uqval.compare(models, y_true=y, n_boot=2000, seed=0).scores.loc[("right", "crps")]
    assert (rows["ci_high"] - rows["ci_low"]) > 2.0 * (plain["ci_high"] - plain["ci_low"])
    assert res.n_groups == 150 and res.icc == pytest.approx(0.8, abs=0.1)
    assert "150 groups" in res.summary() and "Korn-Graubard over 150 groups" in res.summary()


def test_compare_predictive_coverage_over_groups_is_korn_graubard():
    y, mu, sd, _, _, g = _grouped(22, n_groups=30, size=40, icc=0.8)
    res = uqval.compare({"a": uqval.Normal(mu, sd), "b": uqval.Normal(mu, 1.2 * sd)},
                        y_true=y, n_boot=100, seed=0, groups=g)
    scores = special.ndtri(stats.norm.cdf(y, mu, sd))
    icc = latent_icc(scores, GroupIndex.from_codes(g))
    assert res.icc == pytest.approx(icc)
    for level in (0.5, 0.9):
        hit = np.abs(y - mu) <= sd * special.ndtri(0.5 + level / 2)
        p, low, high, p_value, _ = _korn_graubard(hit, g, level,
                                                  gaussian_indicator_icc(icc, level))
        row = res.coverage.loc[("a", level)]
        assert row["value"] == pytest.approx(p)
        assert (row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
            (low, high, p_value), rel=1e-9)


def test_compare_predictive_grouped_false_alarms_fewer_than_rows():
    """Right predictives in 20 groups of 30 with ICC 0.8: the independent-rows coverage test
    rejects the right model's 90 % intervals often, the grouped one rarely."""
    rows = grouped = 0
    for seed in range(12):
        y, mu, sd, _, _, g = _grouped(100 + seed, n_groups=20, size=30, icc=0.8)
        models = {"a": uqval.Normal(mu, sd), "b": uqval.Normal(mu, 2 * sd)}
        rows += uqval.compare(models, y_true=y, n_boot=50, seed=seed).coverage.loc[
            ("a", 0.9), "p_value"] < 0.05
        grouped += uqval.compare(models, y_true=y, n_boot=50, seed=seed, groups=g).coverage.loc[
            ("a", 0.9), "p_value"] < 0.05
    assert rows >= 4 and grouped <= 1


def test_cli_compare_predictive_with_group(tmp_path, capsys):
    from uqval.cli import main

    y, mu, sd, _, _, g = _grouped(23, n_groups=40, size=10)
    frame = pd.DataFrame({"y": y, "mu": mu, "sd": sd, "wide": 2 * sd,
                          "structure": [f"s{c}" for c in g]})
    path = tmp_path / "pred.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "cmp"
    code = main(["compare", str(path), "--y-true", "y", "--model", "A:normal=mu,sd",
                 "--model", "B:normal=mu,wide", "--group", "structure", "--n-boot", "100",
                 "--out", str(out)])
    assert code == 0
    assert "in 40 groups" in (out / "summary.md").read_text()
    capsys.readouterr()
    code = main(["compare", str(path), "--y-true", "y", "--model", "A:normal=mu,sd",
                 "--model", "B:normal=mu,wide", "--group", "nope", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "no column 'nope'" in err
    assert not (tmp_path / "x").exists()
