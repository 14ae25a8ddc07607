"""The compiled resampling kernel: NumPy's SFC64 bounded-integer stream and exact sums."""

import numpy as np
import pytest

from uqval.stats import resample_kernel as rk


@pytest.mark.parametrize("m", [2, 3, 7, 1000, 5000, 36_150, 2**31 + 5, rk.MAX_POINTS])
def test_indices_are_numpys_sfc64_integers(m):
    # 2**31 + 5 rejects almost half of the 32-bit words, MAX_POINTS is the largest range.
    seed = np.random.SeedSequence(12)
    expected = np.random.Generator(np.random.SFC64(seed)).integers(0, m, size=(5, 1001))
    np.testing.assert_array_equal(rk.draw_indices(seed, m, 5005), expected.ravel())


@pytest.mark.parametrize("m", [2, 5, 301, 4099, rk.COUNTING_MIN_POINTS + 3])
def test_sums_equal_gather_and_sum_over_the_same_indices(m):
    # the last size takes the counting path (sum_i counts_i c_i)
    seed = np.random.SeedSequence(5)
    columns = np.random.default_rng(1).lognormal(sigma=2.0, size=(3, m))
    rows = 11
    idx = np.random.Generator(np.random.SFC64(seed)).integers(0, m, size=(rows, m))
    expected = np.stack([np.take(col, idx).sum(axis=1) for col in columns], axis=1)
    out = np.empty((rows, 3))
    rk.resampled_sums(columns, seed, out)
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    # integer-valued columns are summed exactly whatever the order
    ints = np.arange(m, dtype=np.float64)[None, :]
    exact = np.empty((rows, 1))
    rk.resampled_sums(ints, seed, exact)
    np.testing.assert_array_equal(exact[:, 0], idx.sum(axis=1))


def test_sums_write_into_a_row_slice():
    seed = np.random.SeedSequence(9)
    columns = np.random.default_rng(2).random((2, 50))
    whole = np.full((6, 2), np.nan)
    rk.resampled_sums(columns, seed, whole[2:5])
    alone = np.empty((3, 2))
    rk.resampled_sums(columns, seed, alone)
    np.testing.assert_array_equal(whole[2:5], alone)
    assert np.isnan(whole[[0, 1, 5]]).all()


def test_bad_sizes_are_refused():
    seed = np.random.SeedSequence(0)
    with pytest.raises(ValueError, match="1 to"):
        rk.draw_indices(seed, 0, 3)
    with pytest.raises(ValueError, match="1 to"):
        rk.draw_indices(seed, rk.MAX_POINTS + 1, 3)
    with pytest.raises(ValueError, match="shape"):
        rk.resampled_sums(np.ones((2, 4)), seed, np.empty((3, 1)))


def _four_accumulator_sums(columns, idx):
    """Reference written out in Python: draws i = q (mod 4) go to accumulator q, the tail
    (m not a multiple of 4) to accumulator 0, result (a0 + a1) + (a2 + a3)."""
    k, m = columns.shape
    full = m - m % 4
    out = np.empty((idx.shape[0], k))
    for r, draws in enumerate(idx):
        for j in range(k):
            acc = [0.0, 0.0, 0.0, 0.0]
            for i in range(full):
                acc[i % 4] += float(columns[j, draws[i]])
            for i in range(full, m):
                acc[0] += float(columns[j, draws[i]])
            out[r, j] = (acc[0] + acc[1]) + (acc[2] + acc[3])
    return out


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 7])
@pytest.mark.parametrize("m", [7, 302])
def test_gathered_sums_follow_the_four_accumulator_order_bit_for_bit(k, m):
    # below MATMUL_MIN_COLUMNS the kernel gathers column by column and must add in the
    # reference's order, to the last bit
    assert rk.MATMUL_MIN_COLUMNS > 7
    seed = np.random.SeedSequence(31)
    columns = np.random.default_rng(k).lognormal(sigma=3.0, size=(k, m))
    rows = 4
    idx = np.random.Generator(np.random.SFC64(seed)).integers(0, m, size=(rows, m))
    out = np.empty((rows, k))
    rk.resampled_sums(columns, seed, out)
    np.testing.assert_array_equal(out, _four_accumulator_sums(columns, idx))


@pytest.mark.parametrize("m", [3, 4099])
def test_matrix_product_path_sums_the_same_resamples(m):
    # MATMUL_MIN_COLUMNS columns and more: draw counts times columns in BLAS. Rows beyond one
    # chunk of counts (2**20 // m) continue the same stream; sums equal gather-and-sum to
    # rounding, and exactly for integer-valued columns (every partial sum is an integer).
    k = rk.MATMUL_MIN_COLUMNS + 3
    seed = np.random.SeedSequence(8)
    rows = (1 << 20) // m + 5
    idx = np.random.Generator(np.random.SFC64(seed)).integers(0, m, size=(rows, m))
    columns = np.random.default_rng(4).lognormal(sigma=2.0, size=(k, m))
    out = np.empty((rows, k))
    rk.resampled_sums(columns, seed, out)
    expected = np.stack([np.take(col, idx).sum(axis=1) for col in columns], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    ints = np.arange(k * m, dtype=np.float64).reshape(k, m)
    exact = np.empty((rows, k))
    rk.resampled_sums(ints, seed, exact)
    np.testing.assert_array_equal(exact, np.stack([np.take(c, idx).sum(axis=1) for c in ints], 1))


def test_matrix_product_path_does_not_depend_on_blas_threads():
    from threadpoolctl import threadpool_limits

    seed = np.random.SeedSequence(2)
    columns = np.random.default_rng(6).lognormal(sigma=2.0, size=(12, 5000))
    results = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            out = np.empty((300, 12))
            rk.resampled_sums(columns, seed, out)
            results.append(out)
    np.testing.assert_array_equal(results[0], results[1])


def test_single_precision_product_sums_the_same_resamples_to_float32_rounding():
    # single=True (P001 Fig. 5): float32 counts, columns and SGEMM; the same resamples, sums
    # within float32 rounding of the exact gather-and-sum, and exact for small integers
    m, k = 5000, rk.MATMUL_MIN_COLUMNS + 25
    seed = np.random.SeedSequence(12)
    rows = (1 << 20) // m + 3
    idx = np.random.Generator(np.random.SFC64(seed)).integers(0, m, size=(rows, m))
    columns = np.square(np.random.default_rng(9).standard_t(3.0, size=(k, m)))  # heavy-tailed Z^2
    out = np.empty((rows, k))
    rk.resampled_sums(columns, seed, out, single=True)
    expected = np.stack([np.take(col, idx).sum(axis=1) for col in columns], axis=1)
    rel = np.abs(out / expected - 1.0)
    assert rel.max() < 1e-4 and np.median(rel) < 1e-6
    assert not np.array_equal(out, expected)  # it is float32: not the float64 sums
    ints = np.tile(np.arange(m, dtype=np.float64) % 50, (k, 1))  # sums < 2**24: exact in float32
    exact = np.empty((rows, k))
    rk.resampled_sums(ints, seed, exact, single=True)
    np.testing.assert_array_equal(exact, np.stack([np.take(c, idx).sum(axis=1) for c in ints], 1))
