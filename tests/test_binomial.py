"""Tests for the Wilson and Wilson-cc binomial intervals (Newcombe 1998 methods 3 and 4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

from uqval.stats.binomial import wilson_cc_interval, wilson_interval

Z95 = stats.norm.ppf(0.975)

# Newcombe (1998) Stat. Med. 17:857, Table I: 95% limits for four worked examples.
NEWCOMBE_TABLE1 = [
    # x, n, Wilson (method 3), Wilson with continuity correction (method 4)
    (81, 263, (0.2553, 0.3662), (0.2535, 0.3682)),
    (15, 148, (0.0624, 0.1605), (0.0598, 0.1644)),
    (0, 20, (0.0000, 0.1611), (0.0000, 0.2005)),
    (1, 29, (0.0061, 0.1718), (0.0018, 0.1963)),
]


@pytest.mark.parametrize(("x", "n", "wilson", "wilson_cc"), NEWCOMBE_TABLE1)
def test_newcombe_table1(x, n, wilson, wilson_cc):
    assert wilson_interval(x, n) == pytest.approx(wilson, abs=5e-5)
    assert wilson_cc_interval(x, n) == pytest.approx(wilson_cc, abs=5e-5)


def score_root(x: int, n: int, cc: float, side: str) -> float:
    """Solve |p_hat - p| - cc = z sqrt(p (1 - p)/n) for p on one side of p_hat."""
    p_hat = x / n

    def f(p):
        return abs(p_hat - p) - cc - Z95 * np.sqrt(p * (1 - p) / n)

    if side == "low":
        return 0.0 if p_hat - cc <= 0 else optimize.brentq(f, 0.0, p_hat - cc, xtol=1e-14)
    return 1.0 if p_hat + cc >= 1 else optimize.brentq(f, p_hat + cc, 1.0, xtol=1e-14)


@pytest.mark.parametrize(("x", "n"), [(1, 5), (3, 10), (50, 100), (950, 1000), (7, 2000), (19, 20)])
def test_intervals_invert_the_score_test(x, n):
    """Wilson: |p_hat - p| = z se(p); Wilson-cc: |p_hat - p| - 1/(2n) = z se(p)."""
    assert wilson_interval(x, n) == pytest.approx(
        (score_root(x, n, 0.0, "low"), score_root(x, n, 0.0, "high")), abs=1e-10
    )
    cc = 0.5 / n
    assert wilson_cc_interval(x, n) == pytest.approx(
        (score_root(x, n, cc, "low"), score_root(x, n, cc, "high")), abs=1e-10
    )


def test_vectorised_properties():
    n = np.array([1, 2, 10, 10, 10, 37, 1000, 1000])
    x = np.array([0, 1, 0, 4, 10, 20, 950, 1000])
    p = x / n
    for func in (wilson_interval, wilson_cc_interval):
        low, high = func(x, n)
        assert low.shape == high.shape == x.shape
        assert np.all((low >= 0) & (high <= 1) & (low <= p) & (p <= high))
        mirror_low, mirror_high = func(n - x, n)
        np.testing.assert_allclose(low, 1 - mirror_high, atol=1e-12)
        np.testing.assert_allclose(high, 1 - mirror_low, atol=1e-12)
    w_low, w_high = wilson_interval(x, n)
    c_low, c_high = wilson_cc_interval(x, n)
    assert np.all((c_low <= w_low + 1e-15) & (c_high >= w_high - 1e-15))


def test_confidence_level_and_validation():
    narrow = wilson_interval(30, 100, confidence=0.68)
    wide = wilson_interval(30, 100, confidence=0.99)
    assert wide[0] < narrow[0] < 0.3 < narrow[1] < wide[1]
    for x, n in [(-1, 10), (11, 10), (1, 0), (1.5, 10)]:
        with pytest.raises(ValueError):
            wilson_cc_interval(x, n)
    with pytest.raises(ValueError):
        wilson_interval(1, 10, confidence=1.0)
