"""The compiled polar samplers of N(0, 1) and t_s(nu) (uqval.stats.variate_kernel).

Checked against an independent replay of their stream (NumPy's own SFC64 bit generator and
the textbook formulas in NumPy) and against the distributions themselves (SciPy's CDFs).
"""

import math

import numpy as np
import pytest
from scipy import stats

from uqval.stats.synthetic import GenerativeDistribution, rt_unit_variance
from uqval.stats.variate_kernel import polar_pairs, stream_state, unit_normal, unit_t


def replayed_pairs(seed: int, n_raw: int):
    """Accepted (a, b, w) from NumPy's SFC64, seeded as stream_state documents."""
    entropy = np.random.default_rng(seed).integers(0, 2**63, size=4, dtype=np.int64)
    raw = np.random.SFC64(np.random.SeedSequence([int(v) for v in entropy])).random_raw(n_raw)
    u = (raw >> np.uint64(11)) * 2.0**-52 - 1.0
    a, b = u[0::2], u[1::2]
    w = a * a + b * b
    keep = (w > 0.0) & (w < 1.0)
    return a[keep], b[keep], w[keep]


def test_pairs_are_the_sfc64_stream_inside_the_unit_disc():
    a, b, w = replayed_pairs(3, 4000)
    got = polar_pairs(stream_state(np.random.default_rng(3)), 1000)
    for mine, ref in zip(got, (a, b, w), strict=True):
        np.testing.assert_array_equal(mine, ref[:1000])
    assert 0.74 < a.size / 2000 < 0.83  # acceptance pi/4


def test_normal_is_marsaglias_polar_transform_bit_for_bit():
    a, b, w = replayed_pairs(11, 4000)
    f = np.sqrt(-2.0 * np.log(w) / w)
    expected = np.empty(2 * a.size)
    expected[0::2], expected[1::2] = a * f, b * f
    got = unit_normal(np.random.default_rng(11), 1001)
    np.testing.assert_array_equal(got, expected[:1001])


@pytest.mark.parametrize("nu", [2.5, 3.0, 6.0, 1e9])
def test_t_is_baileys_polar_transform_bit_for_bit(nu):
    a, _, w = replayed_pairs(5, 4000)
    expected = a * np.sqrt((nu - 2.0) * np.expm1((-2.0 / nu) * np.log(w)) / w)
    np.testing.assert_array_equal(unit_t(np.random.default_rng(5), nu, 1000), expected[:1000])


@pytest.mark.parametrize("nu", [2.5, 3.0, 4.0, 6.0, 12.0, 50.0])
def test_t_follows_the_unit_variance_student_distribution(nu):
    x = unit_t(np.random.default_rng(int(nu * 10)), nu, 300_000)
    scale = math.sqrt((nu - 2.0) / nu)
    # KS at level 1e-4: a wrong transform (e.g. t(nu + 1)) fails by orders of magnitude
    assert stats.kstest(x / scale, stats.t(nu).cdf).pvalue > 1e-4
    if nu > 4.0:  # finite fourth moment: the variance converges at the usual rate
        se = math.sqrt((stats.t(nu).stats(moments="k") + 2.0) / x.size)
        assert abs(x.var() - 1.0) < 5.0 * se


def test_wrong_nu_would_be_detected():
    x = unit_t(np.random.default_rng(60), 6.0, 300_000) / math.sqrt(4.0 / 6.0)
    assert stats.kstest(x, stats.t(4.0).cdf).pvalue < 1e-6


def test_normal_follows_n01_with_independent_neighbours():
    x = unit_normal(np.random.default_rng(2), 1_000_000)
    assert stats.kstest(x, "norm").pvalue > 1e-4
    assert abs(x.mean()) < 5e-3 and abs(x.var() - 1.0) < 7e-3
    for lag in (1, 2):  # a and b of one pair, and across pairs
        assert abs(np.corrcoef(x[:-lag], x[lag:])[0, 1]) < 5e-3


def test_huge_nu_is_the_normal():
    x = unit_t(np.random.default_rng(8), 1e12, 300_000)
    assert np.isfinite(x).all()
    assert stats.kstest(x, "norm").pvalue > 1e-4


def test_same_generator_state_same_values_and_four_integers_consumed():
    rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
    np.testing.assert_array_equal(unit_t(rng1, 6.0, (3, 7)), unit_t(rng2, 6.0, (3, 7)))
    reference = np.random.default_rng(9)
    reference.integers(0, 2**63, size=4, dtype=np.int64)
    assert rng1.integers(0, 2**63) == reference.integers(0, 2**63)


def test_shapes_and_bad_arguments():
    rng = np.random.default_rng(0)
    assert unit_normal(rng, (2, 3, 5)).shape == (2, 3, 5)
    assert unit_normal(rng, 0).shape == (0,)
    assert unit_t(rng, 6.0, (0, 4)).shape == (0, 4)
    with pytest.raises(ValueError, match="negative"):
        unit_normal(rng, (-1, 3))
    for nu in (2.0, 1.5, math.inf, math.nan):
        with pytest.raises(ValueError, match="nu"):
            unit_t(rng, nu, 3)


def test_generative_distributions_use_the_polar_samplers():
    x = GenerativeDistribution("t", 6.0).draw(np.random.default_rng(4), (2, 5))
    np.testing.assert_array_equal(x, unit_t(np.random.default_rng(4), 6.0, (2, 5)))
    n = GenerativeDistribution("normal").draw(np.random.default_rng(4), 7)
    np.testing.assert_array_equal(n, unit_normal(np.random.default_rng(4), 7))
    np.testing.assert_array_equal(rt_unit_variance(np.random.default_rng(4), math.inf, 7), n)
