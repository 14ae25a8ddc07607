"""Tests for the Uncertainty Characteristics Curve (P004 Sect. 2; docs/choices.md)."""

from __future__ import annotations

import numpy as np
import pytest

from uqval.ucc import (
    AXES,
    PredictionIntervals,
    auucc,
    auucc_gain,
    auucc_permutation_test,
    constant_band,
    critical_scales,
    linear_cost,
    metrics_at_scale,
    min_cost,
    operating_point,
    partial_auucc,
    partial_auucc_gain,
    scale_for_miss_rate,
    ucc_curve,
    ucc_metrics,
)

# --- brute-force Algorithm 1 (P004 App. 7), O(N^2) ----------------------------------------


def metrics_from_bounds(y, y_pred, z_lower, z_upper, k: float) -> tuple[float, ...]:
    """Eqs 1, 2, 8, 9 at scale k from the bounds ŷ − k ẑ^l, ŷ + k ẑ^u, over all points.

    Excess/deficit as UQ360: distance to the bound of the active side (z ≥ 0: upper).
    ``tol`` absorbs the rounding of k_i ẑ_i when k is a point's own critical scale.
    """
    lower, upper = y_pred - k * z_lower, y_pred + k * z_upper
    tol = 1e-9 * (1.0 + np.abs(y))
    inside = (y >= lower - tol) & (y <= upper + tol)
    room = np.where(y - y_pred >= 0.0, upper - y, y - lower)  # > 0 inside the active bound
    return (
        float(np.mean(~inside)),
        float(np.mean(upper - lower) / 2.0),
        float(np.mean(np.where(inside, np.maximum(room, 0.0), 0.0))),
        float(np.mean(np.where(inside, 0.0, np.maximum(-room, 0.0)))),
    )


def algorithm1(y, y_pred, z_lower, z_upper) -> np.ndarray:
    """Rows (k_i, miss rate, bandwidth, excess, deficit), one per point, sorted by k."""
    z = y - y_pred
    k_crit = np.where(z >= 0.0, z / z_upper, -z / z_lower)
    rows = [(k, *metrics_from_bounds(y, y_pred, z_lower, z_upper, k)) for k in k_crit]
    return np.array(sorted(rows, key=lambda r: r[0]))


def random_case(seed: int, n: int = 300, kind: str = "continuous"):
    """(y, PredictionIntervals): asymmetric bands; "dyadic" gives many exact ties and z = 0."""
    rng = np.random.default_rng(seed)
    if kind == "dyadic":
        y = rng.integers(-16, 17, n) / 8.0
        y_pred = rng.integers(-8, 9, n) / 8.0
        zl, zu = rng.integers(1, 9, n) / 4.0, rng.integers(1, 9, n) / 4.0
        y[:20] = y_pred[:20]  # zero errors: k = 0
    else:
        y_pred = rng.normal(size=n)
        y = y_pred + rng.normal(size=n) * rng.uniform(0.2, 2.0, n)
        zl, zu = rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 3.0, n)
        dup = rng.choice(n, 30, replace=False)  # exact duplicates of 30 points
        y[:30], y_pred[:30], zl[:30], zu[:30] = y[dup], y_pred[dup], zl[dup], zu[dup]
        y_pred[30:50] = 0.0  # z = y exactly: doubled errors and bands give exactly tied k
        y[30:40] = 2.0 * y[40:50]
        zl[30:40], zu[30:40] = 2.0 * zl[40:50], 2.0 * zu[40:50]
    return y, PredictionIntervals.from_half_widths(y_pred, zl, zu)


@pytest.mark.parametrize("kind", ["continuous", "dyadic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_ucc_matches_algorithm1(kind, seed):
    y, pi = random_case(seed, kind=kind)
    ref = algorithm1(y, pi.y_pred, pi.z_lower, pi.z_upper)
    assert np.unique(ref[:, 0]).size < ref.shape[0]  # the case has ties
    m = ucc_metrics(y, pi)
    fast = np.column_stack([m.k, m.miss_rate, m.bandwidth, m.excess, m.deficit])
    np.testing.assert_allclose(fast, ref, rtol=0.0, atol=1e-12)
    for x_axis, y_axis in [("bandwidth", "miss_rate"), ("excess", "deficit")]:
        curve = ucc_curve(y, pi, x_axis, y_axis)
        ix, iy = 1 + AXES.index(x_axis), 1 + AXES.index(y_axis)
        assert auucc(curve) == pytest.approx(np.trapezoid(ref[:, iy], ref[:, ix]), abs=1e-12)


@pytest.mark.parametrize("kind", ["continuous", "dyadic"])
def test_metrics_at_arbitrary_scales_match_bounds(kind):
    y, pi = random_case(3, kind=kind)
    scales = np.array([0.0, 0.05, 0.37, 1.0, 1.9, 4.0, 50.0])
    m = metrics_at_scale(y, pi, scales)
    ref = np.array([metrics_from_bounds(y, pi.y_pred, pi.z_lower, pi.z_upper, k) for k in scales])
    fast = np.column_stack([m.miss_rate, m.bandwidth, m.excess, m.deficit])
    np.testing.assert_allclose(fast, ref, rtol=0.0, atol=1e-12)


def test_tie_rule_counts_all_tied_points():
    """Lemma 1: at a tied critical scale every tied point is captured."""
    y = np.array([1.0, 2.0, -3.0, 0.5])
    pi = PredictionIntervals.from_half_widths(
        np.zeros(4), [1.0, 1.0, 3.0, 1.0], [1.0, 2.0, 1.0, 1.0]
    )
    np.testing.assert_array_equal(critical_scales(y, pi), [1.0, 1.0, 1.0, 0.5])
    m = ucc_metrics(y, pi)
    np.testing.assert_array_equal(m.k, [0.5, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(m.miss_rate, [0.75, 0.0, 0.0, 0.0])


# --- inputs -------------------------------------------------------------------------------


def test_constructors_and_validation():
    pi = PredictionIntervals.from_bounds([1.0, 2.0], [0.5, 1.0], [2.0, 2.5])
    np.testing.assert_array_equal(pi.z_lower, [0.5, 1.0])
    np.testing.assert_array_equal(pi.z_upper, [1.0, 0.5])
    sym = PredictionIntervals.from_uncertainty([0.0, 1.0], [0.5, 2.0], coverage_factor=2.0)
    np.testing.assert_array_equal(sym.z_lower, [1.0, 4.0])
    np.testing.assert_array_equal(sym.z_upper, [1.0, 4.0])
    lo, hi = sym.bounds(0.5)
    np.testing.assert_array_equal(lo, [-0.5, -1.0])
    np.testing.assert_array_equal(hi, [0.5, 3.0])
    with pytest.raises(ValueError, match="strictly positive"):
        PredictionIntervals.from_half_widths([0.0, 1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        ucc_curve([1.0, 2.0, 3.0], sym)
    with pytest.raises(ValueError, match="must differ"):
        ucc_curve([1.0, 2.0], sym, "excess", "excess")


# --- invariances --------------------------------------------------------------------------


def _same_curve(a, b, rtol=1e-12):
    np.testing.assert_allclose(a.x, b.x, rtol=rtol, atol=1e-13)
    np.testing.assert_allclose(a.y, b.y, rtol=rtol, atol=1e-13)


@pytest.mark.parametrize(
    "axes", [("bandwidth", "miss_rate"), ("excess", "deficit"), ("excess", "miss_rate")]
)
def test_constant_band_ucc_does_not_depend_on_the_constant(axes):
    y, pi = random_case(4)
    _same_curve(
        ucc_curve(y, constant_band(pi.y_pred, 0.3), *axes),
        ucc_curve(y, constant_band(pi.y_pred, 7.0), *axes),
    )


@pytest.mark.parametrize(
    "axes", [("bandwidth", "miss_rate"), ("excess", "deficit"), ("bandwidth", "deficit")]
)
def test_ucc_is_invariant_to_scaling_all_bands(axes):
    """Every metric depends on k ẑ only: scaling ẑ by s maps k_i to k_i/s, same UCC points."""
    y, pi = random_case(5)
    s = 3.7
    scaled = PredictionIntervals.from_half_widths(pi.y_pred, s * pi.z_lower, s * pi.z_upper)
    a, b = ucc_curve(y, pi, *axes), ucc_curve(y, scaled, *axes)
    _same_curve(a, b)
    np.testing.assert_allclose(b.k * s, a.k, rtol=1e-12)


def test_normalised_ucc_is_invariant_to_units():
    """y, ŷ -> a y + b and ẑ -> a ẑ: raw bandwidth scales by a, the sd-normalised UCC is unchanged."""
    rng = np.random.default_rng(6)  # no ties: rounding of the change of units cannot reorder k
    y_pred = rng.normal(size=300)
    y = y_pred + rng.normal(size=300)
    pi = PredictionIntervals.from_half_widths(
        y_pred, rng.uniform(0.1, 2, 300), rng.uniform(0.1, 3, 300)
    )
    a, b = 12.5, -3.0
    moved = PredictionIntervals.from_half_widths(a * pi.y_pred + b, a * pi.z_lower, a * pi.z_upper)
    for axes in [("bandwidth", "miss_rate"), ("excess", "deficit")]:
        _same_curve(
            ucc_curve(y, pi, *axes, normalize="std"),
            ucc_curve(a * y + b, moved, *axes, normalize="std"),
            rtol=1e-9,
        )
    raw, raw_moved = ucc_curve(y, pi), ucc_curve(a * y + b, moved)
    np.testing.assert_allclose(raw_moved.x, a * raw.x, rtol=1e-9)
    assert auucc(ucc_curve(a * y + b, moved, "excess", "deficit")) == pytest.approx(
        a**2 * auucc(ucc_curve(y, pi, "excess", "deficit")), rel=1e-9
    )


def test_eps_perfect_band_has_near_zero_excess_deficit_area():
    rng = np.random.default_rng(7)
    y_pred = rng.normal(size=500)
    y = y_pred + rng.normal(size=500)
    eps = 1e-3
    perfect = PredictionIntervals.from_half_widths(y_pred, np.abs(y - y_pred) + eps)
    a_perfect = auucc(ucc_curve(y, perfect, "excess", "deficit"))
    a_const = auucc(ucc_curve(y, constant_band(y_pred), "excess", "deficit"))
    assert a_perfect < 1e-3 * a_const
    assert a_perfect < 2 * eps


# --- areas and gains ----------------------------------------------------------------------


def test_rectangle_rule_is_mean_data_induced_bandwidth():
    """Prop. 1 / Eq. 15 without ties: S(N) = (1/N) Σ_{i<N} β(k'_i) (summation by parts)."""
    rng = np.random.default_rng(8)
    y_pred = rng.normal(size=200)
    y = y_pred + rng.normal(size=200)
    pi = PredictionIntervals.from_half_widths(
        y_pred, rng.uniform(0.5, 2, 200), rng.uniform(0.5, 2, 200)
    )
    curve = ucc_curve(y, pi)
    assert auucc(curve, "rectangle") == pytest.approx(curve.x[:-1].sum() / 200, rel=1e-12)
    b = np.concatenate([[0.0], curve.x])
    assert auucc(curve, "rectangle") == pytest.approx(np.sum(curve.y * np.diff(b)), rel=1e-12)
    with pytest.raises(ValueError, match="rectangle"):
        auucc(ucc_curve(y, pi, "miss_rate", "bandwidth"), "rectangle")


def test_trapezoid_area_with_swapped_axes():
    """|trapz| handles decreasing x; discrete integration by parts links the two areas:
    ∫β dρ (miss rate on x) = ∫ρ dβ + β(k'_1) ρ(k'_1), since the curve ends at ρ = 0."""
    y, pi = random_case(9)
    curve = ucc_curve(y, pi, "bandwidth", "miss_rate")
    swapped = ucc_curve(y, pi, "miss_rate", "bandwidth")
    assert auucc(swapped) == pytest.approx(auucc(curve) + curve.x[0] * curve.y[0], rel=1e-12)


def test_gain_formula():
    assert auucc_gain(0.138, 0.209) == pytest.approx((0.209 - 0.138) / 0.209 * 100)
    assert auucc_gain(0.733, 0.597) == pytest.approx(-22.78, abs=0.01)  # Eq. 6 gives this, not the printed -31.5
    with pytest.raises(ValueError):
        auucc_gain(1.0, 0.0)


def test_partial_auucc():
    y, pi = random_case(10)
    for axes in [("bandwidth", "miss_rate"), ("excess", "deficit")]:
        curve = ucc_curve(y, pi, *axes)
        full = auucc(curve)
        assert partial_auucc(curve, (0.0, 1.0)) == pytest.approx(full, rel=1e-12)
        assert partial_auucc(curve, (0.0, 1.0), "nearest") == pytest.approx(full, rel=1e-12)
        split = partial_auucc(curve, (0.0, 0.3)) + partial_auucc(curve, (0.3, 1.0))
        assert split == pytest.approx(full, rel=1e-12)
        assert partial_auucc(curve, (0.2, 0.2)) == 0.0
    # hand-made polyline: points (x, ρ) = (1, 0.75), (2, 0.5), (4, 0.0)
    tiny = PredictionIntervals.from_half_widths(np.zeros(4), np.ones(4))
    curve = ucc_curve(np.array([1.0, 2.0, 4.0, 4.0]), tiny)
    np.testing.assert_allclose(curve.x, [1.0, 2.0, 4.0, 4.0])
    np.testing.assert_allclose(curve.y, [0.75, 0.5, 0.0, 0.0])
    # ρ in [0.25, 0.6]: x from 1.6 (ρ = 0.6) via (2, 0.5) to 3 (ρ = 0.25)
    expected = (0.6 + 0.5) / 2 * 0.4 + (0.5 + 0.25) / 2 * 1.0
    assert partial_auucc(curve, (0.25, 0.6)) == pytest.approx(expected, rel=1e-12)
    # nearest points to 0.25 and 0.6: (2, 0.5) [first of the ties at |d| = 0.25] and (2, 0.5)
    assert partial_auucc(curve, (0.25, 0.6), "nearest") == 0.0
    # limits beyond the curve are clipped, no extension to ρ = 1
    assert partial_auucc(curve, (0.0, 1.0)) == pytest.approx(auucc(curve), rel=1e-12)
    const = ucc_curve(np.array([1.0, 2.0, 4.0, 4.0]), constant_band(np.zeros(4), 2.0))
    assert partial_auucc_gain(curve, const, (0.25, 0.6)) == pytest.approx(0.0, abs=1e-12)


# --- costs and operating points -----------------------------------------------------------


def test_remark2_cost_is_half_mae_for_symmetric_bands():
    """c = 0.5 on excess–deficit with symmetric bands: C(k) = ½ (1/N) Σ |d_i − k ẑ_i|."""
    rng = np.random.default_rng(11)
    y_pred = rng.normal(size=400)
    y = y_pred + rng.standard_t(3, 400)
    z = rng.uniform(0.1, 2.0, 400)
    pi = PredictionIntervals.from_half_widths(y_pred, z)
    d = np.abs(y_pred - y)
    curve = ucc_curve(y, pi, "excess", "deficit")
    mae = np.mean(np.abs(d[None, :] - curve.k[:, None] * z[None, :]), axis=1)
    np.testing.assert_allclose(linear_cost(curve, 0.5), 0.5 * mae, rtol=1e-12, atol=1e-14)
    for k in [0.0, 0.3, 1.7, 10.0]:
        op = operating_point(y, pi, k, "excess", "deficit", c=0.5)
        assert op.cost == pytest.approx(0.5 * np.mean(np.abs(d - k * z)), rel=1e-12, abs=1e-14)


def test_min_cost_is_global_in_excess_deficit():
    y, pi = random_case(12, kind="dyadic")
    curve = ucc_curve(y, pi, "excess", "deficit")
    m0 = metrics_at_scale(y, pi, 0.0)
    assert (curve.origin.x, curve.origin.y) == (
        m0.excess[0],
        pytest.approx(m0.deficit[0], rel=1e-12),
    )
    assert curve.origin.miss_rate == m0.miss_rate[0] < 1.0  # the dyadic case has z = 0 points
    for c in [0.1, 0.5, 0.9]:
        best = min_cost(curve, c)
        assert best.cost <= linear_cost(curve, c).min()
        op = operating_point(y, pi, best.k, "excess", "deficit", c=c)
        assert op.cost == pytest.approx(best.cost, abs=1e-12)
        grid = np.linspace(0.0, 2.0 * curve.k[-1], 2001)
        m = metrics_at_scale(y, pi, grid)
        assert best.cost <= np.min(c * m.excess + (1 - c) * m.deficit) + 1e-12


def test_scale_for_miss_rate():
    y, pi = random_case(13)
    for target in [0.0, 0.05, 0.2, 0.5, 1.0]:
        k = scale_for_miss_rate(y, pi, target)
        assert metrics_at_scale(y, pi, k).miss_rate[0] <= target + 1e-12
        smaller = np.sort(critical_scales(y, pi))
        smaller = smaller[smaller < k]
        if smaller.size:
            assert metrics_at_scale(y, pi, smaller[-1]).miss_rate[0] > target
    y_n = np.arange(1.0, 101.0)
    pi_n = constant_band(np.zeros(100))
    assert scale_for_miss_rate(y_n, pi_n, 0.05) == 95.0  # 95 of 100 points captured


def test_normalised_operating_point():
    y, pi = random_case(14)
    unit = float(np.std(y))
    raw = operating_point(y, pi, 1.0, "bandwidth", "miss_rate", c=0.1)
    norm = operating_point(y, pi, 1.0, "bandwidth", "miss_rate", c=0.1, normalize="std")
    assert norm.x == pytest.approx(raw.x / unit)
    assert norm.y == raw.y == raw.miss_rate
    assert norm.cost == pytest.approx(0.1 * raw.x / unit + 0.9 * raw.y)


# --- permutation test ---------------------------------------------------------------------


def test_permutation_identical_models_give_p_one():
    y, pi = random_case(15)
    res = auucc_permutation_test(y, pi, pi, n_permutations=200, seed=1)
    assert res.delta == 0.0
    assert res.p_value == 1.0


def test_permutation_detects_a_clearly_better_model():
    """Excess–deficit: calibrated heteroscedastic bands beat the constant band.

    Bandwidth–miss rate: AUUCC ≈ mean(k_i) mean(w_i) (Prop. 1), so the gain over the constant
    is ≈ Cov(k, w)/mean|z|; calibrated bands (k independent of ẑ) gain nothing there, while
    under-dispersed bands ẑ ∝ √sd (Cov > 0) do.
    """
    rng = np.random.default_rng(16)
    n = 500
    sd = np.exp(0.7 * rng.normal(size=n))
    y_pred = rng.normal(size=n)
    y = y_pred + sd * rng.normal(size=n)
    const = constant_band(y_pred)
    calibrated = PredictionIntervals.from_uncertainty(y_pred, sd, 2.0)
    shrunk = PredictionIntervals.from_uncertainty(y_pred, np.sqrt(sd))
    results = {}
    for good, axes in [(calibrated, ("excess", "deficit")), (shrunk, ("bandwidth", "miss_rate"))]:
        res = auucc_permutation_test(y, good, const, *axes, n_permutations=999, seed=2)
        assert res.delta < 0
        # exact permutation p-values (2e5 permutations): 0.0016 (Ex-De), 5e-6 (Bw-MR)
        assert res.p_value <= 0.005
        assert res.auucc_a == pytest.approx(auucc(ucc_curve(y, good, *axes)), rel=1e-12)
        assert res.auucc_b == pytest.approx(auucc(ucc_curve(y, const, *axes)), rel=1e-12)
        results[axes] = res
    # swapping unaligned bands (a constant of 1 vs 2 sd) widens the null: less power
    aligned = results[("excess", "deficit")]
    literal = auucc_permutation_test(
        y, calibrated, const, "excess", "deficit", n_permutations=999, seed=2, align="none"
    )
    assert literal.delta == pytest.approx(aligned.delta, rel=1e-12)
    assert np.std(literal.null_deltas) > 1.3 * np.std(aligned.null_deltas)
    gain = auucc_gain(auucc(ucc_curve(y, calibrated)), auucc(ucc_curve(y, const)))
    assert abs(gain) < 10.0


def test_permutation_p_values_under_the_null_are_spread():
    """Exchangeable bands (same distribution for A and B): p-values roughly uniform."""
    p = []
    for rep in range(40):
        rng = np.random.default_rng(100 + rep)
        n = 80
        y_pred = rng.normal(size=n)
        y = y_pred + rng.normal(size=n)
        a = PredictionIntervals.from_half_widths(y_pred, rng.uniform(0.5, 2.0, n))
        b = PredictionIntervals.from_half_widths(y_pred, rng.uniform(0.5, 2.0, n))
        p.append(auucc_permutation_test(y, a, b, n_permutations=199, seed=rep).p_value)
    p = np.array(p)
    assert 0.3 < p.mean() < 0.7
    assert np.mean(p <= 0.1) <= 0.25


def test_permutation_is_seeded_and_normalisation_only_rescales():
    y, pi = random_case(17)
    const = constant_band(pi.y_pred)
    r1 = auucc_permutation_test(y, pi, const, "excess", "deficit", n_permutations=300, seed=5)
    r2 = auucc_permutation_test(
        y,
        pi,
        const,
        "excess",
        "deficit",
        normalize="std",
        n_permutations=300,
        seed=5,
    )
    unit = float(np.std(y))
    assert r2.p_value == r1.p_value
    np.testing.assert_allclose(r2.null_deltas * unit**2, r1.null_deltas, rtol=1e-9, atol=1e-15)
    assert r2.delta * unit**2 == pytest.approx(r1.delta, rel=1e-12)


def _tie_case(n=400, seed=21):
    """Rounded errors and bands: many tied critical scales within and across models."""
    rng = np.random.default_rng(seed)
    u = np.round(rng.lognormal(0.0, 0.5, n), 1) + 0.1
    y = np.round(u * rng.normal(size=n), 1)
    zero = np.zeros(n)
    return y, {
        "band": PredictionIntervals.from_uncertainty(zero, u),
        "asymmetric": PredictionIntervals.from_half_widths(zero, u, np.round(1.3 * u, 1) + 0.1),
        "constant": constant_band(zero),
    }


@pytest.mark.parametrize(
    ("axes", "rule"),
    [
        (("bandwidth", "miss_rate"), "trapezoid"),
        (("bandwidth", "miss_rate"), "rectangle"),
        (("miss_rate", "bandwidth"), "trapezoid"),
        (("excess", "deficit"), "trapezoid"),
        (("deficit", "excess"), "trapezoid"),
    ],
)
@pytest.mark.parametrize("pair", [("band", "constant"), ("asymmetric", "constant"),
                                  ("band", "asymmetric")])
def test_permutation_closed_forms_equal_sorting_every_permuted_ucc(axes, rule, pair):
    """Same swaps, two computations: closed forms (ucc_swap) and a sort of each permuted UCC."""
    y, models = _tie_case()
    a, b = (models[name] for name in pair)
    fast = auucc_permutation_test(y, a, b, *axes, rule=rule, n_permutations=300, seed=4)
    slow = auucc_permutation_test(
        y, a, b, *axes, rule=rule, n_permutations=300, seed=4, algorithm="sort"
    )
    assert fast.algorithm.startswith("closed form") and slow.algorithm.startswith("sort")
    np.testing.assert_allclose(
        fast.null_deltas, slow.null_deltas, rtol=0, atol=1e-12 * np.abs(slow.null_deltas).max()
    )
    assert fast.p_value == slow.p_value
    assert (fast.auucc_a, fast.auucc_b) == (slow.auucc_a, slow.auucc_b)


def test_permutation_bands_differing_by_a_global_factor_tie():
    """u vs 1.5 u: identical UCCs, Δ is rounding noise (~1e-16) and must give p = 1."""
    rng = np.random.default_rng(8)
    n = 500
    u = rng.lognormal(0.0, 0.5, n)
    y = u * rng.normal(size=n)
    a = PredictionIntervals.from_uncertainty(np.zeros(n), u)
    b = PredictionIntervals.from_uncertainty(np.zeros(n), 1.5 * u)
    for axes in [("bandwidth", "miss_rate"), ("excess", "deficit")]:
        for align in ("median", "none"):
            res = auucc_permutation_test(y, a, b, *axes, n_permutations=999, seed=3, align=align)
            assert abs(res.delta) < 1e-12 * res.auucc_a
            assert res.p_value == 1.0


def _null_case(rep, n=60):
    """Bands of A and B drawn from the same distribution, independent of the errors."""
    rng = np.random.default_rng(1000 + rep)
    y = rng.normal(size=n) * rng.lognormal(0.0, 0.3, n)
    a = PredictionIntervals.from_half_widths(np.zeros(n), rng.uniform(0.5, 2.0, n))
    b = PredictionIntervals.from_half_widths(np.zeros(n), rng.uniform(0.5, 2.0, n))
    return y, a, b


@pytest.mark.parametrize("axes", [("bandwidth", "miss_rate"), ("excess", "deficit")])
@pytest.mark.parametrize("exceedances", [None, 10])
def test_permutation_p_values_are_uniform_under_the_null(axes, exceedances):
    """300 null datasets (M = 60): Kolmogorov–Smirnov against U(0, 1), fixed and sequential.

    Both p-values are exact on their discrete support (P(p ≤ v) = v at every support value
    v), so a p-value drawn uniformly between its support value and the next lower one is
    exactly U(0, 1): that randomised value goes to the KS test (the support h/l of the
    sequential rule is coarse near 1). Lower neighbour: h/(l + 1) after a sequential stop at
    l, else p − 1/(B + 1).
    """
    from scipy.stats import kstest

    p, lower = [], []
    for rep in range(300):
        y, a, b = _null_case(rep)
        res = auucc_permutation_test(
            y, a, b, *axes, n_permutations=499, seed=rep, exceedances=exceedances
        )
        p.append(res.p_value)
        stopped = res.n_permutations < res.max_permutations
        lower.append(exceedances / (res.n_permutations + 1) if stopped else res.p_value - 1 / 500)
    p, lower = np.array(p), np.array(lower)
    randomised = lower + (p - lower) * np.random.default_rng(0).random(p.size)
    assert kstest(randomised, "uniform").pvalue > 0.01
    assert np.mean(p <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / p.size)


def test_permutation_sequential_rule_keeps_power_and_stops_early_under_the_null():
    """Besag–Clifford (h = 20): clear differences still reach p ≤ 0.002; null stops early."""
    rng = np.random.default_rng(16)
    n = 500
    sd = np.exp(0.7 * rng.normal(size=n))
    y = sd * rng.normal(size=n)
    zero = np.zeros(n)
    calibrated = PredictionIntervals.from_uncertainty(zero, sd, 2.0)
    shrunk = PredictionIntervals.from_uncertainty(zero, np.sqrt(sd))
    for good, axes in [(calibrated, ("excess", "deficit")), (shrunk, ("bandwidth", "miss_rate"))]:
        res = auucc_permutation_test(y, good, constant_band(zero), *axes, n_permutations=2000,
                                     seed=2, exceedances=20)
        assert res.p_value <= 0.011 and res.delta < 0
    y0, a, b = _null_case(7, n=500)
    null = auucc_permutation_test(y0, a, b, n_permutations=10_000, seed=1, exceedances=20)
    assert null.n_permutations < 1000 and null.max_permutations == 10_000
    assert null.p_value == 20 / null.n_permutations and null.null_deltas.size == null.n_permutations


@pytest.mark.parametrize("n", [40, 5000])
def test_permutation_results_do_not_depend_on_threads(n):
    rng = np.random.default_rng(n)
    u = rng.lognormal(0.0, 0.5, n)
    y = u * rng.normal(size=n)
    a = PredictionIntervals.from_uncertainty(np.zeros(n), u)
    b = constant_band(np.zeros(n))
    calls = []
    for axes in [("bandwidth", "miss_rate"), ("excess", "deficit")]:
        for h in (None, 5):
            one, two = (
                auucc_permutation_test(y, a, b, *axes, n_permutations=600, seed=9, exceedances=h,
                                       n_workers=w, progress=lambda d, t: calls.append((d, t)))
                for w in (1, 2)
            )
            np.testing.assert_array_equal(one.null_deltas, two.null_deltas)
            assert one.p_value == two.p_value and one.n_permutations == two.n_permutations
    assert calls and all(0 < d <= t == 600 for d, t in calls)


# --- experiments and figures (reduced sizes) ----------------------------------------------


def test_xsinx_experiment_smoke(tmp_path):
    from uqval.papers.ucc.experiments import (
        GBRSettings,
        _curves_frame,
        run_xsinx,
        table3,
        xsinx_summary,
    )
    from uqval.papers.ucc.figures import fig_xsinx_data, fig_xsinx_ucc
    from uqval.plots.style import save

    small = GBRSettings(n_estimators=20, max_depth=3)
    res = run_xsinx(
        seed=1,
        n_train=300,
        n_test=120,
        n_heldout=120,
        tuned=small,
        weak=GBRSettings(5, 2),
        n_permutations=20,
    )
    t3 = table3(res.summary, 0.1)
    assert list(t3.index) == ["GBR", "Constant", "GBR-Weak", "Random", "Eps-Perfect"]
    assert t3.shape == (5, 7)
    assert t3.loc["Eps-Perfect", "Ex-De AUUCC"] < 0.01 * t3.loc["Constant", "Ex-De AUUCC"]
    const = res.summary[res.summary["model"] == "Constant"]
    assert np.allclose(const["auucc_gain"], 0.0)
    assert (res.summary["opt_cost"] <= res.summary["cost"] + 1e-12).all()
    assert len(res.permutation) == 20 and res.permutation["p_value"].between(0, 1).all()
    frame = _curves_frame(res.curves)
    assert len(frame) == 5 * 2 * 120
    save(fig_xsinx_ucc(res.curves, res.operating_points), tmp_path / "ucc.png")
    save(fig_xsinx_data(res.data, res.models["GBR"].test), tmp_path / "data.png")
    assert (tmp_path / "ucc.png").stat().st_size > 0
    # One operating point per model and c, tuned on the held-out Ex-De cost (P004 Table 3
    # reading, docs/paper_inconsistencies.md): both coordinate systems share its scale.
    by = res.summary.set_index(["model", "c", "coordinates"])["k_op"].unstack("coordinates")
    assert np.array_equal(by["Bw-MR"].to_numpy(), by["Ex-De"].to_numpy())
    own = xsinx_summary(res.data, res.models, (0.1,), tune_on=None)
    own_by = own.set_index(["model", "coordinates"])["k_op"].unstack("coordinates")
    assert np.allclose(own_by["Ex-De"], by.xs(0.1, level="c")["Ex-De"].loc[own_by.index])
    assert not np.allclose(own_by["Bw-MR"], own_by["Ex-De"])
    with pytest.raises(ValueError, match="tune_on"):
        xsinx_summary(res.data, res.models, (0.1,), tune_on="bogus")  # type: ignore[arg-type]


def test_gp_example_smoke(tmp_path):
    from uqval.papers.ucc.experiments import GBRSettings, gp_example
    from uqval.papers.ucc.figures import fig_gp_intervals, fig_gp_ucc
    from uqval.plots.style import save

    ex = gp_example(seed=2, n_grid=150, n_train_per_region=20, gbr=GBRSettings(20, 3))
    assert list(ex.summary["model"]) == ["GP", "GBR-QR"]
    for model, const in ex.intervals.values():
        for pi in (model, const):  # calibrated to a 5 % miss rate on the test grid
            assert metrics_at_scale(ex.f, pi, 1.0).miss_rate[0] <= 0.05
    save(fig_gp_intervals(ex), tmp_path / "gp.png")
    save(fig_gp_ucc(ex), tmp_path / "gp_ucc.png")


def test_min_cost_can_be_at_zero_scale():
    """Bandwidth–miss rate in raw units with c = 0.5: C(0) = ½ ρ(0) beats every k'_j."""
    rng = np.random.default_rng(18)
    y_pred = rng.normal(size=100)
    y = y_pred + 10.0 * rng.normal(size=100)
    curve = ucc_curve(y, constant_band(y_pred))
    best = min_cost(curve, 0.5)
    assert best.k == 0.0 and best.x == 0.0 and best.miss_rate == 1.0
    assert best.cost == 0.5 < linear_cost(curve, 0.5).min()


def test_gbr_bands_targets():
    """ls: ŷ from a least-squares GBR; median: the sorted α = 0.5 quantile; shared: given ŷ."""
    from sklearn.ensemble import GradientBoostingRegressor

    from uqval.papers.ucc.experiments import GBRSettings, gbr_bands, quantile_gbr

    rng = np.random.default_rng(4)
    x = rng.uniform(0, 10, 300)
    y = x * np.sin(x) + rng.normal(0, 1.5, x.size)
    grid = np.linspace(0, 10, 50)
    settings = GBRSettings(n_estimators=30, max_depth=3)
    ls = GradientBoostingRegressor(loss="squared_error", **settings.__dict__).fit(x[:, None], y)
    lo, median, hi = quantile_gbr(x, y, [grid], settings)[0]
    (band,) = gbr_bands(x, y, [grid], settings, "ls")
    np.testing.assert_array_equal(band.y_pred, ls.predict(grid[:, None]))
    inside = (lo < band.y_pred) & (band.y_pred < hi)
    np.testing.assert_allclose(band.y_pred[inside] - band.z_lower[inside], lo[inside])
    np.testing.assert_allclose(band.y_pred[inside] + band.z_upper[inside], hi[inside])
    assert (band.z_lower > 0).all() and (band.z_upper > 0).all()
    (band,) = gbr_bands(x, y, [grid], settings, "median")
    np.testing.assert_array_equal(band.y_pred, np.sort([lo, median, hi], axis=0)[1])
    shared = np.zeros_like(grid) + 0.25
    (band,) = gbr_bands(x, y, [grid], settings, "median", y_pred=[shared])
    np.testing.assert_array_equal(band.y_pred, shared)


def test_xsinx_models_share_the_target():
    from uqval.papers.ucc.experiments import GBRSettings, xsinx_data, xsinx_models

    data = xsinx_data(seed=3, n_train=200, n_test=60, n_heldout=60)
    small = GBRSettings(n_estimators=10, max_depth=2)
    for target in ("ls", "median"):
        models = xsinx_models(data, 3, tuned=small, weak=GBRSettings(5, 2), target=target)
        for m in models.values():
            np.testing.assert_array_equal(m.test.y_pred, models["GBR"].test.y_pred)
    with pytest.raises(ValueError, match="target"):
        xsinx_models(data, 3, tuned=small, target="mean")
