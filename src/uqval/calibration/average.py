"""Average-calibration analysis of one dataset (heavy-tails paper P001, Sects. II and V).

* ZMS = <Z^2> (reference 1) and RCE = (RMV - RMSE)/RMV (reference 0) with the bootstrap bias
  b_BS, the 95 % BCa interval I_BS and the zeta-score of Eq. 14 (Table 4).
* The same after removing the 5 % largest uncertainties (Fig. 7, right).
* :func:`zms` and :func:`rce`: the two statistics alone, on checked inputs.
* Decimation (Fig. 8): Delta_RCE(k) and Delta_ZMS(k) when the k % largest uE are removed,
  k = 0 ... 10 % by 0.1 %, with the zero-centred BCa intervals of the full dataset.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties
from uqval._internal.seeding import seed_sequence
from uqval.stats.bootstrap import BootstrapResult, bca_bootstrap
from uqval.stats.zeta import zeta_score
from uqval.stats.zscore_statistics import RCE, ZMS, mean_z, rce_rows, var_z, zms_rows

REFERENCES = {"ZMS": 1.0, "RCE": 0.0}
MIN_POINTS = 4
"""Fewest points for the bootstrap tests: with M <= 3 the bootstrap distribution has a few
distinct values and the BCa interval degenerates (M = 2 gives zeta = -inf)."""
_MAX_DECIMATION_STEPS = 100_000
STATISTICS = {"ZMS": ZMS, "RCE": RCE}


def zms(errors: ArrayLike, uncertainties: ArrayLike) -> float:
    """Mean squared z-score ZMS = <Z^2>, Z = E/uE; 1 for calibrated uncertainties.

    Heavy-tails paper P001 Eq. 11; simref paper P002 Eq. 14; adaptivity paper P003 Eq. 2.

    >>> zms([0.5, -1.0, 2.0], [0.5, 1.0, 1.0])
    2.0

    Errors drawn with the given uE give ZMS close to 1; uE half too small give about 4:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 1000)
    >>> e = u * rng.standard_normal(1000)
    >>> round(zms(e, u), 2), round(zms(e, u / 2), 2)
    (1.05, 4.21)
    """
    e, u = errors_uncertainties(errors, uncertainties)
    return float(zms_rows(e, u))


def rce(errors: ArrayLike, uncertainties: ArrayLike) -> float:
    """Relative calibration error RCE = (RMV - RMSE)/RMV; 0 for calibrated uncertainties.

    RMV = sqrt(<uE^2>), RMSE = sqrt(<E^2>) (heavy-tails paper P001 Eq. 7).

    >>> rce([1.0, -1.0], [2.0, 2.0])
    0.5

    Errors drawn with the given uE give RCE close to 0; uE half too small give about -1:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 1000)
    >>> e = u * rng.standard_normal(1000)
    >>> round(rce(e, u), 2), round(rce(e, u / 2), 2)
    (-0.01, -1.02)
    """
    e, u = errors_uncertainties(errors, uncertainties)
    return float(rce_rows(e, u))


@dataclass(frozen=True)
class StatisticTest:
    """Estimate, bootstrap bias, BCa interval and zeta-score of one statistic."""

    statistic: str
    estimate: float
    bias: float
    ci_low: float
    ci_high: float
    reference: float
    zeta: float
    valid: bool

    @classmethod
    def from_bootstrap(cls, name: str, boot: BootstrapResult) -> StatisticTest:
        ref = REFERENCES[name]
        zeta = float(zeta_score(boot.estimate, ref, boot.ci_low, boot.ci_high))
        return cls(name, boot.estimate, boot.bias, boot.ci_low, boot.ci_high, ref, zeta, abs(zeta) <= 1)


def order_by_decreasing_uncertainty(E: NDArray, uE: NDArray) -> NDArray[np.intp]:
    """Indices sorting by uE descending, ties broken by E descending (authors' code)."""
    return np.lexsort((-E, -uE))


def remove_largest_uncertainties(
    E: ArrayLike, uE: ArrayLike, fraction: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Drop the round(fraction * M) points with the largest uE (P001 Fig. 7, right).

    Raises ValueError unless 0 <= fraction < 1.
    """
    E, uE = errors_uncertainties(E, uE)
    if not (np.isfinite(fraction) and 0.0 <= fraction < 1.0):
        raise ValueError(f"fraction must lie in [0, 1), got {fraction!r}")
    order = order_by_decreasing_uncertainty(E, uE)
    keep = np.sort(order[int(round(fraction * E.size)) :])
    return E[keep], uE[keep]


def _require_points(M: int) -> None:
    if M < MIN_POINTS:
        raise ValueError(
            f"E and uE hold M = {M} point(s); the ZMS and RCE bootstrap tests need at least "
            f"{MIN_POINTS} (with fewer the BCa interval degenerates)"
        )


def calibration_tests(
    E: ArrayLike,
    uE: ArrayLike,
    n_boot: int,
    seed: int | np.random.SeedSequence,
    confidence: float = 0.95,
) -> list[StatisticTest]:
    """ZMS and RCE with BCa intervals and zeta-scores (P001 Table 4).

    Each statistic gets its own random stream spawned from ``seed``. Raises ValueError when
    E and uE hold fewer than MIN_POINTS points.
    """
    E, uE = errors_uncertainties(E, uE)
    _require_points(E.size)
    root = seed_sequence(seed)
    streams = root.spawn(len(STATISTICS))
    return [
        StatisticTest.from_bootstrap(
            name,
            bca_bootstrap((E, uE), stat, n_boot=n_boot, seed=stream, confidence=confidence),
        )
        for (name, stat), stream in zip(STATISTICS.items(), streams, strict=True)
    ]


def decimation(E: ArrayLike, uE: ArrayLike, max_percent: float = 10.0, step: float = 0.1) -> pd.DataFrame:
    """P001 Fig. 8: statistics after removing the k % largest uE, k = 0, step, ..., max.

    floor(k M / 100) points are removed in the order of
    :func:`order_by_decreasing_uncertainty`. All k are computed at once from cumulative sums
    of the sorted columns (O(M log M)). Columns: k, n_removed, RCE, ZMS, delta_RCE, delta_ZMS.
    Raises ValueError unless 0 <= max_percent < 100, step > 0, at most 100 000 steps, and at
    least one point is kept at k = max_percent.
    """
    E, uE = errors_uncertainties(E, uE)
    if not (np.isfinite(max_percent) and 0.0 <= max_percent < 100.0):
        raise ValueError(f"max_percent must lie in [0, 100), got {max_percent!r}")
    if not (np.isfinite(step) and step > 0.0):
        raise ValueError(f"step must be a positive number of percent, got {step!r}")
    if max_percent / step > _MAX_DECIMATION_STEPS:
        raise ValueError(
            f"max_percent / step = {max_percent / step:.3g} steps; at most {_MAX_DECIMATION_STEPS}"
        )
    order = order_by_decreasing_uncertainty(E, uE)
    M = E.size
    percents = np.round(np.arange(0.0, max_percent + step / 2, step), 10)
    removed = np.floor(percents * M / 100 + 1e-9).astype(int)
    if removed[-1] >= M:
        raise ValueError(
            f"max_percent = {max_percent!r} removes all M = {M} points; lower max_percent"
        )

    def kept_sum(col: NDArray) -> NDArray:
        """Sums over the kept points: total minus the sum over the removed prefix."""
        prefix = np.concatenate(([0.0], np.cumsum(col[order])))
        return prefix[-1] - prefix[removed]

    n_kept = M - removed
    mv_k = kept_sum(uE**2) / n_kept
    mse_k = kept_sum(E**2) / n_kept
    zms_k = kept_sum((E / uE) ** 2) / n_kept
    rce_k = (np.sqrt(mv_k) - np.sqrt(mse_k)) / np.sqrt(mv_k)
    return pd.DataFrame(
        {
            "k": percents,
            "n_removed": removed,
            "RCE": rce_k,
            "ZMS": zms_k,
            "delta_RCE": rce_k - rce_k[0],
            "delta_ZMS": zms_k - zms_k[0],
        }
    )


@dataclass(frozen=True)
class AverageCalibration:
    """Full-set and trimmed tests plus simple descriptive statistics of Z.

    Examples:
        >>> import numpy as np
        >>> from uqval import average_calibration
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> res = average_calibration(e, u, n_boot=500, seed=0)
        >>> res.M, round(res.mean_z, 3), round(res.var_z, 3)
        (1000, -0.012, 1.053)
        >>> zms_trimmed = res.trimmed[0]  # without the 5 % largest uE
        >>> zms_trimmed.statistic, round(zms_trimmed.estimate, 3), zms_trimmed.valid
        ('ZMS', 1.063, True)
    """

    M: int
    mean_z: float
    var_z: float
    full: list[StatisticTest]
    trimmed: list[StatisticTest]
    trimmed_fraction: float

    def as_dict(self) -> dict:
        return asdict(self)


def average_calibration(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    n_boot: int,
    seed: int,
    confidence: float = 0.95,
    trimmed_fraction: float = 0.05,
) -> AverageCalibration:
    """Table 4 and Fig. 7 quantities of one dataset (full and trimmed sets get own streams).

    Raises ValueError unless 0 <= trimmed_fraction < 1 and both the full and the trimmed sets
    keep at least MIN_POINTS points.

    Examples:
        Errors drawn with the given uE pass both tests (abs(zeta) <= 1); uE half too small
        fail them:

        >>> import numpy as np
        >>> from uqval import average_calibration
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> res = average_calibration(e, u, n_boot=500, seed=0)
        >>> [(t.statistic, round(t.estimate, 2), round(t.ci_low, 2), t.valid) for t in res.full]
        [('ZMS', 1.05, 0.96, True), ('RCE', -0.01, -0.07, True)]
        >>> res = average_calibration(e, u / 2, n_boot=500, seed=0)
        >>> [(t.statistic, round(t.zeta), t.valid) for t in res.full]
        [('ZMS', 9, False), ('RCE', -11, False)]
    """
    errors, uncertainties = errors_uncertainties(errors, uncertainties)
    if not (np.isfinite(trimmed_fraction) and 0.0 <= trimmed_fraction < 1.0):
        raise ValueError(f"trimmed_fraction must lie in [0, 1), got {trimmed_fraction!r}")
    _require_points(errors.size)
    n_trimmed = errors.size - int(round(trimmed_fraction * errors.size))
    if n_trimmed < MIN_POINTS:
        raise ValueError(
            f"trimmed_fraction = {trimmed_fraction!r} leaves {n_trimmed} of M = {errors.size} points; "
            f"the tests need at least {MIN_POINTS}"
        )
    E_t, uE_t = remove_largest_uncertainties(errors, uncertainties, trimmed_fraction)
    full_seed, trimmed_seed = np.random.SeedSequence(seed).spawn(2)
    return AverageCalibration(
        M=int(errors.size),
        mean_z=float(mean_z(errors, uncertainties)),
        var_z=float(var_z(errors, uncertainties)),
        full=calibration_tests(errors, uncertainties, n_boot, full_seed, confidence),
        trimmed=calibration_tests(E_t, uE_t, n_boot, trimmed_seed, confidence),
        trimmed_fraction=trimmed_fraction,
    )
