"""Coverage of a predictive's intervals once widened by the variance stages' factor.

The variance stages judge the predictive sd as a standard deviation: their factor f is
sqrt(<Z^2>) (for an unweighted ensemble, the net factor k of the perfect-ensemble reference),
which the largest errors weigh most. The coverage stage judges the central intervals. With
heavy-tailed errors the two part: the errors' variance is f^2 times the stated one while the
50-95 % intervals cover as they should, and multiplying the sd by f would make them cover too
much. :func:`scaled_interval_coverage` measures that directly: the coverage at each level of
the intervals the coverage stage judged, their half-widths about the midpoints multiplied by
f (for an unweighted ensemble the intervals users build, mean ± q·sd·√(1 + 1/m), q from
t(m - 1)), with the same test and interval as the coverage stage (exact binomial and
Clopper-Pearson, or Korn-Graubard over the groups), Holm over the levels, and the coverage
stage's ``effect`` (``relevant``: the test fails and the coverage lies outside the tolerance
band of the level). The judgement (:func:`uqval.validation.predictive_judgement.factor_scope`)
then says which intervals the factor is not for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from uqval._internal.types import FloatArray, SeedLike
from uqval.predictive import Ensemble, Predictive
from uqval.stats.cluster_proportion import gaussian_indicator_icc
from uqval.stats.groups import GroupIndex
from uqval.validation import rules
from uqval.validation.coverage_shape import (
    coverage_band,
    coverage_effect,
    coverage_share,
    latent_icc,
    normal_scores,
)

__all__ = ["SCALED_COLUMNS", "scaled_interval_coverage"]

SCALED_COLUMNS = ["level", "factor", "n", "covered", "value", "ci_low", "ci_high", "p_value",
                  "p_adjusted", "band_low", "band_high", "verdict", "effect"]


def _midpoints_and_halves(pred: Predictive, level: float) -> tuple[FloatArray, FloatArray]:
    """Midpoints and half-widths of the intervals the coverage stage judges at ``level``."""
    if isinstance(pred, Ensemble) and not pred.weighted:
        q = stats.t.ppf(0.5 * (1.0 + level), pred.n_members.astype(np.float64) - 1.0)
        sd = np.sqrt(np.where(np.isfinite(pred.variance), pred.variance, 0.0))
        return np.asarray(pred.point, dtype=np.float64), np.asarray(q * sd, dtype=np.float64)
    low, high = pred.interval(level)
    return 0.5 * (low + high), 0.5 * (high - low)


def scaled_interval_coverage(y: FloatArray, pred: Predictive, levels: Sequence[float],
                             factor: float, *, alpha: float, tolerance: float,
                             groups: GroupIndex | None = None,
                             seed: SeedLike = 0) -> pd.DataFrame:
    """The coverage at each level of the judged intervals widened by ``factor`` about their
    midpoints (module docstring), one row per level (:data:`SCALED_COLUMNS`).

    >>> from uqval.predictive import Normal
    >>> rng = np.random.default_rng(1)
    >>> y = rng.standard_normal(4000)
    >>> t = scaled_interval_coverage(y, Normal(np.zeros(4000), np.ones(4000)), [0.5, 0.9],
    ...                              1.3, alpha=0.05, tolerance=0.1)
    >>> # closed form 2 Phi(1.3 q_L) - 1: 0.62 and 0.967
    >>> [round(v, 2) for v in t["value"]], list(t["effect"])
    ([0.63, 0.97], ['relevant', 'relevant'])
    """
    rho = 0.0 if groups is None else latent_icc(normal_scores(y, pred, levels, seed), groups)
    out = []
    for level in levels:
        mid, half = _midpoints_and_halves(pred, level)
        hit = np.abs(y - mid) <= factor * half
        k, lo, hi, p = coverage_share(hit, level, groups, gaussian_indicator_icc(rho, level))
        band = coverage_band(level, tolerance)
        out.append({"level": level, "factor": factor, "n": hit.size, "covered": k,
                    "value": k / hit.size, "ci_low": lo, "ci_high": hi, "p_value": p,
                    "band_low": band[0], "band_high": band[1]})
    table = pd.DataFrame(out, columns=SCALED_COLUMNS)
    if table.empty:
        return table
    table["p_adjusted"] = rules.holm(table["p_value"].to_numpy())
    table["verdict"] = [rules.verdict(p, alpha, False) for p in table["p_adjusted"]]
    table["effect"] = [coverage_effect(r.value, r.ci_low, r.ci_high, r.verdict == "fail",
                                       (r.band_low, r.band_high)) for r in table.itertuples()]
    return table
