"""Binned calibration errors ENCE, ZMSE and UCE on equal-count bins of the uncertainty.

The data are sorted by the binning variable (the uncertainty by default; stable sort, ties in
input order) and cut into N equal-count bins by :func:`uqval.binning.equal_count_bins`
(bin i holds sorted positions floor(M i/N + 1/2) .. floor(M (i+1)/N + 1/2) − 1), with
N = round(sqrt(M)) by default (:func:`uqval.binning.sqrt_bin_count`, P003 Sect. III.B.3.a).
Per bin b: MV_b = <uE²>_b, MSE_b = <E²>_b, RMV_b, RMSE_b their roots and ZMS_b = <Z²>_b.

* ENCE = (1/N) Σ_b abs(RMV_b − RMSE_b)/RMV_b (Levi et al. 2022; P002 Eq. 11; P003 Eq. 8);
* ZMSE = (1/N) Σ_b abs(ln ZMS_b) (P002 Eq. 17);
* UCE = (1/N) Σ_b abs(MV_b − MSE_b) (Laves et al. 2020, "well-calibrated regression
  uncertainty", with equal-count instead of equal-width bins; in squared units of E).

None of the three has a known reference value for a calibrated set of finite size (P002
Sect. II.C): use :func:`uqval.scores.calibration_scores` for simulated references.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.binning import equal_count_bins
from uqval.calibration.binned_errors import ence_batch, zmse_batch
from uqval.calibration.binned_errors import ence_from_bins as _ence
from uqval.calibration.binned_errors import zmse_from_bins as _zmse
from uqval.scores._input import check_bins, check_inputs, check_vector, sorted_edges

__all__ = ["binned_rows", "ence", "uce", "uce_batch", "zmse"]


def _bins(
    errors: ArrayLike, uncertainties: ArrayLike, n_bins: int | None, by: ArrayLike | None
) -> tuple[FloatArray, FloatArray, list]:
    e, u = check_inputs(errors, uncertainties)
    x = u if by is None else check_vector(by, "by")
    if x.size != e.size:
        raise ValueError(f"by has {x.size} values, errors {e.size}")
    return e, u, equal_count_bins(x, check_bins(n_bins, e.size))


def ence(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    n_bins: int | None = None,
    by: ArrayLike | None = None,
) -> float:
    """ENCE = (1/N) Σ_b abs(RMV_b − RMSE_b)/RMV_b on N equal-count bins (P002 Eq. 11).

    Args:
        errors, uncertainties: E and uE (arrays or pandas Series).
        n_bins: N; default round(sqrt(M)).
        by: binning variable (a feature, P003 adaptivity); default the uncertainties.

    Examples:
        Not 0 even for errors drawn with their uE (no known reference); about
        abs(1 - 2) = 1 for uE half too small:

        >>> import numpy as np
        >>> from uqval import ence
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(ence(e, u), 2), round(ence(e, u / 2), 2)  # 32 bins of about 31 points
        (0.1, 1.04)
        >>> round(ence(e, u, n_bins=10), 2)  # larger bins, smaller ENCE
        0.05
    """
    e, u, bins = _bins(errors, uncertainties, n_bins, by)
    return _ence(e, u, bins)


def zmse(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    n_bins: int | None = None,
    by: ArrayLike | None = None,
) -> float:
    """ZMSE = (1/N) Σ_b abs(ln ZMS_b) on N equal-count bins (P002 Eq. 17).

    Arguments as :func:`ence`.

    Examples:
        About ln 4 = 1.39 for uE half too small:

        >>> import numpy as np
        >>> from uqval import zmse
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(zmse(e, u), 2), round(zmse(e, u / 2), 2)
        (0.19, 1.41)
    """
    e, u, bins = _bins(errors, uncertainties, n_bins, by)
    return _zmse(e, u, bins)


def uce(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    n_bins: int | None = None,
    by: ArrayLike | None = None,
) -> float:
    """UCE = (1/N) Σ_b abs(MV_b − MSE_b) on N equal-count bins (Laves et al. 2020).

    MV_b = <uE²>_b and MSE_b = <E²>_b; units of E². Arguments as :func:`ence`.

    Examples:
        >>> import numpy as np
        >>> from uqval import uce
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(uce(e, u), 2), round(uce(e, u / 2), 2)  # in units of E²
        (0.31, 1.4)
    """
    e, u, bins = _bins(errors, uncertainties, n_bins, by)
    order = np.concatenate(bins)
    edges = np.cumsum([0, *(b.size for b in bins)])
    return float(uce_batch(e[order][None, :], u[order], edges)[0])


def uce_batch(errors: ArrayLike, uncertainties: ArrayLike, edges: ArrayLike) -> FloatArray:
    """UCE of many sets at once, rows already sorted by the binning variable.

    Args:
        errors: E, shape (n_sets, M).
        uncertainties: uE, shape (M,) or (n_sets, M), sorted like the rows of E.
        edges: bin edges 0 = e_0 < ... < e_N = M (bin b = columns e_b .. e_{b+1} − 1).
    """
    e = np.asarray(errors, dtype=np.float64)
    u = np.asarray(uncertainties, dtype=np.float64)
    edg = np.asarray(edges, dtype=np.intp)
    starts, counts = edg[:-1], np.diff(edg)
    mv = np.add.reduceat(np.square(u), starts, axis=-1) / counts
    mse = np.add.reduceat(np.square(e), starts, axis=-1) / counts
    return np.mean(np.abs(mv - mse), axis=-1)


def binned_rows(
    errors: FloatArray, uncertainties: FloatArray, n_bins: int
) -> dict[str, FloatArray]:
    """ENCE, ZMSE and UCE of rows of errors sorted by uE (uE shape (M,) or like E)."""
    edges = sorted_edges(errors.shape[-1], n_bins)
    return {
        "ence": ence_batch(errors, uncertainties, edges),
        "zmse": zmse_batch(errors, uncertainties, edges),
        "uce": uce_batch(errors, uncertainties, edges),
    }
