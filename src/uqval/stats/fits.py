"""Distribution fits used to characterise the tails of uE^2, E^2 and Z^2 (and of Z).

* Inverse-gamma fit of squared uncertainties (heavy-tails paper P001 Sect. III.1,
  Eqs. 16-17) and scaled Fisher-Snedecor F(1, nu) fit of squared errors or squared z-scores
  (P001 Sect. III.2-III.3, Eq. 19), both by *maximum goodness-of-fit estimation* with the
  Kolmogorov-Smirnov (KS) distance (Delignette-Muller & Dutang 2015, fitdistrplus
  ``mge(gof = "KS")``). These give the shape parameters nu of P001 Table 1.
* Maximum-likelihood fit of a scaled-and-shifted Student t to z-scores (simref paper P002
  Sect. III.A.1, Table II).

Parametrisation (P001 Sect. III, Eqs. 16-19; see docs/choices.md, "Inverse-gamma
parametrisations"). P001 writes the IG model both as
``uE^2 ~ Gamma^-1(alpha = nu, beta = sigma*nu)`` (Eq. 16) and as
``uE^2/sigma^2 ~ Gamma^-1(nu, nu)`` (Eq. 17), which differ in the meaning of sigma. Here the
scale of the squared variable is ``sigma^2`` (Eq. 17 and Eq. 19,
``E^2/sigma^2 ~ F(1, nu)``), so sigma is on the scale of uE, E or Z; the IG scale parameter
is ``beta = nu * sigma^2``. The reported shape nu is unaffected by this choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special, stats

__all__ = [
    "FAST_T_FIT_MIN",
    "KSFit",
    "ScaledTFit",
    "fit_invgamma_ks",
    "fit_scaled_f_ks",
    "fit_scaled_t",
    "invgamma_cdf",
    "ks_distance",
    "scaled_f_cdf",
]

_LOG_NU_BOUNDS = (math.log(1e-2), math.log(1e4))
_GRID_NU = np.geomspace(0.05, 1000.0, 41)
_N_GRID_STARTS = 3
_N_COARSE = 500
_COARSE_STEP = 0.2
_FINE_STEP = 0.02
_RESTART_TOL = 1e-6
_KS_BLOCK = 64  # points per block of the exact KS distance (_KSTerms.exact_distance)
_FITDISTRPLUS_START = (10.0, 1.0)
FAST_T_FIT_MIN = 50_000
"""Values from which :func:`fit_scaled_t` maximises the likelihood by its gradient."""
_LOG_NU_MAX = math.log(1e7)  # t(1e7) is the normal to 1e-7: the fit of normal data stops there  # fitdistrplus mge start: shape (df) 10, scale 1

CdfFn = Callable[[NDArray[np.float64], float, float], NDArray[np.float64]]


@dataclass(frozen=True)
class KSFit:
    """Result of a minimum-KS-distance fit of a squared variable x.

    Attributes:
        model: ``"invgamma"`` (x/sigma^2 ~ Gamma^-1(nu, nu)) or ``"scaled_f"``
            (x/sigma^2 ~ F(1, nu)).
        nu: shape parameter (IG shape alpha, or F denominator degrees of freedom).
        sigma: scale factor on the un-squared scale (x/sigma^2 is standardised).
        ks_distance: minimised KS distance D.
        n: sample size.
    """

    model: Literal["invgamma", "scaled_f"]
    nu: float
    sigma: float
    ks_distance: float
    n: int

    @property
    def scale(self) -> float:
        """Scale of the squared variable, sigma^2 (IG scale beta = nu * sigma^2)."""
        return self.sigma**2

    @property
    def params(self) -> dict[str, float]:
        """Fitted parameters as a mapping ``{"nu": ..., "sigma": ...}``."""
        return {"nu": self.nu, "sigma": self.sigma}

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """CDF of the fitted distribution at x."""
        fn = invgamma_cdf if self.model == "invgamma" else scaled_f_cdf
        return fn(np.asarray(x, dtype=float), self.nu, self.sigma)


@dataclass(frozen=True)
class ScaledTFit:
    """Result of the ML fit of a scaled-and-shifted Student t to z-scores (P002 Table II).

    Attributes:
        nu, mu, sigma: ML estimates of p(z) = (1/sigma) t_nu((z - mu)/sigma).
        mean, sd: sample mean and standard deviation (ddof = 1) of z; these are the
            mu_Z and sigma_Z columns of P002 Table II.
        relative_bias: b_Z = 100 abs(mean) / sd, in percent (P002 Table II).
        loglik: maximised log-likelihood.
        n: sample size.
    """

    nu: float
    mu: float
    sigma: float
    mean: float
    sd: float
    relative_bias: float
    loglik: float
    n: int


def invgamma_cdf(x: NDArray[np.float64], nu: float, sigma: float) -> NDArray[np.float64]:
    """CDF of x with x/sigma^2 ~ Gamma^-1(nu, nu) (P001 Eq. 17).

    G(x) = Q(nu, nu sigma^2 / x), with Q the regularised upper incomplete gamma function.
    """
    with np.errstate(divide="ignore"):
        return special.gammaincc(nu, nu * sigma**2 / x)


def scaled_f_cdf(x: NDArray[np.float64], nu: float, sigma: float) -> NDArray[np.float64]:
    """CDF of x with x/sigma^2 ~ F(1, nu) (P001 Eq. 19).

    G(x) = I_{y/(y+nu)}(1/2, nu/2) with y = x/sigma^2 and I the regularised incomplete
    beta function.
    """
    y = x / sigma**2
    return special.betainc(0.5, 0.5 * nu, y / (y + nu))


def ks_distance(x_sorted: NDArray[np.float64], cdf_values: NDArray[np.float64]) -> float:
    """Kolmogorov-Smirnov distance between a sorted sample and a model CDF.

    D = max_i max(i/n - G(x_(i)), G(x_(i)) - (i-1)/n), i = 1..n, where ``cdf_values`` are
    G evaluated at the sorted sample ``x_sorted`` (fitdistrplus ``mge(gof = "KS")``; equal to
    ``scipy.stats.kstest``'s statistic). O(n).
    """
    n = x_sorted.size
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - cdf_values), np.max(cdf_values - (i - 1) / n)))


@dataclass(frozen=True)
class _KSTerms:
    """Points x and ECDF levels at which the KS distance terms are evaluated.

    D = max_j max(upper_j - G(x_j), G(x_j) - lower_j). With all distinct sorted values and
    upper/lower the ECDF just after/before each value, this is exactly :func:`ks_distance`
    (ties are merged, which leaves D unchanged); with a subset of values it is a lower bound.
    """

    x: NDArray[np.float64]
    upper: NDArray[np.float64]
    lower: NDArray[np.float64]

    def distance(self, cdf_values: NDArray[np.float64]) -> float:
        return float(max(np.max(self.upper - cdf_values), np.max(cdf_values - self.lower)))

    def exact_distance(self, cdf: Callable[[NDArray[np.float64]], NDArray[np.float64]],
                       block: int = _KS_BLOCK) -> float:
        """:meth:`distance` of ``cdf`` at every point, evaluating ``cdf`` at few of them.

        ``cdf`` is first evaluated at every ``block``-th point. Between two such points
        x_a < x_b, G is monotone, so each term of a point x_j is at most
        max(upper_(b-1) - G(x_a), G(x_b) - lower_(a+1)) (upper and lower grow with j): the
        points of a gap whose bound is below the largest term at the block points (minus
        1e-12, the margin for rounding of G) cannot reach it and are skipped; the points of
        the other gaps are evaluated together. Same value as :meth:`distance` on all points
        (tested), with about M/block + (gaps near the maximum) x block evaluations.
        """
        n = self.x.size
        if n <= 4 * block:
            return self.distance(cdf(self.x))
        idx = np.unique(np.r_[np.arange(0, n, block), n - 1])
        g = cdf(self.x[idx])
        if np.isnan(g).any():
            return math.nan
        best = self.distance_at(idx, g)
        first, last = idx[:-1] + 1, idx[1:] - 1
        bound = np.maximum(self.upper[last] - g[:-1], g[1:] - self.lower[first])
        gaps = np.flatnonzero((bound >= best - 1e-12) & (first <= last))
        if gaps.size == 0:
            return best
        lengths = last[gaps] - first[gaps] + 1
        # the points first[a] .. last[a] of every gap a, concatenated
        seg = np.arange(lengths.sum()) + np.repeat(first[gaps] - np.cumsum(lengths) + lengths,
                                                   lengths)
        values = cdf(self.x[seg])
        if np.isnan(values).any():
            return math.nan
        return max(best, self.distance_at(seg, values))

    def distance_at(self, idx: NDArray[np.intp], cdf_values: NDArray[np.float64]) -> float:
        """The largest KS term of the points ``idx`` (``cdf_values``: G at them)."""
        return float(max(np.max(self.upper[idx] - cdf_values),
                         np.max(cdf_values - self.lower[idx])))

    def subset(self, size: int) -> _KSTerms:
        idx = np.unique(np.linspace(0, self.x.size - 1, size).round().astype(int))
        return _KSTerms(self.x[idx], self.upper[idx], self.lower[idx])


def _ks_terms(xs: NDArray[np.float64]) -> _KSTerms:
    values, counts = np.unique(xs, return_counts=True)
    cum = np.cumsum(counts) / xs.size
    return _KSTerms(values, cum, cum - counts / xs.size)


def _nelder_mead(
    objective: Callable[[NDArray[np.float64]], float],
    start: NDArray[np.float64],
    bounds: list[tuple[float, float]],
    step: float,
    restart: bool,
) -> tuple[NDArray[np.float64], float]:
    """Nelder-Mead from ``start`` (initial simplex edge ``step``); if ``restart``, restarted
    from its end point while the objective improves by more than ``_RESTART_TOL`` (the KS
    objective is not smooth and a single run can stall)."""
    lo, hi = np.array(bounds).T
    theta, value = np.clip(start, lo, hi), objective(np.clip(start, lo, hi))
    while True:
        res = optimize.minimize(
            objective,
            theta,
            method="Nelder-Mead",
            bounds=bounds,
            options={
                "xatol": 1e-5,
                "fatol": 1e-8,
                "maxiter": 4000,
                "initial_simplex": theta + step * np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
            },
        )
        improved = res.fun < value - _RESTART_TOL
        if res.fun < value:
            theta, value = res.x, float(res.fun)
        if not (restart and improved):
            return theta, value


def _fit_ks(
    x: ArrayLike,
    cdf: CdfFn,
    standard_median: Callable[[float], float],
    model: Literal["invgamma", "scaled_f"],
) -> KSFit:
    """Minimise the KS distance D(nu, sigma) over (log nu, log sigma).

    Stage 1 (global, on at most ``_N_COARSE`` evenly spread distinct values, whose KS terms
    give a lower bound of D): Nelder-Mead from the fitdistrplus default start (nu = 10,
    sigma = 1) and from the best points of a log-spaced nu grid, where sigma is set by
    matching the sample median (sigma^2 = median(x) / median of the standardised law).
    Stage 2 (local, exact D on all data, ties merged): one Nelder-Mead run from the stage-1
    optimum with a small initial simplex.
    """
    xs = np.sort(np.asarray(x, dtype=float).ravel())
    if xs.size < 2 or not np.all(np.isfinite(xs)) or xs[0] <= 0:
        raise ValueError("KS fit needs at least 2 finite, strictly positive values")
    full = _ks_terms(xs)
    coarse = full.subset(_N_COARSE) if full.x.size > _N_COARSE else full

    def objective(terms: _KSTerms) -> Callable[[NDArray[np.float64]], float]:
        return lambda theta: terms.exact_distance(
            lambda x: cdf(x, math.exp(theta[0]), math.exp(theta[1])))

    med = float(np.median(xs))
    grid = [np.array([math.log(nu), 0.5 * math.log(med / standard_median(nu))]) for nu in _GRID_NU]
    grid_values = [objective(coarse)(theta) for theta in grid]
    starts = [np.log(np.array(_FITDISTRPLUS_START))] + [
        grid[k] for k in np.argsort(grid_values)[:_N_GRID_STARTS]
    ]
    bounds = [_LOG_NU_BOUNDS, (0.5 * math.log(xs[0]) - 10.0, 0.5 * math.log(xs[-1]) + 10.0)]
    candidates = [
        _nelder_mead(objective(coarse), s, bounds, _COARSE_STEP, restart=True) for s in starts
    ]
    theta = min(candidates, key=lambda c: c[1])[0]
    if coarse is not full:
        theta = _nelder_mead(objective(full), theta, bounds, _FINE_STEP, restart=False)[0]
    nu, sigma = math.exp(theta[0]), math.exp(theta[1])
    return KSFit(
        model=model,
        nu=nu,
        sigma=sigma,
        ks_distance=ks_distance(xs, cdf(xs, nu, sigma)),
        n=xs.size,
    )


def fit_invgamma_ks(u2: ArrayLike) -> KSFit:
    """Minimum-KS-distance fit of squared uncertainties by an inverse-gamma distribution.

    Model (heavy-tails paper P001 Sect. III.1, Eqs. 16-17): uE^2/sigma^2 ~ Gamma^-1(nu, nu),
    i.e. uE^2 ~ Gamma^-1(alpha = nu, beta = nu sigma^2). The reported nu (shape alpha) is the
    nu(uE^2) column of P001 Table 1. Estimation: argmin over (nu, sigma) of the KS distance
    (see :func:`ks_distance`), as fitdistrplus ``mge(gof = "KS")``.
    """
    return _fit_ks(u2, invgamma_cdf, lambda nu: nu / special.gammaincinv(nu, 0.5), "invgamma")


def fit_scaled_f_ks(x2: ArrayLike) -> KSFit:
    """Minimum-KS-distance fit of squared errors (or squared z-scores) by a scaled F(1, nu).

    Model (heavy-tails paper P001 Sect. III.2, Eq. 19): E^2/sigma^2 ~ F(1, nu), the squared
    version of E/sigma ~ t(nu) (Eq. 18). The reported nu is the nu(E^2) or nu(Z^2) column of
    P001 Table 1. Estimation: argmin over (nu, sigma) of the KS distance.
    """
    return _fit_ks(x2, scaled_f_cdf, lambda nu: float(stats.f.ppf(0.5, 1.0, nu)), "scaled_f")


def fit_scaled_t(z: ArrayLike) -> ScaledTFit:
    """Maximum-likelihood fit of a scaled-and-shifted Student t to z-scores.

    p(z) = (1/sigma) t_nu((z - mu)/sigma), maximised over (nu, mu, sigma) with
    ``scipy.stats.t.fit`` started, as fitdistrplus in the authors' code, at nu = 20,
    mu = mean(z), sigma = sd(z) (simref paper P002 Sect. III.A.1, Table II). Also returns
    the sample mean and sd of z and b_Z = 100 abs(mean(z)) / sd(z) (P002 Table II columns
    mu_Z, sigma_Z and b_Z).

    From :data:`FAST_T_FIT_MIN` values on (larger than the papers' sets), the same likelihood
    is maximised by L-BFGS-B with its analytic gradient, one compiled pass over the data per
    evaluation (:func:`_t_fit_gradient`), instead of SciPy's Nelder-Mead on its
    per-point log-density: 10^6 z-scores take about 1 s instead of 30 (the optimum agrees
    to the optimisers' tolerances, tested against ``scipy.stats.t.fit``).
    """
    zz = np.asarray(z, dtype=float).ravel()
    if zz.size < 3 or not np.all(np.isfinite(zz)):
        raise ValueError("t fit needs at least 3 finite values")
    mean, sd = float(np.mean(zz)), float(np.std(zz, ddof=1))
    if zz.size >= FAST_T_FIT_MIN and sd > 0:
        nu, mu, sigma = _t_fit_gradient(zz, mean, sd)
    else:
        nu, mu, sigma = stats.t.fit(zz, 20.0, loc=mean, scale=sd)
    return ScaledTFit(
        nu=float(nu),
        mu=float(mu),
        sigma=float(sigma),
        mean=mean,
        sd=sd,
        relative_bias=100.0 * abs(mean) / sd,
        loglik=float(np.sum(stats.t.logpdf(zz, nu, loc=mu, scale=sigma))),
        n=zz.size,
    )


@numba.njit(nogil=True, cache=True)
def _t_sums(z, nu, mu, sigma):  # pragma: no cover - compiled
    """(sum log1p(r^2/nu), sum r/(nu + r^2), sum r^2/(nu + r^2)), r = (z - mu)/sigma."""
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for i in range(z.size):
        r = (z[i] - mu) / sigma
        r2 = r * r
        s1 += math.log1p(r2 / nu)
        d = 1.0 / (nu + r2)
        s2 += r * d
        s3 += r2 * d
    return s1, s2, s3


def _t_fit_gradient(z: NDArray[np.float64], mean: float, sd: float) -> tuple[float, float, float]:
    """ML (nu, mu, sigma) of the scaled-shifted t by L-BFGS-B over (log nu, mu, log sigma),
    started at (20, mean, sd) like the Nelder-Mead path.

    With r_i = (z_i - mu)/sigma, S1 = sum log1p(r^2/nu), S2 = sum r/(nu + r^2) and
    S3 = sum r^2/(nu + r^2), the log-likelihood of M values and its derivatives are
    l = M [lnG((nu+1)/2) - lnG(nu/2) - ln(nu pi)/2 - ln sigma] - (nu+1)/2 S1,
    dl/dmu = (nu+1) S2/sigma, dl/dsigma = (-M + (nu+1) S3)/sigma,
    dl/dnu = M [psi((nu+1)/2) - psi(nu/2) - 1/nu]/2 - S1/2 + (nu+1) S3/(2 nu).
    """
    m = z.size

    def negative(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        nu, mu, sigma = math.exp(theta[0]), theta[1], math.exp(theta[2])
        s1, s2, s3 = _t_sums(z, nu, mu, sigma)
        ll = m * (special.gammaln(0.5 * (nu + 1)) - special.gammaln(0.5 * nu)
                  - 0.5 * math.log(nu * math.pi) - math.log(sigma)) - 0.5 * (nu + 1) * s1
        d_nu = (0.5 * m * (special.digamma(0.5 * (nu + 1)) - special.digamma(0.5 * nu) - 1 / nu)
                - 0.5 * s1 + 0.5 * (nu + 1) * s3 / nu)
        d_mu = (nu + 1) * s2 / sigma
        d_sigma = (-m + (nu + 1) * s3) / sigma
        grad = np.array([d_nu * nu, d_mu, d_sigma * sigma])
        return -ll / m, -grad / m

    res = optimize.minimize(negative, np.array([math.log(20.0), mean, math.log(sd)]), jac=True,
                            method="L-BFGS-B",
                            bounds=[(math.log(1e-2), _LOG_NU_MAX), (None, None), (None, None)],
                            options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 500})
    return math.exp(res.x[0]), float(res.x[1]), math.exp(res.x[2])
