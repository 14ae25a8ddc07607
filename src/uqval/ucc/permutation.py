"""Paired permutation test of AUUCC differences (UCC paper P004 Sect. 3; Dwass 1957), with the
details the paper leaves open fixed in docs/choices.md, "Permutation test". The swaps of each
chunk come from the compiled kernels of :mod:`uqval.ucc.swap`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

import uqval.ucc.swap as ucc_swap
from uqval._internal.checks import MAX_RESAMPLES, integer
from uqval._internal.seeding import seed_sequence
from uqval._internal.types import FloatArray, SeedLike
from uqval.ucc.curve import Rule, curve_area
from uqval.ucc.intervals import (
    Axis,
    Normalize,
    PredictionIntervals,
    Terms,
    active_terms,
    check_axes,
    metrics_from_terms,
    normalising_unit,
    observations,
)

__all__ = [
    "PermutationTestResult",
    "auucc_permutation_test",
]

Align = Literal["median", "none"]


Algorithm = Literal["auto", "sort"]


_CHUNK_ELEMENTS = 1 << 16  # permutations per random-stream chunk: max(1, min(256, 2**16 // N))


@dataclass(frozen=True)
class PermutationTestResult:
    """Paired permutation test of Δ = AUUCC(A) − AUUCC(B).

    ``null_deltas`` are the ``n_permutations`` permuted differences drawn (fewer than
    ``max_permutations`` when the sequential rule stopped early); ``algorithm`` says how
    they were computed ("closed form" or "sort") and which stopping rule was used.

    Examples:
        >>> import numpy as np
        >>> from uqval import PredictionIntervals, auucc_permutation_test
        >>> from uqval.ucc import constant_band
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> y_pred = rng.normal(0.0, 3.0, 1000)
        >>> y = y_pred + u * rng.standard_normal(1000)
        >>> model = PredictionIntervals.from_uncertainty(y_pred, u)
        >>> res = auucc_permutation_test(
        ...     y, model, constant_band(y_pred), n_permutations=500, exceedances=20
        ... )
        >>> res.n_permutations, res.max_permutations, res.algorithm  # stopped early
        (29, 500, 'closed form, sequential, h = 20')
        >>> round(res.p_value, 2), res.null_deltas.shape
        (0.69, (29,))
    """

    auucc_a: float
    auucc_b: float
    delta: float
    p_value: float
    n_permutations: int
    null_deltas: FloatArray = field(repr=False)
    max_permutations: int = 0
    algorithm: str = ""


def _batch_auucc(t: Terms, x_axis: Axis, y_axis: Axis, rule: Rule) -> FloatArray:
    """AUUCC (raw units) of each row of batched terms, shape (B, N) -> (B,)."""
    _, m = metrics_from_terms(t, (x_axis, y_axis))
    return curve_area(m[x_axis], m[y_axis], rule, x_axis)


def _select(swap: NDArray[np.bool_], keep: Terms, other: Terms) -> Terms:
    """Terms of ``keep`` with the points flagged in ``swap`` (shape (B, N)) taken from ``other``."""
    return Terms(
        *(np.where(swap, getattr(other, f.name), getattr(keep, f.name)) for f in fields(Terms))
    )


def _aligned(t: Terms, align: Align) -> Terms:
    """Bands rescaled by the median critical scale (k = 1 then misses half the points).

    The UCC and its area do not change under a global rescaling of one model's bands; the
    rescaling only sets the relative scale at which points are exchanged between models.
    """
    if align == "none":
        return t
    if align != "median":
        raise ValueError(f"unknown align {align!r}; choose 'median' or 'none'")
    s = float(np.median(t.k))
    if s <= 0.0:
        return t
    return Terms(k=t.k / s, a=t.a * s, e=t.e, w=t.w * s)


DeltaChunk = Callable[[np.random.SeedSequence, FloatArray], None]


def _delta_kernel(
    ta: Terms, tb: Terms, x_axis: Axis, y_axis: Axis, rule: Rule, algorithm: Algorithm,
    groups: tuple[NDArray[np.intp], int] | None = None,
) -> tuple[DeltaChunk, str]:
    """Function filling Δ* of a chunk of permutations, and its name; ``groups`` (codes,
    G): one swap bit per group."""
    axes = {x_axis, y_axis}
    if algorithm not in ("auto", "sort"):
        raise ValueError(f"unknown algorithm {algorithm!r}; choose 'auto' or 'sort'")
    if algorithm == "auto" and axes == {"excess", "deficit"} and rule == "trapezoid":
        stat = ucc_swap.excess_deficit(ta.k, ta.a, tb.k, tb.a)
        return (stat if groups is None else stat.by_group(*groups)).deltas, "closed form"
    if algorithm == "auto" and axes == {"bandwidth", "miss_rate"} and groups is None:
        stat = ucc_swap.bandwidth_miss_rate(ta.k, ta.w, tb.k, tb.w, rule == "trapezoid")
        return stat.deltas, "closed form"

    def by_sorting(seed: np.random.SeedSequence, out: FloatArray) -> None:
        if groups is None:
            swap = ucc_swap.swap_masks(seed, out.size, ta.k.size)
        else:  # bit g of the stream swaps every point of group g
            swap = ucc_swap.swap_masks(seed, out.size, groups[1])[:, groups[0]]
        out[:] = _batch_auucc(_select(swap, ta, tb), x_axis, y_axis, rule) - _batch_auucc(
            _select(swap, tb, ta), x_axis, y_axis, rule
        )

    return by_sorting, "sort"


def _permutation_seed(seed: SeedLike | np.random.Generator) -> np.random.SeedSequence:
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return seed_sequence(seed)


def auucc_permutation_test(
    y: ArrayLike,
    pi_a: PredictionIntervals,
    pi_b: PredictionIntervals,
    x_axis: Axis = "bandwidth",
    y_axis: Axis = "miss_rate",
    rule: Rule = "trapezoid",
    normalize: Normalize = None,
    n_permutations: int = 10_000,
    seed: SeedLike | np.random.Generator = 0,
    align: Align = "median",
    *,
    exceedances: int | None = None,
    tie_rtol: float = 1e-9,
    n_workers: int = 1,
    algorithm: Algorithm = "auto",
    progress: Callable[[int, int], None] | None = None,
    groups: ArrayLike | None = None,
) -> PermutationTestResult:
    """Two-sided paired permutation test for the difference of two AUUCCs (P004 Sect. 4; Dwass 1957).

    Details unstated in the paper are chosen in docs/choices.md, "Permutation test".

    Both models share y. Each permutation swaps the (ŷ_i, ẑ_i^l, ẑ_i^u) of A and B for each
    i independently with probability ½ and recomputes Δ* = AUUCC(A*) − AUUCC(B*).

    p-value. With ``exceedances=None`` all B = ``n_permutations`` permutations are drawn and
    p = (1 + g)/(1 + B), g = #{abs(Δ*) ≥ abs(Δ)} (Monte Carlo standard error
    sqrt(p(1 − p)/B) around the exact permutation p-value; smallest value 1/(1 + B)). With
    ``exceedances=h`` the sequential rule of Besag & Clifford (1991, Biometrika 78, 301)
    stops at the h-th exceedance: p = h/l after l permutations, or (1 + g)/(1 + B) if fewer
    than h exceedances occur in B. It is a valid p-value (P(p ≤ α) ≤ α under the null),
    needs about h/p permutations when p is large (relative precision about 1/sqrt(h), e.g.
    ±22 % for h = 20) and all B only when p ≲ h/B, i.e. when the decision is clear.

    Ties. abs(Δ) ≤ ``tie_rtol`` × max(AUUCC(A), AUUCC(B)) counts as a tie (p = 1): rounding
    noise, e.g. bands u and 1.5u whose UCCs are identical, must not look significant. A
    permuted Δ* exceeds when abs(Δ*) ≥ abs(Δ) − tie_rtol × max(AUUCC(A), AUUCC(B)).

    ``align="median"`` (default) first rescales each model's bands by its median critical
    scale. This leaves both observed AUUCCs unchanged (the UCC is invariant to a global band
    scale) but makes swapped points comparable: without it, mixing bands of different
    overall widths (e.g. a constant of 1 and bands of 3 sd) yields badly mis-scaled
    permuted models, a wide null distribution and a test with little power.
    ``align="none"`` swaps the bands as given (the literal reading of the paper).

    Computation (``algorithm="auto"``): bandwidth–miss rate (either rule) and excess–deficit
    (trapezoid) use the closed forms of :mod:`uqval.ucc.swap` (sums over the permuted model,
    its extremes and tie groups from one shared sort; O(N) per permutation, agreeing with
    the sorted computation to rounding); other axes and ``algorithm="sort"`` rebuild each
    permuted UCC by sorting. The observed AUUCCs always come from the sorted UCC. Swap bits
    are drawn in chunks of max(1, min(256, 2**16 // N)) permutations, chunk j from child j of
    ``SeedSequence(seed)``; the result depends on (data, seed, n_permutations, exceedances)
    only, not on ``n_workers`` (threads evaluating chunks) nor on the algorithm's rounding.
    ``progress(done, total)`` is called after each batch of chunks.

    ``groups`` (a group label per point; points in groups whose errors share a part, such
    as the atoms of one structure): each permutation swaps A and B on *whole groups*, one
    bit per group (bit g of the stream above with G in place of N, the groups in the
    order of their sorted labels), so the null holds
    whatever the dependence inside a group: under "A and B are exchangeable on every
    group" the group-wise swaps are equally likely (a cluster-level paired permutation
    test; docs/choices.md, "Rows that come in groups"). Excess–deficit keeps its closed
    form (the sums of each group swapped together); bandwidth–miss rate is then computed
    by sorting.

    Examples:
        Bands ±uE of errors drawn with these uE rank the errors better than a constant band
        in excess-deficit coordinates (Δ < 0, smallest possible p-value 1/501):

        >>> import numpy as np
        >>> from uqval import PredictionIntervals, auucc_permutation_test
        >>> from uqval.ucc import constant_band
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> y_pred = rng.normal(0.0, 3.0, 1000)
        >>> y = y_pred + u * rng.standard_normal(1000)
        >>> model = PredictionIntervals.from_uncertainty(y_pred, u)
        >>> res = auucc_permutation_test(
        ...     y, model, constant_band(y_pred), "excess", "deficit", normalize="std",
        ...     n_permutations=500, seed=0,
        ... )
        >>> round(res.auucc_a, 4), round(res.auucc_b, 4), round(res.p_value, 4)
        (0.0234, 0.0306, 0.002)
    """
    check_axes(x_axis, y_axis)
    obs = observations(y, pi_a)
    observations(obs, pi_b)
    n_permutations = integer(n_permutations, "n_permutations", minimum=1, maximum=MAX_RESAMPLES)
    if exceedances is not None:
        exceedances = integer(exceedances, "exceedances", minimum=1)
    if not 0.0 <= tie_rtol < 1.0:
        raise ValueError(f"tie_rtol must lie in [0, 1), got {tie_rtol}")
    n_workers = integer(n_workers, "n_workers", minimum=1)
    ta, tb = (_aligned(active_terms(obs, p.y_pred, p.z_lower, p.z_upper), align) for p in (pi_a, pi_b))
    pair = Terms(*(np.stack([getattr(ta, f.name), getattr(tb, f.name)]) for f in fields(Terms)))
    observed = _batch_auucc(pair, x_axis, y_axis, rule)
    group_codes = None
    if groups is not None:
        labels = np.asarray(groups)
        if labels.shape != obs.shape:
            raise ValueError(f"groups has {labels.size} labels for {obs.size} points")
        _, codes = np.unique(labels, return_inverse=True)
        group_codes = (codes.astype(np.intp).ravel(), int(codes.max()) + 1)
    kernel, name = _delta_kernel(ta, tb, x_axis, y_axis, rule, algorithm, group_codes)
    if group_codes is not None:
        name += f", {group_codes[1]} groups swapped whole"
    delta = float(observed[0] - observed[1])
    tol = tie_rtol * float(np.max(np.abs(observed)))
    target = 0.0 if abs(delta) <= tol else abs(delta) - tol
    per_chunk = max(1, min(256, _CHUNK_ELEMENTS // obs.size))
    n_chunks = -(-n_permutations // per_chunk)
    children = _permutation_seed(seed).spawn(n_chunks)
    null = np.empty(n_permutations)

    def work(j: int) -> None:
        kernel(children[j], null[j * per_chunk : min(n_permutations, (j + 1) * per_chunk)])

    used, exceed, stopped = n_permutations, 0, False
    batch, start = max(n_workers, -(-256 // per_chunk)), 0
    with ThreadPoolExecutor(max_workers=n_workers) as pool:
        while start < n_chunks and not stopped:
            stop = min(n_chunks, start + batch)
            chunks = range(start, stop)
            list(pool.map(work, chunks) if n_workers > 1 else map(work, chunks))
            lo, hi = start * per_chunk, min(n_permutations, stop * per_chunk)
            hits = np.cumsum(np.abs(null[lo:hi]) >= target) + exceed
            if exceedances is not None and hits[-1] >= exceedances:
                used, stopped = lo + int(np.argmax(hits >= exceedances)) + 1, True
            exceed = int(hits[-1])
            if progress is not None:
                progress(used if stopped else hi, n_permutations)
            start, batch = stop, 2 * batch
    unit = normalising_unit(obs, normalize)
    scale = unit if "miss_rate" in (x_axis, y_axis) else unit**2
    if stopped and exceedances is not None:  # stopped implies a sequential rule
        p_value = exceedances / used
    else:
        p_value = (1.0 + exceed) / (1.0 + n_permutations)
    rule_name = f"sequential, h = {exceedances}" if exceedances is not None else "fixed"
    return PermutationTestResult(
        auucc_a=float(observed[0]) / scale,
        auucc_b=float(observed[1]) / scale,
        delta=delta / scale,
        p_value=float(p_value),
        n_permutations=used,
        null_deltas=null[:used] / scale,
        max_permutations=n_permutations,
        algorithm=f"{name}, {rule_name}",
    )

