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
    """LZM and LZMS tables along one conditioning variable, with their f_v.

    Examples:
        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_analysis
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> x = rng.uniform(0.0, 1.0, 1000)  # an input feature
        >>> res = local_analysis(e, u, x, equal_count_bins(x, 10), seed=0, n_boot_min=500)
        >>> s = res.summary()
        >>> s["n_bins"], s["fv_zm"]["value"], s["fv_zms"]["value"]
        (10, 1.0, 1.0)
    """

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
    """LZM (Student-t) and LZMS (BCa, max(n_boot_min, n) replicates per bin) along x.

    Examples:
        Uncertainties too small by 2 for half of the feature range: half of the LZMS bins fail,
        the LZM bins (the mean of Z stays 0) do not:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_analysis
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> x = rng.uniform(0.0, 1.0, 1000)  # an input feature
        >>> e_bad = np.where(x > 0.5, 2 * e, e)
        >>> res = local_analysis(e_bad, u, x, equal_count_bins(x, 10), seed=0, n_boot_min=500)
        >>> res.fv_zm.value, res.fv_zms.value
        (1.0, 0.5)
        >>> res.zms["value"].round(1).tolist()
        [1.1, 1.2, 0.9, 1.2, 1.0, 2.9, 4.2, 3.5, 5.0, 4.0]
    """
    zm = local_zmean(errors, uncertainties, x, bins)
    zms = local_zms(errors, uncertainties, x, bins, method="bootstrap", n_boot_min=n_boot_min, seed=seed)
    return LocalAnalysis(zm, zms, fraction_valid(zm), fraction_valid(zms))

