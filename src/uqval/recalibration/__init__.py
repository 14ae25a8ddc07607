"""Recalibration of uncertainties: maps fitted on one set and applied to another, and honest
out-of-fold recalibration (see :mod:`uqval.recalibration.maps`).
"""

from __future__ import annotations

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
