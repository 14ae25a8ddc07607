"""Accuracy of the predictions and the rank correlation between abs(E) and uE.

Errors E = y_true − y_pred (reference minus prediction, as everywhere in uqval);
:func:`errors_from` forms them from ``y_true`` and ``y_pred``. Definitions as in
uncertainty-toolbox ``prediction_error_metrics`` (scikit-learn's metrics):

* MAE = <abs(E)>, RMSE = sqrt(<E²>), MdAE = median abs(E);
* R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² (needs ``y_true``, so it takes ``(y_true, y_pred)``);
* rank correlation = Spearman ρ of abs(E) and uE, average ranks for ties (P002 Eq. 18, "CC";
  ``scipy.stats.spearmanr``). It measures how well uE ranks the errors; P002 Sect. II.B shows
  its value for a calibrated set depends on the uE distribution and is far below 1, hence the
  simulated reference of :func:`uqval.scores.calibration_scores`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from uqval._internal.types import FloatArray
from uqval.scores._input import check_inputs, check_vector

__all__ = ["errors_from", "mae", "mdae", "r2", "rank_correlation", "rmse"]


def errors_from(y_true: ArrayLike, y_pred: ArrayLike) -> FloatArray:
    """E = y_true − y_pred, checked (finite, same length >= 2).

    Examples:
        >>> from uqval.scores import errors_from
        >>> errors_from([1.0, 2.0, 3.0], [0.5, 2.5, 3.0])
        array([ 0.5, -0.5,  0. ])
    """
    y = check_vector(y_true, "y_true")
    p = check_vector(y_pred, "y_pred")
    if y.size != p.size:
        raise ValueError(f"y_true and y_pred have different lengths ({y.size} and {p.size})")
    return y - p


def mae(errors: ArrayLike) -> float:
    """Mean absolute error <abs(E)>.

    Examples:
        >>> from uqval import mae
        >>> mae([1.0, -2.0, 3.0])
        2.0
    """
    return float(np.mean(np.abs(check_vector(errors, "errors"))))


def rmse(errors: ArrayLike) -> float:
    """Root mean squared error sqrt(<E²>) (P001 Sect. II.1).

    Examples:
        >>> from uqval import rmse
        >>> round(rmse([3.0, -4.0]), 4)  # sqrt((9 + 16)/2)
        3.5355
    """
    return float(np.sqrt(np.mean(np.square(check_vector(errors, "errors")))))


def mdae(errors: ArrayLike) -> float:
    """Median absolute error median abs(E).

    Examples:
        >>> from uqval import mdae
        >>> mdae([1.0, -2.0, 3.0, -10.0])  # robust to the outlier
        2.5
    """
    return float(np.median(np.abs(check_vector(errors, "errors"))))


def r2(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Coefficient of determination 1 − Σ(y − ŷ)²/Σ(y − ȳ)² (scikit-learn ``r2_score``).

    Examples:
        >>> from uqval import r2
        >>> round(r2([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.8]), 3)  # 1 - 0.1/5
        0.98
    """
    e = errors_from(y_true, y_pred)
    y = np.asarray(y_true, dtype=np.float64)
    total = float(np.sum(np.square(y - y.mean())))
    if total == 0.0:
        raise ValueError("y_true is constant: R² is undefined")
    return 1.0 - float(np.sum(e * e)) / total


def rank_correlation(errors: ArrayLike, uncertainties: ArrayLike) -> float:
    """Spearman rank correlation of abs(E) and uE (P002 Eq. 18), average ranks for ties.

    Examples:
        uE ranking abs(E) perfectly gives 1; errors drawn with their uE give far less (its
        calibrated reference depends on the uE distribution, see
        :func:`uqval.scores.calibration_scores`):

        >>> import numpy as np
        >>> from uqval import rank_correlation
        >>> round(rank_correlation([0.1, -0.5, 1.0, -2.0], [0.2, 0.4, 0.8, 1.5]), 6)
        1.0
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> round(rank_correlation(u * rng.standard_normal(1000), u), 2)
        0.35
    """
    e, u = check_inputs(errors, uncertainties)
    if np.ptp(u) == 0.0 or np.ptp(np.abs(e)) == 0.0:
        raise ValueError("rank correlation is undefined when |errors| or uncertainties are constant")
    return float(stats.spearmanr(np.abs(e), u).statistic)
