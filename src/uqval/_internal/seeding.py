"""Deterministic seeds derived from the configured base seed and labels.

A job's seed depends only on the base seed and on what it computes (dataset id, grid point,
chunk index), never on scheduling, so results do not depend on --cores or on how work is split.
"""

from __future__ import annotations

import hashlib

import numpy as np

from uqval._internal.checks import seed_value
from uqval._internal.types import SeedLike


def derive_seed(base: int, *labels: object) -> int:
    """A 63-bit seed from ``base`` and labels: first 8 bytes of SHA-256("base/label/...")."""
    text = "/".join([str(int(base)), *(str(label) for label in labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def seed_sequence(seed: SeedLike, name: str = "seed") -> np.random.SeedSequence:
    """``seed`` itself if it is a ``SeedSequence``, else ``SeedSequence(seed)`` (an int >= 0,
    or None for fresh entropy). Anything else (a Generator, a string, a float, a negative
    int) raises a ValueError naming ``name`` (:func:`uqval._internal.checks.seed_value`)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    checked = seed_value(seed, name)
    return checked if isinstance(checked, np.random.SeedSequence) else np.random.SeedSequence(
        checked)
