"""CRPS of each row, CRPS(F, y) = ∫ (F(x) - 1{y <= x})² dx (Gneiting and Raftery 2007, "G&R",
Eq. 20), for every predictive kind; units of y, lower is better.

Closed forms, with z = (y - μ)/scale:

* normal N(μ, σ²): σ [z(2Φ(z) - 1) + 2φ(z) - 1/√π] (G&R Eq. 21);
* Student t with ν > 1 degrees of freedom, location μ, scale s (sd = s √(ν/(ν - 2))):
  s [z(2F_ν(z) - 1) + 2 f_ν(z)(ν + z²)/(ν - 1) - 2√ν B(½, ν - ½)/((ν - 1) B(½, ν/2)²)]
  (Jordan, Krüger and Lerch 2019, J. Stat. Softw. 90(12), scoringRules ``crps_t``);
* Laplace with scale b (sd = b √2): b [abs(z) + exp(-abs(z)) - 3/4] (scoringRules ``crps_lapl``);
* ensemble x_1..x_m with weights w_i (sum 1): E abs(X - y) - ½ E abs(X - X')
  = Σ w_i abs(x_i - y) - ½ Σ_ij w_i w_j abs(x_i - x_j) (G&R Eq. 21 for the empirical law; exactly
  ``properscoring.crps_ensemble``, NaN members ignored as there). The double sum is computed
  in O(m log m) per row after sorting: Σ_ij w_i w_j abs(x_i - x_j) = 2 Σ_i w_i x_(i)
  (2 C_i - w_i - 1), C_i the cumulative weight up to the i-th smallest member;
* fair ensemble CRPS (Ferro 2014, Q. J. R. Meteorol. Soc. 140:1917): the pair term divided by
  1 - Σ w_i² (m(m - 1) pairs instead of m² when unweighted), unbiased for the CRPS of the law
  the members are drawn from;
* quantile set q_1..q_K at levels τ_k: 2 × (1/K) Σ_k ρ_τk(y - q_k), ρ_τ(r) = r(τ - 1{r < 0})
  (pinball loss), since CRPS = 2 ∫_0^1 ρ_τ(y - F^-1(τ)) dτ (Laio and Tamea 2007; Gneiting and
  Ranjan 2011): a Riemann sum, close to the CRPS only for many equally spaced levels; with a few
  levels it is a proper score of the quantile set itself (comparable between models with the
  same levels only).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from uqval._internal.types import FloatArray

__all__ = [
    "crps_ensemble",
    "crps_laplace",
    "crps_normal",
    "crps_quantiles",
    "crps_t",
    "pinball",
]


def crps_normal(y: FloatArray, mean: FloatArray, sd: FloatArray) -> FloatArray:
    """CRPS of N(mean, sd²) at y, per row (G&R Eq. 21).

    >>> round(float(crps_normal(np.array([0.0]), np.array([0.0]), np.array([1.0]))[0]), 6)
    0.233695
    """
    z = (y - mean) / sd
    return sd * (z * (2.0 * special.ndtr(z) - 1.0)
                 + 2.0 * np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
                 - 1.0 / math.sqrt(math.pi))


def crps_t(y: FloatArray, mean: FloatArray, scale: FloatArray, nu: FloatArray) -> FloatArray:
    """CRPS of the location-scale Student t (``scale`` s, not the sd) at y, per row (ν > 1).

    >>> big = crps_t(np.array([0.3]), np.array([0.0]), np.array([1.0]), np.array([1e7]))
    >>> bool(np.isclose(big, crps_normal(np.array([0.3]), np.array([0.0]), np.array([1.0]))))
    True
    """
    from scipy import stats  # on first use: importing it costs 0.8 s per job
    z = (y - mean) / scale
    const = (2.0 * np.sqrt(nu) * special.beta(0.5, nu - 0.5)
             / ((nu - 1.0) * special.beta(0.5, nu / 2.0) ** 2))
    return scale * (z * (2.0 * stats.t.cdf(z, nu) - 1.0)
                    + 2.0 * stats.t.pdf(z, nu) * (nu + z * z) / (nu - 1.0) - const)


def crps_laplace(y: FloatArray, mean: FloatArray, b: FloatArray) -> FloatArray:
    """CRPS of the Laplace law with location ``mean`` and scale b at y, per row.

    >>> float(crps_laplace(np.array([0.0]), np.array([0.0]), np.array([1.0]))[0])
    0.25
    """
    a = np.abs(y - mean) / b
    return b * (a + np.exp(-a) - 0.75)


def crps_ensemble(y: FloatArray, members: FloatArray, weights: FloatArray,
                  fair: bool = False) -> FloatArray:
    """Ensemble CRPS per row (module docstring); ``members`` (M, m) finite, ``weights`` (M, m)
    summing to 1 per row (0 for ignored members).

    >>> x = np.array([[0.0, 1.0, 3.0]])
    >>> w = np.full((1, 3), 1 / 3)
    >>> round(float(crps_ensemble(np.array([0.5]), x, w)[0]), 6)  # 7/6 - 0.5 * 12/9
    0.5
    >>> round(float(crps_ensemble(np.array([0.5]), x, w, fair=True)[0]), 6)  # 7/6 - 0.5 * 12/6
    0.166667
    """
    order = np.argsort(members, axis=1, kind="stable")
    xs = np.take_along_axis(members, order, axis=1)
    ws = np.take_along_axis(weights, order, axis=1)
    c = np.cumsum(ws, axis=1)
    pairs = 2.0 * np.sum(ws * xs * (2.0 * c - ws - 1.0), axis=1)
    first = np.sum(weights * np.abs(members - y[:, None]), axis=1)
    if fair:
        denominator = 1.0 - np.sum(weights * weights, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            pairs = np.where(denominator > 0, pairs / denominator, np.nan)
    return first - 0.5 * pairs


def pinball(y: FloatArray, quantiles: FloatArray, levels: FloatArray) -> FloatArray:
    """Pinball loss ρ_τ(y - q) per row and level, shape (M, K).

    >>> pinball(np.array([1.0]), np.array([[0.0, 2.0]]), np.array([0.1, 0.9])).round(3).tolist()
    [[0.1, 0.1]]
    """
    r = y[:, None] - quantiles
    return r * (levels[None, :] - (r < 0))


def crps_quantiles(y: FloatArray, quantiles: FloatArray, levels: FloatArray) -> FloatArray:
    """2 × mean pinball loss over the levels, per row (module docstring).

    >>> tau = np.linspace(0.005, 0.995, 199)
    >>> q = special.ndtri(tau)[None, :]  # normal quantiles
    >>> exact = crps_normal(np.array([0.4]), np.array([0.0]), np.array([1.0]))
    >>> bool(abs(crps_quantiles(np.array([0.4]), q, tau)[0] - exact[0]) < 0.005)
    True
    """
    return 2.0 * pinball(y, quantiles, levels).mean(axis=1)
