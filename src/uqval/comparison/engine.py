"""Comparison of the uncertainties of several models evaluated on the same points.

:func:`compare` takes ``{"model A": (errors, uncertainties), ...}`` (same M rows, same order
for every model) and returns a :class:`ModelComparison` with:

* ``scores``: every score of :mod:`uqval.scores` per model, with its 95 % paired-bootstrap
  percentile interval and its probabilistic reference (:func:`uqval.scores.calibration_scores`:
  mean and 95 % interval of the score for calibrated errors simulated with the model's uE,
  and whether the value is inside); with ``features``, also the ZMSE on equal-count bins of
  each feature (adaptivity, P003 Sect. III.B) with its own simulated reference;
* ``differences``: for every pair (A, B) and score, Δ = score(A) − score(B) with its paired
  bootstrap interval and two-sided p-value p = min(1, 2 min(P*(Δ* ≤ 0), P*(Δ* ≥ 0))): the rows
  are resampled together, so every model sees the same resample (the pairing removes the
  variance shared by the models). For the AUUCC (P004) the paired permutation test of
  :func:`uqval.ucc.auucc_permutation_test` is used (intervals of errors ±uE, y = E, ŷ = 0;
  excess-deficit coordinates in units of sd(E), the AUUCC of :func:`uqval.validate`);
* ``validations``: :func:`uqval.validate` of each model (average, consistency, adaptivity
  verdicts; ``verdicts`` gives one row per model);
* ``murphy``: the Murphy diagram of the variance forecasts uE² (:mod:`uqval.scores.murphy`):
  mean elementary scores over a threshold grid and, per pair, whether one model is better
  for every consistent score of the variance beyond a simultaneous multiplier-bootstrap band
  (``n_boot`` replicates) or the curves cross;
* ``ranking``: per score with an orientation (lower or higher is better), rank =
  1 + number of models that are *significantly* better, i.e. whose paired-difference
  interval excludes 0 in their favour; models whose difference interval contains 0 tie.
  Paired intervals are used rather than the overlap of the marginal intervals, which ignores
  the pairing and is much too conservative.

Randomness: ``SeedSequence(seed).spawn`` gives one child to the bootstrap, one per model to
its references, and one per pair to the permutation test; a second ``spawn`` gives one child
per model to its validation.

``.save(directory)`` writes the tables, overlay figures and a self-contained HTML report
(:mod:`uqval.report.comparison`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import (
    MAX_RESAMPLES,
    aligned,
    flag,
    integer,
    probability,
    seed_value,
    unit_scaled,
)
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import stream_blocks
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.binned_errors import zmse_batch
from uqval.comparison.result import ModelComparison
from uqval.predictive import Predictive
from uqval.scores._input import check_bins, check_inputs, check_vector, sorted_edges
from uqval.scores.murphy import murphy_diagram
from uqval.scores.references import SCORES, ScoreSettings, calibration_scores, score_rows
from uqval.stats.groups import GroupIndex
from uqval.stats.serial_groups import widest_blocks
from uqval.stats.synthetic import DistributionName, predictive
from uqval.ucc import PredictionIntervals, auucc_permutation_test
from uqval.validation import validate
from uqval.validation.degenerate import check_errors_not_all_zero
from uqval.validation.inputs import MIN_ROWS, refuse_copies
from uqval.validation.rules import MIN_BIN_COUNT

__all__ = ["compare"]



def _checked(
    models: Mapping[str, tuple[ArrayLike, ArrayLike]], features: Mapping[str, ArrayLike] | None
) -> tuple[dict[str, tuple[FloatArray, FloatArray]], dict[str, FloatArray]]:
    if not isinstance(models, Mapping):
        raise ValueError(f"models must be a mapping name -> (errors, uncertainties), got "
                         f"{type(models).__name__}")
    if isinstance(features, pd.DataFrame):  # every column a feature, as in validate
        features = {str(c): features.iloc[:, i] for i, c in enumerate(features.columns)}
    if features is not None and not isinstance(features, Mapping):
        raise ValueError(f"features must be a mapping name -> values (or None), got "
                         f"{type(features).__name__}")
    if len(models) < 2:
        raise ValueError(f"models must hold at least 2 models, got {len(models)}")
    shown: dict[str, object] = {}
    for name, pair in models.items():
        if not str(name).strip():
            raise ValueError(f"models: name {name!r} is empty; give every model a name")
        if str(name) in shown:
            raise ValueError(f"models: names {shown[str(name)]!r} and {name!r} are the same "
                             f"name {str(name)!r}; rename one")
        shown[str(name)] = name
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            what = (f"{len(pair)} items" if isinstance(pair, (tuple, list))
                    else type(pair).__name__)
            raise ValueError(f"models[{name!r}] must be a pair (errors, uncertainties), got "
                             f"{what}")
    named = aligned({**{f"models[{k!r}]: {what}": v for k, pair in models.items()
                        for what, v in zip(("errors", "uncertainties"), pair, strict=True)},
                     **{f"features[{k!r}]": v for k, v in (features or {}).items()}})
    models = {k: (named[f"models[{k!r}]: errors"], named[f"models[{k!r}]: uncertainties"])
              for k in models}
    features = {k: named[f"features[{k!r}]"] for k in (features or {})}
    data = {}
    for name, pair in models.items():
        try:
            e, u = data[str(name)] = check_inputs(*pair)
            check_errors_not_all_zero(e, u)
            refuse_copies({"errors": e, "uncertainties": u}, "uncertainties")
        except ValueError as err:
            raise ValueError(f"models[{name!r}]: {err}") from None
        if unit_scaled(e, u)[2] != 1.0:
            big = float(max(np.abs(e).max(), u.max()))
            raise ValueError(
                f"models[{name!r}]: the values reach {big:.3g} (median uncertainty "
                f"{float(np.median(u)):.3g}): the scores square errors and uncertainties (and NLL "
                "takes their logarithm), which under- or overflows in floating point; express "
                "them in a unit where they lie between about 1e-75 and 1e75")
    sizes = {len(e) for e, _ in data.values()}
    if len(sizes) != 1:
        raise ValueError(f"models have different numbers of points: {sorted(sizes)}")
    m = sizes.pop()
    feats = {str(k): check_vector(v, f"features[{k!r}]") for k, v in (features or {}).items()}
    for k, v in feats.items():
        if v.size != m:
            raise ValueError(f"features[{k!r}] has {v.size} values, the models {m}")
    return data, feats


def _sorted_by(key: FloatArray, *arrays: FloatArray) -> list[FloatArray]:
    order = np.argsort(np.broadcast_to(key, arrays[0].shape), axis=-1, kind="stable")
    return [np.take_along_axis(np.broadcast_to(a, order.shape), order, axis=-1) for a in arrays]


def _feature_zmse(e: FloatArray, u: FloatArray, x: FloatArray, n_bins: int) -> FloatArray:
    """ZMSE on equal-count bins of the feature for each row (rows of e, u, x)."""
    e_s, u_s = _sorted_by(x, e, u)
    return zmse_batch(e_s, u_s, sorted_edges(e.shape[-1], n_bins))


def _group_codes(groups: ArrayLike, m: int) -> NDArray[np.intp]:
    """Integer codes 0..G-1 of the points' group labels (any labels, none missing)."""
    codes, _ = pd.factorize(np.asarray(groups, dtype=object))
    if codes.size != m or (codes < 0).any():
        raise ValueError(f"groups must hold one label per point ({m}), none missing")
    return np.asarray(codes, dtype=np.intp)


def _bootstrap(
    data: dict[str, tuple[FloatArray, FloatArray]],
    feats: dict[str, FloatArray],
    settings: ScoreSettings,
    n_boot: int,
    seed: np.random.SeedSequence,
    groups: GroupIndex | None = None,
) -> dict[str, dict[str, FloatArray]]:
    """Scores of every model on the same n_boot row resamples: {model: {score: (n_boot,)}};
    with ``groups``, on the same resamples of whole groups (cluster bootstrap: G groups drawn
    with replacement per resample, their rows together)."""
    m = next(iter(data.values()))[0].size
    out: dict[str, dict[str, FloatArray]] = {name: {} for name in data}
    if groups is not None:
        members = np.split(groups.order, groups.starts[1:-1])
        for block in stream_blocks(seed, n_boot, groups.n_groups):
            drawn = block.indices(groups.n_groups)
            for r, chosen in enumerate(drawn):
                idx = np.concatenate([members[g] for g in chosen])[None]
                for name, (e, u) in data.items():
                    e_r, u_r = e[idx], u[idx]
                    e_s, u_s = _sorted_by(u_r, e_r, u_r)
                    values = score_rows(e_s, u_s, settings)
                    for fname, x in feats.items():
                        values[f"zmse[{fname}]"] = _feature_zmse(e_r, u_r, x[idx],
                                                                 settings.n_bins)
                    for score, v in values.items():
                        out[name].setdefault(score, np.empty(n_boot))[block.start + r] = v[0]
        return out
    for block in stream_blocks(seed, n_boot, m):
        idx = block.indices(m)
        for name, (e, u) in data.items():
            e_r, u_r = e[idx], u[idx]
            e_s, u_s = _sorted_by(u_r, e_r, u_r)
            values = score_rows(e_s, u_s, settings)
            for fname, x in feats.items():
                values[f"zmse[{fname}]"] = _feature_zmse(e_r, u_r, x[idx], settings.n_bins)
            for score, v in values.items():
                out[name].setdefault(score, np.empty(n_boot))[block.start : block.stop] = v
    return out


def _feature_reference(
    u: FloatArray, x: FloatArray, settings: ScoreSettings, n_sim: int, seed: np.random.SeedSequence
) -> FloatArray:
    values = []
    for block in stream_blocks(seed, n_sim, u.size):
        eps = settings.distribution.draw(block.values(), (block.size, u.size))
        values.append(_feature_zmse(u * eps, np.broadcast_to(u, eps.shape), x, settings.n_bins))
    return np.concatenate(values)


def _p_value(deltas: FloatArray) -> float:
    """Two-sided paired-bootstrap p-value with the add-one rule (Davison & Hinkley 1997,
    Eq. 4.11): 2 (1 + #{d on the far side of 0})/(B + 1), never 0; its floor 2/(B + 1) says
    "at most this" with B resamples."""
    deltas = deltas[np.isfinite(deltas)]  # a score undefined for the data (constant uE)
    b = deltas.size
    if b == 0:
        return float("nan")
    tail = min(int(np.count_nonzero(deltas <= 0.0)), int(np.count_nonzero(deltas >= 0.0)))
    return min(1.0, 2.0 * (tail + 1) / (b + 1))


def _better(row: dict, orientation: str, alpha: float) -> str:
    """Which model of the pair is better on the score: ``model_a``, ``model_b``, "tie" (no
    significant difference) or "" (the score has no better direction). Bootstrap scores are
    judged by their paired interval of the difference, the AUUCC (lower is better) by its
    permutation p-value and the sign of the difference."""
    if orientation not in ("lower", "higher") or not np.isfinite(row["p_value"]):
        return ""
    if row["score"] == "auucc" or not np.isfinite(row["ci_low"]):
        significant = row["p_value"] <= alpha
        a_lower = row["delta"] < 0.0
    else:
        significant = row["ci_high"] < 0.0 or row["ci_low"] > 0.0
        a_lower = row["ci_high"] < 0.0
    if not significant:
        return "tie"
    a_better = a_lower if orientation == "lower" else not a_lower
    return str(row["model_a"] if a_better else row["model_b"])


def _ranks(table: pd.DataFrame, names: Sequence[str], score: str, better: str) -> list[int]:
    ranks = []
    for a in names:
        beaten_by = 0
        for b in names:
            if a == b:
                continue
            row = table.loc[(b, a, score)] if (b, a, score) in table.index else None
            if row is None:  # stored as (a, b): flip the sign
                r = table.loc[(a, b, score)]
                low, high = -r["ci_high"], -r["ci_low"]
            else:
                low, high = row["ci_low"], row["ci_high"]
            # interval of score(b) - score(a)
            if (better == "lower" and high < 0.0) or (better == "higher" and low > 0.0):
                beaten_by += 1
        ranks.append(1 + beaten_by)
    return ranks


def compare(
    models: Mapping[str, tuple[ArrayLike, ArrayLike]] | Mapping[str, Predictive],
    features: Mapping[str, ArrayLike] | None = None,
    *,
    n_bins: int | None = None,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    n_boot: int = 500,
    n_sim: int = 500,
    n_permutations: int = 2000,
    confidence: float = 0.95,
    seed: SeedLike = 0,
    validate_models: bool = True,
    y_true: ArrayLike | None = None,
    levels: Sequence[float] | None = None,
    groups: ArrayLike | None = None,
) -> Any:
    """Compare the uncertainties of several models on the same points (module doc).

    **Predictive outputs.** With ``y_true=`` and every model a predictive object
    (:class:`uqval.Normal`, :class:`uqval.Ensemble`, :class:`uqval.Quantiles`, ...), models of
    different kinds are compared on the scores that apply to all of them (check score at common
    quantile levels, interval scores at common levels, CRPS and NLL where every model has them)
    and their coverage (:mod:`uqval.comparison.predictive`; returns a
    :class:`~uqval.comparison.predictive.PredictiveComparison`; ``features``, ``n_sim``,
    ``distribution`` and the validations do not apply there).

    Args:
        models: name -> (errors, uncertainties), same points in the same order (or name ->
            predictive object, with ``y_true``).
        features: optional name -> feature values of the points (ZMSE along each feature).
        n_bins: bins of the binned scores; default round(sqrt(M)).
        distribution, nu: predictive distribution (see :mod:`uqval.scores.proper`).
        n_boot: paired bootstrap resamples; n_sim: simulated sets of each reference;
        n_permutations: largest number of permutations of each AUUCC test (sequential
            stopping at the 20th exceedance, :func:`uqval.ucc.auucc_permutation_test`).
        confidence: level of every interval.
        seed: seed of all random steps.
        validate_models: also run :func:`uqval.validate` on each model (``n_boot``
            replicates, false-alarm rate 1 - ``confidence``; skipped below 60 points).
        groups: the group of every point (any labels) when points come in groups whose
            errors share a part: the paired bootstrap resamples whole groups (its intervals
            and p-values of differences), the Murphy bands draw one multiplier per group,
            the AUUCC test of each pair swaps the two models on whole groups, and each
            validation gets ``groups=``. The references of calibrated scores (``n_sim``)
            still treat the points as independent (docs/choices.md, "Rows that come in
            groups"). With predictive objects: the paired bootstrap of whole groups and
            the coverage's Korn-Graubard intervals over the groups.

    Examples:
        The same errors with the right uE and with uE half too small: the second model ranks
        worse on the calibration scores and ties on the accuracy scores and the rank
        correlation (same errors, uE only rescaled):

        >>> import numpy as np
        >>> from uqval import compare
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 500)
        >>> e = u * rng.standard_normal(500)
        >>> res = compare({"good": (e, u), "too small": (e, u / 2)}, n_boot=200, n_sim=200,
        ...               n_permutations=200, validate_models=False)
        >>> ranks = res.ranking[["nll", "crps", "ence", "rmse", "rank_correlation"]]
        >>> for model, row in ranks.iterrows():
        ...     print(f"{model:10}", row.tolist())
        good       [1, 1, 1, 1, 1]
        too small  [2, 2, 2, 1, 1]
    """
    seed = seed_value(seed)
    n_boot, n_sim, n_permutations = (
        integer(value, name, minimum=2, maximum=MAX_RESAMPLES) for name, value in (
            ("n_boot", n_boot), ("n_sim", n_sim), ("n_permutations", n_permutations)))
    validate_models = flag(validate_models, "validate_models")
    if y_true is not None or (isinstance(models, Mapping)
                              and any(isinstance(v, Predictive) for v in models.values())):
        if y_true is None:
            raise ValueError("y_true is needed to compare predictive objects")
        from uqval.comparison.predictive import compare_predictive

        codes = None if groups is None else _group_codes(groups, np.size(y_true))
        return compare_predictive(cast(Mapping[str, Predictive], models), y_true, levels=levels,
                                  n_boot=n_boot, confidence=confidence, seed=seed, groups=codes)
    data, feats = _checked(cast(Mapping[str, tuple[ArrayLike, ArrayLike]], models), features)
    probability(confidence)
    names = list(data)
    m = next(iter(data.values()))[0].size
    settings = ScoreSettings(n_bins=check_bins(n_bins, m), distribution=predictive(distribution, nu))
    pairs = list(itertools.combinations(names, 2))
    root = seed_sequence(seed)
    boot_seed, *rest = root.spawn(1 + len(names) * (1 + len(feats)) + len(pairs))
    group_index = given = serial = None
    if groups is not None:
        group_index = GroupIndex.from_codes(_group_codes(groups, m))
        group_index = given = None if group_index.singleton else group_index
    if group_index is not None:  # dependent consecutive groups: blocks of them are the units
        serial = widest_blocks([e / u for e, u in data.values()], group_index,
                               [{"uncertainty": u, **feats} for _, u in data.values()])
        if serial.block_size > 1:
            group_index = GroupIndex.nested(serial.codes, group_index.codes)
    boot = _bootstrap(data, feats, settings, n_boot, boot_seed, group_index)
    alpha = 1.0 - confidence
    q = [alpha / 2.0, 1.0 - alpha / 2.0]
    rows = []
    for i, name in enumerate(names):
        e, u = data[name]
        ref = calibration_scores(
            e, u, n_bins=settings.n_bins, distribution=distribution, nu=nu, n_sim=n_sim,
            confidence=confidence, seed=rest[i],
        )
        entries = [(r.name, r.value, r.ref_mean, r.ref_low, r.ref_high) for r in ref]
        for k, (fname, x) in enumerate(feats.items()):
            sim = _feature_reference(u, x, settings, n_sim, rest[len(names) * (1 + k) + i])
            value = float(_feature_zmse(e[None], u[None], x[None], settings.n_bins)[0])
            low, high = np.quantile(sim, q)
            entries.append((f"zmse[{fname}]", value, float(sim.mean()), float(low), float(high)))
        for score, value, ref_mean, ref_low, ref_high in entries:
            ci_low, ci_high = np.quantile(boot[name][score], q)
            rows.append({
                "model": name, "score": score, "value": value, "ci_low": ci_low,
                "ci_high": ci_high, "ref_mean": ref_mean, "ref_low": ref_low,
                "ref_high": ref_high, "inside": bool(ref_low <= value <= ref_high),
            })
    scores = pd.DataFrame(rows).set_index(["model", "score"])
    diff_rows = []
    for p, (a, b) in enumerate(pairs):
        for score in boot[a]:
            d = boot[a][score] - boot[b][score]
            low, high = np.quantile(d, q)
            diff_rows.append({
                "model_a": a, "model_b": b, "score": score,
                "delta": scores.loc[(a, score), "value"] - scores.loc[(b, score), "value"],
                "ci_low": low, "ci_high": high, "p_value": _p_value(d),
            })
        (ea, ua), (eb, ub) = data[a], data[b]
        zero = np.zeros(m)
        # the AUUCC of uqval.validate: excess-deficit coordinates in units of sd(E)
        test = auucc_permutation_test(
            ea, PredictionIntervals.from_uncertainty(zero, ua),
            PredictionIntervals.from_uncertainty(ea - eb, ub), "excess", "deficit",
            normalize="std", n_permutations=n_permutations, exceedances=20,
            seed=int(rest[len(names) * (1 + len(feats)) + p].generate_state(1)[0]),
            groups=None if group_index is None else group_index.codes,
        )
        diff_rows.append({
            "model_a": a, "model_b": b, "score": "auucc", "delta": test.delta,
            "ci_low": np.nan, "ci_high": np.nan, "p_value": test.p_value,
        })
    orientation = {s: SCORES[s][1] for s in SCORES} | {f"zmse[{f}]": "lower" for f in feats}
    for r in diff_rows:
        r["better"] = _better(r, "lower" if r["score"] == "auucc" else orientation.get(r["score"], ""),
                              alpha)
    differences = pd.DataFrame(diff_rows).set_index(["model_a", "model_b", "score"])
    ranked = [s for s, o in orientation.items() if o in ("lower", "higher")]
    ranking = pd.DataFrame(
        {s: _ranks(differences, names, s, orientation[s]) for s in ranked}, index=names
    )
    ranking.index.name = "model"
    validations = {}
    if validate_models and m >= MIN_ROWS:
        for name, child in zip(names, root.spawn(len(names)), strict=True):
            e, u = data[name]
            validations[name] = validate(
                e, u, feats, seed=int(child.generate_state(1)[0]), n_boot=n_boot,
                # validate's bins hold at least MIN_BIN_COUNT rows (n_bins is the scores')
                n_bins=None if n_bins is None else min(n_bins, max(2, m // MIN_BIN_COUNT)),
                alpha=1.0 - confidence, uncertainty_name="uE",
                groups=None if given is None else given.codes,  # validate tests them itself
            )
    murphy = murphy_diagram(data, n_boot=n_boot, confidence=confidence,
                            seed=root.spawn(1)[0],
                            groups=None if group_index is None else group_index.codes)
    parameters = {
        "seed": seed if isinstance(seed, int) else repr(seed), "n_boot": n_boot,
        "n_sim": n_sim, "n_permutations (AUUCC, at most)": n_permutations,
        "n_bins": settings.n_bins, "distribution": distribution, "confidence": confidence,
        "points": m,
    }
    if given is not None:
        parameters["groups"] = (f"{given.n_groups} groups; the paired bootstrap "
                                "resamples groups, the AUUCC tests swap whole groups, the "
                                "Murphy bands draw multipliers per group")
    if serial is not None:
        parameters["serial_groups"] = serial.describe() + " (the longest blocks any model needs)"
    return ModelComparison(
        scores=scores, differences=differences, ranking=ranking, n_boot=n_boot,
        confidence=confidence, validations=validations, data=data, features=feats,
        parameters=parameters, murphy=murphy,
    )
