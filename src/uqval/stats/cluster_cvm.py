"""Is the PIT uniform when the rows come in groups? The Cramér-von Mises test with a
multiplier bootstrap over the groups.

Under a right predictive the PIT u_i of every row is U(0, 1), but the rows of one group
(atoms of one structure, conformers of one molecule) are dependent, so the null law of the
Cramér-von Mises statistic W² = n ∫ (F_n(t) - t)² dt of independent rows (Csörgő & Faraway
1996) is too narrow. Write F_n(t) - t = (1/n) Σ_g D_g(t), D_g(t) = Σ_{i in g} (1{u_i <= t} - t),
a sum of G independent, centred group processes. The multiplier (wild cluster) bootstrap
draws W*² = n ∫ ((1/n) Σ_g ξ_g D_g(t))² dt with Rademacher multipliers ξ_g: given the data
its covariance is (1/n) Σ_g D_g(s) D_g(t), which estimates that of √n (F_n - t) whatever the
dependence inside a group, so W*² has the null law of W² as the groups grow in number (the
multiplier central limit theorem; van der Vaart & Wellner 1996, Sect. 2.9; for clustered
data Kline & Santos 2012, the wild cluster bootstrap). The integral is taken on the grid
t_j = j/T, j = 1..T (T = :data:`GRID`, fewer with very many groups), for W² and every W*²
alike, so the test compares like with like; p = (1 + #{W*² >= W²})/(B + 1). The false-alarm
rate on grouped calibrated predictives is measured in ``benchmarks/group_predictive_rates.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike
from uqval.stats.groups import GroupIndex

__all__ = ["GRID", "ClusterCvM", "cluster_cvm_uniform"]

GRID = 512
"""Points t_j of the grid on which W² and its multiplier replicates are integrated."""
MAX_CELLS = 20_000_000
"""Most (group, grid point) cells held at once: with more groups the grid is coarser."""
MAX_MULTIPLIERS = 4_000_000
"""Most multipliers drawn at once (a block of replicates holds block x G of them)."""


class ClusterCvM(NamedTuple):
    """Outcome of :func:`cluster_cvm_uniform`: W² on the grid, its p-value, the replicates
    and the grid size."""

    statistic: float
    p_value: float
    n_boot: int
    grid: int


def cluster_cvm_uniform(u: ArrayLike, groups: GroupIndex, *, n_boot: int = 999,
                        seed: SeedLike = 0) -> ClusterCvM:
    """Cramér-von Mises test of U(0, 1) for PIT values ``u`` of rows in ``groups`` (module
    docstring).

    >>> rng = np.random.default_rng(0)
    >>> g = GroupIndex.from_codes(np.repeat(np.arange(100), 20))
    >>> shared = np.repeat(rng.standard_normal(100), 20)  # half the variance per group
    >>> from scipy.special import ndtr
    >>> u = ndtr((shared + rng.standard_normal(2000)) / np.sqrt(2))  # uniform, dependent
    >>> cluster_cvm_uniform(u, g, n_boot=499).p_value > 0.05
    True
    >>> cluster_cvm_uniform(u**2, g, n_boot=499).p_value  # not uniform: the smallest p
    0.002
    """
    values = np.asarray(u, dtype=np.float64)
    if values.shape != (groups.size,):
        raise ValueError(f"u must hold one value per row ({groups.size}), got {values.shape}")
    n, g = values.size, groups.n_groups
    t_points = int(max(16, min(GRID, MAX_CELLS // max(g, 1))))
    cells = np.clip(np.ceil(values * t_points).astype(np.int64) - 1, 0, t_points - 1)
    # counts[g, j] = rows of group g with u in (j/T, (j + 1)/T]; D_g(t_j) = cumsum - n_g t_j
    counts = np.bincount(groups.codes * t_points + cells, minlength=g * t_points).reshape(
        g, t_points).astype(np.float64)
    grid = np.arange(1, t_points + 1) / t_points
    d = np.cumsum(counts, axis=1) - groups.counts[:, None] * grid[None, :]
    observed = float(np.sum(np.square(d.sum(axis=0)))) / (n * t_points)
    rng = np.random.default_rng(seed_sequence(seed))
    exceed = 0
    done = 0
    while done < n_boot:
        size = min(max(1, MAX_MULTIPLIERS // g), n_boot - done)
        xi = 2.0 * rng.integers(0, 2, size=(size, g)).astype(np.float64) - 1.0
        replicate = np.sum(np.square(xi @ d), axis=1) / (n * t_points)
        exceed += int(np.count_nonzero(replicate >= observed * (1.0 - 1e-12)))
        done += size
    return ClusterCvM(observed, (1 + exceed) / (n_boot + 1), n_boot, t_points)
