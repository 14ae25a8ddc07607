"""Recalibration of uncertainties: fit on one set, ``.apply`` to another.

* :func:`sigma_scaling` — one factor s = sqrt(ZMS) = sqrt(<(E/uE)²>), so that the scaled
  uncertainties s·uE have ZMS = 1 on the fitting set (σ-scaling, Levi et al. 2022; the ZMS
  target of P001 Eq. 11). Interval: BCa bootstrap of the ZMS (P001 Sect. II.3,
  :func:`uqval.stats.bootstrap.bca_bootstrap`), square-rooted (BCa intervals are
  transformation-respecting).
* :func:`isotonic` — a monotone map of the variance, uE² -> g(uE²), g the isotonic
  (non-decreasing) least-squares regression of E² on uE² (scikit-learn ``IsotonicRegression``,
  linear interpolation between its thresholds, clipped outside the fitted range). It fixes
  consistency errors along uE (P003 Sect. III.B), as used for the BUS2022 QM9
  "calibrated_isotonic" sets.
* :func:`binned_scaling` — one factor s_b = sqrt(ZMS_b) per equal-count bin of a feature, each
  with its BCa interval: the fix for failed adaptivity (P003 Sect. III.B.3).
* :func:`cross_validate` — out-of-fold recalibrated uncertainties (k folds), for an honest
  validation after recalibration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.isotonic import IsotonicRegression

from uqval._internal.checks import integer
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.binning import equal_count_boundaries, sort_order
from uqval.scores._input import check_bins, check_inputs, check_vector
from uqval.stats.bootstrap import bca_bootstrap
from uqval.stats.groups import GroupIndex, cluster_bca_bootstrap
from uqval.stats.zscore_statistics import ZMS

__all__ = [
    "BinnedScaling",
    "IsotonicMap",
    "SigmaScaling",
    "binned_scaling",
    "cross_validate",
    "isotonic",
    "sigma_scaling",
]

Method = Literal["sigma", "isotonic", "binned"]


def _codes(groups: ArrayLike | None, m: int) -> NDArray[np.intp] | None:
    """Group codes 0..G-1 of ``groups`` (a label per row), None without groups or with
    groups of one row (then nothing changes)."""
    if groups is None:
        return None
    labels = np.asarray(groups)
    if labels.shape != (m,):
        raise ValueError(f"groups must hold one label per point ({m}), got shape {labels.shape}")
    _, codes = np.unique(labels.astype(str) if labels.dtype == object else labels,
                         return_inverse=True)
    codes = codes.ravel().astype(np.intp)
    return None if int(codes.max()) + 1 == m else codes


def _factor(e: FloatArray, u: FloatArray, n_boot: int, seed: SeedLike,
            groups: NDArray[np.intp] | None = None) -> tuple[float, float, float]:
    """sqrt(ZMS) with its BCa interval; with ``groups`` (codes of the rows) resampling whole
    groups (:func:`uqval.stats.groups.cluster_bca_bootstrap`), one group: no interval."""
    index = None if groups is None else GroupIndex.from_codes(groups)
    if index is not None and index.singleton:
        index = None
    if index is not None and index.n_groups < 2:
        value = float(np.sqrt(np.mean(np.square(e / u))))
        return value, float("nan"), float("nan")
    res = (bca_bootstrap((e, u), ZMS, n_boot=n_boot, seed=seed) if index is None else
           cluster_bca_bootstrap((e, u), ZMS, index, n_boot=n_boot, seed=seed))
    return float(np.sqrt(res.estimate)), float(np.sqrt(res.ci_low)), float(np.sqrt(res.ci_high))


@dataclass(frozen=True)
class SigmaScaling:
    """σ-scaling: new uncertainties s·uE.

    Attributes:
        factor: s = sqrt(ZMS) of the fitting set.
        ci_low, ci_high: 95 % BCa interval of s.
        n: number of fitting points.

    Examples:
        >>> from uqval import SigmaScaling
        >>> SigmaScaling(factor=2.0, ci_low=1.9, ci_high=2.1, n=1000).apply([0.5, 1.5])
        array([1., 3.])
    """

    factor: float
    ci_low: float
    ci_high: float
    n: int

    def apply(self, uncertainties: ArrayLike) -> FloatArray:
        """s·uE."""
        return self.factor * check_vector(uncertainties, "uncertainties", positive=True)


def sigma_scaling(
    errors: ArrayLike, uncertainties: ArrayLike, *, n_boot: int = 5000, seed: SeedLike = 0,
    groups: ArrayLike | None = None,
) -> SigmaScaling:
    """Fit s = sqrt(<(E/uE)²>) with its BCa interval (module doc); with ``groups`` (a label
    per row, rows of a group sharing part of their error) the interval resamples groups.

    Examples:
        Uncertainties half too small are scaled back by about 2:

        >>> import numpy as np
        >>> from uqval import sigma_scaling, zms
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> s = sigma_scaling(e, u / 2, n_boot=500)
        >>> round(s.factor, 2), round(s.ci_low, 2), round(s.ci_high, 2), s.n
        (2.05, 1.97, 2.13, 1000)
        >>> round(zms(e, s.apply(u / 2)), 3)
        1.0
    """
    e, u = check_inputs(errors, uncertainties)
    s, low, high = _factor(e, u, n_boot, seed, _codes(groups, e.size))
    return SigmaScaling(factor=s, ci_low=low, ci_high=high, n=int(e.size))


@dataclass(frozen=True)
class IsotonicMap:
    """Isotonic variance map: new uncertainties sqrt(g(uE²)).

    Attributes:
        variance_in: thresholds of uE² (increasing).
        variance_out: fitted g at the thresholds (non-decreasing, > 0).

    Examples:
        >>> import numpy as np
        >>> from uqval import isotonic
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> iso = isotonic(e, u / 2)
        >>> iso.n_steps, bool(np.all(np.diff(iso.variance_out) >= 0))  # non-decreasing
        (40, True)
        >>> iso.apply([0.5, 1.0]).round(2)  # about 2 uE
        array([0.9, 1.9])
    """

    variance_in: FloatArray = field(repr=False)
    variance_out: FloatArray = field(repr=False)

    @property
    def n_steps(self) -> int:
        """Number of thresholds of the fitted map."""
        return int(self.variance_in.size)

    def apply(self, uncertainties: ArrayLike) -> FloatArray:
        """sqrt(g(uE²)); linear between thresholds, clipped outside (``out_of_bounds="clip"``)."""
        u = check_vector(uncertainties, "uncertainties", positive=True)
        return np.sqrt(np.interp(u * u, self.variance_in, self.variance_out))

    def __repr__(self) -> str:
        return (
            f"IsotonicMap(n_steps={self.n_steps}, uE² in [{self.variance_in[0]:.4g}, "
            f"{self.variance_in[-1]:.4g}] -> [{self.variance_out[0]:.4g}, "
            f"{self.variance_out[-1]:.4g}])"
        )


def isotonic(errors: ArrayLike, uncertainties: ArrayLike) -> IsotonicMap:
    """Isotonic regression of E² on uE² (increasing, clipped; module doc).

    The output is floored at the smallest positive E², so recalibrated uncertainties are
    strictly positive.

    Raises:
        ValueError: if every error is zero.

    Examples:
        >>> import numpy as np
        >>> from uqval import isotonic, zms
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> iso = isotonic(e, u / 2)  # fitted on uncertainties half too small
        >>> round(zms(e, u / 2), 2), round(zms(e, iso.apply(u / 2)), 2)
        (4.21, 1.0)
    """
    e, u = check_inputs(errors, uncertainties)
    e2 = e * e
    if not np.any(e2 > 0.0):
        raise ValueError("errors are all zero: no variance to fit")
    model = IsotonicRegression(increasing=True, out_of_bounds="clip", y_min=float(e2[e2 > 0].min()))
    model.fit(u * u, e2)
    return IsotonicMap(
        variance_in=np.asarray(model.X_thresholds_, dtype=np.float64),
        variance_out=np.asarray(model.y_thresholds_, dtype=np.float64),
    )


@dataclass(frozen=True)
class BinnedScaling:
    """One scale factor per feature range.

    Attributes:
        upper: largest feature value of each bin but the last (bin b holds x <= upper[b] and
            x > upper[b-1]); values beyond the fitted range fall in the nearest (end) bin.
        low, high: feature range of each fitted bin.
        factors: s_b = sqrt(ZMS_b); ci_low, ci_high: their 95 % BCa intervals.
        counts: fitting points per bin.

    Examples:
        >>> import numpy as np
        >>> from uqval import binned_scaling
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> x = rng.uniform(0.0, 1.0, 1000)
        >>> b = binned_scaling(e, np.where(x > 0.5, u / 2, u), x, n_bins=2, n_boot=500)
        >>> b.counts.tolist(), b.bin_of([0.1, 0.9, 5.0]).tolist()  # 5.0: nearest (last) bin
        ([500, 500], [0, 1, 1])
        >>> b.apply([1.0, 1.0], feature=[0.1, 0.9]).round(2)
        array([1.04, 1.97])
    """

    upper: FloatArray = field(repr=False)
    low: FloatArray
    high: FloatArray
    factors: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    counts: FloatArray

    def bin_of(self, feature: ArrayLike) -> np.ndarray:
        """Index of the bin of each feature value (nearest bin outside the fitted range)."""
        return np.searchsorted(self.upper, check_vector(feature, "feature"), side="left")

    def apply(self, uncertainties: ArrayLike, feature: ArrayLike) -> FloatArray:
        """s_b(x)·uE."""
        u = check_vector(uncertainties, "uncertainties", positive=True)
        b = self.bin_of(feature)
        if b.size != u.size:
            raise ValueError(f"feature has {b.size} values, uncertainties {u.size}")
        return self.factors[b] * u


def binned_scaling(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    feature: ArrayLike,
    n_bins: int | None = None,
    *,
    n_boot: int = 2000,
    seed: SeedLike = 0,
    groups: ArrayLike | None = None,
) -> BinnedScaling:
    """Factors s_b = sqrt(ZMS_b) on equal-count bins of ``feature`` (module doc); with
    ``groups`` (a label per row) each bin's interval resamples the groups of the bin.

    Default n_bins: round(sqrt(M)), the package's rule for local statistics (P003 Sect.
    III.B.3.a); pass fewer bins for steadier factors. Adjacent bins that would split a group
    of equal feature values are merged (a boolean or integer feature gets one factor per
    value at most), so there may be fewer bins than asked. Bin b's bootstrap uses child b of
    ``SeedSequence(seed).spawn(n_bins)``.

    Examples:
        Uncertainties half too small for feature values above 0.5 only:

        >>> import numpy as np
        >>> from uqval import binned_scaling
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> x = rng.uniform(0.0, 1.0, 1000)
        >>> b = binned_scaling(e, np.where(x > 0.5, u / 2, u), x, n_bins=2, n_boot=500)
        >>> b.factors.round(2), b.ci_low.round(2), b.ci_high.round(2)
        (array([1.04, 1.97]), array([0.99, 1.87]), array([1.1 , 2.11]))
    """
    e, u = check_inputs(errors, uncertainties)
    x = check_vector(feature, "feature")
    if x.size != e.size:
        raise ValueError(f"feature has {x.size} values, errors {e.size}")
    n = check_bins(n_bins, e.size)
    # equal-count cuts moved to the start of their group of equal values, so that a value
    # lies in one bin and apply() maps it to one factor
    order = sort_order(x)
    xs = x[order]
    cuts = np.searchsorted(xs, xs[equal_count_boundaries(x.size, n)[1:-1]], side="left")
    edges = np.unique(np.concatenate([[0], cuts, [x.size]]))
    bins = np.split(order, edges[1:-1])
    n = len(bins)
    if min(b.size for b in bins) < 2:
        raise ValueError(f"n_bins = {n} leaves bins with fewer than 2 points")
    seeds = seed_sequence(seed).spawn(n)
    codes = _codes(groups, e.size)
    fits = np.array([_factor(e[b], u[b], n_boot, seeds[i], None if codes is None else codes[b])
                     for i, b in enumerate(bins)])
    s, low, high = fits.T
    return BinnedScaling(
        upper=np.array([x[b].max() for b in bins[:-1]]),
        low=np.array([x[b].min() for b in bins]),
        high=np.array([x[b].max() for b in bins]),
        factors=s,
        ci_low=low,
        ci_high=high,
        counts=np.array([b.size for b in bins]),
    )


def cross_validate(
    method: Method | Callable[..., object],
    errors: ArrayLike,
    uncertainties: ArrayLike,
    feature: ArrayLike | None = None,
    folds: int = 5,
    seed: SeedLike = 0,
    groups: ArrayLike | None = None,
) -> FloatArray:
    """Out-of-fold recalibrated uncertainties.

    The points are shuffled with ``seed`` and split into ``folds`` parts of nearly equal size;
    the uncertainties of each part are recalibrated by the method fitted on the other parts.

    Args:
        method: ``"sigma"``, ``"isotonic"``, ``"binned"`` (needs ``feature``), or a fitting
            function ``f(errors, uncertainties[, feature])`` returning an object with
            ``.apply(uncertainties[, feature])``.
        feature: feature of ``"binned"`` (and passed to a custom method when given).
        folds: number of folds k >= 2.
        groups: a label per point when points come in groups whose errors share a part:
            the folds split whole *groups* (shuffled with ``seed``, split into ``folds``
            parts of nearly equal group counts), so no group is fitted and judged at once.

    Returns:
        Recalibrated uncertainties, in the input order.

    Examples:
        >>> import numpy as np
        >>> from uqval import cross_validate, zms
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> round(zms(e, cross_validate("sigma", e, u / 2)), 2)
        1.0
        >>> x = rng.uniform(0.0, 1.0, 1000)
        >>> u_bad = np.where(x > 0.5, u / 2, u)  # half too small for x > 0.5
        >>> u_new = cross_validate("binned", e, u_bad, feature=x)
        >>> high = x > 0.5
        >>> round(zms(e[high], u_bad[high]), 2), round(zms(e[high], u_new[high]), 2)
        (3.97, 1.08)
    """
    e, u = check_inputs(errors, uncertainties)
    x = None if feature is None else check_vector(feature, "feature")
    if x is not None and x.size != e.size:
        raise ValueError(f"feature has {x.size} values, errors {e.size}")
    fit = {"sigma": sigma_scaling, "isotonic": isotonic, "binned": binned_scaling}.get(
        method, method  # type: ignore[arg-type]
    )
    if not callable(fit):
        raise ValueError(f"method must be 'sigma', 'isotonic', 'binned' or callable, got {method!r}")
    if method == "binned" and x is None:
        raise ValueError("method 'binned' needs feature")
    folds = integer(folds, "folds", minimum=2, maximum=max(2, e.size // 2))
    rng = value_generator(seed_sequence(seed))
    codes = _codes(groups, e.size)
    if codes is None:
        parts = np.array_split(rng.permutation(e.size), int(folds))
    else:
        n_groups = int(codes.max()) + 1
        if n_groups < folds:
            raise ValueError(f"groups: {n_groups} groups for {folds} folds")
        fold_of = np.empty(n_groups, dtype=np.intp)
        for k, part in enumerate(np.array_split(rng.permutation(n_groups), int(folds))):
            fold_of[part] = k
        parts = [np.flatnonzero(fold_of[codes] == k) for k in range(int(folds))]
    use_feature = x is not None and method not in ("sigma", "isotonic")
    out = np.empty_like(u)
    for test in parts:
        train = np.setdiff1d(np.arange(e.size), test, assume_unique=True)
        if not use_feature:
            out[test] = fit(e[train], u[train]).apply(u[test])
        else:
            assert x is not None
            out[test] = fit(e[train], u[train], x[train]).apply(u[test], x[test])
    return out
