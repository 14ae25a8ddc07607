"""Bin-free and joint conditional tests: kernels against brute force, size on calibrated
sets, an interaction that no single feature shows found and located, categorical features."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import uqval
from uqval.calibration.cumulative import cumulative_test
from uqval.calibration.heldout import permutation_p as _permutation_p
from uqval.calibration.isotonic import mcb_permutation_test, qlike_decomposition
from uqval.calibration.joint import joint_calibration
from uqval.validation.binfree import binfree_tests, cumulative_null, kuiper

FAST = {"n_boot": 200, "n_permutations": 199, "n_ucc_permutations": 99}


def max_rejections(n: int, level: float = 0.05, tail: float = 1e-3) -> int:
    """Largest rejection count among n tests of size <= level not rejected at ``tail``."""
    return int(stats.binom.ppf(1.0 - tail, n, level))


def xor_set(m: int, seed: int, n_noise: int = 1):
    """uE lognormal; uncertainties 2x too small where (x1 > 0.5) xor (x2 > 0.5)."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    u = rng.lognormal(0.0, 0.4, m)
    e = u * rng.standard_normal(m)
    xor = (x1 > 0.5) ^ (x2 > 0.5)
    e[xor] *= 2.0
    feats = {"x1": x1, "x2": x2} | {f"n{j}": rng.normal(size=m) for j in range(n_noise)}
    return e, u, feats, xor


# --- kernels against brute force ------------------------------------------------------------


def test_permuted_dot_kernel_has_the_exact_permutation_moments():
    """Permutation distribution of sum p_i y_pi(i) (centred): mean 0, variance
    sum(p^2) sum(y^2)/(m - 1) (a closed form of sampling without replacement)."""
    rng = np.random.default_rng(0)
    m = 50
    p, y = rng.normal(size=m), rng.exponential(size=m)
    pc, yc = p - p.mean(), y - y.mean()
    null = np.empty(20_000)
    from uqval.calibration.heldout import CHUNK, _permuted_dots
    from uqval.stats.resample_kernel import sfc64_state

    seeds = np.random.SeedSequence(1).spawn(len(range(0, null.size, CHUNK)))
    for k, start in enumerate(range(0, null.size, CHUNK)):
        _permuted_dots(yc, pc, sfc64_state(seeds[k]), null[start : start + CHUNK])
    var = np.dot(pc, pc) * np.dot(yc, yc) / (m - 1)
    assert abs(null.mean()) < 4 * np.sqrt(var / null.size)
    assert null.var() == pytest.approx(var, rel=0.05)
    # and the p-value of the fixed predictions against themselves is the smallest one
    r, pv = _permutation_p(p, p, 99, np.random.SeedSequence(2))
    assert r == pytest.approx(1.0) and pv == pytest.approx(0.01)


def test_shared_cumulative_null_matches_the_one_variable_test():
    """The compiled null (one permutation set for all variables) has the distribution of the
    null of :func:`cumulative_test` (NumPy shuffles): two-sample KS on the Kuiper values."""
    rng = np.random.default_rng(3)
    m = 300
    u = rng.uniform(0.5, 2.0, m)
    e = u * rng.standard_t(5, m)
    z = e / u
    ours = cumulative_null(z, 2000, seed=4)
    sigma = np.sqrt(np.sum(np.square(np.square(z) - np.mean(np.square(z))))) / m
    theirs = cumulative_test(e, u, n_permutations=2000, seed=5).null
    # rounded: the point mass at max(d)/(m sigma) is summed in another order by each
    assert stats.ks_2samp(np.round(ours[:, 0] / m / sigma, 9), np.round(theirs, 9)).pvalue > 0.001
    # observed statistics are the same numbers as the reference implementation's
    x = rng.uniform(size=m)
    d = np.column_stack([np.square(z) - 1, z])
    obs = kuiper((d - d.mean(axis=0))[np.argsort(x, kind="stable")])
    (row,), _ = binfree_tests(z, u, [x], n_permutations=99, seed=0)
    for j, kind in enumerate(("spread", "bias")):
        ref = cumulative_test(e, u, x, kind=kind, n_permutations=9, seed=0)
        assert row[2 * j] == pytest.approx(ref.value, rel=1e-9)
        assert obs[j] / m / ref.scale == pytest.approx(ref.value, rel=1e-9)


def test_mcb_permutation_statistic_is_the_mcb_of_the_scaled_uncertainties():
    rng = np.random.default_rng(6)
    u = rng.uniform(0.5, 2.0, 500)
    e = 1.7 * u * rng.standard_normal(500)
    s = np.sqrt(np.mean(np.square(e / u)))
    test = mcb_permutation_test(e, u, n_permutations=19)
    assert test.miscalibration == pytest.approx(qlike_decomposition(e, u * s).miscalibration,
                                                rel=1e-9)


# --- size on calibrated data ---------------------------------------------------------------


def test_mcb_and_cumulative_tests_keep_their_size_with_heavy_tails():
    """60 calibrated sets with Student t(3) errors (the simulated p-value of the isotonic
    reliability assumes a shape; these permutation tests do not)."""
    rejections = np.zeros(3, dtype=int)
    n = 60
    for k in range(n):
        rng = np.random.default_rng(100 + k)
        u = rng.lognormal(0.0, 0.5, 400)
        e = u * rng.standard_t(3, 400)
        (row,), (_, p_mcb, _, _) = binfree_tests(e / u, u, [u], n_permutations=99, seed=k)
        rejections += np.array([row[1], row[3], p_mcb]) <= 0.05
    assert (rejections <= max_rejections(n)).all(), rejections


def test_joint_test_is_not_fooled_by_calibrated_sets():
    """40 calibrated sets (M = 2000; normal and t(6) errors; 3 features, one correlated with
    uE): the rejection counts at 5 % are binomially compatible with a size <= 5 %."""
    n = 40
    rejections = np.zeros(2, dtype=int)
    for k in range(n):
        rng = np.random.default_rng(1000 + k)
        m = 2000
        u = rng.lognormal(0.0, 0.4, m)
        d = rng.standard_normal(m) if k % 2 else rng.standard_t(6, m) / np.sqrt(1.5)
        feats = {"x1": np.log(u) + rng.normal(size=m), "x2": rng.uniform(size=m),
                 "x3": rng.normal(size=m)}
        res = joint_calibration(u * d, u, feats, n_permutations=99, seed=k)
        rejections += np.array([res.spread.p_value, res.bias.p_value]) <= 0.05
    assert (rejections <= max_rejections(n)).all(), rejections


# --- an interaction no single feature shows --------------------------------------------------


@pytest.fixture(scope="module")
def xor_result():
    e, u, feats, xor = xor_set(6000, seed=11)
    return uqval.validate(e, u, feats, seed=2, **FAST), xor


def test_xor_is_found_by_the_joint_stage_only(xor_result):
    res, _ = xor_result
    s = res.stage_verdicts
    assert s["joint"] == "fail"
    assert s["adaptivity: x1"] == "pass" and s["adaptivity: x2"] == "pass"
    v = res.verdicts
    joint = v[(v["stage"] == "joint") & v["scaled"]]
    assert set(joint["statistic"]) == {"joint boosting Z²", "joint boosting Z"}
    spread = joint[joint["statistic"] == "joint boosting Z²"].iloc[0]
    assert spread["verdict"] == "fail" and spread["effect"] == "relevant"
    assert joint[joint["statistic"] == "joint boosting Z"].iloc[0]["verdict"] == "pass"


def test_xor_is_located_in_the_features_units(xor_result):
    res, xor = xor_result
    a = res.advice
    rows = a[(a["stage"] == "joint") & (a["action"] == "recalibrate_per_range")]
    assert not rows.empty
    assert "region" in a.columns
    top = rows.loc[rows["factor"].idxmax()]
    assert "x1" in top["region"] and "x2" in top["region"]
    # the region lies inside the xor and its factor is the planted one for the given uE
    region = res.joint.spread.high
    assert xor[region.mask].mean() > 0.9 and region.share > 0.1
    assert top["factor"] == pytest.approx(2.0, rel=0.1)
    assert region.ci_low * res.parameters["conditional_scaling"] < 2.0 < \
        region.ci_high * res.parameters["conditional_scaling"] * 1.05
    summary = res.summary()
    assert "All features together: **not right**" in summary and top["region"] in summary


def test_joint_stage_is_skipped_with_one_feature():
    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 2.0, 400)
    e = u * rng.standard_normal(400)
    res = uqval.validate(e, u, {"x": rng.uniform(size=400)}, **FAST)
    assert "joint" not in set(res.verdicts["stage"]) and res.joint is None
    assert res.parameters["joint"].startswith("skipped")
    assert "joint stage): skipped" in res.summary()


def test_categorical_and_constant_features():
    """A level of a categorical feature, crossed with x > 0.5, holds uncertainties 2.5x too
    small; the region names the level; a constant column is dropped and listed."""
    rng = np.random.default_rng(21)
    m = 6000
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], m))
    x = rng.uniform(size=m)
    u = rng.lognormal(0.0, 0.3, m)
    e = u * rng.standard_normal(m)
    bad = (np.asarray(colour) == "green") & (x > 0.5)
    e[bad] *= 2.5
    frame = pd.DataFrame({"colour": colour, "x": x, "same": 1.0})
    res = joint_calibration(e, u, frame, n_permutations=99, seed=0)
    assert res.dropped == ("same",) and res.features == ("colour", "x")
    high = res.spread.high
    assert "colour in {green}" in high.description and "x >" in high.description
    assert bad[high.mask].mean() > 0.9
    with pytest.raises(ValueError, match="at least 2 non-constant"):
        joint_calibration(e, u, frame[["x", "same"]])


# --- bin-free rows in the engine ---------------------------------------------------------------


def test_narrow_range_fails_along_its_feature_with_a_located_range():
    """Uncertainties 3x too small on 3 % of the x range: the stage fails, the cumulative
    test sees it, and the advice names a range of x that holds the planted one."""
    rng = np.random.default_rng(8)
    m = 8000
    x = rng.uniform(size=m)
    u = rng.lognormal(0.0, 0.4, m)
    e = u * rng.standard_normal(m)
    narrow = (x > 0.40) & (x < 0.43)
    e[narrow] *= 3.0
    res = uqval.validate(e, u, {"x": x, "w": rng.normal(size=m)}, seed=1, **FAST)
    v = res.verdicts
    cum = v[(v["feature"] == "x") & v["scaled"] & (v["statistic"] == "cumulative Kuiper Z²−1")]
    assert cum.iloc[0]["verdict"] == "fail" and cum.iloc[0]["effect"] == "relevant"
    a = res.advice
    ranged = a[(a["variable"] == "x") & (a["action"] == "recalibrate_per_range")]
    top = ranged.loc[ranged["factor"].idxmax()]
    assert 0.38 <= top["low"] <= 0.41 and 0.42 <= top["high"] <= 0.45
    assert top["factor"] == pytest.approx(3.0, rel=0.25)


# --- repeated splits --------------------------------------------------------------------------


def test_split_aggregation_is_twice_the_lower_median_and_keeps_its_size():
    """min(1, 2 p_(ceil(K/2))) (Meinshausen, Meier & Bühlmann 2009) written out, and its size
    on K strongly dependent uniform p-values (a shared and an own normal part): <= alpha."""
    from uqval.calibration.joint import aggregate_split_p_values

    assert aggregate_split_p_values([0.3, 0.01, 0.2, 0.04, 0.9]) == 0.4  # 3rd of 5, doubled
    assert aggregate_split_p_values([0.6, 0.7]) == 1.0
    assert aggregate_split_p_values([0.03]) == 0.03
    rng = np.random.default_rng(4)
    draws, k = 20_000, 10
    latent = 0.8 * rng.normal(size=(draws, 1)) + 0.6 * rng.normal(size=(draws, k))
    p = stats.norm.sf(latent)  # each column uniform, columns dependent
    agg = np.array([aggregate_split_p_values(row) for row in p])
    rate = np.mean(agg <= 0.05)
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / draws), rate


def test_repeated_splits_aggregate_the_splits_and_keep_the_first_splits_numbers():
    e, u, feats, _ = xor_set(1500, seed=3)
    one = joint_calibration(e, u, feats, n_permutations=99, seed=5, n_splits=1)
    many = joint_calibration(e, u, feats, n_permutations=99, seed=5, n_splits=6)
    for a, b in ((one.spread, many.spread), (one.bias, many.bias)):
        assert a.n_splits == 1 and b.n_splits == 6
        assert a.p_value == min(1.0, 2 * min(a.p_halves)) == a.p_splits[0] == b.p_splits[0]
        assert b.p_value == min(1.0, 2 * sorted(b.p_splits)[2])
        assert b.p_value in {min(1.0, 2 * p) for p in b.p_splits}
    assert len(set(many.bias.p_splits)) > 1  # the splits differ (no bias: p-values vary)
    assert max(many.spread.p_splits) <= 0.05  # the xor is found on every split


def test_sequential_permutation_p_uses_the_first_permutations_of_the_fixed_rule():
    """Besag-Clifford stopping of a half's permutation test (large sets): p = h/l at the h-th
    exceedance, l counted in the fixed rule's own permutations (a fresh seed per call:
    spawning mutates a SeedSequence) (so the fixed rule with l
    permutations sees exactly h exceedances); without a stop, the fixed p-value."""

    rng = np.random.default_rng(4)
    y = rng.standard_normal(3000)
    stopped = 0
    for pred in (rng.standard_normal(3000), y + rng.standard_normal(3000),
                 0.03 * y + rng.standard_normal(3000)):
        r_fixed, p_fixed = _permutation_p(pred, y, 999, np.random.SeedSequence(9))
        r_seq, p_seq = _permutation_p(pred, y, 999, np.random.SeedSequence(9), exceedances=20)
        assert r_seq == r_fixed
        if p_seq == p_fixed:
            assert p_fixed * 1000 - 1 < 20 or p_fixed * 1000 - 1 == 20
            continue
        stopped += 1
        first = round(20 / p_seq)
        assert _permutation_p(pred, y, first, np.random.SeedSequence(9))[1] == pytest.approx(21 / (first + 1))
    assert stopped >= 1
    rejections = sum(_permutation_p(rng.standard_normal(500), rng.standard_normal(500), 999,
                                    np.random.SeedSequence(k), exceedances=20)[1] <= 0.05
                     for k in range(200))
    assert rejections <= 20  # 5 % of 200 = 10; P(Binomial(200, 0.05) > 20) < 0.002


def _region_mask(description: str, features: dict[str, np.ndarray]) -> np.ndarray:
    """Rows a region's text selects, read back from the text alone (written without uqval)."""
    mask = np.ones(len(next(iter(features.values()))), dtype=bool)
    for part in description.split(" and "):
        bits = part.split()
        if len(bits) == 5:  # "a < x ≤ b"
            x = features[bits[2]]
            mask &= (x > float(bits[0])) & (x <= float(bits[4]))
        elif bits[1] == ">":
            mask &= features[bits[0]] > float(bits[2])
        else:
            assert bits[1] == "≤", part
            mask &= features[bits[0]] <= float(bits[2])
    return mask


def test_region_text_selects_exactly_its_rows_when_values_are_close():
    """A distance whose values come in tied clusters 0.0002-0.002 apart (rows that share a
    nearest training point), on a span of 1.5: the printed bounds keep enough decimals that
    reading the text back selects the region's rows, not those of the next cluster."""
    rng = np.random.default_rng(5)
    m = 3000
    clusters = np.sort(np.concatenate([rng.uniform(1.8, 3.3, 40),
                                       2.4616 + np.cumsum(rng.uniform(2e-4, 2e-3, 20))]))
    d = rng.choice(clusters, m)
    ram = rng.choice([2.0, 4.0, 8.0, 16.0], m)
    u = rng.lognormal(0.0, 0.3, m)
    e = u * rng.standard_normal(m)
    e[(d > 2.4616) & (d < 2.4616 + 0.01) & (ram >= 8)] *= 2.5
    feats = {"distance": d, "ram": ram}
    res = joint_calibration(e, u, feats, n_permutations=99, seed=0)
    for region in (res.spread.high, res.spread.low):
        assert np.array_equal(_region_mask(region.description, feats), region.mask), \
            region.description
