"""ENCE and ZMSE of given bins (P002 Eqs. 11 and 17), single sets and stacks of Monte Carlo sets.

``ence_from_bins``/``zmse_from_bins`` take a list of bin index arrays (any binning); the
batched versions take stacks of sets sorted by uE with fixed contiguous bins (O(n_sets M)).
The user-facing scores with a bin count are :func:`uqval.scores.ence` and
:func:`uqval.scores.zmse`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.types import FloatArray
from uqval.calibration.local import prepare_bins, rce_values

__all__ = [
    "ence_from_bins",
    "ence_batch",
    "zmse_from_bins",
    "zmse_batch",
]

_BATCH_ELEMENTS = 1 << 21  # elements per chunk of the batched ENCE/ZMSE


def ence_from_bins(
    errors: ArrayLike, uncertainties: ArrayLike, bins: Sequence[ArrayLike]
) -> float:
    """ENCE = (1/N) sum_i abs(RCE_i), RCE_i = (RMV_i - RMSE_i)/RMV_i (P002 Eq. 11; P003 Eq. 8)."""
    e, ue, segments, _ = prepare_bins(errors, uncertainties, None, bins, 1)
    rce = rce_values(segments.means(np.square(ue)), segments.means(np.square(e)))
    return float(np.mean(np.abs(rce)))


def zmse_from_bins(
    errors: ArrayLike, uncertainties: ArrayLike, bins: Sequence[ArrayLike]
) -> float:
    """ZMSE = (1/N) sum_i abs(ln ZMS_i), ZMS_i = <Z^2>_i (P002 Eq. 17)."""
    e, ue, segments, _ = prepare_bins(errors, uncertainties, None, bins, 1)
    return float(np.mean(np.abs(np.log(segments.means(np.square(e / ue))))))


def _batch(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    edges: ArrayLike,
    per_chunk: Callable[[FloatArray, FloatArray, NDArray[np.intp], NDArray[np.intp]], FloatArray],
) -> FloatArray:
    """Apply ``per_chunk(E_rows, uE_rows, starts, counts)`` to chunks of sets (rows)."""
    e = np.asarray(errors, dtype=np.float64)
    u = np.asarray(uncertainties, dtype=np.float64)
    if e.ndim != 2:
        raise ValueError(f"errors must have shape (n_sets, M), got {e.shape}")
    m = e.shape[1]
    if u.shape not in ((m,), e.shape):
        raise ValueError(f"uncertainties must have shape ({m},) or {e.shape}, got {u.shape}")
    edg = np.asarray(edges)
    if (
        edg.ndim != 1
        or edg.size < 2
        or not np.issubdtype(edg.dtype, np.integer)
        or edg[0] != 0
        or edg[-1] != m
        or np.any(np.diff(edg) <= 0)
    ):
        raise ValueError(f"edges must be strictly increasing integers from 0 to M = {m}")
    starts, counts = edg[:-1].astype(np.intp), np.diff(edg).astype(np.intp)
    rows = max(1, _BATCH_ELEMENTS // m)
    out = np.empty(e.shape[0])
    for lo in range(0, e.shape[0], rows):
        sl = slice(lo, lo + rows)
        out[sl] = per_chunk(e[sl], u if u.ndim == 1 else u[sl], starts, counts)
    return out


def _bin_means_rows(
    values: FloatArray, starts: NDArray[np.intp], counts: NDArray[np.intp]
) -> FloatArray:
    return np.add.reduceat(values, starts, axis=-1) / counts


def ence_batch(errors: ArrayLike, uncertainties: ArrayLike, edges: ArrayLike) -> FloatArray:
    """ENCE of many sets at once (P002 App. B), O(n_sets M).

    Args:
        errors: E, shape (n_sets, M), each row sorted like ``uncertainties``.
        uncertainties: uE, shape (M,) (shared by all sets) or (n_sets, M).
        edges: bin edges of contiguous bins (bin i = columns edges[i]:edges[i+1]).

    Returns:
        ENCE per set, shape (n_sets,). Inputs are not checked for finiteness.
    """

    def chunk(
        e: FloatArray, u: FloatArray, starts: NDArray[np.intp], counts: NDArray[np.intp]
    ) -> FloatArray:
        mv = _bin_means_rows(np.square(u), starts, counts)
        mse = _bin_means_rows(np.square(e), starts, counts)
        return np.mean(np.abs(rce_values(mv, mse)), axis=-1)

    return _batch(errors, uncertainties, edges, chunk)


def zmse_batch(errors: ArrayLike, uncertainties: ArrayLike, edges: ArrayLike) -> FloatArray:
    """ZMSE of many sets at once (P002 App. B), O(n_sets M); arguments as in :func:`ence_batch`."""

    def chunk(
        e: FloatArray, u: FloatArray, starts: NDArray[np.intp], counts: NDArray[np.intp]
    ) -> FloatArray:
        zms = _bin_means_rows(np.square(e / u), starts, counts)
        return np.mean(np.abs(np.log(zms)), axis=-1)

    return _batch(errors, uncertainties, edges, chunk)

