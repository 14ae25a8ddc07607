"""Does the calibration depend on the features *together*? A cross-fitted learner with an
exact permutation test, and the regions where the uncertainties are most wrong.

One feature at a time, a miscalibration confined to an interaction (uncertainties 2x too
small where (x1 > 0.5) xor (x2 > 0.5)) is invisible: along x1 alone, and along x2 alone,
<Z²> is the same everywhere. Here a learner sees all features at once.

**Test (sample splitting, Cox 1975; the "cross-fitted learner" of conditional-calibration
tests).** The rows are split at random into halves A and B. On A, scikit-learn's
``HistGradientBoostingRegressor`` (fixed seed, at most :data:`MAX_ITER` trees of
:data:`MAX_LEAF_NODES` leaves, early stopping) predicts

* ``kind="spread"``: Z² from the features, with the Poisson deviance (a Bregman loss, so
  consistent for the conditional mean of Z² >= 0, with a log link: a multiplicative local
  factor);
* ``kind="bias"``: Z, with the squared error.

On B the statistic is the Pearson correlation r between the predictions p_i (fixed, fitted
without B) and the observed y_i (Z² or Z): positive when the learner found a real
dependence, about 0 otherwise. Under the null "Z is independent of the features" the y of
B are exchangeable with respect to the fixed predictions, so permuting y over the rows of B
gives the exact null distribution of r conditional on A: p = (1 + #{r* >= r})/(n + 1), of
size <= alpha for any error distribution (Phipson & Smyth 2010). The roles of A and B are
then swapped, and the two p-values are combined by the Bonferroni rule min(1, 2 min(p_AB,
p_BA)), valid under any dependence between them. The learner is fitted twice; the
permutations only reshuffle M/2 numbers against fixed predictions (compiled Fisher-Yates
kernel), so they cost O(n_permutations · M).

**Repeated splits** (Meinshausen, Meier & Bühlmann 2009, "p-values for high-dimensional
regression", JASA 104: 1671, quantile aggregation). One random split makes the p-value, and so
the decision, a lottery of the seed (measured: 13 % of the joint labels flipped between two
seeds, benchmarks/seed_stability.md). The test is run on ``n_splits`` = K independent random
splits, giving p_1..p_K, and aggregated as P = min(1, p_(⌈K/2⌉) / (1/2)), twice the lower
median: by Markov's inequality P(P <= alpha) <= P(#{p_k <= alpha/2} >= K/2) <= alpha for any
dependence between the splits, so P is a valid p-value (K = 1: P = p_1, the single split).
The regions are those of the split whose p-value is that median (the first such split).

Why not HSIC or an out-of-fold permutation of the learner: HSIC with a kernel on 10
features needs a bandwidth and O(M²) memory; refitting the learner per permutation costs
n_permutations fits. Sample splitting halves the data the test sees but keeps the exact size
for one fit per half (docs/choices.md, "Joint calibration test").

**Where** (:class:`Region`). For the half with the smaller p-value, a
``DecisionTreeRegressor`` of depth <= :data:`TREE_DEPTH` (leaves of at least
:data:`MIN_REGION_SHARE` of the rows) is fitted to the learner's predictions at the features
of all rows (features only: no held-out Z enters the learner or the tree). A greedy tree
wastes its first split on an interaction (on an xor no single split helps), so the root split
is also chosen by looking one level ahead (every feature at the deciles of its values, then
greedy trees of depth TREE_DEPTH − 1 on both sides), and the tree with the smaller squared
error is kept; its leaves are
boxes of feature space described in the features' units ("x1 > 0.5 and x2 <= 0.5";
categorical features by their levels); for the spread the tree fits the log of the
predicted <Z²>. Among the leaves above (below) the rows' mean, the one with the largest
excess n_leaf · abs(value − mean) is reported as the region of largest (smallest) local
value: a large region with a clear departure before a tiny extreme leaf (the learner's
predictions are least reliable at the edges of feature space). Its local factor sqrt(<Z²>)
(spread) or <Z> (bias) is
estimated on the *held-out* rows of that leaf, which neither the learner nor the tree saw,
with a Student-t interval of the mean of Z² (square-rooted) or of Z at level 1 − 0.05/2
(Bonferroni over the two regions).

Features: numeric columns as they are; categorical ones (pandas ``category``, ``object``,
``bool`` or ``string``) as ordinal codes, which the learner treats as categories (at most
255 levels) and the regions describe by level names; constant features are dropped (listed
in ``dropped``). Rows with a missing feature value are refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from uqval._internal.checks import errors_uncertainties, integer
from uqval._internal.formatting import fmt_cut
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import index_generator, value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.heldout import cluster_sign_p, permutation_p

__all__ = [
    "MAX_ITER",
    "MAX_LEAF_NODES",
    "MIN_REGION_SHARE",
    "N_SPLITS",
    "ROWS_PER_THREAD",
    "TREE_DEPTH",
    "JointCalibration",
    "JointTest",
    "Region",
    "aggregate_split_p_values",
    "joint_calibration",
]

Kind = Literal["spread", "bias"]
FeatureInput: TypeAlias = Mapping[str, ArrayLike] | pd.DataFrame

MAX_ITER = 30
"""Boosting iterations of the learner (no early stopping: its validation split of a noisy
target like Z² stops at random)."""

LEAF_SHARE = 0.05
"""Smallest leaf of a boosting tree, as a share of the training rows (at least 40 rows): large
leaves keep the learner from chasing noise at the edges of feature space."""
ROWS_PER_THREAD = 200_000
"""Rows per OpenMP thread of the learner's fits (``n_workers`` caps the threads)."""

LEARNING_RATE = 0.1
"""Learning rate of the learner."""

MAX_LEAF_NODES = 15
"""Leaves per boosting tree."""

TREE_DEPTH = 3
"""Depth of the tree that describes the regions."""

MIN_REGION_SHARE = 0.02
"""Smallest share of the rows in a described region (leaf of the describing tree)."""

MAX_TREE_ROWS = 8_000
"""Most rows (evenly spaced) on which the describing trees are fitted (they describe a
smooth function, the learner's predictions; their leaves are then applied to every row)."""

MIN_REGION_ROWS = 30
"""Smallest number of rows in a described region."""

N_SPLITS = 10
"""Random splits of the test (module docstring, "Repeated splits")."""


@dataclass(frozen=True)
class Region:
    """A box of feature space where the learner predicts the largest or smallest local value.

    Attributes:
        description: the box in the features' units ("x1 > 0.5 and x2 <= 0.5").
        rows, share: rows of the whole set in the box and their share.
        predicted: the learner's local value there (sqrt of the predicted <Z²>, or <Z>).
        value, ci_low, ci_high: held-out estimate with its interval (module docstring):
            the factor sqrt(<Z²>) by which the uncertainties are too small (> 1) or too large
            (< 1) there (spread), or the mean z-score (bias).
        n_heldout: held-out rows behind ``value``.
        features: the features that bound the box.
        mask: which rows of the whole set lie in the box.
    """

    description: str
    rows: int
    share: float
    predicted: float
    value: float
    ci_low: float
    ci_high: float
    n_heldout: int
    features: tuple[str, ...] = ()
    mask: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False,
                                    compare=False)

    def __repr__(self) -> str:
        return (f"Region({self.description}: {self.value:.3g} [{self.ci_low:.3g}, "
                f"{self.ci_high:.3g}], {100 * self.share:.3g} % of rows)")


@dataclass(frozen=True)
class JointTest:
    """Cross-fitted test of one kind (module docstring).

    Attributes:
        kind: ``"spread"`` (Z²) or ``"bias"`` (Z).
        correlation: out-of-sample correlation of predictions and observations, mean over
            the halves of every split.
        p_value: the aggregate of the splits' p-values (module docstring): with one split,
            min(1, 2 min(p_AB, p_BA)); with K, min(1, 2 p_(⌈K/2⌉)).
        p_halves: the two permutation p-values of the split whose regions are shown.
        n_permutations: permutations per half.
        high, low: the regions with the largest and the smallest predicted value.
        p_splits: each split's p-value min(1, 2 min(p_AB, p_BA)).
    """

    kind: Kind
    correlation: float
    p_value: float
    p_halves: tuple[float, float]
    n_permutations: int
    high: Region
    low: Region
    p_splits: tuple[float, ...] = ()

    @property
    def n_splits(self) -> int:
        """Random splits behind :attr:`p_value`."""
        return len(self.p_splits)

    def __repr__(self) -> str:
        return (f"JointTest({self.kind}, r = {self.correlation:.3g}, p = {self.p_value:.3g}; "
                f"high: {self.high!r}; low: {self.low!r})")


@dataclass(frozen=True)
class JointCalibration:
    """Outcome of :func:`joint_calibration`: the spread and bias tests, the features used
    and the constant features dropped."""

    spread: JointTest
    bias: JointTest
    features: tuple[str, ...]
    dropped: tuple[str, ...]

    def __repr__(self) -> str:
        return (f"JointCalibration(features={list(self.features)}, spread p = "
                f"{self.spread.p_value:.3g}, bias p = {self.bias.p_value:.3g})")


@dataclass(frozen=True)
class _Features:
    x: FloatArray  # (M, F) codes or values
    names: tuple[str, ...]
    levels: tuple[tuple[str, ...] | None, ...]  # level names of categorical features
    dropped: tuple[str, ...]


def _encode(features: FeatureInput, m: int) -> _Features:
    frame = features if isinstance(features, pd.DataFrame) else pd.DataFrame(
        {str(k): (v if isinstance(v, pd.Series) else np.asarray(v)) for k, v in
         features.items()})
    if len(frame) != m:
        raise ValueError(f"features have {len(frame)} rows, errors and uncertainties have {m}")
    columns: list[FloatArray] = []
    names: list[str] = []
    levels: list[tuple[str, ...] | None] = []
    dropped: list[str] = []
    for name in frame.columns:
        col = frame[name]
        if isinstance(col, pd.DataFrame):
            raise ValueError(f"features: duplicate column name {name!r}")
        if col.isna().any():
            raise ValueError(f"features: column {name!r} has missing values (rows "
                             f"{', '.join(str(i + 1) for i in np.flatnonzero(col.isna())[:5])})")
        numeric = (pd.api.types.is_numeric_dtype(col.dtype)
                   and not pd.api.types.is_bool_dtype(col.dtype))
        values = col.to_numpy(dtype=np.float64) if numeric else None
        # constant: min == max is nunique() < 2 for numbers without NaN, and no hashing
        if (values.min() == values.max()) if values is not None else col.nunique() < 2:
            dropped.append(str(name))
            continue
        if values is not None:
            if not np.isfinite(values).all():
                raise ValueError(f"features: column {name!r} has infinite values")
            columns.append(values)
            levels.append(None)
        else:
            cat = col.astype("category") if not isinstance(col.dtype, pd.CategoricalDtype) \
                else col.cat.remove_unused_categories()
            columns.append(cat.cat.codes.to_numpy(dtype=np.float64))
            levels.append(tuple(str(c) for c in cat.cat.categories))
        names.append(str(name))
    if len(names) < 2:
        raise ValueError(f"the joint test needs at least 2 non-constant features, got "
                         f"{len(names)} ({', '.join(names) or 'none'})")
    return _Features(np.column_stack(columns), tuple(names), tuple(levels), tuple(dropped))


def _learner(kind: Kind, f: _Features, seed: int, n_rows: int):  # -> HistGradientBoostingRegressor
    from sklearn.ensemble import HistGradientBoostingRegressor

    categorical = [lv is not None and len(lv) <= 255 for lv in f.levels]
    return HistGradientBoostingRegressor(
        loss="poisson" if kind == "spread" else "squared_error",
        learning_rate=LEARNING_RATE, max_iter=MAX_ITER, max_leaf_nodes=MAX_LEAF_NODES,
        min_samples_leaf=max(40, math.ceil(LEAF_SHARE * n_rows)), l2_regularization=1.0,
        categorical_features=categorical if any(categorical) else None,
        early_stopping=False, random_state=seed,
    )


@dataclass(frozen=True)
class _Box:
    low: FloatArray  # per feature: x > low
    high: FloatArray  # per feature: x <= high
    value: float

    def contains(self, x: FloatArray) -> NDArray[np.bool_]:
        return np.all((x > self.low) & (x <= self.high), axis=1)


def _tree_boxes(x: FloatArray, target: FloatArray, depth: int, leaf: int,
                low: FloatArray, high: FloatArray) -> tuple[list[_Box], float]:
    """Leaves of a greedy sklearn tree on (x, target) as boxes inside [low, high], and its SSE."""
    from sklearn.tree import DecisionTreeRegressor

    if depth == 0 or x.shape[0] < 2 * leaf:
        mean = float(target.mean())
        return [_Box(low, high, mean)], float(np.sum(np.square(target - mean)))
    t = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf,
                              random_state=0).fit(x, target).tree_
    boxes = []

    def walk(node: int, lo: FloatArray, hi: FloatArray) -> None:
        if t.children_left[node] < 0:
            boxes.append(_Box(lo, hi, float(t.value[node, 0, 0])))
            return
        j, thr = int(t.feature[node]), float(t.threshold[node])
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[j] = min(hi[j], thr)
        right_lo[j] = max(lo[j], thr)
        walk(int(t.children_left[node]), lo, left_hi)
        walk(int(t.children_right[node]), right_lo, hi)

    walk(0, low, high)
    sse = float(np.sum(np.square(target - _box_values(boxes, x))))
    return boxes, sse


def _box_values(boxes: list[_Box], x: FloatArray) -> FloatArray:
    out = np.empty(x.shape[0])
    for box in boxes:
        out[box.contains(x)] = box.value
    return out


def _region_boxes(f: _Features, target: Callable[[FloatArray], FloatArray], m: int
                  ) -> list[_Box]:
    """The describing tree (module docstring) as boxes: the greedy tree of depth TREE_DEPTH,
    or a tree whose root split is chosen by looking one level ahead (each feature at the
    deciles of its values, then greedy trees of depth TREE_DEPTH - 1 on both sides),
    whichever fits the predictions best. ``target``: the tree's target at given feature
    rows (evaluated at the tree's rows only)."""
    min_leaf = max(MIN_REGION_ROWS, int(math.ceil(MIN_REGION_SHARE * m)))
    n_fit = min(m, MAX_TREE_ROWS)
    rows = np.linspace(0, m - 1, n_fit).astype(np.intp)
    x = f.x[rows]
    y = target(x)
    leaf = max(1, int(min_leaf * n_fit / m))
    n = x.shape[1]
    inf = np.full(n, np.inf)
    best = _tree_boxes(x, y, TREE_DEPTH, leaf, -inf, inf)
    for j in range(n):
        for thr in np.unique(np.quantile(x[:, j], np.linspace(0.1, 0.9, 9), method="lower")):
            left = x[:, j] <= thr
            if min(left.sum(), (~left).sum()) < leaf:
                continue
            hi, lo = inf.copy(), -inf
            hi[j] = thr
            lo = lo.copy()
            lo[j] = thr
            b_left, sse_left = _tree_boxes(x[left], y[left], TREE_DEPTH - 1, leaf, -inf, hi)
            b_right, sse_right = _tree_boxes(x[~left], y[~left], TREE_DEPTH - 1, leaf, lo, inf)
            if sse_left + sse_right < best[1] * (1.0 - 1e-9):
                best = (b_left + b_right, sse_left + sse_right)
    return best[0]


def _describe(box: _Box, f: _Features) -> tuple[str, tuple[str, ...]]:
    """A box in the features' units, and the features that bound it."""
    low, high = box.low, box.high
    parts = []
    for j, name in enumerate(f.names):
        if not (np.isfinite(low[j]) or np.isfinite(high[j])):
            continue
        lv = f.levels[j]
        if lv is not None:
            codes = np.arange(len(lv))
            keep = [lv[c] for c in codes if low[j] < c <= high[j]]
            parts.append(f"{name} in {{{', '.join(keep)}}}")
            continue
        x = f.x[:, j]
        span = float(np.ptp(x))
        lo, hi = (_cut_text(x, float(c), span) for c in (low[j], high[j]))
        if np.isfinite(low[j]) and np.isfinite(high[j]):
            parts.append(f"{lo} < {name} ≤ {hi}")
        elif np.isfinite(low[j]):
            parts.append(f"{name} > {lo}")
        else:
            parts.append(f"{name} ≤ {hi}")
    used = tuple(n for j, n in enumerate(f.names) if np.isfinite(low[j]) or np.isfinite(high[j]))
    return " and ".join(parts) or "all rows", used


def _cut_text(x: FloatArray, cut: float, span: float) -> str:
    """A box's bound (a tree threshold, between two values of ``x``) printed with enough
    decimals that it still separates those two values (``fmt_cut``)."""
    if not math.isfinite(cut):
        return ""
    below, above = x[x <= cut], x[x > cut]
    return fmt_cut(cut, float(below.max()) if below.size else -math.inf,
                   float(above.min()) if above.size else math.inf, span)


def _region(kind: Kind, mask: NDArray[np.bool_], description: tuple[str, tuple[str, ...]],
            predicted: float, y: FloatArray, test_rows: NDArray[np.bool_]) -> Region:
    held = y[mask & test_rows]
    n = int(held.size)
    confidence = 1.0 - 0.05 / 2.0
    if n >= 2:
        mean, sd = float(held.mean()), float(held.std(ddof=1))
        half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    else:
        mean, half = (float(held.mean()) if n else math.nan), math.nan
    if kind == "spread":
        value = math.sqrt(mean) if mean >= 0 else math.nan
        lo = math.sqrt(max(mean - half, 0.0)) if math.isfinite(half) else math.nan
        hi = math.sqrt(mean + half) if math.isfinite(half) else math.nan
        shown = math.sqrt(max(predicted, 0.0))
    else:
        value, lo, hi, shown = mean, mean - half, mean + half, predicted
    return Region(description[0], int(mask.sum()), float(mask.mean()), shown, value, lo, hi, n,
                  description[1], mask)


@dataclass(frozen=True)
class _HalfFit:
    """One half of one split: the held-out correlation, its permutation p-value, the
    training rows and the fitted learner."""

    correlation: float
    p_value: float
    train: NDArray[np.bool_]
    model: object


def _fit_halves(kind: Kind, y: FloatArray, f: _Features, splits: list[NDArray[np.bool_]],
                used: NDArray[np.bool_], fit_seeds: list[int], n_workers: int
                ) -> list[tuple[tuple[object, FloatArray], tuple[object, FloatArray]]]:
    """For both halves of every split, the learner fitted on one half and its predictions
    on the other, on ``n_workers`` threads (one fit at a time per thread; each fit's seed
    is fixed, so nothing depends on the threads)."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(train, used & ~train, fit + k)
            for halves, fit in zip(splits, fit_seeds, strict=True)
            for k, train in enumerate((halves, used & ~halves))]

    def fit(job: tuple[NDArray[np.bool_], NDArray[np.bool_], int]) -> tuple[object, FloatArray]:
        train, test, seed = job
        model = _learner(kind, f, seed, int(train.sum())).fit(f.x[train], y[train])
        return model, model.predict(f.x[test])

    if n_workers > 1 and len(jobs) > 1:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            done = list(pool.map(fit, jobs))
    else:
        done = [fit(job) for job in jobs]
    return [(done[2 * i], done[2 * i + 1]) for i in range(len(splits))]


def _split_tests(fitted: tuple[tuple[object, FloatArray], tuple[object, FloatArray]],
                 y: FloatArray, halves: NDArray[np.bool_], used: NDArray[np.bool_],
                 n_permutations: int, seeds: list[np.random.SeedSequence], n_workers: int,
                 codes: NDArray[np.intp] | None,
                 exceedances: int | None = None) -> tuple[_HalfFit, _HalfFit]:
    """Both halves of one split, each learner's predictions on its held-out half:
    permutation test (or, with groups, the sign flips of group scores)."""
    fits = []
    for k, train in enumerate((halves, used & ~halves)):
        test = used & ~train
        model, pred_test = fitted[k]
        if codes is None:
            r, p = permutation_p(pred_test, y[test], n_permutations, seeds[k], n_workers,
                                  exceedances)
        else:
            r, p = cluster_sign_p(pred_test, y[test], codes[test], n_permutations, seeds[k])
        fits.append(_HalfFit(r, p, train, model))
    return fits[0], fits[1]


def aggregate_split_p_values(p_splits: ArrayLike) -> float:
    """Quantile aggregation of the p-values of K random splits (Meinshausen, Meier & Bühlmann
    2009, gamma = 1/2): min(1, 2 p_(⌈K/2⌉)), the single p-value when K = 1.

    >>> aggregate_split_p_values([0.01, 0.02, 0.5, 0.03])  # 2 x the 2nd smallest
    0.04
    >>> aggregate_split_p_values([0.2])
    0.2
    """
    p = np.sort(np.asarray(p_splits, dtype=np.float64))
    if p.size == 1:
        return float(p[0])
    return float(min(1.0, 2.0 * p[math.ceil(p.size / 2) - 1]))


def _one(kind: Kind, z: FloatArray, f: _Features, splits: list[NDArray[np.bool_]],
         used: NDArray[np.bool_], n_permutations: int,
         seeds: list[list[np.random.SeedSequence]], fit_seeds: list[int],
         n_workers: int = 1, codes: NDArray[np.intp] | None = None,
         exceedances: int | None = None, fit_workers: int = 1) -> JointTest:
    y = np.square(z) if kind == "spread" else z
    m = z.size
    models = _fit_halves(kind, y, f, splits, used, fit_seeds, fit_workers)
    per_split = [_split_tests(pair, y, halves, used, n_permutations, s, n_workers, codes,
                              exceedances)
                 for pair, halves, s in zip(models, splits, seeds, strict=True)]
    p_splits = [min(1.0, 2.0 * min(a.p_value, b.p_value)) for a, b in per_split]
    p_value = aggregate_split_p_values(p_splits)
    # the regions of the split at the aggregated quantile (the first one with that p-value)
    median = np.sort(p_splits)[math.ceil(len(p_splits) / 2) - 1]
    shown = per_split[p_splits.index(median)]
    best = min(shown, key=lambda fit: fit.p_value)
    train, model = best.train, best.model

    def target(x: FloatArray) -> FloatArray:
        # the tree sees the learner's predictions at rows' features, never a held-out Z
        pred = model.predict(x)  # type: ignore[attr-defined]
        return np.log(np.maximum(pred, 1e-12)) if kind == "spread" else pred

    boxes = _region_boxes(f, target, m)
    masks = [box.contains(f.x) for box in boxes]
    counts = np.array([mask.sum() for mask in masks], dtype=np.float64)
    values = np.array([box.value for box in boxes])
    mean = np.average(values, weights=np.maximum(counts, 1e-300))
    # the leaves above (below) the mean with the largest excess n_leaf·|value - mean|: a
    # large region with a clear departure before a tiny extreme one
    weight = counts * np.abs(values - mean)
    above = values >= mean
    hi = int(np.argmax(np.where(above, weight, -1.0)))
    lo = int(np.argmax(np.where(~above, weight, -1.0))) if (~above).any() else int(
        np.argmin(values))
    regions = [
        _region(kind, masks[k], _describe(boxes[k], f),
                math.exp(values[k]) if kind == "spread" else float(values[k]), y,
                used & ~train)
        for k in (hi, lo)
    ]
    correlation = float(np.mean([fit.correlation for pair in per_split for fit in pair]))
    return JointTest(kind, correlation, p_value, (shown[0].p_value, shown[1].p_value),
                     n_permutations, regions[0], regions[1], tuple(p_splits))


def joint_calibration(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    features: FeatureInput,
    *,
    n_permutations: int = 999,
    seed: SeedLike = 0,
    n_workers: int = 1,
    max_rows: int | None = None,
    n_splits: int = N_SPLITS,
    groups: ArrayLike | None = None,
    exceedances: int | None = None,
    kinds: Sequence[Kind] = ("spread", "bias"),
    reuse: JointCalibration | None = None,
) -> JointCalibration:
    """Cross-fitted tests of whether Z² (spread) and Z (bias) depend on the features jointly.

    See the module docstring for the test, its exact size and the regions.

    Args:
        errors, uncertainties: E and uE (uE > 0), at least 100 rows.
        features: a DataFrame or a mapping name -> values (numeric or categorical), at
            least 2 non-constant features.
        n_permutations: permutations per half (smallest p-value 2/(n_permutations + 1) with one
            split, 4/(n_permutations + 1) with several).
        seed: seed of the split, the learners and the permutations.
        n_workers: threads of the permutations (no effect on the result) and most OpenMP
            threads of the learner: one per :data:`ROWS_PER_THREAD` rows fitted at most (on
            a shared machine its threads spin-wait; 10^5 rows x 10 features take about 3 s
            on one core).
        max_rows: with more rows, the halves split a seeded uniform subsample of
            ``max_rows`` rows (drawn without replacement from the value stream of a seventh
            child of ``seed``; the first six, of the split, the fits and the permutations,
            are those of the full path): the learners, the permutation tests and the held-out
            intervals of the regions use its rows only, the regions' row counts and shares
            all rows (the large-set mode of :func:`uqval.validate`, docs/choices.md).
        exceedances: ``h``: each half's test follows the sequential rule (p = h/l at its h-th
            exceedance; the fixed rule's first permutations; the large-set mode).
        n_splits: random splits whose p-values are aggregated (module docstring, "Repeated
            splits"); the first uses the seeds of the one-split test, each further split
            ``k`` its own children of ``seed``.
        groups: integer group codes of rows whose errors share a part: the halves split
            whole groups (half the groups, drawn from the split stream) and each held-out
            test flips the signs of group scores instead of permuting rows
            (:func:`uqval.calibration.heldout.cluster_sign_p`; docs/choices.md, "Rows that come in groups").
        kinds: the tests to run, ``"spread"`` and/or ``"bias"``; each kind has its own seeds,
            so a kind run alone gives the numbers it has beside the other.
        reuse: the result whose tests of the kinds not in ``kinds`` are kept (a test near
            the level run again with more splits, the other kept: nothing is fitted twice).

    >>> rng = np.random.default_rng(0)
    >>> m = 4000
    >>> x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    >>> u = rng.uniform(0.5, 2.0, m)
    >>> e = u * rng.standard_normal(m)
    >>> e[(x1 > 0.5) ^ (x2 > 0.5)] *= 2.0  # uncertainties 2x too small on an xor
    >>> res = joint_calibration(e, u, {"x1": x1, "x2": x2}, n_permutations=199)
    >>> res.spread.p_value  # 2 x 2/(199 + 1): the smallest attainable with several splits
    0.02
    >>> high = res.spread.high  # e.g. Region(x1 > 0.48 and x2 ≤ 0.46: 1.99 [1.83, 2.14], ...)
    >>> high.features, bool(high.ci_low > 1.5)  # a part of the xor, 2x too small there
    (('x1', 'x2'), True)
    >>> inside = high.mask
    >>> float(np.mean(((x1 > 0.5) ^ (x2 > 0.5))[inside])) > 0.8  # mostly planted rows
    True
    >>> bool(res.spread.low.ci_low < 1.0 < res.spread.low.ci_high)  # right elsewhere
    True

    (The box's exact ends depend on the learner's splits, hence on the scikit-learn version.)
    """
    e, u = errors_uncertainties(errors, uncertainties, min_size=100)
    unknown = set(kinds) - {"spread", "bias"}
    if unknown or not kinds:
        raise ValueError(f"kinds must be 'spread' and/or 'bias', got {list(kinds)}")
    if reuse is None and set(kinds) != {"spread", "bias"}:
        raise ValueError("a kind left out of kinds needs the result to reuse (reuse=)")
    n_permutations = integer(n_permutations, "n_permutations", minimum=1)
    n_splits = integer(n_splits, "n_splits", minimum=1)
    f = _encode(features, e.size)
    z = e / u
    ss = seed_sequence(seed)
    split_seed, fit_seed, *perm_seeds, rows_seed = ss.spawn(7)
    # further splits: their own split, fit and permutation seeds (the first split's are those
    # of the one-split test, so n_splits = 1 gives its numbers)
    children = [(split_seed, fit_seed, perm_seeds)] + [
        (s[0], s[1], s[2:]) for s in (c.spawn(6) for c in ss.spawn(n_splits - 1))]
    m = z.size
    used = np.ones(m, dtype=bool)
    if max_rows is not None:
        max_rows = integer(max_rows, "max_rows", minimum=100)
    rows = np.arange(m)
    if max_rows is not None and max_rows < m:
        rows = np.sort(value_generator(rows_seed).choice(m, size=max_rows, replace=False))
        used[:] = False
        used[rows] = True
    codes = None
    if groups is not None:
        codes = np.asarray(groups, dtype=np.intp)
        if codes.shape != (m,):
            raise ValueError(f"groups must hold one code per row ({m}), got shape {codes.shape}")
        _, codes = np.unique(codes, return_inverse=True)
        codes = codes.ravel().astype(np.intp)
        n_groups = int(codes.max()) + 1
        if n_groups < 4:
            raise ValueError("the joint test by group needs at least 4 groups")
    splits = []
    for child in children:
        if codes is None:
            halves = np.zeros(m, dtype=bool)
            halves[rows[index_generator(child[0]).permutation(rows.size)[: rows.size // 2]]] = True
        else:  # half of the groups, drawn from the split stream
            in_a = np.zeros(n_groups, dtype=bool)
            in_a[index_generator(child[0]).permutation(n_groups)[: n_groups // 2]] = True
            halves = in_a[codes] & used
        splits.append(halves)
    fit_ints = [int(child[1].generate_state(1)[0] % (2**31 - 3)) for child in children]
    n_workers = integer(n_workers, "n_workers", minimum=1)
    import sklearn.ensemble  # noqa: F401  (loads its OpenMP runtime before limiting it)
    from threadpoolctl import threadpool_limits

    # The 2 n_splits fits of each kind run side by side on n_workers threads, each fit on
    # one OpenMP thread (measured at 5·10^5 rows: 1.0 CPU-s on one thread, 1.5 CPU-s and
    # 0.8 s on two): with one split, on OpenMP threads only where a fit is large enough to
    # gain from them (27 000 rows: 0.04 s on one thread, 0.2-3 s on two of a loaded 2-core
    # machine). The fits are the same either way.
    fit_workers = min(n_workers, 2 * n_splits)
    threads = 1 if fit_workers > 1 else max(
        1, min(n_workers, int(np.count_nonzero(used)) // 2 // ROWS_PER_THREAD))
    tests: dict[str, JointTest] = {} if reuse is None else {"spread": reuse.spread,
                                                             "bias": reuse.bias}
    with threadpool_limits(limits=threads, user_api="openmp"):
        # each kind its own permutation seeds (two of the four) and fit seeds (+0 or +2)
        order: tuple[tuple[Kind, int], ...] = (("spread", 0), ("bias", 2))
        for kind, k in order:
            if kind in kinds:
                tests[kind] = _one(kind, z, f, splits, used, n_permutations,
                                   [child[2][k:k + 2] for child in children],
                                   [x + k for x in fit_ints], n_workers, codes,
                                   exceedances, fit_workers)
    return JointCalibration(tests["spread"], tests["bias"], f.names, f.dropped)
