"""Murphy diagrams of variance forecasts: which model is better for *every* consistent score?

A standard uncertainty uE states the variance uE² of the error, i.e. the mean of E². Every
consistent scoring function of a mean (every Bregman score, among them the squared error
(uE² − E²)² and QLIKE E²/uE² + ln uE², the NLL at a fixed mean) is a mixture, with non-negative
weights over θ, of the elementary scores (Ehm, Gneiting, Jordan & Krüger 2016, JRSS B 78,
505, Theorem 1 and Eq. 11; Gneiting & Resin 2023 for the CORP view)

    S_θ(x, y) = abs(1{y <= θ} − 1{x <= θ}) · abs(y − θ),   x = uE² (forecast), y = E².

The Murphy diagram plots the mean elementary score S̄_θ of each model against θ. If model A's
curve lies below B's for every θ, A is better than B for every consistent score of the
variance, whichever one a reader prefers; if the curves cross, the ranking depends on the
score (and a single score's verdict is a choice, not a fact). The squared error is the
uniform mixture: ∫ S_θ(x, y) dθ = (x − y)²/2 for all x, y.

**Sampling noise.** The models are scored on the same rows, so the difference curve d(θ) =
S̄_θ(A) − S̄_θ(B) is an average of paired per-row differences D_iθ. Its pointwise standard
error se(θ) = sd_i(D_iθ)/sqrt(M) and a *simultaneous* band over the thresholds come from the
Gaussian multiplier bootstrap (Chernozhukov, Chetverikov & Kato 2013): d*(θ) = (1/M) sum_i
g_i (D_iθ − d(θ)), g_i ~ N(0, 1), and c = the (1 − alpha) quantile of max_θ abs(d*(θ))/se(θ).
Verdict of a pair (:func:`dominance`):

* ``A dominates B``: d(θ)/se(θ) < −c for some θ and > c for none: A is better beyond noise
  somewhere and worse beyond noise nowhere. The band is simultaneous, so when the two
  models are equally good at every θ a "better somewhere" is claimed with probability <=
  alpha (asymptotically). It is *not* a proof that A is better at every θ: where the band
  contains 0 the two may be equal, or B slightly better by less than the noise;
* ``crossing``: each is better beyond noise at some threshold: no model dominates, the
  ranking depends on the score;
* ``no difference``: no threshold where the difference exceeds the band.

Threshold grid: :data:`N_THRESHOLDS` quantiles (probabilities 0.5 % to 99.5 %) of the pooled
uE² and E² of all models, so that the grid follows where forecasts and outcomes lie. Cost
O(M · n_thresholds) per model and O(n_boot · M · n_thresholds) per pair (matrix products in
row chunks).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import errors_uncertainties, integer, probability
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike

__all__ = ["N_THRESHOLDS", "MurphyDiagram", "dominance", "elementary_scores", "murphy_diagram"]

N_THRESHOLDS = 100
"""Thresholds of the default grid."""

_ROW_CHUNK = 8192


def elementary_scores(forecast: ArrayLike, outcome: ArrayLike,
                      thresholds: ArrayLike) -> FloatArray:
    """Per-row elementary scores S_θ(x, y) (module docstring): array (M, n_thresholds).

    >>> elementary_scores([1.0, 4.0], [3.0, 0.5], [0.0, 2.0, 3.5])
    array([[0. , 1. , 0. ],
           [0. , 1.5, 3. ]])
    """
    x = np.asarray(forecast, dtype=np.float64)[:, None]
    y = np.asarray(outcome, dtype=np.float64)[:, None]
    t = np.asarray(thresholds, dtype=np.float64)[None, :]
    return np.abs((y <= t).astype(np.float64) - (x <= t)) * np.abs(y - t)


def _mean_scores(x: FloatArray, y: FloatArray, t: FloatArray) -> FloatArray:
    out = np.zeros(t.size)
    for s in range(0, x.size, _ROW_CHUNK):
        out += elementary_scores(x[s : s + _ROW_CHUNK], y[s : s + _ROW_CHUNK], t).sum(axis=0)
    return out / x.size


@dataclass(frozen=True)
class MurphyDiagram:
    """Mean elementary scores of each model's variance forecasts (module docstring).

    Attributes:
        thresholds: the θ grid (units of E²).
        scores: model -> mean elementary score at each threshold.
        dominance: one row per pair (model_a, model_b): ``verdict`` (``"<a> dominates"``,
            ``"<b> dominates"``, ``"crossing"``, ``"no difference"``), ``a_better_share`` and
            ``b_better_share`` (share of thresholds where each is better beyond the
            simultaneous band), ``critical`` (the band's multiplier c), ``a_below_everywhere``
            (the point estimates of A lie at or below B's at every threshold).
        differences: (model_a, model_b) -> (d(θ), se(θ)) arrays.
        n_boot, confidence: multiplier-bootstrap replicates and band level.
    """

    thresholds: FloatArray
    scores: dict[str, FloatArray]
    dominance: pd.DataFrame
    differences: dict[tuple[str, str], tuple[FloatArray, FloatArray]] = field(
        default_factory=dict, repr=False, compare=False)
    n_boot: int = 0
    confidence: float = 0.95

    def __repr__(self) -> str:
        verdicts = "; ".join(f"{a} vs {b}: {v}" for a, b, v in zip(
            self.dominance["model_a"], self.dominance["model_b"], self.dominance["verdict"],
            strict=True))
        return f"MurphyDiagram({len(self.scores)} models, {self.thresholds.size} thresholds; {verdicts})"


def dominance(names: tuple[str, str], d: FloatArray, se: FloatArray, critical: float) -> dict:
    """Verdict of a pair from its difference curve d = S̄(A) − S̄(B), its standard errors
    and the simultaneous multiplier c (module docstring)."""
    a, b = names
    ok = se > 0
    t = np.where(ok, d / np.where(ok, se, 1.0), 0.0)
    a_better, b_better = t < -critical, t > critical
    if a_better.any() and not b_better.any():
        verdict = f"{a} dominates"
    elif b_better.any() and not a_better.any():
        verdict = f"{b} dominates"
    elif a_better.any():
        verdict = "crossing"
    else:
        verdict = "no difference"
    return {"model_a": a, "model_b": b, "verdict": verdict,
            "a_better_share": float(a_better.mean()), "b_better_share": float(b_better.mean()),
            "critical": float(critical), "a_below_everywhere": bool(np.all(d <= 0.0))}


def _pair(xa: FloatArray, ya: FloatArray, xb: FloatArray, yb: FloatArray, t: FloatArray,
          n_boot: int, confidence: float,
          seed: np.random.SeedSequence) -> tuple[FloatArray, FloatArray, float]:
    m = xa.size
    total = np.zeros(t.size)
    square = np.zeros(t.size)
    for s in range(0, m, _ROW_CHUNK):
        rows = slice(s, s + _ROW_CHUNK)
        diff = elementary_scores(xa[rows], ya[rows], t) - elementary_scores(xb[rows], yb[rows], t)
        total += diff.sum(axis=0)
        square += np.square(diff).sum(axis=0)
    d = total / m
    var = np.maximum(square / m - np.square(d), 0.0) * m / max(m - 1, 1)
    se = np.sqrt(var / m)
    rng = value_generator(seed)
    boot = np.zeros((n_boot, t.size))
    for s in range(0, m, _ROW_CHUNK):
        rows = slice(s, s + _ROW_CHUNK)
        diff = elementary_scores(xa[rows], ya[rows], t) - elementary_scores(xb[rows], yb[rows], t)
        g = rng.standard_normal((n_boot, diff.shape[0]))
        boot += g @ (diff - d)
    boot /= m
    return _critical(d, se, boot, confidence)


def _critical(d: FloatArray, se: FloatArray, boot: FloatArray,
              confidence: float) -> tuple[FloatArray, FloatArray, float]:
    ok = se > 0
    if not ok.any():
        return d, se, float("inf")
    stat = np.max(np.abs(boot[:, ok]) / se[ok], axis=1)
    return d, se, float(np.quantile(stat, confidence))


def _pair_groups(xa: FloatArray, ya: FloatArray, xb: FloatArray, yb: FloatArray, t: FloatArray,
                 n_boot: int, confidence: float, seed: np.random.SeedSequence,
                 codes: NDArray[np.intp]) -> tuple[FloatArray, FloatArray, float]:
    """:func:`_pair` when rows come in groups (``codes`` 0..G-1): cluster-robust standard
    errors se^2 = G/(G-1) sum_g U_g^2 / M^2 with U_g = sum over group g of (diff - d), and one
    normal multiplier per *group* (wild cluster multiplier bootstrap)."""
    m, n_groups = xa.size, int(codes.max()) + 1
    sums = np.zeros((n_groups, t.size))
    for s in range(0, m, _ROW_CHUNK):
        rows = slice(s, s + _ROW_CHUNK)
        diff = elementary_scores(xa[rows], ya[rows], t) - elementary_scores(xb[rows], yb[rows], t)
        np.add.at(sums, codes[rows], diff)
    d = sums.sum(axis=0) / m
    u = sums - np.bincount(codes, minlength=n_groups)[:, None] * d
    se = np.sqrt(n_groups / max(n_groups - 1, 1) * np.square(u).sum(axis=0)) / m
    boot = value_generator(seed).standard_normal((n_boot, n_groups)) @ u / m
    return _critical(d, se, boot, confidence)


def murphy_diagram(
    models: Mapping[str, tuple[ArrayLike, ArrayLike]],
    *,
    thresholds: ArrayLike | None = None,
    n_thresholds: int = N_THRESHOLDS,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    groups: ArrayLike | None = None,
) -> MurphyDiagram:
    """Murphy diagram of the variance forecasts uE² of several models (module docstring).

    Args:
        models: name -> (errors, uncertainties), the same rows in the same order.
        thresholds: the θ grid (default: quantiles of the pooled uE² and E²).
        n_thresholds: size of the default grid.
        n_boot: multiplier-bootstrap replicates of each pair's simultaneous band.
        confidence: level of the band.
        seed: seed of the multiplier bootstrap (one child per pair).
        groups: a label per row when rows come in groups whose errors share a part: the
            standard errors are cluster-robust and the multipliers are drawn per group.

    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 2000)
    >>> e = u * rng.standard_normal(2000)
    >>> res = murphy_diagram({"right": (e, u), "too small": (e, u / 2)}, n_boot=200)
    >>> res.dominance[["model_a", "model_b", "verdict"]].values.tolist()
    [['right', 'too small', 'right dominates']]
    """
    if len(models) < 2:
        raise ValueError(f"models: a Murphy diagram compares at least 2 models, got {len(models)}")
    data = {}
    for name, pair in models.items():
        data[str(name)] = errors_uncertainties(*pair)
    sizes = {v[0].size for v in data.values()}
    if len(sizes) != 1:
        raise ValueError(f"models: every model must have the same rows, got sizes {sorted(sizes)}")
    n_boot = integer(n_boot, "n_boot", minimum=1)
    confidence = probability(confidence)
    if thresholds is None:
        n_thresholds = integer(n_thresholds, "n_thresholds", minimum=2)
        pooled = np.concatenate([np.square(v) for pair in data.values() for v in pair])
        t = np.unique(np.quantile(pooled, np.linspace(0.005, 0.995, n_thresholds)))
    else:
        t = np.unique(np.asarray(thresholds, dtype=np.float64))
    codes = None
    if groups is not None:
        labels = np.asarray(groups)
        m = next(iter(sizes))
        if labels.shape != (m,):
            raise ValueError(f"groups must hold one label per row ({m}), got {labels.shape}")
        _, inverse = np.unique(labels.astype(str) if labels.dtype == object else labels,
                               return_inverse=True)
        codes = inverse.ravel().astype(np.intp)
        codes = None if int(codes.max()) + 1 == m else codes
    xy = {k: (np.square(u), np.square(e)) for k, (e, u) in data.items()}
    scores = {k: _mean_scores(x, y, t) for k, (x, y) in xy.items()}
    pairs = list(itertools.combinations(data, 2))
    rows, differences = [], {}
    for (a, b), child in zip(pairs, seed_sequence(seed).spawn(len(pairs)), strict=True):
        d, se, c = (_pair(*xy[a], *xy[b], t, n_boot, confidence, child) if codes is None else
                    _pair_groups(*xy[a], *xy[b], t, n_boot, confidence, child, codes))
        differences[(a, b)] = (d, se)
        rows.append(dominance((a, b), d, se, c))
    return MurphyDiagram(t, scores, pd.DataFrame(rows), differences, n_boot, confidence)
