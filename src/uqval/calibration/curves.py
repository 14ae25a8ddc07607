"""Calibration curves and confidence curves (P000 Sects. III.2.1 and III.3.6).

Calibration curves (P000 Eq. 17; grid, band and area as in the authors' code, see
docs/choices.md, "Calibration curves")::

    eta_p = (1/M) sum_i 1(E_i < q_{p,i}),    q_{p,i} = uE_i Q_D(p),

with Q_D the quantile function of the unit-variance generative distribution D (normal, or
Student t_nu scaled to unit variance). For uE_i > 0, ``E_i < uE_i Q_D(p)`` is equivalent to
``Z_i < Q_D(p)`` with Z = E/uE, so eta_p is the empirical CDF of Z (strict inequality)
evaluated at Q_D(p): Z is sorted once and every p costs one binary search,
O(M log M + P log M). The 95% band is the Wilson interval with continuity correction of a
binomial proportion p with n trials, drawn around the identity (n = M for the average
curve, n = the mean bin count for conditional curves). The miscalibration area is the
trapezoid integral of abs(eta_p - p) over p with the end points (0, 0) and (1, 1) added
(authors' ``trapz(pt, abs(pe - pt))``).

Confidence curves (P000 Eqs. 18-21; docs/choices.md, "Confidence curves and RMSE"): the
points are sorted by
decreasing uE (stable, ties in input order); for k = 0..99 the first floor(k M / 100)
points are removed and c_S(k) = S(remaining E). All k are obtained from reverse cumulative
sums of E, E^2 or abs(E) (O(M log M) for the sort, O(M) for the sums), also for the 500
probabilistic-reference replicates at once (array (n_mc, M)).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties, integer, vector
from uqval._internal.types import FloatArray
from uqval.stats.binomial import wilson_cc_interval
from uqval.stats.running import hd_quantiles_sorted
from uqval.stats.synthetic import GenerativeDistribution, as_distribution

__all__ = [
    "N_PROPORTIONS",
    "observed_proportions",
    "CONFIDENCE_K",
    "P_GRID_DEFAULT",
    "P_GRID_SYNTHETIC",
    "CalibrationCurve",
    "ConditionalCalibrationCurves",
    "ConfidenceCurve",
    "ProbabilisticReference",
    "calibration_curve",
    "calibration_eta",
    "conditional_calibration_curves",
    "confidence_curve",
    "confidence_statistic",
    "identity_band",
    "curve_miscalibration_area",
    "probabilistic_reference",
]

DistributionSpec = GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float]
ConfidenceStatistic = Literal["rmse", "rmsd", "mae"]

P_GRID_SYNTHETIC = np.arange(5, 1001) / 1000.0
"""p = 0.005, 0.006, ..., 1.000: grid of the authors' P000 synthetic figures."""

P_GRID_DEFAULT = np.arange(1, 200) / 200.0
"""p = 0.005, 0.010, ..., 0.995: ErrViewLib's default grid."""

CONFIDENCE_K = np.arange(100)
"""Percentages k = 0, 1, ..., 99 of removed points of the confidence curves."""

for _constant in (P_GRID_SYNTHETIC, P_GRID_DEFAULT, CONFIDENCE_K):
    _constant.setflags(write=False)  # shared defaults, returned inside the results


N_PROPORTIONS = 100
"""Number K of expected proportions (uncertainty-toolbox ``num_bins``)."""


def observed_proportions(
    errors: FloatArray, uncertainties: FloatArray, D: GenerativeDistribution, expected: FloatArray
) -> FloatArray:
    """p̂_k of each row of ``errors`` E (last axis), shape (..., K); ``uncertainties`` uE
    broadcastable to E.

    Every abs(Z) is placed once among the sorted half-widths q_k = Q_D(½ + p_k/2)
    (``searchsorted``: abs(Z) ≤ q_k ⇔ position ≤ k), and the counts are cumulated, so a row
    costs O(M log K).
    """
    q = D.quantile(0.5 + expected / 2.0)
    pos = np.searchsorted(q, np.abs(errors / uncertainties), side="left")  # K where |Z| > every q_k
    k = expected.size
    lead = pos.shape[:-1]
    flat = pos.reshape(-1, pos.shape[-1])
    offsets = (np.arange(flat.shape[0]) * (k + 1))[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * (k + 1))
    counts = counts.reshape(flat.shape[0], k + 1)[:, :k]
    return (np.cumsum(counts, axis=1) / errors.shape[-1]).reshape(*lead, k)


def _grid(p: ArrayLike) -> FloatArray:
    grid = np.asarray(p, dtype=np.float64)
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError("the p grid must be a non-empty 1-D array")
    if not np.all((grid > 0.0) & (grid <= 1.0)) or np.any(np.diff(grid) <= 0.0):
        raise ValueError("the p grid must be strictly increasing within (0, 1]")
    return grid


# --- calibration curves -------------------------------------------------------------------


def calibration_eta(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    p: ArrayLike = P_GRID_SYNTHETIC,
    distribution: DistributionSpec = "normal",
) -> FloatArray:
    """Empirical coverage eta_p = (1/M) sum_i 1(E_i < uE_i Q_D(p)) (P000 Eq. 17).

    Computed as the strict empirical CDF of Z = E/uE at Q_D(p):
    ``searchsorted(sort(Z), Q_D(p), side="left") / M``. In exact arithmetic this equals the
    indicator sum because uE > 0; in floating point the two can only differ for a point
    whose E/uE and Q_D(p) agree to within rounding. Q_D(1) = +inf gives eta = 1.
    """
    e, u = errors_uncertainties(errors, uncertainties)
    grid = _grid(p)
    z = np.sort(e / u)
    q = as_distribution(distribution).quantile(grid)
    return np.searchsorted(z, q, side="left") / z.size


def identity_band(p: ArrayLike, n: int, confidence: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """Wilson-cc binomial interval of a proportion p with n trials, around the identity.

    Successes are ``round(p n)``, because :func:`~uqval.stats.binomial.wilson_cc_interval`
    takes whole numbers: the band is that of the nearest achievable proportion, shifted by
    less than 1/(2n) from p (no shift on the synthetic grid with n = 5000). n = M for the
    average curve, the mean bin count for conditional curves (docs/choices.md, "Calibration
    curves").
    """
    grid = _grid(p)
    n = integer(n, "n", minimum=1)
    low, high = wilson_cc_interval(np.rint(grid * n), np.full(grid.shape, n), confidence)
    return np.asarray(low), np.asarray(high)


def curve_miscalibration_area(p: ArrayLike, eta: ArrayLike) -> float:
    """Trapezoid integral of abs(eta_p - p) over p with (0, 0) and (1, 1) added (P000 Fig. 1).

    Authors' code: ``pt = c(0, prob, 1)``, ``pe = c(0, pP, 1)``,
    ``trapz(pt, abs(pe - pt))``; with a grid ending at p = 1 the extra end point adds a
    zero-width trapezoid.
    """
    pt = np.concatenate([[0.0], _grid(p), [1.0]])
    pe = np.concatenate([[0.0], np.asarray(eta, dtype=np.float64), [1.0]])
    if pe.shape != pt.shape:
        raise ValueError("eta must have the length of the p grid")
    d = np.abs(pe - pt)
    return float(np.sum(np.diff(pt) * (d[1:] + d[:-1])) / 2.0)


@dataclass(frozen=True)
class CalibrationCurve:
    """Average calibration curve (P000 Fig. 1).

    Attributes:
        p: probability grid.
        eta: empirical coverages eta_p.
        band_low, band_high: 95% Wilson-cc band around the identity at each p.
        n_band: number of trials of the band (M).
        area: miscalibration area (:func:`curve_miscalibration_area`).

    Examples:
        >>> import numpy as np
        >>> from uqval import calibration_curve
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> cc = calibration_curve(e, u, p=[0.25, 0.5, 0.75])
        >>> cc.eta, cc.n_band
        (array([0.264, 0.503, 0.745]), 1000)
        >>> cc.band_low.round(3), cc.band_high.round(3)  # 95 % band around the identity
        (array([0.224, 0.469, 0.722]), array([0.278, 0.531, 0.776]))
    """

    p: FloatArray
    eta: FloatArray
    band_low: FloatArray
    band_high: FloatArray
    n_band: int
    area: float


def calibration_curve(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    p: ArrayLike = P_GRID_SYNTHETIC,
    distribution: DistributionSpec = "normal",
    confidence: float = 0.95,
) -> CalibrationCurve:
    """Average calibration curve with its identity band and miscalibration area.

    P000 Sect. III.2.1, Eq. 17, Fig. 1 (normal D) and Fig. 18a (unit-variance t_4);
    docs/choices.md, "Calibration curves". Default grid :data:`P_GRID_SYNTHETIC`.

    Examples:
        Coverages eta_p close to p for errors drawn with the given uE, not for uE half too
        small:

        >>> import numpy as np
        >>> from uqval import calibration_curve
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> calibration_curve(e, u, p=[0.05, 0.5, 0.95]).eta
        array([0.056, 0.503, 0.95 ])
        >>> calibration_curve(e, u / 2, p=[0.05, 0.5, 0.95]).eta
        array([0.219, 0.503, 0.793])
        >>> round(calibration_curve(e, u).area, 3), round(calibration_curve(e, u / 2).area, 3)
        (0.008, 0.109)
    """
    e, u = errors_uncertainties(errors, uncertainties)
    grid = _grid(p)
    eta = calibration_eta(e, u, grid, distribution)
    low, high = identity_band(grid, e.size, confidence)
    return CalibrationCurve(
        p=grid,
        eta=eta,
        band_low=low,
        band_high=high,
        n_band=e.size,
        area=curve_miscalibration_area(grid, eta),
    )


@dataclass(frozen=True)
class ConditionalCalibrationCurves:
    """Calibration curves per bin of a conditioning variable (P000 Figs 3 and 9).

    Attributes:
        p: probability grid.
        eta: per-bin coverages, shape (n_bins, len(p)).
        average: unweighted mean of the per-bin curves (the thick line).
        band_low, band_high: Wilson-cc band around the identity for n = n_band.
        n_band: mean bin count, rounded (M / n_bins, about 333 for 15 bins of 5000).
    """

    p: FloatArray
    eta: FloatArray
    average: FloatArray
    band_low: FloatArray
    band_high: FloatArray
    n_band: int


def conditional_calibration_curves(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    bins: Sequence[ArrayLike],
    p: ArrayLike = P_GRID_SYNTHETIC,
    distribution: DistributionSpec = "normal",
    confidence: float = 0.95,
) -> ConditionalCalibrationCurves:
    """One calibration curve per bin plus their average (P000 Sect. III.3.2, III.4.2).

    Args:
        errors, uncertainties: errors E and (positive) uncertainties uE.
        bins: one integer index array per bin (e.g. equal-count bins of uE or X, 15 bins
            in P000).
        p: probability grid.
        distribution: generative distribution D of the quantiles (normal; t_4 for Fig. 3f).
        confidence: level of the band.

    The average curve is the unweighted mean of the per-bin curves; for equal-count bins it
    equals the curve of the binned points up to the rounding of the bin counts. The band
    uses n = round(number of binned points / n_bins) (the authors' n = M/n_bins).
    """
    e, u = errors_uncertainties(errors, uncertainties)
    grid = _grid(p)
    if len(bins) == 0:
        raise ValueError("bins must hold at least one bin")
    index = [np.asarray(b, dtype=np.intp) for b in bins]
    if any(b.ndim != 1 or b.size == 0 for b in index):
        raise ValueError("every bin must be a non-empty 1-D index array")
    eta = np.stack([calibration_eta(e[b], u[b], grid, distribution) for b in index])
    n_band = max(1, round(sum(b.size for b in index) / len(index)))
    low, high = identity_band(grid, n_band, confidence)
    return ConditionalCalibrationCurves(
        p=grid, eta=eta, average=eta.mean(axis=0), band_low=low, band_high=high, n_band=n_band
    )


# --- confidence curves --------------------------------------------------------------------


def _removed_counts(m: int, k: ArrayLike) -> NDArray[np.intp]:
    ks = np.asarray(k)
    if ks.ndim != 1 or ks.size == 0 or np.any((ks < 0) | (ks >= 100)) or np.any(ks != np.floor(ks)):
        raise ValueError("k must be a 1-D array of whole percentages in [0, 99]")
    return (ks.astype(np.int64) * m) // 100


def _reverse_cumsum(x: FloatArray) -> FloatArray:
    """``out[..., j] = sum(x[..., j:])`` along the last axis."""
    return np.cumsum(x[..., ::-1], axis=-1)[..., ::-1]


def confidence_statistic(
    sorted_errors: ArrayLike, k: ArrayLike = CONFIDENCE_K, statistic: ConfidenceStatistic = "rmse"
) -> FloatArray:
    """c_S(k) = S(E_sorted[..., floor(k M / 100):]) for every k, along the last axis.

    ``sorted_errors`` (E_sorted) holds errors already ordered by decreasing uncertainty (any
    leading axes are replicates). S is

    * ``"rmse"``: sqrt(mean(E^2)) (the paper's RMSE; default);
    * ``"rmsd"``: sd(E) with the n - 1 denominator (ErrViewLib ``rmsd``, what the
      authors' plotCC "RMSE" computes); NaN when fewer than 2 points are left;
    * ``"mae"``: mean(abs(E)).

    The remaining sums for every k come from one reverse cumulative sum (O(M) per row); for
    "rmsd" the row mean is subtracted first to limit cancellation in sum(E^2) - (sum E)^2/n.
    """
    e = np.asarray(sorted_errors, dtype=np.float64)
    m = e.shape[-1]
    if m == 0:
        raise ValueError("sorted_errors must hold at least one point")
    start = _removed_counts(m, k)
    n = (m - start).astype(np.float64)
    if statistic == "rmse":
        return np.sqrt(_reverse_cumsum(np.square(e))[..., start] / n)
    if statistic == "mae":
        return _reverse_cumsum(np.abs(e))[..., start] / n
    if statistic == "rmsd":
        d = e - e.mean(axis=-1, keepdims=True)
        s1 = _reverse_cumsum(d)[..., start]
        s2 = _reverse_cumsum(np.square(d))[..., start]
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.maximum(s2 - s1**2 / n, 0.0) / (n - 1.0)
        return np.where(n >= 2, np.sqrt(var), np.nan)
    raise ValueError(f"unknown statistic {statistic!r}; use 'rmse', 'rmsd' or 'mae'")


@dataclass(frozen=True)
class ConfidenceCurve:
    """Confidence curve of a data set and its oracle (P000 Eqs. 18-19, Fig. 7).

    Attributes:
        k: percentages of removed points.
        statistic: "rmse", "rmsd" or "mae".
        values: c_S(k; E, uE).
        oracle: O(k; E) = c_S(k; E, abs(E)).
        u_k: largest uncertainty left after removing k% (top axis of P000 Figs 13-15).

    Examples:
        >>> import numpy as np
        >>> from uqval import confidence_curve
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> cc = confidence_curve(e, u, "mae")
        >>> cc.k.size, cc.statistic
        (100, 'mae')
        >>> cc.u_k[[0, 50, 90]].round(2)  # largest uE left after removing k %
        array([2.  , 1.29, 0.68])
    """

    k: NDArray[np.intp]
    statistic: ConfidenceStatistic
    values: FloatArray
    oracle: FloatArray
    u_k: FloatArray


def _decreasing_order(values: FloatArray) -> NDArray[np.intp]:
    """Stable order of decreasing values (ties keep their input order)."""
    return np.argsort(-values, kind="stable")


def confidence_curve(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    statistic: ConfidenceStatistic = "rmse",
    k: ArrayLike = CONFIDENCE_K,
) -> ConfidenceCurve:
    """Confidence curve, oracle and u_k (P000 Sect. III.3.6; docs/choices.md, "Confidence curves and
    RMSE").

    Points are sorted by decreasing uE (stable); removing the first floor(k M/100) gives
    c_S(k). The oracle sorts the uE-ordered errors by decreasing abs(E) (stable), as
    ErrViewLib ``plotConfidence``.

    Examples:
        The RMSE falls as the points with the largest uE are removed (uE ranks the errors),
        less steeply than the oracle, which removes the largest errors first:

        >>> import numpy as np
        >>> from uqval import confidence_curve
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> cc = confidence_curve(e, u, k=[0, 50, 90])
        >>> cc.values.round(2), cc.oracle.round(2)
        (array([1.36, 0.99, 0.61]), array([1.36, 0.46, 0.1 ]))
    """
    e, u = errors_uncertainties(errors, uncertainties)
    order = _decreasing_order(u)
    e_sorted, u_sorted = e[order], u[order]
    oracle_sorted = e_sorted[_decreasing_order(np.abs(e_sorted))]
    ks = np.asarray(k)
    return ConfidenceCurve(
        k=ks,
        statistic=statistic,
        values=confidence_statistic(e_sorted, ks, statistic),
        oracle=confidence_statistic(oracle_sorted, ks, statistic),
        u_k=u_sorted[_removed_counts(e.size, ks)],
    )


@dataclass(frozen=True)
class ProbabilisticReference:
    """Probabilistic reference of a confidence curve (P000 Eqs. 20-21, Fig. 7).

    Attributes:
        k: percentages of removed points.
        mean: P(k), mean over the n_mc replicate curves.
        low, high: band limits (HD quantiles of the replicate curves at each k).
        n_mc: number of replicates.
    """

    k: NDArray[np.intp]
    mean: FloatArray
    low: FloatArray
    high: FloatArray
    n_mc: int


def probabilistic_reference(
    uncertainties: ArrayLike,
    rng: np.random.Generator,
    distribution: DistributionSpec = "normal",
    statistic: ConfidenceStatistic = "rmse",
    n_mc: int = 500,
    k: ArrayLike = CONFIDENCE_K,
    confidence: float = 0.95,
) -> ProbabilisticReference:
    """Mean and band of confidence curves of pseudo-errors E~ = uE eps, eps ~ D.

    P000 Eqs. 20-21 ("typically 500" draws). All replicates are drawn in
    one pass as an (n_mc, M) array ``uE_sorted * D.draw(rng, (n_mc, M))``, with uE already
    sorted by decreasing value, and their curves come from :func:`confidence_statistic`.
    The band holds the Harrell-Davis quantiles at (1 -+ confidence)/2 of the n_mc curves at
    each k (ErrViewLib ``vhd``), vectorised with one weight matrix.

    Examples:
        The band of RMSE confidence curves expected for calibrated errors with these uE (the
        data of :func:`confidence_curve`, 1.36, 0.99 and 0.61 at these k, lie inside):

        >>> import numpy as np
        >>> from uqval import probabilistic_reference
        >>> u = np.random.default_rng(0).uniform(0.5, 2.0, 1000)
        >>> ref = probabilistic_reference(u, np.random.default_rng(1), n_mc=200, k=[0, 50, 90])
        >>> ref.mean.round(2), ref.low.round(2), ref.high.round(2)
        (array([1.35, 0.94, 0.58]), array([1.29, 0.88, 0.49]), array([1.41, 1.  , 0.67]))
    """
    n_mc = integer(n_mc, "n_mc", minimum=1)
    u = vector(uncertainties, "uncertainties", positive=True)
    u_sorted = u[_decreasing_order(u)]
    draws = u_sorted * as_distribution(distribution).draw(rng, (n_mc, u.size))
    ks = np.asarray(k)
    curves = confidence_statistic(draws, ks, statistic)
    alpha = 1.0 - confidence
    band = hd_quantiles_sorted(np.sort(curves, axis=0).T, [alpha / 2.0, 1.0 - alpha / 2.0])
    return ProbabilisticReference(
        k=ks, mean=curves.mean(axis=0), low=band[:, 0], high=band[:, 1], n_mc=n_mc
    )
