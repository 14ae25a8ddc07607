"""Recalibration of uncertainties: maps fitted on one set and applied to another, and honest
out-of-fold recalibration (see :mod:`uqval.recalibration.maps`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.recalibration.maps import (
        BinnedScaling,
        IsotonicMap,
        SigmaScaling,
        binned_scaling,
        cross_validate,
        isotonic,
        sigma_scaling,
    )

__all__ = [
    "BinnedScaling",
    "IsotonicMap",
    "SigmaScaling",
    "binned_scaling",
    "cross_validate",
    "isotonic",
    "sigma_scaling",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
