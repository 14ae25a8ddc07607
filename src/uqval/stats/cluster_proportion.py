"""A proportion (coverage, a PIT share) when the rows come in groups.

The coverage of prediction intervals is k/n, k the rows covered. When rows come in groups
whose errors share a part (atoms of one structure, conformers of one molecule), the covered
rows of a group are dependent and the binomial's variance n p (1 - p) is too small. The
interval of Korn & Graubard (1998, "Confidence intervals for proportions with small
expected number of positive counts estimated from survey data", Survey Methodology 24:
193-201), used for clustered survey data, keeps the Clopper-Pearson form with an *effective*
sample size:

* p̂ = k/n, its cluster-robust variance v = G/(G - 1) Σ_g (k_g - n_g p̂)² / n² (CR1, k_g the
  covered rows of group g);
* the effective size n* = p̂ (1 - p̂)/v (n when p̂ is 0 or 1 or v = 0), at most n (a design
  effect below 1 is not taken), and with the degrees of freedom of G groups,
  n*_df = n* (t_{n-1}/t_{G-1})², t_d the (1 + c)/2 quantile of Student's t with d degrees;
* the Clopper-Pearson interval of x* = p̂ n*_df successes in n*_df trials (beta quantiles,
  which take non-integer counts).

The test of p = p0 inverts the same interval: p = min(1, 2 min(P(X >= x*), P(X <= x*))) for
X ~ Binomial(n*_df, p0) continued to non-integer counts by the regularised incomplete beta
function (P(X >= x) = I_p0(x, n - x + 1), P(X <= x) = 1 - I_p0(x + 1, n - x)), so that p <= 1 - c
exactly when p0 lies outside the interval at confidence c (up to the t quantile used for
n*_df, which is that of c = 0.95). Its false-alarm rate on grouped calibrated data is measured
in ``benchmarks/group_predictive_rates.py``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from uqval.stats.groups import GroupIndex

__all__ = ["ClusterProportion", "cluster_proportion"]


class ClusterProportion(NamedTuple):
    """Outcome of :func:`cluster_proportion`: the share, its Korn-Graubard interval, the
    p-value of the test of p0 and the effective number of rows n*_df."""

    value: float
    ci_low: float
    ci_high: float
    p_value: float
    n_effective: float


def cluster_proportion(hit: ArrayLike, groups: GroupIndex, p0: float = math.nan, *,
                       confidence: float = 0.95) -> ClusterProportion:
    """The share of true values of ``hit`` with the Korn-Graubard interval and test of
    ``p0`` (module docstring; p_value NaN without ``p0``).

    With groups of one row the CR1 variance is p̂ (1 - p̂)/(n - 1), so the interval is
    Clopper-Pearson's with n - 1 trials:

    >>> import numpy as np
    >>> from scipy import stats
    >>> hit = np.arange(100) < 90
    >>> one = GroupIndex.from_codes(np.arange(100))
    >>> r = cluster_proportion(hit, one, 0.8)
    >>> round(r.n_effective, 6), [round(float(v), 4) for v in (r.ci_low, r.ci_high)]
    (99.0, [0.8233, 0.9512])
    >>> x = 0.9 * 99  # Clopper-Pearson's beta quantiles at x successes in 99 trials
    >>> [round(float(v), 4) for v in (stats.beta.ppf(0.025, x, 99 - x + 1),
    ...                               stats.beta.ppf(0.975, x + 1, 99 - x))]
    [0.8233, 0.9512]

    Ten groups of ten rows, each all covered or all not: n* = 9 (ten units, CR1), times
    (t_99/t_9)² = 0.77 for the degrees of freedom of ten groups:

    >>> tens = GroupIndex.from_codes(np.repeat(np.arange(10), 10))
    >>> round(cluster_proportion(hit, tens, 0.8).n_effective, 2)
    6.92
    """
    h = np.asarray(hit, dtype=np.float64)
    if h.shape != (groups.size,):
        raise ValueError(f"hit must hold one value per row ({groups.size}), got {h.shape}")
    n, g = float(h.size), groups.n_groups
    if g < 2:
        raise ValueError("a proportion over groups needs at least 2 groups")
    k = float(h.sum())
    p = k / n
    resid = groups.sums(h) - groups.counts * p
    v = g / (g - 1.0) * float(np.sum(np.square(resid))) / n**2
    n_eff = n if (p <= 0.0 or p >= 1.0 or v <= 0.0) else min(n, p * (1.0 - p) / v)
    tail = 0.5 * (1.0 + confidence)
    if n > 1:
        n_eff *= (float(stats.t.ppf(tail, n - 1.0)) / float(stats.t.ppf(tail, g - 1.0)))**2
    x = p * n_eff
    low = float(special.betaincinv(x, n_eff - x + 1.0, 1.0 - tail)) if x > 0 else 0.0
    high = float(special.betaincinv(x + 1.0, n_eff - x, tail)) if x < n_eff else 1.0
    p_value = math.nan
    if math.isfinite(p0):
        upper = float(special.betainc(x, n_eff - x + 1.0, p0)) if x > 0 else 1.0
        lower = 1.0 - float(special.betainc(x + 1.0, n_eff - x, p0)) if x < n_eff else 1.0
        p_value = min(1.0, 2.0 * min(upper, lower))
    return ClusterProportion(p, low, high, p_value, n_eff)
