"""Tests of uqval.binning (P000 App. B; P003 Sect. III.B.3)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SHARED_DATA, require_shared_data
from uqval.binning import (
    StratifiedBinning,
    adaptive_bins,
    bin_sizes,
    equal_count_bins,
    equal_count_boundaries,
    equal_width_bins,
    random_order_bins,
    sort_order,
    sqrt_bin_count,
    stratified_bins,
)

PAL2022 = SHARED_DATA / "PAL2022"

HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------
# Helpers and brute-force references (plain loops, following the algorithm text literally)
# --------------------------------------------------------------------------------------


def assert_partition(bins, m: int) -> None:
    allidx = np.concatenate(bins) if bins else np.array([], dtype=int)
    assert allidx.size == m
    assert np.array_equal(np.sort(allidx), np.arange(m))
    assert all(b.size > 0 for b in bins)
    assert all(np.issubdtype(b.dtype, np.integer) for b in bins)


def assert_sorted_bins(x, bins) -> None:
    """Bins are in increasing-x order and sorted inside."""
    x = np.asarray(x)
    prev_max = -np.inf
    for b in bins:
        xb = x[b]
        assert np.all(np.diff(xb) >= 0)
        assert xb[0] >= prev_max
        prev_max = xb[-1]


def as_sets(bins):
    return [sorted(b.tolist()) for b in bins]


def ref_stable_order(x):
    """Stable sort written out: sort (value, input position) pairs."""
    return [i for _, i in sorted((float(v), i) for i, v in enumerate(x))]


def ref_equal_count(x, n):
    """Sorted position k goes to bin i with b_i <= k < b_{i+1}, b_i = round-half-up(M*i/n)."""
    order = ref_stable_order(x)
    m = len(order)
    bounds = [math.floor(Fraction(m * i, n) + Fraction(1, 2)) for i in range(n + 1)]
    bins = [[] for _ in range(n)]
    for k, idx in enumerate(order):
        for i in range(n):
            if bounds[i] <= k < bounds[i + 1]:
                bins[i].append(idx)
    return bins


def ref_grid_limits(xs, n, log):
    if log:
        lo, hi = math.log(xs[0]), math.log(xs[-1])
    else:
        lo, hi = xs[0], xs[-1]
    step = (hi - lo) / n
    lims = [lo + j * step for j in range(n)]
    if log:
        lims = [math.exp(v) for v in lims]
    return lims


def ref_equal_width(x, n, log=False):
    """Point goes to the last bin j whose lower limit L_j <= x; empty bins dropped."""
    order = ref_stable_order(x)
    xs = [float(x[i]) for i in order]
    lims = ref_grid_limits(xs, n, log)
    bins = [[] for _ in range(n)]
    for k, idx in enumerate(order):
        j = 0
        for jj in range(1, n):
            if xs[k] >= lims[jj]:
                j = jj
        bins[j].append(idx)
    return [b for b in bins if b]


def ref_gen_intervals(x, n_bin, pop_min=30, log_bin=True):
    """Literal transcription of ErrViewLib genIntervals(equiPop = FALSE) (1-based indices)."""
    big_n = len(x)
    if big_n / n_bin < pop_min:
        n_bin = math.floor(big_n / pop_min)
    n_bin0 = n_bin
    order = ref_stable_order(x)
    x_ord = [float(x[i]) for i in order]
    lims = ref_grid_limits(x_ord, n_bin, log_bin)
    lwindx = [None] * (n_bin + 1)
    upindx = [None] * (n_bin + 1)
    lwindx[1] = 1
    for i in range(2, n_bin + 1):
        lwindx[i] = next(k + 1 for k, v in enumerate(x_ord) if v >= lims[i - 1])
        upindx[i - 1] = lwindx[i] - 1
    upindx[n_bin] = big_n
    lw, up = lwindx[1:], upindx[1:]  # back to python lists of 1-based indices
    pop = [u - lo + 1 for lo, u in zip(lw, up, strict=True)]
    while any(p < pop_min for p in pop):
        for i in range(len(lw) - 1):
            if pop[i] >= pop_min:
                continue
            up[i] = up[i + 1]
            up[i + 1] = 0
            lw[i + 1] = 0
            break
        lw = [v for v in lw if v != 0]
        up = [v for v in up if v != 0]
        pop = [u - lo + 1 for lo, u in zip(lw, up, strict=True)]
        if pop[-1] < pop_min:
            up[-2] = up[-1]
            lw, up = lw[:-1], up[:-1]
            pop = [u - lo + 1 for lo, u in zip(lw, up, strict=True)]
    pop_max = max(math.floor(big_n / n_bin0), 2 * pop_min)
    while any(p > pop_max for p in pop):
        for i in range(len(lw)):
            if pop[i] <= pop_max:
                continue
            new_up = lw[i] + pop[i] // 2
            lw.insert(i + 1, new_up + 1)
            up.insert(i, new_up)
            break
        pop = [u - lo + 1 for lo, u in zip(lw, up, strict=True)]
    return [[order[k - 1] for k in range(lo, u + 1)] for lo, u in zip(lw, up, strict=True)]


def ref_strat_agg(x, pop_min):
    """Literal transcription of ErrViewLib stratAgg(greedy = TRUE); returns bins, values, counts."""
    xl = [float(v) for v in x]
    values = sorted(set(xl))
    counts = [sum(1 for v in xl if v == u) for u in values]
    while sum(1 for c in counts if c < pop_min) != 0 and len(counts) > 1:
        first = next(i for i, c in enumerate(counts) if c < pop_min)
        if first == 0:
            j = first + 1
        elif first == len(counts) - 1:
            j = first - 1
        else:
            j = first - 1 if counts[first - 1] < counts[first + 1] else first + 1
        seli = [v == values[first] for v in xl]
        selj = [v == values[j] for v in xl]
        values[first] = (counts[first] * values[first] + counts[j] * values[j]) / (
            counts[first] + counts[j]
        )
        counts[first] = counts[first] + counts[j]
        counts[j] = 0
        for k in range(len(xl)):
            if seli[k] or selj[k]:
                xl[k] = values[first]
        keep = [c != 0 for c in counts]
        values = [v for v, s in zip(values, keep, strict=True) if s]
        counts = [c for c, s in zip(counts, keep, strict=True) if s]
    bins = [[k for k in range(len(xl)) if xl[k] == v] for v in values]
    return bins, values, counts


# Hypothesis strategies: arrays with many ties (small integer grid) or continuous values.
tied_arrays = (
    st.integers(min_value=1, max_value=400)
    .flatmap(lambda m: st.lists(st.integers(min_value=1, max_value=25), min_size=m, max_size=m))
    .map(lambda v: np.array(v, dtype=float) / 7.0)
)
positive_floats = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)
cont_arrays = st.lists(positive_floats, min_size=1, max_size=400).map(np.array)
any_arrays = st.one_of(tied_arrays, cont_arrays)


# --------------------------------------------------------------------------------------
# Equal-count bins
# --------------------------------------------------------------------------------------


def test_equal_count_qm9_sizes():
    rng = np.random.default_rng(0)
    x = rng.lognormal(size=13885)
    bins = equal_count_bins(x, 100)
    sizes = bin_sizes(bins)
    assert len(bins) == 100
    assert set(sizes.tolist()) <= {138, 139}
    assert_partition(bins, 13885)
    assert_sorted_bins(x, bins)


def test_equal_count_boundaries_rule():
    b = equal_count_boundaries(10, 4)  # 2.5 -> 3, 5, 7.5 -> 8
    assert b.tolist() == [0, 3, 5, 8, 10]
    assert equal_count_boundaries(5000, 15)[1] == 333
    with pytest.raises(ValueError):
        equal_count_boundaries(5, 6)
    with pytest.raises(ValueError):
        equal_count_boundaries(5, 0)


def test_equal_count_matches_hd_of_index_vector():
    """Boundaries equal the authors' HD-quantile rule except at exact half-integers."""
    from uqval.stats.robust import hd_quantile

    for m, n in [(2040, 10), (2040, 40), (3818, 50), (5000, 15), (1000, 7), (13885, 117)]:
        p = np.arange(n) / n
        br = hd_quantile(np.arange(1, m + 1, dtype=float), p)
        starts = np.floor(br).astype(int)  # 0-based start = first k (1-based) with k > br, minus 1
        starts[0] = 0
        ours = equal_count_boundaries(m, n)[:-1]
        half = (2 * m * np.arange(n)) % (2 * n) == n
        assert np.array_equal(starts[~half], ours[~half])


@HYP
@given(x=any_arrays, data=st.data())
def test_equal_count_vs_reference(x, data):
    n = data.draw(st.integers(min_value=1, max_value=x.size))
    bins = equal_count_bins(x, n)
    assert_partition(bins, x.size)
    sizes = bin_sizes(bins)
    assert sizes.max() - sizes.min() <= 1
    assert [b.tolist() for b in bins] == ref_equal_count(x, n)


def test_stable_ties_keep_input_order():
    x = np.array([2.0, 1.0, 2.0, 1.0, 2.0, 1.0])
    assert sort_order(x).tolist() == [1, 3, 5, 0, 2, 4]
    bins = equal_count_bins(x, 4)  # sizes 2, 1, 2, 1 (bounds 0, 2, 3, 5, 6)
    assert [b.tolist() for b in bins] == [[1, 3], [5], [0, 2], [4]]


def test_random_order_bins():
    rng = np.random.default_rng(1)
    xd = rng.normal(size=500)
    # distinct x: identical to nominal equal-count bins
    a = random_order_bins(xd, 10, rng=np.random.default_rng(5))
    assert [b.tolist() for b in a] == [b.tolist() for b in equal_count_bins(xd, 10)]
    # stratified x: same sizes, partition, sorted bins; tie-breaking changes with the draw
    xs = np.round(rng.uniform(0, 1, size=500), 1)
    r1 = random_order_bins(xs, 20, rng=1)
    r2 = random_order_bins(xs, 20, rng=2)
    for r in (r1, r2):
        assert_partition(r, 500)
        assert_sorted_bins(xs, r)
        assert bin_sizes(r).tolist() == bin_sizes(equal_count_bins(xs, 20)).tolist()
    assert as_sets(r1) != as_sets(r2)
    assert [b.tolist() for b in random_order_bins(xs, 20, rng=1)] == [b.tolist() for b in r1]
    # equivalent to R order(X, aux = sample(M)): ties ordered by aux
    aux = np.random.default_rng(3).permutation(500)
    r3 = random_order_bins(xs, 20, rng=3)
    order = np.concatenate(r3)
    keys = list(zip(xs[order], aux[order], strict=True))
    assert keys == sorted(keys)


# --------------------------------------------------------------------------------------
# Equal-width bins
# --------------------------------------------------------------------------------------


@HYP
@given(x=any_arrays, n=st.integers(min_value=1, max_value=30), log=st.booleans())
def test_equal_width_vs_reference(x, n, log):
    bins = equal_width_bins(x, n, log=log)
    assert_partition(bins, x.size)
    assert_sorted_bins(x, bins)
    assert len(bins) <= n
    assert [b.tolist() for b in bins] == ref_equal_width(x, n, log)


def test_equal_width_simple_and_errors():
    x = np.array([0.0, 0.1, 0.2, 0.9, 1.0, 10.0])
    bins = equal_width_bins(x, 10)  # Delta = 1: [0,1) holds 4 points, [1,2) one, last one
    assert [b.tolist() for b in bins] == [[0, 1, 2, 3], [4], [5]]
    with pytest.raises(ValueError):
        equal_width_bins(x, 3, log=True)
    assert [b.tolist() for b in equal_width_bins(np.ones(5), 3)] == [[0, 1, 2, 3, 4]]
    xl = np.array([1.0, 10.0, 100.0, 1000.0, 2.0])
    assert [b.tolist() for b in equal_width_bins(xl, 3, log=True)] == [[0, 4], [1], [2, 3]]


# --------------------------------------------------------------------------------------
# Adaptive bins
# --------------------------------------------------------------------------------------


@HYP
@given(
    x=any_arrays,
    n=st.integers(min_value=1, max_value=40),
    pop_min=st.integers(min_value=1, max_value=40),
    log=st.booleans(),
)
def test_adaptive_vs_reference(x, n, pop_min, log):
    if x.size < pop_min:
        with pytest.raises(ValueError):
            adaptive_bins(x, n, pop_min=pop_min, log=log)
        return
    bins = adaptive_bins(x, n, pop_min=pop_min, log=log)
    assert_partition(bins, x.size)
    assert_sorted_bins(x, bins)
    sizes = bin_sizes(bins)
    assert sizes.min() >= pop_min
    n0 = n if x.size / n >= pop_min else x.size // pop_min
    assert sizes.max() <= max(x.size // n0, 2 * pop_min)
    if n0 >= 2 and np.ptp(x) > 0:  # R's code is undefined for n = 1 or constant x
        assert [b.tolist() for b in bins] == ref_gen_intervals(x, n, pop_min, log)


def test_adaptive_random_lognormal_vs_reference():
    rng = np.random.default_rng(11)
    for m, n, log in [(2000, 10, True), (2000, 20, False), (3000, 40, True), (1500, 60, True)]:
        x = rng.lognormal(sigma=1.2, size=m)
        bins = adaptive_bins(x, n, log=log)
        assert [b.tolist() for b in bins] == ref_gen_intervals(x, n, 30, log)
        assert bin_sizes(bins).min() >= 30


def test_adaptive_order_independent_for_distinct_x():
    rng = np.random.default_rng(2)
    x = rng.lognormal(size=1000)
    perm = rng.permutation(1000)
    for log in (True, False):
        a = adaptive_bins(x, 20, log=log)
        b = adaptive_bins(x[perm], 20, log=log)
        assert [sorted(perm[bb].tolist()) for bb in b] == as_sets(a)


def test_adaptive_small_n_reduced_and_errors():
    x = np.linspace(1, 2, 100)
    bins = adaptive_bins(x, 10, pop_min=30)  # n reduced to floor(100/30) = 3
    assert bin_sizes(bins).min() >= 30
    assert len(bins) <= 3
    with pytest.raises(ValueError):
        adaptive_bins(np.array([-1.0, 1.0] * 20), 2, log=True)
    assert len(adaptive_bins(np.array([-1.0, 1.0] * 20), 2, pop_min=10, log=False)) == 2
    with pytest.raises(ValueError):
        adaptive_bins(x[:10], 2, pop_min=30)


# --------------------------------------------------------------------------------------
# Stratified bins
# --------------------------------------------------------------------------------------


def test_stratified_hand_example():
    counts = [50, 120, 30, 40, 200, 10]
    x = np.repeat(np.arange(1.0, 7.0), counts)
    res = stratified_bins(x, pop_min=100)
    # pass 1: v1 (end) -> right: (50*1 + 120*2)/170; pass 2: v3 (30) vs 170 | 40 -> right;
    # pass 3: (3,4)-merged (70) vs 170 | 200 -> left -> 540/240 = 2.25;
    # pass 4: v6 (end, 10) -> left: (200*5 + 10*6)/210
    assert isinstance(res, StratifiedBinning)
    assert res.counts.tolist() == [240, 210]
    assert res.values[0] == pytest.approx(2.25, rel=1e-15)
    assert res.values[1] == pytest.approx(1060 / 210, rel=1e-15)
    assert [b.tolist() for b in res.bins] == [list(range(240)), list(range(240, 450))]
    assert len(res) == 2 and res[1] is res.bins[1] and list(res)[0] is res.bins[0]


def test_stratified_ties_go_right():
    x = np.repeat([1.0, 2.0, 3.0], [100, 20, 100])
    res = stratified_bins(x, pop_min=100)
    assert res.counts.tolist() == [100, 120]
    assert res.values.tolist() == [1.0, (20 * 2.0 + 100 * 3.0) / 120]
    # left neighbour strictly smaller: goes left
    res = stratified_bins(np.repeat([1.0, 2.0, 3.0], [100, 20, 101]), pop_min=100)
    assert res.counts.tolist() == [120, 101]


def test_stratified_order_independent():
    rng = np.random.default_rng(4)
    x = np.round(rng.gamma(2.0, size=3000), 1)
    perm = rng.permutation(x.size)
    a = stratified_bins(x, pop_min=100)
    b = stratified_bins(x[perm], pop_min=100)
    assert np.array_equal(a.values, b.values)
    assert np.array_equal(a.counts, b.counts)
    assert [sorted(perm[bb].tolist()) for bb in b.bins] == as_sets(a.bins)
    assert a.counts.min() >= 100
    assert_partition(a.bins, x.size)
    assert_sorted_bins(x, a.bins)


@HYP
@given(x=tied_arrays, pop_min=st.integers(min_value=1, max_value=60))
def test_stratified_vs_reference(x, pop_min):
    res = stratified_bins(x, pop_min=pop_min)
    ref_bins, ref_values, ref_counts = ref_strat_agg(x, pop_min)
    assert_partition(res.bins, x.size)
    assert res.counts.tolist() == ref_counts
    assert res.values.tolist() == ref_values
    assert as_sets(res.bins) == ref_bins
    assert bin_sizes(res.bins).tolist() == res.counts.tolist()
    if x.size >= pop_min:
        assert res.counts.min() >= pop_min


def test_stratified_distinct_values_large():
    """Many distinct values (continuous x): linear-time merging, all strata >= pop_min."""
    x = np.random.default_rng(9).normal(size=20000)
    res = stratified_bins(x, pop_min=100)
    assert res.counts.min() >= 100
    assert_partition(res.bins, x.size)
    assert np.all(np.diff(res.values) > 0)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def test_bin_counts_rules():
    assert sqrt_bin_count(13885) == 118
    assert sqrt_bin_count(10000) == 100


# --------------------------------------------------------------------------------------
# PAL2022 data: adaptive bin counts of P000 App. B (the authors' genIntervals on these files)
# --------------------------------------------------------------------------------------

PAL_EXPECTED = {
    # (dataset, file variant, log grid): bin counts for n = 10, 20, 40
    ("Diffusion_LR", "cal", False): [19, 30, 48],
    ("Diffusion_LR", "cal", True): [18, 31, 50],
    ("Diffusion_LR", "uncal", False): [19, 28, 46],
    ("Diffusion_LR", "uncal", True): [15, 27, 50],
    ("Perovskite_GPR_Bayesian", "cal", False): [14, 27, 54],
    ("Perovskite_GPR_Bayesian", "cal", True): [17, 35, 61],
    ("Perovskite_GPR_Bayesian", "uncal", False): [14, 31, 56],
    ("Perovskite_GPR_Bayesian", "uncal", True): [17, 35, 62],
}


def _read_pal_ue(dataset: str, variant: str) -> np.ndarray:
    import pandas as pd

    df = pd.read_csv(PAL2022 / f"{dataset}_Test_{variant}.csv")
    e = df["E"].to_numpy(dtype=float)
    ue = df["uE"].to_numpy(dtype=float)
    keep = (ue > 1e-6 * np.std(e, ddof=1)) & (ue > 0)
    return ue[keep]


@pytest.mark.parametrize(("dataset", "variant", "log"), sorted(PAL_EXPECTED))
def test_pal2022_adaptive_bin_counts(dataset, variant, log):
    require_shared_data(PAL2022)
    ue = _read_pal_ue(dataset, variant)
    assert ue.size == (2040 if dataset.startswith("Diffusion") else 3818)
    counts = []
    for n in (10, 20, 40):
        bins = adaptive_bins(ue, n, pop_min=30, log=log)
        assert_partition(bins, ue.size)
        assert bin_sizes(bins).min() >= 30
        counts.append(len(bins))
    assert counts == PAL_EXPECTED[(dataset, variant, log)]
