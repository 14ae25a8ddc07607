"""Comparison of several models' errors and uncertainties: scores, paired differences and ranking
(see :mod:`uqval.comparison.engine`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.comparison.engine import compare
    from uqval.comparison.result import ModelComparison

__all__ = [
    "ModelComparison",
    "compare",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
