"""Comparison of several models' errors and uncertainties: scores, paired differences and ranking
(see :mod:`uqval.comparison.engine`).
"""

from __future__ import annotations

from uqval.comparison.engine import (
    ModelComparison,
    compare,
)

__all__ = [
    "ModelComparison",
    "compare",
]
