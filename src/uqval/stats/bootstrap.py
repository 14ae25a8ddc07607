"""Fast BCa bootstrap for statistics of paired samples (P001 Sect. II.3; P002 Sect. II.D).

The papers only say "Bias Corrected Accelerated (BCa), DiCiccio & Efron 1996"; the
author's code uses R ``nptest::np.boot(method = "bca", level = 0.95)``, which this module
reproduces:

1. t0 = theta(x). R resamples of the row indices are drawn (pairs (E_i, uE_i) stay
   together) and the bootstrap distribution is T = {t0} U {t*_1, ..., t*_R} (R + 1 values).
2. se = sd(T) (n - 1 denominator); bias b_BS = mean(T) - t0 (reported, not corrected).
3. z0 = Phi^-1(mean(T < t0)).
4. Jackknife: theta_(i) = theta(x without point i), theta_bar their mean, and
   a = sum (theta_bar - theta_(i))^3 / (6 [sum (theta_bar - theta_(i))^2]^(3/2)).
5. alpha_k = Phi(z0 + (z0 + z_k) / (1 - a (z0 + z_k))) for z_k = Phi^-1(alpha/2),
   Phi^-1(1 - alpha/2).
6. The interval is the type-7 (numpy ``"linear"``) quantiles of T at alpha_1 and alpha_2.

Speed. A :class:`MeanStatistic` (a function of the means of a few per-point columns, e.g.
ZMS = <Z^2>, RCE from <uE^2> and <E^2>) takes the fast path: its columns are computed once,
and the compiled kernel of :mod:`uqval.stats.resample_kernel` draws each resample's indices
and sums every column over them in cache, without materialising index arrays (about 2 ns per
resampled point for one column, 3x faster than NumPy's draw, gather and sum); its jackknife
is exact and O(M) (leave-one-out means (S - x_i)/(M - 1)). A generic statistic receives
arrays of shape (B, M), drawn with NumPy, and reduces over the last axis. ``n_workers``
threads share the stream blocks (the kernel releases the GIL).

Random streams and determinism. Replicates are drawn in fixed *stream blocks* of
``max(1, 2**20 // M)`` replicates; block j draws its indices as
``Generator(SFC64(children[j])).integers(0, M, size=(rows, M))``, where ``children`` come
from ``SeedSequence(seed).spawn(n_blocks)`` (the kernel reproduces this stream exactly, so
the generic path and the fast path see the same resamples). The replicates therefore
depend only on (seed, M, n_boot), never on ``chunk_size`` (which only limits how many
replicates a generic statistic sees per call) nor on ``n_workers``. A generic block holds
at most 2**20 indices (8 MiB), so peak memory stays bounded whatever M and n_boot.

All bins of a binning. :func:`bca_bootstrap_bins` bootstraps a mean statistic in every bin
(bin i from its own seed) with the stream blocks of all bins in one thread pool; each bin's
result is identical to a :func:`bca_bootstrap` call on that bin.

Several mean statistics on the same resamples. :func:`bca_bootstrap_means` draws the stream
blocks once and evaluates several :class:`MeanStatistic` objects on them (e.g. ZMS and RCE,
as the author's code does with one ``np.boot`` call returning both). Each distinct column is
summed once (ZMS needs Z^2, RCE and RCE2 share uE^2 and E^2); every statistic gets
bit-for-bit the replicates and interval that :func:`bca_bootstrap` gives with the same seed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import MAX_RESAMPLES, integer, probability
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import StreamBlock, stream_blocks, value_generator
from uqval._internal.types import SeedLike
from uqval.stats.bca import accelerations, bca_limits
from uqval.stats.resample_kernel import draw_counts, resampled_sums

__all__ = [
    "BootstrapResult",
    "MeanStatistic",
    "bca_bootstrap",
    "bca_bootstrap_bins",
    "bca_bootstrap_means",
    "bca_bootstrap_means_sets",
    "group_jackknife_groups",
    "group_jackknife_values",
    "jackknife_values",
]

_JACKKNIFE_ELEMENTS = 1 << 22  # elements per chunk of the generic jackknife

Statistic = Callable[..., ArrayLike]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class MeanStatistic:
    """A statistic theta = combine(<c_1>, ..., <c_k>) of the means of per-point columns.

    Attributes:
        columns: maps the data arrays to the k per-point columns c_j (elementwise
            functions of the data, so they also work on stacked resamples).
        combine: maps an array of means with trailing axis of length k to the statistic
            (any leading axes are replicate axes).

    Calling the object evaluates the statistic on arrays of shape (..., M), reducing over
    the last axis, so it can also be used as a generic statistic.
    """

    columns: Callable[..., Sequence[NDArray[np.float64]]]
    combine: Callable[[NDArray[np.float64]], ArrayLike]

    def column_matrix(self, *data: NDArray) -> NDArray[np.float64]:
        """Per-point columns stacked as an array of shape (..., k, M)."""
        return np.stack(np.broadcast_arrays(*self.columns(*data)), axis=-2).astype(np.float64)

    def __call__(self, *data: NDArray) -> NDArray[np.float64]:
        return np.asarray(self.combine(self.column_matrix(*data).mean(axis=-1)))


@dataclass(frozen=True)
class BootstrapResult:
    """Outcome of :func:`bca_bootstrap` (fields as in ``nptest::np.boot``).

    Attributes:
        estimate: t0, the statistic on the full data.
        bias: b_BS = mean(T) - t0 over the R + 1 values of T (not corrected for).
        se: sd(T).
        ci_low, ci_high: BCa interval limits.
        n_boot: number R of bootstrap replicates.
        confidence: confidence level of the interval.
        z0: bias-correction constant Phi^-1(mean(T < t0)).
        acceleration: jackknife acceleration a.
        replicates: the R bootstrap values t*_1..t*_R (T without t0).

    Examples:
        >>> import numpy as np
        >>> from uqval import bca_bootstrap
        >>> x = np.random.default_rng(0).normal(10.0, 2.0, 400)
        >>> res = bca_bootstrap((x,), lambda s: s.mean(axis=-1), n_boot=500, seed=0)
        >>> res.n_boot, res.replicates.shape, round(res.se, 2)  # se close to 2/sqrt(400)
        (500, (500,), 0.1)
    """

    estimate: float
    bias: float
    se: float
    ci_low: float
    ci_high: float
    n_boot: int
    confidence: float
    z0: float
    acceleration: float
    replicates: NDArray[np.float64] = field(repr=False, compare=False)


def _validate_data(data: Sequence[ArrayLike]) -> tuple[NDArray, ...]:
    if len(data) == 0:
        raise ValueError("data must contain at least one array")
    arrays = tuple(np.asarray(a) for a in data)
    if any(a.ndim != 1 for a in arrays):
        raise ValueError(f"data arrays must be 1-D, got shapes {[a.shape for a in arrays]}")
    sizes = {a.size for a in arrays}
    if len(sizes) != 1:
        raise ValueError(f"data arrays must have the same length, got {sorted(sizes)}")
    if arrays[0].size < 2:
        raise ValueError("data arrays must hold at least 2 points")
    return arrays


def _tracked(work: Callable, total: int, progress: Progress | None) -> Callable:
    """``work(task)`` as ``run(task, size)``, reporting (replicates done, total) after each."""
    done, lock = [0], threading.Lock()

    def run(task: object, size: int) -> None:
        work(task)
        if progress is not None:
            with lock:
                done[0] += size
                progress(done[0], total)

    return run


def _run_blocks(
    work: Callable[[StreamBlock], None],
    blocks: list[StreamBlock],
    n_workers: int,
    progress: Progress | None = None,
) -> None:
    """Apply ``work`` to every block in ``n_workers`` threads (numpy releases the GIL).

    Several blocks are processed in worker threads even when n_workers = 1: in the main
    thread, glibc's allocator kept returning the generic path's 8 MiB index blocks to the
    OS and faulting them in again (about 1000 page faults per block, +50% run time measured
    for M = 36150, 10^4 replicates); worker-thread arenas do not show this.
    """
    sizes = [b.size for b in blocks]
    run = _tracked(work, sum(sizes), progress)
    if len(blocks) == 1:
        run(blocks[0], sizes[0])
        return
    with ThreadPoolExecutor(max_workers=n_workers) as pool:
        list(pool.map(run, blocks, sizes))


def _check_replicate_values(values: ArrayLike, n: int) -> NDArray[np.float64]:
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (n,):
        raise ValueError(
            f"statistic returned shape {out.shape} for {n} stacked samples; it must reduce "
            "over the last axis and return one value per sample"
        )
    return out


def _mean_replicates(
    statistic: MeanStatistic,
    columns: NDArray[np.float64],
    blocks: list[StreamBlock],
    n_boot: int,
    n_workers: int,
    progress: Progress | None,
) -> NDArray[np.float64]:
    means = _resampled_sums(columns, blocks, n_boot, n_workers, progress) / columns.shape[1]
    return _check_replicate_values(statistic.combine(means), n_boot)


def _generic_replicates(
    statistic: Statistic,
    arrays: tuple[NDArray, ...],
    blocks: list[StreamBlock],
    n_boot: int,
    chunk_size: int | None,
    n_workers: int,
    progress: Progress | None,
) -> NDArray[np.float64]:
    out = np.empty(n_boot)
    m = arrays[0].size
    from_counts = getattr(statistic, "from_counts", None)

    def work(block: StreamBlock) -> None:
        # a statistic of the draw multiplicities gets the counts of the same resamples,
        # drawn by the compiled kernel without index arrays (resample_kernel.draw_counts)
        draws = block.indices(m) if from_counts is None else draw_counts(block.seed, m, block.size)
        step = block.size if chunk_size is None else chunk_size
        for lo in range(0, block.size, step):
            sub = draws[lo : lo + step]
            values = statistic(*(a[sub] for a in arrays)) if from_counts is None else from_counts(sub)
            start = block.start + lo
            out[start : start + sub.shape[0]] = _check_replicate_values(values, sub.shape[0])

    _run_blocks(work, blocks, n_workers, progress)
    return out


def _mean_jackknife(statistic: MeanStatistic, columns: NDArray[np.float64]) -> NDArray[np.float64]:
    """Exact leave-one-out values of a mean statistic in O(k M).

    The leave-one-out sums S - x_i are formed as prefix + suffix sums (no subtraction), so
    a single huge value cannot wipe out the others by cancellation.
    """
    m = columns.shape[1]
    zeros = np.zeros((columns.shape[0], 1))
    prefix = np.concatenate([zeros, np.cumsum(columns, axis=1)[:, :-1]], axis=1)
    suffix = np.concatenate([np.cumsum(columns[:, ::-1], axis=1)[:, ::-1][:, 1:], zeros], axis=1)
    loo_means = (prefix + suffix) / (m - 1)
    return _check_replicate_values(statistic.combine(loo_means.T), m)


def _generic_jackknife(statistic: Statistic, arrays: tuple[NDArray, ...]) -> NDArray[np.float64]:
    """Leave-one-out values by direct evaluation, in chunks of stacked (M - 1)-samples."""
    m = arrays[0].size
    base = np.arange(m - 1)
    rows = max(1, _JACKKNIFE_ELEMENTS // (m - 1))
    out = np.empty(m)
    for start in range(0, m, rows):
        left_out = np.arange(start, min(start + rows, m))
        idx = base + (base >= left_out[:, None])
        values = statistic(*(a[idx] for a in arrays))
        out[start : start + left_out.size] = _check_replicate_values(values, left_out.size)
    return out


def jackknife_values(data: Sequence[ArrayLike], statistic: Statistic) -> NDArray[np.float64]:
    """Leave-one-out values theta_(i) = theta(x without point i), i = 1..M.

    Exact O(M) formula for a :class:`MeanStatistic`; otherwise M evaluations on stacked
    (M - 1)-point samples (O(M^2) work, chunked to bound memory).
    """
    arrays = _validate_data(data)
    if isinstance(statistic, MeanStatistic):
        return _mean_jackknife(statistic, statistic.column_matrix(*arrays))
    return _generic_jackknife(statistic, arrays)


def group_jackknife_groups(m: int, n_groups: int) -> list[NDArray[np.intp]]:
    """A fixed random partition of M points into ``n_groups`` groups of sizes differing by
    at most one (drawn from ``SeedSequence([m, n_groups])``: the same partition every time)."""
    if not 2 <= n_groups <= m:
        raise ValueError(f"n_groups must lie in [2, M = {m}], got {n_groups}")
    order = value_generator(np.random.SeedSequence([m, n_groups])).permutation(m)
    return [np.sort(g) for g in np.array_split(order, n_groups)]


def group_jackknife_values(
    statistic: Callable[[NDArray[np.intp]], float], m: int, n_groups: int
) -> NDArray[np.float64]:
    """Delete-a-group jackknife values theta_(g) = theta(points not in group g), g = 1..G.

    For large M, where M leave-one-out evaluations of a statistic without an O(M) closed
    form cost O(M^2), the BCa acceleration is estimated from G groups instead (grouped
    jackknife, Efron & Tibshirani 1993, Sect. 11.5): with U_g the influence of group g, to
    first order theta - theta_(g) is proportional to the sum of the influences of its
    points, and a = sum d_g^3 / (6 (sum d_g^2)^(3/2)), d_g = mean(theta_(.)) - theta_(g),
    estimates the same acceleration as the leave-one-out formula (the group sizes cancel),
    with a relative error of order 1/sqrt(G).

    Args:
        statistic: maps the sorted indices of the points kept (1-D) to the statistic.
        m: number of points M.
        n_groups: number G of groups (partition of :func:`group_jackknife_groups`).
    """
    everything = np.ones(m, dtype=bool)
    values = np.empty(n_groups)
    for g, group in enumerate(group_jackknife_groups(m, n_groups)):
        everything[group] = False
        values[g] = float(statistic(np.flatnonzero(everything)))
        everything[group] = True
    return values


def _results(
    t0: Sequence[float],
    boots: Sequence[NDArray[np.float64]],
    jacks: Sequence[NDArray[np.float64]],
    confidence: float,
) -> list[BootstrapResult]:
    """BCa results of several statistics (:func:`uqval.stats.bca.bca_limits` on the rows of
    equal replicate count at once)."""
    acc = np.empty(len(jacks))
    for size in {j.size for j in jacks}:
        rows = [i for i, j in enumerate(jacks) if j.size == size]
        acc[rows] = accelerations(np.stack([jacks[i] for i in rows]))
    out: list[BootstrapResult | None] = [None] * len(boots)
    for r in sorted({b.size for b in boots}):
        rows = [i for i, b in enumerate(boots) if b.size == r]
        lim = bca_limits(np.array([t0[i] for i in rows]), np.stack([boots[i] for i in rows]),
                         acc[rows], confidence)
        for k, i in enumerate(rows):
            out[i] = BootstrapResult(
                estimate=t0[i], bias=float(lim.bias[k]), se=float(lim.se[k]),
                ci_low=float(lim.ci_low[k]), ci_high=float(lim.ci_high[k]), n_boot=r,
                confidence=confidence, z0=float(lim.z0[k]),
                acceleration=float(lim.acceleration[k]), replicates=boots[i],
            )
    return cast(list[BootstrapResult], out)


def _bca(
    t0: float, boot: NDArray[np.float64], jack: NDArray[np.float64], confidence: float
) -> BootstrapResult:
    return _results([t0], [boot], [jack], confidence)[0]


def bca_bootstrap(
    data: Sequence[ArrayLike],
    statistic: Statistic,
    *,
    n_boot: int = 10_000,
    seed: SeedLike = None,
    confidence: float = 0.95,
    chunk_size: int | None = None,
    jackknife: ArrayLike | None = None,
    n_workers: int = 1,
    progress: Progress | None = None,
) -> BootstrapResult:
    """BCa bootstrap interval of a statistic of paired samples (``nptest::np.boot`` "bca").

    Algorithm in the module docstring (P001 Sect. II.3, Table 4 uses n_boot = 10^4; replicate
    counts elsewhere: see docs/choices.md, "Bootstrap replicates").

    Args:
        data: 1-D arrays of equal length M >= 2, resampled together by row (e.g. (E, uE)).
        statistic: a :class:`MeanStatistic` (fast path) or a callable taking the data
            arrays with a leading replicate axis, shape (B, M), reducing over the last
            axis and returning shape (B,). It is also called on the 1-D data for t0. A
            callable with a ``from_counts(counts)`` method gets, instead of the resampled
            arrays, the int64 (B, M) multiplicities of the data rows in each resample (the
            same resamples, without index arrays); it must return what the call on those
            rows would.
        n_boot: number R of bootstrap replicates.
        seed: int or None (a fresh ``SeedSequence(seed)``), or a ``SeedSequence``, which is
            spawned from, so repeated calls with the same object get independent streams.
        confidence: confidence level of the interval.
        chunk_size: maximum number of replicates passed to a generic statistic per call
            (memory knob; capped by the stream-block size, no effect on the result).
        jackknife: precomputed leave-one-out values theta_(i) (length M), or
            delete-a-group values theta_(g) (any length G >= 2: theta without the points
            of group g of a partition, e.g. :func:`group_jackknife_values`); computed with
            :func:`jackknife_values` when omitted. Either gives the acceleration by the
            formula of step 4.
        n_workers: threads drawing and evaluating stream blocks in parallel (no effect on
            the result). A generic statistic must then be thread-safe.
        progress: called as ``progress(replicates done, n_boot)`` after each stream block
            (from worker threads, one call at a time).

    Returns:
        A :class:`BootstrapResult`. Special cases (documented deviations from
        ``np.boot``, which would fail):

        * all R + 1 values of T equal t0 (to within 8 ulp), e.g. constant data: bias 0,
          se 0, interval [t0, t0], z0 and acceleration NaN;
        * constant jackknife values: acceleration 0;
        * t0 below or above every replicate (z0 infinite): interval limits NaN.

    Examples:
        ZMS (a :class:`MeanStatistic`), then a generic statistic (the median of E):

        >>> import numpy as np
        >>> from uqval import bca_bootstrap
        >>> from uqval.stats.zscore_statistics import ZMS
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> res = bca_bootstrap((e, u), ZMS, n_boot=500, seed=1)
        >>> round(res.estimate, 3), round(res.ci_low, 3), round(res.ci_high, 3)
        (1.052, 0.978, 1.156)
        >>> res = bca_bootstrap((e,), lambda x: np.median(x, axis=-1), n_boot=500, seed=1)
        >>> round(res.estimate, 2), round(res.ci_low, 2), round(res.ci_high, 2)
        (-0.01, -0.1, 0.13)
    """
    arrays = _validate_data(data)
    n_boot = integer(n_boot, "n_boot", minimum=1, maximum=MAX_RESAMPLES)
    probability(confidence)
    if chunk_size is not None:
        chunk_size = integer(chunk_size, "chunk_size", minimum=1)
    n_workers = integer(n_workers, "n_workers", minimum=1)
    t0 = float(np.asarray(statistic(*arrays)))
    if not np.isfinite(t0):
        raise ValueError(f"statistic of the full data is not finite ({t0})")
    blocks = stream_blocks(seed, n_boot, arrays[0].size)
    if isinstance(statistic, MeanStatistic):
        columns = statistic.column_matrix(*arrays)
        boot = _mean_replicates(statistic, columns, blocks, n_boot, n_workers, progress)
    else:
        boot = _generic_replicates(
            statistic, arrays, blocks, n_boot, chunk_size, n_workers, progress
        )
    if jackknife is None:
        jack = jackknife_values(arrays, statistic)
    else:
        jack = np.asarray(jackknife, dtype=np.float64)
        if jack.ndim != 1 or not 2 <= jack.size <= arrays[0].size:
            raise ValueError(
                f"jackknife must hold 2 to {arrays[0].size} values (leave-one-out or "
                f"delete-a-group), got shape {jack.shape}"
            )
    return _bca(t0, boot, jack, confidence)


def _distinct_columns(
    matrices: Sequence[NDArray[np.float64]],
) -> tuple[NDArray[np.float64], list[NDArray[np.intp]]]:
    """Stack the distinct rows (columns c_j) of several (k_s, M) column matrices.

    Returns the (U, M) matrix of distinct columns and, for each input matrix, the positions
    of its k_s columns in it. Columns are matched by their bytes (exact equality).
    """
    distinct: dict[bytes, int] = {}
    columns: list[NDArray[np.float64]] = []
    positions = []
    for matrix in matrices:
        where = []
        for col in matrix:
            key = np.ascontiguousarray(col, dtype=np.float64).tobytes()
            if key not in distinct:
                distinct[key] = len(columns)
                columns.append(col)
            where.append(distinct[key])
        positions.append(np.array(where, dtype=np.intp))
    return np.stack(columns), positions


def _resampled_sums(
    columns: NDArray[np.float64],
    blocks: list[StreamBlock],
    n_boot: int,
    n_workers: int,
    progress: Progress | None = None,
    single: bool = False,
) -> NDArray[np.float64]:
    """Sums of every column (rows of ``columns``) over each resample, shape (n_boot, U)."""
    sums = np.empty((n_boot, columns.shape[0]))

    def work(block: StreamBlock) -> None:
        resampled_sums(columns, block.seed, sums[block.start : block.start + block.size], single)

    _run_blocks(work, blocks, n_workers, progress)
    return sums


def bca_bootstrap_means(
    data: Sequence[ArrayLike],
    statistics: Mapping[str, MeanStatistic],
    *,
    n_boot: int,
    seed: SeedLike,
    confidence: float = 0.95,
    n_workers: int = 1,
    progress: Progress | None = None,
) -> dict[str, BootstrapResult]:
    """BCa intervals of several mean statistics from one set of bootstrap resamples.

    Same algorithm as :func:`bca_bootstrap` (module docstring; P001 Sect. II.3), but the row indices
    are drawn once and shared by all statistics, as in the author's code where one ``np.boot`` call
    bootstraps ZMS and RCE together (P001 Fig. 5, Eq. 21). Each distinct per-point column is summed
    once; each statistic gets its exact O(M) jackknife. For every statistic the result is identical
    (same replicates, same interval) to ``bca_bootstrap(data, statistic, n_boot=n_boot, seed=seed)``
    with an int seed, because the index stream is the same.

    Args:
        data: 1-D arrays of equal length M >= 2, resampled together by row (e.g. (E, uE)).
        statistics: names mapped to :class:`MeanStatistic` objects (e.g. ``{"ZMS": ZMS,
            "RCE": RCE}``).
        n_boot: number R of bootstrap replicates.
        seed: int or None (a fresh ``SeedSequence(seed)``), or a ``SeedSequence``, which is
            spawned from.
        confidence: confidence level of the intervals.
        n_workers: threads drawing and summing stream blocks (no effect on the result).
        progress: ``progress(replicates done, n_boot)`` after each stream block.

    Returns:
        A :class:`BootstrapResult` per name, in the order of ``statistics`` (special cases
        as in :func:`bca_bootstrap`).
    """
    return bca_bootstrap_means_sets(
        [data],
        statistics,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        n_workers=n_workers,
        progress=progress,
    )[0]


def bca_bootstrap_means_sets(
    sets: Sequence[Sequence[ArrayLike]],
    statistics: Mapping[str, MeanStatistic],
    *,
    n_boot: int,
    seed: SeedLike,
    confidence: float = 0.95,
    n_workers: int = 1,
    progress: Progress | None = None,
    single_precision_sums: bool = False,
) -> list[dict[str, BootstrapResult]]:
    """:func:`bca_bootstrap_means` of several data sets of equal size on common resamples.

    Every set is resampled with the same row indices (common random numbers), so the
    indices are drawn once for all sets and the distinct per-point columns of all sets
    (a column shared by several sets, such as a fixed uE^2, once) are summed in one pass of the compiled kernel (with 8 columns or more, one matrix product
    of the draw counts with the columns). This is the Monte Carlo design of P001 Fig. 5 in uqval: the sets of
    one repeat at the different nu share their bootstrap resamples; each p_val(nu) keeps
    the distribution it has with independent resamples, only the estimates at different nu
    become positively correlated (a smoother curve).

    For each set the result is that of
    ``bca_bootstrap_means(set, statistics, n_boot=n_boot, seed=seed)``: the same
    resamples, the same replicates to rounding (bit for bit below 8 columns in all).

    Args:
        sets: data sets, each as in :func:`bca_bootstrap_means` (1-D arrays of one length
            M >= 2, resampled together by row); all sets must have the same M.
        statistics, n_boot, seed, confidence, n_workers, progress: as in
            :func:`bca_bootstrap_means`.
        single_precision_sums: with 8 distinct columns or more, sum them over the resamples
            in float32 (:mod:`uqval.stats.resample_kernel`; a relative 10^-6 or so, for
            simulation studies whose Monte Carlo error is far larger); the estimates and
            jackknife stay float64.

    Returns:
        One dict per set, in the order of ``sets``.
    """
    if not sets:
        raise ValueError("sets must hold at least one data set")
    all_arrays = [_validate_data(data) for data in sets]
    sizes = {arrays[0].size for arrays in all_arrays}
    if len(sizes) != 1:
        raise ValueError(f"all sets must have the same number of points, got {sorted(sizes)}")
    if not statistics:
        raise ValueError("statistics must hold at least one statistic")
    if not all(isinstance(s, MeanStatistic) for s in statistics.values()):
        raise TypeError("bca_bootstrap_means needs MeanStatistic objects; use bca_bootstrap")
    n_boot = integer(n_boot, "n_boot", minimum=1)
    probability(confidence)
    n_workers = integer(n_workers, "n_workers", minimum=1)
    m = sizes.pop()
    per_set = []
    for arrays in all_arrays:
        matrices = {name: s.column_matrix(*arrays) for name, s in statistics.items()}
        t0 = {
            name: float(np.asarray(s.combine(matrices[name].mean(axis=-1))))
            for name, s in statistics.items()
        }
        for name, value in t0.items():
            if not np.isfinite(value):
                raise ValueError(f"statistic {name!r} of the full data is not finite ({value})")
        per_set.append((matrices, t0))
    # the distinct columns of all sets (e.g. the fixed uE^2 shared by the sets of all nu)
    stacked, positions = _distinct_columns([mat for matrices, _ in per_set for mat in matrices.values()])
    blocks = stream_blocks(seed, n_boot, m)
    means = _resampled_sums(stacked, blocks, n_boot, n_workers, progress,
                            single=single_precision_sums) / m
    keys, t0s, boots, jacks = [], [], [], []
    where = iter(positions)
    for k, (matrices, t0) in enumerate(per_set):
        for name, stat in statistics.items():
            keys.append((k, name))
            t0s.append(t0[name])
            boots.append(_check_replicate_values(stat.combine(means[:, next(where)]), n_boot))
            jacks.append(_mean_jackknife(stat, matrices[name]))
    out: list[dict[str, BootstrapResult]] = [{} for _ in per_set]
    for (k, name), result in zip(keys, _results(t0s, boots, jacks, confidence), strict=True):
        out[k][name] = result
    return out


BinStatistic = MeanStatistic | Callable[[tuple[NDArray, ...]], MeanStatistic]


def bca_bootstrap_bins(
    data: Sequence[ArrayLike],
    statistic: BinStatistic,
    bins: Sequence[ArrayLike],
    *,
    n_boot: int | Sequence[int],
    seed: SeedLike | Sequence[np.random.SeedSequence],
    confidence: float = 0.95,
    n_workers: int = 1,
    progress: Progress | None = None,
) -> list[BootstrapResult]:
    """BCa intervals of a mean statistic in every bin of a binning, in one pass.

    Same algorithm as :func:`bca_bootstrap` (module docstring; P001 Sect. II.3), applied to
    the rows of each bin; the stream blocks of all bins go to one pool of ``n_workers``
    threads, so many small bins are processed in parallel. The result for bin i is
    identical (same replicates, same interval) to
    ``bca_bootstrap([a[bins[i]] for a in data], statistic_i, n_boot=n_boot_i, seed=seeds[i])``.

    Args:
        data: 1-D arrays of equal length M, resampled together by row within each bin.
        statistic: a :class:`MeanStatistic` used in every bin, or a function building one
            from the bin's data arrays (e.g. a variance centred on the bin mean).
        bins: integer row indices of each bin (at least 2 rows each).
        n_boot: replicates, one count for all bins or one per bin.
        seed: int or None (bin i uses child i of ``SeedSequence(seed).spawn(len(bins))``),
            a ``SeedSequence`` (spawned from likewise), or one ``SeedSequence`` per bin.
        confidence: confidence level of the intervals.
        n_workers: threads (no effect on the result).
        progress: ``progress(replicates done, total over all bins)`` after each stream block.

    Returns:
        One :class:`BootstrapResult` per bin, in the order of ``bins``.
    """
    arrays = tuple(np.asarray(a) for a in data)
    probability(confidence)
    n_workers = integer(n_workers, "n_workers", minimum=1)
    if np.ndim(n_boot) == 0:
        counts = [integer(n_boot, "n_boot", minimum=1)] * len(bins)
    else:
        counts = [integer(r, "n_boot", minimum=1) for r in cast(Sequence[int], n_boot)]
    if len(counts) != len(bins):
        raise ValueError(
            f"n_boot must be one integer or one per bin, got {len(counts)} for {len(bins)} bins"
        )
    if isinstance(seed, Sequence):
        seeds = list(seed)
        if len(seeds) != len(bins):
            raise ValueError(f"seed holds {len(seeds)} seeds for {len(bins)} bins")
    else:
        seeds = seed_sequence(seed).spawn(len(bins))
    prepared = []
    tasks: list[tuple[NDArray[np.float64], StreamBlock, NDArray[np.float64]]] = []
    for index, r, child in zip(bins, counts, seeds, strict=True):
        sample = _validate_data([a[np.asarray(index)] for a in arrays])
        stat = statistic if isinstance(statistic, MeanStatistic) else statistic(sample)
        columns = stat.column_matrix(*sample)
        t0 = float(np.asarray(stat.combine(columns.mean(axis=-1))))
        if not np.isfinite(t0):
            raise ValueError(f"statistic of a bin is not finite ({t0})")
        sums = np.empty((r, columns.shape[0]))
        tasks += [(columns, b, sums) for b in stream_blocks(child, r, sample[0].size)]
        prepared.append((stat, columns, t0, sums))

    def work(task: tuple[NDArray[np.float64], StreamBlock, NDArray[np.float64]]) -> None:
        columns, block, sums = task
        resampled_sums(columns, block.seed, sums[block.start : block.start + block.size])

    sizes = [task[1].size for task in tasks]
    run = _tracked(work, sum(sizes), progress)
    if n_workers == 1:
        list(map(run, tasks, sizes))
    else:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            list(pool.map(run, tasks, sizes))
    boots = [_check_replicate_values(stat.combine(sums / columns.shape[1]), r)
             for (stat, columns, _, sums), r in zip(prepared, counts, strict=True)]
    jacks = [_mean_jackknife(stat, columns) for stat, columns, _, _ in prepared]
    return _results([t0 for _, _, t0, _ in prepared], boots, jacks, confidence)
