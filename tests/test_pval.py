"""Tests for the validation probability p_val (P001 Eq. 21)."""

from __future__ import annotations

import numpy as np
import pytest

from uqval.stats import zscore_statistics as cal
from uqval.stats.binomial import wilson_cc_interval
from uqval.stats.bootstrap import bca_bootstrap
from uqval.stats.pval import validation_probability
from uqval.stats.zeta import zeta_score


def test_counts_and_interval():
    zeta = np.concatenate(
        [np.linspace(-1.0, 1.0, 950), [1.0001, -3.0, np.inf, -np.inf] * 12, [2.0, 5.0]]
    )
    res = validation_probability(zeta)
    assert res.n == 1000 and res.n_valid == 950
    assert res.p_val == pytest.approx(0.95)
    assert (res.ci_low, res.ci_high) == pytest.approx(wilson_cc_interval(950, 1000))
    assert res.ci_low < 0.95 < res.ci_high


def test_all_valid_and_none_valid():
    assert validation_probability(np.zeros(20)).ci_high == 1.0
    none = validation_probability(np.full(20, 2.0))
    assert none.p_val == 0.0 and none.ci_low == 0.0


def test_rejects_nan_and_bad_shapes():
    for bad in ([], [[0.1]], [0.1, np.nan]):
        with pytest.raises(ValueError):
            validation_probability(bad)


def test_calibrated_normal_sets_validate_zms_at_nominal_rate():
    """Small p_val simulation: calibrated normal data, BCa CIs of ZMS (P001 Sect. IV.3)."""
    rng = np.random.default_rng(21)
    seeds = np.random.SeedSequence(22)
    zetas = []
    for _ in range(200):
        ue = rng.uniform(0.5, 2.0, size=200)
        e = ue * rng.normal(size=200)
        res = bca_bootstrap((e, ue), cal.ZMS, n_boot=500, seed=seeds)
        zetas.append(zeta_score(res.estimate, 1.0, res.ci_low, res.ci_high))
    pval = validation_probability(np.array(zetas))
    assert 0.88 <= pval.p_val <= 0.99
