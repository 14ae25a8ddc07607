"""Validation probability p_val of a calibration statistic (P001 Sect. IV.3, Eq. 21).

Over N Monte Carlo repeats of a calibrated synthetic set, each giving a zeta-score,

    p_val = (1/N) sum_i 1(abs(zeta_i) <= 1),

the fraction of bootstrap CIs that contain the true reference. Its nominal target is the
confidence level of the CIs (0.95). Its 95% interval is the Wilson score interval with
continuity correction (author's code: ``DescTools::BinomCI(..., "wilsoncc")``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from uqval.stats.binomial import wilson_cc_interval
from uqval.stats.zeta import is_valid_zeta

__all__ = ["ValidationProbability", "validation_probability"]


@dataclass(frozen=True)
class ValidationProbability:
    """p_val with its binomial confidence interval.

    Attributes:
        p_val: fraction of repeats with abs(zeta) <= 1.
        ci_low, ci_high: Wilson-cc interval of p_val.
        n_valid: number of repeats with abs(zeta) <= 1.
        n: number N of repeats.
    """

    p_val: float
    ci_low: float
    ci_high: float
    n_valid: int
    n: int


def validation_probability(zeta: ArrayLike, confidence: float = 0.95) -> ValidationProbability:
    """p_val = mean(abs(zeta_i) <= 1) with a Wilson-cc interval (P001 Eq. 21).

    Args:
        zeta: zeta-scores of the N Monte Carlo repeats (1-D, non-empty). Infinite values
            count as not validated; NaN is rejected.
        confidence: level of the binomial interval.
    """
    z = np.asarray(zeta, dtype=np.float64)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"zeta must be a non-empty 1-D array, got shape {z.shape}")
    if np.isnan(z).any():
        raise ValueError(f"zeta contains {np.count_nonzero(np.isnan(z))} NaN value(s)")
    n_valid = int(np.count_nonzero(is_valid_zeta(z)))
    low, high = wilson_cc_interval(n_valid, z.size, confidence)
    return ValidationProbability(
        p_val=n_valid / z.size, ci_low=float(low), ci_high=float(high), n_valid=n_valid, n=z.size
    )
