"""Tests for the sliding-window statistics (P000 running quantiles; P003 Fig. 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uqval.stats.robust import hd_quantile
from uqval.stats.running import (
    hd_quantiles_sorted,
    hd_weight_matrix,
    moment_window,
    quantile_window,
    running_mean,
    running_mean_square,
    running_moments_along,
    running_quantiles,
    running_quantiles_along,
    window_positions,
)


def brute_windows(v: np.ndarray, w: int) -> list[np.ndarray]:
    return [v[i : i + w] for i in range(v.size - w + 1)]


def test_window_sizes_follow_the_authors_rules():
    # floor(5000 / ceiling(2 * 5000^0.333)) = floor(5000 / 35) = 142 (ErrViewLib plotEvsPU).
    assert math.ceil(2 * 5000**0.333) == 35
    assert quantile_window(5000) == 142
    assert quantile_window(13885) == 13885 // math.ceil(2 * 13885**0.333)
    assert moment_window(13885) == 138
    assert moment_window(50) == 1
    with pytest.raises(ValueError):
        quantile_window(0)


@pytest.mark.parametrize("w", [1, 7, 50, 300])
def test_running_mean_and_mean_square_match_loops(w):
    v = np.random.default_rng(w).standard_t(3, size=300) * 5 + 2
    # Cumulative-sum differences are accurate to about eps * sum(|v|) in absolute terms.
    tol = 1e-14 * np.sum(v**2) / w
    expected = [x.mean() for x in brute_windows(v, w)]
    np.testing.assert_allclose(running_mean(v, w), expected, rtol=1e-12, atol=tol)
    expected_sq = [np.mean(x**2) for x in brute_windows(v, w)]
    np.testing.assert_allclose(running_mean_square(v, w), expected_sq, rtol=1e-12, atol=tol)
    assert running_mean(v, w).shape == (v.size - w + 1,)


def test_window_positions_midrange_and_mean():
    x = np.sort(np.random.default_rng(1).exponential(size=200))
    w = 13
    mid = [0.5 * (s.min() + s.max()) for s in brute_windows(x, w)]
    assert window_positions(x, w) == pytest.approx(mid, rel=1e-15)
    assert window_positions(x, w, "mean") == pytest.approx(
        [s.mean() for s in brute_windows(x, w)], rel=1e-12
    )
    with pytest.raises(ValueError, match="ascending"):
        window_positions(x[::-1], w)
    with pytest.raises(ValueError, match="position kind"):
        window_positions(x, w, "median")  # type: ignore[arg-type]


def test_hd_weight_matrix_rows_sum_to_one_and_match_hd_quantile():
    probs = [0.025, 0.5, 0.975]
    W = hd_weight_matrix(142, probs)
    assert W.shape == (3, 142)
    assert W.sum(axis=1) == pytest.approx(1.0, abs=1e-12)
    x = np.random.default_rng(2).normal(size=142)
    assert W @ np.sort(x) == pytest.approx(hd_quantile(x, probs), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize(("m", "w"), [(400, 37), (1000, 142), (60, 60), (25, 1)])
def test_running_quantiles_match_hd_quantile_per_window(m, w):
    v = np.random.default_rng(m + w).standard_t(4, size=m)
    probs = (0.025, 0.25, 0.975)
    out = running_quantiles(v, w, probs)
    expected = np.array([hd_quantile(s, probs) for s in brute_windows(v, w)])
    assert out.shape == (m - w + 1, 3)
    np.testing.assert_allclose(out, expected, rtol=1e-11, atol=1e-13)


def test_hd_quantiles_sorted_broadcasts_over_leading_axes():
    x = np.sort(np.random.default_rng(3).normal(size=(4, 5, 30)), axis=-1)
    out = hd_quantiles_sorted(x, [0.1, 0.9])
    assert out.shape == (4, 5, 2)
    assert out[2, 3] == pytest.approx(hd_quantile(x[2, 3], [0.1, 0.9]), rel=1e-12)


def test_running_quantiles_of_standard_normal_are_near_196():
    v = np.random.default_rng(4).standard_normal(5000)
    q = running_quantiles(v, quantile_window(5000))
    # Overlapping windows: about 35 independent ones, so the mean is only rough.
    assert q[:, 0].mean() == pytest.approx(-1.96, abs=0.1)
    assert q[:, 1].mean() == pytest.approx(1.96, abs=0.1)


def test_along_variants_sort_stably_by_x():
    rng = np.random.default_rng(5)
    x = np.round(rng.uniform(0, 3, size=500), 1)  # many ties
    y = rng.normal(size=500)
    # Independent stable ordering: Python's sorted is stable.
    order = np.array(sorted(range(x.size), key=lambda i: x[i]))
    xs, ys = x[order], y[order]
    pos, q = running_quantiles_along(x, y, probs=(0.1, 0.9), window=40)
    assert pos == pytest.approx(window_positions(xs, 40))
    np.testing.assert_allclose(q, running_quantiles(ys, 40, (0.1, 0.9)), rtol=1e-13)
    pos, mean, mean_sq = running_moments_along(x, y)
    assert pos.size == mean.size == mean_sq.size == 500 - 5 + 1
    assert mean == pytest.approx(running_mean(ys, 5))
    assert mean_sq == pytest.approx(running_mean_square(ys, 5))
    pos, q = running_quantiles_along(x, y)
    assert q.shape == (500 - quantile_window(500) + 1, 2)


def test_invalid_inputs_raise():
    v = np.arange(10.0)
    with pytest.raises(ValueError, match="window"):
        running_mean(v, 11)
    with pytest.raises(ValueError, match="window"):
        running_quantiles(v, 0)
    with pytest.raises(ValueError, match="open interval"):
        running_quantiles(v, 3, (0.0, 0.5))
    with pytest.raises(ValueError, match="1-D"):
        running_mean(v.reshape(2, 5), 2)
    with pytest.raises(ValueError, match="equal length"):
        running_quantiles_along(v, v[:-1])
