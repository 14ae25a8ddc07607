"""Type aliases shared by the library modules."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
"""A float64 NumPy array."""

SeedLike = int | np.random.SeedSequence | None
"""What every seeded function accepts: an integer seed, a SeedSequence, or None."""
