"""The reference of a perfect m-member ensemble for an ensemble's variance stages.

With m members per row, the ensemble's z-score Z = (y - x̄)/(s·√(1 + 1/m)) (x̄, s the mean
and sample sd of the members; :class:`uqval.predictive.Ensemble`'s ``variance``) is *not*
calibrated against 1: for normal members and y drawn from one law, Z ~ t(m - 1) and
E(Z²) = (m - 1)/(m - 3) (2.0 at m = 5, 1.40 at m = 8, infinite for m <= 3), and Z² is larger
where s happens to be small, so the average and consistency stages flag a perfect ensemble.
The variance stages of an unweighted ensemble are therefore judged against the reference of
a *perfect* ensemble with the observed values (the simulated-reference idea of the simref
paper, P002 Sect. II.D, with the simulation done by exchangeability instead of a chosen D):

**Null.** Per row, y is exchangeable with the m members: given the multiset of the m + 1
values, each of them is the observation with probability 1/(m + 1). For value j taken as the
observation, Z_j = (v_j - x̄_(-j))/(s_(-j) √(1 + 1/m)) (mean and sd of the other m); the
observed Z is Z_(m+1). Every reference below is exact under this null, for any law of the
members (normal, Student t, skewed), any m >= 2 and any mix of m per row (NaN members
dropped), with no model of the true spread:

* r_i = (1/(m + 1)) Σ_j Z_j², the conditional mean of Z_i² under the null (the
  perfect-ensemble floor of row i; its mean over rows is about (m - 1)/(m - 3) for normal
  members); W_i = Z_i²/r_i has conditional mean 1 and lies in [0, m + 1];
* replicates: each row independently picks which of its m + 1 values is the observation.

**Average stage.** Test: the mean of W against 1, two-sided Monte Carlo p-value
p = min(1, 2 min(1 + #{A* >= A}, 1 + #{A* <= A})/(R + 1)) over R replicates (A = mean W - 1;
bounded W, so exact and not heavy-tailed even at m = 4 or 5). Factor (the advised one, net of
the finite-member floor): the estimate of the same test, the k at which

    A(k) = median of its replicates A*(k),

A(k) the test's statistic on y_k = x̄ + (y - x̄)/k (members unchanged) with the same
replicates for every k: the factor by which y's departure from the member mean is too large
for y to look like one more member (the Hodges-Lehmann estimate of the test: the k whose two
one-sided p-values balance), so it lies inside the interval below by construction. It
replaced the root of the estimating equation Σ_i [Z_i²/k² - r_i(k)] = 0, a ratio of means
of Z², which has an infinite fourth moment at m = 5 (Z ~ t(4)): there its sd over seeds was
twice the test's (0.052 against 0.026 on 2000 rows) and it fell outside its own interval in
15 % of the perfect ensembles (``benchmarks/ensemble_floor.md``); on the melting points of
``benchmarks/real_outputs_holdout3.md`` a perfect 5-member ensemble got 0.870 beside
[0.879, 0.994], and a factor; the test's own estimate there is 0.933. For normal members and
one m, k ≈ sqrt(ZMS/((m - 1)/(m - 3))): the issue's 8-member example, sqrt(ZMS) = 1.54
against the floor sqrt(1.40) = 1.18, gives k = 1.54/1.18 = 1.30.
Interval: the k not rejected by the average test run on y_k = x̄ + (y - x̄)/k (the same
replicates for every k), {k: (1 + #{A*(k) >= A(k)})/(R + 1) > 2.5 % and
(1 + #{A*(k) <= A(k)})/(R + 1) > 2.5 %}, its ends found by regula falsi on log k: exact under
the null that y_k is one more member, and coherent with the test by construction (1 is inside
exactly when the test at k = 1 does not reject at 5 %). It replaced a percentile interval of
one-step bootstrap replicates of the estimating equation, which came from another procedure
than the test: on 498 compounds in 70 scaffolds, one of 319 rows, the groups' bootstrap gave
[1.09, 1.82] while the exchangeability test gave p = 0.32, and the page said "compatible with
1" beside an interval without 1 (``benchmarks/real_outputs_holdout2.md``, critical_temp).

The intervals users build with it: mean ± q·k·s·√(1 + 1/m), with q the (1 + L)/2 quantile of
t(m - 1) (the exact predictive interval of a perfect normal ensemble) or of the normal law.

**Consistency stage (along the ensemble's own sd).** Binned like the other stages (the same
equal-count bins of s·√(1 + 1/m)); the per-bin reference ref_b is the mean over the
replicates of the mean Z² over the replicate's own bin b (bins of its own sd), and the
per-bin value the ratio <Z²>_b/ref_b, relative to the global factor; its interval inverts
the replicates' 2.5 and 97.5 % quantiles of <Z²*>_b/ref_b. Tests: the spread of W across
the bins, T = Σ_b n_b (<W>_b - <W>)², and of Z/√r (bias), T_Z, with their Monte Carlo
p-values against the same replicates (bins of each replicate's own sd), Holm-adjusted
together (the stage's family). The cumulative and
isotonic tests along the sd (whose permutation null assumes Z independent of the sd, false
for a finite ensemble) are not run for ensembles. Along the features, under the null the
z-scores do not depend on the feature, so the bias, cumulative and joint tests keep their
permutation tests; each feature's LZMS test becomes the spread of W over its bins against
the same replicates (W is bounded, the raw Z² t(m - 1)-tailed), the adaptivity stage is
Holm-adjusted again, and the as-given rows are paired with the reference average tests;
their per-bin tables (which decide the effect and the ranges advised) are
recomputed against the same reference, after the global factor: the bins are fixed, so
ref_b = mean of r over the bin, exact, and the interval inverts the replicates' quantiles
of <Z²*>_b/ref_b (the bootstrap intervals of a bin's mean Z² under-cover with the
t(m - 1)-tailed z of a finite ensemble: a 53-row bin of a perfect 8-member ensemble got a
factor 1.59 in ``benchmarks/real_outputs.md``).

**Rows in groups** (``groups=``: the atoms of one structure, the conformers of one
molecule). The null is then that the observations of a group, as one vector, are
exchangeable with each member's predictions for that group: a member that is a draw of the
model carries its own group-level departure, as the observation does. A replicate therefore
picks one value index per group, the same in each of its rows (the same member column when
m is constant in the group), instead of one per row; this is exact under that null whatever
the dependence inside a group, and the same as the per-row rule for groups of one row. When
consecutive groups are dependent too (:mod:`uqval.stats.serial_groups`), the unit is the
block of consecutive groups that every other stage resamples, as its page says.

Rows with m <= 3 are left out of the variance stages (E(Z²) is infinite for a perfect
ensemble of 3 or fewer normal members, so neither the raw ZMS nor its floor is a usable
average; the coverage and shape stages keep them), as are rows where some leave-one-out set
has zero spread (ties: Z_j infinite).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.formatting import fmt
from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike
from uqval.predictive import Ensemble
from uqval.validation import rules
from uqval.validation.advice import AdviceInputs
from uqval.validation.effects import is_spread_test
from uqval.validation.judgement import judge

__all__ = ["MIN_MEMBERS", "EnsembleReference", "ensemble_reference", "rejudge"]

MIN_MEMBERS = 4
"""Fewest members for a row's variance stages (E(Z²) infinite below for normal members)."""

_CUMULATIVE_OR_ISOTONIC = ("cumulative", "isotonic")

CONFIDENCE = 0.95
"""Confidence of the net factor's interval (the other stages' intervals are 95 % too)."""

_MAX_DOUBLINGS = 20  # factor 2^20 either way: beyond, the end is 0 or inf
_LOG_TOLERANCE = math.log(2.0) / 2**10  # an interval end to 0.07 %
_MAX_STEPS = 40


@dataclass(frozen=True)
class EnsembleReference:
    """The perfect-ensemble reference of the rows used (module docstring).

    Attributes:
        rows: boolean mask (over the predictive's rows) of the rows used.
        m: members per row used; z2: observed Z² = (y - x̄)²/variance; z: signed Z;
        loo_z2: (rows, max m + 1) Z_j² with value j as the observation (NaN padding), the
            observation last among each row's values; loo_sd: the matching sd·√(1 + 1/m);
        r: the per-row floor (conditional mean of Z²); values: the pooled values per row.
        scaled: (loo_z2, loo_z, loo_sd, values) with y replaced by x̄ + (y - x̄)/k: the
            rows after the global factor, on which the consistency stage is judged.
        factor, factor_low, factor_high: the net factor k with its interval.
        floor: mean Z²/k² (the floor at the estimated factor: the ZMS a perfect ensemble of
            these spreads would have).
        p_average: the Monte Carlo p-value of mean W = 1; n_replicates: R.
        left_out: reasons and counts of rows left out.
    """

    rows: NDArray[np.bool_]
    m: NDArray[np.intp]
    z2: NDArray[np.float64]
    z: NDArray[np.float64]
    loo_z2: NDArray[np.float64]
    loo_z: NDArray[np.float64]
    loo_sd: NDArray[np.float64]
    r: NDArray[np.float64]
    values: NDArray[np.float64]
    scaled: tuple[NDArray, NDArray, NDArray, NDArray]
    factor: float
    factor_low: float
    factor_high: float
    floor: float
    p_average: float
    mean_w: float
    n_replicates: int
    left_out: dict[str, int]
    groups: NDArray[np.intp] | None = None

    def replicate_picks(self, rng: np.random.Generator) -> NDArray[np.intp]:
        """For each row, which of its m + 1 values is the observation in one replicate
        (with ``groups``, one draw per group: :func:`_picks`)."""
        return _picks(rng, self.m, self.groups)


def _picks(rng: np.random.Generator, m: NDArray[np.intp],
           groups: NDArray[np.intp] | None) -> NDArray[np.intp]:
    """Which of its m + 1 values is the observation, per row: uniform and independent per
    row; with ``groups`` (codes 0..G-1), one uniform u_g per group and floor(u_g (m + 1)) in
    each of its rows, so that the observation is the same column (the same member's
    predictions) in every row of a group (module docstring, "Rows in groups")."""
    if groups is None:
        return np.floor(rng.random(m.size) * (m + 1)).astype(np.intp)
    draws = rng.random(int(groups.max()) + 1)
    return np.floor(draws[groups] * (m + 1)).astype(np.intp)


def _loo(values: NDArray[np.float64], m: int) -> tuple[NDArray, NDArray, NDArray]:
    """Z_j², Z_j and sd_(-j)·√(1 + 1/m) for each value j of rows of m + 1 values."""
    c = values.mean(axis=1, keepdims=True)
    scale = values.std(axis=1, keepdims=True)
    scale = np.where(scale > 0, scale, 1.0)
    v = (values - c) / scale  # Z is invariant to a shift and scale of the row
    s = v.sum(axis=1, keepdims=True)
    q = np.square(v).sum(axis=1, keepdims=True)
    mean = (s - v) / m
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.maximum((q - np.square(v) - m * np.square(mean)) / (m - 1), 0.0)
        sd = np.sqrt(var * (1.0 + 1.0 / m))
        z = (v - mean) / sd
    return np.square(z), z, sd * scale


def _pad(a: NDArray, width: int) -> NDArray:
    out = np.full((a.shape[0], width), np.nan)
    out[:, : a.shape[1]] = a
    return out


def _floors(x: NDArray[np.float64], y: NDArray[np.float64], m: NDArray[np.intp],
            k: float) -> NDArray[np.float64]:
    """r_i(k): the floor with y replaced by x̄ + (y - x̄)/k (x: members, NaN padded)."""
    out = np.empty(y.size)
    for mm in np.unique(m):
        sel = m == mm
        xs = x[sel][:, :mm]
        xb = xs.mean(axis=1)
        z2, _, _ = _loo(np.column_stack([xs, xb + (y[sel] - xb) / k]), int(mm))
        out[sel] = z2.mean(axis=1)
    return out


def _arrays(x: NDArray[np.float64], y: NDArray[np.float64], m: NDArray[np.intp],
            width: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Z_j², Z_j, sd_(-j)·√(1 + 1/m) and the values, each row's observation in column m."""
    n = y.size
    loo_z2, loo_z, loo_sd, values = (np.full((n, width), np.nan) for _ in range(4))
    for mm in np.unique(m):
        sel = np.flatnonzero(m == mm)
        v = np.column_stack([x[sel, :mm], y[sel]])
        z2, z, sd = _loo(v, int(mm))
        loo_z2[sel], loo_z[sel], loo_sd[sel], values[sel] = (
            _pad(a, width) for a in (z2, z, sd, v))
    return loo_z2, loo_z, loo_sd, values


def _sorted_members(members: NDArray[np.float64]) -> NDArray[np.float64]:
    """Finite members first in each row (order kept), NaN after."""
    order = np.argsort(~np.isfinite(members), axis=1, kind="stable")
    return np.take_along_axis(members, order, axis=1)


def ensemble_reference(y: NDArray[np.float64], pred: Ensemble, *, seed: SeedLike,
                       n_replicates: int,
                       groups: NDArray[np.intp] | None = None) -> EnsembleReference:
    """The reference of the usable rows of an unweighted ensemble (module docstring); with
    ``groups`` (a unit code per row of ``pred``: the groups, or the blocks of consecutive
    groups when those are dependent) the replicates pick one member per unit."""
    members = _sorted_members(pred.members)
    m_all = pred.n_members
    variance = pred.variance
    usable = np.isfinite(variance) & (variance > 0) & np.isfinite(y)
    left_out: dict[str, int] = {}
    few = usable & (m_all < MIN_MEMBERS)
    if few.any():
        left_out[f"fewer than {MIN_MEMBERS} members (E(Z^2) infinite for a perfect "
                  "ensemble)"] = int(few.sum())
    usable &= ~few
    width = int(m_all.max()) + 1
    idx = np.flatnonzero(usable)
    m = m_all[idx]
    loo_z2, loo_z, loo_sd, values = _arrays(members[idx], y[idx], m, width)
    ties = ~np.all(np.isfinite(loo_z2) | np.isnan(values), axis=1)
    if ties.any():
        left_out["a member left out leaves the others all equal (ties)"] = int(ties.sum())
        keep = ~ties
        usable[idx[ties]] = False
        idx, m = idx[keep], m[keep]
        loo_z2, loo_z, loo_sd, values = loo_z2[keep], loo_z[keep], loo_sd[keep], values[keep]
    n = idx.size
    codes = None
    if groups is not None:
        _, inverse = np.unique(np.asarray(groups)[idx], return_inverse=True)
        codes = inverse.astype(np.intp).ravel()
    if n < 2:  # nothing to judge (the engine needs 60 rows): no reference
        return EnsembleReference(
            rows=usable, m=m, z2=np.empty(0), z=np.empty(0), loo_z2=loo_z2, loo_z=loo_z,
            loo_sd=loo_sd, r=np.empty(0), values=values,
            scaled=(loo_z2, loo_z, loo_sd, values), factor=math.nan, factor_low=math.nan,
            factor_high=math.nan, floor=math.nan, p_average=math.nan, mean_w=math.nan,
            n_replicates=n_replicates, left_out=left_out)
    last = m  # the observation's column in each row
    rows_n = np.arange(n)
    z2 = loo_z2[rows_n, last]
    z = loo_z[rows_n, last]
    r = np.nanmean(loo_z2, axis=1)
    w = z2 / r
    _, rep_seed = seed_sequence(seed).spawn(2)  # the second child, as before the inversion
    x = members[idx]
    yy = y[idx]
    tails = _MeanWTails(x, yy, m, width, codes, rep_seed, n_replicates)
    hi, lo = tails.p_values(1.0)
    p_average = float(min(1.0, 2.0 * min(hi, lo)))
    factor = tails.estimate()
    f_low, f_high = tails.interval(factor, CONFIDENCE)
    floor = float(np.mean(z2)) / factor**2
    if math.isfinite(factor) and factor > 0:  # the scaled view: y_k = x̄ + (y - x̄)/k
        xb = np.nanmean(x, axis=1)
        deflated = _arrays(x, xb + (yy - xb) / factor, m, width)
    else:
        deflated = (loo_z2, loo_z, loo_sd, values)
    return EnsembleReference(
        rows=usable, m=m, z2=z2, z=z, loo_z2=loo_z2, loo_z=loo_z, loo_sd=loo_sd, r=r,
        values=values, scaled=deflated, factor=factor, factor_low=f_low, factor_high=f_high,
        floor=floor, p_average=p_average, mean_w=float(np.mean(w)), n_replicates=n_replicates,
        left_out=left_out, groups=codes)


class _MeanWTails:
    """The exchangeability test of mean W = 1 for the rows with y replaced by
    y_k = x̄ + (y - x̄)/k, with the same replicates (picks) for every k, and the interval of k
    that inverts it (module docstring, "Interval").

    ``p_values(k)``: the one-sided Monte Carlo p-values (1 + #{A* >= A})/(R + 1) and
    (1 + #{A* <= A})/(R + 1) of A = mean W(k) - 1 against its R replicates A*; at k = 1 they
    are the average test's, so the interval holds 1 exactly when that test (unadjusted) does
    not reject. A one-sided p-value exceeds h exactly when A lies on the near side of an
    order statistic of the A* (the c-th largest or smallest, c = floor(h (R + 1) - 1) + 1):
    a gap continuous in k, whose root the interval's ends are.
    """

    def __init__(self, x: NDArray[np.float64], y: NDArray[np.float64], m: NDArray[np.intp],
                 width: int, codes: NDArray[np.intp] | None, seed: np.random.SeedSequence,
                 n_replicates: int) -> None:
        self.x, self.y, self.m, self.width = x, y, m, width
        self.codes, self.seed, self.n_replicates = codes, seed, n_replicates
        self.mean = np.nanmean(x, axis=1)
        self._cache: dict[float, tuple[float, NDArray[np.float64]]] = {}

    def _sample(self, k: float) -> tuple[float, NDArray[np.float64]]:
        """A = mean W(k) and its replicates A*, sorted."""
        if k not in self._cache:
            y = self.y if k == 1.0 else self.mean + (self.y - self.mean) / k
            loo_z2 = _arrays(self.x, y, self.m, self.width)[0]
            w = loo_z2 / np.nanmean(loo_z2, axis=1, keepdims=True)
            rows_n = np.arange(self.m.size)
            rng = np.random.default_rng(self.seed)  # the same picks for every k
            a_star = np.array([np.mean(w[rows_n, _picks(rng, self.m, self.codes)])
                               for _ in range(self.n_replicates)])
            self._cache[k] = (float(np.mean(w[rows_n, self.m])), np.sort(a_star))
        return self._cache[k]

    def p_values(self, k: float) -> tuple[float, float]:
        a, a_star = self._sample(k)
        n_above = a_star.size - int(np.searchsorted(a_star, a, side="left"))
        n_below = int(np.searchsorted(a_star, a, side="right"))
        denominator = self.n_replicates + 1
        return (1 + n_above) / denominator, (1 + n_below) / denominator

    def estimate(self) -> float:
        """The k at which A(k) equals the median of its replicates A*(k) (the Hodges-Lehmann
        estimate of the test: the k whose two one-sided p-values balance), found from k = 1
        by doubling, then regula falsi on log k; inside the interval by construction. inf or
        0 when no such k lies within a factor 2^20 of 1."""
        middle = (self.n_replicates - 1) // 2  # the (lower) median order statistic

        def gap(k: float) -> float:  # A(k) - median A*(k): decreasing in k
            a, a_star = self._sample(k)
            return a - float(a_star[middle])

        if gap(1.0) > 0:  # y too far from the members at k = 1: the estimate lies above 1
            return self._end(1.0, lambda k: -gap(k), downward=False)
        return self._end(1.0, gap, downward=True)

    def interval(self, k_hat: float, confidence: float) -> tuple[float, float]:
        """{k: neither one-sided p-value <= (1 - confidence)/2}; each end found from k_hat by
        doubling, then by regula falsi (Illinois) on log k to 2^-10 ln 2 (0.07 %); 1 is
        inside exactly when the test at k = 1 does not reject."""
        if not (math.isfinite(k_hat) and k_hat > 0):
            return k_hat, k_hat
        half = 0.5 * (1.0 - confidence)
        c = math.floor(half * (self.n_replicates + 1) - 1.0) + 1
        if c <= 0:  # too few replicates to reject at this level: every k is accepted
            return 0.0, math.inf

        def low_gap(k: float) -> float:  # <= 0: (1 + #{A* >= A})/(R + 1) > half
            a, a_star = self._sample(k)
            return a - float(a_star[a_star.size - c])

        def high_gap(k: float) -> float:  # <= 0: (1 + #{A* <= A})/(R + 1) > half
            a, a_star = self._sample(k)
            return float(a_star[c - 1]) - a

        low = self._end(k_hat, low_gap, downward=True)
        high = self._end(k_hat, high_gap, downward=False)
        hi1, lo1 = self.p_values(1.0)  # coherent with the test at k = 1 whatever the search
        if hi1 > half and lo1 > half:
            low, high = min(low, 1.0), max(high, 1.0)
        elif hi1 <= half:
            low = max(low, 1.0)
        else:
            high = min(high, 1.0)
        return low, high

    @staticmethod
    def _end(start: float, gap: Callable[[float], float], *, downward: bool) -> float:
        """The end of the accepted set {gap <= 0} on one side of ``start`` (gap increasing
        outwards): a bracket by doubling, then Illinois steps on log k."""
        step = -math.log(2.0) if downward else math.log(2.0)
        inside, outside = math.log(start), math.log(start) + step
        g_in, g_out = gap(math.exp(inside)), gap(math.exp(outside))
        if g_in > 0:  # k_hat itself rejected: walk inwards first
            for _ in range(_MAX_DOUBLINGS):
                outside, g_out = inside, g_in
                inside -= step
                g_in = gap(math.exp(inside))
                if g_in <= 0:
                    break
            else:
                return math.exp(inside)
        else:
            for _ in range(_MAX_DOUBLINGS):
                if g_out > 0:
                    break
                inside, g_in = outside, g_out
                outside += step
                g_out = gap(math.exp(outside))
            else:
                return 0.0 if downward else math.inf
        kept = 0  # +1: the inside end moved last, -1: the outside end
        for _ in range(_MAX_STEPS):
            if abs(outside - inside) <= _LOG_TOLERANCE:
                break
            x = inside - g_in * (outside - inside) / (g_out - g_in)
            if not min(inside, outside) < x < max(inside, outside):
                x = 0.5 * (inside + outside)
            g = gap(math.exp(x))
            if g <= 0:
                inside, g_in = x, g
                if kept == 1:
                    g_out *= 0.5  # Illinois: the outside end kept twice
                kept = 1
            else:
                outside, g_out = x, g
                if kept == -1:
                    g_in *= 0.5
                kept = -1
        return math.exp(0.5 * (inside + outside))


def _consistency(ref: EnsembleReference, e: NDArray[np.float64], u: NDArray[np.float64],
                 table: pd.DataFrame, seed: SeedLike) -> tuple[pd.DataFrame, float, float,
                                                              float, float]:
    """Per-bin table along the ensemble's own sd and the Monte Carlo p-values of the
    spread of W and of Z/√r across the bins (module docstring)."""
    counts = table["n"].to_numpy(dtype=np.intp)
    k_bins = counts.size
    n = ref.z2.size
    sorted_labels = np.repeat(np.arange(k_bins), counts)
    order = np.argsort(u, kind="stable")
    labels = np.empty(n, dtype=np.intp)
    labels[order] = sorted_labels  # the engine's equal-count bins of u (ties aside)
    rows_n = np.arange(n)
    loo_z2, loo_z, loo_sd, _ = ref.scaled
    last = ref.m
    r = np.nanmean(loo_z2, axis=1)
    sqrt_r = np.sqrt(r)

    def stats_of(lab: NDArray[np.intp], z2: NDArray, z: NDArray) -> tuple[NDArray, float, float]:
        w = z2 / r
        zw = z / sqrt_r
        wb = np.bincount(lab, weights=w, minlength=k_bins) / counts
        zb = np.bincount(lab, weights=zw, minlength=k_bins) / counts
        z2b = np.bincount(lab, weights=z2, minlength=k_bins) / counts
        t_w = float(np.sum(counts * np.square(wb - w.mean())))
        t_z = float(np.sum(counts * np.square(zb - zw.mean())))
        return z2b, t_w, t_z

    z2b, t_w, t_z = stats_of(labels, loo_z2[rows_n, last], loo_z[rows_n, last])
    rng = np.random.default_rng(seed_sequence(seed))
    reps_z2b = np.empty((ref.n_replicates, k_bins))
    t_ws, t_zs = np.empty(ref.n_replicates), np.empty(ref.n_replicates)
    for j in range(ref.n_replicates):
        pick = ref.replicate_picks(rng)
        sd = loo_sd[rows_n, pick]
        lab = np.empty(n, dtype=np.intp)
        lab[np.argsort(sd, kind="stable")] = sorted_labels
        reps_z2b[j], t_ws[j], t_zs[j] = stats_of(lab, loo_z2[rows_n, pick], loo_z[rows_n, pick])
    p_w = (1 + np.count_nonzero(t_ws >= t_w)) / (ref.n_replicates + 1)
    p_z = (1 + np.count_nonzero(t_zs >= t_z)) / (ref.n_replicates + 1)
    ref_b = reps_z2b.mean(axis=0)
    null = reps_z2b / ref_b
    q_lo, q_hi = np.quantile(null, [0.025, 0.975], axis=0)
    value = z2b / ref_b  # after the global factor (deflated y): relative to it
    low, high = value / q_hi, value / np.maximum(q_lo, 1e-300)
    out = table.copy()
    out["value"], out["ci_low"], out["ci_high"] = value, low, high
    out["valid"] = (low <= 1.0) & (1.0 <= high)
    out["factor"], out["factor_low"], out["factor_high"] = (np.sqrt(value), np.sqrt(low),
                                                           np.sqrt(high))
    out["reference"] = ref_b
    return (out, float(p_w), float(p_z), float(t_w / np.mean(t_ws)),
            float(t_z / np.mean(t_zs)))


def _feature_tables(ref: EnsembleReference, features: dict[str, NDArray[np.float64]],
                    bins: dict[str, pd.DataFrame],
                    seed: SeedLike) -> tuple[dict[str, pd.DataFrame], dict[str, float]]:
    """Per-bin tables along the features against the exchangeability reference (module
    docstring): the bins are fixed, so ref_b = mean of r over the bin (exact) and the
    interval inverts the replicates' 2.5/97.5 % quantiles of <Z²*>_b/ref_b; on the rows
    after the global factor (y deflated by k)."""
    names = [name for name in features if name in bins]
    if not names:
        return {}, {}
    loo_z2 = ref.scaled[0]
    n = ref.m.size
    rows_n = np.arange(n)
    r = np.nanmean(loo_z2, axis=1)
    z2 = loo_z2[rows_n, ref.m]
    labels, counts, ref_b, value = {}, {}, {}, {}
    for name in names:
        high = bins[name]["high"].to_numpy(dtype=float)
        lab = np.minimum(np.searchsorted(high, features[name]), high.size - 1)
        c = np.bincount(lab, minlength=high.size).astype(float)
        c = np.where(c > 0, c, np.nan)
        labels[name], counts[name] = lab, c
        ref_b[name] = np.bincount(lab, weights=r, minlength=high.size) / c
        value[name] = np.bincount(lab, weights=z2, minlength=high.size) / c / ref_b[name]
    def spread(lab: NDArray[np.intp], w: NDArray[np.float64], c: NDArray) -> float:
        wb = np.bincount(lab, weights=w, minlength=c.size) / c
        return float(np.nansum(c * np.square(wb - w.mean())))

    w_obs = z2 / r
    t_obs = {name: spread(labels[name], w_obs, counts[name]) for name in names}
    exceed = dict.fromkeys(names, 0)
    rng = np.random.default_rng(seed_sequence(seed))
    reps = {name: np.empty((ref.n_replicates, bins[name].shape[0])) for name in names}
    for j in range(ref.n_replicates):
        pick = ref.replicate_picks(rng)
        z2_star = loo_z2[rows_n, pick]
        w_star = z2_star / r
        for name in names:
            k_bins = bins[name].shape[0]
            reps[name][j] = (np.bincount(labels[name], weights=z2_star, minlength=k_bins)
                             / counts[name] / ref_b[name])
            exceed[name] += spread(labels[name], w_star, counts[name]) >= t_obs[name]
    p_values = {name: (1 + exceed[name]) / (ref.n_replicates + 1) for name in names}
    out = {}
    for name in names:
        q_lo, q_hi = np.nanquantile(reps[name], [0.025, 0.975], axis=0)
        v = value[name]
        low, high = v / q_hi, v / np.maximum(q_lo, 1e-300)
        t = bins[name].copy()
        t["value"], t["ci_low"], t["ci_high"] = v, low, high
        t["valid"] = (low <= 1.0) & (1.0 <= high)
        t["factor"], t["factor_low"], t["factor_high"] = np.sqrt(v), np.sqrt(low), np.sqrt(high)
        t["reference"] = ref_b[name]
        out[name] = t
    return out, p_values


def rejudge(result: Any, ref: EnsembleReference, *, seed: SeedLike, alpha: float) -> Any:
    """The variance stages' result re-judged against the perfect-ensemble reference: the
    average ZMS row and the scale factor (net factor, Monte Carlo p), the consistency rows
    and table along the sd (module docstring); labels and advice redone by
    :func:`uqval.validation.judgement.judge`."""
    v = result.verdicts.copy()
    v = v[~((v["stage"] == "consistency")
            & v["statistic"].astype(str).str.startswith(_CUMULATIVE_OR_ISOTONIC))]
    k, k_low, k_high = ref.factor, ref.factor_low, ref.factor_high
    zms_at = (v["stage"] == "average") & (v["statistic"] == "ZMS")
    z_at = (v["stage"] == "average") & (v["statistic"] == "<Z>")
    g = math.sqrt(ref.floor)
    # <Z> with the floor-net uncertainties sd·g: the same test (scale-free), values / g
    for col in ("value", "ci_low", "ci_high"):
        v.loc[z_at, col] = v.loc[z_at, col].to_numpy() / g
    p_z = float(v.loc[z_at, "p_value"].iloc[0])
    adjusted = rules.holm([ref.p_average, p_z])
    v.loc[zms_at, ["value", "ci_low", "ci_high", "p_value", "p_adjusted"]] = [
        k**2, k_low**2, k_high**2, ref.p_average, adjusted[0]]
    v.loc[zms_at, "verdict"] = rules.verdict(float(adjusted[0]), alpha, False)
    v.loc[zms_at, "note"] = (
        f"ensemble of {_members(ref.m)} members: value = k^2, k the factor net of the "
        f"perfect-ensemble floor (mean Z^2 of a perfect ensemble with these values: "
        f"{fmt(ref.floor)}; normal members: (m - 1)/(m - 3)); p: mean Z^2/r = "
        f"{fmt(ref.mean_w)} against 1, {ref.n_replicates} exchangeability replicates; "
        "interval: the k this test does not reject on mean + (y - mean)/k")
    v.loc[z_at, "p_adjusted"] = adjusted[1]
    v.loc[z_at, "verdict"] = rules.verdict(float(adjusted[1]), alpha, False)
    name = str(result.names.get("uncertainty", "sd"))
    bins = dict(result.bins)
    e, u = result.errors, result.uncertainties
    if name in bins:
        table, p_w, p_z_bins, ratio_w, ratio_z = _consistency(ref, e, u, bins[name], seed)
        bins[name] = table
        p_avg = (ref.p_average, p_z)
        cons = (v["stage"] == "consistency") & (v["feature"] == name)
        # the stage's two tests, Holm-adjusted together as the engine's stage family
        adj_w, adj_z = rules.holm([p_w, p_z_bins])
        for stat, p, ratio, pa in (("LZMS", float(adj_w), ratio_w, p_avg[0]),
                                   ("LZM ", float(adj_z), ratio_z, p_avg[1])):
            at = cons & v["statistic"].astype(str).str.startswith(stat)
            note = (f"ensemble: spread of {'Z^2/r' if stat == 'LZMS' else 'Z/sqrt(r)'} over "
                    f"the bins of the sd against {ref.n_replicates} exchangeability replicates "
                    "(each replicate binned by its own sd)")
            raw = p_w if stat == "LZMS" else p_z_bins
            v.loc[at & v["scaled"], ["value", "p_value", "p_adjusted"]] = [ratio, raw, p]
            v.loc[at & v["scaled"], "verdict"] = rules.verdict(p, alpha, False)
            given = rules.bonferroni_pair(pa, p)
            v.loc[at & ~v["scaled"], ["value", "p_value", "p_adjusted"]] = [ratio, given, given]
            v.loc[at & ~v["scaled"], "verdict"] = rules.verdict(given, alpha, False)
            v.loc[at, "note"] = note
    feature_seed = seed_sequence(seed).spawn(1)[0]
    tables, p_features = _feature_tables(ref, dict(result.features), bins, feature_seed)
    bins.update(tables)
    v = _readjust(v, p_features, (ref.p_average, p_z), alpha, ref.n_replicates)
    scale = dataclasses.replace(result.scale_factor, value=k, ci_low=k_low, ci_high=k_high)
    robust = result.robust_scale
    if robust is not None:
        robust = dataclasses.replace(robust, value=robust.value / g, ci_low=robust.ci_low / g,
                                     ci_high=robust.ci_high / g)
    inputs = AdviceInputs(
        verdicts=v.reset_index(drop=True), bins=bins, scale=(k, k_low, k_high),
        reference=k,
        robust=robust, tails=result.tail_shares, dominant=result.dominant_rows,
        errors=e / g, uncertainties=u, features=result.features, uncertainty_name=name,
        tolerance=float(result.parameters.get("tolerance", rules.DEFAULT_TOLERANCE)),
        zms_reliable=result.screening.zms_reliable, joint=result.joint,
        mean_square="k^2", direct_spread=False)
    parameters = dict(result.parameters)
    parameters["ensemble_reference"] = {
        "floor": ref.floor, "replicates": ref.n_replicates, "members": _members(ref.m),
        "left_out": dict(ref.left_out)}
    m = int(ref.z2.size)
    judged = judge(inputs.verdicts, bins, inputs, parameters, result.names,
                   reference=inputs.reference, m=m)
    advice = judged.advice.copy()
    at = advice["action"] == "scale"
    advice.loc[at, "reason"] = advice.loc[at, "reason"].astype(str) + (
        " — net of the finite-member floor (a perfect ensemble of these members has mean "
        f"Z^2 = {fmt(ref.floor)}): multiply the ensemble's sd, i.e. build the intervals as "
        "mean ± q·k·sd·√(1+1/m), q the t(m − 1) quantile, k the factor")
    parameters["conditional_scaling"] = k
    warnings = [w for w in result.warnings if "same units" not in w]
    warnings += [w for w in rules.input_warnings(e, k) if "same units" in w]
    return dataclasses.replace(
        result, verdicts=judged.verdicts, bins=bins, scale_factor=scale, robust_scale=robust,
        advice=advice, stages=judged.stages, parameters=parameters,
        warnings=tuple(dict.fromkeys(warnings)))


def _readjust(v: pd.DataFrame, p_features: dict[str, float], p_avg: tuple[float, float],
              alpha: float, n_replicates: int) -> pd.DataFrame:
    """The adaptivity stage with each feature's LZMS test replaced by the exchangeability
    test of the spread of W = Z²/r over its bins (bounded W: the raw Z² of a finite ensemble
    is t(m - 1)-tailed), Holm-adjusted again over the stage's scaled rows; the as-given
    twins (and the joint stage's) re-paired with the average tests against the
    perfect-ensemble reference (rules: min(1, 2 min(p_average, p_adjusted)))."""
    v = v.copy()
    stat = v["statistic"].astype(str)
    adaptivity = (v["stage"] == "adaptivity") & v["scaled"]
    for name, p in p_features.items():
        at = adaptivity & (v["feature"] == name) & stat.str.startswith("LZMS")
        v.loc[at, "p_value"] = p
        v.loc[at, "note"] = (f"ensemble: spread of Z^2/r over the bins of {name} against "
                             f"{n_replicates} exchangeability replicates")
    rows = v.index[adaptivity & v["p_value"].notna()]
    if len(rows):
        adjusted = rules.holm(v.loc[rows, "p_value"].to_numpy(dtype=float))
        v.loc[rows, "p_adjusted"] = adjusted
        v.loc[rows, "verdict"] = [rules.verdict(float(p), alpha, str(old) == "inconclusive")
                                  for p, old in zip(adjusted, v.loc[rows, "verdict"],
                                                    strict=True)]
    for stage in ("adaptivity", "joint"):
        scaled = v[(v["stage"] == stage) & v["scaled"]]
        for i, r in scaled.iterrows():
            twin = v.index[(v["stage"] == stage) & ~v["scaled"] & (v["feature"] == r["feature"])
                           & (v["statistic"] == r["statistic"])]
            spread_test = is_spread_test(str(r["statistic"])) or str(r["statistic"]).endswith(
                "Z²")
            given = rules.bonferroni_pair(p_avg[0] if spread_test else p_avg[1],
                                          float(r["p_adjusted"]))
            v.loc[twin, ["p_value", "p_adjusted"]] = given
            v.loc[twin, "verdict"] = rules.verdict(given, alpha, False)
            if str(r["statistic"]).startswith("LZMS"):
                v.loc[twin, "note"] = v.loc[i, "note"]
    return v


def _members(m: NDArray[np.intp]) -> str:
    lo, hi = int(m.min()), int(m.max())
    return f"{lo}" if lo == hi else f"{lo} to {hi}"
