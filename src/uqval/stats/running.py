"""Running (sliding-window) statistics along a sorted conditioning variable.

Used for the running quantiles of the "E vs uE" and "Z vs X" plots (P000 Figs 2, 8, 16,
19 and A1, with guides E = ±k uE or Z = ±2) and for the running mean and mean of squares of
the z-scores (P003 Fig. 2, windows of M/100 points). The papers do not state the window of
the running quantiles; see docs/choices.md, "Running-statistics windows".

Windows. The data are ordered by increasing conditioning variable x (stable sort, so ties
keep their input order, as R ``order``). A window is ``window`` consecutive points and
windows slide by one point, so M points give ``M - window + 1`` windows. This is what the
authors' code does: ErrViewLib ``plotEvsPU(runQuant = TRUE)`` calls
``genIntervals(N, nBin, slide = TRUE)`` (``slide`` defaults to TRUE in ``plotEvsPU`` and
the P000 script does not override it), which returns the windows ``i .. i + nLoc - 1`` for
``i = 1 .. N - nLoc + 1`` with ``nLoc = floor(N / nBin)`` and ``nBin = ceiling(2 N^0.333)``
(:func:`quantile_window`; 142 points for M = 5000). P003 Fig. 2 uses windows of M/100
points (:func:`moment_window`).

Window positions. The authors plot each window at the mid-range of its x values,
``(min x + max x) / 2`` (``mint[i] = 0.5 * sum(range(xOrd[sel]))`` in ``plotEvsPU``);
:func:`window_positions` also offers the mean x of the window.

Quantiles. Harrell-Davis (HD) estimates (ErrViewLib ``vhd``, probabilities 0.025 and
0.975 by default). The HD weights of a window depend only on its size n and on q, so they
are computed once (:func:`hd_weight_matrix`) and applied to every sorted window by one
matrix product over a strided window view. Means use cumulative sums, O(M).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike
from scipy import special

from uqval._internal.types import FloatArray

__all__ = [
    "hd_quantiles_sorted",
    "hd_weight_matrix",
    "moment_window",
    "quantile_window",
    "running_mean",
    "running_mean_square",
    "running_moments_along",
    "running_quantiles",
    "running_quantiles_along",
    "window_positions",
]

Position = Literal["midrange", "mean"]

DEFAULT_RUNNING_PROBS = (0.025, 0.975)
"""Probabilities of the running quantiles of P000 (ErrViewLib ``vhd`` default)."""


def quantile_window(m: int) -> int:
    """Window size of the P000 running quantiles: floor(M / ceil(2 M^0.333)).

    ErrViewLib ``plotEvsPU``: ``nBin = ceiling(2*N^0.333)``, ``nLoc = floor(N/nBin)``;
    142 for M = 5000.
    """
    if m < 1:
        raise ValueError(f"need at least one point, got M={m}")
    return m // math.ceil(2.0 * m**0.333)


def moment_window(m: int) -> int:
    """Window size of the P003 Fig. 2 running mean and mean of squares: floor(M/100), >= 1."""
    if m < 1:
        raise ValueError(f"need at least one point, got M={m}")
    return max(1, m // 100)


def _values_1d(values: ArrayLike, window: int) -> FloatArray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {v.shape}")
    if not 1 <= window <= v.size:
        raise ValueError(f"window must lie in [1, {v.size}], got {window}")
    return v


def running_mean(values: ArrayLike, window: int) -> FloatArray:
    """Mean of every window of ``window`` consecutive values (sliding by one point).

    ``out[i] = (1/w) sum_{j=i}^{i+w-1} v_j`` for i = 0 .. M - w, computed from the
    cumulative sum ``C`` (``C_0 = 0``) as ``(C_{i+w} - C_i)/w`` in O(M) (P003 Fig. 2,
    "running mean"; ``values`` must already be ordered by the conditioning variable). The
    absolute rounding error is of order eps * sum(abs(v)) / w, far below plotting resolution.
    """
    v = _values_1d(values, window)
    c = np.concatenate([[0.0], np.cumsum(v)])
    return (c[window:] - c[:-window]) / window


def running_mean_square(values: ArrayLike, window: int) -> FloatArray:
    """Mean of the squared values in every sliding window, ``(1/w) sum v_j^2`` (P003 Fig. 2)."""
    return running_mean(np.square(_values_1d(values, window)), window)


def window_positions(x_sorted: ArrayLike, window: int, kind: Position = "midrange") -> FloatArray:
    """Position of every sliding window on the x axis, x being sorted ascending.

    ``"midrange"`` (authors' code, default): ``(x_i + x_{i+w-1})/2``, the centre of the x
    range of the window; ``"mean"``: the mean x of the window.
    """
    x = _values_1d(x_sorted, window)
    if np.any(np.diff(x) < 0):
        raise ValueError("x_sorted must be sorted in ascending order")
    if kind == "midrange":
        return 0.5 * (x[: x.size - window + 1] + x[window - 1 :])
    if kind == "mean":
        return running_mean(x, window)
    raise ValueError(f"unknown position kind {kind!r}; use 'midrange' or 'mean'")


def _probabilities(probs: ArrayLike) -> FloatArray:
    p = np.atleast_1d(np.asarray(probs, dtype=np.float64))
    if p.ndim != 1 or p.size == 0:
        raise ValueError("probs must be a non-empty 1-D sequence")
    if not np.all((p > 0.0) & (p < 1.0)):
        raise ValueError("quantile probabilities must lie in the open interval (0, 1)")
    return p


def hd_weight_matrix(n: int, probs: ArrayLike) -> FloatArray:
    """Harrell-Davis weights for a sample of size n, shape (len(probs), n).

    Row k holds ``w_i = I_{i/n}(a, b) - I_{(i-1)/n}(a, b)``, i = 1..n, with
    ``a = (n+1) q_k`` and ``b = (n+1)(1 - q_k)`` and I the regularised incomplete beta
    function (P001 Sect. IV.1; R ``WRS::hd`` / ErrViewLib ``hd``), so that the HD estimate of
    the q_k-quantile of a sorted sample x is ``W[k] @ x``. All n weights are evaluated
    (they cost O(n) once per window size). Probabilities must lie in (0, 1).
    """
    if n < 1:
        raise ValueError(f"sample size must be positive, got {n}")
    q = _probabilities(probs)
    a, b = (n + 1) * q, (n + 1) * (1.0 - q)
    cdf = special.betainc(a[:, None], b[:, None], np.arange(n + 1)[None, :] / n)
    return np.diff(cdf, axis=1)


def hd_quantiles_sorted(sorted_samples: ArrayLike, probs: ArrayLike) -> FloatArray:
    """HD quantiles of many samples of equal size, each sorted along the last axis.

    Args:
        sorted_samples: array of shape (..., n), every row sorted ascending.
        probs: probabilities in (0, 1).

    Returns:
        Array of shape (..., len(probs)): ``sorted_samples @ W.T`` with
        ``W = hd_weight_matrix(n, probs)``.
    """
    xs = np.asarray(sorted_samples, dtype=np.float64)
    return xs @ hd_weight_matrix(xs.shape[-1], probs).T


def running_quantiles(
    values: ArrayLike, window: int, probs: ArrayLike = DEFAULT_RUNNING_PROBS
) -> FloatArray:
    """Harrell-Davis quantiles of every sliding window of ``window`` consecutive values.

    ``values`` must already be ordered by the conditioning variable (they are *not* sorted
    themselves). Window i holds ``values[i : i + window]``, i = 0 .. M - window (windows
    slide by one point, as ErrViewLib ``genIntervals(slide = TRUE)``; P000 Figs 2 and 8).
    Each window is sorted (one ``np.sort`` over a strided
    ``sliding_window_view``) and multiplied by the HD weight matrix, computed once.

    Returns:
        Array of shape (M - window + 1, len(probs)).
    """
    v = _values_1d(values, window)
    windows = np.sort(sliding_window_view(v, window), axis=1)
    return hd_quantiles_sorted(windows, probs)


def _sorted_along(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """x and y ordered by increasing x (stable: ties keep their input order, as R ``order``)."""
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got {xa.shape} and {ya.shape}")
    order = np.argsort(xa, kind="stable")
    return xa[order], ya[order]


def running_quantiles_along(
    x: ArrayLike,
    y: ArrayLike,
    probs: ArrayLike = DEFAULT_RUNNING_PROBS,
    window: int | None = None,
    position: Position = "midrange",
) -> tuple[FloatArray, FloatArray]:
    """Running HD quantiles of y along x (P000 "E vs uE" and "Z vs X" plots, Sects. III.2-III.4).

    Sorts (x, y) by x, then applies :func:`running_quantiles` with the default window
    :func:`quantile_window` (M) of the authors' code.

    Returns:
        (positions of shape (n_windows,), quantiles of shape (n_windows, len(probs))).
    """
    xs, ys = _sorted_along(x, y)
    w = quantile_window(xs.size) if window is None else window
    return window_positions(xs, w, position), running_quantiles(ys, w, probs)


def running_moments_along(
    x: ArrayLike,
    y: ArrayLike,
    window: int | None = None,
    position: Position = "midrange",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Running mean and running mean of squares of y along x (P003 Fig. 2).

    Sorts (x, y) by x; the default window is :func:`moment_window` (M/100 points).

    Returns:
        (positions, running <y>, running <y^2>), each of shape (M - window + 1,).
    """
    xs, ys = _sorted_along(x, y)
    w = moment_window(xs.size) if window is None else window
    return window_positions(xs, w, position), running_mean(ys, w), running_mean_square(ys, w)
