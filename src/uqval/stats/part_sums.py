"""Sufficient statistics of Z = E/uE per part of a test set, that combine over parts.

A test set too large for one process (10^8 force components) is read as parts (files); each
part is summarised by one job and the summaries are combined (docs/choices.md, "Ten million
predictions and beyond"; the orchestration is :mod:`uqval.validation.parts`). This module
holds the per-part kernels:

* :class:`ExactSums`: sums kept as Shewchuk's non-overlapping partials (the ``msum`` of the
  Python ``math.fsum`` recipe; "Adaptive precision floating-point arithmetic", 1997). Merging
  parts is exact and a value is the correctly rounded sum of all terms, so combined parts give
  the numbers of one pass over all rows bit for bit, however the rows are cut and in any
  order. Used for M, sum Z, sum Z^2 and the per-bin sums of Z, Z^2 and Z^4 (LZM_b, LZMS_b
  with their Student-t intervals, P003 Eq. 5-6).
* :func:`poisson_bootstrap_sums`: the Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et
  al. 2012, "Estimating uncertainty for massive data streams"): each unit (a row, or a whole
  group of rows) gets one Poisson(1) weight per replicate and a replicate keeps
  sum w and sum w Z^2. The weight of unit ``key`` in replicate b is a function of (seed, key,
  b) only (SplitMix64 of the key, then b steps of its Weyl sequence, inverted through the
  Poisson(1) distribution function), so it does not depend on how the rows are cut into
  parts, on their order, or on the number of jobs. The replicate sums are float64 sums per
  part, combined with ``math.fsum`` in part order.
* :func:`selection_keys`: the keys of a seeded uniform subsample that merges over parts (the
  rows with the S smallest keys: a bottom-k sample, Cohen & Kaplan 2007), of rows or of whole
  groups.
* :func:`z2_histogram`: counts and sums of Z^2 over the 65 536 buckets of the 16 high bits of
  its IEEE-754 pattern (monotone in Z^2 >= 0), so that the share of sum Z^2 carried by the
  largest rows is found with one more pass over the rows of a single bucket.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> z = rng.standard_normal(1000)
>>> whole, a, b = ExactSums.zeros(1), ExactSums.zeros(1), ExactSums.zeros(1)
>>> whole.add(0, z**2); a.add(0, z[:400] ** 2); b.add(0, z[400:] ** 2)
>>> bool(a.merge(b).values()[0] == whole.values()[0] == math.fsum(z**2))
True
>>> keys = np.arange(1000, dtype=np.uint64)
>>> boot = poisson_bootstrap_sums(z[:, None] ** 2, keys, seed=1, n_boot=4)
>>> part = poisson_bootstrap_sums(z[:400, None] ** 2, keys[:400], seed=1, n_boot=4)
>>> rest = poisson_bootstrap_sums(z[400:, None] ** 2, keys[400:], seed=1, n_boot=4)
>>> bool(np.allclose(part + rest, boot, rtol=1e-13)), boot.shape
(True, (4, 2))
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.types import FloatArray

__all__ = [
    "HISTOGRAM_BUCKETS",
    "ExactSums",
    "bin_sums",
    "combine_float_sums",
    "group_keys",
    "histogram_bucket",
    "poisson_bootstrap_sums",
    "selection_keys",
    "z2_histogram",
]

_MAX_PARTIALS = 64  # non-overlapping doubles needed for any finite double sum: < 40
HISTOGRAM_BUCKETS = 1 << 16
"""Buckets of :func:`z2_histogram` (the 16 high bits of a non-negative double)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_POISSON_MAX = 24  # P(W > 24) for W ~ Poisson(1) is about 1e-25: below any 64-bit threshold


def _poisson_thresholds() -> NDArray[np.uint64]:
    """floor(2^64 P(W <= k)) for W ~ Poisson(1), k = 0 .. _POISSON_MAX - 1 (exact rationals
    of e^-1 would not change one threshold: the float64 cdf is within 1e-16 of them)."""
    cdf = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(_POISSON_MAX)])
    top = float(2**64)
    return np.array([min(int(c * top), 2**64 - 1) for c in cdf], dtype=np.uint64)


_THRESHOLDS = _poisson_thresholds()


@numba.njit(cache=True)
def _mix64(x):  # pragma: no cover - compiled
    """SplitMix64's output function (Steele, Lea & Flood 2014), a bijection of uint64."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, nogil=True)
def _poisson_kernel(values, keys, seed, n_boot, thresholds, out):  # pragma: no cover
    """out[b, 0] += sum w, out[b, 1 + j] += sum w values[i, j]; w = W(seed, keys[i], b): the
    state of unit i in replicate b is mix(keys[i] XOR seed) + (b + 1) golden, its weight the
    number of thresholds at or below mix(state) (inversion of the Poisson(1) cdf; the first
    eight compared without branches, P(W >= 8) = 1e-5). Sums run over the units in order."""
    n = keys.size
    n_values = values.shape[1]
    start = np.empty(n, np.uint64)
    for i in range(n):
        start[i] = _mix64(keys[i] ^ seed)
    t0, t1, t2, t3 = thresholds[0], thresholds[1], thresholds[2], thresholds[3]
    t4, t5, t6, t7 = thresholds[4], thresholds[5], thresholds[6], thresholds[7]
    sums = np.zeros(n_values)
    for b in range(n_boot):
        step = _GOLDEN * np.uint64(b + 1)
        total = 0
        sums[:] = 0.0
        for i in range(n):
            r = _mix64(start[i] + step)
            w = (np.int64(r >= t0) + np.int64(r >= t1) + np.int64(r >= t2)
                 + np.int64(r >= t3) + np.int64(r >= t4) + np.int64(r >= t5)
                 + np.int64(r >= t6) + np.int64(r >= t7))
            if w == 8:
                while w < thresholds.size and r >= thresholds[w]:
                    w += 1
            total += w
            for j in range(n_values):
                sums[j] += w * values[i, j]
        out[b, 0] += total
        for j in range(n_values):
            out[b, 1 + j] += sums[j]


def _seed64(seed: int, label: str) -> np.uint64:
    """A 64-bit stream key from a seed and a label (SHA-256, first 8 bytes)."""
    digest = hashlib.sha256(f"{int(seed)}/{label}".encode()).digest()
    return np.uint64(int.from_bytes(digest[:8], "big"))


def poisson_bootstrap_sums(values: FloatArray, keys: NDArray[np.uint64], *, seed: int,
                           n_boot: int) -> FloatArray:
    """Poisson-bootstrap sums of a part: (n_boot, 1 + V) array of sum w and sum w values[:, j].

    Args:
        values: (n, V) values per unit (Z^2 per row, or per-group sums).
        keys: (n,) unit keys: the global row index, or :func:`group_keys` of the groups
            (every row of a group then carries the group's weight).
        seed: seed of the weights (the same for every part); n_boot: replicates.

    The weight W(seed, key, b) ~ Poisson(1) is independent over keys and replicates (module
    docstring), so the sums of parts add up to the sums of all units.
    """
    vals = np.ascontiguousarray(values, dtype=np.float64)
    ks = np.ascontiguousarray(keys, dtype=np.uint64)
    if vals.ndim != 2 or vals.shape[0] != ks.size:
        raise ValueError("values must be (n, V) with one key per row")
    out = np.zeros((int(n_boot), 1 + vals.shape[1]))
    _poisson_kernel(vals, ks, _seed64(seed, "poisson bootstrap"), int(n_boot), _THRESHOLDS, out)
    return out


def combine_float_sums(arrays: Sequence[FloatArray]) -> FloatArray:
    """Element-wise ``math.fsum`` of equally shaped arrays (one per part), in the given order:
    the correctly rounded sum of the parts' values, whatever the number of jobs."""
    stack = np.stack([np.asarray(a, dtype=np.float64) for a in arrays])
    flat = stack.reshape(stack.shape[0], -1)
    return np.array([math.fsum(flat[:, j]) for j in range(flat.shape[1])]).reshape(stack.shape[1:])


def selection_keys(ids: NDArray[np.uint64], *, seed: int) -> NDArray[np.uint64]:
    """Keys of the seeded uniform subsample: the units with the smallest keys are kept.

    ``ids``: global row indices, or :func:`group_keys` (whole groups in or out). The key is a
    bijection of the id (SplitMix64 of id XOR a seed key), so keys never tie between units.
    """
    base = _seed64(seed, "parts subsample")
    return _mix_array(np.ascontiguousarray(ids, dtype=np.uint64) ^ base)


@numba.njit(cache=True, nogil=True)
def _mix_array(x):  # pragma: no cover - compiled
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = _mix64(x[i])
    return out


def group_keys(labels: Sequence[object]) -> NDArray[np.uint64]:
    """A 64-bit key per group label (BLAKE2b of its type and text), the same in every part.

    >>> group_keys(["a", "b", "a"])[0] == group_keys(["a"])[0]
    np.True_
    """
    out = np.empty(len(labels), dtype=np.uint64)
    for i, label in enumerate(labels):
        if isinstance(label, np.generic):
            label = label.item()
        text = f"{type(label).__name__}:{label!r}".encode()
        out[i] = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")
    return out


def histogram_bucket(z2: FloatArray) -> NDArray[np.int64]:
    """The bucket of each Z^2 >= 0: the 16 high bits of its IEEE-754 pattern (monotone)."""
    bits = np.ascontiguousarray(z2, dtype=np.float64).view(np.uint64)
    return (bits >> np.uint64(48)).astype(np.int64)


def z2_histogram(z2: FloatArray) -> tuple[NDArray[np.int64], FloatArray]:
    """Counts and sums of Z^2 per :func:`histogram_bucket` (:data:`HISTOGRAM_BUCKETS`)."""
    bucket = histogram_bucket(z2)
    return (np.bincount(bucket, minlength=HISTOGRAM_BUCKETS).astype(np.int64),
            np.bincount(bucket, weights=z2, minlength=HISTOGRAM_BUCKETS).astype(np.float64))


@numba.njit(cache=True, nogil=True)
def _msum_into(parts, lengths, row, values, weights):  # pragma: no cover - compiled
    """Add values (times weights if given) to the partials of ``parts[row]`` exactly."""
    n = lengths[row]
    p = parts[row]
    for k in range(values.size):
        x = values[k] if weights.size == 0 else values[k] * weights[k]
        i = 0
        for j in range(n):
            y = p[j]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                p[i] = lo
                i += 1
            x = hi
        p[i] = x
        n = i + 1
    lengths[row] = n


@numba.njit(cache=True, nogil=True)
def _binned_msum(parts, lengths, bins, values, offset):  # pragma: no cover - compiled
    """Add values[k] to the partials of row offset + bins[k], exactly."""
    one = np.empty(1)
    empty = np.empty(0)
    for k in range(values.size):
        one[0] = values[k]
        _msum_into(parts, lengths, offset + bins[k], one, empty)


@dataclass(frozen=True)
class ExactSums:
    """Several exact sums, each as non-overlapping partials: ``parts[i, :lengths[i]]``."""

    parts: FloatArray
    lengths: NDArray[np.int64]

    @classmethod
    def zeros(cls, n: int) -> ExactSums:
        return cls(np.zeros((n, _MAX_PARTIALS)), np.zeros(n, np.int64))

    def add(self, row: int, values: FloatArray, weights: FloatArray | None = None) -> None:
        """Add ``values`` (times ``weights``) to sum ``row``, exactly."""
        w = np.empty(0) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        _msum_into(self.parts, self.lengths, row, np.ascontiguousarray(values, np.float64), w)

    def add_binned(self, offset: int, bins: NDArray[np.int64], values: FloatArray) -> None:
        """Add ``values[k]`` to sum ``offset + bins[k]``, exactly."""
        _binned_msum(self.parts, self.lengths, np.ascontiguousarray(bins, np.int64),
                     np.ascontiguousarray(values, np.float64), offset)

    def merge(self, other: ExactSums) -> ExactSums:
        out = ExactSums(self.parts.copy(), self.lengths.copy())
        for i in range(self.lengths.size):
            out.add(i, other.parts[i, : other.lengths[i]])
        return out

    def values(self) -> FloatArray:
        """The correctly rounded sums (``math.fsum`` of the partials)."""
        return np.array(
            [math.fsum(self.parts[i, : self.lengths[i]]) for i in range(self.lengths.size)]
        )


@dataclass(frozen=True)
class BinSums:
    """Per-bin sums of one binning variable over a part (or combined parts).

    counts: rows per bin; low, high: smallest and largest value of the variable in each bin
    (+inf / -inf in an empty bin); sums: exact sums of Z (rows 0..K-1), Z^2 (K..2K-1) and Z^4
    (2K..3K-1).
    """

    counts: NDArray[np.int64]
    low: FloatArray
    high: FloatArray
    sums: ExactSums

    def merge(self, other: BinSums) -> BinSums:
        return BinSums(self.counts + other.counts, np.minimum(self.low, other.low),
                       np.maximum(self.high, other.high), self.sums.merge(other.sums))

    def moments(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """sum Z, sum Z^2, sum Z^4 per bin (correctly rounded)."""
        v = self.sums.values()
        k = self.counts.size
        return v[:k], v[k:2 * k], v[2 * k:]


def bin_sums(x: FloatArray, z: FloatArray, starts: FloatArray) -> BinSums:
    """:class:`BinSums` of the rows of a part for bins [starts[b], starts[b+1]) of ``x`` (the
    first bin open below, the last open above: every row falls in one bin)."""
    k = starts.size
    b = np.clip(np.searchsorted(starts, x, side="right") - 1, 0, k - 1).astype(np.int64)
    counts = np.bincount(b, minlength=k).astype(np.int64)
    low = np.full(k, np.inf)
    high = np.full(k, -np.inf)
    np.minimum.at(low, b, x)
    np.maximum.at(high, b, x)
    sums = ExactSums.zeros(3 * k)
    z2 = np.square(z)
    sums.add_binned(0, b, z)
    sums.add_binned(k, b, z2)
    sums.add_binned(2 * k, b, np.square(z2))
    return BinSums(counts, low, high, sums)
