"""Simulated references at the cost of the draws: the same numbers as the per-set code.

The brute-force reference below is the implementation of ``uqval.simref.simulated_references``
before issue 29 (argsort of abs(E*) per set for CC, then a BLAS product of the ranks with the
centred uE ranks; ENCE/ZMSE by ``ence_batch``/``zmse_batch``; each statistic separately), kept
here verbatim. The fast path must give the same draws and:

* ZMS, ENCE, ZMSE: bit-identical values (same operations in the same order);
* CC: the numerator is now summed exactly in integers instead of by BLAS (whose rounding
  depends on the thread count), so CC agrees to rounding: |diff| <= 1e-12.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from uqval import simref
from uqval._internal.streams import stream_blocks
from uqval.calibration.binned_errors import ence_batch, zmse_batch
from uqval.simref.statistics import SortedFrame
from uqval.stats.rank_kernel import ordinal_ranks, rank_weight_sums, sorted_prefix_sums
from uqval.stats.synthetic import as_distribution


def _cc_rows_argsort(e_s, frame):
    n, m = e_s.shape
    ranks = np.empty((n, m))
    np.put_along_axis(
        ranks, np.argsort(np.abs(e_s), axis=1), np.arange(1.0, m + 1.0)[None, :], axis=1
    )
    ru = stats.rankdata(frame.u) - 0.5 * (m + 1)
    norm = math.sqrt(m * (m * m - 1.0) / 12.0) * math.sqrt(float(ru @ ru))
    return (ranks @ ru) / norm


def brute_force_values(ue, stat_specs, distribution, n_mc, seed):
    """The simulated values of each statistic, shape (k, n_mc), by the pre-issue-29 code."""
    frame = SortedFrame(np.asarray(ue, float))
    dist = as_distribution(distribution)
    stats_ = [simref.as_statistic(s) for s in stat_specs]
    values = np.empty((len(stats_), n_mc))
    for block in stream_blocks(seed, n_mc, frame.m):
        e_s = frame.u * dist.draw(block.values(), (block.size, frame.m))
        at = slice(block.start, block.stop)
        for j, stat in enumerate(stats_):
            if stat.name == "ZMS":
                values[j, at] = np.mean(np.square(e_s / frame.u), axis=1)
            elif stat.name == "CC":
                values[j, at] = _cc_rows_argsort(e_s, frame)
            else:
                fn = ence_batch if stat.name == "ENCE" else zmse_batch
                values[j, at] = fn(e_s, frame.u, frame.edges(stat.n_bins))
    return values


SPECS = ["ZMS", "CC", "ENCE20", "ZMSE20", "ENCE50", "ZMSE7"]


@pytest.mark.parametrize(
    ("m", "dist", "n_mc"),
    [(50, "normal", 300), (1000, ("t", 6), 200), (3000, "normal", 700), (40_000, ("t", 4), 30)],
)
def test_fast_references_equal_the_per_set_code(m, dist, n_mc):
    rng = np.random.default_rng(m)
    ue = rng.lognormal(0.0, 0.5, m)
    ue[: m // 10] = np.round(ue[: m // 10], 1)  # ties in uE: average ranks of multiples of 1/2
    fast = simref.simulated_references(ue, SPECS, dist, n_mc, seed=7)
    slow = brute_force_values(ue, SPECS, dist, n_mc, seed=7)
    for ref, want, spec in zip(fast, slow, SPECS, strict=True):
        if spec == "CC":
            assert np.max(np.abs(ref.values - want)) <= 1e-12
            assert not np.array_equal(want, np.zeros_like(want))
        else:
            assert np.array_equal(ref.values, want), spec


def test_chunk_and_grouping_do_not_change_the_values():
    ue = np.random.default_rng(3).uniform(0.5, 2.0, 500)
    together = simref.simulated_references(ue, SPECS, "normal", 400, seed=11)
    for spec, ref in zip(SPECS, together, strict=True):
        alone = simref.simulated_reference(ue, spec, "normal", 400, seed=11, chunk=37)
        assert np.array_equal(alone.values, ref.values)


def test_threads_do_not_change_the_values():
    # 2**20 // 300 = 3495 sets per stream block: 9000 sets are 3 blocks shared by 2 threads
    ue = np.random.default_rng(4).lognormal(0.0, 0.5, 300)
    one = simref.simulated_references(ue, SPECS[:4], ("t", 6), 9000, seed=12)
    two = simref.simulated_references(ue, SPECS[:4], ("t", 6), 9000, seed=12, n_workers=2)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a.values, b.values)
        assert len(np.unique(a.values)) > 8000


def test_reference_table_is_reference_sensitivity_of_shared_sets():
    rng = np.random.default_rng(8)
    ue = rng.lognormal(0.0, 0.4, 800)
    e = ue * rng.standard_normal(800) * 1.2
    alone = simref.reference_sensitivity(e, ue, ("t", 5), 300, seed=3, n_bins=40)
    # the page simulates once for the 20-bin and the 40-bin statistics
    stats_ = simref.sensitivity_statistics(40)
    shared = simref.simulated_references(ue, ["ENCE20", *stats_], ("t", 5), 300, seed=3)
    table = simref.reference_table(e, ue, stats_, shared[1:])
    assert table.equals(alone)
    assert table["estimate"].iloc[0] == pytest.approx(np.mean(np.square(e / ue)))
    with pytest.raises(ValueError, match="reference of ENCE"):
        simref.reference_table(e, ue, stats_, shared[:4])


def test_ordinal_ranks_equal_argsort_ranks_and_flag_ties():
    rng = np.random.default_rng(5)
    for m in (1, 2, 33, 1000, 70_000):
        a = np.abs(rng.standard_normal((3, m)) * rng.lognormal(0, 2, m))
        a[0, : m // 3] *= 1e-300 if m > 3 else 1.0  # huge exponent span: one crowded bucket
        ranks, tied = ordinal_ranks(a)
        want = np.argsort(np.argsort(a, axis=1), axis=1) + 1.0
        assert not tied.any()
        assert np.array_equal(ranks, want)
    a = np.array([[1.0, 2.0, 1.0], [0.0, 0.0, 1.0], [np.nan, 1.0, 2.0], [-1.0, 0.0, 2.0],
                  [3.0, 2.0, 1.0]])
    assert ordinal_ranks(a)[1].tolist() == [True, True, True, True, False]


def test_sorted_prefix_sums_equal_numpy_sort_and_cumsum_bit_for_bit():
    """The App. B kernel against the former NumPy formula, including rows the bucket sort
    hands to a comparison sort (negative, NaN-free) and a 70 000-value row (two passes)."""
    rng = np.random.default_rng(11)
    for m in (1, 7, 2000, 70_000):
        keys = 1.0 / rng.standard_gamma(1.5, (3, m))
        keys[1, : m // 2] *= 1e-300 if m > 2 else 1.0  # huge exponent span
        if m > 2:
            keys[2, :2] = [-1.5, -0.0]
        weights = np.square(rng.standard_normal((3, m)))
        positions = np.unique(np.r_[0, rng.integers(0, m + 1, 9), m])
        s = np.sort(keys, axis=1)
        zero = np.zeros((3, 1))
        want = np.stack([np.concatenate([zero, np.cumsum(c, axis=1)], axis=1)[:, positions]
                         for c in (s, s * weights, weights)], axis=1)
        got = sorted_prefix_sums(keys, weights, positions)
        assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="increasing"):
        sorted_prefix_sums(keys, weights, np.array([3, 1]))


def test_rank_weight_sums_are_exact():
    rng = np.random.default_rng(9)
    m = 5000
    a = np.abs(rng.standard_t(3, (4, m)))
    w = rng.integers(-(2 * m), 2 * m, m)
    sums, tied = rank_weight_sums(a, w)
    ranks = np.argsort(np.argsort(a, axis=1), axis=1) + 1
    exact = [float(sum(int(r) * int(x) for r, x in zip(row, w, strict=True))) for row in ranks]
    assert not tied.any()
    assert sums.tolist() == exact
    with pytest.raises(ValueError, match="shape"):
        rank_weight_sums(a, w[:-1])


def test_rows_with_tied_errors_fall_back_to_the_argsort_ranks():
    ue = np.linspace(1.0, 2.0, 200)
    e = np.round(np.random.default_rng(1).standard_normal((5, 200)), 1)  # many ties in abs(E)
    frame = SortedFrame(ue)
    got = simref.SimRefStatistic("CC").batch(e, ue)
    want = _cc_rows_argsort(e, frame)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _tie_groups(values):
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    ids = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, values.size]))
    return starts, ids


def _resample_cc_numpy(counts, e_s, u_s):
    """The former ResampleStatistic._cc (floating-point sums in NumPy), verbatim."""
    length = int(counts[0].sum())
    mid = 0.5 * (length + 1)
    u_starts, u_ids = _tie_groups(u_s)
    a = np.abs(e_s)
    e_perm = np.argsort(a, kind="stable")
    e_starts, e_ids = _tie_groups(a[e_perm])

    def group_ranks(c, starts, ids):
        g = np.add.reduceat(c, starts, axis=1)
        avg = np.cumsum(g, axis=1) - 0.5 * (g - 1) - mid
        return avg[:, ids]

    ce = counts[:, e_perm]
    re = group_ranks(ce, e_starts, e_ids)
    ru = group_ranks(counts, u_starts, u_ids)[:, e_perm]
    cov = np.sum(ce * re * ru, axis=1)
    var = np.sum(ce * re * re, axis=1) * np.sum(ce * ru * ru, axis=1)
    return cov / np.sqrt(var)


@pytest.mark.parametrize(("m", "ties"), [(40, False), (300, True), (5000, True)])
def test_bootstrap_cc_equals_the_former_numpy_sums(m, ties):
    rng = np.random.default_rng(m)
    u = np.sort(rng.lognormal(0.0, 0.5, m))
    e = u * rng.standard_normal(m)
    if ties:
        u = np.round(u, 1)
        e = np.round(e, 1)
    frame = SortedFrame(u)
    e_s = e[frame.order]
    fn = simref.statistics.ResampleStatistic(simref.SimRefStatistic("CC"), e_s, frame)
    pos = rng.integers(0, m, (50, m))
    kept = np.sort(rng.choice(m, m - 7, replace=False))  # a jackknife-like subset
    for p in (pos, kept[None, :]):
        counts = np.stack([np.bincount(row, minlength=m) for row in p])
        want = _resample_cc_numpy(counts, e_s, frame.u)
        np.testing.assert_allclose(fn(p), want, rtol=0, atol=1e-13)
    assert fn(np.arange(m)) == pytest.approx(stats.spearmanr(np.abs(e), u)[0], abs=1e-13)


def test_score_references_rank_correlation_equals_the_rankdata_formula():
    from uqval.scores.references import SCORES, ScoreSettings, score_rows
    from uqval.stats.synthetic import predictive

    rng = np.random.default_rng(4)
    m = 3000
    u = np.sort(np.round(rng.lognormal(0.0, 0.5, m), 2))  # ties in uE
    e = u * rng.standard_normal((40, m))
    e[3] = np.round(e[3], 1)  # a row with ties in abs(E): the rankdata fallback
    settings = ScoreSettings(n_bins=30, distribution=predictive("normal", None))
    shared = score_rows(e, u, settings)  # one uE: ranks of uE once, exact integer numerator
    per_row = score_rows(e, np.broadcast_to(u, e.shape).copy(), settings)  # former formula
    for name in SCORES:
        if name == "rank_correlation":
            np.testing.assert_allclose(shared[name], per_row[name], rtol=0, atol=1e-12)
            assert shared[name][3] == per_row[name][3]
        else:
            assert np.array_equal(shared[name], per_row[name]), name
    want = [stats.spearmanr(np.abs(row), u)[0] for row in e[:5]]
    np.testing.assert_allclose(shared["rank_correlation"][:5], want, rtol=0, atol=1e-12)


def _bin_sums_numpy(counts, bounds, columns):
    """The former ResampleStatistic._bin_sums (searchsorted over prefix sums), verbatim."""
    b, m = counts.shape
    length = int(counts[0].sum())
    cum = np.cumsum(counts, axis=1)
    stride = length + 1
    offsets = np.arange(b, dtype=np.int64) * stride
    queries = (bounds[1:][None, :] + offsets[:, None]).ravel()
    k = np.searchsorted((cum + offsets[:, None]).ravel(), queries, side="right")
    k = k.reshape(b, -1) - (np.arange(b) * m)[:, None]
    rows = np.arange(b)[:, None]
    prev = np.maximum(k - 1, 0)
    cum_prev = np.where(k > 0, cum[rows, prev], 0)
    partial = bounds[1:][None, :] - cum_prev
    nxt = np.minimum(k, m - 1)
    out = np.empty((columns.shape[0], b, bounds.size - 1))
    for j, col in enumerate(columns):
        w = np.cumsum(counts * col, axis=1)
        prefix = np.where(k > 0, w[rows, prev], 0.0) + partial * col[nxt]
        out[j] = np.diff(prefix, axis=1, prepend=0.0)
    return out


@pytest.mark.parametrize(("m", "n_bins", "drop"), [(30, 7, 0), (1000, 20, 0), (999, 50, 1)])
def test_resorted_bin_sums_are_bit_identical_to_the_numpy_formula(m, n_bins, drop):
    from uqval.binning import equal_count_boundaries
    from uqval.stats.resample_kernel import resorted_bin_sums

    rng = np.random.default_rng(m)
    columns = np.stack([rng.lognormal(0, 1, m), rng.standard_normal(m) ** 2])
    length = m - drop
    pos = rng.integers(0, m, (60, length))
    counts = np.stack([np.bincount(row, minlength=m) for row in pos])
    bounds = equal_count_boundaries(length, n_bins).astype(np.int64)
    got = resorted_bin_sums(counts, bounds, columns)
    assert np.array_equal(got, _bin_sums_numpy(counts, bounds, columns))
    brute = [[columns[0][np.repeat(np.arange(m), c)][bounds[q]:bounds[q + 1]].sum()
              for q in range(n_bins)] for c in counts[:3]]
    np.testing.assert_allclose(got[0, :3], brute, rtol=1e-12)


def test_resample_rank_correlation_refuses_counts_beyond_exact_integers():
    from uqval.stats.rank_kernel import resample_rank_correlation

    starts = np.arange(3)
    with pytest.raises(ValueError, match="counts"):
        resample_rank_correlation(np.array([[1 << 15, 0, 0]]), starts, starts, starts)
    with pytest.raises(ValueError, match="same length"):
        resample_rank_correlation(np.array([[1, 1, 1], [3, 1, 0]]), starts, starts, starts)


def test_sorted_frame_average_ranks_are_scipys_rankdata():
    from scipy import stats

    from uqval.simref.statistics import SortedFrame

    rng = np.random.default_rng(3)
    for u in (rng.uniform(0.5, 2.0, 1000), np.round(rng.uniform(0.5, 2.0, 999), 1),
              np.full(7, 0.3), np.array([2.0]), np.r_[np.full(5, 1.0), 2.0, 2.0, 3.0]):
        frame = SortedFrame(u)
        expected = stats.rankdata(frame.u) - 0.5 * (frame.m + 1)
        np.testing.assert_array_equal(frame.centred_ranks(), expected)


@pytest.mark.parametrize("name", ["CC", "ENCE20", "ZMSE20"])
def test_bootstrap_from_draw_counts_equals_the_position_path_bit_for_bit(name):
    """bca_bootstrap gives ResampleStatistic the draw counts (from_counts): the replicates of a
    plain callable of the same positions, to the last bit."""
    from uqval.simref.statistics import ResampleStatistic, SortedFrame, as_statistic
    from uqval.stats.bootstrap import bca_bootstrap

    rng = np.random.default_rng(8)
    u = rng.lognormal(0.0, 0.5, 700)
    e = u * rng.standard_t(4, 700)
    frame = SortedFrame(u)
    fn = ResampleStatistic(as_statistic(name), e[frame.order], frame)
    assert hasattr(fn, "from_counts")
    counted = bca_bootstrap((np.arange(700),), fn, n_boot=300, seed=5)
    indexed = bca_bootstrap((np.arange(700),), lambda pos: fn(pos), n_boot=300, seed=5)
    np.testing.assert_array_equal(counted.replicates, indexed.replicates)
    assert (counted.ci_low, counted.ci_high) == (indexed.ci_low, indexed.ci_high)
    assert not hasattr(ResampleStatistic(as_statistic("ZMS"), e[frame.order], frame), "from_counts")
