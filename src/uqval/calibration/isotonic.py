"""Isotonic reliability of the variance: the PAV fit of E² on uE², its bands and its CORP score.

Calibration means E[E² | uE²] = uE² (E = uE·D, D of unit variance). The conditional mean of
E² is estimated without bins by isotonic regression (pool-adjacent-violators, PAV) of E² on
uE², which assumes only that a larger uncertainty does not announce a smaller mean squared
error. This is the CORP approach (consistent, optimally binned, reproducible, PAV-based) of
Dimitriadis, Gneiting & Jordan (2021, PNAS 118, e2016191118) for probabilities, extended to
means and other functionals by Gneiting & Resin (2023, Electron. J. Stat. 17, 3226). For
calibrated uncertainties the fit follows the diagonal y = x.

**Fit.** The rows are sorted once by uE² (O(M log M)); rows with the same uE² are pooled into
one point x_g carrying the mean E² of its n_g rows with weight n_g (so ``x`` holds one entry
per *distinct* uE², ``counts`` the n_g), and the weighted PAV of the pooled means
(:func:`scipy.optimize.isotonic_regression`, O(K) for K distinct values) gives ``fitted``.
This is what scikit-learn's ``IsotonicRegression`` computes, except that scikit-learn also
pools x values less than 1e-15 apart (an absolute distance, which merges every uE² below
1e-15); here ties are exact equality.

**Consistency band** (``band_low``, ``band_high``). ``n_sim`` sets are simulated as calibrated
with the user's own uncertainties, E*_i = uE_i D_i (D normal or unit-variance Student t,
:func:`uqval.stats.synthetic.predictive`), drawn through :mod:`uqval._internal.streams` in the
order of increasing uE² (the sort is done once; uE is the same in every set), and fitted the
same way. The band holds the pointwise (1 - confidence)/2 and (1 + confidence)/2 quantiles of
the simulated fits: where a fit of calibrated uncertainties lies, including the flattening of
PAV at the ends of the x range.

**Confidence band** (``ci_low``, ``ci_high``). ``n_boot`` bootstrap resamples of the rows
(resampling indices from the random-stream engine), each refitted and evaluated at every x by
linear interpolation between its fitted points and held constant beyond its ends
(scikit-learn's ``predict`` with ``out_of_bounds="clip"``); pointwise percentile intervals.

Both bands are computed at up to :data:`MAX_BAND_POINTS` x values at evenly spaced ranks (both
ends included; every x when K is smaller) and interpolated linearly over the rank in between,
so their memory is O((n_sim + n_boot) · 1000) whatever M.

**CORP decomposition** (``decomposition``, :class:`CorpDecomposition`). The score is QLIKE,
the Gaussian negative log-likelihood at a fixed zero mean (times 2, without ln 2π):

    S(σ², E) = E²/σ² + ln σ².

With f the PAV fit and <·> the mean over the M rows::

    S     = <S(uE², E)>                    the uncertainties as variance forecasts,
    S_rc  = <S(f(uE²), E)>                 the recalibrated forecasts,
    S_mg  = <S(<E²>, E)> = 1 + ln <E²>     the constant (marginal) forecast,
    MCB = S − S_rc,  DSC = S_mg − S_rc,  UNC = S_mg,  so  S = MCB − DSC + UNC.

MCB ≥ 0 and DSC ≥ 0: the identity and the constants are increasing maps of uE², and the PAV
fit is the best increasing recalibration for every Bregman score of the mean at once, QLIKE
included (Barlow, Bartholomew, Bremner & Brunk 1972, Thm 1.10; Jordan, Mühlemann & Ziegel
2022). The p-value of MCB is (1 + #{MCB* ≥ MCB})/(n_sim + 1) over the simulated calibrated
sets: a Monte Carlo test (Barnard 1963) of exact size when D is the errors' distribution.

Why QLIKE rather than the squared error (E² − σ²)² (both are consistent for the mean of E²,
Patton 2011, and give the same PAV fit; only the weight of the rows in MCB and DSC differs):

* QLIKE depends on a row only through E²/σ² and the ratio of the two forecasts, up to a
  constant: uncertainties 1.5x too small cost the same MCB whether uE is 0.01 or 100. The
  squared error weights a row by Var(E²) ∝ uE⁴, so with the skewed uE of real data its MCB,
  and its null distribution, are decided by the few largest uncertainties.
* QLIKE is the NLL that uqval already reports (:func:`uqval.scores.nll`): MCB/2 is the part of
  the NLL per point (in nats) that an increasing recalibration of uE² would remove, DSC/2 the
  part that the ranking of the uncertainties earns over a constant variance.

QLIKE needs positive variances: a PAV block made only of rows with E = 0 has variance 0; in
the score (only there; ``fitted`` keeps the PAV values) such a block takes the smallest
positive fitted value. Errors all equal to 0 are refused.

Measured cost (one core; default ``n_boot = 200``, lognormal uE): M = 10⁴ in 0.16 s with
n_sim = 200 and 0.25 s with the default n_sim = 500; M = 10⁵ in 1.5 s with n_sim = 200 and
2.3 s with n_sim = 500 (about 60 % in the bootstrap).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import isotonic_regression

from uqval._internal.checks import (
    MAX_RESAMPLES,
    errors_uncertainties,
    integer,
    probability,
)
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import stream_blocks
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.pav_kernel import (
    chunk_recalibrated_qlike,
    chunk_recalibrated_qlike_within,
    recalibrated_qlike,
)
from uqval.stats.groups import GroupIndex
from uqval.stats.shuffle import _n_buckets, run_chunks
from uqval.stats.synthetic import DistributionName, predictive

__all__ = [
    "MAX_BAND_POINTS",
    "CorpDecomposition",
    "IsotonicReliability",
    "MCBTest",
    "isotonic_reliability",
    "mcb_permutation_test",
    "pav_fit",
    "qlike_decomposition",
]

MAX_BAND_POINTS = 1000
"""Most x values at which the simulated and bootstrap fits are kept (evenly spaced ranks)."""


@dataclass(frozen=True)
class CorpDecomposition:
    """CORP decomposition of the mean QLIKE score of the uncertainties (module docstring).

    Attributes:
        score: S, mean QLIKE of the forecasts uE².
        miscalibration: MCB = S − S_rc (>= 0; 0 when the PAV fit is the identity).
        discrimination: DSC = S_mg − S_rc (>= 0; 0 when the fit is constant).
        uncertainty: UNC = S_mg = 1 + ln <E²>.
        p_value: Monte Carlo p-value of MCB against calibrated sets (NaN when not simulated).
    """

    score: float
    miscalibration: float
    discrimination: float
    uncertainty: float
    p_value: float = float("nan")

    def __repr__(self) -> str:
        return (f"CorpDecomposition(QLIKE {self.score:.4g} = MCB {self.miscalibration:.4g} "
                f"- DSC {self.discrimination:.4g} + UNC {self.uncertainty:.4g}, "
                f"MCB p-value {self.p_value:.3g})")


@dataclass(frozen=True)
class IsotonicReliability:
    """PAV fit of E² on uE² with its consistency and confidence bands and CORP decomposition.

    Attributes:
        x: the K distinct uE², increasing (ties pooled).
        counts: rows per distinct uE².
        fitted: the PAV fit of E² at x (non-decreasing).
        band_low, band_high: consistency band, pointwise quantiles of the fits of sets
            simulated as calibrated with the same uE.
        ci_low, ci_high: pointwise bootstrap percentile interval of the fit.
        decomposition: QLIKE CORP decomposition with the p-value of MCB.
        n_sim, n_boot, confidence, distribution: the settings used.
    """

    x: FloatArray
    counts: NDArray[np.int64]
    fitted: FloatArray
    band_low: FloatArray
    band_high: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    decomposition: CorpDecomposition
    n_sim: int
    n_boot: int
    confidence: float
    distribution: str = "normal"

    @property
    def share_inside(self) -> float:
        """Share of the rows whose fitted value lies inside the consistency band."""
        inside = (self.fitted >= self.band_low) & (self.fitted <= self.band_high)
        return float(self.counts[inside].sum() / self.counts.sum())

    def __repr__(self) -> str:
        d = self.decomposition
        return (f"IsotonicReliability(M={int(self.counts.sum())}, {self.x.size} distinct uE², "
                f"fit inside the {self.confidence:.0%} consistency band for "
                f"{100 * self.share_inside:.1f} % of the rows; MCB {d.miscalibration:.4g} "
                f"(p = {d.p_value:.3g}), DSC {d.discrimination:.4g}, UNC {d.uncertainty:.4g}; "
                f"{self.n_sim} simulated sets ({self.distribution}), "
                f"{self.n_boot} bootstrap resamples)")


# --- the fit --------------------------------------------------------------------------------


def _groups(values_sorted: FloatArray) -> NDArray[np.intp]:
    """Start positions of the runs of equal values in a sorted array."""
    return np.flatnonzero(np.r_[True, values_sorted[1:] != values_sorted[:-1]])


def _pav(sums: FloatArray, weights: FloatArray) -> FloatArray:
    """Weighted PAV of the pooled means sums/weights (all weights > 0)."""
    return np.asarray(isotonic_regression(sums / weights, weights=weights).x, dtype=np.float64)


def pav_fit(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Increasing PAV fit of y on x with ties in x pooled: (distinct x, fit there).

    Equal to scikit-learn's ``IsotonicRegression().fit(x, y)`` at its thresholds for x values
    more than 1e-15 apart (module docstring).

    >>> pav_fit([3.0, 1.0, 2.0, 2.0], [1.0, 2.0, 0.0, 4.0])
    (array([1., 2., 3.]), array([1.75, 1.75, 1.75]))
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    starts = _groups(xs)
    counts = np.diff(np.r_[starts, xs.size]).astype(np.float64)
    return xs[starts], _pav(np.add.reduceat(ys, starts), counts)


def _qlike_recalibrated(sums: FloatArray, counts: FloatArray, fitted: FloatArray) -> float:
    """Sum over rows of E²/f + ln f for pooled sums of E² and the fit f (zero blocks raised).

    Summed by NumPy (pairwise), not by a BLAS dot product, whose rounding depends on the
    machine's threads and whose threads spin on a busy machine."""
    positive = fitted > 0.0
    if not positive.all():
        fitted = np.where(positive, fitted, fitted[positive].min())
    return float(np.sum(sums / fitted) + np.sum(counts * np.log(fitted)))


def qlike_decomposition(errors: ArrayLike, uncertainties: ArrayLike) -> CorpDecomposition:
    """CORP decomposition of the mean QLIKE of uE² as forecasts of E² (no p-value).

    >>> d = qlike_decomposition([1.0, -2.0, 0.5, 3.0], [1.0, 1.0, 2.0, 2.0])
    >>> d
    CorpDecomposition(QLIKE 2.521 = MCB 0.2974 - DSC 0.04658 + UNC 2.27, MCB p-value nan)
    >>> abs(d.miscalibration - d.discrimination + d.uncertainty - d.score) < 1e-12
    True
    """
    e, u = errors_uncertainties(errors, uncertainties)
    v, y = _sorted_squares(e, u)
    starts = _groups(v)
    counts = np.diff(np.r_[starts, v.size]).astype(np.float64)
    sums = np.add.reduceat(y, starts)
    return _decomposition(v, y, sums, counts, _pav(sums, counts))


def _sorted_squares(e: FloatArray, u: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(uE², E²) sorted by uE² (stable); refuses errors that are all 0."""
    if not (e != 0.0).any():
        raise ValueError("errors are all 0; the QLIKE score needs some non-zero errors")
    order = np.argsort(u, kind="stable")
    return np.square(u[order]), np.square(e[order])


def _decomposition(v: FloatArray, y: FloatArray, sums: FloatArray, counts: FloatArray,
                   fitted: FloatArray, p_value: float = float("nan")) -> CorpDecomposition:
    m = v.size
    score = float(np.mean(y / v + np.log(v)))
    recalibrated = _qlike_recalibrated(sums, counts, fitted) / m
    marginal = 1.0 + float(np.log(np.mean(y)))
    return CorpDecomposition(
        score=score,
        miscalibration=score - recalibrated,
        discrimination=marginal - recalibrated,
        uncertainty=marginal,
        p_value=p_value,
    )


# --- bands ----------------------------------------------------------------------------------


def _band_positions(k: int) -> NDArray[np.intp]:
    """Up to MAX_BAND_POINTS distinct positions evenly spaced over 0..k-1, ends included."""
    if k <= MAX_BAND_POINTS:
        return np.arange(k, dtype=np.intp)
    return np.unique(np.rint(np.linspace(0, k - 1, MAX_BAND_POINTS)).astype(np.intp))


def _simulate(v: FloatArray, starts: NDArray[np.intp], counts: FloatArray,
              positions: NDArray[np.intp], distribution: DistributionName, nu: float | None,
              n_sim: int, seed: np.random.SeedSequence) -> tuple[FloatArray, FloatArray]:
    """Fits at ``positions`` (n_sim, P) and MCB (n_sim,) of sets simulated as calibrated."""
    m = v.size
    shape = predictive(distribution, nu)
    mean_log_v = float(np.mean(np.log(v)))
    fits = np.empty((n_sim, positions.size))
    mcb = np.empty(n_sim)
    for block in stream_blocks(seed, n_sim, m):
        d2 = np.square(shape.draw(block.values(), (block.size, m)))
        sums = np.add.reduceat(v * d2, starts, axis=1)
        scores = d2.mean(axis=1) + mean_log_v
        for r in range(block.size):
            fit = _pav(sums[r], counts)
            fits[block.start + r] = fit[positions]
            mcb[block.start + r] = scores[r] - _qlike_recalibrated(sums[r], counts, fit) / m
    return fits, mcb


def _bootstrap(x: FloatArray, y: FloatArray, starts: NDArray[np.intp], positions: NDArray[np.intp],
               n_boot: int, seed: np.random.SeedSequence) -> FloatArray:
    """Fits of bootstrap resamples of the rows, evaluated at x[positions]: (n_boot, P)."""
    m = y.size
    at = x[positions]
    fits = np.empty((n_boot, positions.size))
    for block in stream_blocks(seed, n_boot, m):
        idx = block.indices(m) + (np.arange(block.size) * m)[:, None]
        draws = np.bincount(idx.ravel(), minlength=block.size * m).reshape(block.size, m)
        weights = np.add.reduceat(draws, starts, axis=1).astype(np.float64)
        sums = np.add.reduceat(draws * y, starts, axis=1)
        for r in range(block.size):
            kept = weights[r] > 0.0
            fit = _pav(sums[r, kept], weights[r, kept])
            fits[block.start + r] = np.interp(at, x[kept], fit)
    return fits


def _spread(fits: FloatArray, positions: NDArray[np.intp], k: int,
            confidence: float) -> tuple[FloatArray, FloatArray]:
    """Pointwise quantiles of the fits, interpolated over the rank to all k positions."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(fits, [tail, 1.0 - tail], axis=0)
    if positions.size == k:
        return low, high
    ranks = np.arange(k)
    return np.interp(ranks, positions, low), np.interp(ranks, positions, high)


def isotonic_reliability(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    n_sim: int = 500,
    n_boot: int = 200,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> IsotonicReliability:
    """PAV fit of E² on uE², consistency and confidence bands, QLIKE CORP decomposition.

    See the module docstring for the definitions, the choice of QLIKE and the cost.

    Args:
        errors, uncertainties: E and uE (uE > 0), at least 2 rows.
        n_sim: sets simulated as calibrated (consistency band, p-value of MCB; smallest
            p-value 1/(n_sim + 1)).
        n_boot: bootstrap resamples of the rows (confidence band of the fit).
        distribution, nu: shape D of the simulated errors E* = uE·D: ``"normal"``, or
            ``"t"`` with nu > 2 (unit-variance Student t).
        confidence: level of both pointwise bands.
        seed: seed of the simulations and the bootstrap (each its own child stream).

    >>> rng = np.random.default_rng(1)
    >>> u = rng.uniform(0.5, 2.0, 2000)
    >>> e = u * rng.standard_normal(u.size)
    >>> isotonic_reliability(e, u, n_sim=100, n_boot=100).decomposition
    CorpDecomposition(QLIKE 1.298 = MCB 0.01705 - DSC 0.243 + UNC 1.524, MCB p-value 0.921)
    >>> e[u > 1.25] *= 1.5  # uncertainties 1.5x too small in the upper half
    >>> res = isotonic_reliability(e, u, n_sim=100, n_boot=100)
    >>> res.decomposition.p_value  # no simulated set reaches the observed MCB: 1/101
    0.009900990099009901
    >>> round(res.share_inside, 2)  # share of the rows where the fit is inside the band
    0.49
    """
    e, u = errors_uncertainties(errors, uncertainties, min_size=2)
    n_sim = integer(n_sim, "n_sim", minimum=1, maximum=MAX_RESAMPLES)
    n_boot = integer(n_boot, "n_boot", minimum=1, maximum=MAX_RESAMPLES)
    confidence = probability(confidence)
    predictive(distribution, nu)  # checks distribution and nu before any work
    v, y = _sorted_squares(e, u)
    starts = _groups(v)
    counts = np.diff(np.r_[starts, v.size])
    weights = counts.astype(np.float64)
    x = v[starts]
    sums = np.add.reduceat(y, starts)
    fitted = _pav(sums, weights)
    positions = _band_positions(x.size)
    sim_seed, boot_seed = seed_sequence(seed).spawn(2)
    sim_fits, sim_mcb = _simulate(v, starts, weights, positions, distribution, nu, n_sim,
                                  sim_seed)
    boot_fits = _bootstrap(x, y, starts, positions, n_boot, boot_seed)
    band_low, band_high = _spread(sim_fits, positions, x.size, confidence)
    ci_low, ci_high = _spread(boot_fits, positions, x.size, confidence)
    observed = _decomposition(v, y, sums, weights, fitted)
    exceed = int(np.count_nonzero(sim_mcb >= observed.miscalibration))
    p_value = (1 + exceed) / (n_sim + 1)
    return IsotonicReliability(
        x=x,
        counts=counts.astype(np.int64),
        fitted=fitted,
        band_low=band_low,
        band_high=band_high,
        ci_low=ci_low,
        ci_high=ci_high,
        decomposition=_decomposition(v, y, sums, weights, fitted, p_value),
        n_sim=n_sim,
        n_boot=n_boot,
        confidence=confidence,
        distribution="normal" if distribution == "normal" else f"t({nu:g})",
    )


@dataclass(frozen=True)
class MCBTest:
    """Permutation test of the shape of the isotonic reliability (:func:`mcb_permutation_test`).

    Attributes:
        miscalibration: MCB of the globally scaled uncertainties uE·sqrt(<Z²>).
        p_value: (1 + #{MCB* >= MCB})/(n_permutations + 1).
        n_permutations: permutations drawn.
    """

    miscalibration: float
    p_value: float
    n_permutations: int

    def __repr__(self) -> str:
        return (f"MCBTest(MCB {self.miscalibration:.4g}, p = {self.p_value:.3g} from "
                f"{self.n_permutations} permutations)")


def mcb_permutation_test(errors: ArrayLike, uncertainties: ArrayLike, *,
                         n_permutations: int = 999, seed: SeedLike = 0,
                         exceedances: int | None = None, n_workers: int = 1,
                         groups: ArrayLike | GroupIndex | None = None) -> MCBTest:
    """Does E² depend on uE² otherwise than in proportion? A distribution-free MCB test.

    The uncertainties are first scaled by s = sqrt(<Z²>) (the QLIKE-optimal constant factor,
    which removes the average miscalibration), and the statistic is the QLIKE MCB of
    uE·s (module docstring): what an increasing recalibration of uE² gains beyond one global
    factor. Under "the uncertainties are right up to one factor", E = c·uE·D with D
    independent of uE, so the z-scores are exchangeable with respect to uE: the rows' Z are
    permuted against uE (E* = uE·Z_π), which keeps <Z²>, s and the mean score S unchanged,
    and the p-value (1 + #{MCB* >= MCB})/(n_permutations + 1) has size <= alpha for any
    shape of D (unlike the simulated p-value of :func:`isotonic_reliability`, exact only
    for the simulated D). With ``exceedances=h`` the sequential rule of Besag & Clifford (1991)
    stops at the h-th exceedance (p = h/l after l permutations; the first l permutations
    are those of the fixed rule). Each permutation runs in one compiled pass
    (:mod:`uqval.calibration.pav_kernel`: shuffle, group sums, PAV, recalibrated QLIKE
    summed over the PAV blocks), in chunks of SFC64 streams spread over ``n_workers``
    threads (no effect on the result); cost O(n_permutations · M) after one sort.

    ``groups`` (a group code per row, or a :class:`~uqval.stats.groups.GroupIndex`, whose
    nested blocks of groups are exchanged as the index lays them out; rows in groups whose
    errors share a part): the Z are
    permuted inside each group and whole groups of equal size exchanged (restricted
    permutations within blocks, Good 2005 Sect. 3.6, with the exchange of whole blocks:
    :func:`uqval.stats.groups.shuffle_exchangeable`), which keeps <Z²>, s and the mean
    score unchanged. Exact when the rows of a group are exchangeable given uE (a shared
    group part plus row parts independent and identically distributed) and groups of one
    size are exchangeable units, the null of the binned and cumulative tests along a
    variable that varies inside groups
    (:func:`uqval.validation.permutation.grouped_heterogeneity_tests`). Along a uE constant
    inside every group only the exchanges of equal-size groups move it: the engine does not
    run it there.

    >>> rng = np.random.default_rng(1)
    >>> u = rng.uniform(0.5, 2.0, 2000)
    >>> e = u * rng.standard_t(5, u.size)
    >>> mcb_permutation_test(e, 3 * u, n_permutations=199).p_value > 0.05  # a factor only
    True
    >>> e[u > 1.25] *= 1.5
    >>> mcb_permutation_test(e, u, n_permutations=199)
    MCBTest(MCB 0.1849, p = 0.005 from 199 permutations)
    """
    e, u = errors_uncertainties(errors, uncertainties, min_size=2)
    n_permutations = integer(n_permutations, "n_permutations", minimum=1)
    n_workers = integer(n_workers, "n_workers", minimum=1)
    order = np.argsort(u, kind="stable")
    z2 = np.square(e[order] / u[order])
    s2 = float(np.mean(z2))
    if s2 == 0.0:
        raise ValueError("errors are all 0; the QLIKE score needs some non-zero errors")
    v = np.square(u[order]) * s2
    starts = _groups(v)
    counts = np.diff(np.r_[starts, v.size]).astype(np.float64)
    u2 = np.square(u[order])
    m = v.size

    # the mean score of uE·s is the same for every permutation (it depends on the rows'
    # Z² only through their mean), so only the recalibrated score is recomputed
    score = float(np.mean(u2 * z2 / v + np.log(v)))
    group_end = np.r_[starts[1:], m].astype(np.int64)
    observed = score - recalibrated_qlike(u2, z2, group_end, counts) / m
    buckets = _n_buckets(m)

    if groups is None:
        def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
            chunk_recalibrated_qlike(u2, z2, group_end, counts, buckets, state, rows)
    else:
        index = groups if isinstance(groups, GroupIndex) else None
        codes = np.asarray(index.codes) if index is not None else np.asarray(groups)
        if codes.shape != e.shape:
            raise ValueError(f"groups has {codes.size} values for {e.size} rows")
        # segments of positions in uE order, the groups by size
        within = (GroupIndex.from_codes(codes[order]) if index is None
                  else index.subset(order)).size_layout()

        def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
            chunk_recalibrated_qlike_within(u2, z2, group_end, counts, within.order,
                                            within.starts, within.strata, within.inner_starts,
                                            state, rows)

    def exceeding(drawn: NDArray[np.float64]) -> NDArray[np.bool_]:
        return score - drawn / m >= observed - 1e-12 * abs(observed)

    def done(drawn: NDArray[np.float64]) -> bool:
        assert exceedances is not None
        return int(np.count_nonzero(exceeding(drawn))) >= exceedances

    null = run_chunks(np.empty(n_permutations), seed, n_workers, fill,
                      None if exceedances is None else done)
    hits = np.cumsum(exceeding(null))
    if exceedances is not None and hits[-1] >= exceedances:
        used = int(np.argmax(hits >= exceedances)) + 1
        return MCBTest(observed, exceedances / used, used)
    exceed = int(hits[-1])
    return MCBTest(observed, (1 + exceed) / (n_permutations + 1), n_permutations)
