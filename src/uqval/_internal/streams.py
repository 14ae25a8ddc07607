"""The one random-stream engine: from a seed to the random numbers of every Monte Carlo step.

Policy (the same for the bootstrap, the simulated references, the score references, the
comparison's paired bootstrap and group calibration):

* A run of ``n`` replicates (bootstrap resamples, simulated sets, ...) of ``m`` values each is
  cut into fixed **stream blocks** of ``rows = max(1, block_elements // m)`` replicates
  (``block_elements`` = 2**20 by default: 8 MiB of float64 per block). Block j draws from child j
  of ``SeedSequence(seed).spawn(n_blocks)``. A replicate's numbers therefore depend only on
  (seed, m, its index), never on how many workers, chunks or cores evaluate the blocks.
* **Indices** (resampling rows, permutations) come from ``Generator(SFC64(child))``: the
  compiled kernels of :mod:`uqval.stats.resample_kernel` reproduce that stream exactly.
* **Values** (simulated errors, group draws) come from ``Generator(PCG64(child))``, NumPy's
  default bit generator; the values of a generative distribution D (N(0, 1), t_s(nu)) are
  drawn by the compiled polar samplers of :mod:`uqval.stats.variate_kernel`, seeded by four
  integers of that generator.

>>> blocks = stream_blocks(0, n=5, m=2**19)
>>> [(b.start, b.size) for b in blocks]
[(0, 2), (2, 2), (4, 1)]
>>> x = blocks[0].values().standard_normal(3)
>>> bool((x == value_generator(blocks[0].seed).standard_normal(3)).all())
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike

__all__ = [
    "BLOCK_ELEMENTS",
    "StreamBlock",
    "index_generator",
    "run_jobs",
    "stream_blocks",
    "value_generator",
]

BLOCK_ELEMENTS = 1 << 20
"""Values per stream block (fixes the random stream: changing it changes every number)."""


def index_generator(seed: np.random.SeedSequence) -> np.random.Generator:
    """The generator of resampling indices and permutations: SFC64."""
    return np.random.Generator(np.random.SFC64(seed))


def value_generator(seed: np.random.SeedSequence) -> np.random.Generator:
    """The generator of simulated values: PCG64 (what ``numpy.random.default_rng`` gives)."""
    return np.random.Generator(np.random.PCG64(seed))


@dataclass(frozen=True)
class StreamBlock:
    """Replicates ``start .. start + size - 1``, drawn from their own child seed."""

    start: int
    size: int
    seed: np.random.SeedSequence

    @property
    def stop(self) -> int:
        """One past the last replicate of the block."""
        return self.start + self.size

    def indices(self, m: int) -> np.ndarray:
        """(size, m) row indices in [0, m), the block's resamples."""
        return index_generator(self.seed).integers(0, m, size=(self.size, m))

    def values(self) -> np.random.Generator:
        """A fresh generator of the block's simulated values."""
        return value_generator(self.seed)


def stream_blocks(
    seed: SeedLike, n: int, m: int, block_elements: int = BLOCK_ELEMENTS
) -> list[StreamBlock]:
    """Split ``n`` replicates of ``m`` values into the fixed stream blocks of the policy above."""
    rows = max(1, block_elements // max(1, m))
    children = seed_sequence(seed).spawn(-(-n // rows))
    return [
        StreamBlock(start=j * rows, size=min(rows, n - j * rows), seed=child)
        for j, child in enumerate(children)
    ]


def run_jobs(work: Callable[[tuple[int, np.random.SeedSequence]], None],
             jobs: Sequence[tuple[int, np.random.SeedSequence]], n_workers: int, *,
             stop: Callable[[int], bool] | None = None) -> int:
    """Run ``work`` on each (start, seed) chunk job, in threads when ``n_workers`` > 1, and
    return how many jobs ran. Each job writes its own slice of the output, so the result
    does not depend on the threads. With ``stop`` (sequential tests), the jobs run in
    batches of doubling size and ``stop(jobs run so far)`` is asked between batches: the
    jobs that ran are always the first ones, so a test stopped early used the first
    permutations of the fixed rule."""
    batch = len(jobs) if stop is None else max(n_workers, 2)
    first = 0
    with ThreadPoolExecutor(max_workers=max(1, n_workers)) as pool:
        while first < len(jobs):
            part = jobs[first : first + batch]
            list(pool.map(work, part) if n_workers > 1 and len(part) > 1 else map(work, part))
            first += len(part)
            if stop is not None and first < len(jobs) and stop(first):
                break
            batch *= 2
    return first
