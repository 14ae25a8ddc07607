"""Adaptivity validation with the fraction of valid bins f_v (adaptivity paper P003, Sect. III).

* LZM (<Z> per bin, target 0, Student-t intervals) and LZMS (<Z^2> per bin, target 1,
  bootstrap intervals) along a conditioning variable, summarised by f_v, the fraction of bins
  whose interval contains the target, with its binomial 95 % interval (target 0.95).

The paper's random-order test of tied feature values and its rank-correlation table are in
:mod:`uqval.papers.adaptivity.random_order`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval.calibration.fraction_valid import FractionValid, fraction_valid
from uqval.calibration.local import local_zmean, local_zms


@dataclass(frozen=True)
class LocalAnalysis:
    """LZM and LZMS tables along one conditioning variable, with their f_v."""

    zm: pd.DataFrame
    zms: pd.DataFrame
    fv_zm: FractionValid
    fv_zms: FractionValid

    def summary(self) -> dict:
        return {"fv_zm": asdict(self.fv_zm), "fv_zms": asdict(self.fv_zms), "n_bins": len(self.zm)}


def local_analysis(
    errors: ArrayLike, uncertainties: ArrayLike, x: ArrayLike, bins: Sequence[np.ndarray], seed: int | np.random.SeedSequence,
    n_boot_min: int = 1500,
) -> LocalAnalysis:
    """LZM (Student-t) and LZMS (BCa, max(n_boot_min, n) replicates per bin) along x."""
    zm = local_zmean(errors, uncertainties, x, bins)
    zms = local_zms(errors, uncertainties, x, bins, method="bootstrap", n_boot_min=n_boot_min, seed=seed)
    return LocalAnalysis(zm, zms, fraction_valid(zm), fraction_valid(zms))

