"""Reference implementations the tests compare the library against (the authors' per-bin
formulas written out, brute force), kept out of the package because only tests use them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.types import SeedLike
from uqval.calibration.local import Segments, rce_table
from uqval.stats.intervals import Interval, cho_varvar, mean_t_interval, power_interval


def var_cho_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Var(z) +- z_c sqrt(vv) (ErrViewLib ``varZCI(method = "cho")``; P000 Sect. III.3.4).

    Var uses the n - 1 denominator; vv is :func:`cho_varvar`. Reduces over the last axis.
    """
    arr = np.asarray(z, dtype=np.float64)
    return power_interval(np.var(arr, axis=-1, ddof=1), cho_varvar(arr), 1.0, confidence)


def lzisd_from_var(v: ArrayLike, vv: ArrayLike, confidence: float = 0.95) -> Interval:
    """LZISD S = V^(-1/2) with the delta-method SD(S) = sqrt(vv)/(2 V^(3/2)).

    P000 Sect. III.3.4; ErrViewLib ``rsdZCI(method = "cho")``: S +- z_c SD(S). ``v`` is
    Var(Z) and ``vv`` its estimated variance (:func:`cho_varvar`); vectorised.
    """
    return power_interval(v, vv, -0.5, confidence)


def rmse_cho_interval(
    E: ArrayLike, confidence: float = 0.95, *, centered: bool = False
) -> Interval:
    """Interval of the RMSE of a reliability-diagram bin by the delta method (P000 Sect. III.3.3).

    * ``centered=False`` (default, P000 text): RMSE = sqrt(<E^2>), with the estimated
      variance of <E^2> taken as var(E^2)/n (n - 1 denominator), so
      SD = sqrt(var(E^2)/n)/(2 RMSE).
    * ``centered=True`` (authors' ``sdZCI(method = "cho")``): sd(E) = Var(E)^(1/2) with
      SD = sqrt(vv)/(2 sqrt(Var(E))), vv from :func:`cho_varvar`.

    Reduces over the last axis.
    """
    arr = np.asarray(E, dtype=np.float64)
    if centered:
        return power_interval(np.var(arr, axis=-1, ddof=1), cho_varvar(arr), 0.5, confidence)
    sq = np.square(arr)
    var_mse = np.var(sq, axis=-1, ddof=1) / arr.shape[-1]
    return power_interval(sq.mean(axis=-1), var_mse, 0.5, confidence)


def ms_stud_interval(z: ArrayLike, confidence: float = 0.95) -> Interval:
    """Mean-square interval <z^2> +- t sd(z^2)/sqrt(n) (ErrViewLib ``ZMSCI`` "stud").

    Used for the whole-set ZMS of P003 (n >= 200). Reduces over the last axis.
    """
    return mean_t_interval(np.square(np.asarray(z, dtype=np.float64)), confidence)


def segment_edges(bins: Sequence[ArrayLike]) -> NDArray[np.intp]:
    """Edges e_0 = 0 < e_1 < ... < e_N of bins that are consecutive segments of 0..e_N - 1.

    Bin i must be exactly ``arange(e_i, e_{i+1})``, which holds for equal-count (or
    adaptive) bins of data already sorted by the conditioning variable.

    Raises:
        ValueError: if the bins are not contiguous, ordered segments starting at 0.
    """
    segments = Segments.from_bins(bins, np.iinfo(np.intp).max, 1)
    if not np.array_equal(segments.order, np.arange(segments.order.size)):
        raise ValueError(
            "bins are not contiguous ordered segments of 0..M-1; sort the data by the "
            "conditioning variable first"
        )
    return np.append(segments.starts, segments.order.size).astype(np.intp)


def global_rce(
    E: ArrayLike,
    uE: ArrayLike,
    *,
    confidence: float = 0.95,
    n_boot: int = 5000,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """RCE of the whole set with a BCa interval of ``n_boot`` replicates.

    The authors' ``plotLRCE`` uses a 500-replicate percentile interval here ("too long
    otherwise"); 5000 BCa replicates is their choice for full-set RCE in P001/P002.
    """
    return rce_table(E, uE, None, None, confidence, n_boot, seed)


