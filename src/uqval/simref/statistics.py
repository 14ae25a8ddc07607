"""Statistics of the simulated-reference method and their evaluation in the uE-sorted frame
(simref paper P002 Sects. II.B-C, Eqs. 11, 14, 17, 18).

* **ZMS** = <Z^2>, Z = E/uE (Eq. 14), known reference 1;
* **CC** = Spearman rank correlation of abs(E) and uE (Eq. 18), average ranks for ties;
* **ENCE** (Eq. 11) and **ZMSE** (Eq. 17) on N equal-size bins of the data sorted by uE
  (:func:`uqval.binning.equal_count_boundaries`).

Because uE is fixed, the data are put once in uE-sorted order (:class:`SortedFrame`): the bins
are fixed, ZMS/ENCE/ZMSE of a simulated set are per-bin sums in that order (all statistics in
one pass, :func:`sorted_batch_table`) and CC needs the ranks of abs(E*) (compiled distribution
sort, exact integer numerator: :mod:`uqval.stats.rank_kernel`). The BCa
bootstrap of CC, ENCE and ZMSE (:func:`bootstrap_statistic`) re-sorts each resample by uE in the
authors' manner, in O(M) per resample from its multiplicities (see :mod:`uqval.simref`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties, integer
from uqval._internal.types import FloatArray, SeedLike
from uqval.binning import equal_count_boundaries
from uqval.calibration.local import rce_values
from uqval.stats.bootstrap import (
    BootstrapResult,
    bca_bootstrap,
    group_jackknife_values,
)
from uqval.stats.rank_kernel import rank_weight_sums, resample_rank_correlation
from uqval.stats.resample_kernel import resorted_bin_sums
from uqval.stats.zscore_statistics import ZMS

__all__ = [
    "DEFAULT_N_BOOT",
    "KNOWN_REFERENCES",
    "STATISTIC_NAMES",
    "SimRefStatistic",
    "as_statistic",
    "bootstrap_statistic",
]

StatName = Literal["ZMS", "CC", "ENCE", "ZMSE"]


STATISTIC_NAMES: tuple[str, ...] = ("ZMS", "CC", "ENCE", "ZMSE")


KNOWN_REFERENCES: dict[str, float] = {"ZMS": 1.0}


"""Statistics with a predefined reference value (P002 Eq. 14); the others have none."""


DEFAULT_N_BOOT = 5000  # authors' code; docs/choices.md, "Bootstrap replicates"


_COUNT_ELEMENTS = 1 << 18  # positions per sub-chunk of a resample evaluation

_CACHE_ELEMENTS = 1 << 16  # errors per sub-block of simulated sets (512 KiB: stays in L2)


@dataclass(frozen=True)
class SimRefStatistic:
    """One statistic of P002: ``"ZMS"``, ``"CC"``, or ``"ENCE"``/``"ZMSE"`` with ``n_bins``.

    Methods evaluate it on a single set (:meth:`value`) or on many error sets sharing one
    uncertainty vector (:meth:`batch`, the simulated-reference use case).
    """

    name: StatName
    n_bins: int | None = None

    def __post_init__(self) -> None:
        if self.name not in STATISTIC_NAMES:
            raise ValueError(f"unknown statistic {self.name!r}; use one of {STATISTIC_NAMES}")
        binned = self.name in ("ENCE", "ZMSE")
        if binned and self.n_bins is None:
            raise ValueError(f"{self.name} needs n_bins (an integer >= 1), got None")
        if binned:
            integer(self.n_bins, f"n_bins of {self.name}", minimum=1)
        if not binned and self.n_bins is not None:
            raise ValueError(f"{self.name} takes no n_bins")

    @property
    def reference(self) -> float | None:
        """Predefined reference value (1 for ZMS), or None."""
        return KNOWN_REFERENCES.get(self.name)

    @property
    def label(self) -> str:
        """``"ZMS"``, ``"CC"``, ``"ENCE(N=20)"``..."""
        return self.name if self.n_bins is None else f"{self.name}(N={self.n_bins})"

    def value(self, errors: ArrayLike, uncertainties: ArrayLike) -> float:
        """The statistic of one set (ties in abs(E) or uE get average ranks for CC)."""
        e, ue = errors_uncertainties(errors, uncertainties)
        frame = SortedFrame(ue)
        return float(ResampleStatistic(self, e[frame.order], frame)(np.arange(e.size)))

    def batch(self, errors: ArrayLike, uncertainties: ArrayLike) -> FloatArray:
        """The statistic of many error sets with the same uncertainties.

        Args:
            errors: E, shape (n_sets, M), columns in the order of ``uncertainties``.
            uncertainties: uE, shape (M,), shared by all rows (bins computed once from it).

        Returns:
            shape (n_sets,). CC assumes no ties in abs(E) within a row (true for continuous
            simulated errors); use :meth:`value` for data with ties.
        """
        e = np.asarray(errors, dtype=np.float64)
        zeros = np.zeros_like(uncertainties, dtype=float)
        frame = SortedFrame(errors_uncertainties(zeros, uncertainties)[1])
        if e.ndim != 2 or e.shape[1] != frame.m:
            raise ValueError(f"errors must have shape (n_sets, {frame.m}), got {e.shape}")
        return sorted_batch_values(self, e[:, frame.order], frame)


def as_statistic(spec: SimRefStatistic | str, n_bins: int | None = None) -> SimRefStatistic:
    """Coerce ``"ZMS"``, ``"CC"``, ``("ENCE", n)``-like specs to a :class:`SimRefStatistic`.

    ``"ENCE"``/``"ZMSE"`` take ``n_bins``; ``"ENCE20"`` is also accepted.
    """
    if isinstance(spec, SimRefStatistic):
        return spec
    if isinstance(spec, tuple):
        return SimRefStatistic(spec[0], spec[1] if len(spec) > 1 else n_bins)
    name = str(spec)
    for base in ("ENCE", "ZMSE"):
        if name.startswith(base) and name[len(base) :].isdigit():
            return SimRefStatistic(base, int(name[len(base) :]))
    # An unknown name is refused by SimRefStatistic.__post_init__ (ValueError naming it).
    return SimRefStatistic(cast(StatName, name), n_bins if name in ("ENCE", "ZMSE") else None)


class SortedFrame:
    """A fixed uncertainty vector in uE-sorted order (stable sort: ties keep file order)."""

    def __init__(self, uE: FloatArray) -> None:
        self.order = np.argsort(uE, kind="stable")
        self.u = uE[self.order]
        self.m = self.u.size
        self._edges: dict[int, NDArray[np.intp]] = {}
        self._rank_c: FloatArray | None = None
        self._rank2: NDArray[np.int64] | None = None
        self._mv: dict[int, FloatArray] = {}
        self._norm: float | None = None

    def prepare(self, stats_: Sequence[SimRefStatistic]) -> None:
        """Compute the cached quantities ``stats_`` need now (before threads share the frame)."""
        for stat in stats_:
            if stat.name == "CC":
                self.cc_norm()
                self.doubled_centred_ranks()
            elif stat.n_bins is not None and stat.n_bins <= self.m:
                self.bin_mv(stat.n_bins)

    def edges(self, n_bins: int) -> NDArray[np.intp]:
        if n_bins not in self._edges:
            self._edges[n_bins] = equal_count_boundaries(self.m, n_bins).astype(np.intp)
        return self._edges[n_bins]

    def bins(self, n_bins: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """(first sorted position, size) of each of the ``n_bins`` equal-size bins."""
        edges = self.edges(n_bins)
        return edges[:-1], np.diff(edges)

    def bin_mv(self, n_bins: int) -> FloatArray:
        """MV_b = <uE^2>_b of each bin (fixed: computed once per bin count)."""
        if n_bins not in self._mv:
            starts, counts = self.bins(n_bins)
            self._mv[n_bins] = np.add.reduceat(np.square(self.u), starts, axis=-1) / counts
        return self._mv[n_bins]

    def cc_norm(self) -> float:
        """sqrt(M (M^2 - 1)/12) sqrt(sum ru^2): the denominator of CC without ties in abs(E)."""
        if self._norm is None:
            ru = self.centred_ranks()
            self._norm = math.sqrt(self.m * (self.m * self.m - 1.0) / 12.0) * math.sqrt(
                float(ru @ ru)
            )
        return self._norm

    def doubled_centred_ranks(self) -> NDArray[np.int64]:
        """2 x the centred average ranks of uE: integers (average ranks are multiples of 1/2)."""
        if self._rank2 is None:
            self._rank2 = np.rint(2.0 * self.centred_ranks()).astype(np.int64)
        return self._rank2

    def centred_ranks(self) -> FloatArray:
        """Average ranks of uE (sorted frame) minus their mean (M + 1)/2.

        uE is sorted here, so a run of equal values at positions i..j-1 (0-based) has the
        average rank (i + 1 + j)/2: ``scipy.stats.rankdata`` exactly (tested), without
        importing scipy.stats in every simulation job (0.5 CPU-s each).
        """
        if self._rank_c is None:
            starts = np.flatnonzero(np.r_[True, self.u[1:] != self.u[:-1]])
            ends = np.r_[starts[1:], self.m]
            ranks = np.repeat(0.5 * (starts + 1 + ends), ends - starts)
            self._rank_c = ranks - 0.5 * (self.m + 1)
        return self._rank_c


def _cc_rows(e_s: FloatArray, frame: SortedFrame) -> FloatArray:
    """Spearman(abs(E), uE) per row, no ties in abs(E) (continuous simulated errors).

    The numerator sum_i rank(abs(E_i)) ru_i (ru: centred average ranks of uE, multiples of 1/2)
    is summed exactly in integers from a radix sort of each row
    (:func:`uqval.stats.rank_kernel.rank_weight_sums`); sum(ru) = 0, so the rank mean of
    abs(E) drops out. A row with ties in abs(E) takes the ranks of one argsort (as before).
    """
    m = e_s.shape[1]
    norm = frame.cc_norm()
    if norm == 0.0:  # a constant uE has no ranks to correlate with: undefined, not an error
        return np.full(e_s.shape[0], np.nan)
    ru = frame.centred_ranks()
    a = np.abs(e_s)
    sums, tied = rank_weight_sums(a, frame.doubled_centred_ranks())
    out = 0.5 * sums / norm
    for r in np.flatnonzero(tied):
        ranks = np.empty(m)
        ranks[np.argsort(a[r])] = np.arange(1.0, m + 1.0)
        out[r] = (ranks @ ru) / norm
    return out


def sorted_batch_values(stat: SimRefStatistic, e_s: FloatArray, frame: SortedFrame) -> FloatArray:
    """The statistic of rows of errors already in the sorted frame."""
    return sorted_batch_table([stat], e_s, frame)[0]


def sorted_batch_table(
    stats_: Sequence[SimRefStatistic], e_s: FloatArray, frame: SortedFrame
) -> FloatArray:
    """Several statistics of rows of errors in the sorted frame, shape (len(stats_), rows).

    The bins and the sort order of uE are fixed, so each statistic is a function of per-bin
    and whole-set sums of Z^2 = (E/uE)^2 and E^2 (one pass, shared by the statistics, in
    sub-blocks of rows that stay in cache) and, for CC, of the ranks of abs(E)
    (:func:`_cc_rows`). ENCE = mean_b abs(1 - sqrt(MSE_b/MV_b)) with MV_b of the fixed uE
    computed once per bin count; ZMSE = mean_b abs(ln <Z^2>_b); ZMS = <Z^2>.
    """
    for stat in stats_:
        if stat.n_bins is not None and stat.n_bins > frame.m:
            raise ValueError(f"n_bins = {stat.n_bins} exceeds M = {frame.m}")
    n, m = e_s.shape
    out = np.empty((len(stats_), n))
    rows = max(1, _CACHE_ELEMENTS // max(1, m))
    need_z2 = any(s.name in ("ZMS", "ZMSE") for s in stats_)
    need_e2 = any(s.name == "ENCE" for s in stats_)
    for lo in range(0, n, rows):
        e = e_s[lo : lo + rows]
        z2: FloatArray = np.square(e / frame.u) if need_z2 else np.empty(0)
        e2: FloatArray = np.square(e) if need_e2 else np.empty(0)
        for j, stat in enumerate(stats_):
            if stat.name == "ZMS":
                out[j, lo : lo + rows] = np.mean(z2, axis=1)
            elif stat.name != "CC":
                assert stat.n_bins is not None
                starts, counts = frame.bins(stat.n_bins)
                if stat.name == "ENCE":
                    mse = np.add.reduceat(e2, starts, axis=-1) / counts
                    rce = rce_values(frame.bin_mv(stat.n_bins), mse)
                    out[j, lo : lo + rows] = np.mean(np.abs(rce), axis=-1)
                else:
                    zms = np.add.reduceat(z2, starts, axis=-1) / counts
                    out[j, lo : lo + rows] = np.mean(np.abs(np.log(zms)), axis=-1)
    for j, stat in enumerate(stats_):
        if stat.name == "CC":  # row by row in the compiled kernel: no sub-blocks needed
            out[j] = _cc_rows(e_s, frame)
    return out


def _tie_groups(values: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(starts of runs of equal values, run id of each element) of a sorted vector."""
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    ids = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, values.size]))
    return starts.astype(np.intp), ids.astype(np.intp)


class ResampleStatistic:
    """theta of resamples given as positions into the uE-sorted data, shape (B, L) or (L,).

    Used as the generic statistic of :func:`bca_bootstrap` with data ``(arange(M),)``: a
    resample is re-sorted by uE and cut into index-based equal-size bins of its own length L
    (L = M for bootstrap resamples, M - 1 for the jackknife), as in the authors' code.
    """

    def __init__(self, stat: SimRefStatistic, e_s: FloatArray, frame: SortedFrame) -> None:
        self.stat = stat
        self.m = frame.m
        if stat.name != "ZMS":  # ZMS averages Z^2 in draw order (positions only)
            self.from_counts = self._resamples_of_m
        if stat.name in ("ENCE", "ZMSE"):
            u2 = np.square(frame.u)
            if stat.name == "ENCE":
                self.columns = np.stack([u2, np.square(e_s)])
            else:
                self.columns = np.square(e_s / frame.u)[None, :]
        elif stat.name == "CC":
            self.u_starts = _tie_groups(frame.u)[0]
            a = np.abs(e_s)
            self.e_perm = np.argsort(a, kind="stable")
            self.e_starts = _tie_groups(a[self.e_perm])[0]
        else:
            self.z2 = np.square(e_s / frame.u)

    def __call__(self, positions: NDArray) -> FloatArray:
        pos = np.asarray(positions)
        single = pos.ndim == 1
        pos = np.atleast_2d(pos).astype(np.intp, copy=False)
        rows = max(1, _COUNT_ELEMENTS // max(1, pos.shape[1]))
        out = np.concatenate(
            [self._rows(pos[lo : lo + rows]) for lo in range(0, pos.shape[0], rows)]
        )
        return out.reshape(()) if single else out

    def _counts(self, pos: NDArray[np.intp]) -> NDArray[np.int64]:
        b = pos.shape[0]
        flat = (pos + (np.arange(b, dtype=np.intp) * self.m)[:, None]).ravel()
        return np.bincount(flat, minlength=b * self.m).reshape(b, self.m)

    def _resamples_of_m(self, counts: NDArray[np.int64]) -> FloatArray:
        """theta of resamples of M draws given by their multiplicities, shape (B, M): the
        ``from_counts`` input of :func:`bca_bootstrap` (no index arrays), bit for bit the
        values of the same resamples as positions (CC, ENCE, ZMSE already work from the
        multiplicities)."""
        return self._from_counts(counts, self.m)

    def _rows(self, pos: NDArray[np.intp]) -> FloatArray:
        if self.stat.name == "ZMS":
            return np.mean(self.z2[pos], axis=1)
        return self._from_counts(self._counts(pos), pos.shape[1])

    def _from_counts(self, counts: NDArray[np.int64], length: int) -> FloatArray:
        if self.stat.name == "CC":
            return self._cc(counts, length)
        assert self.stat.n_bins is not None
        sums = self._bin_sums(counts, equal_count_boundaries(length, self.stat.n_bins))
        sizes = np.diff(equal_count_boundaries(length, self.stat.n_bins))
        if self.stat.name == "ENCE":
            rce = 1.0 - np.sqrt(sums[1] / sums[0])
            return np.mean(np.abs(rce), axis=1)
        return np.mean(np.abs(np.log(sums[0] / sizes)), axis=1)

    def _bin_sums(self, counts: NDArray[np.int64], bounds: NDArray[np.int64]) -> FloatArray:
        """Sums of each column over the index-based bins of every re-sorted resample
        (:func:`uqval.stats.resample_kernel.resorted_bin_sums`, module docstring).

        Returns shape (k, B, N) for the k columns.
        """
        return resorted_bin_sums(counts, bounds, self.columns)

    def binned_jackknife(self) -> FloatArray:
        """Exact leave-one-out ENCE/ZMSE in O(M N), bins recomputed for M - 1 points.

        Without sorted point i, the prefix sum over the first b positions is P[b] if b <= i
        and P[b + 1] - x_i otherwise (P the prefix sums of the full sorted column).
        """
        assert self.stat.n_bins is not None
        m = self.m
        bounds = equal_count_boundaries(m - 1, self.stat.n_bins)
        i = np.arange(m)[:, None]
        left = bounds[None, :] <= i
        sums = []
        for col in self.columns:
            p = np.concatenate([[0.0], np.cumsum(col)])
            prefix = np.where(
                left, p[bounds][None, :], p[np.minimum(bounds + 1, m)][None, :] - col[:, None]
            )
            sums.append(np.diff(prefix, axis=1))
        if self.stat.name == "ENCE":
            return np.mean(np.abs(1.0 - np.sqrt(sums[1] / sums[0])), axis=1)
        return np.mean(np.abs(np.log(sums[0] / np.diff(bounds))), axis=1)

    def _cc(self, counts: NDArray[np.int64], length: int) -> FloatArray:
        """Weighted Spearman of the tie-averaged ranks from the multiplicities, summed
        exactly in integers (:func:`uqval.stats.rank_kernel.resample_rank_correlation`)."""
        return resample_rank_correlation(counts, self.e_perm, self.e_starts, self.u_starts)


def bootstrap_statistic(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    statistic: SimRefStatistic | str,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: SeedLike = None,
    confidence: float = 0.95,
    n_workers: int = 1,
    jackknife_groups: int | None = None,
) -> BootstrapResult:
    """BCa bootstrap of a P002 statistic (P002 Sect. II.D; n_boot = 5000 as in the code).

    ZMS uses the exact mean-statistic path of :func:`bca_bootstrap` (same replicates as
    ``bca_bootstrap((E, uE), ZMS, ...)``). CC, ENCE and ZMSE re-sort every resample by uE and
    reapply the index-based equal-size bins; the jackknife uses bins for M - 1 points (module
    docstring; exact O(M N) prefix-sum form for ENCE/ZMSE, direct O(M^2) evaluation for CC). Row
    indices are drawn by :func:`bca_bootstrap` (same stream for all statistics and the same seed).

    ``jackknife_groups``: for CC with more points than this, the acceleration comes from a
    delete-a-group jackknife with that many groups
    (:func:`~uqval.stats.bootstrap.group_jackknife_values`), O(G M log M) instead of
    O(M^2); None (default, the papers' method) always takes the leave-one-out jackknife.
    """
    stat = as_statistic(statistic)
    e, ue = errors_uncertainties(errors, uncertainties)
    if stat.name == "ZMS":
        return bca_bootstrap(
            (e, ue), ZMS, n_boot=n_boot, seed=seed, confidence=confidence, n_workers=n_workers
        )
    frame = SortedFrame(ue)
    fn = ResampleStatistic(stat, e[frame.order], frame)
    jack: FloatArray | None = None
    if stat.name in ("ENCE", "ZMSE"):
        jack = fn.binned_jackknife()
    elif jackknife_groups is not None and e.size > jackknife_groups:
        jack = group_jackknife_values(lambda kept: float(fn(kept)), e.size, jackknife_groups)
    return bca_bootstrap(
        (np.arange(e.size),),
        fn,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        jackknife=jack,
        n_workers=n_workers,
    )

