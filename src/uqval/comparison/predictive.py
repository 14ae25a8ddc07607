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
Randomness: ``SeedSequence(seed)`` gives one child to the bootstrap and one to the coverage.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

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

    def summary(self) -> str:
        """The ranking per score and the coverage, as Markdown."""
        lines = ["# Which predictive is better?", "",
                 f"{self.n_rows} rows; scores every model has (lower is better), with 95 % "
                 "paired-bootstrap intervals; rank 1 + the number of models significantly "
                 "better.", ""]
        for score, group in self.scores.groupby(level="score", sort=False):
            best = group.sort_values("rank")
            parts = [f"{model} {r['value']:.4g} [{r['ci_low']:.4g}, {r['ci_high']:.4g}] "
                     f"(rank {int(r['rank'])})" for (model, _), r in best.iterrows()]
            lines.append(f"- **{score}**: " + "; ".join(parts))
        lines += ["", "## Coverage at the common levels", ""]
        for (model, level), r in self.coverage.iterrows():
            lines.append(f"- {model}, {100 * level:g} %: {100 * r['value']:.1f} % "
                         f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] "
                         f"(exact binomial p = {r['p_value']:.2g})")
        return "\n".join(lines) + "\n"

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
) -> PredictiveComparison:
    """Scores, paired differences, ranking and coverage of predictive models (module doc)."""
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
    quantile_models = [p for p in preds.values() if isinstance(p, Quantiles)]
    check = (_common([tuple(p.levels) for p in quantile_models]) if quantile_models
             else tuple(CHECK_LEVELS))
    if levels is not None:
        common = tuple(probability(float(x), "levels") for x in levels)
    elif quantile_models:
        common = _common([p.central_levels for p in quantile_models])
    else:
        common = DEFAULT_LEVELS
    full = not quantile_models
    parametric = all(isinstance(p, _LocationScale) for p in preds.values())
    rows = {name: _row_scores(y, p, check or (0.5,), common, full, parametric)
            for name, p in preds.items()}
    if not check:
        for r in rows.values():
            r.pop("check_score")
    boot_seed, cov_seed = seed_sequence(seed).spawn(2)
    m = y.size
    names = list(preds)
    score_names = list(rows[names[0]])
    boot = {n: {s: np.empty(n_boot) for s in score_names} for n in names}
    for block in stream_blocks(boot_seed, n_boot, m):
        idx = block.indices(m)
        for n in names:
            for s in score_names:
                boot[n][s][block.start:block.stop] = rows[n][s][idx].mean(axis=1)

    def finish(s: str, v: FloatArray | float) -> FloatArray | float:
        return np.sqrt(v) if s == "rmse" else v

    tail = 100 * (1 - confidence) / 2
    table = []
    for n in names:
        for s in score_names:
            reps = finish(s, boot[n][s])
            table.append({"model": n, "score": s, "value": float(finish(s, rows[n][s].mean())),
                          "ci_low": float(np.percentile(reps, tail)),
                          "ci_high": float(np.percentile(reps, 100 - tail))})
    diffs = []
    for a, b in itertools.combinations(names, 2):
        for s in score_names:
            d = np.asarray(finish(s, boot[a][s])) - np.asarray(finish(s, boot[b][s]))
            lo, hi = float(np.percentile(d, tail)), float(np.percentile(d, 100 - tail))
            far = min(int(np.count_nonzero(d <= 0)), int(np.count_nonzero(d >= 0)))
            better = "tie" if lo <= 0 <= hi else (a if hi < 0 else b)
            delta = float(finish(s, rows[a][s].mean())) - float(finish(s, rows[b][s].mean()))
            diffs.append({"model_a": a, "model_b": b, "score": s, "delta": delta,
                          "ci_low": lo, "ci_high": hi,
                          "p_value": min(1.0, 2.0 * (far + 1) / (n_boot + 1)),
                          "better": better})
    scores = pd.DataFrame(table).set_index(["model", "score"])
    differences = pd.DataFrame(diffs).set_index(["model_a", "model_b", "score"])
    scores["rank"] = [
        1 + sum(1 for r in diffs if r["score"] == s and r["better"] not in ("tie", n)
                and n in (r["model_a"], r["model_b"]))
        for n, s in scores.index]
    coverage = []
    children = cov_seed.spawn(len(names))
    for n, child in zip(names, children, strict=True):
        for level, c in zip(common, child.spawn(max(1, len(common))), strict=False):
            hit = preds[n].covered(y, level, seed=c)
            k = int(hit.sum())
            c_lo, c_hi = clopper_pearson_interval(k, m)
            coverage.append({"model": n, "level": level, "value": k / m, "ci_low": float(c_lo),
                             "ci_high": float(c_hi), "p_value": binomial_p_value(k, m, level)})
    cov = (pd.DataFrame(coverage).set_index(["model", "level"]) if coverage
           else pd.DataFrame(columns=["value"]))
    assert math.isfinite(float(y.mean()))
    return PredictiveComparison(scores, differences, cov, tuple(check), tuple(common), m)
