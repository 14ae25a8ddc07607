"""Calibration-curve scores as uncertainty-toolbox defines them, and sharpness.

Expected proportions p_k = k/(K − 1), k = 0..K − 1 (``np.linspace(0, 1, K)``, K = 100), and
observed proportions of the central intervals of the predictive distribution,

    p̂_k = (1/M) Σ_i 1(abs(Z_i) ≤ Q_D(½ + p_k/2)),   Z = E/uE,

(uncertainty-toolbox ``get_proportion_lists_vectorized`` with ``prop_type="interval"``; D
normal or unit-variance Student t). Then (Tran et al. 2020; Chung et al. 2021,
uncertainty-toolbox ``metrics_calibration``):

* miscalibration area = ∫_0^1 abs(p̂(p) − p) dp of the piecewise-linear curves, each segment
  integrated exactly (where p̂ − p changes sign, two triangles: toolbox ``trapezoid_area``);
* RMSCE = sqrt((1/K) Σ_k (p̂_k − p_k)²);
* MACE = (1/K) Σ_k abs(p̂_k − p_k);
* sharpness = sqrt(<uE²>) (root mean variance, toolbox ``sharpness``), units of E.

Difference from :func:`uqval.calibration.curves.curve_miscalibration_area` (the primer's,
P000 Fig. 1): that one uses one-sided quantile coverage η_p = (1/M) Σ 1(E_i < uE_i Q_D(p)) on the grid 0.005..1 and a
plain trapezoid of abs(η_p − p) (no exact treatment of crossings). The two areas coincide only in
the limit of fine grids and symmetric errors; a biased model (all E > 0) is penalised by the
one-sided curve but not by the central-interval one.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.calibration.curves import N_PROPORTIONS, observed_proportions
from uqval.scores._input import check_inputs, check_vector
from uqval.stats.synthetic import DistributionName, GenerativeDistribution, predictive

__all__ = [
    "curve_rows",
    "mean_absolute_calibration_error",
    "miscalibration_area",
    "rms_calibration_error",
    "sharpness",
]

def _expected(n_proportions: int) -> FloatArray:
    if int(n_proportions) != n_proportions or n_proportions < 2:
        raise ValueError(f"n_proportions must be an integer >= 2, got {n_proportions!r}")
    return np.linspace(0.0, 1.0, int(n_proportions))


def _area(expected: FloatArray, observed: FloatArray) -> FloatArray:
    d = observed - expected
    dl, dr = d[..., :-1], d[..., 1:]
    h = np.diff(expected)
    a, b = np.abs(dl), np.abs(dr)
    same = dl * dr >= 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = (dl * dl + dr * dr) / (2.0 * (a + b))
    return np.sum(h * np.where(same, (a + b) / 2.0, crossing), axis=-1)


def curve_rows(
    errors: FloatArray,
    uncertainties: FloatArray,
    D: GenerativeDistribution,
    n_proportions: int = N_PROPORTIONS,
) -> dict[str, FloatArray]:
    """Miscalibration area, RMSCE and MACE of each row of E."""
    expected = _expected(n_proportions)
    observed = observed_proportions(errors, uncertainties, D, expected)
    diff = observed - expected
    return {
        "miscalibration_area": _area(expected, observed),
        "rms_calibration_error": np.sqrt(np.mean(diff * diff, axis=-1)),
        "mean_absolute_calibration_error": np.mean(np.abs(diff), axis=-1),
    }


def _score(
    name: str,
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName,
    nu: float | None,
    n_proportions: int,
) -> float:
    e, u = check_inputs(errors, uncertainties)
    return float(curve_rows(e, u, predictive(distribution, nu), n_proportions)[name])


def miscalibration_area(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    n_proportions: int = N_PROPORTIONS,
) -> float:
    """Area between the central-interval calibration curve and the diagonal (module doc).

    uncertainty-toolbox ``miscalibration_area`` (interval proportions, exact integration of
    crossing segments); range 0 (calibrated, M → ∞) to 0.5.

    Examples:
        Small for errors drawn with their uE; uE half too small or twice too large both
        leave the diagonal:

        >>> import numpy as np
        >>> from uqval import miscalibration_area
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> [round(miscalibration_area(e, s * u), 3) for s in (0.5, 1.0, 2.0)]
        [0.218, 0.014, 0.195]
    """
    return _score("miscalibration_area", errors, uncertainties, distribution, nu, n_proportions)


def rms_calibration_error(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    n_proportions: int = N_PROPORTIONS,
) -> float:
    """RMSCE = sqrt(mean_k (p̂_k − p_k)²) (uncertainty-toolbox
    ``root_mean_squared_calibration_error``).

    Examples:
        >>> import numpy as np
        >>> from uqval import rms_calibration_error
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(rms_calibration_error(e, u), 3), round(rms_calibration_error(e, u / 2), 3)
        (0.016, 0.241)
    """
    return _score("rms_calibration_error", errors, uncertainties, distribution, nu, n_proportions)


def mean_absolute_calibration_error(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    n_proportions: int = N_PROPORTIONS,
) -> float:
    """MACE = mean_k abs(p̂_k − p_k) (uncertainty-toolbox ``mean_absolute_calibration_error``).

    Examples:
        >>> import numpy as np
        >>> from uqval import mean_absolute_calibration_error as mace
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(mace(e, u), 3), round(mace(e, u / 2), 3)
        (0.014, 0.216)
    """
    return _score(
        "mean_absolute_calibration_error", errors, uncertainties, distribution, nu, n_proportions
    )


def sharpness(uncertainties: ArrayLike) -> float:
    """Sharpness sqrt(<uE²>), the root mean variance (uncertainty-toolbox ``sharpness``).

    Examples:
        >>> from uqval import sharpness
        >>> round(sharpness([1.0, 2.0, 2.0]), 4)  # sqrt((1 + 4 + 4)/3)
        1.7321
    """
    u = check_vector(uncertainties, "uncertainties", positive=True)
    return float(np.sqrt(np.mean(u * u)))
