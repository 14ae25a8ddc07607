"""What the advice reads of a validation (:class:`AdviceInputs`), apart from the rules of
:mod:`uqval.validation.advice` so that the modules those rules use
(:mod:`uqval.validation.attribution`) can read it too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval.calibration.joint import JointCalibration
from uqval.calibration.robust_scale import RobustScale, TailShares
from uqval.stats.groups import GroupIndex

__all__ = ["AdviceInputs"]


@dataclass(frozen=True)
class AdviceInputs:
    """What :func:`advice_table` reads of a validation."""

    verdicts: pd.DataFrame
    bins: Mapping[str, pd.DataFrame]
    scale: tuple[float, float, float]
    reference: float
    robust: RobustScale
    tails: TailShares
    dominant: NDArray[np.intp]
    errors: NDArray[np.float64]
    uncertainties: NDArray[np.float64]
    features: Mapping[str, NDArray[np.float64]]
    uncertainty_name: str
    tolerance: float
    zms_reliable: bool
    joint: JointCalibration | None = None
    rows: int | None = None
    """Rows of the whole set when the arrays are its subsample (a set read in parts)."""
    groups: GroupIndex | None = None
    """The rows' groups (the rest's factor takes the cluster-robust interval over them)."""
    n_boot: int | None = None
    """Replicates of the studentized cluster bootstrap of sd(Z) beside an advised offset, for
    rows in groups (:func:`uqval.validation.rest_scale.spread_factor`); None: the
    cluster-robust t interval alone."""
    seed: np.random.SeedSequence | int = 0
    """Seed of that bootstrap (the validation's own stream for it)."""
    mean_square: str = "ZMS"
    """How the sentences name the average stage's mean square: ZMS, or for an ensemble k^2,
    the square of its factor net of the finite-member floor."""
    direct_spread: bool = True
    """sd(Z) beside an advised offset gets its interval from the rows at hand
    (:func:`uqval.validation.rest_scale.spread_factor`); False: from the average stage's
    intervals of ZMS and <Z> (:func:`uqval.validation.rest_scale.sd_after_offset`), for an
    ensemble (ZMS net of the finite-member floor). A set read in parts (``rows`` set) uses
    the latter too: its arrays are a subsample."""
    fine_bins: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    """Per-bin tables of the finer grid (:attr:`uqval.validation.stages.ConditionalStage.fine_tables`):
    the ranges are searched on both grids (:func:`uqval.validation.bin_ranges.grid_ranges`)."""
