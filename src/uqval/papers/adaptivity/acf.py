"""Autocorrelation function of a series of bin statistics (adaptivity paper P003, Fig. 4 insets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.types import FloatArray
from uqval.stats.intervals import normal_quantile

__all__ = [
    "ACFResult",
    "acf",
]

@dataclass(frozen=True)
class ACFResult:
    """Sample autocorrelation function (R ``acf``).

    Attributes:
        lags: 0, 1, ..., max_lag.
        values: r_k, with r_0 = 1.
        band: half-width of the white-noise band, Phi^-1((1 + c)/2)/sqrt(N).
    """

    lags: NDArray[np.int64]
    values: FloatArray
    band: float


def acf(values: ArrayLike, max_lag: int | None = None, confidence: float = 0.95) -> ACFResult:
    """Sample autocorrelation of a series, as R ``stats::acf`` (P003 Sect. III.B.1, Fig. 3).

    r_k = sum_{t=1}^{N-k} (x_t - xbar)(x_{t+k} - xbar) / sum_t (x_t - xbar)^2, for
    k = 0..max_lag with max_lag = floor(10 log10 N) by default, capped at N - 1. The band
    +-Phi^-1((1 + c)/2)/sqrt(N) (+-1.96/sqrt(N)) is R's white-noise band.

    Args:
        values: the series (e.g. the LZMS values ordered along the conditioning variable).
        max_lag: largest lag (R ``lag.max``).
        confidence: level of the white-noise band.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError("values must be a finite 1-D series of at least 2 points")
    n = x.size
    lag = int(np.floor(10.0 * np.log10(n))) if max_lag is None else int(max_lag)
    if lag < 0:
        raise ValueError("max_lag must be non-negative")
    lag = min(lag, n - 1)
    d = x - x.mean()
    denom = float(d @ d)
    if denom == 0.0:
        raise ValueError("the autocorrelation of a constant series is undefined")
    full = np.correlate(d, d, mode="full")[n - 1 : n + lag]
    return ACFResult(np.arange(lag + 1), full / denom, normal_quantile(confidence) / np.sqrt(n))

