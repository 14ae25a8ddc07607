"""Parametric predictive distributions: normal, Student t and Laplace, given by mean and sd.

Every family is parametrised by its mean μ and **standard deviation** sd (the uncertainty uE of
the rest of uqval), whatever the family; the point prediction is the mean (= median) and the
variance sd². Scales: Student t with ν > 2 has scale s = sd √((ν - 2)/ν) (``scale=`` accepts s
directly), Laplace has b = sd/√2. The PIT is the CDF at y (continuous, no randomness).

Rows whose mean or sd is NaN, whose sd is <= 0, or (t) whose ν is NaN or <= 2 are left out
(``usable`` False) and counted in ``data_issues``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from uqval._internal.checks import vector
from uqval._internal.types import FloatArray, SeedLike
from uqval.predictive.base import Predictive, _IssueLog, central_probabilities, observations
from uqval.predictive.crps import crps_laplace, crps_normal, crps_t

__all__ = ["Laplace", "Normal", "StudentT"]


class _LocationScale(Predictive):
    """Shared code: mean and sd per row; subclasses give the unit-variance law."""

    def __init__(self, mean: ArrayLike, sd: ArrayLike, *, extra_bad: NDArray[np.bool_] | None = None,
                 extra_kind: str = "") -> None:
        mu = vector(mean, "mean", finite=False)
        s = np.broadcast_to(vector(np.atleast_1d(sd), "sd", finite=False), mu.shape).copy()
        if np.isinf(mu).any() or np.isinf(s).any():
            raise ValueError("mean and sd must not be infinite")
        log = _IssueLog()
        bad_mean = np.isnan(mu)
        log.add("a missing mean", bad_mean, "left out")
        bad_sd = ~(s > 0)
        log.add("a missing or non-positive sd", bad_sd & ~bad_mean, "left out")
        usable = ~(bad_mean | bad_sd)
        if extra_bad is not None:
            log.add(extra_kind, extra_bad & usable, "left out")
            usable &= ~extra_bad
        self._m = mu.size
        self._mean = np.where(usable, mu, 0.0)
        self._sd = np.where(usable, s, 1.0)
        self._usable = usable
        self._issues = log.freeze()

    def _nan_outside(self, values: FloatArray) -> FloatArray:
        return np.where(self._usable, values, np.nan)

    @property
    def mean(self) -> FloatArray:
        """Mean per row (NaN in rows left out)."""
        return self._nan_outside(self._mean)

    @property
    def sd(self) -> FloatArray:
        """Standard deviation per row (NaN in rows left out)."""
        return self._nan_outside(self._sd)

    @property
    def point(self) -> FloatArray:
        """The mean (also the median: every family here is symmetric)."""
        return self.mean

    @property
    def variance(self) -> FloatArray:
        """sd² per row."""
        return self.sd**2

    def _unit_cdf(self, z: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _unit_ppf(self, p: float) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def cdf(self, y: ArrayLike) -> FloatArray:
        """F(y) per row."""
        yy = observations(y, self._m)
        return self._nan_outside(self._unit_cdf((yy - self._mean) / self._sd))

    def pit(self, y: ArrayLike, seed: SeedLike = 0) -> FloatArray:
        """F(y) per row (continuous: ``seed`` unused)."""
        return self.cdf(y)

    def _unit_logpdf(self, z: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def log_density(self, y: ArrayLike) -> FloatArray:
        """ln p(y) per row (for the negative log-likelihood)."""
        yy = observations(y, self._m)
        return self._nan_outside(self._unit_logpdf((yy - self._mean) / self._sd)
                                 - np.log(self._sd))

    def quantile(self, p: float) -> FloatArray:
        """F^-1(p) = μ + sd·q_p per row, q_p the p-quantile of the unit-variance law."""
        return self._nan_outside(self._mean + self._sd * self._unit_ppf(p))

    def interval(self, level: float) -> tuple[FloatArray, FloatArray]:
        """μ ± sd·q, q the (1 + L)/2 quantile of the unit-variance law."""
        _, high = central_probabilities(level)
        q = self._unit_ppf(high)
        return self._nan_outside(self._mean - self._sd * q), self._nan_outside(self._mean + self._sd * q)

    def _base_take(self, rows: NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
        return np.where(self._usable, self._mean, np.nan)[rows], np.where(
            self._usable, self._sd, np.nan)[rows]


class Normal(_LocationScale):
    """Normal predictive N(mean, sd²) per row.

    Examples:
        >>> import numpy as np
        >>> from uqval import Normal
        >>> f = Normal([0.0, 1.0], [1.0, 2.0])
        >>> f.cdf([0.0, 1.0]).tolist(), f.interval(0.95)[1].round(4).tolist()
        ([0.5, 0.5], [1.96, 4.9199])
        >>> f.crps([0.0, 1.0]).round(4).tolist()  # (sqrt(2) - 1)/sqrt(pi) sd
        [0.2337, 0.4674]
    """

    kind = "normal"

    def __init__(self, mean: ArrayLike, sd: ArrayLike) -> None:
        super().__init__(mean, sd)
        self._freeze()

    def _unit_cdf(self, z: FloatArray) -> FloatArray:
        return special.ndtr(z)

    def _unit_logpdf(self, z: FloatArray) -> FloatArray:
        from scipy import stats  # on first use: importing it costs 0.8 s per job
        return stats.norm.logpdf(z)

    def _unit_ppf(self, p: float) -> FloatArray:
        return special.ndtri(p)

    def crps(self, y: ArrayLike) -> FloatArray:
        """Closed-form CRPS per row (G&R 2007 Eq. 21)."""
        yy = observations(y, self._m)
        return self._nan_outside(crps_normal(yy, self._mean, self._sd))

    def take(self, rows: NDArray[np.bool_]) -> Normal:
        """The rows selected by the boolean mask ``rows``."""
        return Normal(*self._base_take(rows))


class Laplace(_LocationScale):
    """Laplace predictive with mean μ and sd (scale b = sd/√2) per row.

    Examples:
        >>> from uqval import Laplace
        >>> f = Laplace([0.0], [2.0 ** 0.5])  # b = 1
        >>> float(f.cdf([0.0])[0]), round(float(f.interval(0.5)[1][0]), 4)  # ln 2
        (0.5, 0.6931)
        >>> float(f.crps([0.0])[0])  # b/4
        0.25
    """

    kind = "laplace"

    def __init__(self, mean: ArrayLike, sd: ArrayLike) -> None:
        super().__init__(mean, sd)
        self._freeze()

    def _unit_cdf(self, z: FloatArray) -> FloatArray:
        from scipy import stats
        return stats.laplace.cdf(z * math.sqrt(2.0))

    def _unit_logpdf(self, z: FloatArray) -> FloatArray:
        from scipy import stats
        return stats.laplace.logpdf(z * math.sqrt(2.0)) + 0.5 * math.log(2.0)

    def _unit_ppf(self, p: float) -> FloatArray:
        from scipy import stats
        return stats.laplace.ppf(p) / math.sqrt(2.0)

    def crps(self, y: ArrayLike) -> FloatArray:
        """Closed-form CRPS per row (scoringRules ``crps_lapl``)."""
        yy = observations(y, self._m)
        return self._nan_outside(crps_laplace(yy, self._mean, self._sd / math.sqrt(2.0)))

    def take(self, rows: NDArray[np.bool_]) -> Laplace:
        """The rows selected by the boolean mask ``rows``."""
        return Laplace(*self._base_take(rows))


class StudentT(_LocationScale):
    """Student-t predictive with mean μ, sd and ν > 2 degrees of freedom per row.

    ``sd`` is the standard deviation; give ``scale=`` (the t scale s, sd = s √(ν/(ν - 2)))
    instead if that is what the model outputs. ``nu`` is one number or one per row.

    Examples:
        >>> from uqval import StudentT
        >>> f = StudentT([0.0], sd=[1.0], nu=4)
        >>> round(float(f.scale[0]), 4), round(float(f.interval(0.95)[1][0]), 4)
        (0.7071, 1.9632)
        >>> g = StudentT([0.0], scale=[0.7071067811865476], nu=4)
        >>> round(float(g.sd[0]), 6)
        1.0
    """

    kind = "t"

    def __init__(self, mean: ArrayLike, sd: ArrayLike | None = None, nu: ArrayLike = 5.0, *,
                 scale: ArrayLike | None = None) -> None:
        if (sd is None) == (scale is None):
            raise ValueError("StudentT needs exactly one of sd= (standard deviation) and scale=")
        mu = vector(mean, "mean", finite=False)
        n = np.broadcast_to(vector(np.atleast_1d(nu), "nu", finite=False), mu.shape).copy()
        if np.ndim(nu) == 0 and not float(nu) > 2.0:  # type: ignore[arg-type]
            raise ValueError("nu must be > 2 (a Student t with nu <= 2 has no variance), "
                             f"got {nu!r}")
        bad_nu = ~(n > 2.0)
        safe_nu = np.where(bad_nu, 5.0, n)
        if sd is None:
            s_arr = np.broadcast_to(vector(np.atleast_1d(np.asarray(scale)), "scale", finite=False),
                                    mu.shape)
            sd = s_arr * np.sqrt(safe_nu / (safe_nu - 2.0))
        super().__init__(mu, sd, extra_bad=bad_nu, extra_kind="a missing nu or nu <= 2")
        self._nu = safe_nu
        self._freeze()

    @property
    def nu(self) -> FloatArray:
        """Degrees of freedom per row."""
        return self._nan_outside(self._nu)

    @property
    def scale(self) -> FloatArray:
        """t scale s = sd √((ν - 2)/ν) per row."""
        return self._nan_outside(self._scale())

    def _scale(self) -> FloatArray:
        return self._sd * np.sqrt((self._nu - 2.0) / self._nu)

    def _unit_cdf(self, z: FloatArray) -> FloatArray:
        from scipy import stats
        return stats.t.cdf(z * np.sqrt(self._nu / (self._nu - 2.0)), self._nu)

    def _unit_logpdf(self, z: FloatArray) -> FloatArray:
        k = np.sqrt(self._nu / (self._nu - 2.0))
        from scipy import stats
        return stats.t.logpdf(z * k, self._nu) + np.log(k)

    def _unit_ppf(self, p: float) -> FloatArray:
        from scipy import stats
        return stats.t.ppf(p, self._nu) * np.sqrt((self._nu - 2.0) / self._nu)

    def crps(self, y: ArrayLike) -> FloatArray:
        """Closed-form CRPS per row (Jordan, Krüger and Lerch 2019)."""
        yy = observations(y, self._m)
        return self._nan_outside(crps_t(yy, self._mean, self._scale(), self._nu))

    def take(self, rows: NDArray[np.bool_]) -> StudentT:
        """The rows selected by the boolean mask ``rows``."""
        mean, sd = self._base_take(rows)
        return StudentT(mean, sd, np.where(self._usable, self._nu, np.nan)[rows])

    def _describe(self) -> str:
        nu = np.unique(self._nu[self._usable])
        return f"nu={nu[0]:g}" if nu.size == 1 else "nu per row"
