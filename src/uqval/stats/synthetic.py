"""Seeded synthetic generators for calibrated error/uncertainty sets.

All generators follow the generative model of the papers (P000 Eq. 1; heavy-tails paper
P001 Eq. 1; simref paper P002 Eqs. 1-2)

    E_i = uE_i * D,    D a zero-mean, unit-variance distribution,

so that the generated sets are calibrated by construction. Randomness comes exclusively from
an explicit :class:`numpy.random.Generator`; the same seed gives the same draws.

Parametrisation conventions (see docs/choices.md, "Inverse-gamma parametrisations"): the
*simulations* draw squared uncertainties from ``Gamma^-1(nu/2, nu/2)`` (NIG/TIG models, P001
Sect. III.2 and IV.2), whereas the *fits* of :mod:`uqval.stats.fits` report the shape of
``Gamma^-1(nu, nu)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval.stats.variate_kernel import unit_normal, unit_t

# scipy.stats (0.8 s per job) is imported by quantile and cdf on first use: the Monte Carlo
# jobs (simref_appb_chunk, ...) only draw.

__all__ = [
    "GenerativeDistribution",
    "as_distribution",
    "calibrated_errors",
    "nig_dataset",
    "rinvgamma",
    "rt_unit_variance",
    "t_unit_variance_factor",
    "tig_dataset",
]

Shape = int | tuple[int, ...]


def t_unit_variance_factor(nu: float) -> float:
    """Scale factor sqrt((nu - 2)/nu) turning a Student t(nu) into unit variance.

    P001 Eq. 20: t_s(nu) := t(nu) * sqrt((nu - 2)/nu). For ``nu = inf`` the factor is 1
    (the normal limit).

    Raises:
        ValueError: if ``nu <= 2`` (infinite variance) or ``nu`` is NaN.
    """
    nu = float(nu)
    if not nu > 2.0:
        raise ValueError(f"unit-variance Student t needs nu > 2, got nu={nu}")
    if math.isinf(nu):
        return 1.0
    return math.sqrt((nu - 2.0) / nu)


def rt_unit_variance(rng: np.random.Generator, nu: float, size: Shape) -> NDArray[np.float64]:
    """Draw from the unit-variance Student t, t_s(nu) = t(nu) * sqrt((nu-2)/nu).

    Heavy-tails paper P001 Sect. IV.2, Eq. 20 (also P002 Eq. 25). ``nu = inf`` gives a
    standard normal. Drawn by the compiled polar samplers of
    :mod:`uqval.stats.variate_kernel` (Bailey's method for the t, Marsaglia's for the
    normal) on a stream seeded from four integers of ``rng``.

    Raises:
        ValueError: if ``nu <= 2``.
    """
    t_unit_variance_factor(nu)
    if math.isinf(nu):
        return unit_normal(rng, size)
    return unit_t(rng, nu, size)


def rinvgamma(
    rng: np.random.Generator, shape: float, scale: float, size: Shape
) -> NDArray[np.float64]:
    """Draw from the inverse-gamma distribution Gamma^-1(a = shape, b = scale).

    Density proportional to x^(-a-1) exp(-b/x); mean b/(a-1) for a > 1 (P001 Sect. III.1,
    Eq. 16). Sampled as 1/Gamma(shape = a, rate = b), i.e. ``1/rng.gamma(a, 1/b)``.

    Raises:
        ValueError: if ``shape <= 0`` or ``scale <= 0``.
    """
    if not (shape > 0 and scale > 0):
        raise ValueError(f"inverse gamma needs shape > 0 and scale > 0, got {shape}, {scale}")
    return 1.0 / rng.gamma(shape, 1.0 / scale, size)


@dataclass(frozen=True)
class GenerativeDistribution:
    """Zero-mean, unit-variance generative distribution D of the model E = uE * D.

    ``name="normal"``: D = N(0, 1) (``nu`` must be None).
    ``name="t"``: D = t_s(nu) = t(nu) * sqrt((nu-2)/nu), nu > 2 (P001 Eq. 20; P002 Eq. 25);
    ``nu = inf`` is accepted and equals the normal.
    """

    name: Literal["normal", "t"]
    nu: float | None = None

    def __post_init__(self) -> None:
        if self.name == "normal":
            if self.nu is not None:
                raise ValueError("the normal distribution takes no nu")
        elif self.name == "t":
            if self.nu is None:
                raise ValueError("the Student t distribution needs nu")
            t_unit_variance_factor(self.nu)
        else:
            raise ValueError(f"unknown distribution name {self.name!r}; use 'normal' or 't'")

    @property
    def _finite_nu(self) -> float | None:
        """nu of a finite-nu Student t; None for the normal (including ``t`` with nu = inf)."""
        if self.nu is None or math.isinf(self.nu):
            return None
        return float(self.nu)

    def draw(self, rng: np.random.Generator, shape: Shape) -> NDArray[np.float64]:
        """Draw unit-variance variates of the given shape (compiled polar samplers of
        :mod:`uqval.stats.variate_kernel`, seeded from four integers of ``rng``)."""
        nu = self._finite_nu
        if nu is None:
            return unit_normal(rng, shape)
        return unit_t(rng, nu, shape)

    def quantile(self, p: ArrayLike) -> NDArray[np.float64]:
        """Quantile function of D: Phi^-1(p), or t.ppf(p, nu) * sqrt((nu-2)/nu)."""
        from scipy import stats

        nu = self._finite_nu
        if nu is None:
            return np.asarray(stats.norm.ppf(p), dtype=float)
        return np.asarray(stats.t.ppf(p, nu) * t_unit_variance_factor(nu), dtype=float)

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Cumulative distribution function of D: Phi(x), or T_nu(x / sqrt((nu-2)/nu))."""
        from scipy import stats

        nu = self._finite_nu
        if nu is None:
            return np.asarray(stats.norm.cdf(x), dtype=float)
        return np.asarray(stats.t.cdf(np.asarray(x) / t_unit_variance_factor(nu), nu), dtype=float)


def as_distribution(
    spec: GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float],
) -> GenerativeDistribution:
    """Coerce ``"normal"``, ``("t", nu)`` or a :class:`GenerativeDistribution` to the latter."""
    if isinstance(spec, GenerativeDistribution):
        return spec
    if spec == "normal":
        return GenerativeDistribution("normal")
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "t":
        return GenerativeDistribution("t", float(spec[1]))
    raise ValueError(f"cannot interpret {spec!r} as a generative distribution")


def calibrated_errors(
    rng: np.random.Generator,
    uncertainties: ArrayLike,
    distribution: GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float],
    size: Shape | None = None,
) -> NDArray[np.float64]:
    """Draw calibrated errors E = uE * D (P000 Eq. 1; P001 Eq. 1; P002 Eqs. 1-2).

    Args:
        rng: random generator.
        uncertainties: uE; must broadcast to ``size``.
        distribution: D, given as ``"normal"``, ``("t", nu)`` or a
            :class:`GenerativeDistribution`.
        size: output shape; defaults to the shape of ``uncertainties``. E.g. ``size=(N, M)``
            with ``uncertainties`` of shape ``(M,)`` draws N replicate error sets for one
            uncertainty set.
    """
    u = np.asarray(uncertainties, dtype=float)
    shape = u.shape if size is None else ((size,) if isinstance(size, int) else tuple(size))
    if np.broadcast_shapes(u.shape, shape) != shape:
        raise ValueError(f"uncertainties of shape {u.shape} do not broadcast to size {shape}")
    return u * as_distribution(distribution).draw(rng, shape)


def tig_dataset(
    rng: np.random.Generator,
    nu_ig: float | None,
    nu_d: float,
    M: int,
    uncertainties: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Generate a calibrated TIG set (E, uE) of size M (P001 Sect. IV.2).

    uE^2 ~ Gamma^-1(nu_IG/2, nu_IG/2) and E = uE * t_s(nu_D) (Eq. 20); ``nu_d = inf`` gives
    normal errors (the NIG model). If ``uncertainties`` (uE) are given (P001 Fig. 5 design,
    where one uncertainty set is drawn once and kept across Monte Carlo repeats), they are
    used as is, ``nu_ig`` is ignored, and their length must equal ``M``. uE is drawn before E.

    Returns:
        (E, uE), both of shape (M,).
    """
    if uncertainties is None:
        if nu_ig is None:
            raise ValueError("nu_ig is required when uncertainties are not given")
        u = np.sqrt(rinvgamma(rng, nu_ig / 2.0, nu_ig / 2.0, M))
    else:
        u = np.asarray(uncertainties, dtype=float)
        if u.shape != (M,):
            raise ValueError(f"uncertainties must have shape ({M},), got {u.shape}")
    dist = GenerativeDistribution("t", float(nu_d))
    return calibrated_errors(rng, u, dist), u


def nig_dataset(
    rng: np.random.Generator, nu: float, M: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Generate a calibrated NIG set (E, uE) of size M (P001 Sect. III.2, Eqs. 18-19).

    uE^2 ~ Gamma^-1(nu/2, nu/2) and E = uE * N(0, 1); marginally E ~ t(nu),
    E^2 ~ F(1, nu) and <E^2> = <uE^2> = nu/(nu-2) for nu > 2.

    Returns:
        (E, uE), both of shape (M,).
    """
    return tig_dataset(rng, nu, math.inf, M)


DistributionName = Literal["normal", "t"]
"""Predictive shapes of the scores: normal, or unit-variance Student t (with ``nu``)."""


def predictive(distribution: DistributionName, nu: float | None) -> GenerativeDistribution:
    """The unit-variance shape D of the predictive distribution y ~ ŷ + uE·D.

    ``"normal"``: D = N(0, 1); ``"t"``: D = t(nu)·sqrt((nu − 2)/nu), the unit-variance Student
    t of P001 Eq. 20 (nu > 2 required).
    """
    if distribution == "normal":
        if nu is not None:
            raise ValueError("nu is only used with distribution='t'")
        return GenerativeDistribution("normal")
    if distribution == "t":
        if nu is None or not nu > 2.0 or math.isnan(nu):
            raise ValueError(f"distribution='t' needs nu > 2, got nu={nu!r}")
        return GenerativeDistribution("t", float(nu))
    raise ValueError(f"distribution must be 'normal' or 't', got {distribution!r}")
