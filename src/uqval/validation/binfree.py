"""Bin-free verdict rows of the conditional stages: cumulative tests and the isotonic MCB.

Beside the binned permutation tests (:mod:`uqval.validation.permutation`), each binning
variable x (uE in consistency, each feature in adaptivity) gets two cumulative-difference
tests (:mod:`uqval.calibration.cumulative`, Arrieta-Ibarra et al. 2022; Tygert 2021):

* ``cumulative Kuiper Z²−1``: Kuiper range of the cumulative sum of Z² − 1 in the order of x,
  about the chord (a change of the spread of Z along x, whatever its shape: a narrow range
  falls in no bin edge, a smooth trend is not diluted over many bins);
* ``cumulative Kuiper Z``: the same for Z (a bias that changes along x);

and the consistency stage gets the isotonic miscalibration test ``isotonic MCB (QLIKE)``
(:func:`uqval.calibration.isotonic.mcb_permutation_test`).

**Null distribution shared by all variables.** Under the null of the stage, Z is independent
of x, so the order that x imposes on the rows is a uniformly random permutation of Z: the
null distribution of the Kuiper statistic of Z² − 1 (or Z) is that of a randomly permuted
sequence, *the same for every variable*. One set of ``n_permutations`` shuffles (compiled
Fisher-Yates / Rao-Sandelius kernel of :mod:`uqval.validation.permutation`, SFC64 streams in
fixed chunks of :data:`uqval.validation.permutation.CHUNK`) therefore gives the exact
permutation p-value of every variable, (1 + #{T* >= T})/(n_permutations + 1), at the cost
of one test. The tests of different variables are dependent through the shared null; the
Holm adjustment over a stage is valid under any dependence.

Statistic value: Kuiper/σ with σ = sqrt(sum (d − <d>)²)/M (asymptotically Kuiper's
distribution under the null, 95 % point 1.747). Like the binned spread statistics, the
tests are unchanged by a global rescaling of uE; the rows ``scaled=False`` combine them with
the average test by :func:`uqval.validation.rules.bonferroni_pair`, as the binned rows do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numba
import numpy as np
from numpy.typing import NDArray

from uqval._internal.checks import unit_scaled
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import SeedLike
from uqval.calibration.isotonic import mcb_permutation_test
from uqval.stats.groups import GroupIndex, shuffle_exchangeable
from uqval.stats.shuffle import (
    _fisher_yates,
    _n_buckets,
    _shuffle,
    permutation_p_value,
    run_chunks,
)

__all__ = ["BINFREE_ROWS", "CUMULATIVE_BIAS", "CUMULATIVE_SPREAD", "ISOTONIC_MCB",
           "MAX_MCB_PERMUTATIONS", "binfree_subsample", "binfree_tests", "cumulative_null",
           "grouped_binfree_tests",
           "kuiper", "rows_note"]

CUMULATIVE_SPREAD = "cumulative Kuiper Z²−1"
CUMULATIVE_BIAS = "cumulative Kuiper Z"
ISOTONIC_MCB = "isotonic MCB (QLIKE)"

MAX_MCB_PERMUTATIONS = 999
"""Most permutations of the MCB test (each refits PAV: about 30 ms per permutation at M = 10^6)."""

BINFREE_ROWS = 1_000_000
"""Rows of the seeded subsample on which the bin-free tests run for larger sets (large-set
mode of the engine): each of their permutations costs O(M), 999 of them at 10^7 rows
would cost more than the whole rest of the validation (docs/choices.md)."""


def binfree_subsample(m: int, rows: int | None, seed: SeedLike) -> NDArray[np.intp] | None:
    """Sorted positions of ``rows`` of the ``m`` rows drawn without replacement from the
    value stream of ``seed``; None (all rows) when ``rows`` is None or not below ``m``.

    >>> binfree_subsample(10, None, 0) is None, binfree_subsample(10, 10, 0) is None
    (True, True)
    >>> idx = binfree_subsample(10, 4, 0)
    >>> idx.size, bool((np.diff(idx) > 0).all())
    (4, True)
    """
    if rows is None or rows >= m:
        return None
    return np.sort(value_generator(seed_sequence(seed)).choice(m, size=rows, replace=False))


def rows_note(m: int, rows: int) -> str:
    """What a verdict note says of the ``rows`` used among the ``m`` (empty with all rows).

    >>> rows_note(3_000_000, BINFREE_ROWS)
    ', on a seeded subsample of 1000000 of the 3000000 rows'
    """
    return "" if rows >= m else f", on a seeded subsample of {rows} of the {m} rows"


def large_parameters(m: int, large_rows: int, rule: str, n_boot: int, exceedances: int,
                     sequential_rows: int | None = None, joint_rows: int | None = None
                     ) -> dict[str, str]:
    """Report parameters of the engine's large-set rules: the sequential permutation rule
    above ``sequential_rows`` rows (default ``large_rows``), the joint test's subsample above
    ``joint_rows``, Student-t bin intervals and the bin-free tests' subsample above
    ``large_rows``.

    >>> large_parameters(10, 1000, "uqval", 200, 20)["subsample"]
    'none (all rows)'
    >>> large_parameters(500, 1000, "uqval", 200, 20, 100)["permutation_rule"]
    'sequential, h = 20 (more than 100 rows)'
    >>> large_parameters(500, 1000, "uqval", 200, 20, 100, 400)["subsample"]
    'joint test on a seeded subsample of 400 rows (more than 400 rows)'
    """
    large = m > large_rows
    threshold = large_rows if sequential_rows is None else min(sequential_rows, large_rows)
    parts = []
    if rule != "paper" and large and m > BINFREE_ROWS:
        parts.append(f"cumulative and isotonic MCB tests on a seeded subsample of "
                     f"{BINFREE_ROWS} rows (more than {large_rows} rows)")
    if rule != "paper" and joint_rows is not None and m > joint_rows:
        parts.append(f"joint test on a seeded subsample of {joint_rows} rows (more than "
                     f"{joint_rows} rows)")
    return {
        "permutation_rule": "fixed" if m <= threshold or rule == "paper" else
        f"sequential, h = {exceedances} (more than {threshold} rows)",
        "bin_intervals": f"Student t (more than {large_rows} rows)" if large else
        f"BCa, {n_boot} replicates per bin",
        "subsample": "; ".join(parts) or "none (all rows)",
    }


@numba.njit(nogil=True, cache=True)
def _kuiper_ranges(pairs, out):  # pragma: no cover - compiled
    """Range (max - min, 0 included) of the cumulative sums of the real and of the imaginary
    parts of ``pairs``, into out[0] and out[1]."""
    c0 = 0.0
    c1 = 0.0
    hi0 = 0.0
    lo0 = 0.0
    hi1 = 0.0
    lo1 = 0.0
    for i in range(pairs.size):
        c0 += pairs[i].real
        c1 += pairs[i].imag
        hi0 = max(hi0, c0)
        lo0 = min(lo0, c0)
        hi1 = max(hi1, c1)
        lo1 = min(lo1, c1)
    out[0] = hi0 - lo0
    out[1] = hi1 - lo1


@numba.njit(nogil=True, cache=True)
def _chunk_kuiper(pairs, n_buckets, state, out):  # pragma: no cover - compiled
    """out[r, j] = Kuiper range (0 included) of the partial sums of column j of the
    centred differences after permutation r of the rows.

    ``pairs[i]`` = d[i, 0] + 1j d[i, 1] (complex128: the row's two differences in one
    16-byte element). The rows themselves are shuffled, so the partial sums read memory in
    order; the shuffle's random choices do not depend on the values, so the order is the one
    a shuffle of the row indices would give (same permutations, same sums)."""
    m = pairs.size
    a = pairs.copy()
    b = np.empty_like(a)
    choice = np.empty(m, np.int32)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.shape[0]):
        if n_buckets == 1:
            s0, s1, s2, s3 = _fisher_yates(a, 0, m, s0, s1, s2, s3)
        else:
            s0, s1, s2, s3 = _shuffle(a, b, choice, n_buckets, s0, s1, s2, s3)
            a, b = b, a
        _kuiper_ranges(a, out[r])


def _centred(z: NDArray[np.float64]) -> NDArray[np.float64]:
    d = np.column_stack([np.square(z) - 1.0, z])
    return np.ascontiguousarray(d - d.mean(axis=0))


def kuiper(d: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kuiper range (0 included) of the partial sums of each column of centred ``d``."""
    c = np.cumsum(d, axis=0)
    return np.maximum(c.max(axis=0), 0.0) - np.minimum(c.min(axis=0), 0.0)


def cumulative_null(z: NDArray[np.float64], n_permutations: int, seed: SeedLike,
                    n_workers: int = 1,
                    done: Callable[[NDArray[np.float64]], bool] | None = None,
                    ) -> NDArray[np.float64]:
    """(n_permutations, 2) Kuiper ranges of Z² − 1 and Z over random orders (unnormalised);
    with ``done``, drawn in doubling batches of chunks until ``done(null so far)`` (the
    first rows of the full null: same chunks, same children)."""
    d = _centred(z)
    pairs = d[:, 0] + 1j * d[:, 1]  # exact: the real and imaginary parts are d's values
    buckets = _n_buckets(z.size)

    def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
        _chunk_kuiper(pairs, buckets, state, rows)

    return run_chunks(np.zeros((n_permutations, 2)), seed, n_workers, fill, done)


def binfree_tests(
    z: NDArray[np.float64], u: NDArray[np.float64], variables: Sequence[NDArray[np.float64]],
    *, n_permutations: int, seed: SeedLike, n_workers: int = 1,
    exceedances: int | None = None, max_rows: int | None = None,
) -> tuple[list[tuple[float, float, float, float]], tuple[float, float, int, int]]:
    """Cumulative tests along each variable and the MCB test along uE (module docstring).

    Returns per variable (Kuiper/σ of Z² − 1, its p-value, Kuiper/σ of Z, its p-value), and
    (MCB, p-value, permutations, rows used by every test) of the isotonic test.
    ``exceedances=h``: every test follows
    the sequential rule of Besag & Clifford (p = h/l at its h-th exceedance, l permutations;
    the first permutations of the fixed rule), as the binned tests of large sets do.
    ``max_rows``: above that many rows, every test (observed statistic and permutations)
    runs on the seeded subsample :func:`binfree_subsample` of ``max_rows`` rows, from a third
    child of ``seed`` (the first two, of the permutations, are those of the full path):
    exact permutation tests of the subsample.
    """
    cum_seed, mcb_seed, rows_seed = seed_sequence(seed).spawn(3)
    keep = binfree_subsample(z.size, max_rows, rows_seed)
    if keep is not None:
        z, u, variables = z[keep], u[keep], [x[keep] for x in variables]
    d = _centred(z)
    m = z.size
    sigma = np.sqrt(np.sum(np.square(d), axis=0)) / m
    observed = [kuiper(d[np.argsort(x, kind="stable")]) for x in variables]

    def exceeds(null: NDArray[np.float64], obs: NDArray[np.float64], j: int):
        return null[:, j] >= obs[j] * (1.0 - 1e-12)

    def done(null: NDArray[np.float64]) -> bool:
        assert exceedances is not None
        return all(sigma[j] <= 0 or np.count_nonzero(exceeds(null, obs, j)) >= exceedances
                   for obs in observed for j in range(2))

    null = cumulative_null(z, n_permutations, cum_seed, n_workers,
                           None if exceedances is None else done)
    out = []
    for obs in observed:
        row: list[float] = []
        for j in range(2):
            value = obs[j] / m / sigma[j] if sigma[j] > 0 else 0.0
            p = (permutation_p_value(exceeds(null, obs, j), n_permutations, exceedances)
                 if sigma[j] > 0 else 1.0)
            row += [float(value), float(p)]
        out.append((row[0], row[1], row[2], row[3]))
    n_mcb = min(n_permutations, MAX_MCB_PERMUTATIONS)
    # QLIKE differences do not change when E and uE share a unit; a power of two (exact)
    # keeps E^2 and uE^2 finite for values near 1e-300 or 1e300
    e_unit, u_unit, _ = unit_scaled(z * u, u)
    mcb = mcb_permutation_test(e_unit, u_unit, n_permutations=n_mcb, seed=mcb_seed,
                               exceedances=exceedances, n_workers=n_workers)
    return out, (mcb.miscalibration, mcb.p_value, mcb.n_permutations, m)



@numba.njit(nogil=True, cache=True)
def _within_kuiper(pairs, starts, strata, inner, rank, state, out):  # pragma: no cover
    """As :func:`_chunk_kuiper`, the rows permuted inside each group and whole groups of
    equal size exchanged (:func:`uqval.stats.groups.shuffle_exchangeable`): ``pairs`` in the
    order of a :class:`~uqval.stats.groups.SizeLayout` (``starts``, ``strata``), row i of
    that order goes to place ``rank[i]`` of the variable's order before the partial sums."""
    m = pairs.size
    a = pairs.copy()
    buf = np.empty_like(a)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for r in range(out.shape[0]):
        s0, s1, s2, s3 = shuffle_exchangeable(a, starts, strata, inner, s0, s1, s2, s3)
        for i in range(m):
            buf[rank[i]] = a[i]
        _kuiper_ranges(buf, out[r])


def grouped_binfree_tests(
    z: NDArray[np.float64], u: NDArray[np.float64], variables: Sequence[NDArray[np.float64]],
    groups: GroupIndex, levels: Sequence[str], *, mcb: bool, n_permutations: int,
    seed: SeedLike, n_workers: int = 1,
) -> tuple[list[tuple[float, float, float, float]], tuple[float, float, int, int]]:
    """The tests of :func:`binfree_tests` when rows come in groups (procedures as
    :func:`uqval.validation.permutation.grouped_heterogeneity_tests`, ``levels``), in the
    same record:

    * group-level variable: the groups in the order of the variable, partial sums of the
      group sums D_g of the centred differences (one step per group), Kuiper range in units
      of sqrt(sum_g D_g^2); null: the group order permuted (the compiled kernel of the
      ungrouped test, run on the G group rows);
    * variable varying inside groups: partial sums over the rows in the variable's order,
      in units of sqrt(sum d^2), Z permuted inside each group;
    * ``mcb`` (uE varies inside groups): the isotonic MCB test along uE with Z permuted
      inside each group (:func:`uqval.calibration.isotonic.mcb_permutation_test` with
      ``groups``); without it the MCB record is (NaN, NaN, 0, M) and no MCB row is made.

    Fixed ``n_permutations`` (MCB: at most :data:`MAX_MCB_PERMUTATIONS`);
    p = (1 + #{T* >= T})/(n_permutations + 1).
    """
    between_seed, within_seed, mcb_seed = seed_sequence(seed).spawn(3)
    record = (float("nan"), float("nan"), 0, z.size)
    if mcb:
        e_unit, u_unit, _ = unit_scaled(z * u, u)
        test = mcb_permutation_test(e_unit, u_unit,
                                    n_permutations=min(n_permutations, MAX_MCB_PERMUTATIONS),
                                    seed=mcb_seed, n_workers=n_workers, groups=groups)
        record = (test.miscalibration, test.p_value, test.n_permutations, z.size)
    return _grouped_cumulative(z, variables, groups, levels, n_permutations=n_permutations,
                               seeds=(between_seed, within_seed), n_workers=n_workers), record


def _grouped_cumulative(
    z: NDArray[np.float64], variables: Sequence[NDArray[np.float64]], groups: GroupIndex,
    levels: Sequence[str], *, n_permutations: int,
    seeds: tuple[np.random.SeedSequence, np.random.SeedSequence], n_workers: int,
) -> list[tuple[float, float, float, float]]:
    """The cumulative tests of :func:`grouped_binfree_tests`."""
    d = _centred(z)
    between_seed, within_seed = seeds
    dg = np.column_stack([groups.sums(d[:, 0]), groups.sums(d[:, 1])])
    heads = groups.order[groups.starts[:-1]]
    between_null = None
    if "groups exchanged" in levels:
        pairs_g = dg[:, 0] + 1j * dg[:, 1]
        buckets = _n_buckets(groups.n_groups)

        def fill(state: NDArray[np.uint64], rows: NDArray[np.float64]) -> None:
            _chunk_kuiper(pairs_g, buckets, state, rows)

        between_null = run_chunks(np.zeros((n_permutations, 2)), between_seed, n_workers, fill)
    within_children = within_seed.spawn(len(variables))
    layout = groups.size_layout()
    ds = np.ascontiguousarray(d[layout.order])
    pairs_s = ds[:, 0] + 1j * ds[:, 1]
    out = []
    for x, level, child in zip(variables, levels, within_children, strict=True):
        if level == "groups exchanged":
            assert between_null is not None
            observed = kuiper(dg[np.argsort(x[heads], kind="stable")])
            sigma = np.sqrt(np.sum(np.square(dg), axis=0))
            null = between_null
        else:
            sort = np.argsort(x, kind="stable")
            observed = kuiper(d[sort])
            sigma = np.sqrt(np.sum(np.square(d), axis=0))
            place = np.empty(z.size, dtype=np.intp)
            place[sort] = np.arange(z.size)
            rank = np.ascontiguousarray(place[layout.order])

            def fill_within(state: NDArray[np.uint64], rows: NDArray[np.float64],
                            rank=rank) -> None:
                _within_kuiper(pairs_s, layout.starts, layout.strata, layout.inner_starts,
                               rank, state, rows)

            null = run_chunks(np.zeros((n_permutations, 2)), child, n_workers, fill_within)
        row: list[float] = []
        for j in range(2):
            if sigma[j] <= 0:
                row += [0.0, 1.0]
                continue
            hits = int(np.count_nonzero(null[:, j] >= observed[j] * (1.0 - 1e-12)))
            row += [float(observed[j] / sigma[j]), (1 + hits) / (n_permutations + 1)]
        out.append((row[0], row[1], row[2], row[3]))
    return out
