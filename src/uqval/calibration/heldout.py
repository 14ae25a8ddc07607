"""The held-out tests of the joint calibration test (:mod:`uqval.calibration.joint`): does a
learner's fixed prediction on the held-out half correlate with the held-out Z² (or Z)?

* rows exchangeable: an exact permutation test of the correlation (:func:`permutation_p`),
  the held-out y permuted against the fixed predictions (Phipson & Smyth 2010), optionally
  with the sequential rule of Besag & Clifford (1991);
* rows in groups: a wild cluster randomization test (:func:`cluster_sign_p`), the signs of
  the group scores flipped (Canay, Romano & Shaikh 2017).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray
from uqval.stats.resample_kernel import _sfc64_next
from uqval.stats.shuffle import permutation_p_value, run_chunks

__all__ = ["CHUNK", "cluster_sign_p", "permutation_p"]

CHUNK = 64
"""Permutations per random-stream chunk (fixes the stream)."""

_U = np.uint64
_TWO_M53 = 2.0**-53


@numba.njit(nogil=True, cache=True)
def _permuted_dots(yc, pc, state, out):  # pragma: no cover - compiled
    """out[r] = dot(pc, yc permuted): successive in-place Fisher-Yates shuffles of a copy of
    yc (each a uniform permutation of the previous one, hence of yc), SFC64 from ``state``."""
    a = yc.copy()
    m = a.size
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.size):
        for i in range(m - 1, 0, -1):
            x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
            j = int(float(x >> _U(11)) * _TWO_M53 * (i + 1))
            t = a[i]
            a[i] = a[j]
            a[j] = t
        acc = 0.0
        for i in range(m):
            acc += a[i] * pc[i]
        out[r] = acc


def permutation_p(pred: FloatArray, y: FloatArray, n_permutations: int,
                   seed: np.random.SeedSequence, n_workers: int = 1,
                   exceedances: int | None = None) -> tuple[float, float]:
    """(correlation, one-sided permutation p-value) of fixed ``pred`` against ``y``;
    ``exceedances=h``: the sequential rule (p = h/l at the h-th exceedance).

    Permutations in fixed chunks of :data:`CHUNK`, chunk j from child j of ``seed`` (SFC64
    of :mod:`uqval.stats.resample_kernel`), in ``n_workers`` threads
    (:func:`uqval.stats.shuffle.run_chunks`): the result depends on (data, seed) only."""
    pc = np.ascontiguousarray(pred - pred.mean())
    yc = np.ascontiguousarray(y - y.mean())
    norm = math.sqrt(float(np.dot(pc, pc)) * float(np.dot(yc, yc)))
    if norm == 0.0:
        return 0.0, 1.0
    observed = float(np.dot(pc, yc))

    def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
        _permuted_dots(yc, pc, state, rows)

    threshold = observed - 1e-9 * abs(observed)

    def done(rows: NDArray[np.float64]) -> bool:
        assert exceedances is not None
        return int(np.count_nonzero(rows >= threshold)) >= exceedances

    null = run_chunks(np.empty(n_permutations), seed, n_workers, fill,
                      None if exceedances is None else done, chunk=CHUNK)
    return observed / norm, permutation_p_value(null >= threshold, n_permutations, exceedances)


def cluster_sign_p(pred: FloatArray, y: FloatArray, codes: NDArray[np.intp],
                    n_permutations: int, seed: np.random.SeedSequence) -> tuple[float, float]:
    """(correlation, one-sided p-value) of fixed ``pred`` against ``y`` when the rows come in
    groups (``codes``): the score sum_i pc_i yc_i is the sum of the group scores U_g, and
    its null is drawn by flipping the sign of each U_g (a wild cluster randomization test
    with Rademacher weights; Canay, Romano & Shaikh 2017, Econometrica 85, 1013: valid as
    the groups grow in number, whatever the dependence inside a group). The statistic is
    sum U_g / sqrt(sum U_g^2), whose denominator the flips do not change."""
    pc = pred - pred.mean()
    yc = y - y.mean()
    norm = math.sqrt(float(np.dot(pc, pc)) * float(np.dot(yc, yc)))
    _, inverse = np.unique(codes, return_inverse=True)
    scores = np.bincount(inverse.ravel(), weights=pc * yc)
    scale = math.sqrt(float(np.dot(scores, scores)))
    if norm == 0.0 or scale == 0.0:
        return 0.0, 1.0
    observed = float(scores.sum())
    signs = value_generator(seed).integers(0, 2, size=(n_permutations, scores.size))
    null = (2.0 * signs - 1.0) @ scores
    exceed = int(np.count_nonzero(null >= observed - 1e-9 * abs(observed)))
    return observed / norm, (1 + exceed) / (n_permutations + 1)
