"""Decision rules of uqval.validate: Holm, BCa p-values, permutation tests.

The false-alarm rates of the stages on calibrated data and their power on a planted error are
measured at small scale in tests/test_rates_*.py (full scale: benchmarks/).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from uqval.stats.bootstrap import bca_bootstrap
from uqval.stats.resample_kernel import sfc64_state
from uqval.stats.zscore_statistics import ZMS
from uqval.validation import permutation, rules
from uqval.validation.binfree import cumulative_null, kuiper


def test_holm_matches_the_hand_computed_step_down_values():
    # sorted: 0.01*3 = 0.03; 0.03*2 = 0.06; 0.04*1 = 0.04 -> running max 0.06
    assert np.allclose(rules.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert np.allclose(rules.holm([0.5, 0.9]), [1.0, 1.0])
    assert np.allclose(rules.holm([0.2]), [0.2])


def test_bca_p_value_is_below_alpha_exactly_when_the_interval_misses_the_target():
    rng = np.random.default_rng(4)
    u = rng.lognormal(0, 0.4, 400)
    e = 1.1 * u * rng.normal(size=400)
    res = bca_bootstrap((e, u), ZMS, n_boot=4000, seed=1)
    span = res.ci_high - res.ci_low
    for target, outside in [
        (res.ci_low - 0.02 * span, True), (res.ci_low + 0.02 * span, False),
        (res.ci_high - 0.02 * span, False), (res.ci_high + 0.02 * span, True),
    ]:
        assert (rules.bca_p_value(res, target) < 0.05) is outside


def test_heterogeneity_statistics_match_a_loop_over_bins():
    rng = np.random.default_rng(0)
    z = rng.normal(size=37)
    labels = rng.integers(0, 4, size=37)
    s1 = np.array([z[labels == b].sum() for b in range(4)])
    s2 = np.array([(z[labels == b] ** 2).sum() for b in range(4)])
    n = np.bincount(labels)
    t_zms, t_z = permutation.heterogeneity_statistics(s1, s2, n)
    zms, zm = np.mean(z**2), np.mean(z)
    expected_zms = sum(n[b] * np.log(zms / np.mean(z[labels == b] ** 2)) for b in range(4))
    expected_z = sum(n[b] * (np.mean(z[labels == b]) - zm) ** 2 for b in range(4))
    assert t_zms == pytest.approx(expected_zms)
    assert t_z == pytest.approx(expected_z)


def test_permutation_p_value_agrees_with_the_exact_enumeration():
    """8 rows in two bins of 4: the 70 splits are equally likely under the null."""
    z = np.array([0.1, -0.4, 2.5, 1.9, -0.2, 0.3, -3.1, 0.8])
    labels = np.array([0, 0, 1, 1, 0, 1, 1, 0], dtype=np.int32)

    def t_zms(lab):
        zms = np.mean(z**2)
        return sum(4 * np.log(zms / np.mean(z[lab == b] ** 2)) for b in (0, 1))

    observed = t_zms(labels)
    splits = [np.isin(np.arange(8), c).astype(int) for c in itertools.combinations(range(8), 4)]
    exact = np.mean([t_zms(s) >= observed - 1e-12 for s in splits])
    ((test, _),) = permutation.heterogeneity_tests(z, [labels], n_permutations=20_000, seed=3)
    assert test.p_value == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000))


@pytest.mark.parametrize("n_buckets", [1, 4])
def test_shuffle_gives_every_permutation_the_same_probability(n_buckets):
    """Fisher-Yates (1 bucket) and the Rao-Sandelius scatter (4 buckets) on 4 elements:
    the 24 orders are equally frequent (chi-square test at the 0.1 % level)."""
    src = np.arange(4, dtype=np.float64)
    dst = np.empty(4)
    choice = np.empty(4, np.int32)
    state = tuple(sfc64_state(np.random.SeedSequence(11)))  # four numpy.uint64 words
    counts: dict[tuple, int] = {}
    n = 24_000
    for _ in range(n):
        if n_buckets == 1:
            a = src.copy()
            state = permutation._fisher_yates(a, 0, 4, *state)
        else:
            state = permutation._shuffle(src, dst, choice, n_buckets, *state)
            a = dst
        state = tuple(np.uint64(w) for w in state)
        key = tuple(a.astype(int))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 24
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def _replayed_orders(m: int, n: int, seed: int) -> list[np.ndarray]:
    """Brute-force replay of the permutation stream: chunk j of CHUNK shuffles from child j
    of SeedSequence(seed), each shuffle applied to the previous order (Fisher-Yates up to
    2**14 rows, else the Rao-Sandelius scatter), the orders of the first n permutations."""
    buckets = permutation._n_buckets(m)
    orders = []
    for child in np.random.SeedSequence(seed).spawn(-(-n // permutation.CHUNK)):
        state = tuple(sfc64_state(child))
        a, b, choice = np.arange(m, dtype=np.float64), np.empty(m), np.empty(m, np.int32)
        for _ in range(permutation.CHUNK):
            if buckets == 1:
                state = permutation._fisher_yates(a, 0, m, *state)
            else:
                state = permutation._shuffle(a, b, choice, buckets, *state)
                a, b = b, a
            state = tuple(np.uint64(w) for w in state)
            orders.append(a.astype(np.intp))
    return orders[:n]


@pytest.mark.parametrize(("m", "n_workers"), [(40, 1), (40, 2), (20_000, 2)])
def test_permutation_nulls_replay_the_chunk_stream(m, n_workers):
    """The binned sums and the cumulative null are the statistics of the replayed orders,
    exactly, whatever the threads; stopped early (sequential rule), their first rows."""
    rng = np.random.default_rng(m)
    z = rng.standard_normal(m)
    labels = np.stack([np.arange(m) % 3, (np.arange(m) * 7) % 2]).astype(np.int32)
    offsets = np.array([0, 3], dtype=np.int64)
    n = 37  # two full chunks and part of a third
    orders = _replayed_orders(m, n, seed=9)
    sums = permutation._permuted_sums(z, labels, offsets, 5, n, 9, n_workers)
    for r, order in enumerate(orders):
        zp = z[order]
        expected = np.concatenate([
            np.stack([np.bincount(lab, weights=zp, minlength=k),
                      np.bincount(lab, weights=zp * zp, minlength=k)], axis=1)
            for lab, k in zip(labels, (3, 2), strict=True)])
        np.testing.assert_array_equal(sums[r], expected)
    d = np.column_stack([np.square(z) - 1.0, z])
    d -= d.mean(axis=0)
    null = cumulative_null(z, n, 9, n_workers)
    np.testing.assert_array_equal(null, np.array([kuiper(d[order]) for order in orders]))
    early = cumulative_null(z, n, 9, n_workers, done=lambda drawn: drawn.shape[0] >= 16)
    assert 16 <= early.shape[0] < n and early.shape[0] % permutation.CHUNK == 0
    np.testing.assert_array_equal(early, null[: early.shape[0]])
    early_sums = permutation._permuted_sums(z, labels, offsets, 5, n, 9, n_workers,
                                            done=lambda drawn: drawn.shape[0] >= 16)
    np.testing.assert_array_equal(early_sums, sums[: early_sums.shape[0]])
