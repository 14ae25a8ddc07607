"""Recalibration: fitted on one half of a planted dataset, the other half becomes calibrated."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from uqval import recalibration as recalibrate
from uqval import scores
from uqval.stats.bootstrap import bca_bootstrap
from uqval.stats.zscore_statistics import ZMS


def _halves(m, seed):
    idx = np.random.default_rng(seed).permutation(m)
    return idx[: m // 2], idx[m // 2 :]


def _zms_interval(e, u):
    res = bca_bootstrap((e, u), ZMS, n_boot=2000, seed=1)
    return res.ci_low, res.ci_high


@pytest.fixture(scope="module")
def planted():
    """uE underestimated by 1.6 overall, by (1 + 2x) along a feature x, and as uE^1.5."""
    rng = np.random.default_rng(8)
    m = 6000
    u = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, m))
    x = rng.uniform(0.0, 1.0, m)
    eps = rng.standard_normal(m)
    return {"u": u, "x": x, "sigma": 1.6 * u * eps, "binned": (1 + 2 * x) * u * eps,
            "isotonic": u**1.5 * eps}


def test_sigma_scaling_factor_and_transfer(planted):
    u, e = planted["u"], planted["sigma"]
    fit_rows, test_rows = _halves(u.size, 1)
    fit = recalibrate.sigma_scaling(pd.Series(e[fit_rows]), u[fit_rows], n_boot=2000)
    assert fit.factor == pytest.approx(math.sqrt(np.mean((e[fit_rows] / u[fit_rows]) ** 2)))
    assert fit.ci_low < 1.6 < fit.ci_high
    new = fit.apply(u[test_rows])
    low, high = _zms_interval(e[test_rows], new)
    assert low < 1.0 < high
    before = scores.miscalibration_area(e[test_rows], u[test_rows])
    after = scores.miscalibration_area(e[test_rows], new)
    assert after < before / 5


def test_isotonic_fixes_consistency_along_the_uncertainty(planted):
    u, e = planted["u"], planted["isotonic"]
    fit_rows, test_rows = _halves(u.size, 2)
    new = recalibrate.isotonic(e[fit_rows], u[fit_rows]).apply(u[test_rows])
    low, high = _zms_interval(e[test_rows], new)
    assert low < 1.0 < high
    assert np.all(new > 0)
    before = scores.zmse(e[test_rows], u[test_rows], n_bins=10)
    after = scores.zmse(e[test_rows], new, n_bins=10)
    assert after < before / 2
    assert scores.miscalibration_area(e[test_rows], new) < scores.miscalibration_area(
        e[test_rows], u[test_rows])


def test_isotonic_map_is_the_pool_adjacent_violators_solution():
    # E^2 = 4, 1, 9 at uE^2 = 1, 2, 3: PAVA pools the first two -> 2.5, 2.5, 9
    fit = recalibrate.isotonic([2.0, -1.0, 3.0], [1.0, math.sqrt(2.0), math.sqrt(3.0)])
    assert fit.variance_in == pytest.approx([1.0, 2.0, 3.0])
    assert fit.variance_out == pytest.approx([2.5, 2.5, 9.0])
    out = fit.apply([0.5, 1.0, math.sqrt(2.5), 10.0])  # clipped below and above
    assert out == pytest.approx(np.sqrt([2.5, 2.5, 2.5 + 6.5 * 0.5, 9.0]))


def test_binned_scaling_fixes_adaptivity(planted):
    u, e, x = planted["u"], planted["binned"], planted["x"]
    fit_rows, test_rows = _halves(u.size, 3)
    fit = recalibrate.binned_scaling(e[fit_rows], u[fit_rows], x[fit_rows], n_bins=8, n_boot=1000)
    centres = (fit.low + fit.high) / 2
    inside = (fit.ci_low < 1 + 2 * centres) & (1 + 2 * centres < fit.ci_high)
    assert inside.sum() >= 6  # bins hold a range of x, the factor its average
    assert fit.counts.sum() == fit_rows.size
    new = fit.apply(u[test_rows], x[test_rows])
    before = scores.zmse(e[test_rows], u[test_rows], n_bins=8, by=x[test_rows])
    after = scores.zmse(e[test_rows], new, n_bins=8, by=x[test_rows])
    assert after < before / 3
    assert list(fit.bin_of([-5.0, 0.0, 99.0])) == [0, 0, 7]


def test_cross_validate_is_out_of_fold(planted):
    u, e = planted["u"][:500], planted["sigma"][:500]
    out = recalibrate.cross_validate("sigma", e, u, folds=5, seed=4)
    ratio = out / u
    factors = np.unique(np.round(ratio, 12))
    assert factors.size == 5  # one factor per fold
    for f in factors:
        test = np.isclose(ratio, f, rtol=0, atol=1e-11)
        train = ~test
        assert test.sum() == 100
        assert f == pytest.approx(math.sqrt(np.mean((e[train] / u[train]) ** 2)))
    again = recalibrate.cross_validate("sigma", e, u, folds=5, seed=4)
    assert np.array_equal(out, again)
    x = planted["x"][:500]
    binned = recalibrate.cross_validate("binned", e, u, feature=x, folds=2)
    assert binned.shape == u.shape and np.all(binned > 0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="feature"):
        recalibrate.cross_validate("binned", [1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0], folds=2)
    with pytest.raises(ValueError, match="method"):
        recalibrate.cross_validate("nope", [1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0], folds=2)
    with pytest.raises(ValueError, match="all zero"):
        recalibrate.isotonic([0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="uncertainties"):
        recalibrate.sigma_scaling([1.0, 2.0], [1.0, -1.0])
