"""zeta-scores with asymmetric confidence intervals (P001 Eq. 14; P002 Eq. 20).

The signed distance of the estimate to its reference is divided by the length of the
half-interval lying on the reference side::

    zeta = (theta_est - theta_ref) / (I+ - theta_est)   if theta_est - theta_ref <= 0
    zeta = (theta_est - theta_ref) / (theta_est - I-)   if theta_est - theta_ref >  0

The statistic is validated when abs(zeta) <= 1 (P001 Eq. 15), which is equivalent to
theta_ref lying in [I-, I+].
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["is_valid_zeta", "zeta_score"]


def zeta_score(
    estimate: ArrayLike,
    reference: ArrayLike,
    ci_low: ArrayLike,
    ci_high: ArrayLike,
    *,
    reference_uncertainty: ArrayLike = 0.0,
) -> float | NDArray[np.float64]:
    """zeta-score of an estimate against a reference value (P001 Eq. 14), vectorised.

    Args:
        estimate: theta_est.
        reference: theta_ref (e.g. 1 for ZMS, 0 for RCE).
        ci_low, ci_high: limits I-, I+ of the confidence interval of theta_est.
        reference_uncertainty: expanded uncertainty U_t = 2 u(theta_ref) of a simulated
            reference (simref paper P002, author's code ``fZetaBS``). The half-width then
            becomes ``sqrt((theta_est - lim)^2 + U_t^2)``, lim being the limit on the
            reference side. The default 0 gives Eq. 14 exactly.

    Returns:
        zeta with the broadcast shape of the inputs (a float for scalar inputs). It is 0
        when the estimate equals the reference, and +-inf when the estimate differs from
        the reference but the half-width is 0.

    Examples:
        An estimate above its reference is divided by its distance to the lower limit:

        >>> from uqval import zeta_score
        >>> round(zeta_score(1.2, 1.0, ci_low=1.1, ci_high=1.35), 3)  # 0.2/0.1: not valid
        2.0
        >>> round(zeta_score(1.05, 1.0, ci_low=0.95, ci_high=1.2), 3)  # 1 inside: valid
        0.5
        >>> zeta_score([0.9, 1.0, 1.3], 1.0, [0.8, 0.9, 1.2], [1.05, 1.1, 1.4]).round(3)
        array([-0.667,  0.   ,  3.   ])
    """
    est = np.asarray(estimate, dtype=np.float64)
    delta = est - np.asarray(reference, dtype=np.float64)
    limit = np.where(delta <= 0.0, np.asarray(ci_high, dtype=np.float64), ci_low)
    half_width = np.hypot(est - limit, np.asarray(reference_uncertainty, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        zeta = np.where(delta == 0.0, 0.0, delta / half_width)
    return float(zeta) if zeta.ndim == 0 else zeta


def is_valid_zeta(zeta: ArrayLike) -> bool | NDArray[np.bool_]:
    """Validation test abs(zeta) <= 1 (P001 Eq. 15); NaN is not valid."""
    valid = np.abs(np.asarray(zeta, dtype=np.float64)) <= 1.0
    return bool(valid) if valid.ndim == 0 else valid
