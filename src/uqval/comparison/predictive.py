"""Comparison of models whose predictive outputs are of different kinds (ensembles, quantile
sets, intervals, parametric distributions) on the scores that apply to all of them.

``compare({"RF": uqval.Ensemble(...), "NGB": uqval.Normal(...), "QGB": uqval.Quantiles(...)},
y_true=y)`` scores every model on the same rows with the scores every model has
(:mod:`uqval.predictive.scores`):

* ``check_score``: the pinball loss averaged over common quantile levels: the levels shared
  by every quantile set and interval model (the quantiles of the other kinds are read at
  those levels), else τ = 0.01, ..., 0.99. 2 × check score is the quantile-set approximation
  of the CRPS (Laio and Tamea 2007), so this is the CRPS that applies to all;
* ``interval_score_L``: at every central level L all models share (G&R 2007 Eq. 43);
* ``crps`` (exact closed forms or ensemble CRPS) and ``nll`` only when every model has a full
  distribution (no quantile set or interval), resp. is parametric;
* ``mae`` and ``rmse`` of the point predictions.

Each score gets its 95 % paired-bootstrap percentile interval; each pair of models the paired
difference with its interval and the add-one two-sided p-value
2 (1 + #{Δ* on the far side of 0})/(B + 1) (the rows are resampled together, as in
:func:`uqval.compare`); a model ranks 1 + the number of models significantly better (interval
of the difference excluding 0). ``coverage`` lists the observed coverage of each model at the
common levels with its exact interval and verdict (descriptive: coverage is not a score).
Randomness: ``SeedSequence(seed)`` gives one child to the bootstrap, one to the coverage
and one to the PIT of the normal scores (groups).

**Rows in groups** (``groups=``: the atoms of one structure, the conformers of one molecule,
whose errors share a part): the paired bootstrap resamples whole groups (G groups drawn with
replacement per resample, a score's mean being the sum of the drawn groups' score sums over
the sum of their row counts); every interval is the union of the percentile interval and the
cluster-robust t(G - 1) interval of the rows' linearised contributions (the score of a row,
for the RMSE e²/(2 RMSE)), every p-value of a difference the larger of the bootstrap's and
that t test's (:func:`_widened`); and each coverage gets the Korn-Graubard interval and test over
the groups with the design-effect floor of the rows' normal scores' intra-class correlation
(:mod:`uqval.stats.cluster_proportion`, as in ``validate(y, predictive, groups=)``; the normal
scores are those of the first model with a shape).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from uqval._internal.checks import integer, probability
from uqval._internal.lazy import report_call
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import stream_blocks
from uqval._internal.types import FloatArray, SeedLike
from uqval.predictive import DEFAULT_LEVELS, Predictive, Quantiles
from uqval.predictive.crps import pinball
from uqval.predictive.parametric import _LocationScale
from uqval.predictive.scores import CHECK_LEVELS, interval_score_rows
from uqval.stats.binomial import binomial_p_value, clopper_pearson_interval
from uqval.stats.cluster_proportion import cluster_proportion, gaussian_indicator_icc
from uqval.stats.groups import GroupIndex, cluster_mean_se
from uqval.stats.serial_groups import widest_blocks
from uqval.validation.coverage_shape import latent_icc, normal_scores
from uqval.validation.inputs import MIN_ROWS

__all__ = ["PredictiveComparison", "compare_predictive"]


@dataclass(frozen=True, repr=False)
class PredictiveComparison:
    """Result of ``compare(models, y_true=...)`` with predictive objects (module docstring).

    Attributes:
        scores: index (model, score): value, ci_low, ci_high (paired bootstrap), rank.
        differences: index (model_a, model_b, score): delta = score(a) - score(b), ci_low,
            ci_high, p_value, better (a model name or "tie").
        coverage: index (model, level): value, ci_low, ci_high (Clopper-Pearson), p_value
            (exact binomial).
        check_levels: the quantile levels of the check score.
        levels: the common central levels.
        n_rows: rows compared (finite y and usable for every model).
        n_groups: groups of the rows compared (``groups=``), else None.
        block_size: consecutive groups per block when consecutive groups are dependent
            (:mod:`uqval.stats.serial_groups`; the blocks are then the units), else 1.
        icc: intra-class correlation of the rows' normal scores over the groups (the
            coverage's design-effect floor), else None.

    Examples:
        >>> import numpy as np
        >>> from uqval import Normal, Quantiles, compare
        >>> rng = np.random.default_rng(0)
        >>> mu, sd = rng.normal(size=400), rng.uniform(0.5, 2.0, 400)
        >>> y = mu + sd * rng.standard_normal(400)
        >>> z = np.array([-1.645, 0.0, 1.645])
        >>> res = compare({"right": Normal(mu, sd),
        ...                "half": Quantiles([0.05, 0.5, 0.95], mu[:, None] + 0.5 * sd[:, None] * z)},
        ...               y_true=y, n_boot=200)
        >>> res.differences.loc[("right", "half", "interval_score_0.9"), "better"]
        'right'
    """

    scores: pd.DataFrame
    differences: pd.DataFrame
    coverage: pd.DataFrame
    check_levels: tuple[float, ...]
    levels: tuple[float, ...]
    n_rows: int
    input_sha256: str | None = None
    n_groups: int | None = None
    icc: float | None = None
    block_size: int = 1

    def summary(self) -> str:
        """The ranking per score and the coverage, as Markdown."""
        lines = ["# Which predictive is better?", "",
                 f"{self.n_rows} rows{self._groups_note()}; scores every model has (lower is "
                 "better), with 95 % paired-bootstrap intervals; rank 1 + the number of models "
                 "significantly better.", ""]
        for score, group in self.scores.groupby(level="score", sort=False):
            best = group.sort_values("rank")
            parts = [f"{model} {r['value']:.4g} [{r['ci_low']:.4g}, {r['ci_high']:.4g}] "
                     f"(rank {int(r['rank'])})" for (model, _), r in best.iterrows()]
            lines.append(f"- **{score}**: " + "; ".join(parts))
        lines += ["", "## Coverage at the common levels", ""]
        test = ("exact binomial" if self.n_groups is None else
                f"Korn-Graubard over {self._units()},")
        for (model, level), r in self.coverage.iterrows():
            lines.append(f"- {model}, {100 * level:g} %: {100 * r['value']:.1f} % "
                         f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] "
                         f"({test} p = {r['p_value']:.2g})")
        return "\n".join(lines) + "\n"

    def _groups_note(self) -> str:
        if self.n_groups is None:
            return ""
        return (f" in {self.n_groups} groups ({self._units()} resampled whole; intra-class "
                f"correlation of the normal scores {self.icc:.2f})")

    def _units(self) -> str:
        if self.block_size == 1:
            return f"{self.n_groups} groups"
        return (f"blocks of {self.block_size} consecutive groups, as consecutive groups are "
                "dependent")

    def save(self, directory: str | Path) -> list[Path]:
        """Write comparison.csv, pairwise.csv, coverage.csv, summary.md, the coverage figure
        and report.html to ``directory``; returns the written paths."""
        return list(report_call("predictive", "save_predictive_comparison", self,
                                Path(directory)))

    def __repr__(self) -> str:
        models = list(dict.fromkeys(self.scores.index.get_level_values(0)))
        return f"PredictiveComparison({', '.join(models)}; M={self.n_rows})"


def _common(values: list[tuple[float, ...]]) -> tuple[float, ...]:
    out = list(values[0])
    for other in values[1:]:
        out = [x for x in out if any(abs(x - o) < 1e-9 for o in other)]
    return tuple(out)


def _quantile_columns(pred: Predictive, levels: Sequence[float] | FloatArray) -> FloatArray:
    return np.column_stack([pred.quantile(float(t)) for t in levels])


def _row_scores(y: FloatArray, pred: Predictive, check: Sequence[float],
                levels: Sequence[float], full: bool, parametric: bool) -> dict[str, FloatArray]:
    tau = np.asarray(check, dtype=np.float64)
    out = {"check_score": pinball(y, _quantile_columns(pred, tau), tau).mean(axis=1)}
    for level in levels:
        low, high = pred.interval(level)
        out[f"interval_score_{level:g}"] = interval_score_rows(y, low, high, level)
    if full:
        out["crps"] = pred.crps(y)
    if parametric:
        assert isinstance(pred, _LocationScale)
        out["nll"] = -pred.log_density(y)
    out["mae"] = np.abs(y - pred.point)
    out["rmse"] = (y - pred.point) ** 2  # mean, then square root
    return out


def compare_predictive(
    models: Mapping[str, Predictive],
    y_true: ArrayLike,
    *,
    levels: Sequence[float] | None = None,
    n_boot: int = 500,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    groups: NDArray[np.intp] | None = None,
) -> PredictiveComparison:
    """Scores, paired differences, ranking and coverage of predictive models (module doc);
    ``groups``: integer codes 0..G-1 of the rows' groups (``compare`` factorizes the labels),
    rows in groups of one row giving the numbers without groups."""
    if len(models) < 2:
        raise ValueError("compare needs at least 2 models")
    for name, pred in models.items():
        if not isinstance(pred, Predictive):
            raise ValueError(f"models[{name!r}]: mix of predictive objects and (errors, "
                             "uncertainties) pairs; give every model as a predictive object")
    n_boot = integer(n_boot, "n_boot", minimum=40)
    probability(confidence)
    sizes = {len(p) for p in models.values()}
    y_all = np.asarray(y_true, dtype=np.float64)
    if len(sizes) != 1 or y_all.ndim != 1 or y_all.size not in sizes:
        raise ValueError(f"y_true ({y_all.size} rows) and every model must have the same rows "
                         f"(models: {sorted(sizes)})")
    keep = np.isfinite(y_all)
    for pred in models.values():
        keep &= pred.usable
    if int(keep.sum()) < MIN_ROWS:
        raise ValueError(f"y_true: {int(keep.sum())} rows usable by every model; at least "
                         f"{MIN_ROWS} are needed")
    preds = {name: p.take(keep) for name, p in models.items()}
    y = y_all[keep]
    index = None if groups is None else GroupIndex.from_codes(
        np.unique(groups[keep], return_inverse=True)[1])
    if index is not None and index.singleton:
        index = None
    if index is not None and index.n_groups < 2:
        raise ValueError("groups: the rows usable by every model are in one group; the "
                         "comparison resamples groups and needs at least 2")
    quantile_models = [p for p in preds.values() if isinstance(p, Quantiles)]
    check = (_common([tuple(p.levels) for p in quantile_models]) if quantile_models
             else tuple(CHECK_LEVELS))
    if levels is not None:
        common = tuple(probability(float(x), "levels") for x in levels)
    elif quantile_models:
        common = _common([p.central_levels for p in quantile_models])
    else:
        common = DEFAULT_LEVELS
    given_groups = None if index is None else index.n_groups
    block_size = 1
    if index is not None:  # dependent consecutive groups: blocks of them are the units
        near = min(common, key=lambda a: abs(a - 0.9))
        widths = [np.subtract(*p.interval(near)[::-1]) for p in preds.values()]
        serial = widest_blocks([p.standardized(y, near) for p in preds.values()], index,
                               [{"interval width": w} for w in widths])
        if serial.block_size > 1:
            index = GroupIndex.nested(serial.codes, index.codes)
            block_size = serial.block_size
    full = not quantile_models
    parametric = all(isinstance(p, _LocationScale) for p in preds.values())
    rows = {name: _row_scores(y, p, check or (0.5,), common, full, parametric)
            for name, p in preds.items()}
    if not check:
        for r in rows.values():
            r.pop("check_score")
    boot_seed, cov_seed, pit_seed = seed_sequence(seed).spawn(3)
    m = y.size
    names = list(preds)
    score_names = list(rows[names[0]])
    boot = _paired_bootstrap(rows, n_boot, boot_seed, index)

    def finish(s: str, v: FloatArray | float) -> FloatArray | float:
        return np.sqrt(v) if s == "rmse" else v

    def influence(n: str, s: str) -> FloatArray:  # rows' linearised contributions
        return rows[n][s] / (2.0 * float(finish(s, rows[n][s].mean()))) if s == "rmse" \
            else rows[n][s]

    tail = 100 * (1 - confidence) / 2
    table = []
    for n in names:
        for s in score_names:
            reps = finish(s, boot[n][s])
            value = float(finish(s, rows[n][s].mean()))
            lo, hi = _widened(value, float(np.percentile(reps, tail)),
                              float(np.percentile(reps, 100 - tail)), influence(n, s), index,
                              confidence)
            table.append({"model": n, "score": s, "value": value, "ci_low": lo, "ci_high": hi})
    diffs = []
    for a, b in itertools.combinations(names, 2):
        for s in score_names:
            d = np.asarray(finish(s, boot[a][s])) - np.asarray(finish(s, boot[b][s]))
            delta = float(finish(s, rows[a][s].mean())) - float(finish(s, rows[b][s].mean()))
            h = influence(a, s) - influence(b, s)
            lo, hi = _widened(delta, float(np.percentile(d, tail)),
                              float(np.percentile(d, 100 - tail)), h, index, confidence)
            far = min(int(np.count_nonzero(d <= 0)), int(np.count_nonzero(d >= 0)))
            p_value = min(1.0, 2.0 * (far + 1) / (n_boot + 1))
            if index is not None:
                p_value = max(p_value, _cluster_t_p(delta, h, index))
            better = "tie" if lo <= 0 <= hi else (a if hi < 0 else b)
            diffs.append({"model_a": a, "model_b": b, "score": s, "delta": delta,
                          "ci_low": lo, "ci_high": hi, "p_value": p_value, "better": better})
    scores = pd.DataFrame(table).set_index(["model", "score"])
    differences = pd.DataFrame(diffs).set_index(["model_a", "model_b", "score"])
    scores["rank"] = [
        1 + sum(1 for r in diffs if r["score"] == s and r["better"] not in ("tie", n)
                and n in (r["model_a"], r["model_b"]))
        for n, s in scores.index]
    coverage = []
    children = cov_seed.spawn(len(names))
    icc = None if index is None else _scores_icc(y, preds, common, index, pit_seed)
    for n, child in zip(names, children, strict=True):
        for level, c in zip(common, child.spawn(max(1, len(common))), strict=False):
            hit = preds[n].covered(y, level, seed=c)
            k = int(hit.sum())
            if index is None or icc is None:
                bounds = clopper_pearson_interval(k, m)
                interval = (float(bounds[0]), float(bounds[1]), binomial_p_value(k, m, level))
            else:
                share = cluster_proportion(hit, index, level, confidence=confidence,
                                           indicator_icc=gaussian_indicator_icc(icc, level))
                interval = (share.ci_low, share.ci_high, share.p_value)
            coverage.append({"model": n, "level": level, "value": k / m, "ci_low": interval[0],
                             "ci_high": interval[1], "p_value": interval[2]})
    cov = (pd.DataFrame(coverage).set_index(["model", "level"]) if coverage
           else pd.DataFrame(columns=["value"]))
    assert math.isfinite(float(y.mean()))
    return PredictiveComparison(scores, differences, cov, tuple(check), tuple(common), m,
                                n_groups=given_groups, icc=icc, block_size=block_size)


def _widened(value: float, low: float, high: float, h: FloatArray, groups: GroupIndex | None,
             confidence: float) -> tuple[float, float]:
    """The percentile interval, or with ``groups`` its union with the cluster-robust
    t(G - 1) interval value ± t se, se the CR1 standard error of the mean of the rows'
    linearised contributions ``h`` (:func:`uqval.stats.groups.cluster_mean_se`): with a few
    dozen groups the percentile interval of resampled groups is too narrow (20 groups of 30,
    ICC 0.8: equal models called different in 12-16 % of 100 sets at 95 %,
    ``benchmarks/group_compare_rates.md``; t(G - 1) critical values with few clusters:
    Cameron & Miller 2015, Sect. VI.C)."""
    if groups is None:
        return low, high
    half = float(special.stdtrit(groups.n_groups - 1, 0.5 + confidence / 2.0)) * \
        cluster_mean_se(h, groups)[1]
    return min(low, value - half), max(high, value + half)


def _cluster_t_p(delta: float, h: FloatArray, groups: GroupIndex) -> float:
    """Two-sided p-value of a zero difference by the cluster-robust t test with G - 1
    degrees of freedom on the rows' linearised contributions ``h``."""
    se = cluster_mean_se(h, groups)[1]
    if not se > 0:
        return 1.0 if delta == 0 else 0.0
    return 2.0 * float(special.stdtr(groups.n_groups - 1, -abs(delta) / se))


def _paired_bootstrap(rows: Mapping[str, Mapping[str, FloatArray]], n_boot: int,
                      seed: np.random.SeedSequence, groups: GroupIndex | None
                      ) -> dict[str, dict[str, FloatArray]]:
    """Mean of every model's row scores on the same ``n_boot`` resamples: of the rows, or
    with ``groups`` of whole groups, sum_g* S_g / sum_g* n_g over the drawn groups g*."""
    names = list(rows)
    score_names = list(rows[names[0]])
    boot = {n: {s: np.empty(n_boot) for s in score_names} for n in names}
    if groups is None:
        m = next(iter(rows[names[0]].values())).size
        for block in stream_blocks(seed, n_boot, m):
            idx = block.indices(m)
            for n in names:
                for s in score_names:
                    boot[n][s][block.start:block.stop] = rows[n][s][idx].mean(axis=1)
        return boot
    counts = groups.counts.astype(np.float64)
    sums = {n: {s: groups.sums(rows[n][s]) for s in score_names} for n in names}
    for block in stream_blocks(seed, n_boot, groups.n_groups):
        idx = block.indices(groups.n_groups)
        drawn = counts[idx].sum(axis=1)
        for n in names:
            for s in score_names:
                boot[n][s][block.start:block.stop] = sums[n][s][idx].sum(axis=1) / drawn
    return boot


def _scores_icc(y: FloatArray, preds: Mapping[str, Predictive], levels: Sequence[float],
                groups: GroupIndex, seed: np.random.SeedSequence) -> float:
    """Intra-class correlation of the rows' normal scores (Φ^-1(PIT), or the position in the
    widest interval) of the first model with a shape, else of the first model."""
    pred = next((p for p in preds.values() if p.has_shape), next(iter(preds.values())))
    return latent_icc(normal_scores(y, pred, levels or DEFAULT_LEVELS, seed), groups)
