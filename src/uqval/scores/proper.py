"""Proper scoring rules of the predictive distribution y ~ ŷ + uE·D (negatively oriented).

D is the unit-variance shape: N(0, 1) (default) or the unit-variance Student t
t_s(nu) = t(nu)·sqrt((nu − 2)/nu) (P001 Eq. 20), for data whose screening
(:func:`uqval.screen`) suggests heavy tails. With E = y − ŷ, Z = E/uE, σ = uE·sqrt((nu − 2)/nu)
and averages <.> over the M points (Gneiting and Raftery 2007, JASA 102:359, "G&R"):

* NLL = −<ln p(E)>; for the normal ½<Z² + ln(2π uE²)> (P001 Eq. 12; P002 Eq. 15);
* CRPS = <∫ (F(x) − 1{x ≥ E})² dx> (G&R Eq. 20); closed forms: normal
  uE[Z(2Φ(Z) − 1) + 2φ(Z) − 1/√π] (G&R Eq. 21), Student t with x = E/σ
  σ[x(2F_ν(x) − 1) + 2f_ν(x)(ν + x²)/(ν − 1) − 2√ν B(½, ν − ½)/((ν − 1) B(½, ν/2)²)]
  (Jordan, Krüger and Lerch 2019, J. Stat. Softw. 90(12), Eq. 22);
* interval score of the central (1 − α) interval [l, u] = ŷ ± uE·q, q = Q_D(1 − α/2):
  (u − l) + (2/α)(l − y)1{y < l} + (2/α)(y − u)1{y > u} = 2uE q + (2/α) max(abs(E) − uE q, 0)
  (G&R Eq. 43);
* check (pinball) score averaged over quantile levels τ_1..τ_K: <(1/K) Σ_k ρ_τk(E − uE Q_D(τ_k))>,
  ρ_τ(r) = r(τ − 1{r < 0}) (G&R Sect. 9.1, Eq. 40 with s(x) = x); default levels
  0.01, 0.02, ..., 0.99 as uncertainty-toolbox's ``check_score``.

Every score also has a ``*_rows`` form for stacks of error sets (shape (n_sets, M)) sharing or
not the uncertainties, used by the simulated references of :mod:`uqval.scores.references`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from uqval._internal.checks import probability
from uqval._internal.types import FloatArray
from uqval.scores._input import check_inputs, check_vector
from uqval.stats.synthetic import (
    DistributionName,
    GenerativeDistribution,
    predictive,
    t_unit_variance_factor,
)
from uqval.stats.zscore_statistics import gaussian_nll_rows as _gaussian_nll
from uqval.stats.zscore_statistics import nll_ref_rows

__all__ = [
    "DEFAULT_QUANTILES",
    "check_rows",
    "check_score",
    "crps",
    "crps_rows",
    "interval_rows",
    "interval_score",
    "nll",
    "nll_ref",
    "nll_rows",
]

DEFAULT_QUANTILES = np.linspace(0.01, 0.99, 99)
"""τ = 0.01, 0.02, ..., 0.99 (uncertainty-toolbox ``check_score`` defaults)."""
DEFAULT_QUANTILES.setflags(write=False)


def nll_rows(
    errors: FloatArray, uncertainties: FloatArray, D: GenerativeDistribution
) -> FloatArray:
    """NLL of each row of E (last axis), uE broadcastable to E."""
    u = np.broadcast_to(uncertainties, errors.shape)
    if D.nu is None or math.isinf(D.nu):
        return np.asarray(_gaussian_nll(errors, u))
    scale = u * t_unit_variance_factor(D.nu)
    return -np.mean(stats.t.logpdf(errors, D.nu, scale=scale), axis=-1)


def crps_rows(
    errors: FloatArray, uncertainties: FloatArray, D: GenerativeDistribution
) -> FloatArray:
    """Closed-form CRPS of each row of E (last axis), uE broadcastable to E."""
    if D.nu is None or math.isinf(D.nu):
        z = errors / uncertainties
        per_point = uncertainties * (
            z * (2.0 * special.ndtr(z) - 1.0)
            + 2.0 * np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
            - 1.0 / math.sqrt(math.pi)
        )
        return np.mean(per_point, axis=-1)
    nu = D.nu
    sigma = uncertainties * t_unit_variance_factor(nu)
    x = errors / sigma
    const = (
        2.0 * math.sqrt(nu) * special.beta(0.5, nu - 0.5) / ((nu - 1.0) * special.beta(0.5, nu / 2.0) ** 2)
    )
    per_point = sigma * (
        x * (2.0 * stats.t.cdf(x, nu) - 1.0)
        + 2.0 * stats.t.pdf(x, nu) * (nu + x * x) / (nu - 1.0)
        - const
    )
    return np.mean(per_point, axis=-1)


def interval_rows(
    errors: FloatArray, uncertainties: FloatArray, D: GenerativeDistribution, coverage: float
) -> FloatArray:
    """Interval score (G&R Eq. 43) of each row of E, uE broadcastable to E."""
    alpha = 1.0 - coverage
    half = uncertainties * float(D.quantile(1.0 - alpha / 2.0))
    per_point = 2.0 * half + (2.0 / alpha) * np.maximum(np.abs(errors) - half, 0.0)
    return np.mean(per_point, axis=-1)


def _levels(quantiles: ArrayLike) -> FloatArray:
    tau = np.sort(np.asarray(quantiles, dtype=np.float64).ravel())
    if tau.size == 0 or not np.all((tau > 0.0) & (tau < 1.0)):
        raise ValueError("quantiles must be a non-empty set of levels inside (0, 1)")
    return tau


def check_rows(
    errors: FloatArray, uncertainties: FloatArray, D: GenerativeDistribution, quantiles: ArrayLike
) -> FloatArray:
    """Check score averaged over the levels, each row of E, uE broadcastable to E.

    ρ_τ(uE(Z − q_τ)) = uE ρ_τ(Z − q_τ), and g(Z) = (1/K) Σ_k ρ_τk(Z − q_k) is piecewise
    linear in Z: with k(Z) = #{q_j ≤ Z} (levels sorted, so q ascending),
    K g(Z) = Z Στ − Σ q τ − Z (K − k) + Σ_{j ≥ k} q_j, evaluated with one binary search per
    point instead of K passes.
    """
    tau = _levels(quantiles)
    q = D.quantile(tau)
    k = tau.size
    suffix = np.append(np.cumsum(q[::-1])[::-1], 0.0)  # suffix[j] = sum of q_j..q_{K-1}
    z = errors / uncertainties
    below = np.searchsorted(q, z, side="right")
    g = (z * tau.sum() - float(q @ tau) - z * (k - below) + suffix[below]) / k
    return np.mean(uncertainties * g, axis=-1)


def nll(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName = "normal",
    nu: float | None = None,
) -> float:
    """Negative log-likelihood −<ln p(E)>; normal: ½<Z² + ln(2π uE²)> (P001 Eq. 12).

    Reference for calibrated normal errors: (1 + <ln uE²> + ln 2π)/2 (P002 Eq. 16,
    :func:`nll_ref`).

    Examples:
        Errors drawn with their uE come close to the reference; uE half too small do not:

        >>> import numpy as np
        >>> from uqval import nll, nll_ref
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(nll(e, u), 2), round(nll_ref(u), 2), round(nll(e, u / 2), 2)
        (1.62, 1.6, 2.51)
        >>> round(nll(e, u, "t", nu=4), 2)  # unit-variance Student t predictive
        1.68
    """
    e, u = check_inputs(errors, uncertainties)
    return float(nll_rows(e, u, predictive(distribution, nu)))


def nll_ref(uncertainties: ArrayLike) -> float:
    """NLL expected for calibrated normal errors, (1 + <ln uE^2> + ln 2 pi)/2 (P002 Eq. 16).

    >>> round(nll_ref([1.0, 1.0]), 6)
    1.418939
    """
    return float(nll_ref_rows(check_vector(uncertainties, "uncertainties", positive=True)))


def crps(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName = "normal",
    nu: float | None = None,
) -> float:
    """Mean continuous ranked probability score, closed form (G&R 2007 Eq. 21; module doc).

    Units of E. For calibrated normal errors its expectation is <uE>/√π.

    Examples:
        >>> import numpy as np
        >>> from uqval import crps
        >>> round(crps([0.0, 0.0], [1.0, 1.0]), 4)  # (sqrt(2) - 1)/sqrt(pi)
        0.2337
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(crps(e, u), 2), round(float(np.mean(u) / np.sqrt(np.pi)), 2)
        (0.74, 0.72)
    """
    e, u = check_inputs(errors, uncertainties)
    return float(crps_rows(e, u, predictive(distribution, nu)))


def interval_score(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    coverage: float = 0.95,
    distribution: DistributionName = "normal",
    nu: float | None = None,
) -> float:
    """Mean interval score of the central ``coverage`` interval ŷ ± uE Q_D((1 + coverage)/2).

    G&R 2007 Eq. 43: 2uE q + (2/α) max(abs(E) − uE q, 0) with α = 1 − coverage; units of E.

    Examples:
        Width 2 × 1.96 for every point, plus 40 × (3 − 1.96) for the error outside:

        >>> from uqval import interval_score
        >>> round(interval_score([0.0, 0.5, 3.0], [1.0, 1.0, 1.0]), 3)
        17.787
    """
    e, u = check_inputs(errors, uncertainties)
    return float(interval_rows(e, u, predictive(distribution, nu), probability(coverage, "coverage")))


def check_score(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    quantiles: ArrayLike = DEFAULT_QUANTILES,
    distribution: DistributionName = "normal",
    nu: float | None = None,
) -> float:
    """Pinball loss averaged over points and levels τ (G&R 2007 Sect. 9.1; module doc).

    ρ_τ(E − uE Q_D(τ)) with ρ_τ(r) = r(τ − 1{r < 0}); default τ = 0.01..0.99 (99 levels).

    Examples:
        Lower is better: uE half too small or twice too large both score worse:

        >>> import numpy as np
        >>> from uqval import check_score
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> [round(check_score(e, s * u), 3) for s in (0.5, 1.0, 2.0)]
        [0.404, 0.372, 0.427]
    """
    e, u = check_inputs(errors, uncertainties)
    return float(check_rows(e, u, predictive(distribution, nu), quantiles))
