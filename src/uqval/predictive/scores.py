"""Per-row proper scores of any predictive, for validation and comparison (negatively
oriented, units of y except the NLL).

* ``crps``: :meth:`~uqval.predictive.Predictive.crps` (closed forms, ensemble CRPS;
  :mod:`uqval.predictive.crps`); not for quantile sets and
  :class:`~uqval.predictive.Intervals`: their CRPS would be 2 × the mean pinball over the
  given levels, exactly twice their ``check_score``, and it reads like a CRPS next to real
  ones while it is not one (for a calibrated normal, 12 % below the true CRPS 1/√π with the
  levels 0.05, 0.25, 0.5, 0.75, 0.95 and 28 % below with 0.05, 0.5, 0.95; two ends per
  level are no distribution at all); ``crps_fair`` for ensembles and samples (Ferro 2014);
* ``interval_score_L``: (high - low) + (2/α)(low - y)1{y < low} + (2/α)(y - high)1{y > high},
  α = 1 - L, for each level L of the central intervals (Gneiting and Raftery 2007, Eq. 43);
* ``check_score``: the pinball loss ρ_τ(y - q_τ) averaged over the levels: the given levels
  of a quantile set or of intervals, else τ = 0.01, ..., 0.99 (as
  :func:`uqval.check_score`);
* ``nll``: -ln p(y) for parametric predictives;
* ``abs_error``, ``sq_error`` of the point prediction (MAE and RMSE = sqrt(mean)).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.predictive.base import Predictive, observations
from uqval.predictive.crps import pinball
from uqval.predictive.ensemble import Ensemble
from uqval.predictive.parametric import _LocationScale
from uqval.predictive.quantiles import Quantiles

__all__ = ["CHECK_LEVELS", "interval_score_rows", "score_rows"]

CHECK_LEVELS = np.round(np.linspace(0.01, 0.99, 99), 10)
"""Levels of the check score of predictives that are not quantile sets."""


def interval_score_rows(y: FloatArray, low: FloatArray, high: FloatArray,
                        level: float) -> FloatArray:
    """Interval score per row (module docstring).

    >>> interval_score_rows(np.array([0.0, 3.0]), np.array([-1.0, -1.0]), np.array([1.0, 1.0]),
    ...                     0.9).round(6).tolist()
    [2.0, 42.0]
    """
    alpha = 1.0 - level
    return ((high - low) + (2.0 / alpha) * np.maximum(low - y, 0.0)
            + (2.0 / alpha) * np.maximum(y - high, 0.0))


def score_rows(y_true: ArrayLike, predictive: Predictive,
               levels: Sequence[float]) -> dict[str, FloatArray]:
    """Every score that applies to ``predictive``, per row (module docstring).

    >>> from uqval.predictive import Normal
    >>> s = score_rows([0.0, 1.0], Normal([0.0, 0.0], [1.0, 1.0]), [0.9])
    >>> sorted(s)
    ['abs_error', 'check_score', 'crps', 'interval_score_0.9', 'nll', 'sq_error']
    """
    y = observations(y_true, len(predictive))
    out: dict[str, FloatArray] = {}
    if not isinstance(predictive, Quantiles):  # a few quantiles are no distribution: no CRPS
        out["crps"] = predictive.crps(y)
    if isinstance(predictive, Ensemble):
        out["crps_fair"] = predictive.crps(y, fair=True)
    for level in levels:
        low, high = predictive.interval(level)
        out[f"interval_score_{level:g}"] = interval_score_rows(y, low, high, level)
    if isinstance(predictive, Quantiles):
        out["check_score"] = pinball(y, predictive.values, predictive.levels).mean(axis=1)
    else:
        q = np.column_stack([predictive.quantile(float(t)) for t in CHECK_LEVELS])
        out["check_score"] = pinball(y, q, CHECK_LEVELS).mean(axis=1)
    if isinstance(predictive, _LocationScale):
        out["nll"] = -predictive.log_density(y)
    point = predictive.point
    out["abs_error"] = np.abs(y - point)
    out["sq_error"] = (y - point) ** 2
    return out
