"""More draws where a decision sits within their noise of the level (uqval.validation.refinement)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import uqval
from uqval.calibration.joint import joint_calibration
from uqval.validation import refinement


def test_near_level_is_the_clopper_pearson_rule_written_out():
    """alpha in h [lo, hi], [lo, hi] the 99 % Clopper-Pearson interval of k = p (B + 1) - 1
    exceedances in B permutations (scipy's beta quantiles), h the Holm multiplier."""
    b = 999
    for k in range(0, 40):
        p = (k + 1) / (b + 1)
        for h in (1, 2, 5, 8):
            lo = stats.beta.ppf(0.005, k, b - k + 1) if k else 0.0
            hi = stats.beta.ppf(0.995, k + 1, b - k)
            expected = h * lo <= 0.05 <= min(1.0, h * hi)
            assert refinement.near_level(p, min(1.0, h * p), b, 0.05) == expected, (k, h)


def test_refined_seed_does_not_depend_on_spawned_children():
    a = np.random.SeedSequence(5)
    first = refinement.refined_seed(a).generate_state(4)
    a.spawn(3)
    np.testing.assert_array_equal(refinement.refined_seed(a).generate_state(4), first)
    assert not np.array_equal(first, a.generate_state(4))


def _borderline(seed: int = 9):
    """Uncertainties right on average, predictions 0.3 uE too low where x1 > 0.5 (M = 1000):
    a set of this kind whose cumulative test along x1 sits at the Holm threshold with 999
    permutations (p = 0.007 and 0.006 under seeds 0 and 1)."""
    m = 1000
    rng = np.random.default_rng([seed, m, 0, 2, 7])
    u = rng.lognormal(0.0, 0.5, m)
    x1, x2 = rng.uniform(0.0, 1.0, m), rng.normal(size=m)
    e = u * rng.normal(size=m)
    e = np.where(x1 > 0.5, e + 0.3 * u, e)
    return e, u, {"x1": x1, "x2": x2}


def test_a_decision_near_the_level_is_drawn_again_and_no_longer_follows_the_seed():
    e, u, feats = _borderline()
    runs = [uqval.validate(e, u, feats, seed=s, n_ucc_permutations=99) for s in (0, 1)]
    for res in runs:
        assert "9999" in res.parameters["refinement"]
        assert res.parameters["n_permutations"] == 999
        v = res.verdicts
        kuiper = v[(v["feature"] == "x1") & v["scaled"] & (v["statistic"] == "cumulative Kuiper Z")]
        # a p-value from 9999 permutations: (1 + k)/10000
        p = float(kuiper["p_value"].iloc[0])
        assert p * 10000 == pytest.approx(round(p * 10000))
    labels = [dict(zip(r.stages["variable"], r.stages["label"], strict=True)) for r in runs]
    assert labels[0]["x1"] == labels[1]["x1"]


def test_decisions_far_from_the_level_keep_their_first_draws():
    rng = np.random.default_rng(4)
    m = 1500
    u, x = rng.lognormal(0, 0.4, m), rng.uniform(size=m)
    e = u * rng.standard_normal(m) * np.where(x > 0.7, 2.0, 1.0)
    res = uqval.validate(e, u, {"x": x}, seed=0, n_ucc_permutations=99)
    assert "refinement" not in res.parameters
    v = res.verdicts
    p = v.loc[v["scaled"] & (v["stage"] != "average"), "p_value"].dropna()
    assert np.allclose(p * 1000, np.round(p * 1000))  # p-values of 999 permutations


def test_a_joint_test_run_alone_gives_its_numbers_and_keeps_the_other_one():
    """Each kind has its own seeds: spread alone equals spread beside bias, and ``reuse``
    keeps the other kind's test object as it was (nothing fitted for it again)."""
    rng = np.random.default_rng(2)
    m = 600
    u = rng.lognormal(0.0, 0.4, m)
    feats = {"x1": rng.uniform(size=m), "x2": rng.normal(size=m)}
    e = u * rng.standard_normal(m)
    both = joint_calibration(e, u, feats, n_permutations=99, seed=3, n_splits=3)
    alone = joint_calibration(e, u, feats, n_permutations=99, seed=3, n_splits=3,
                              kinds=("spread",), reuse=both)
    assert alone.bias is both.bias
    assert alone.spread.p_value == both.spread.p_value
    assert alone.spread.correlation == both.spread.correlation
    more = joint_calibration(e, u, feats, n_permutations=99, seed=4, n_splits=5,
                             kinds=("bias",), reuse=both)
    assert more.spread is both.spread and more.bias.n_splits == 5
    with pytest.raises(ValueError, match="reuse"):
        joint_calibration(e, u, feats, n_permutations=99, kinds=("bias",))
    with pytest.raises(ValueError, match="kinds"):
        joint_calibration(e, u, feats, n_permutations=99, kinds=("shape",), reuse=both)


def test_only_the_joint_test_near_the_level_gets_more_splits():
    """Errors 1.35x on an xor of two features (M = 600): the spread test's adjusted p-value
    after 10 splits lies in [alpha/3, 3 alpha] (0.08), the bias test's far above (1.0): the
    spread test is run again with 40 splits, the bias test keeps its 10."""
    rng = np.random.default_rng(3)
    m = 600
    u = rng.lognormal(0.0, 0.4, m)
    x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    e = u * rng.standard_normal(m) * np.where((x1 > 0.5) ^ (x2 > 0.5), 1.35, 1.0)
    res = uqval.validate(e, u, {"x1": x1, "x2": x2}, seed=0, n_boot=100, n_permutations=99,
                         n_ucc_permutations=19)
    assert res.joint.spread.n_splits == refinement.JOINT_REFINED_SPLITS
    assert res.joint.bias.n_splits == 10
    assert "spread 40, bias 10 (run again with more splits" in res.parameters["joint"]


def test_a_joint_region_explained_by_the_ranges_of_one_feature_is_not_advised_again():
    """Errors 2.5x larger where x1 > 0.75 only (M = 1000): the range of x1 is advised along
    x1. In these three sets one split's learner also finds a box of x1 and x2 inside that
    range, which was advised as a second factor for the same rows (depending on the seed);
    recalibrated by the bins of x1 its rows are right, so it gets a 'none' row naming x1."""
    for k in (13, 14, 23):
        m = 1000
        rng = np.random.default_rng([k, m, 0, 1, 7])
        u = rng.lognormal(0.0, 0.5, m)
        x1, x2 = rng.uniform(0.0, 1.0, m), rng.normal(size=m)
        e = u * rng.normal(size=m)
        e = np.where(x1 > 0.75, 2.5 * e, e)
        a = uqval.validate(e, u, {"x1": x1, "x2": x2}, seed=0, n_ucc_permutations=99).advice
        assert ((a["stage"] == "adaptivity") & (a["variable"] == "x1")
                & (a["action"] == "recalibrate_per_range")).any()
        # the region is either covered by the range of x1 (no joint row) or said to be
        # explained by it (a 'none' row naming x1); never advised a second factor
        joint = a[a["stage"] == "joint"]
        assert set(joint["action"]) <= {"none"}, joint.to_string()
        assert all("fix x1 first" in reason for reason in joint["reason"])
