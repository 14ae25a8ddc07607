"""Ensembles and samples: m predictions per row (members in columns), optionally weighted.

:class:`Ensemble` (deep ensembles, random-forest trees, ...) and :class:`Samples` (posterior or
MC-dropout draws) are the same object under two names. Per row, with the finite members
x_1..x_m and weights w_i (1/m unless given; renormalised to sum 1 over the finite members):

* ``point``: the weighted mean x̄ = Σ w_i x_i;
* ``variance``: (1 + 1/m_e) s², s² = Σ w_i (x_i - x̄)²/(1 - Σ w_i²) the unbiased (weighted)
  member variance and m_e = 1/Σ w_i² (m unweighted): the variance of y - x̄ when y is one more
  draw of the law the members come from (the spread-skill relation, Leutbecher and Palmer
  2008). With few members, s is noisy and Z = (y - x̄)/√variance follows t(m - 1) for normal
  members, so E(Z²) = (m - 1)/(m - 3) > 1 even for a perfect ensemble (1.29 at m = 10, 1.04 at
  m = 50), and Z² is larger where s happens to be small: ``validate`` judges the variance
  stages of an unweighted ensemble against the reference of a perfect ensemble with the
  observed values, and advises factors net of that floor
  (:mod:`uqval.validation.ensemble_reference`); the coverage and shape stages are exact for
  any m;
* ``cdf(y)``: the empirical CDF Σ w_i 1{x_i <= y};
* ``pit(y, seed)``: unweighted, the randomised rank (r + V)/(m + 1), r the number of members
  below y plus a uniform share of the ties, V ~ U(0, 1): exactly U(0, 1) when y and the
  members are exchangeable (the continuous version of the rank histogram; Anderson 1996,
  Hamill 2001). Weighted: F(y-) + V (F(y) - F(y-)) (Czado, Gneiting and Held 2009);
* ``interval(level)``: the empirical quantiles at (1 ∓ L)/2, unweighted by the Weibull
  plotting position p(m + 1) (``numpy.quantile(method="weibull")``, for which
  P(y <= Q(p)) = p for exchangeable y, clamped to the smallest and largest member), weighted
  by the inverse of the weighted CDF;
* ``crps(y)``: ``properscoring.crps_ensemble`` (NaN members ignored), ``crps(y, fair=True)``
  the fair version (:mod:`uqval.predictive.crps`).

Data rules: NaN members are ignored in their row (counted: "NaN members"); rows with fewer
than 2 finite members are left out; rows whose finite members are all equal ("zero spread")
are counted and kept for the coverage and shape stages (their PIT is a uniform draw of the
rank among ties), but have no variance (NaN) and are left out of the variance stages.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import matrix
from uqval._internal.types import FloatArray, SeedLike
from uqval.predictive.base import (
    Predictive,
    _IssueLog,
    central_probabilities,
    observations,
    uniforms,
)
from uqval.predictive.crps import crps_ensemble

__all__ = ["Ensemble", "Samples"]


class Ensemble(Predictive):
    """Ensemble predictive: ``members`` of shape (M, m), members in columns (module docstring).

    Examples:
        >>> import numpy as np
        >>> from uqval import Ensemble
        >>> members = np.array([[0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0], [0.0, np.nan, 2.0, 4.0]])
        >>> f = Ensemble(members)
        >>> f.point.tolist(), f.data_issues.counts
        ([1.5, 1.0, 2.0], {'NaN members': 1, 'zero spread': 1})
        >>> f.crps([1.0, 1.0, 2.0]).round(4).tolist()  # properscoring.crps_ensemble
        [0.375, 0.0, 0.4444]
    """

    kind = "ensemble"
    _noun = "members"

    def __init__(self, members: ArrayLike, weights: ArrayLike | None = None) -> None:
        x = matrix(members, self._noun, min_columns=2)
        m_rows, m = x.shape
        finite = np.isfinite(x)
        if weights is None:
            w = np.ones_like(x)
        else:
            w = np.asarray(weights, dtype=np.float64)
            if w.ndim == 1:
                if w.size != m:
                    raise ValueError(f"weights: {w.size} values for {m} {self._noun}")
                w = np.broadcast_to(w, x.shape)
            if w.shape != x.shape:
                raise ValueError(f"weights must have shape ({m},) or {x.shape}, got {w.shape}")
            if not np.isfinite(w).all() or (w < 0).any():
                raise ValueError("weights must be finite and >= 0")
        w = np.where(finite, w, 0.0)
        total = w.sum(axis=1)
        log = _IssueLog()
        n_finite = finite.sum(axis=1)
        log.add(f"NaN {self._noun}", (n_finite < m) & (n_finite >= 2),
                f"the NaN {self._noun} were ignored in those rows")
        few = (n_finite < 2) | (total <= 0)
        log.add(f"fewer than 2 finite {self._noun}", few, "left out")
        usable = ~few
        w = np.where(usable[:, None], w / np.where(total > 0, total, 1.0)[:, None], 0.0)
        mean = np.sum(w * np.where(finite, x, 0.0), axis=1)
        filled = np.where(finite, x, mean[:, None])
        spread = (np.max(np.where(finite, x, -np.inf), axis=1)
                  - np.min(np.where(finite, x, np.inf), axis=1))
        zero = usable & ~(spread > 0)
        log.add("zero spread", zero, "kept for coverage and shape, left out of the variance stages")
        self._m = m_rows
        self._x = filled
        self._w = w
        self._finite = finite
        self._weighted = weights is not None
        self._mean = mean
        self._zero = zero
        self._usable = usable
        self._issues = log.freeze()
        self._freeze()

    @property
    def members(self) -> FloatArray:
        """The members (NaN where missing), shape (M, m)."""
        return np.where(self._finite, self._x, np.nan)

    @property
    def weighted(self) -> bool:
        """True when weights were given."""
        return self._weighted

    @property
    def n_members(self) -> NDArray[np.intp]:
        """Finite members per row."""
        return self._finite.sum(axis=1)

    @property
    def point(self) -> FloatArray:
        """Weighted mean of the members per row."""
        return np.where(self._usable, self._mean, np.nan)

    @property
    def variance(self) -> FloatArray:
        """(1 + 1/m_e) s² per row (module docstring); NaN for zero spread and rows left out."""
        w = self._w
        sw2 = np.sum(w * w, axis=1)
        dev = np.sum(w * (self._x - self._mean[:, None]) ** 2, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            s2 = dev / (1.0 - sw2)
            v = (1.0 + sw2) * s2
        return np.where(self._usable & ~self._zero, v, np.nan)

    def _below_ties(self, yy: FloatArray) -> tuple[FloatArray, FloatArray]:
        below = np.sum(self._w * (self._x < yy[:, None]), axis=1)
        ties = np.sum(self._w * (self._x == yy[:, None]), axis=1)
        return below, ties

    def cdf(self, y: ArrayLike) -> FloatArray:
        """Weighted empirical CDF at y per row."""
        yy = observations(y, self._m)
        below, ties = self._below_ties(yy)
        return np.where(self._usable & np.isfinite(yy), below + ties, np.nan)

    def pit(self, y: ArrayLike, seed: SeedLike = 0) -> FloatArray:
        """Randomised PIT per row (module docstring): uniform when y is one more member."""
        yy = observations(y, self._m)
        u = uniforms(seed, 2 * self._m).reshape(2, self._m)
        if self._weighted:
            below, ties = self._below_ties(yy)
            out = below + u[0] * ties
        else:
            m = self._finite.sum(axis=1)
            lower = np.sum(self._finite & (self._x < yy[:, None]), axis=1)
            equal = np.sum(self._finite & (self._x == yy[:, None]), axis=1)
            rank = lower + np.floor(u[1] * (equal + 1))
            out = (rank + u[0]) / (m + 1.0)
        return np.where(self._usable & np.isfinite(yy), out, np.nan)

    def quantile(self, p: float) -> FloatArray:
        """Empirical quantile at probability p per row (module docstring)."""
        if not self._weighted:
            q = np.quantile(self._x, p, axis=1, method="weibull")
            partial = ~self._finite.all(axis=1) & self._usable
            if partial.any():  # nanquantile is slow: only for rows with NaN members
                q[partial] = np.nanquantile(self.members[partial], p, axis=1, method="weibull")
            return np.where(self._usable, q, np.nan)
        order = np.argsort(self._x, axis=1, kind="stable")
        xs = np.take_along_axis(self._x, order, axis=1)
        c = np.cumsum(np.take_along_axis(self._w, order, axis=1), axis=1)
        idx = np.minimum((c < p - 1e-12).sum(axis=1), xs.shape[1] - 1)
        return np.where(self._usable, xs[np.arange(self._m), idx], np.nan)

    def interval(self, level: float) -> tuple[FloatArray, FloatArray]:
        """Empirical central interval per row (module docstring)."""
        lo, hi = central_probabilities(level)
        return self.quantile(lo), self.quantile(hi)

    def crps(self, y: ArrayLike, fair: bool = False) -> FloatArray:
        """Ensemble CRPS per row (``properscoring.crps_ensemble``; ``fair=True``: Ferro 2014)."""
        yy = observations(y, self._m)
        out = crps_ensemble(yy, self._x, self._w, fair=fair)
        return np.where(self._usable, out, np.nan)

    def take(self, rows: NDArray[np.bool_]) -> Ensemble:
        """The rows selected by the boolean mask ``rows`` (weights kept)."""
        weights = self._w[rows] if self._weighted else None
        return type(self)(self.members[rows], weights)

    def _describe(self) -> str:
        return f"{self._noun}={self._x.shape[1]}" + (", weighted" if self._weighted else "")


class Samples(Ensemble):
    """Draws from a predictive (posterior, MC dropout): an :class:`Ensemble` of ``draws``
    (M, m), draws in columns, equally weighted.

    Examples:
        >>> import numpy as np
        >>> from uqval import Samples
        >>> rng = np.random.default_rng(0)
        >>> f = Samples(rng.standard_normal((3, 1000)))
        >>> f.point.round(2).tolist(), f.pit([0.0, 0.0, 0.0], seed=1).round(2).tolist()
        ([-0.05, -0.01, -0.05], [0.53, 0.5, 0.53])
    """

    kind = "samples"
    _noun = "draws"

    def __init__(self, draws: ArrayLike) -> None:
        super().__init__(draws, None)

    def take(self, rows: NDArray[np.bool_]) -> Samples:
        """The rows selected by the boolean mask ``rows``."""
        return Samples(self.members[rows])
