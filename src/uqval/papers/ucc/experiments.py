"""Experiments of the UCC paper (P004): synthetic x·sin(x) (Sect. 4.1, Table 3, Fig. 4.1a)
and the GP vs GBR quantile-regression example (Sect. 2.2, Fig. 2, Figs 4.1b–c).

x·sin(x) recipe (App. 12–13.1; gaps filled as in docs/choices.md, "x·sin(x) recipe"):

* training: x ~ U(0, 20), 4000 points, y = x sin x + N(0, s_i²) with s_i = 1.5 + U(0, 1)
  (the 2021 scikit-learn quantile-GBR example's heteroscedastic noise);
* test: 1000 equidistant noise-free points on [0, 20]; held-out: 1000 noisy points drawn
  like the training set, used only to tune operating points (OPs);
* quantile-loss ``GradientBoostingRegressor`` at α = 0.025 and 0.975 (bounds), Table 2
  settings (:data:`GBR_TUNED`, :data:`GBR_WEAK`); the target ŷ is a least-squares GBR with
  the tuned settings, the 2021 scikit-learn example's ``loss="ls"`` prediction (the
  α = 0.5 quantile GBR is the option ``target="median"``);
* bands, all around the shared target ŷ (see :func:`xsinx_models`):
  GBR and GBR-Weak from their quantiles, ẑ^l = ŷ − q_0.025, ẑ^u = q_0.975 − ŷ (a ẑ ≤ 0,
  where a bound crosses ŷ, is replaced by the smallest positive ẑ of the same side, as
  UQ360's ``_sanitize_input`` does for zeros); symmetric Constant, Random ẑ_i ~ U(σ_ŷ/3, 3σ_ŷ) and
  ε-Perfect ẑ_i = abs(ŷ_i − y_i) + ε_i with ε_i ~ U(0, 2ε̄). ε̄ = 0.02 by default: Table 3
  gives this model an MAE of 0.022 and an Ex–De cost of 0.002 ≈ c ε̄ with c = 0.1.

Table 3 (:func:`xsinx_summary`, :func:`table3`): for each model and coordinate system the
AUUCC (trapezoid; docs/choices.md, "AUUCC integration rule") on the test set; "Cost" = Eq. 5 on the
test set at one scale k_OP per model, the "original calibration" that minimises the Ex–De cost
on the held-out set (App. 13.5: "the original calibration, which is tuned to minimize the cost
using a held-out set"; App. 13.1: "the operating point (OP) determined on the held-out
dataset"), used for both coordinate systems and for the MAE: this single OP reproduces the
printed Bw–MR costs, a Bw–MR-tuned OP does not
(docs/paper_inconsistencies.md#p004-table3-bw-mr-cost; ``tune_on=None`` tunes each system
on its own cost); "Opt. Cost" =
minimum of Eq. 5 on the test set; "MAE" = ξ(k_OP) + δ(k_OP) on the test set at the Ex–De OP, i.e.
MAE(k) of Remark 2 generalised to asymmetric bands (not checkable). The printed costs are
matched by c = 0.1 in raw units (c is unstated; docs/choices.md, "Cost weight in Tables
3–5"); c = 0.5 is also reported. An
alternative OP tuned to a 5 % held-out miss rate is reported as ``cost_mr5``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from uqval._internal.seeding import derive_seed
from uqval.ucc import (
    Axis,
    OperatingPoint,
    PredictionIntervals,
    UCCCurve,
    auucc,
    auucc_gain,
    auucc_permutation_test,
    constant_band,
    metrics_at_scale,
    min_cost,
    operating_point,
    scale_for_miss_rate,
    ucc_curve,
)

__all__ = [
    "COORDINATES",
    "GBR_GP",
    "GBR_TUNED",
    "GBR_WEAK",
    "GPExample",
    "GBRSettings",
    "ModelBands",
    "Target",
    "XSinXData",
    "XSinXResult",
    "gbr_bands",
    "gp_example",
    "least_squares_gbr",
    "quantile_gbr",
    "run_xsinx",
    "table3",
    "xsinx_data",
    "xsinx_models",
    "xsinx_permutation_tests",
    "xsinx_summary",
]

COORDINATES: dict[str, tuple[Axis, Axis]] = {
    "Ex-De": ("excess", "deficit"),
    "Bw-MR": ("bandwidth", "miss_rate"),
}
"""Coordinate systems of Table 3: excess–deficit and bandwidth–miss rate (x, y)."""

Target = Literal["ls", "median"]
"""Target predictor ŷ of the GBR bands: least-squares GBR or α = 0.5 quantile GBR (P004 leaves it
open; docs/choices.md, "x·sin(x) recipe")."""

@dataclass(frozen=True)
class GBRSettings:
    """Hyperparameters of a quantile-loss GradientBoostingRegressor (P004 Table 2)."""

    n_estimators: int
    max_depth: int
    subsample: float = 0.7
    learning_rate: float = 0.1
    min_samples_leaf: int = 9
    random_state: int = 42


GBR_TUNED = GBRSettings(n_estimators=500, max_depth=10)
GBR_WEAK = GBRSettings(n_estimators=50, max_depth=3)
GBR_GP = GBRSettings(n_estimators=250, max_depth=3)
"""Quantile GBR of the GP example (unstated in P004): the 2021 scikit-learn example's trees."""


def quantile_gbr(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_eval: Sequence[np.ndarray],
    settings: GBRSettings,
    alphas: Sequence[float] = (0.025, 0.5, 0.975),
) -> list[np.ndarray]:
    """Fit one quantile GBR per α on 1-D inputs; predictions of shape (len(alphas), n) per set."""
    preds = [np.empty((len(alphas), x.size)) for x in x_eval]
    for j, alpha in enumerate(alphas):
        model = GradientBoostingRegressor(loss="quantile", alpha=alpha, **asdict(settings))
        model.fit(x_train[:, None], y_train)
        for out, x in zip(preds, x_eval, strict=True):
            out[j] = model.predict(x[:, None])
    return preds


def least_squares_gbr(
    x_train: np.ndarray, y_train: np.ndarray, x_eval: Sequence[np.ndarray], settings: GBRSettings
) -> list[np.ndarray]:
    """Fit a least-squares GBR (the example's ``loss="ls"`` target) on 1-D inputs; predictions."""
    model = GradientBoostingRegressor(loss="squared_error", **asdict(settings))
    model.fit(x_train[:, None], y_train)
    return [model.predict(x[:, None]) for x in x_eval]


def _positive(z: np.ndarray) -> np.ndarray:
    """Replace ẑ ≤ 0 (crossed quantiles) by the smallest positive ẑ (UQ360's rule for zeros)."""
    return np.where(z > 0.0, z, np.min(z[z > 0.0]))


def _bands_around(y_pred: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> PredictionIntervals:
    """ẑ^l = ŷ − q_lo, ẑ^u = q_hi − ŷ around a given target; ẑ ≤ 0 go through :func:`_positive`."""
    return PredictionIntervals(y_pred, _positive(y_pred - lower), _positive(upper - y_pred))


def _median_bands(q: np.ndarray) -> PredictionIntervals:
    """Bands from rows (q_lo, median, q_hi) around the median.

    The three quantiles are first sorted per point (monotone rearrangement, Chernozhukov et
    al. 2010): separately fitted quantile GBRs cross where they extrapolate, and a median
    outside [q_lo, q_hi] would leave a near-zero band and a huge critical scale.
    """
    lo, median, hi = np.sort(q, axis=0)
    return _bands_around(median, lo, hi)


def gbr_bands(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_eval: Sequence[np.ndarray],
    settings: GBRSettings,
    target: Target = "ls",
    y_pred: Sequence[np.ndarray] | None = None,
) -> list[PredictionIntervals]:
    """Quantile-GBR bands (α = 0.025, 0.975) of one model on each evaluation set.

    The band is centred on ``y_pred`` when given (a shared target ŷ; the bounds are used as
    they are); otherwise on the model's own target: a least-squares GBR with the same
    settings (``target="ls"``, the scikit-learn example's ``loss="ls"`` prediction) or
    the α = 0.5 quantile GBR (``target="median"``, quantiles sorted per point).
    """
    if target not in get_args(Target):
        raise ValueError(f"target must be one of {get_args(Target)}, got {target!r}")
    if y_pred is None and target == "median":
        return [_median_bands(q) for q in quantile_gbr(x_train, y_train, x_eval, settings)]
    if y_pred is None:
        y_pred = least_squares_gbr(x_train, y_train, x_eval, settings)
    bounds = quantile_gbr(x_train, y_train, x_eval, settings, alphas=(0.025, 0.975))
    return [_bands_around(yp, lo, hi) for yp, (lo, hi) in zip(y_pred, bounds, strict=True)]


# --- x·sin(x) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class XSinXData:
    """Training (noisy), test (equidistant, noise-free) and held-out (noisy) sets."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    x_heldout: np.ndarray
    y_heldout: np.ndarray


def _noisy_xsinx(rng: np.random.Generator, n: int, x_max: float) -> tuple[np.ndarray, np.ndarray]:
    x = rng.uniform(0.0, x_max, n)
    sd = 1.5 + rng.random(n)  # sklearn 2021 example: dy = 1.5 + 1.0 * random
    return x, x * np.sin(x) + rng.normal(0.0, sd)


def xsinx_data(
    seed: int, n_train: int = 4000, n_test: int = 1000, n_heldout: int = 1000, x_max: float = 20.0
) -> XSinXData:
    """The x·sin(x) sets of App. 13.1 (docs/choices.md, "x·sin(x) recipe"), each drawn from its own
    derived seed."""
    x_train, y_train = _noisy_xsinx(
        np.random.default_rng(derive_seed(seed, "xsinx", "train")), n_train, x_max
    )
    x_ho, y_ho = _noisy_xsinx(
        np.random.default_rng(derive_seed(seed, "xsinx", "heldout")), n_heldout, x_max
    )
    x_test = np.linspace(0.0, x_max, n_test)
    return XSinXData(x_train, y_train, x_test, x_test * np.sin(x_test), x_ho, y_ho)


@dataclass(frozen=True)
class ModelBands:
    """A model's prediction intervals on the test and held-out sets."""

    name: str
    test: PredictionIntervals
    heldout: PredictionIntervals


def xsinx_models(
    data: XSinXData,
    seed: int,
    eps: float = 0.02,
    tuned: GBRSettings = GBR_TUNED,
    weak: GBRSettings = GBR_WEAK,
    weak_target: Literal["shared", "own"] = "shared",
    target: Target = "ls",
) -> dict[str, ModelBands]:
    """GBR, Constant, GBR-Weak, Random and ε-Perfect bands (Sect. 4.1), in Table 3 order.

    All models share the GBR target ŷ by default: Sect. 4.1 describes one "GBR target
    predictor" with quantile-GBR intervals from a tuned and a weak model, and Sect. 2.3
    requires a common ŷ for curves drawn on one graph. ŷ is a least-squares GBR with the
    tuned settings (``target="ls"``): the setup is "adopted from" the 2021 scikit-learn
    example, whose prediction is ``loss="ls"`` with quantile GBRs for the bounds;
    ``target="median"`` uses the α = 0.5 quantile GBR instead. GBR and GBR-Weak bands are
    their α = 0.025 / 0.975 bounds relative to ŷ, ẑ^l = ŷ − q_0.025, ẑ^u = q_0.975 − ŷ;
    ``weak_target="own"`` centres GBR-Weak on its own target of the same kind instead.
    Constant, Random and ε-Perfect are symmetric around ŷ; Random draws
    ẑ_i ~ U(σ_ŷ/3, 3σ_ŷ) with σ_ŷ the sd of ŷ on the same set; ε-Perfect uses the set's own
    y with ε_i ~ U(0, 2 eps).
    """
    if weak_target not in ("shared", "own"):
        raise ValueError(f"weak_target must be 'shared' or 'own', got {weak_target!r}")
    sets = (data.x_test, data.x_heldout)
    ys = (data.y_test, data.y_heldout)
    gbr = gbr_bands(data.x_train, data.y_train, sets, tuned, target)
    shared = [pi.y_pred for pi in gbr] if weak_target == "shared" else None
    gbr_weak = gbr_bands(data.x_train, data.y_train, sets, weak, target, shared)
    rng = np.random.default_rng(derive_seed(seed, "xsinx", "bands"))
    random_, perfect = [], []
    for pi, y in zip(gbr, ys, strict=True):
        s = float(np.std(pi.y_pred))
        random_.append(
            PredictionIntervals.from_half_widths(pi.y_pred, rng.uniform(s / 3, 3 * s, y.size))
        )
        noise = rng.uniform(0.0, 2.0 * eps, y.size)
        perfect.append(
            PredictionIntervals.from_half_widths(pi.y_pred, np.abs(pi.y_pred - y) + noise)
        )
    bands = {
        "GBR": gbr,
        "Constant": [constant_band(pi.y_pred) for pi in gbr],
        "GBR-Weak": gbr_weak,
        "Random": random_,
        "Eps-Perfect": perfect,
    }
    return {name: ModelBands(name, test, heldout) for name, (test, heldout) in bands.items()}


def _unit(y: np.ndarray, normalize: bool) -> float | None:
    return float(np.std(y)) if normalize else None


def xsinx_summary(
    data: XSinXData,
    models: Mapping[str, ModelBands],
    c_values: Sequence[float] = (0.1, 0.5),
    normalize: bool = False,
    target_miss_rate: float = 0.05,
    tune_on: Literal["Ex-De", "Bw-MR"] | None = "Ex-De",
) -> pd.DataFrame:
    """Long Table 3: one row per (model, coordinates, c).

    Columns: auucc (test), auucc_gain vs Constant (Eq. 6), k_op (minimiser of the held-out
    cost of the ``tune_on`` coordinates, one OP per model and c; ``None``: of each row's own
    coordinates), cost (test cost at k_op), k_opt and opt_cost (test minimum), mae (ξ + δ at
    the Ex–De k_op of the same c), mae_pred (mean abs(y − ŷ)), miss_rate_op, k_mr5 and cost_mr5 (OP at a
    ``target_miss_rate`` held-out miss rate). ``normalize``: axes in sd(y_test) units (the same unit
    for the held-out tuning), else raw units.
    """
    if tune_on is not None and tune_on not in COORDINATES:
        raise ValueError(f"tune_on must be one of {tuple(COORDINATES)} or None, got {tune_on!r}")
    unit = _unit(data.y_test, normalize)
    rows = []
    areas: dict[tuple[str, str], float] = {}
    for name, m in models.items():
        k_mr5 = scale_for_miss_rate(data.y_heldout, m.heldout, target_miss_rate)
        k_op = {
            (coords, c): min_cost(ucc_curve(data.y_heldout, m.heldout, *axes, unit), c).k
            for coords, axes in COORDINATES.items()
            for c in c_values
        }
        for coords, axes in COORDINATES.items():
            curve = ucc_curve(data.y_test, m.test, *axes, unit)
            areas[name, coords] = auucc(curve)
            tuned_on = tune_on or coords
            for c in c_values:
                op = operating_point(data.y_test, m.test, k_op[tuned_on, c], *axes, c, unit)
                opt = min_cost(curve, c)
                at_ed = metrics_at_scale(data.y_test, m.test, k_op["Ex-De", c])
                rows.append(
                    {
                        "model": name,
                        "coordinates": coords,
                        "c": c,
                        "auucc": areas[name, coords],
                        "k_op": k_op[tuned_on, c],
                        "cost": op.cost,
                        "miss_rate_op": op.miss_rate,
                        "k_opt": opt.k,
                        "opt_cost": opt.cost,
                        "mae": float(at_ed.excess[0] + at_ed.deficit[0]) / (unit or 1.0),
                        "mae_pred": float(np.mean(np.abs(data.y_test - m.test.y_pred)))
                        / (unit or 1.0),
                        "k_mr5": k_mr5,
                        "cost_mr5": operating_point(
                            data.y_test, m.test, k_mr5, *axes, c, unit
                        ).cost,
                    }
                )
    table = pd.DataFrame(rows)
    if "Constant" in models:
        ref = table["coordinates"].map(lambda cs: areas["Constant", cs])
        table.insert(
            4, "auucc_gain", [auucc_gain(a, r) for a, r in zip(table["auucc"], ref, strict=True)]
        )
    return table


def table3(summary: pd.DataFrame, c: float = 0.1) -> pd.DataFrame:
    """Table 3 layout (models × 7 columns) from :func:`xsinx_summary` at cost weight c."""
    sub = summary[summary["c"] == c]
    out = pd.DataFrame(index=pd.Index(sub["model"].unique(), name="model"))
    for coords in COORDINATES:
        part = sub[sub["coordinates"] == coords].set_index("model")
        out[f"{coords} AUUCC"] = part["auucc"]
        out[f"{coords} Cost"] = part["cost"]
        out[f"{coords} Opt. Cost"] = part["opt_cost"]
    out["MAE"] = sub[sub["coordinates"] == "Ex-De"].set_index("model")["mae"]
    return out


def xsinx_permutation_tests(
    data: XSinXData,
    models: Mapping[str, ModelBands],
    n_permutations: int = 10_000,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired permutation tests (docs/choices.md, "Permutation test") of the test-set AUUCCs for
    every pair and coordinates."""
    rows = []
    for (a, b), (coords, axes) in itertools.product(
        itertools.combinations(models, 2), COORDINATES.items()
    ):
        res = auucc_permutation_test(
            data.y_test,
            models[a].test,
            models[b].test,
            *axes,
            n_permutations=n_permutations,
            seed=derive_seed(seed, "xsinx", "perm", a, b, coords),
        )
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "coordinates": coords,
                "auucc_a": res.auucc_a,
                "auucc_b": res.auucc_b,
                "delta": res.delta,
                "p_value": res.p_value,
                "n_permutations": n_permutations,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class XSinXResult:
    """Everything the x·sin(x) table and figures need.

    ``curves[(model, coords)]`` are the test UCCs; ``operating_points[(model, coords)]`` the
    test OPs at the held-out-tuned scale (``tune_on``) for the figure's cost weight (c = 0.1).
    """

    data: XSinXData
    models: dict[str, ModelBands]
    summary: pd.DataFrame
    permutation: pd.DataFrame
    curves: dict[tuple[str, str], UCCCurve]
    operating_points: dict[tuple[str, str], OperatingPoint]


def run_xsinx(
    seed: int = 0,
    n_train: int = 4000,
    n_test: int = 1000,
    n_heldout: int = 1000,
    eps: float = 0.02,
    tuned: GBRSettings = GBR_TUNED,
    weak: GBRSettings = GBR_WEAK,
    weak_target: Literal["shared", "own"] = "shared",
    target: Target = "ls",
    c_values: Sequence[float] = (0.1, 0.5),
    figure_c: float = 0.1,
    normalize: bool = False,
    n_permutations: int = 10_000,
    tune_on: Literal["Ex-De", "Bw-MR"] | None = "Ex-De",
) -> XSinXResult:
    """Run the whole x·sin(x) experiment (Sect. 4.1, App. 13.1): Table 3, tests, Fig. 4.1a."""
    data = xsinx_data(seed, n_train, n_test, n_heldout)
    models = xsinx_models(data, seed, eps, tuned, weak, weak_target, target)
    summary = xsinx_summary(data, models, c_values, normalize, tune_on=tune_on)
    perm = (
        xsinx_permutation_tests(data, models, n_permutations, seed)
        if n_permutations > 0
        else pd.DataFrame()
    )
    unit = _unit(data.y_test, normalize)
    curves, ops = {}, {}
    for (name, m), (coords, axes) in itertools.product(models.items(), COORDINATES.items()):
        curves[name, coords] = ucc_curve(data.y_test, m.test, *axes, unit)
        tuned_axes = COORDINATES[tune_on] if tune_on else axes
        k_op = min_cost(ucc_curve(data.y_heldout, m.heldout, *tuned_axes, unit), figure_c).k
        ops[name, coords] = operating_point(data.y_test, m.test, k_op, *axes, figure_c, unit)
    return XSinXResult(data, models, summary, perm, curves, ops)


def _curves_frame(curves: Mapping[tuple[str, str], UCCCurve]) -> pd.DataFrame:
    """Long table of UCC points: model, coordinates, k, x, y, miss_rate (for CSV output)."""
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "model": name,
                    "coordinates": coords,
                    "k": c.k,
                    "x": c.x,
                    "y": c.y,
                    "miss_rate": c.miss_rate,
                }
            )
            for (name, coords), c in curves.items()
        ],
        ignore_index=True,
    )


# --- GP vs GBR quantile regression (Sect. 2.2, Fig. 2; under-specified) ---------------


@dataclass(frozen=True)
class GPExample:
    """The Fig. 2 example: truth on a grid, training data, calibrated intervals, UCCs.

    ``intervals[name]`` maps "GP" and "GBR-QR" to (model PI, constant PI), both scaled to
    the target test miss rate; ``summary`` has MPIW, AUUCC (Bw–MR) and gains per model.
    """

    x: np.ndarray
    f: np.ndarray
    x_train: np.ndarray
    y_train: np.ndarray
    intervals: dict[str, tuple[PredictionIntervals, PredictionIntervals]]
    curves: dict[str, tuple[UCCCurve, UCCCurve]]
    summary: pd.DataFrame


def _calibrated(y: np.ndarray, pi: PredictionIntervals, target: float) -> PredictionIntervals:
    """Bands scaled by the smallest critical scale with a miss rate ≤ target."""
    k = scale_for_miss_rate(y, pi, target)
    return PredictionIntervals(pi.y_pred, k * pi.z_lower, k * pi.z_upper)


def gp_example(
    seed: int = 0,
    n_grid: int = 1000,
    x_max: float = 10.0,
    length_scale: float = 1.0,
    regions: Sequence[tuple[float, float]] = ((1.0, 3.5), (6.0, 8.5)),
    n_train_per_region: int = 50,
    noise_sd: float = 0.1,
    target_miss_rate: float = 0.05,
    gbr: GBRSettings = GBR_GP,
    target: Target = "ls",
) -> GPExample:
    """GP regressor vs quantile GBR on a GP-drawn truth (Sect. 2.2; under-specified, see
    docs/choices.md, "Under-specified examples").

    f ~ GP(0, RBF(length_scale)) on an equidistant grid of [0, x_max]; training inputs drawn
    uniformly from the grid points inside ``regions``, y = f + N(0, noise_sd²) (0.1 read as
    an sd); the test set is the noise-free grid. The GP regressor has kernel
    C·RBF + White (hyperparameters fitted), bands ± its predictive sd; the GBR-QR uses
    α = 0.025/0.975 with ``gbr`` settings (:data:`GBR_GP`) around a ``target`` GBR
    (:func:`gbr_bands`). Where the quantile GBRs extrapolate into the gaps their bands can
    collapse to almost nothing, so reaching the target miss rate may need a very large
    scale: the GBR-QR gains are strongly negative and seed-dependent. Each model's bands and
    a constant band around its own ŷ are scaled to ``target_miss_rate`` on the test set;
    UCCs are in bandwidth–miss-rate coordinates, raw units.
    """
    rng = np.random.default_rng(derive_seed(seed, "gp_example"))
    x = np.linspace(0.0, x_max, n_grid)
    cov = np.exp(-0.5 * ((x[:, None] - x[None, :]) / length_scale) ** 2)
    f = np.linalg.cholesky(cov + 1e-8 * np.eye(n_grid)) @ rng.standard_normal(n_grid)
    idx = np.concatenate(
        [
            rng.choice(np.flatnonzero((x >= a) & (x <= b)), n_train_per_region, replace=False)
            for a, b in regions
        ]
    )
    x_train, y_train = x[idx], f[idx] + noise_sd * rng.standard_normal(idx.size)
    kernel = ConstantKernel(1.0) * RBF(length_scale) + WhiteKernel(noise_sd**2)
    gp = GaussianProcessRegressor(kernel=kernel, normalize_y=False, random_state=0)
    gp.fit(x_train[:, None], y_train)
    mean, sd = gp.predict(x[:, None], return_std=True)
    raw = {
        "GP": PredictionIntervals.from_half_widths(mean, sd),
        "GBR-QR": gbr_bands(x_train, y_train, [x], gbr, target)[0],
    }
    intervals, curves, rows = {}, {}, []
    for name, pi in raw.items():
        model = _calibrated(f, pi, target_miss_rate)
        const = _calibrated(f, constant_band(pi.y_pred), target_miss_rate)
        intervals[name] = (model, const)
        curves[name] = (ucc_curve(f, model), ucc_curve(f, const))
        mpiw = [float(np.mean(p.z_lower + p.z_upper)) for p in (model, const)]
        areas = [auucc(c) for c in curves[name]]
        rows.append(
            {
                "model": name,
                "mpiw": mpiw[0],
                "mpiw_constant": mpiw[1],
                "mpiw_gain": auucc_gain(mpiw[0], mpiw[1]),
                "auucc": areas[0],
                "auucc_constant": areas[1],
                "auucc_gain": auucc_gain(areas[0], areas[1]),
            }
        )
    return GPExample(x, f, x_train, y_train, intervals, curves, pd.DataFrame(rows))
