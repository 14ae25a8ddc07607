"""Chunked sufficient statistics of Z = E/uE that combine exactly (data split over jobs).

For 10^8 rows and more the data are cut into chunks of consecutive rows, each summarised by
one job, and the summaries combined (docs/choices.md, "Ten million predictions and beyond").
A chunk's summary :class:`ChunkSums` holds, for fixed bin edges on a binning variable x
(uE by default; edges fixed beforehand, e.g. from a first pass or a subsample, because
equal-count bins would need a global sort):

* the row count M and the sums of Z and Z^2 (ZMS = sum Z^2 / M, P002 Eq. 14; <Z> = sum Z / M);
* per bin b (x in [edge_b, edge_b+1), the last bin closed): count M_b and the sums of Z and Z^2
  (LZM_b = sum_b Z / M_b, LZMS_b = sum_b Z^2 / M_b, P003 Eq. 5-6 local statistics);
* optionally ``n_boot`` Poisson-bootstrap replicates (Hanley & MacGibbon 2006; Chamandy et al.
  2012, "Estimating uncertainty for massive data streams"): each row gets weights
  w ~ Poisson(1), one per replicate, and a replicate keeps sum w, sum w Z and sum w Z^2.
  The weights of global row block k (``ROW_BLOCK`` rows) come from child k of the seed
  (``SeedSequence(seed)`` with spawn key (k,), the stream engine's value generator), so a row's
  weights do not depend on how the rows are cut into chunks as long as every chunk starts at a
  multiple of ``ROW_BLOCK`` (checked).

**Exact combination.** Every sum is kept as Shewchuk's non-overlapping partials (the
``msum`` of the Python ``math.fsum`` recipe; "Adaptive precision floating-point arithmetic",
1997): combining chunks merges their partials without rounding, and a reported value is the
correctly rounded sum of all terms, whatever the chunking. So combined chunks give *exactly*
the numbers of one summary of all rows (tested). Against the in-memory engine, which sums
with NumPy's pairwise summation, they agree to rounding (about 1e-16 relative).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> u = rng.uniform(0.5, 2.0, 1000)
>>> e = u * rng.standard_normal(1000)
>>> edges = np.array([0.5, 1.0, 1.5, 2.0])
>>> whole = chunk_sums(e, u, edges)
>>> parts = combine([chunk_sums(e[:400], u[:400], edges), chunk_sums(e[400:], u[400:], edges)])
>>> parts.zms() == whole.zms(), round(whole.zms(), 4), whole.bin_counts.tolist()
(True, 1.0518, [302, 340, 358])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike

__all__ = ["ROW_BLOCK", "ChunkSums", "chunk_sums", "combine"]

ROW_BLOCK = 1 << 16
"""Rows per Poisson-weight stream block (fixes the bootstrap stream; chunks start on it)."""

_MAX_PARTIALS = 64  # non-overlapping doubles needed for any finite double sum: < 40


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _binned_msum(parts, lengths, bins, values):  # pragma: no cover - compiled
    """Add values[k] to the partials of bin bins[k], exactly."""
    one = np.empty(1)
    empty = np.empty(0)
    for k in range(values.size):
        one[0] = values[k]
        _msum_into(parts, lengths, bins[k], one, empty)


@dataclass(frozen=True)
class ExactSums:
    """Several exact sums, each as non-overlapping partials: ``parts[i, :lengths[i]]``."""

    parts: FloatArray
    lengths: NDArray[np.int64]

    @classmethod
    def zeros(cls, n: int) -> ExactSums:
        return cls(np.zeros((n, _MAX_PARTIALS)), np.zeros(n, np.int64))

    def add(self, row: int, values: FloatArray, weights: FloatArray | None = None) -> None:
        w = np.empty(0) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        _msum_into(self.parts, self.lengths, row, np.ascontiguousarray(values, np.float64), w)

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
class ChunkSums:
    """Sufficient statistics of one chunk of rows, or of several combined (module doc).

    Attributes:
        n: rows; edges: the fixed bin edges; first_row: global index of the first row.
        totals: exact sums of Z and Z^2; bins: exact per-bin sums of Z (rows 0..N-1) and Z^2
            (rows N..2N-1); bin_counts: rows per bin.
        boot: exact Poisson-bootstrap sums, rows (w, w Z, w Z^2) per replicate (3 n_boot rows).
    """

    n: int
    edges: FloatArray
    first_row: int
    totals: ExactSums = field(repr=False)
    bins: ExactSums = field(repr=False)
    bin_counts: NDArray[np.int64]
    boot: ExactSums = field(repr=False)
    n_boot: int = 0

    def mean_z(self) -> float:
        """<Z> = sum Z / M."""
        return float(self.totals.values()[0] / self.n)

    def zms(self) -> float:
        """ZMS = sum Z^2 / M (P002 Eq. 14)."""
        return float(self.totals.values()[1] / self.n)

    def local(self) -> tuple[FloatArray, FloatArray]:
        """(LZM_b, LZMS_b) of every bin; NaN in an empty bin."""
        sums = self.bins.values()
        k = self.bin_counts.size
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums[:k] / self.bin_counts, sums[k:] / self.bin_counts

    def boot_zms(self) -> FloatArray:
        """Poisson-bootstrap replicates of ZMS: sum w Z^2 / sum w (shape (n_boot,))."""
        v = self.boot.values().reshape(self.n_boot, 3)
        return v[:, 2] / v[:, 0]


def _block_seed(root: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """Child k of ``root`` (what ``root.spawn`` gives as its k-th child), without spawning."""
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, k), pool_size=root.pool_size
    )


def chunk_sums(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    edges: ArrayLike,
    *,
    by: ArrayLike | None = None,
    first_row: int = 0,
    n_boot: int = 0,
    seed: SeedLike = 0,
) -> ChunkSums:
    """Sufficient statistics of one chunk of rows (global rows ``first_row`` .. + len - 1).

    Args:
        errors, uncertainties: E and uE of the chunk.
        edges: fixed increasing bin edges on ``by`` (default uE); rows outside are refused.
        first_row: global index of the chunk's first row; a multiple of :data:`ROW_BLOCK`
            when ``n_boot`` > 0 (the Poisson weights of row block k come from seed child k).
        n_boot: Poisson-bootstrap replicates; seed: their seed (the same for every chunk).
    """
    e, u = errors_uncertainties(errors, uncertainties)
    x = u if by is None else np.asarray(by, dtype=np.float64)
    edg = np.asarray(edges, dtype=np.float64)
    if edg.ndim != 1 or edg.size < 2 or np.any(np.diff(edg) <= 0):
        raise ValueError("edges must be at least two strictly increasing values")
    if x.shape != e.shape or np.any(x < edg[0]) or np.any(x > edg[-1]):
        raise ValueError(f"by must have one value per row, inside [{edg[0]}, {edg[-1]}]")
    if n_boot and first_row % ROW_BLOCK:
        raise ValueError(f"first_row must be a multiple of ROW_BLOCK = {ROW_BLOCK} with n_boot")
    z = e / u
    z2 = np.square(z)
    k = edg.size - 1
    b = np.minimum(np.searchsorted(edg, x, side="right") - 1, k - 1).astype(np.int64)
    totals = ExactSums.zeros(2)
    totals.add(0, z)
    totals.add(1, z2)
    bins = ExactSums.zeros(2 * k)
    _binned_msum(bins.parts, bins.lengths, b, z)
    _binned_msum(bins.parts, bins.lengths, b + k, z2)
    boot = ExactSums.zeros(3 * n_boot)
    if n_boot:
        root = seed_sequence(seed)
        for lo in range(0, e.size, ROW_BLOCK):
            rows = slice(lo, lo + ROW_BLOCK)
            rng = value_generator(_block_seed(root, (first_row + lo) // ROW_BLOCK))
            w = rng.poisson(1.0, size=(n_boot, ROW_BLOCK))[:, : z[rows].size].astype(float)
            for r in range(n_boot):
                boot.add(3 * r, w[r])
                boot.add(3 * r + 1, z[rows], w[r])
                boot.add(3 * r + 2, z2[rows], w[r])
    return ChunkSums(e.size, edg, first_row, totals, bins,
                     np.bincount(b, minlength=k).astype(np.int64), boot, n_boot)


def combine(chunks: Sequence[ChunkSums]) -> ChunkSums:
    """Combine chunk summaries exactly (same edges and n_boot required); any order."""
    if not chunks:
        raise ValueError("nothing to combine")
    first = chunks[0]
    out = first
    for c in chunks[1:]:
        if not np.array_equal(c.edges, first.edges) or c.n_boot != first.n_boot:
            raise ValueError("chunks must share their bin edges and n_boot")
        out = ChunkSums(out.n + c.n, first.edges, min(out.first_row, c.first_row),
                        out.totals.merge(c.totals), out.bins.merge(c.bins),
                        out.bin_counts + c.bin_counts, out.boot.merge(c.boot), first.n_boot)
    return out
