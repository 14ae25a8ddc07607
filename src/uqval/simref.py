"""Simulated reference values for calibration statistics (simref paper P002 Sect. II.D,
Apps A-C, Table II).

Statistics (P002 Sect. II.B-C), all functions of errors E and uncertainties uE:

* **ZMS** = <Z^2>, Z = E/uE (Eq. 14), known reference 1;
* **CC** = Spearman rank correlation of abs(E) and uE (Eq. 18), average ranks for ties (R
  ``cor(method = "spearman")``), no reference;
* **ENCE** = (1/N) sum_i abs(RCE_i), RCE_i = (RMV_i - RMSE_i)/RMV_i (Eq. 11), no reference;
* **ZMSE** = (1/N) sum_i abs(ln ZMS_i) (Eq. 17), no reference;

ENCE and ZMSE use N equal-size bins of the data sorted by uE (stable sort, ties in file order):
bin i holds sorted positions ``b_i .. b_{i+1} - 1`` with ``b_i = floor(M i/N + 1/2)``
(:func:`uqval.binning.equal_count_boundaries`). The sensitivity studies use N = 50, the
zeta-scores N = 20 (P002 Sect. III.C).

Simulated reference (P002 Sect. II.D.2, App. A). E*_i = uE_i eps_i with eps ~ D(0, 1)
and the *actual* uE; theta_D,ref = mean of theta over N_MC sets, u = sd/sqrt(N_MC), and the
Monte Carlo 95 % interval I_D = type-7 quantiles 2.5/97.5 % of the simulated sample (see
docs/choices.md, "Sim2 intervals").
Because uE is fixed, the data are put once in uE-sorted order ("sorted frame") and every
synthetic set is drawn directly in that frame (column j of eps multiplies the j-th smallest
uE): the bins are fixed, ENCE/ZMSE are O(M) per set (:func:`uqval.conditional.ence_batch`),
and CC needs one argsort per set (uE ranks are fixed; abs(E*) has no ties for continuous D).
Replicates are drawn in fixed stream blocks of ``max(1, 2**20 // M)`` sets, block j from
child j of ``SeedSequence(seed).spawn(n_blocks)``; ``chunk`` only caps how many sets are
evaluated per call, so results depend on (seed, M, N_MC) only. Several statistics can be
evaluated on the same synthetic sets (:func:`simulated_references`).

Bootstrap (P002 Sect. II.D; see docs/choices.md, "Bootstrap replicates"). BCa with
``nptest::np.boot`` conventions (:func:`uqval.stats.bootstrap.bca_bootstrap`), n_boot = 5000 as in
the authors' code. ZMS uses the mean-statistic fast path. CC, ENCE and ZMSE use the generic path in
the authors' manner: each resample is re-sorted by uE and the index-based equal-size bins are
reapplied; the jackknife uses bins computed for M - 1 points. Implementation: the bootstrapped
"data" is the vector of sorted positions 0..M-1, so a resample arrives as a (B, M) array of
positions; its per-point multiplicities c_j (one ``bincount``) describe the re-sorted resample
completely (point j repeated c_j times at sorted positions C_{j-1}..C_j - 1, C = cumsum c). Bin sums
are differences of the weighted prefix sums S(b) = W_{k-1} + (b - C_{k-1}) x_k, k = #{j: C_j <= b}
(one ``searchsorted`` over all rows at once), so a resample costs O(M) with no sort. CC on a
resample is the weighted Pearson correlation of the tie-averaged ranks, computed per tie
group from the multiplicities. Ties in uE between *different* points are ordered by file
order in the resample, whereas R orders them by resample position (both arbitrary;
statistically immaterial).

zeta schemes (App. A, Eqs. 20-24; docs/choices.md, "Uncertainty of simulated references"
and "Sim2 intervals"): BS (known reference, bootstrap interval),
SimN/SimT (simulated reference with the bootstrap interval; the text ignores u(theta_ref),
the code option adds U_t = 2u in quadrature), Sim2N/Sim2T (Monte Carlo interval I_D, zeta =
(est - ref)/(ref - I_D-) if est <= ref, else (est - ref)/(I_D+ - ref), the code's
-zeta(ref, est, I_D)). Scheme names follow the keys of the reference mapping ("N", "T").

Workflow (Fig. 1, Sect. II.D.3): :func:`validate_statistic`. Sensitivity to D (Sect. II.D.3:
"If the simulated reference values for these choices of D differ more than their statistical
uncertainty, the statistic is deemed to be over-sensitive to D and should not be used"): the
references of D = N(0, 1) and D = t_s(6) are compared with abs(delta) > k sqrt(u_N^2 + u_T^2),
k = 2 by default (the expanded uncertainty U = 2u used throughout the paper). Sect. III.C.3
judges sensitivity by its effect on the zeta-scores ("sizable effect"), i.e. relative to the
bootstrap interval, so an optional criterion additionally requires abs(delta) to exceed the
bootstrap standard error of the estimate (``sensitivity="mc+estimate"``); the ratio
abs(delta)/U_BS is always reported.

Also: the z-score summary of Table II, the App. B study of ENCE/ZMSE reference values
vs (N/M)^(1/2) for the NIG and T6IG models (docs/choices.md, "Appendix B generator and fits"), and
the App. C extrapolation-to-zero-bins
validation of ZMSE.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from uqval._types import FloatArray, SeedLike
from uqval.binning import equal_count_boundaries
from uqval.conditional import ence_batch, zmse_batch
from uqval.seeding import seed_sequence
from uqval.stats.bootstrap import (
    BootstrapResult,
    MeanStatistic,
    bca_bootstrap,
    group_jackknife_values,
)
from uqval.stats.calibration import ZMS, check_errors_uncertainties
from uqval.stats.fits import fit_scaled_t
from uqval.stats.zeta import zeta_score
from uqval.synthetic import GenerativeDistribution, as_distribution

__all__ = [
    "KNOWN_REFERENCES",
    "LinearFit",
    "PAPER_N_BINS_SENSITIVITY",
    "PAPER_N_BOOT",
    "PAPER_N_MC",
    "PAPER_T_NU",
    "STATISTIC_NAMES",
    "SimRefStatistic",
    "SimulatedReference",
    "Validation",
    "ZmseExtrapolation",
    "as_statistic",
    "bootstrap_statistic",
    "ols_line",
    "reference_sensitivity",
    "simulated_error_samples",
    "simulated_reference",
    "simulated_references",
    "validate_statistic",
    "zeta_bs",
    "zeta_schemes",
    "zeta_sim2",
    "zmse_extrapolation",
    "zscore_summary",
]

DistSpec = GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float]
StatName = Literal["ZMS", "CC", "ENCE", "ZMSE"]

STATISTIC_NAMES: tuple[str, ...] = ("ZMS", "CC", "ENCE", "ZMSE")
KNOWN_REFERENCES: dict[str, float] = {"ZMS": 1.0}
"""Statistics with a predefined reference value (P002 Eq. 14); the others have none."""

PAPER_N_MC = 10_000  # Sect. III.C, Figs 4-7
PAPER_N_BOOT = 5000  # authors' code; docs/choices.md, "Bootstrap replicates"
PAPER_T_NU = 6.0  # D = t_s(6) for the "T" variants (Sect. III.C.2)
PAPER_N_BINS_SENSITIVITY = 50  # Figs 4-5


_BLOCK_ELEMENTS = 1 << 20  # values per simulation stream block (8 MiB of float64)
_COUNT_ELEMENTS = 1 << 18  # positions per sub-chunk of a resample evaluation


# =========================================================================================
# Statistics registry
# =========================================================================================


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
        if binned and (self.n_bins is None or int(self.n_bins) != self.n_bins or self.n_bins < 1):
            raise ValueError(f"{self.name} needs a positive integer n_bins, got {self.n_bins!r}")
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

    def value(self, E: ArrayLike, uE: ArrayLike) -> float:
        """The statistic of one set (ties in abs(E) or uE get average ranks for CC)."""
        e, ue = check_errors_uncertainties(E, uE)
        frame = _Frame(ue)
        return float(_ResampleStatistic(self, e[frame.order], frame)(np.arange(e.size)))

    def batch(self, E: ArrayLike, uE: ArrayLike) -> FloatArray:
        """The statistic of many error sets with the same uncertainties.

        Args:
            E: errors, shape (n_sets, M), columns in the order of ``uE``.
            uE: uncertainties, shape (M,), shared by all rows (bins computed once from it).

        Returns:
            shape (n_sets,). CC assumes no ties in abs(E) within a row (true for continuous
            simulated errors); use :meth:`value` for data with ties.
        """
        e = np.asarray(E, dtype=np.float64)
        frame = _Frame(check_errors_uncertainties(np.zeros_like(uE, dtype=float), uE)[1])
        if e.ndim != 2 or e.shape[1] != frame.m:
            raise ValueError(f"E must have shape (n_sets, {frame.m}), got {e.shape}")
        return _sorted_batch(self, e[:, frame.order], frame)


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


class _Frame:
    """A fixed uncertainty vector in uE-sorted order (stable sort: ties keep file order)."""

    def __init__(self, uE: FloatArray) -> None:
        self.order = np.argsort(uE, kind="stable")
        self.u = uE[self.order]
        self.m = self.u.size
        self._edges: dict[int, NDArray[np.intp]] = {}
        self._rank_c: FloatArray | None = None

    def edges(self, n_bins: int) -> NDArray[np.intp]:
        if n_bins not in self._edges:
            self._edges[n_bins] = equal_count_boundaries(self.m, n_bins).astype(np.intp)
        return self._edges[n_bins]

    def centred_ranks(self) -> FloatArray:
        """Average ranks of uE (sorted frame) minus their mean (M + 1)/2."""
        if self._rank_c is None:
            self._rank_c = stats.rankdata(self.u) - 0.5 * (self.m + 1)
        return self._rank_c


def _cc_rows(e_s: FloatArray, frame: _Frame) -> FloatArray:
    """Spearman(abs(E), uE) per row, no ties in abs(E): ranks by one argsort per row."""
    n, m = e_s.shape
    ranks = np.empty((n, m))
    np.put_along_axis(
        ranks, np.argsort(np.abs(e_s), axis=1), np.arange(1.0, m + 1.0)[None, :], axis=1
    )
    ru = frame.centred_ranks()
    norm = math.sqrt(m * (m * m - 1.0) / 12.0) * math.sqrt(float(ru @ ru))
    return (ranks @ ru) / norm  # sum(ru) = 0, so the rank mean of |E| drops out


def _sorted_batch(stat: SimRefStatistic, e_s: FloatArray, frame: _Frame) -> FloatArray:
    """The statistic of rows of errors already in the sorted frame."""
    if stat.name == "ZMS":
        return np.mean(np.square(e_s / frame.u), axis=1)
    if stat.name == "CC":
        return _cc_rows(e_s, frame)
    assert stat.n_bins is not None
    if stat.n_bins > frame.m:
        raise ValueError(f"n_bins = {stat.n_bins} exceeds M = {frame.m}")
    fn = ence_batch if stat.name == "ENCE" else zmse_batch
    return fn(e_s, frame.u, frame.edges(stat.n_bins))


# =========================================================================================
# Statistics of resamples given as sorted positions (bootstrap, jackknife, single value)
# =========================================================================================


def _tie_groups(values: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(starts of runs of equal values, run id of each element) of a sorted vector."""
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    ids = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, values.size]))
    return starts.astype(np.intp), ids.astype(np.intp)


class _ResampleStatistic:
    """theta of resamples given as positions into the uE-sorted data, shape (B, L) or (L,).

    Used as the generic statistic of :func:`bca_bootstrap` with data ``(arange(M),)``: a
    resample is re-sorted by uE and cut into index-based equal-size bins of its own length L
    (L = M for bootstrap resamples, M - 1 for the jackknife), as in the authors' code.
    """

    def __init__(self, stat: SimRefStatistic, e_s: FloatArray, frame: _Frame) -> None:
        self.stat = stat
        self.m = frame.m
        if stat.name in ("ENCE", "ZMSE"):
            u2 = np.square(frame.u)
            if stat.name == "ENCE":
                self.columns = np.stack([u2, np.square(e_s)])
            else:
                self.columns = np.square(e_s / frame.u)[None, :]
        elif stat.name == "CC":
            self.u_starts, self.u_ids = _tie_groups(frame.u)
            a = np.abs(e_s)
            self.e_perm = np.argsort(a, kind="stable")
            self.e_starts, self.e_ids = _tie_groups(a[self.e_perm])
            self.u_ids_e = self.u_ids[self.e_perm]
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

    def _rows(self, pos: NDArray[np.intp]) -> FloatArray:
        length = pos.shape[1]
        if self.stat.name == "ZMS":
            return np.mean(self.z2[pos], axis=1)
        counts = self._counts(pos)
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
        """Sums of each column over the index-based bins of every re-sorted resample.

        Returns shape (k, B, N) for the k columns.
        """
        b, m = counts.shape
        length = int(counts[0].sum())
        cum = np.cumsum(counts, axis=1)
        stride = length + 1
        offsets = np.arange(b, dtype=np.int64) * stride
        queries = (bounds[1:][None, :] + offsets[:, None]).ravel()
        k = np.searchsorted((cum + offsets[:, None]).ravel(), queries, side="right")
        k = k.reshape(b, -1) - (np.arange(b) * m)[:, None]  # points fully inside, per bound
        rows = np.arange(b)[:, None]
        prev = np.maximum(k - 1, 0)
        cum_prev = np.where(k > 0, cum[rows, prev], 0)
        partial = bounds[1:][None, :] - cum_prev  # copies of point k left of the bound
        nxt = np.minimum(k, m - 1)
        out = np.empty((self.columns.shape[0], b, bounds.size - 1))
        for j, col in enumerate(self.columns):
            w = np.cumsum(counts * col, axis=1)
            prefix = np.where(k > 0, w[rows, prev], 0.0) + partial * col[nxt]
            out[j] = np.diff(prefix, axis=1, prepend=0.0)
        return out

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
        mid = 0.5 * (length + 1)

        def group_ranks(c: NDArray[np.int64], starts: NDArray[np.intp], ids: NDArray[np.intp]):
            g = np.add.reduceat(c, starts, axis=1)
            avg = np.cumsum(g, axis=1) - 0.5 * (g - 1) - mid  # centred average rank per group
            return avg[:, ids]

        ce = counts[:, self.e_perm]
        re = group_ranks(ce, self.e_starts, self.e_ids)
        ru = group_ranks(counts, self.u_starts, self.u_ids)[:, self.e_perm]
        cov = np.sum(ce * re * ru, axis=1)
        var = np.sum(ce * re * re, axis=1) * np.sum(ce * ru * ru, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return cov / np.sqrt(var)


def bootstrap_statistic(
    E: ArrayLike,
    uE: ArrayLike,
    statistic: SimRefStatistic | str,
    *,
    n_boot: int = PAPER_N_BOOT,
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
    e, ue = check_errors_uncertainties(E, uE)
    if stat.name == "ZMS":
        return bca_bootstrap(
            (e, ue), ZMS, n_boot=n_boot, seed=seed, confidence=confidence, n_workers=n_workers
        )
    frame = _Frame(ue)
    fn = _ResampleStatistic(stat, e[frame.order], frame)
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


# =========================================================================================
# Simulated references
# =========================================================================================


def _distribution_label(dist: GenerativeDistribution) -> str:
    if dist.name == "normal" or dist.nu is None or math.isinf(dist.nu):
        return "N(0,1)"
    return f"t_s({dist.nu:g})"


@dataclass(frozen=True)
class SimulatedReference:
    """Monte Carlo reference of a statistic for one generative distribution D.

    Attributes:
        statistic: label of the statistic; distribution: label of D.
        n_mc: number N_MC of synthetic sets.
        mean: theta_D,ref = mean of the simulated values.
        sd: their standard deviation (ddof = 1); u: u(theta_D,ref) = sd/sqrt(N_MC).
        ci_low, ci_high: I_D, type-7 2.5 % and 97.5 % quantiles of the simulated values
            (for the default level 0.95; docs/choices.md, "Sim2 intervals").
        values: the N_MC simulated values.
    """

    statistic: str
    distribution: str
    n_mc: int
    mean: float
    sd: float
    u: float
    ci_low: float
    ci_high: float
    values: FloatArray = field(repr=False, compare=False)


def simulated_references(
    uE: ArrayLike,
    statistics: Sequence[SimRefStatistic | str],
    distribution: DistSpec,
    n_mc: int = PAPER_N_MC,
    seed: SeedLike = None,
    chunk: int | None = None,
    *,
    confidence: float = 0.95,
) -> list[SimulatedReference]:
    """Simulated references of several statistics from the same N_MC synthetic sets.

    E*_i = uE_i eps_i, eps ~ D(0, 1) (P002 Eq. A2, App. A; §3.14). Streams: fixed blocks of
    ``max(1, 2**20 // M)`` sets, block j drawn from child j of ``SeedSequence(seed)``, so the
    values depend only on (seed, M, N_MC) and not on ``chunk`` (max sets per evaluation,
    memory knob) nor on which statistics are requested together.

    Returns:
        One :class:`SimulatedReference` per statistic, in order.
    """
    ue = check_errors_uncertainties(np.zeros_like(uE, dtype=float), uE)[1]
    stats_ = [as_statistic(s) for s in statistics]
    if not stats_:
        raise ValueError("statistics must not be empty")
    if n_mc < 2:
        raise ValueError("n_mc must be at least 2")
    if chunk is not None and chunk < 1:
        raise ValueError("chunk must be a positive integer")
    dist = as_distribution(distribution)
    frame = _Frame(ue)
    rows = max(1, _BLOCK_ELEMENTS // frame.m)
    starts = range(0, n_mc, rows)
    values = np.empty((len(stats_), n_mc))
    for start, child in zip(starts, seed_sequence(seed).spawn(len(starts)), strict=True):
        size = min(rows, n_mc - start)
        e_s = frame.u * dist.draw(np.random.default_rng(child), (size, frame.m))
        step = size if chunk is None else chunk
        for lo in range(0, size, step):
            sub = e_s[lo : lo + step]
            for j, stat in enumerate(stats_):
                values[j, start + lo : start + lo + sub.shape[0]] = _sorted_batch(stat, sub, frame)
    alpha = 1.0 - confidence
    out = []
    for stat, v in zip(stats_, values, strict=True):
        sd = float(np.std(v, ddof=1))
        lo, hi = np.quantile(v, [alpha / 2.0, 1.0 - alpha / 2.0], method="linear")
        out.append(
            SimulatedReference(
                statistic=stat.label,
                distribution=_distribution_label(dist),
                n_mc=n_mc,
                mean=float(v.mean()),
                sd=sd,
                u=sd / math.sqrt(n_mc),
                ci_low=float(lo),
                ci_high=float(hi),
                values=v,
            )
        )
    return out


def simulated_reference(
    uE: ArrayLike,
    statistic: SimRefStatistic | str,
    distribution: DistSpec,
    n_mc: int = PAPER_N_MC,
    seed: SeedLike = None,
    chunk: int | None = None,
    *,
    confidence: float = 0.95,
) -> SimulatedReference:
    """theta_D,ref, u(theta_D,ref) = sd/sqrt(N_MC) and I_D of one statistic (P002 Sect. II.D.2).

    See :func:`simulated_references` (same values with the same seed).
    """
    return simulated_references(
        uE, [statistic], distribution, n_mc, seed, chunk, confidence=confidence
    )[0]


def reference_sensitivity(
    E: ArrayLike,
    uE: ArrayLike,
    distribution: DistSpec,
    n_mc: int = PAPER_N_MC,
    seed: SeedLike = None,
    *,
    n_bins: int = PAPER_N_BINS_SENSITIVITY,
    chunk: int | None = None,
) -> pd.DataFrame:
    """Simulated references of ZMS, CC, ENCE and ZMSE (N bins) from the same synthetic sets,
    with the estimates on the data (P002 Figs 4-5: N_MC = 10^4, N = 50).

    Returns:
        One row per statistic: statistic (name), n_bins, distribution, nu (inf for the
        normal), M, estimate, ref_mean, ref_u, ref_sd, I_low, I_high, n_mc.
    """
    e, ue = check_errors_uncertainties(E, uE)
    dist = as_distribution(distribution)
    stats_ = [
        SimRefStatistic("ZMS"),
        SimRefStatistic("CC"),
        SimRefStatistic("ENCE", n_bins),
        SimRefStatistic("ZMSE", n_bins),
    ]
    refs = simulated_references(ue, stats_, dist, n_mc, seed, chunk)
    nu = math.inf if dist.nu is None else float(dist.nu)
    return pd.DataFrame.from_records(
        [
            {
                "statistic": st.name,
                "n_bins": st.n_bins,
                "distribution": ref.distribution,
                "nu": nu,
                "M": e.size,
                "estimate": st.value(e, ue),
                "ref_mean": ref.mean,
                "ref_u": ref.u,
                "ref_sd": ref.sd,
                "I_low": ref.ci_low,
                "I_high": ref.ci_high,
                "n_mc": n_mc,
            }
            for st, ref in zip(stats_, refs, strict=True)
        ]
    )


def simulated_error_samples(
    uE: ArrayLike, distribution: DistSpec, n_rep: int = 100, seed: SeedLike = None
) -> FloatArray:
    """Pooled errors of ``n_rep`` synthetic sets E* = uE eps, eps ~ D (P002 Fig. 3 [code]: 100).

    Returns shape (n_rep * M,), in the original order of ``uE`` within each replicate.
    """
    ue = np.asarray(uE, dtype=np.float64)
    rng = np.random.default_rng(seed_sequence(seed))
    return (ue * as_distribution(distribution).draw(rng, (n_rep, ue.size))).ravel()


# =========================================================================================
# zeta-scores (App. A)
# =========================================================================================


def zeta_bs(
    estimate: float, reference: float, ci_low: float, ci_high: float, reference_u: float = 0.0
) -> float:
    """zeta(theta_est, theta_ref, I) of P002 Eq. 20/A1 (bootstrap interval of the estimate).

    ``reference_u`` is u(theta_ref); the authors' code adds U_t = 2u in quadrature to the
    half-width; the text ignores it (0, default). See docs/choices.md, "Uncertainty of
    simulated references".
    """
    return float(
        zeta_score(estimate, reference, ci_low, ci_high, reference_uncertainty=2.0 * reference_u)
    )


def zeta_sim2(estimate: float, reference: float, ci_low: float, ci_high: float) -> float:
    """Sim2 zeta with the Monte Carlo interval I_D of the reference (P002 Eq. 24).

    zeta = (est - ref)/(ref - I_D-) if est <= ref, else (est - ref)/(I_D+ - ref), i.e. the
    authors' -zeta(ref, est, I_D). 0 when est == ref.
    """
    delta = float(estimate) - float(reference)
    if delta == 0.0:
        return 0.0
    half = (float(reference) - ci_low) if delta < 0.0 else (ci_high - float(reference))
    with np.errstate(divide="ignore"):
        return float(np.divide(delta, half))


def zeta_schemes(
    estimate: float,
    ci_low: float,
    ci_high: float,
    references: Mapping[str, SimulatedReference],
    known_reference: float | None = None,
    *,
    reference_uncertainty: bool = False,
) -> dict[str, float]:
    """The zeta-scores of App. A for one estimate.

    Args:
        estimate, ci_low, ci_high: theta_est and its bootstrap interval I_BS.
        references: simulated references keyed by the scheme suffix (``{"N": ..., "T": ...}``
            gives SimN, Sim2N, SimT, Sim2T).
        known_reference: predefined reference (ZMS: 1) for the BS scheme; None skips BS.
        reference_uncertainty: False (text): Sim ignores u(theta_ref); True (code):
            the half-width is sqrt((est - lim)^2 + (2u)^2).

    Returns:
        ``{"BS": ..., "SimN": ..., "Sim2N": ..., ...}``.
    """
    out: dict[str, float] = {}
    if known_reference is not None:
        out["BS"] = zeta_bs(estimate, known_reference, ci_low, ci_high)
    for key, ref in references.items():
        u = ref.u if reference_uncertainty else 0.0
        out[f"Sim{key}"] = zeta_bs(estimate, ref.mean, ci_low, ci_high, u)
    for key, ref in references.items():
        out[f"Sim2{key}"] = zeta_sim2(estimate, ref.mean, ref.ci_low, ref.ci_high)
    return out


# =========================================================================================
# Validation workflow (Fig. 1)
# =========================================================================================


@dataclass(frozen=True)
class Validation:
    """All intermediate values of the validation of one statistic on one set.

    Attributes:
        statistic: label; M: set size; n_boot, n_mc: sizes used (n_mc 0 if nothing was
            simulated).
        estimate: theta_est; ci_low, ci_high: BCa interval I_BS; se_bs, bias_bs: bootstrap
            standard error and bias; half_range_bs: U_BS = (I_BS+ - I_BS-)/2.
        reference: predefined reference (ZMS: 1) or None.
        references: simulated references keyed "N", "T" (or "D" for a known D).
        zeta: zeta-scores per scheme (BS, SimN, SimT, Sim2N, Sim2T as computed).
        sensitivity: abs(delta) = abs(theta_N - theta_T), u_combined = sqrt(u_N^2 + u_T^2), the
            threshold k u_combined, ratio_to_U_BS = abs(delta)/U_BS, sensitive (bool), criterion.
        mc_precision_ok: 2 u(theta_ref) < U_BS for every simulated reference (Sect. II.D.2).
        verdict: "validated", "not validated", "borderline" (Sim zetas disagree) or
            "do not use" (sensitive to D).
        scheme: the scheme(s) the verdict rests on; reason: explanation.
    """

    statistic: str
    M: int
    n_boot: int
    n_mc: int
    estimate: float
    ci_low: float
    ci_high: float
    se_bs: float
    bias_bs: float
    half_range_bs: float
    reference: float | None
    references: dict[str, SimulatedReference]
    zeta: dict[str, float]
    sensitivity: dict[str, Any]
    mc_precision_ok: bool | None
    verdict: str
    scheme: str
    reason: str

    def as_row(self) -> dict[str, Any]:
        """Flat record (one row of P002 Tables A1-A4)."""
        row: dict[str, Any] = {
            "statistic": self.statistic,
            "M": self.M,
            "theta_est": self.estimate,
            "I_BS_low": self.ci_low,
            "I_BS_high": self.ci_high,
            "U_BS": self.half_range_bs,
            "se_BS": self.se_bs,
            "theta_ref": self.reference,
        }
        for key, ref in self.references.items():
            row |= {
                f"theta_ref_{key}": ref.mean,
                f"u_{key}": ref.u,
                f"I_{key}_low": ref.ci_low,
                f"I_{key}_high": ref.ci_high,
            }
        row |= {f"zeta_{k}": v for k, v in self.zeta.items()}
        row |= {f"sens_{k}": v for k, v in self.sensitivity.items()}
        row |= {"verdict": self.verdict, "scheme": self.scheme, "reason": self.reason}
        return row


def _verdict_from(zetas: Mapping[str, float], schemes: Sequence[str]) -> tuple[str, str]:
    ok = [abs(zetas[s]) <= 1.0 for s in schemes]
    label = "/".join(schemes)
    if all(ok):
        return "validated", f"|zeta| <= 1 for {label}"
    if not any(ok):
        return "not validated", f"|zeta| > 1 for {label}"
    return "borderline", f"{label} disagree on |zeta| <= 1"


def validate_statistic(
    E: ArrayLike,
    uE: ArrayLike,
    statistic: SimRefStatistic | str,
    *,
    n_boot: int = PAPER_N_BOOT,
    n_mc: int = PAPER_N_MC,
    t_nu: float = PAPER_T_NU,
    seed: SeedLike = None,
    distribution: DistSpec | None = None,
    all_schemes: bool = False,
    reference_uncertainty: bool = False,
    sensitivity: Literal["mc", "mc+estimate"] = "mc",
    k_sensitivity: float = 2.0,
    chunk: int | None = None,
    n_workers: int = 1,
    references: Mapping[str, SimulatedReference] | None = None,
    jackknife_groups: int | None = None,
) -> Validation:
    """Validation workflow of P002 Fig. 1 (Sect. II.D.3) for one statistic on one set.

    1. theta_est and the BCa interval I_BS (n_boot = 5000 as in the authors' code; P002 Sect. II.D).
    2. Known reference (ZMS): zeta_BS, verdict on abs(zeta_BS) <= 1 (Eq. 22). With
       ``all_schemes`` the simulated references and Sim/Sim2 zetas are also computed
       (Tables A1-A4, Figs 6-7), without changing the verdict.
    3. Unknown reference, ``distribution`` given (D constrained, e.g. a GP): one simulated
       reference, verdict on abs(zeta_Sim) <= 1 (Eq. 23).
    4. Unknown reference, D unknown: simulate under N(0, 1) and t_s(t_nu) (Sect. II.D.3,
       nu = 6); sensitive if abs(theta_N - theta_T) > k sqrt(u_N^2 + u_T^2) (paper: "differ
       more than their statistical uncertainty"; k = 2, the paper's expanded uncertainty),
       and, with ``sensitivity="mc+estimate"``, also abs(delta) > se_BS (the shift would move
       zeta by more than about half the interval). Sensitive: verdict "do not use".
       Otherwise the verdict rests on SimN and SimT together.

    Seeds: ``SeedSequence(seed).spawn(3)`` gives the bootstrap, N and T (or D) streams.

    ``references``: precomputed simulated references keyed "N" and "T" (or "D"), e.g. from
    one :func:`simulated_references` call shared by several statistics; they replace the
    simulation step (their statistic label must match).

    ``jackknife_groups``: passed to :func:`bootstrap_statistic` (grouped jackknife of CC for
    large M; None keeps the leave-one-out jackknife of the papers).
    """
    stat = as_statistic(statistic)
    e, ue = check_errors_uncertainties(E, uE)
    boot_seed, seed_n, seed_t = seed_sequence(seed).spawn(3)
    bs = bootstrap_statistic(
        e,
        ue,
        stat,
        n_boot=n_boot,
        seed=boot_seed,
        n_workers=n_workers,
        jackknife_groups=jackknife_groups,
    )
    half = 0.5 * (bs.ci_high - bs.ci_low)
    known = stat.reference
    refs: dict[str, SimulatedReference] = {}
    if references is not None:
        refs = dict(references)
        if set(refs) not in ({"N", "T"}, {"D"}):
            raise ValueError(f"references must be keyed 'N' and 'T', or 'D'; got {sorted(refs)}")
        if any(r.statistic != stat.label for r in refs.values()):
            raise ValueError(f"references are not for {stat.label}")
    elif known is None or all_schemes:
        if distribution is not None:
            refs["D"] = simulated_reference(ue, stat, distribution, n_mc, seed_n, chunk)
        else:
            refs["N"] = simulated_reference(ue, stat, "normal", n_mc, seed_n, chunk)
            refs["T"] = simulated_reference(ue, stat, ("t", t_nu), n_mc, seed_t, chunk)
    zetas = zeta_schemes(
        bs.estimate,
        bs.ci_low,
        bs.ci_high,
        refs,
        known,
        reference_uncertainty=reference_uncertainty,
    )
    mc_ok = all(2.0 * r.u < half for r in refs.values()) if refs else None
    sens: dict[str, Any] = {}
    if "N" in refs and "T" in refs:
        delta = abs(refs["N"].mean - refs["T"].mean)
        u_comb = math.hypot(refs["N"].u, refs["T"].u)
        sensitive = delta > k_sensitivity * u_comb
        if sensitivity == "mc+estimate":
            sensitive = sensitive and delta > bs.se
        elif sensitivity != "mc":
            raise ValueError(f"unknown sensitivity criterion {sensitivity!r}")
        sens = {
            "delta": delta,
            "u_combined": u_comb,
            "threshold": k_sensitivity * u_comb,
            "ratio_to_U_BS": delta / half if half > 0 else math.inf,
            "sensitive": bool(sensitive),
            "criterion": sensitivity,
        }
    if known is not None:
        verdict, why = _verdict_from(zetas, ["BS"])
        scheme, reason = "BS", f"predefined reference {known:g}: {why}"
    elif "D" in refs:
        verdict, why = _verdict_from(zetas, ["SimD"])
        scheme, reason = "SimD", f"D given ({refs['D'].distribution}): {why}"
    elif sens["sensitive"]:
        verdict, scheme = "do not use", "-"
        reason = (
            "statistic sensitive to the generative distribution: do not use "
            f"(|theta_N - theta_T| = {sens['delta']:.3g} > {k_sensitivity:g} x "
            f"{sens['u_combined']:.2g}; {sens['ratio_to_U_BS']:.2f} U_BS)"
        )
    else:
        verdict, why = _verdict_from(zetas, ["SimN", "SimT"])
        scheme, reason = "SimN/SimT", f"references insensitive to D: {why}"
    if mc_ok is False:
        reason += "; warning: 2u(theta_ref) >= U_BS, increase n_mc"
    return Validation(
        statistic=stat.label,
        M=e.size,
        n_boot=n_boot,
        n_mc=max((r.n_mc for r in refs.values()), default=0),
        estimate=bs.estimate,
        ci_low=bs.ci_low,
        ci_high=bs.ci_high,
        se_bs=bs.se,
        bias_bs=bs.bias,
        half_range_bs=half,
        reference=known,
        references=refs,
        zeta=zetas,
        sensitivity=sens,
        mc_precision_ok=mc_ok,
        verdict=verdict,
        scheme=scheme,
        reason=reason,
    )


# =========================================================================================
# z-score summary (Table II)
# =========================================================================================


def _sd_statistic(m: int, centre: float) -> MeanStatistic:
    """sd(Z) (ddof = 1) as a mean statistic of the centred columns Z - c, (Z - c)^2."""

    def combine(means: FloatArray) -> FloatArray:
        # M/(M - 1) is also applied to the (M - 1)-point jackknife values: a constant factor,
        # to which the BCa acceleration is invariant.
        var = (means[..., 1] - means[..., 0] ** 2) * m / (m - 1)
        return np.sqrt(np.maximum(var, 0.0))

    return MeanStatistic(
        columns=lambda E, uE: (E / uE - centre, np.square(E / uE - centre)), combine=combine
    )


def zscore_summary(
    E: ArrayLike, uE: ArrayLike, *, n_boot: int = PAPER_N_BOOT, seed: SeedLike = None
) -> dict[str, float]:
    """One row of P002 Table II.

    mu_Z = mean(Z) with SE sd/sqrt(M); sigma_Z = sd(Z) (ddof = 1) with SE the bootstrap
    standard error of sd (BCa run, n_boot = 5000 [code]); b_Z = 100 abs(mu_Z)/sigma_Z; nu_Z
    (and the location/scale) of the ML scaled-shifted Student t fit
    (:func:`uqval.stats.fits.fit_scaled_t`).
    """
    e, ue = check_errors_uncertainties(E, uE)
    z = e / ue
    fit = fit_scaled_t(z)
    bs = bca_bootstrap((e, ue), _sd_statistic(z.size, fit.mean), n_boot=n_boot, seed=seed)
    return {
        "M": z.size,
        "mu_Z": fit.mean,
        "se_mu_Z": fit.sd / math.sqrt(z.size),
        "sigma_Z": fit.sd,
        "se_sigma_Z": bs.se,
        "b_Z": fit.relative_bias,
        "nu_Z": fit.nu,
        "t_mu": fit.mu,
        "t_sigma": fit.sigma,
    }


# =========================================================================================
# Straight-line fits
# =========================================================================================


@dataclass(frozen=True)
class LinearFit:
    """Ordinary least squares y = intercept + slope x (R ``lm``), SEs from the residuals.

    ``intercept`` and ``intercept_se`` are 0 and NaN for a fit through the origin.
    """

    intercept: float
    slope: float
    intercept_se: float
    slope_se: float
    residual_sd: float
    n: int
    with_intercept: bool


def ols_line(x: ArrayLike, y: ArrayLike, intercept: bool = True) -> LinearFit:
    """OLS fit of a straight line, with or without intercept (R ``lm(y ~ x)``/``lm(y ~ x - 1)``)."""
    xx = np.asarray(x, dtype=float)
    yy = np.asarray(y, dtype=float)
    design = np.column_stack([np.ones_like(xx), xx]) if intercept else xx[:, None]
    p = design.shape[1]
    if xx.size <= p:
        raise ValueError(f"need more than {p} points, got {xx.size}")
    coef, *_ = np.linalg.lstsq(design, yy, rcond=None)
    resid = yy - design @ coef
    s2 = float(resid @ resid) / (xx.size - p)
    cov = s2 * np.linalg.inv(design.T @ design)
    se = np.sqrt(np.diag(cov))
    if intercept:
        return LinearFit(
            float(coef[0]), float(coef[1]), float(se[0]), float(se[1]), math.sqrt(s2), xx.size, True
        )
    return LinearFit(0.0, float(coef[0]), math.nan, float(se[0]), math.sqrt(s2), xx.size, False)


# =========================================================================================
# App. C: extrapolation to zero bins
# =========================================================================================


@dataclass(frozen=True)
class ZmseExtrapolation:
    """ZMSE vs (N/M)^(1/2) and the extrapolation of its linear fit to N = 0 (P002 App. C).

    Attributes:
        table: columns N, min_bin (smallest bin size), x = (N/M)^(1/2), ZMSE, in_fit.
        fit: OLS line on the rows with N > fit_min_n.
        ci_low, ci_high: intercept -/+ k SE (k = 2, [code]).
        consistent: the interval contains 0 (consistency validated).
    """

    table: pd.DataFrame
    fit: LinearFit
    ci_low: float
    ci_high: float
    consistent: bool
    M: int


def zmse_extrapolation(
    E: ArrayLike,
    uE: ArrayLike,
    n_values: Iterable[int] = range(10, 151, 10),
    min_per_bin: int = 20,
    fit_min_n: int = 20,
    *,
    k: float = 2.0,
) -> ZmseExtrapolation:
    """Extrapolation-to-zero-bins validation of ZMSE (P002 App. C).

    ZMSE on N equal-size bins of the data sorted by uE for every N of ``n_values`` whose
    smallest bin holds at least ``min_per_bin`` points (text: "bins should not contain less
    than 20 data points"; the code's M/N > 20 keeps the same N for the nine sets), a line
    fitted on N > ``fit_min_n``, and the intercept interval intercept -/+ k SE ([code] k = 2).
    """
    e, ue = check_errors_uncertainties(E, uE)
    m = e.size
    frame = _Frame(ue)
    e_s = e[frame.order][None, :]
    records = []
    for n in n_values:
        n = int(n)
        if n < 1 or n > m or m // n < min_per_bin:
            continue
        value = float(zmse_batch(e_s, frame.u, frame.edges(n))[0])
        records.append(
            {
                "N": n,
                "min_bin": m // n,
                "x": math.sqrt(n / m),
                "ZMSE": value,
                "in_fit": n > fit_min_n,
            }
        )
    table = pd.DataFrame.from_records(records, columns=["N", "min_bin", "x", "ZMSE", "in_fit"])
    used = table[table["in_fit"]]
    fit = ols_line(used["x"], used["ZMSE"], intercept=True)
    lo, hi = fit.intercept - k * fit.intercept_se, fit.intercept + k * fit.intercept_se
    return ZmseExtrapolation(table, fit, lo, hi, bool(lo <= 0.0 <= hi), m)
