"""Chunked sufficient statistics combine exactly into the numbers of one pass over all rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uqval.stats.chunked import ROW_BLOCK, chunk_sums, combine


def _data(m, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.6, m)
    return u * rng.standard_t(4, m) * np.sqrt(0.5), u


def _split(m, cuts):
    bounds = [0, *cuts, m]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def test_combined_chunks_equal_one_pass_exactly_in_any_order():
    e, u = _data(20_000)
    edges = np.quantile(u, np.linspace(0, 1, 21))
    whole = chunk_sums(e, u, edges)
    rng = np.random.default_rng(1)
    for n_cuts in (1, 3, 17):
        cuts = sorted(rng.choice(np.arange(1, e.size), n_cuts, replace=False))
        parts = [chunk_sums(e[s], u[s], edges) for s in _split(e.size, cuts)]
        rng.shuffle(parts)
        got = combine(parts)
        assert got.n == whole.n
        assert got.zms() == whole.zms() and got.mean_z() == whole.mean_z()
        assert np.array_equal(got.bin_counts, whole.bin_counts)
        for a, b in zip(got.local(), whole.local(), strict=True):
            assert np.array_equal(a, b)


def test_values_are_the_correctly_rounded_sums_and_match_numpy_to_rounding():
    e, u = _data(5000, seed=3)
    edges = np.array([u.min(), 0.8, 1.0, 1.3, u.max()])
    s = chunk_sums(e, u, edges)
    z = e / u
    assert s.zms() == math.fsum(z * z) / z.size
    assert s.mean_z() == math.fsum(z) / z.size
    assert s.zms() == pytest.approx(np.mean(z * z), rel=1e-14)
    b = np.minimum(np.searchsorted(edges, u, side="right") - 1, edges.size - 2)
    lzm, lzms = s.local()
    for k in range(edges.size - 1):
        zk = z[b == k]
        assert lzms[k] == math.fsum(zk * zk) / zk.size
        assert lzm[k] == math.fsum(zk) / zk.size
        assert lzms[k] == pytest.approx(np.mean(zk * zk), rel=1e-13)


def test_poisson_bootstrap_is_independent_of_block_aligned_chunking():
    m = 2 * ROW_BLOCK + 1234
    e, u = _data(m, seed=5)
    edges = np.array([u.min(), u.max()])
    whole = chunk_sums(e, u, edges, n_boot=4, seed=42)
    parts = combine([
        chunk_sums(e[s], u[s], edges, first_row=s.start, n_boot=4, seed=42)
        for s in _split(m, [ROW_BLOCK, 2 * ROW_BLOCK])
    ])
    assert np.array_equal(parts.boot_zms(), whole.boot_zms())
    # brute force: the weights of row block k from child k of SeedSequence(42)
    children = np.random.SeedSequence(42).spawn(3)
    w = np.concatenate([
        np.random.Generator(np.random.PCG64(c)).poisson(1.0, (4, ROW_BLOCK)) for c in children
    ], axis=1)[:, :m].astype(float)
    z2 = (e / u) ** 2
    want = [math.fsum(w[r] * z2) / math.fsum(w[r]) for r in range(4)]
    assert whole.boot_zms().tolist() == want
    assert 0.9 < np.mean(want) < 1.1 and len(set(want)) == 4


def test_refusals():
    e, u = _data(100)
    edges = np.array([u.min(), u.max()])
    with pytest.raises(ValueError, match="multiple of ROW_BLOCK"):
        chunk_sums(e, u, edges, first_row=10, n_boot=2)
    with pytest.raises(ValueError, match="inside"):
        chunk_sums(e, u, np.array([u.min() + 1e-9, u.max()]))
    with pytest.raises(ValueError, match="share"):
        combine([chunk_sums(e, u, edges), chunk_sums(e, u, np.array([u.min(), 1.0, u.max()]))])
