"""The row sort of the rank kernel against NumPy's sorts, on rows built to stress a radix sort.

``rank_kernel._sort_row`` must return exactly the values of ``np.sort`` and, on rows without
ties, the payload in the order of ``np.argsort(kind="stable")``; the public functions then
equal their NumPy formulas bit for bit. The rows below hit each branch of the radix sort:
wide exponent spans (large shift: many values per key), values that differ only in their
last bits (long runs of equal keys, alone: shift 0, or mixed with spread values), short rows
(insertion sort), long rows, -0.0, infinities, subnormals, ties, NaN and negative values.
"""

from __future__ import annotations

import numpy as np
import pytest

from uqval.stats.rank_kernel import (
    _sort_row,
    _work_arrays,
    ordinal_ranks,
    rank_weight_sums,
    sorted_prefix_sums,
)

LENGTHS = (1, 2, 33, 2**15 + 1, 70_000)


def sort_row(row: np.ndarray, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """The kernel's (sorted values, payload carried along, tied flag) of one row."""
    order, vals, tmp_v, tmp_i, start = _work_arrays(row.size)
    tied = _sort_row(np.ascontiguousarray(row, float), np.ascontiguousarray(payload, np.int64),
                     order, vals, tmp_v, tmp_i, start)
    return vals.copy(), order.copy(), bool(tied)


def check_row(row: np.ndarray) -> None:
    """Sorted values equal np.sort (bit patterns), the payload equals the stable argsort's."""
    rng = np.random.default_rng(row.size)
    payload = rng.integers(-(2**40), 2**40, row.size)
    vals, order, tied = sort_row(row, payload)
    assert not tied
    assert vals.tobytes() == np.sort(row).tobytes()
    assert np.array_equal(order, payload[np.argsort(row, kind="stable")])


def wide(rng: np.random.Generator, m: int) -> np.ndarray:
    """Values from 1e-300 to 1e300, log-uniform: the key keeps few bits of each binade."""
    return 10.0 ** rng.uniform(-300.0, 300.0, m)


def last_bits(rng: np.random.Generator, m: int, base: float = 1.0) -> np.ndarray:
    """base + k ulp(base) for k a permutation of 0..m-1: values differing only in low bits."""
    return base + rng.permutation(m) * np.spacing(base)


@pytest.mark.parametrize("m", LENGTHS)
def test_wide_exponent_spans(m):
    rng = np.random.default_rng(1)
    check_row(wide(rng, m))
    row = np.abs(rng.standard_normal(m) * rng.lognormal(0.0, 2.0, m))
    row[: m // 3] *= 1e-300  # two clusters 300 decades apart
    check_row(row)


def test_values_differing_only_in_the_last_bits():
    rng = np.random.default_rng(2)
    check_row(last_bits(rng, 10_000))  # span 9999 ulps: exact keys, no shift
    # with widely spread values the shift drops the low bits: one run of 10 000 equal keys
    row = np.concatenate([last_bits(rng, 10_000), wide(rng, 5000)])
    check_row(rng.permutation(row))
    # many short runs: 3000 groups of 1..6 values one ulp apart, among spread values
    bases = 10.0 ** rng.uniform(-20.0, 20.0, 3000)
    groups = [b + rng.permutation(rng.integers(1, 7)) * np.spacing(b) for b in bases]
    row = np.concatenate([*groups, wide(rng, 2000)])
    check_row(rng.permutation(row))
    # a run longer than the insertion limit next to short runs, in a long row
    row = np.concatenate([last_bits(rng, 40, 3.0), last_bits(rng, 5, 7.0), wide(rng, 70_000)])
    check_row(rng.permutation(row))


@pytest.mark.parametrize("m", LENGTHS)
def test_lengths(m):
    rng = np.random.default_rng(3)
    check_row(np.abs(rng.standard_normal(m) * rng.lognormal(0.0, 1.0, m)))
    check_row(1.0 / rng.standard_gamma(1.5, m))
    check_row(rng.permutation(np.arange(m, dtype=float)))  # with 0.0
    check_row(np.arange(m, dtype=float)[::-1] * 0.1)  # decreasing


def test_long_row():
    rng = np.random.default_rng(4)
    m = 2**20 + 3
    row = np.abs(rng.standard_normal(m) * rng.lognormal(0.0, 1.0, m))
    row[:1000] = last_bits(rng, 1000, 0.5)
    check_row(rng.permutation(row))


def test_special_values():
    rng = np.random.default_rng(5)
    tiny = np.array([5e-324, 1e-320, 2.2250738585072014e-308, 0.0, np.inf, 1.0])
    check_row(rng.permutation(np.concatenate([tiny, wide(rng, 100)])))
    # -0.0 sorts as 0.0 (its pattern, read as an integer, is the most negative)
    for row in (np.array([2.0, -0.0, 1.0]), np.concatenate([[-0.0], wide(rng, 100)])):
        check_row(row)
        assert ordinal_ranks(row[None, :])[0][0, np.argmin(row)] == 1.0
    assert sort_row(np.array([0.0, 3.0, -0.0] + [1.0 + k for k in range(40)]),
                    np.arange(43))[2]  # -0.0 == 0.0: a tie


@pytest.mark.parametrize("m", (2, 33, 70_000))
def test_ties_nan_and_negative_values_are_flagged(m):
    payload = np.arange(m)
    for value in (0.0, -0.0, 1.0, 1e300, np.inf):
        assert sort_row(np.full(m, value), payload)[2]
    rng = np.random.default_rng(6)
    row = wide(rng, m)
    row[-1] = row[0]
    assert sort_row(row, payload)[2]
    for bad in (np.nan, -1e-300, -np.inf):
        row = wide(rng, m)
        row[m // 2] = bad
        assert sort_row(row, payload)[2]


def test_public_functions_equal_numpy_on_hard_rows():
    rng = np.random.default_rng(7)
    m = 3000
    rows = np.stack([
        wide(rng, m),
        rng.permutation(np.concatenate([last_bits(rng, 2000), wide(rng, m - 2000)])),
        rng.permutation(last_bits(rng, m, 1e-200)),
        np.abs(rng.standard_normal(m) * rng.lognormal(0.0, 1.0, m)),
    ])
    ranks, tied = ordinal_ranks(rows)
    assert not tied.any()
    assert np.array_equal(ranks, np.argsort(np.argsort(rows, axis=1), axis=1) + 1.0)
    w = rng.integers(-(2 * m), 2 * m, m)
    sums, tied = rank_weight_sums(rows, w)
    exact = [float(sum(int(r) * int(x) for r, x in zip(row, w, strict=True)))
             for row in ranks.astype(np.int64)]
    assert not tied.any() and sums.tolist() == exact
    weights = rng.standard_normal(rows.shape)
    positions = np.array([0, 1, 17, 1500, m])
    s = np.sort(rows, axis=1)
    zero = np.zeros((rows.shape[0], 1))
    want = np.stack([np.concatenate([zero, np.cumsum(c, axis=1)], axis=1)[:, positions]
                     for c in (s, s * weights, weights)], axis=1)
    assert sorted_prefix_sums(rows, weights, positions).tobytes() == want.tobytes()


def test_rows_whose_low_key_digits_do_not_vary():
    """Patterns that differ only in high bits: the scatters by a constant digit are skipped."""
    rng = np.random.default_rng(8)
    check_row(rng.permutation(2.0 ** np.arange(-500.0, 500.0)))  # one scatter of three
    check_row(1.0 + rng.permutation(5000) * 2.0**-30)  # the lowest digit constant: two
