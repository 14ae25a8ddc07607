"""All scores at once, each with its probabilistic reference (simulated with the user's uE).

The reference of a score θ is its distribution when the uncertainties are right: pseudo-errors
E*_i = uE_i·ε_i with ε ~ D (the normal, or the unit-variance Student t of the ``"t"``
option) and the user's own uE (P002 Sect. II.D.2 and App. A, P000 Eqs. 20-21), n_sim sets.
The reference mean is the mean of θ over the sets and the 95 % interval the type-7 quantiles
2.5 % and 97.5 % of the simulated values (P002 "I_D"); a score is *consistent with calibration*
when its observed value lies inside. ZMS has the known reference 1 and the NLL the closed form
(1 + <ln uE²> + ln 2π)/2 (P002 Eq. 16); the simulation gives every score, known or not, on the
same footing. Sharpness does not involve E, so its reference is its own value.

Vectorised and deterministic: the data are put once in uE-sorted order (stable sort) so the
equal-count bins are fixed, and the sets are drawn directly in that order in fixed stream
blocks of max(1, 2**20 // M) sets, block j from child j of ``SeedSequence(seed).spawn``; the
result depends on (seed, M, n_sim) only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from uqval._internal.checks import MAX_RESAMPLES, integer, probability
from uqval._internal.streams import stream_blocks
from uqval._internal.types import FloatArray, SeedLike
from uqval.scores._input import check_bins, check_inputs
from uqval.scores.binned import binned_rows
from uqval.scores.curves import N_PROPORTIONS, curve_rows
from uqval.scores.proper import (
    DEFAULT_QUANTILES,
    _levels,
    check_rows,
    crps_rows,
    interval_rows,
    nll_rows,
)
from uqval.stats.rank_kernel import rank_weight_sums
from uqval.stats.synthetic import DistributionName, GenerativeDistribution, predictive

__all__ = [
    "SCORES",
    "CalibrationScores",
    "ScoreReference",
    "ScoreSettings",
    "calibration_scores",
    "score_rows",
]


SCORES: dict[str, tuple[str, str]] = {
    "zms": ("<Z²>, target 1 (P002 Eq. 14)", "target"),
    "rce": ("(RMV − RMSE)/RMV, target 0 (P001 Eq. 7)", "target"),
    "ence": ("binned |RMV_b − RMSE_b|/RMV_b (P002 Eq. 11)", "lower"),
    "zmse": ("binned |ln ZMS_b| (P002 Eq. 17)", "lower"),
    "uce": ("binned |MV_b − MSE_b| (Laves et al. 2020)", "lower"),
    "nll": ("negative log-likelihood (P001 Eq. 12)", "lower"),
    "crps": ("continuous ranked probability score (G&R 2007 Eq. 21)", "lower"),
    "interval_score": ("interval score (G&R 2007 Eq. 43)", "lower"),
    "check_score": ("pinball loss over quantile levels (G&R 2007 Sect. 9.1)", "lower"),
    "miscalibration_area": ("area of the interval calibration curve (uncertainty-toolbox)", "lower"),
    "rms_calibration_error": ("RMSCE (uncertainty-toolbox)", "lower"),
    "mean_absolute_calibration_error": ("MACE (uncertainty-toolbox)", "lower"),
    "sharpness": ("root mean variance sqrt(<uE²>)", "none"),
    "mae": ("mean |E|", "lower"),
    "rmse": ("sqrt(<E²>)", "lower"),
    "mdae": ("median |E|", "lower"),
    "rank_correlation": ("Spearman(|E|, uE) (P002 Eq. 18)", "higher"),
}
"""Score name -> (definition, orientation: "lower"/"higher" is better, "target", "none")."""


@dataclass(frozen=True)
class ScoreSettings:
    """Options shared by every score of :func:`score_rows`."""

    n_bins: int
    distribution: GenerativeDistribution
    coverage: float = 0.95
    quantiles: FloatArray = field(default_factory=lambda: DEFAULT_QUANTILES)
    n_proportions: int = N_PROPORTIONS


def _rank_rows(x: FloatArray) -> FloatArray:
    r = stats.rankdata(x, axis=-1)
    return r - r.mean(axis=-1, keepdims=True)


def _spearman_rows(a: FloatArray, u: FloatArray) -> FloatArray:
    ra, ru = _rank_rows(a), _rank_rows(u)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(ra * ru, axis=-1) / np.sqrt(
            np.sum(ra * ra, axis=-1) * np.sum(ru * ru, axis=-1)
        )


def _rank_correlation_rows(E: FloatArray, uE: FloatArray, u: FloatArray) -> FloatArray:
    """Spearman(abs(E), uE) per row (average ranks for ties).

    With one uE shared by all rows (the simulated sets), the ranks of uE are computed once
    and, in rows without ties in abs(E), sum_i rank(abs(E_i)) ru_i is summed exactly in
    integers after a compiled radix sort (:mod:`uqval.stats.rank_kernel`); equal to
    the per-row ``rankdata`` formula to rounding (about 1e-16), which rows with ties keep.
    """
    a = np.abs(E)
    if np.ndim(uE) != 1:
        return _spearman_rows(a, u)
    m = a.shape[-1]
    ru = stats.rankdata(uE) - 0.5 * (m + 1)
    sums, tied = rank_weight_sums(a.reshape(-1, m), np.rint(2.0 * ru).astype(np.int64))
    with np.errstate(invalid="ignore", divide="ignore"):
        cc = 0.5 * sums / np.sqrt(m * (m * m - 1.0) / 12.0 * float(np.sum(ru * ru)))
    rows = np.flatnonzero(tied)
    if rows.size:
        cc[rows] = _spearman_rows(a.reshape(-1, m)[rows], np.broadcast_to(uE, (rows.size, m)))
    return cc.reshape(a.shape[:-1])


def score_rows(
    errors: FloatArray, uncertainties: FloatArray, settings: ScoreSettings
) -> dict[str, FloatArray]:
    """Every score of each row of E (shape (n_sets, M)), rows sorted by increasing uE.

    ``uncertainties`` (uE) has shape (M,) (shared, sorted) or (n_sets, M) (each row sorted).
    The binned scores use the equal-count bins of the sorted positions.
    """
    u = np.broadcast_to(uncertainties, errors.shape)
    D = settings.distribution
    e2, u2 = np.square(errors), np.square(u)
    mv, mse = u2.mean(axis=-1), e2.mean(axis=-1)
    cc = _rank_correlation_rows(errors, uncertainties, u)
    out = {
        "zms": np.mean(e2 / u2, axis=-1),
        "rce": (np.sqrt(mv) - np.sqrt(mse)) / np.sqrt(mv),
        **binned_rows(errors, uncertainties, settings.n_bins),
        "nll": nll_rows(errors, u, D),
        "crps": crps_rows(errors, u, D),
        "interval_score": interval_rows(errors, u, D, settings.coverage),
        "check_score": check_rows(errors, u, D, settings.quantiles),
        **curve_rows(errors, u, D, settings.n_proportions),
        "sharpness": np.sqrt(mv),
        "mae": np.mean(np.abs(errors), axis=-1),
        "rmse": np.sqrt(mse),
        "mdae": np.median(np.abs(errors), axis=-1),
        "rank_correlation": cc,
    }
    return {name: np.asarray(out[name], dtype=np.float64) for name in SCORES}


@dataclass(frozen=True)
class ScoreReference:
    """One score with its probabilistic reference.

    Attributes:
        name: score name (a key of :data:`SCORES`).
        value: the score of the data.
        ref_mean: mean of the score over the simulated calibrated sets.
        ref_low, ref_high: 95 % interval of the simulated values (type-7 quantiles).
        inside: whether ``value`` lies in [ref_low, ref_high].

    Examples:
        >>> import numpy as np
        >>> from uqval import calibration_scores
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> r = calibration_scores(e, u, n_sim=200, seed=0)["zms"]
        >>> r.name, round(r.value, 3), round(r.ref_low, 3), round(r.ref_high, 3), r.inside
        ('zms', 1.052, 0.927, 1.077, True)
    """

    name: str
    value: float
    ref_mean: float
    ref_low: float
    ref_high: float
    inside: bool


@dataclass(frozen=True)
class CalibrationScores:
    """Result of :func:`calibration_scores`: every score with its reference.

    Index by name (``result["crps"]``), iterate over the :class:`ScoreReference` rows, or
    get a table with :meth:`to_frame`. ``simulated`` holds the n_sim simulated values of each
    score.

    Examples:
        >>> import numpy as np
        >>> from uqval import calibration_scores
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> res = calibration_scores(e, u, n_sim=200, seed=0)
        >>> res.M, res.n_bins, res.distribution, res.simulated["crps"].shape
        (1000, 32, 'normal', (200,))
        >>> [r.name for r in res if not r.inside]  # about 1 in 20 outside by chance
        ['mdae']
        >>> res.to_frame().columns.tolist()
        ['value', 'ref_mean', 'ref_low', 'ref_high', 'inside', 'definition']
    """

    scores: tuple[ScoreReference, ...]
    M: int
    n_bins: int
    distribution: str
    n_sim: int
    confidence: float
    simulated: dict[str, FloatArray] = field(repr=False, compare=False)

    def __getitem__(self, name: str) -> ScoreReference:
        for row in self.scores:
            if row.name == name:
                return row
        raise KeyError(f"no score {name!r}; available: {[r.name for r in self.scores]}")

    def __iter__(self) -> Iterator[ScoreReference]:
        return iter(self.scores)

    def to_frame(self) -> pd.DataFrame:
        """One row per score: value, ref_mean, ref_low, ref_high, inside, definition."""
        frame = pd.DataFrame([vars(r) for r in self.scores]).set_index("name")
        frame["definition"] = [SCORES[n][0] for n in frame.index]
        return frame

    def __repr__(self) -> str:
        head = (
            f"CalibrationScores(M={self.M}, n_bins={self.n_bins}, distribution={self.distribution}, "
            f"n_sim={self.n_sim}, {self.confidence:.0%} reference intervals)"
        )
        lines = [head, f"  {'score':<33}{'value':>11}{'ref. mean':>11}  reference interval"]
        for r in self.scores:
            mark = "" if r.inside else "  <- outside"
            lines.append(
                f"  {r.name:<33}{r.value:>11.4g}{r.ref_mean:>11.4g}  "
                f"[{r.ref_low:.4g}, {r.ref_high:.4g}]{mark}"
            )
        return "\n".join(lines)


def _simulate(
    u_sorted: FloatArray, settings: ScoreSettings, n_sim: int, seed: SeedLike
) -> dict[str, FloatArray]:
    m = u_sorted.size
    out = {name: np.empty(n_sim) for name in SCORES}
    for block in stream_blocks(seed, n_sim, m):
        eps = settings.distribution.draw(block.values(), (block.size, m))
        for name, values in score_rows(u_sorted * eps, u_sorted, settings).items():
            out[name][block.start : block.stop] = values
    return out


def calibration_scores(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    n_bins: int | None = None,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    coverage: float = 0.95,
    quantiles: ArrayLike = DEFAULT_QUANTILES,
    n_sim: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
) -> CalibrationScores:
    """Every score of :mod:`uqval.scores` with its simulated reference (module doc).

    Args:
        errors, uncertainties: E and uE (arrays or pandas Series).
        n_bins: bins of ENCE, ZMSE, UCE; default round(sqrt(M)).
        distribution, nu: predictive distribution of the proper and curve scores, and the
            distribution of ε in the simulation ("normal", or "t" with nu > 2).
        coverage: coverage of the interval score.
        quantiles: levels of the check score.
        n_sim: number of simulated calibrated sets.
        confidence: level of the reference intervals.
        seed: seed of the simulation.

    Returns:
        :class:`CalibrationScores`. R² needs y_true and is not included (:func:`r2`).

    Examples:
        Uncertainties half too small: every score lies outside its reference except
        sharpness (its reference is its own value) and the rank correlation (unchanged by a
        global scale of uE):

        >>> import numpy as np
        >>> from uqval import calibration_scores
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> res = calibration_scores(e, u / 2, n_sim=200, seed=0)
        >>> [r.name for r in res if r.inside]
        ['sharpness', 'rank_correlation']
        >>> r = res["crps"]
        >>> round(r.value, 3), round(r.ref_low, 3), round(r.ref_high, 3)
        (0.801, 0.345, 0.375)
    """
    e, u = check_inputs(errors, uncertainties)
    n_sim = integer(n_sim, "n_sim", minimum=2, maximum=MAX_RESAMPLES)
    probability(confidence)
    settings = ScoreSettings(
        n_bins=check_bins(n_bins, e.size),
        distribution=predictive(distribution, nu),
        coverage=probability(coverage, "coverage"),
        quantiles=_levels(quantiles),
    )
    order = np.argsort(u, kind="stable")
    e_s, u_s = e[order], u[order]
    observed = score_rows(e_s[None, :], u_s, settings)
    simulated = _simulate(u_s, settings, int(n_sim), seed)
    alpha = 1.0 - confidence
    rows = []
    for name in SCORES:
        value = float(observed[name][0])
        low, high = np.quantile(simulated[name], [alpha / 2.0, 1.0 - alpha / 2.0])
        rows.append(
            ScoreReference(
                name=name,
                value=value,
                ref_mean=float(np.mean(simulated[name])),
                ref_low=float(low),
                ref_high=float(high),
                inside=bool(low <= value <= high),
            )
        )
    label = "normal" if distribution == "normal" else f"t(nu={nu:g})"
    return CalibrationScores(
        scores=tuple(rows),
        M=int(e.size),
        n_bins=settings.n_bins,
        distribution=label,
        n_sim=int(n_sim),
        confidence=confidence,
        simulated=simulated,
    )
