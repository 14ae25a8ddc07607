"""Decision rules of the validation engine (rule ``"uqval"``).

Every verdict comes from a test with a stated false-alarm rate alpha (default 5 %):

Average calibration (one family of two tests)
    * ZMS = <Z^2> = 1: the BCa bootstrap interval of the scale factor sqrt(ZMS) (P001 Sect.
      II.3) inverted into a two-sided p-value (:func:`bca_p_value`).
    * <Z> = 0 (no bias): one-sample Student t test (P003 Sect. III.B.1).

    The two p-values are adjusted by Holm's step-down method (:func:`holm`). When the heavy-
    tail screening says that ZMS intervals are unreliable (beta_GM(Z^2) > 0.8, P001 Table 2),
    the interval may be far too narrow (BCa p <= 0.05 in 21 % of calibrated datasets with
    t(3) errors, M = 10^3..10^4): the ZMS then fails only when its zeta-score (P001 Eq. 14)
    exceeds :data:`HEAVY_TAIL_ZETA` in absolute value, i.e. when 1 lies three interval
    half-widths away (measured on calibrated data, 100 datasets each: 0-1 % with t(3), 4-6 %
    with t(2.5) errors), and is ``inconclusive`` otherwise.

Consistency (binning variable uE) and adaptivity (each feature)
    Permutation tests of the between-bin spread of <Z^2> and of <Z>
    (:mod:`uqval.validation.permutation`), exact size for any error distribution. They are
    run once and reported twice:

    * ``scaled=True``: are the uncertainties right across the variable once multiplied by
      the global scale factor? The spread statistics do not change when uE is rescaled, so
      this is the permutation p-value itself.
    * ``scaled=False``: are the uncertainties *as given* right in every bin (<Z^2>_b = 1,
      <Z>_b = 0 for all b)? That hypothesis is the intersection of "right on average" and
      "no spread", so it is tested by the Bonferroni combination min(1, 2 min(p_average,
      p_spread)), which has size <= alpha.

    Within a stage (consistency; adaptivity over all features) and a value of ``scaled``,
    the p-values are adjusted by Holm's method, so a stage's false-alarm rate stays at
    alpha however many features are tested. A conditional test is ``inconclusive`` when a
    bin holds fewer than :data:`MIN_BIN_COUNT` rows (its bins cannot localise anything).

Verdict of a test: ``fail`` when its Holm-adjusted p-value is <= alpha, else ``pass``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from uqval.stats.bootstrap import BootstrapResult

__all__ = [
    "HEAVY_TAIL_ZETA",
    "MIN_BIN_COUNT",
    "bca_p_value",
    "bonferroni_pair",
    "combine_families",
    "holm",
    "t_test_p_value",
    "verdict",
]

MIN_BIN_COUNT = 30
"""Fewest rows per bin for a conditional verdict (fewer: ``inconclusive``)."""

HEAVY_TAIL_ZETA = 3.0
"""abs(zeta) above which the ZMS fails although the screening flags heavy tails."""


def holm(p_values: ArrayLike) -> NDArray[np.float64]:
    """Holm's step-down adjusted p-values (Holm 1979).

    With the p-values sorted increasingly p_(1) <= ... <= p_(k), the adjusted value is
    max_{j <= i} min(1, (k - j + 1) p_(j)); rejecting the adjusted p-values <= alpha keeps
    the family-wise error rate <= alpha under any dependence between the tests.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.size == 0:
        return p
    order = np.argsort(p, kind="stable")
    k = p.size
    scaled = np.minimum(1.0, (k - np.arange(k)) * p[order])
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def bca_p_value(result: BootstrapResult, target: float) -> float:
    """Two-sided p-value of ``statistic = target`` by inverting the BCa interval.

    The BCa endpoint at level beta is the quantile G^-1(Phi(z0 + (z0 + z_beta)/(1 - a (z0 +
    z_beta)))) of the bootstrap distribution G (P001 Sect. II.3). Setting it equal to the
    target, w = Phi^-1(G(target)) - z0 gives z_beta = w/(1 + a w) - z0, and the p-value is
    2 min(Phi(z_beta), 1 - Phi(z_beta)): the target lies outside the (1 - p) BCa interval.
    G counts the estimate and the replicates (as the interval does); G(target) is kept in
    [1/(R + 2), 1 - 1/(R + 2)], so p >= about 2/R.
    """
    if not np.isfinite(result.z0):
        return float("nan")
    dist = np.concatenate([[result.estimate], result.replicates])
    r = dist.size
    g = float(np.count_nonzero(dist < target) + 0.5 * np.count_nonzero(dist == target)) / r
    g = min(max(g, 1.0 / (r + 1.0)), 1.0 - 1.0 / (r + 1.0))
    w = float(special.ndtri(g)) - result.z0
    denominator = 1.0 + result.acceleration * w
    if denominator <= 0.0:
        return float("nan")
    beta = float(special.ndtr(w / denominator - result.z0))
    return float(min(1.0, 2.0 * min(beta, 1.0 - beta)))


def t_test_p_value(mean: float, se: float, n: int) -> float:
    """Two-sided one-sample t-test p-value of mean = 0: 2 P(t_{n-1} > abs(mean)/se)."""
    if se <= 0.0:
        return 0.0 if mean != 0.0 else 1.0
    return float(2.0 * stats.t.sf(abs(mean) / se, df=n - 1))


def verdict(adjusted_p: float, alpha: float, inconclusive: bool) -> str:
    """``inconclusive`` if asked, else ``fail`` when adjusted p <= alpha, else ``pass``."""
    if inconclusive or not np.isfinite(adjusted_p):
        return "inconclusive"
    return "fail" if adjusted_p <= alpha else "pass"


def bonferroni_pair(p_first: float, p_second: float) -> float:
    """min(1, 2 min(p1, p2)): a valid p-value of the intersection of two null hypotheses."""
    return float(min(1.0, 2.0 * min(p_first, p_second)))


def combine_families(families: Sequence[Sequence[int]], p: NDArray[np.float64]) -> NDArray:
    """Holm-adjust ``p`` within each family of row positions; returns the adjusted array."""
    out = np.full(p.size, np.nan)
    for rows in families:
        idx = np.asarray(rows, dtype=np.intp)
        if idx.size:
            out[idx] = holm(p[idx])
    return out
