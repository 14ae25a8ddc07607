"""What every predictive object gives, and how data problems are counted.

A *predictive* describes, for each of M rows, a forecast distribution of the target y:
a parametric law (:class:`~uqval.predictive.Normal`, ...), a set of members or draws
(:class:`~uqval.predictive.Ensemble`, :class:`~uqval.predictive.Samples`), a set of quantiles
or of central intervals (:class:`~uqval.predictive.Quantiles`,
:class:`~uqval.predictive.Intervals`). Every kind gives, per row:

* ``point``: the point prediction (mean, or median where no mean exists: documented per kind);
* ``variance``: the predictive variance, ``None`` where undefined (quantiles, intervals);
* ``pit(y, seed=)``: the probability integral transform F(y) (Dawid 1984), randomised where F
  jumps (ensembles, quantile bins) so that it is exactly uniform when the forecast is right
  (Czado, Gneiting and Held 2009);
* ``cdf(y)``: F(y);
* ``interval(level)``: the central interval [F^-1((1 - L)/2), F^-1((1 + L)/2)];
* ``crps(y)``: the continuous ranked probability score ∫ (F(x) - 1{y <= x})² dx per row
  (Gneiting and Raftery 2007, Eq. 20).

Data problems (crossing quantiles, intervals with low > high, NaN members, ensembles without
spread, invalid parameters) never stop the validation of a whole dataset and are never
silent: each kind applies a documented rule (sort, ignore, leave the row out) and records the
affected rows (1-based) in ``data_issues`` (:class:`DataIssues`); rows that cannot be used at
all are ``False`` in ``usable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import MAX_LISTED_ROWS, probability, vector
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike

__all__ = ["DEFAULT_LEVELS", "DataIssues", "Predictive"]

DEFAULT_LEVELS = (0.5, 0.8, 0.9, 0.95)
"""Nominal levels of the central intervals checked for distributions and ensembles."""


@dataclass(frozen=True)
class DataIssues:
    """Rows (1-based) with a data problem, by kind of problem, and what was done about it.

    Attributes:
        rows: problem -> the affected rows, 1-based, increasing.
        actions: problem -> the rule applied (one sentence).

    >>> issues = DataIssues({"crossing quantiles": (3, 7)},
    ...                     {"crossing quantiles": "each row's quantiles were sorted"})
    >>> issues.counts
    {'crossing quantiles': 2}
    >>> issues.sentences()
    ["2 rows with crossing quantiles (rows 3, 7): each row's quantiles were sorted"]
    """

    rows: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    actions: Mapping[str, str] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Problem -> number of rows."""
        return {k: len(v) for k, v in self.rows.items()}

    def sentences(self) -> list[str]:
        """One sentence per problem: how many rows, which (the first few), what was done."""
        out = []
        for kind, rows in self.rows.items():
            shown = ", ".join(map(str, rows[:MAX_LISTED_ROWS]))
            more = ", ..." if len(rows) > MAX_LISTED_ROWS else ""
            noun = "row" if len(rows) == 1 else "rows"
            out.append(f"{len(rows)} {noun} with {kind} ({noun} {shown}{more}): "
                       f"{self.actions.get(kind, '')}".rstrip(": "))
        return out

    def __bool__(self) -> bool:
        return any(self.rows.values())

    def __repr__(self) -> str:
        return f"DataIssues({self.counts})"


class _IssueLog:
    """Collects rows of data problems while a predictive object is built."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[int, ...]] = {}
        self.actions: dict[str, str] = {}

    def add(self, kind: str, bad: NDArray[np.bool_], action: str) -> None:
        if bad.any():
            self.rows[kind] = tuple(int(i) + 1 for i in np.flatnonzero(bad))
            self.actions[kind] = action

    def freeze(self) -> DataIssues:
        return DataIssues(dict(self.rows), dict(self.actions))


def observations(y: ArrayLike, m: int) -> FloatArray:
    """``y`` checked against a predictive of ``m`` rows (1-D, numeric, same length; NaN allowed:
    the caller leaves those rows out)."""
    arr = vector(y, "y_true", finite=False)
    if arr.size != m:
        raise ValueError(f"y_true and the predictive have different lengths ({arr.size} and {m})")
    if np.isinf(arr).any():
        raise ValueError("y_true has infinite values")
    return arr


def uniforms(seed: SeedLike, m: int) -> FloatArray:
    """M uniforms on [0, 1) from the project's value stream (PCG64 of ``SeedSequence(seed)``)."""
    return value_generator(seed_sequence(seed)).random(m)


def central_probabilities(level: float) -> tuple[float, float]:
    """(τ_low, τ_high) = ((1 - L)/2, (1 + L)/2) of the central interval at level L."""
    lev = probability(level, "level")
    return 0.5 * (1.0 - lev), 0.5 * (1.0 + lev)


class Predictive:
    """Base of the predictive kinds (module docstring). Immutable after construction.

    Subclasses set ``_m`` (rows), ``_usable`` (bool per row) and ``_issues`` and implement
    ``point``, ``variance``, ``cdf``, ``pit``, ``interval`` and ``crps``.
    """

    kind = "predictive"
    _m: int
    _usable: NDArray[np.bool_]
    _issues: DataIssues
    _frozen = False

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable")
        object.__setattr__(self, name, value)

    def _freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def __len__(self) -> int:
        return self._m

    @property
    def usable(self) -> NDArray[np.bool_]:
        """Rows that can be validated (False: a data problem the rules cannot repair)."""
        return self._usable.copy()

    @property
    def data_issues(self) -> DataIssues:
        """Data problems found, with their 1-based rows and the rule applied."""
        return self._issues

    @property
    def point(self) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def variance(self) -> FloatArray | None:
        """Predictive variance per row, None where the kind has none."""
        return None

    @property
    def default_levels(self) -> tuple[float, ...]:
        """Levels of the central intervals the coverage stage checks by default."""
        return DEFAULT_LEVELS

    @property
    def has_shape(self) -> bool:
        """Whether the PIT describes a whole distribution (the shape stage applies)."""
        return True

    def cdf(self, y: ArrayLike) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def pit(self, y: ArrayLike, seed: SeedLike = 0) -> FloatArray:
        """PIT F(y) per row (continuous kinds: no randomness, ``seed`` unused)."""
        return self.cdf(y)

    def quantile(self, p: float) -> FloatArray:  # pragma: no cover - abstract
        """F^-1(p) per row."""
        raise NotImplementedError

    def interval(self, level: float) -> tuple[FloatArray, FloatArray]:  # pragma: no cover
        raise NotImplementedError

    def crps(self, y: ArrayLike) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def covered(self, y: ArrayLike, level: float, seed: SeedLike = 0) -> NDArray[np.bool_]:
        """Whether y lies in the central interval at ``level``: τ_low <= PIT <= τ_high, which
        for continuous kinds is low <= y <= high; for ensembles (randomised PIT) it has
        probability exactly L when the members and y are exchangeable, whatever the number of
        members."""
        lo, hi = central_probabilities(level)
        p = self.pit(y, seed=seed)
        return (p >= lo) & (p <= hi)

    def standardized(self, y: ArrayLike, level: float) -> FloatArray:
        """Per-row standardized errors, for the test of consecutive groups
        (:func:`uqval.stats.serial_groups.serial_blocks`): (y - point)/sd with a variance,
        else the position of y in the central interval at ``level``, (y - mid)/(half width);
        0 where undefined (no information)."""
        yy = np.asarray(y, dtype=np.float64)
        variance = self.variance
        with np.errstate(divide="ignore", invalid="ignore"):
            if variance is not None:
                z = (yy - self.point) / np.sqrt(variance)
            else:
                lo, hi = self.interval(level)
                z = (yy - (lo + hi) / 2) / ((hi - lo) / 2)
        return np.where(np.isfinite(z), z, 0.0)

    def take(self, rows: NDArray[np.bool_]) -> Predictive:  # pragma: no cover - abstract
        """The same predictive restricted to ``rows`` (a boolean mask)."""
        raise NotImplementedError

    def _describe(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self._describe()
        issues = f", data_issues={self._issues.counts}" if self._issues else ""
        return f"{type(self).__name__}(M={self._m}{', ' + extra if extra else ''}{issues})"
