"""Quantile sets and central prediction intervals.

:class:`Quantiles` holds K predicted quantiles q_1 <= ... <= q_K at levels τ_1 < ... < τ_K per
row (quantile regression, quantile boosting). :class:`Intervals` holds central intervals
[low, high] at levels L (conformal prediction, ...): the quantile set at the levels (1 - L)/2
and (1 + L)/2. Per row:

* ``point``: the median, read from the quantile function linearly interpolated at 0.5 (the
  q at τ = 0.5 if given; the nearest outer quantile if 0.5 lies outside the levels). For
  intervals that is the midpoint of the innermost interval when only one is given;
* ``variance``: None (a quantile set has no variance): the variance stages do not apply;
* ``cdf(y)``: linear interpolation of (q_k, τ_k); the outer segments are extended linearly
  down to 0 and up to 1 (clipped), the documented tail rule;
* ``pit(y, seed)``: *randomised within the bins of the levels*: when q_k <= y < q_k+1 the PIT
  is τ_k + V (τ_k+1 - τ_k), V ~ U(0, 1), with τ_0 = 0 below q_1 and τ_K+1 = 1 above q_K. It is
  exactly U(0, 1) whenever the quantiles are right, whatever the law between them (the
  interpolated CDF is not: between the levels it replaces the true CDF by a straight line,
  which a test at 10^4 rows detects); it is the continuous version of the histogram of the
  bins between the quantiles (the rank histogram of quantile forecasts);
* ``interval(level)``: (q at (1 - L)/2, q at (1 + L)/2), only for levels whose two quantiles
  are given (no interpolation: a ``ValueError`` lists the available levels);
* ``crps(y)``: 2 × the mean pinball loss over the levels (:mod:`uqval.predictive.crps`).

Data rules: rows with a NaN quantile are left out; **crossing quantiles** (q_k > q_k+1) are
sorted within their row, the usual remedy (Chernozhukov, Fernández-Val and Galichon 2010,
"rearrangement"), and counted. For :class:`Intervals`, rows with low > high at some level are
left out (swapping would guess which end is wrong) and counted per level; nested intervals
that cross (a 50 % interval poking out of the 90 % one) are sorted like quantiles and counted.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import matrix, probability, vector
from uqval._internal.types import FloatArray, SeedLike
from uqval.predictive.base import (
    Predictive,
    _IssueLog,
    central_probabilities,
    observations,
    uniforms,
)
from uqval.predictive.crps import crps_quantiles

__all__ = ["Intervals", "Quantiles"]

_TOL = 1e-9


def _levels(levels: ArrayLike) -> FloatArray:
    tau = vector(levels, "levels")
    for t in tau:
        probability(float(t), "every level")
    if np.any(np.diff(tau) <= 0):
        raise ValueError(f"levels must be strictly increasing, got {tau.tolist()}")
    return tau


class Quantiles(Predictive):
    """Predicted quantiles ``values`` (M, K) at ``levels`` (K increasing, in (0, 1)).

    Examples:
        Row 2 crosses (q05 > q50): its quantiles are sorted and the row is reported:

        >>> import numpy as np
        >>> from uqval import Quantiles
        >>> q = Quantiles([0.05, 0.5, 0.95], [[-1.6, 0.0, 1.6], [0.5, 0.0, 2.0]])
        >>> q.data_issues.sentences()
        ["1 row with crossing quantiles (row 2): each row's quantiles were sorted"]
        >>> q.point.tolist(), q.interval(0.9)[1].tolist(), q.central_levels
        ([0.0, 0.5], [1.6, 2.0], (0.9,))
        >>> q.cdf([0.8, 3.0]).round(3).tolist()
        [0.725, 1.0]
    """

    kind = "quantiles"

    def __init__(self, levels: ArrayLike, values: ArrayLike) -> None:
        tau = _levels(levels)
        q = matrix(values, "values")
        if q.shape[1] != tau.size:
            raise ValueError(f"values have {q.shape[1]} columns for {tau.size} levels")
        self._init(tau, q, _IssueLog(), np.ones(q.shape[0], dtype=bool), "crossing quantiles",
                   "each row's quantiles were sorted")
        self._freeze()

    def _init(self, tau: FloatArray, q: FloatArray, log: _IssueLog, usable: NDArray[np.bool_],
              crossing: str, action: str) -> None:
        missing = np.isnan(q).any(axis=1) & usable
        log.add("a missing quantile", missing, "left out")
        usable = usable & ~missing
        filled = np.where(usable[:, None], q, np.arange(tau.size, dtype=np.float64))
        crosses = usable & (np.diff(filled, axis=1) < 0).any(axis=1)
        log.add(crossing, crosses, action)
        self._m = q.shape[0]
        self._tau = tau
        self._q = np.sort(filled, axis=1)
        self._usable = usable
        self._issues = log.freeze()

    @property
    def levels(self) -> FloatArray:
        """The levels τ_k."""
        return self._tau.copy()

    @property
    def values(self) -> FloatArray:
        """The quantiles per row after the data rules (sorted; NaN in rows left out)."""
        return np.where(self._usable[:, None], self._q, np.nan)

    @property
    def central_levels(self) -> tuple[float, ...]:
        """Levels L whose central interval is given (both (1 ∓ L)/2 among the levels)."""
        out = []
        for t in self._tau[self._tau < 0.5 - _TOL]:
            if np.any(np.abs(self._tau - (1.0 - t)) < _TOL):
                out.append(round(1.0 - 2.0 * float(t), 12))
        return tuple(sorted(out))

    @property
    def default_levels(self) -> tuple[float, ...]:
        """The central levels given (:attr:`central_levels`)."""
        return self.central_levels

    def _nan_outside(self, values: FloatArray) -> FloatArray:
        return np.where(self._usable, values, np.nan)

    def quantile(self, p: float) -> FloatArray:
        """The quantile function at p per row, linear between the levels, clamped outside."""
        k = int(np.searchsorted(self._tau, p))
        if k < self._tau.size and abs(self._tau[k] - p) < _TOL:
            return self._nan_outside(self._q[:, k])
        if k == 0:
            return self._nan_outside(self._q[:, 0])
        if k == self._tau.size:
            return self._nan_outside(self._q[:, -1])
        f = (p - self._tau[k - 1]) / (self._tau[k] - self._tau[k - 1])
        return self._nan_outside((1.0 - f) * self._q[:, k - 1] + f * self._q[:, k])

    @property
    def point(self) -> FloatArray:
        """The median (module docstring)."""
        return self.quantile(0.5)

    def cdf(self, y: ArrayLike) -> FloatArray:
        """Piecewise-linear CDF with linearly extended tails (module docstring)."""
        yy = observations(y, self._m)
        q, tau = self._q, self._tau
        k = np.sum(q <= yy[:, None], axis=1)  # 0..K
        if tau.size == 1:
            return self._nan_outside(np.where(yy < q[:, 0], 0.0, 1.0) * 1.0)
        lo = np.clip(k - 1, 0, tau.size - 2)
        rows = np.arange(self._m)
        q0, q1 = q[rows, lo], q[rows, lo + 1]
        t0, t1 = tau[lo], tau[lo + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(q1 > q0, (yy - q0) / (q1 - q0), np.where(yy >= q1, 1.0, 0.0))
        out = np.clip(t0 + f * (t1 - t0), 0.0, 1.0)
        return np.where(self._usable & np.isfinite(yy), out, np.nan)

    def pit(self, y: ArrayLike, seed: SeedLike = 0) -> FloatArray:
        """PIT randomised within the bins between the levels (module docstring)."""
        yy = observations(y, self._m)
        edges = np.concatenate([[0.0], self._tau, [1.0]])
        k = np.sum(self._q <= yy[:, None], axis=1)
        v = uniforms(seed, self._m)
        out = edges[k] + v * (edges[k + 1] - edges[k])
        return np.where(self._usable & np.isfinite(yy), out, np.nan)

    def covered(self, y: ArrayLike, level: float, seed: SeedLike = 0) -> NDArray[np.bool_]:
        """low <= y <= high for the central interval at ``level`` (no randomness)."""
        yy = observations(y, self._m)
        lo, hi = self.interval(level)
        return (yy >= lo) & (yy <= hi)

    def interval(self, level: float) -> tuple[FloatArray, FloatArray]:
        """The given quantiles at (1 ∓ L)/2 (module docstring)."""
        lo, hi = central_probabilities(level)
        i = np.flatnonzero(np.abs(self._tau - lo) < _TOL)
        j = np.flatnonzero(np.abs(self._tau - hi) < _TOL)
        if i.size == 0 or j.size == 0:
            raise ValueError(f"no central interval at level {level:g}: the levels given are "
                             f"{', '.join(f'{t:g}' for t in self.central_levels) or 'none'}")
        return self._nan_outside(self._q[:, i[0]]), self._nan_outside(self._q[:, j[0]])

    def crps(self, y: ArrayLike) -> FloatArray:
        """2 × mean pinball loss over the levels per row (module docstring)."""
        yy = observations(y, self._m)
        return self._nan_outside(crps_quantiles(yy, self._q, self._tau))

    def take(self, rows: NDArray[np.bool_]) -> Quantiles:
        """The rows selected by the boolean mask ``rows``."""
        return Quantiles(self._tau, self.values[rows])

    def _describe(self) -> str:
        return "levels=[" + ", ".join(f"{t:g}" for t in self._tau) + "]"


class Intervals(Quantiles):
    """Central prediction intervals ``{level: (low, high)}`` per row (module docstring).

    Examples:
        Row 3 has low > high: it is left out and reported:

        >>> from uqval import Intervals
        >>> iv = Intervals({0.9: ([-1.0, 0.0, 1.0], [1.0, 2.0, 0.0])})
        >>> iv.usable.tolist(), iv.data_issues.sentences()
        ([True, True, False], ['1 row with low > high at level 0.9 (row 3): left out'])
        >>> iv.covered([0.5, 2.5, 0.0], 0.9).tolist()
        [True, False, False]
    """

    kind = "intervals"

    def __init__(self, intervals: Mapping[float, tuple[ArrayLike, ArrayLike]]) -> None:
        if not isinstance(intervals, Mapping) or not intervals:
            raise ValueError("intervals must be a non-empty mapping {level: (low, high)}")
        log = _IssueLog()
        columns: dict[float, FloatArray] = {}
        usable: NDArray[np.bool_] | None = None
        for level in sorted(intervals):
            lev = probability(level, "interval level")
            pair = intervals[level]
            if len(pair) != 2:
                raise ValueError(f"intervals[{level:g}] must be a pair (low, high)")
            low = vector(pair[0], f"low at level {lev:g}", finite=False)
            high = vector(pair[1], f"high at level {lev:g}", finite=False)
            if low.size != high.size or (usable is not None and low.size != usable.size):
                raise ValueError("every low and high must have the same length")
            if usable is None:
                usable = np.ones(low.size, dtype=bool)
            bad = usable & (low > high)
            log.add(f"low > high at level {lev:g}", bad, "left out")
            usable = usable & ~bad
            tl, th = central_probabilities(lev)
            columns[tl], columns[th] = low, high
        assert usable is not None
        tau = np.array(sorted(columns))
        q = np.column_stack([columns[t] for t in tau])
        self._init(tau, q, log, usable, "intervals that are not nested",
                   "each row's interval ends were sorted")
        self._freeze()

    @property
    def point(self) -> FloatArray:
        """The median by interpolation (module docstring): with one interval, its midpoint."""
        return self.quantile(0.5)

    @property
    def has_shape(self) -> bool:
        """Intervals give a few quantiles only: the coverage stage says it all."""
        return False

    def take(self, rows: NDArray[np.bool_]) -> Intervals:
        """The rows selected by the boolean mask ``rows``."""
        values = self.values[rows]
        out = {}
        for level in self.central_levels:
            lo, hi = central_probabilities(level)
            i = int(np.argmin(np.abs(self._tau - lo)))
            j = int(np.argmin(np.abs(self._tau - hi)))
            out[level] = (values[:, i], values[:, j])
        return Intervals(out)
