"""Local (conditional) calibration analyses on binned data (primer P000 Sects. II-III;
adaptivity paper P003 Sect. III.B; ENCE and ZMSE of P002 Eqs. 11 and 17).

Notation: Z = E/uE; a binning is a list of integer index arrays into the data arrays, one
array per bin, ordered by increasing conditioning variable (e.g.
``np.array_split(np.argsort(x, kind="stable"), n)``). Bin i holds n_i points. A bin's
position on the x axis is the mid-range (min + max)/2 of its conditioning values (P000
"points reported at the center of the bins").

Local statistics and their 95% confidence intervals (CIs), as in the authors' code
(ErrViewLib ``plotLZV``, ``plotLZISD``, ``plotLZM``, ``plotLZMS``, ``plotLRCE``,
``plotLCP``, ``plotRelDiag``):

=========  ========================  ======  ===============================================
analysis   statistic per bin         target  CI
=========  ========================  ======  ===============================================
LZV        Var(Z) (n - 1 denom.)     1       "cho": V +- z sqrt(vv); or BCa bootstrap
LZISD      Var(Z)^(-1/2)             1       delta method on "cho"; or BCa bootstrap
LZM        <Z>                       0       Student t: m +- t_{n-1} sd/sqrt(n)
LZMS       <Z^2>                     1       BCa bootstrap, R = max(1500, n); or "stud"
LRCE       (RMV - RMSE)/RMV          0       BCa bootstrap, R = max(500, n)
LCP        mean 1(abs(E) <= U_P)     P       Wilson binomial interval
RD         RMSE_i vs RMV_i           RMV_i   delta method on "cho"; or BCa bootstrap
=========  ========================  ======  ===============================================

with z = Phi^-1((1 + confidence)/2), Cho's (2008) variance of the sample variance
vv = (mu_4 - (n - 3)/(n - 1) mu_2^2)/n (mu_k the central moments with 1/n denominators,
R ``moments::all.moments``), and the delta method SD(V^p) = abs(p) V^(p-1) sqrt(vv). A bin is
*valid* when its CI contains the target (P003 Sect. III.B.1, red symbols otherwise).

Bootstrap CIs are the BCa intervals of :func:`uqval.stats.bootstrap.bca_bootstrap` (the
``nptest::np.boot`` algorithm) with R = max(n_boot_min, n_i) replicates per bin (see
docs/choices.md, "Intervals of local statistics" and "Bootstrap replicates"). Bin i draws from
child i of ``SeedSequence(seed).spawn(n_bins)``, so results are deterministic for a given seed
and a bin's stream does not depend on the other bins. Variance-based statistics are bootstrapped
as mean statistics of the centred columns (Z - c, (Z - c)^2) with c the bin mean,
Var = n/(n - 1) (<(Z-c)^2> - <Z-c>^2), which is exact on every resample and O(n) for the
jackknife (the n/(n - 1) factor is also applied to the leave-one-out values; BCa only uses the jackknife through the scale-invariant
acceleration, so the interval is unaffected).

Deviations from the authors' code (statistically immaterial): their per-bin bootstraps use
R ``boot::boot.ci(type = "bca")`` (regression-based influence values, interpolation on the
normal scale) where this module uses the ``np.boot`` variant above; the whole-set <Z> uses
the Student-t instead of the normal quantile; the whole-set RCE uses 5000 BCa replicates
instead of a 500-replicate percentile interval; reliability diagrams default to
sqrt(<E^2>) as in the P000 text, with sd(E) as an option (docs/choices.md, "Confidence curves and
RMSE").

Per-bin sums use ``np.add.reduceat`` over the concatenated bins, so all closed-form local
statistics are vectorised over bins. ENCE and ZMSE (P002 Eqs. 11 and 17) are also provided
for stacks of Monte Carlo sets with fixed contiguous bins (:func:`ence_batch`,
:func:`zmse_batch`, O(n_sets M))."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties, integer
from uqval._internal.seeding import seed_sequence
from uqval._internal.types import FloatArray, SeedLike
from uqval.stats.bootstrap import MeanStatistic, bca_bootstrap_bins
from uqval.stats.intervals import Interval, cho_vv, power_interval, t_interval
from uqval.stats.synthetic import GenerativeDistribution
from uqval.stats.zscore_statistics import RCE, ZMS

__all__ = [
    "local_zmean_unchecked",
    "global_zisd",
    "global_zmean",
    "global_zms",
    "global_zvar",
    "local_rce",
    "local_zisd",
    "local_zmean",
    "local_zms",
    "local_zvar",
    "reliability_diagram",
]

VarMethod = Literal["cho", "bootstrap", "auto"]


ZmsMethod = Literal["bootstrap", "stud", "auto"]


DistributionSpec = GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float]


AUTO_MIN_SIZE = 200


"""Sample size from which the "auto" methods use the analytic CI (ErrViewLib ``varZCI``,
``ZMSCI``: "cho"/"stud" for n >= 200, bootstrap below)."""


@dataclass(frozen=True)
class Segments:
    """Bins laid out as consecutive segments of ``order`` (concatenated bin indices)."""

    order: NDArray[np.intp]
    starts: NDArray[np.intp]
    counts: NDArray[np.intp]

    @classmethod
    def from_bins(cls, bins: Sequence[ArrayLike], m: int, min_count: int) -> Segments:
        if len(bins) == 0:
            raise ValueError("bins must hold at least one bin")
        arrays = [np.asarray(b) for b in bins]
        for i, b in enumerate(arrays):
            if b.ndim != 1 or not np.issubdtype(b.dtype, np.integer):
                raise ValueError(f"bin {i} must be a 1-D array of integer indices")
            if b.size < min_count:
                raise ValueError(f"bin {i} holds {b.size} point(s); at least {min_count} needed")
        order = np.concatenate(arrays).astype(np.intp)
        if order.min() < 0 or order.max() >= m:
            raise ValueError(f"bin indices must lie in [0, {m - 1}]")
        counts = np.array([b.size for b in arrays], dtype=np.intp)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        return cls(order, starts, counts)

    @classmethod
    def whole(cls, m: int) -> Segments:
        return cls(np.arange(m, dtype=np.intp), np.zeros(1, np.intp), np.array([m], np.intp))

    @property
    def n_bins(self) -> int:
        return self.counts.size

    def sums(self, values: ArrayLike) -> FloatArray:
        """Per-bin sums of ``values`` (indexed by data row; extra trailing axes allowed)."""
        return np.add.reduceat(np.asarray(values)[self.order], self.starts, axis=0)

    def means(self, values: ArrayLike) -> FloatArray:
        counts = self.counts.reshape((-1,) + (1,) * (np.ndim(values) - 1))
        return self.sums(values) / counts

    def central_moments(self, values: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Per-bin mean, mu_2 and mu_4 (1/n denominators)."""
        gathered = values[self.order]
        mean = np.add.reduceat(gathered, self.starts) / self.counts
        d2 = np.square(gathered - np.repeat(mean, self.counts))
        m2 = np.add.reduceat(d2, self.starts) / self.counts
        with np.errstate(over="ignore"):  # mu_4 of squares (E^8) is not used by every caller
            m4 = np.add.reduceat(np.square(d2), self.starts) / self.counts
        return mean, m2, m4

    def mid_range(self, x: FloatArray) -> FloatArray:
        gathered = x[self.order]
        lo = np.minimum.reduceat(gathered, self.starts)
        hi = np.maximum.reduceat(gathered, self.starts)
        return 0.5 * (lo + hi)


def _bootstrap_cis(
    segments: Segments,
    data: tuple[FloatArray, ...],
    statistic: Callable[[tuple[FloatArray, ...]], MeanStatistic],
    selected: NDArray[np.bool_],
    n_boot_min: int,
    seed: SeedLike,
    confidence: float,
    grow: bool = True,
) -> tuple[FloatArray, FloatArray]:
    """BCa intervals of the selected bins (NaN elsewhere), bin i seeded by spawned child i.

    ``statistic`` builds the mean statistic of one bin from that bin's data arrays. Each
    bin gets R = max(n_boot_min, n_i) replicates, or n_boot_min if not ``grow``.
    """
    n_boot_min = integer(n_boot_min, "n_boot_min", minimum=1)
    children = seed_sequence(seed).spawn(segments.n_bins)
    low = np.full(segments.n_bins, np.nan)
    high = np.full(segments.n_bins, np.nan)
    chosen = np.flatnonzero(selected)
    bins = [segments.order[segments.starts[i] : segments.starts[i] + segments.counts[i]]
            for i in chosen]
    n_boot = [max(n_boot_min, int(segments.counts[i])) if grow else n_boot_min for i in chosen]
    results = bca_bootstrap_bins(data, statistic, bins, n_boot=n_boot,
                                 seed=[children[i] for i in chosen], confidence=confidence)
    for i, res in zip(chosen, results, strict=True):
        low[i], high[i] = res.ci_low, res.ci_high
    return low, high


def _centred_var_power(power: float) -> Callable[[tuple[FloatArray, ...]], MeanStatistic]:
    """Factory of the mean statistic Var(v)^p of one sample v (module docstring)."""

    def build(data: tuple[FloatArray, ...]) -> MeanStatistic:
        (values,) = data
        centre = float(values.mean())
        factor = values.size / (values.size - 1.0)
        return MeanStatistic(
            columns=lambda v: (v - centre, np.square(v - centre)),
            combine=lambda m: (factor * (m[..., 1] - np.square(m[..., 0]))) ** power,
        )

    return build


def _rms_statistic(_: tuple[FloatArray, ...]) -> MeanStatistic:
    """sqrt(<v^2>) as a mean statistic (the same for every bin)."""
    return MeanStatistic(columns=lambda v: (np.square(v),), combine=lambda m: np.sqrt(m[..., 0]))


def _bootstrap_where_asked(
    interval: Interval,
    segments: Segments,
    data: tuple[FloatArray, ...],
    statistic: Callable[[tuple[FloatArray, ...]], MeanStatistic],
    method: str,
    analytic: str,
    n_boot_min: int,
    seed: SeedLike,
    confidence: float,
) -> Interval:
    """Replace the analytic CIs by BCa CIs in the bins that ``method`` bootstraps.

    ``method`` is ``analytic`` (no bin), "bootstrap" (every bin) or "auto" (bins of fewer
    than :data:`AUTO_MIN_SIZE` points).
    """
    if method == analytic:
        return interval
    if method == "bootstrap":
        boot = np.ones(segments.n_bins, dtype=bool)
    elif method == "auto":
        boot = segments.counts < AUTO_MIN_SIZE
        if not boot.any():
            return interval
    else:
        raise ValueError(f"unknown CI method {method!r}; use {analytic!r}, 'bootstrap' or 'auto'")
    low, high = _bootstrap_cis(segments, data, statistic, boot, n_boot_min, seed, confidence)
    return interval._replace(
        ci_low=np.where(boot, low, interval.ci_low), ci_high=np.where(boot, high, interval.ci_high)
    )


def _contains(low: ArrayLike, high: ArrayLike, target: ArrayLike) -> NDArray[np.bool_]:
    """low <= target <= high (False for NaN limits)."""
    return (np.asarray(low) <= target) & (np.asarray(target) <= high)


def bin_table(
    segments: Segments, interval: Interval, target: ArrayLike, x: FloatArray | None
) -> pd.DataFrame:
    """One row per bin: [bin, x,] n, value, ci_low, ci_high, target, valid."""
    columns: dict[str, ArrayLike] = {}
    if x is not None:
        columns = {"bin": np.arange(segments.n_bins), "x": x}
    target = np.broadcast_to(np.asarray(target, dtype=np.float64), segments.counts.shape)
    columns |= {
        "n": segments.counts.astype(np.int64),
        "value": np.asarray(interval.value, dtype=np.float64),
        "ci_low": np.asarray(interval.ci_low, dtype=np.float64),
        "ci_high": np.asarray(interval.ci_high, dtype=np.float64),
        "target": target,
        "valid": _contains(interval.ci_low, interval.ci_high, target),
    }
    return pd.DataFrame(columns)


def bin_layout(
    m: int, x: ArrayLike | None, bins: Sequence[ArrayLike] | None, min_count: int
) -> tuple[Segments, FloatArray | None]:
    """Segments of the bins (one bin of all points if None) and bin positions (if x given)."""
    if bins is None:
        if m < min_count:
            raise ValueError(f"need at least {min_count} points, got {m}")
        return Segments.whole(m), None
    segments = Segments.from_bins(bins, m, min_count)
    if x is None:
        return segments, None
    xs = np.asarray(x, dtype=np.float64)
    if xs.shape != (m,) or not np.all(np.isfinite(xs)):
        raise ValueError(f"x must be a finite 1-D array of length {m}")
    return segments, segments.mid_range(xs)


def prepare_bins(
    E: ArrayLike,
    uE: ArrayLike,
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    min_count: int,
) -> tuple[FloatArray, FloatArray, Segments, FloatArray | None]:
    """Validated E, uE, the segments and the bin positions (None for the whole set)."""
    e, ue = errors_uncertainties(E, uE)
    return (e, ue, *bin_layout(e.size, x, bins, min_count))


def _var_power(
    values: FloatArray,
    segments: Segments,
    power: float,
    method: str,
    confidence: float,
    n_boot_min: int,
    seed: SeedLike,
) -> Interval:
    """Per-bin Var(values)^p with the delta-method ("cho") or BCa interval."""
    _, m2, m4 = segments.central_moments(values)
    n = segments.counts
    interval = power_interval(m2 * n / (n - 1.0), cho_vv(n, m2, m4), power, confidence)
    statistic = _centred_var_power(power)
    return _bootstrap_where_asked(
        interval, segments, (values,), statistic, method, "cho", n_boot_min, seed, confidence
    )


def _zvar(
    E: ArrayLike,
    uE: ArrayLike,
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    power: float,
    method: str,
    target: float,
    confidence: float,
    n_boot_min: int,
    seed: SeedLike,
) -> pd.DataFrame:
    e, ue, segments, pos = prepare_bins(E, uE, x, bins, 2)
    interval = _var_power(e / ue, segments, power, method, confidence, n_boot_min, seed)
    return bin_table(segments, interval, target, pos)


def local_zvar(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    method: VarMethod = "cho",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 1500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Local Z-variance (LZV) analysis: Var(Z) per bin vs its target (P000 Sect. III.3.4).

    Args:
        errors, uncertainties: E and uE (1-D, length M).
        x: conditioning variable (length M), used for the bin positions (mid-ranges).
        bins: list of index arrays, one per bin (at least 2 points each).
        method: "cho" (Var +- z sqrt(vv), the authors' default), "bootstrap" (BCa with
            R = max(n_boot_min, n_i), ErrViewLib ``varZCI``) or "auto" ("cho" for bins
            of at least 200 points).
        target: reference value, 1 ((n-1)/(n-3) for small ensembles, P000 Sect. II.1.3).
        confidence: CI level.
        n_boot_min: minimum number of bootstrap replicates.
        seed: seed of the per-bin bootstrap streams (module docstring).

    Returns:
        One row per bin: bin, x, n, value, ci_low, ci_high, target, valid.

    Examples:
        Uncertainties half too small give Var(Z) close to 4 in every bin of uE:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_zvar
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> table = local_zvar(e, u / 2, u, equal_count_bins(u, 5))
        >>> table["value"].round(1).tolist(), bool(table["valid"].any())
        ([3.9, 4.5, 4.9, 4.1, 3.7], False)
    """
    return _zvar(errors, uncertainties, x, bins, 1.0, method, target, confidence, n_boot_min, seed)


def global_zvar(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    method: VarMethod = "auto",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 1500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Var(Z) of the whole set (right margin of LZV plots), one row without bin and x.

    The default "auto" is the authors' choice for the full set (``plotLZV``: "cho" for
    M >= 200, bootstrap below). Other arguments as in :func:`local_zvar`.
    """
    return _zvar(errors, uncertainties, None, None, 1.0, method, target, confidence, n_boot_min,
                 seed)


def local_zisd(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    method: VarMethod = "cho",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Local Z inverse SD (LZISD): Var(Z)^(-1/2) per bin, target 1 (P000 Sect. III.3.4).

    Values above 1 mean uncertainties overestimated by that factor (below 1: underestimated).
    CI: "cho" = delta
    method S +- z sqrt(vv)/(2 V^(3/2)) (ErrViewLib ``rsdZCI``, the default in P000;
    docs/choices.md, "Intervals of local statistics") or BCa bootstrap with
    R = max(n_boot_min, n_i) (``plotLZISD`` uses max(500, n)). Arguments and returned columns as in
    :func:`local_zvar`.

    Examples:
        Uncertainties twice too large give LZISD close to 2:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_zisd
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> local_zisd(e, 2 * u, u, equal_count_bins(u, 5))["value"].round(1).tolist()
        [2.0, 1.9, 1.8, 2.0, 2.1]
    """
    return _zvar(errors, uncertainties, x, bins, -0.5, method, target, confidence, n_boot_min, seed)


def global_zisd(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    method: VarMethod = "cho",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Var(Z)^(-1/2) of the whole set, with the same CI method as the bins (``plotLZISD``)."""
    return _zvar(errors, uncertainties, None, None, -0.5, method, target, confidence, n_boot_min,
                 seed)


def _zmean(
    E: ArrayLike,
    uE: ArrayLike,
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    confidence: float,
) -> pd.DataFrame:
    e, ue = errors_uncertainties(E, uE)
    return local_zmean_unchecked(e, ue, x, bins, confidence=confidence)


def local_zmean(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Local Z-mean (LZM): <Z> per bin, target 0, Student-t CI (P003 Sect. III.B.1).

    CI: <Z> +- t_{(1+c)/2, n-1} sd(Z)/sqrt(n) (:func:`mean_t_interval`). Columns as in
    :func:`local_zvar`.
    """
    return _zmean(errors, uncertainties, x, bins, confidence)


def local_zmean_unchecked(errors: FloatArray, uncertainties: FloatArray, x: ArrayLike | None,
                          bins: Sequence[ArrayLike] | None, *,
                          confidence: float = 0.95) -> pd.DataFrame:
    """:func:`local_zmean` on arrays already checked (float64, same length, finite, uE > 0),
    as the validation engine's stages hold them; the bins are still checked (a partition of
    the rows, at least 2 rows each; None: all rows in one bin)."""
    segments, pos = bin_layout(errors.size, x, bins, 2)
    mean, m2, _ = segments.central_moments(errors / uncertainties)
    n = segments.counts
    interval = t_interval(mean, np.sqrt(m2 * n / (n - 1.0)), n, confidence)
    return bin_table(segments, interval, 0.0, pos)


def global_zmean(
    errors: ArrayLike, uncertainties: ArrayLike, *, confidence: float = 0.95
) -> pd.DataFrame:
    """<Z> of the whole set with the Student-t CI (the authors' code uses +-1.96 sd/sqrt(M),
    which differs from t_{0.975, M-1} by less than 0.1% for M >= 1000)."""
    return _zmean(errors, uncertainties, None, None, confidence)


def _zms(
    E: ArrayLike,
    uE: ArrayLike,
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    method: str,
    target: float,
    confidence: float,
    n_boot_min: int,
    seed: SeedLike,
) -> pd.DataFrame:
    e, ue, segments, pos = prepare_bins(E, uE, x, bins, 2)
    mean, m2, _ = segments.central_moments(np.square(e / ue))
    n = segments.counts
    interval = t_interval(mean, np.sqrt(m2 * n / (n - 1.0)), n, confidence)
    interval = _bootstrap_where_asked(
        interval, segments, (e, ue), lambda _: ZMS, method, "stud", n_boot_min, seed, confidence
    )
    return bin_table(segments, interval, target, pos)


def local_zms(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    method: ZmsMethod = "bootstrap",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 1500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Local Z mean squares (LZMS): <Z^2> per bin, target 1 (P003 Sect. III.B.1, Eq. 6).

    CI: "bootstrap" (default; BCa with R = max(n_boot_min, n_i), R = max(1500, n) in the
    authors' code; docs/choices.md, "Intervals of local statistics"), "stud" (Student-t
    interval of the mean of Z^2) or "auto" ("stud" for bins
    of at least 200 points). Arguments and columns as in :func:`local_zvar`.

    Examples:
        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_zms
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> bins = equal_count_bins(u, 5)
        >>> e_bad = np.where(u > 1.25, 2 * e, e)  # uE too small by 2 for uE > 1.25
        >>> table = local_zms(e_bad, u, u, bins, n_boot_min=500, seed=0)
        >>> table["value"].round(1).tolist()
        [1.0, 1.1, 3.3, 4.1, 3.7]
        >>> table["valid"].tolist()
        [True, True, False, False, False]
    """
    return _zms(errors, uncertainties, x, bins, method, target, confidence, n_boot_min, seed)


def global_zms(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    method: ZmsMethod = "auto",
    target: float = 1.0,
    confidence: float = 0.95,
    n_boot_min: int = 1500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """<Z^2> of the whole set: "stud" for M >= 200, BCa below ("auto", ``plotLZMS``)."""
    return _zms(errors, uncertainties, None, None, method, target, confidence, n_boot_min, seed)


def rce_values(mv: ArrayLike, mse: ArrayLike) -> FloatArray:
    """RCE = (RMV - RMSE)/RMV from MV = <uE^2> and MSE = <E^2> (P003 Eq. 9)."""
    rmv = np.sqrt(mv)
    return (rmv - np.sqrt(mse)) / rmv


def rce_table(
    E: ArrayLike,
    uE: ArrayLike,
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    confidence: float,
    n_boot: int,
    seed: SeedLike,
) -> pd.DataFrame:
    e, ue, segments, pos = prepare_bins(E, uE, x, bins, 2)
    value = rce_values(segments.means(np.square(ue)), segments.means(np.square(e)))
    every = np.ones(segments.n_bins, dtype=bool)
    low, high = _bootstrap_cis(
        segments, (e, ue), lambda _: RCE, every, n_boot, seed, confidence, grow=bins is not None
    )
    nan = np.full_like(value, np.nan)
    return bin_table(segments, Interval(value, low, high, nan), 0.0, pos)


def local_rce(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    confidence: float = 0.95,
    n_boot_min: int = 500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Local relative calibration error (LRCE): RCE_i per bin, target 0 (P003 Sect. III.B.4).

    RCE_i = (RMV_i - RMSE_i)/RMV_i (Eqs. 9-11). CI: BCa bootstrap of the pairs (E, uE)
    with R = max(n_boot_min, n_i) (ErrViewLib ``plotLRCE``). Columns as in
    :func:`local_zvar`.

    Examples:
        Uncertainties half too small give RCE_i close to -1 in every bin:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_rce
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> table = local_rce(e, u / 2, u, equal_count_bins(u, 5), n_boot_min=500, seed=0)
        >>> table["value"].round(1).tolist(), bool(table["valid"].any())
        ([-0.9, -1.1, -1.2, -1.0, -0.9], False)
    """
    return rce_table(errors, uncertainties, x, bins, confidence, n_boot_min, seed)


def reliability_diagram(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    bins: Sequence[ArrayLike],
    *,
    method: VarMethod = "bootstrap",
    error_scale: Literal["rmse", "sd"] = "rmse",
    confidence: float = 0.95,
    n_boot_min: int = 500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Reliability diagram (RMSE vs RMV) on bins of uE (P000 Sect. III.3.3).

    Per bin: x = RMV_i = sqrt(<uE^2>_i) and value = RMSE_i = sqrt(<E^2>_i)
    (``error_scale="rmse"``, P000 text) or sd(E)_i (``"sd"``, ErrViewLib ``plotRelDiag``;
    equal for unbiased errors; docs/choices.md, "Confidence curves and RMSE"). The target of each
    bin is its RMV_i (identity line).

    Args:
        bins: bins of the data sorted by increasing uE.
        method: "bootstrap" (default; BCa with R = max(n_boot_min, n_i), P000 Fig. 4),
            "cho" (delta method, P000 PAL2022 figures) or
            "auto" ("cho" for bins of at least 200 points).
        error_scale: "rmse" or "sd".

    Returns:
        One row per bin: bin, x (= RMV_i), n, value, ci_low, ci_high, target (= RMV_i),
        valid.

    Examples:
        Errors twice as large as uE says for uE > 1.25 leave the identity line there:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, reliability_diagram
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = np.where(u > 1.25, 2.0, 1.0) * u * rng.standard_normal(1000)
        >>> table = reliability_diagram(e, u, equal_count_bins(u, 5), method="cho")
        >>> table["x"].round(2).tolist()  # RMV_i, the target
        [0.67, 1.0, 1.29, 1.58, 1.85]
        >>> table["value"].round(2).tolist()  # RMSE_i
        [0.66, 1.05, 2.41, 3.2, 3.56]
        >>> table["valid"].tolist()
        [True, True, False, False, False]
    """
    if error_scale not in ("rmse", "sd"):
        raise ValueError(f"unknown error_scale {error_scale!r}; use 'rmse' or 'sd'")
    e, ue, segments, _ = prepare_bins(errors, uncertainties, None, bins, 2)
    rmv = np.sqrt(segments.means(np.square(ue)))
    if error_scale == "sd":
        interval = _var_power(e, segments, 0.5, method, confidence, n_boot_min, seed)
    else:
        sq = np.square(e)
        mse, m2, _ = segments.central_moments(sq)
        n = segments.counts
        interval = _bootstrap_where_asked(
            power_interval(mse, m2 / (n - 1.0), 0.5, confidence),
            segments,
            (e,),
            _rms_statistic,
            method,
            "cho",
            n_boot_min,
            seed,
            confidence,
        )
    return bin_table(segments, interval, rmv, rmv)

