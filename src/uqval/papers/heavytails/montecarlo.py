"""Monte Carlo studies of average-calibration statistics (heavy-tails paper P001 Sect. IV).

Three studies on calibrated synthetic sets E = uE * D (P001 Eq. 1):

* **Shape statistics** (Sect. IV.1, Fig. 3): beta_GM and kappa_CS of samples of F(1, nu)
  and of Gamma^-1(nu/2, nu/2), against the squared-normal (chi^2_1) values.
* **Bias of RCE, RCE2 and 1 - ZMS** (Sect. IV.2, Fig. 4; App. A, Fig. 11):
  TIG sets uE^2 ~ Gamma^-1(nu_IG/2, nu_IG/2), E = uE * t_s(nu_D) (Eq. 20). The x-axes are
  beta_GM(E^2) and beta_GM(Z^2) of one extra TIG sample of size 10 M (authors' code).
* **Validation probability p_val** (Sect. IV.3, Fig. 5, Eq. 21):
  fraction of repeats whose BCa interval validates ZMS (reference 1) or RCE (reference 0),
  abs(zeta) <= 1, for two scenarios:

  - ``"NIG"``: uE^2 ~ Gamma^-1(nu/2, nu/2), E = uE * N(0, 1), both redrawn per repeat;
  - ``"TIG"``: uE^2 ~ Gamma^-1(3, 3) drawn **once** (authors' code) and kept over the
    repeats and over nu_D; E = uE * t_s(nu_D) redrawn per repeat (nu_D > 2).

Paper grids (authors' code where the text is vague; docs/choices.md, "Monte Carlo error
bars", "p_val grids" and "Bootstrap replicates"): Fig. 3
uses 30 nu log-spaced in [2, 50] and samples of 5e5; Figs 4/11 nu_IG in {2, 3, 4, 6, 8, 12,
20}, nu_D in {3, 4, 5, 6, 10, 100}, N = 1000 sets of M = 5000, error bars 2 SE; Fig. 5 NIG
nu in {2, ..., 10, 15, 20}, TIG nu_D in {2.1 (text), 2.5 (code), 3, ..., 10, 20}, M = 5000,
1000 repeats, n_boot = 5000, upper axis averaged over 500 samples.

Random streams. Repeat r of the p_val study draws its data set at nu from
``SeedSequence([base_seed, scenario_code, round(1000 nu), r])`` (scenario codes NIG 1, TIG 2)
and its bootstrap resamples from ``SeedSequence([base_seed, scenario_code, r])``, shared by
every nu of the scenario (common random numbers: the resamples of one repeat are drawn once
for all nu). Results depend only on (base_seed, scenario, nu, r): splitting the repeats into
jobs never changes them (splitting the nu grid changes them by rounding only). The fixed TIG uncertainties use ``SeedSequence([seed, 3])`` and the upper-axis
samples ``SeedSequence([seed, 4, scenario_code, round(1000 nu)])``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.seeding import seed_sequence
from uqval._internal.types import FloatArray
from uqval.stats.bootstrap import bca_bootstrap_means_sets
from uqval.stats.pval import validation_probability
from uqval.stats.robust import KAPPA_CS_NORMAL_OFFSET, beta_gm, kappa_cs
from uqval.stats.synthetic import (
    GenerativeDistribution,
    calibrated_errors,
    nig_dataset,
    rinvgamma,
    tig_dataset,
)
from uqval.stats.zeta import zeta_score
from uqval.stats.zscore_statistics import RCE, ZMS, rce2_rows, rce_rows, zms_rows

# scipy.stats (0.8 s per job) is imported on first use by squared_normal_shape_statistics
# only: the Monte Carlo chunk jobs (heavytails_pval_chunk) do not need it.

__all__ = [
    "PVAL_REFERENCES",
    "SCENARIO_CODES",
    "TIG_FIXED_SHAPE",
    "TIG_STATISTICS",
    "pval_repeats",
    "pval_summary",
    "pval_upper_axis",
    "shape_statistic_curves",
    "squared_normal_shape_statistics",
    "tig_bias_point",
    "tig_fixed_uncertainties",
]

Scenario = Literal["NIG", "TIG"]

SCENARIO_CODES: dict[str, int] = {"NIG": 1, "TIG": 2}
"""Integer code of each p_val scenario in the repeat seed sequences."""

TIG_FIXED_SHAPE = 3.0
"""TIG scenario of Fig. 5: uE^2 ~ Gamma^-1(3, 3), i.e. nu_IG = 6 in the nu/2 convention."""

PVAL_REFERENCES: dict[str, float] = {"ZMS": 1.0, "RCE": 0.0}
"""Statistics validated in Fig. 5 and their reference values (P001 Eqs. 7, 11)."""

TIG_STATISTICS = ("RCE", "RCE2", "1-ZMS")
"""Statistics of the TIG bias study (Fig. 4: RCE, 1 - ZMS; Fig. 11: RCE2)."""

_FIXED_UE_CODE = 3
_UPPER_AXIS_CODE = 4
_CHUNK_ELEMENTS = 1 << 20  # values per array in a chunk of synthetic sets (8 MiB)



def _nu_code(nu: float) -> int:
    """round(1000 nu), the integer key of a shape parameter in seed sequences."""
    if not (math.isfinite(nu) and nu > 0.0):
        raise ValueError(f"nu must be finite and positive, got {nu}")
    return int(round(nu * 1000.0))


def _scenario_code(scenario: str) -> int:
    if scenario not in SCENARIO_CODES:
        raise ValueError(f"unknown scenario {scenario!r}; use 'NIG' or 'TIG'")
    return SCENARIO_CODES[scenario]


# --- Fig. 3: shape statistics of F(1, nu) and Gamma^-1(nu/2, nu/2) -------------------------


def shape_statistic_curves(nus: Sequence[float], sample_size: int, seed: int) -> pd.DataFrame:
    """beta_GM and kappa_CS of samples of F(1, nu) and Gamma^-1(nu/2, nu/2) (P001 Fig. 3).

    For each nu, one sample X^2 ~ F(1, nu) (E^2 of the NIG model, Eq. 19) and one sample
    X^2 ~ Gamma^-1(nu/2, nu/2) (uE^2 of the NIG model) of ``sample_size`` values are drawn
    from ``SeedSequence([seed, round(1000 nu)])``, and their robust skewness
    beta_GM = (mean - Q_0.5)/mean abs(X - Q_0.5) and kurtosis
    kappa_CS = (Q_0.975 - Q_0.025)/(Q_0.75 - Q_0.25) - 2.91 (HD quantiles, Sect. IV.1)
    are computed. Paper: samples of 5e5; authors' code: 30 nu log-spaced in [2, 50].

    Returns:
        One row per nu, columns ``nu, beta_F, kappa_F, beta_IG, kappa_IG``.
    """
    if sample_size < 2:
        raise ValueError("sample_size must be at least 2")
    rows = []
    for nu in nus:
        rng = np.random.default_rng(np.random.SeedSequence([seed, _nu_code(nu)]))
        f_sample = rng.f(1.0, nu, sample_size)
        ig_sample = rinvgamma(rng, nu / 2.0, nu / 2.0, sample_size)
        rows.append(
            {
                "nu": float(nu),
                "beta_F": beta_gm(f_sample),
                "kappa_F": kappa_cs(f_sample),
                "beta_IG": beta_gm(ig_sample),
                "kappa_IG": kappa_cs(ig_sample),
            }
        )
    return pd.DataFrame(rows, columns=["nu", "beta_F", "kappa_F", "beta_IG", "kappa_IG"])


def squared_normal_shape_statistics() -> dict[str, float]:
    """Population beta_GM and kappa_CS of a squared standard normal, chi^2_1 (Fig. 3 dashes).

    With m the median of chi^2_1 and E[X; X < m] = F_{chi^2_3}(m) (x f_1(x) = f_3(x)),
    mean abs(X - m) = 1 - 2 F_{chi^2_3}(m), so beta_GM = (1 - m)/(1 - 2 F_{chi^2_3}(m)) = 0.636;
    kappa_CS = (q_0.975 - q_0.025)/(q_0.75 - q_0.25) - 2.91 = 1.20 with chi^2_1 quantiles.
    These are also the F(1, nu -> inf) limits.

    Returns:
        ``{"beta_GM": 0.6358, "kappa_CS": 1.2012}`` (unrounded).
    """
    from scipy import stats

    median = float(stats.chi2.ppf(0.5, 1))
    beta = (1.0 - median) / (1.0 - 2.0 * float(stats.chi2.cdf(median, 3)))
    q025, q25, q75, q975 = stats.chi2.ppf([0.025, 0.25, 0.75, 0.975], 1)
    kappa = float((q975 - q025) / (q75 - q25)) - KAPPA_CS_NORMAL_OFFSET
    return {"beta_GM": beta, "kappa_CS": kappa}


# --- Figs 4 and 11: bias of RCE, RCE2 and 1 - ZMS for TIG sets ------------------------------


def tig_bias_point(
    nu_ig: float,
    nu_d: float,
    n_sets: int,
    M: int,
    seed: int | np.random.SeedSequence,
) -> dict[str, float]:
    """Monte Carlo mean of RCE, RCE2 and 1 - ZMS over TIG sets (P001 Figs 4 and 11).

    ``n_sets`` calibrated TIG sets of size M are drawn, uE^2 ~ Gamma^-1(nu_IG/2, nu_IG/2) and
    E = uE * t_s(nu_D) (Eq. 20; ``nu_d = inf`` gives normal errors), vectorised over sets in
    chunks of at most 2**20 values per array. For each set

        RCE = (RMV - RMSE)/RMV,   RCE2 = (MV - MSE)/MV,   1 - ZMS = 1 - <Z^2>

    (Eqs. 7, 22, 11), all with reference 0. Over the N sets the function returns the mean,
    the sd (n - 1 denominator) and the standard error sd/sqrt(N): Figs 4/11 plot
    mean +- 2 SE as in the authors' code (docs/choices.md, "Monte Carlo error bars"). The x-axes,
    beta_GM(E^2) and beta_GM(Z^2), come from one extra TIG sample of size 10 M (authors' code).

    Streams: ``seed`` (int or SeedSequence) spawns (sets, extra); the sets stream spawns one
    child per chunk of ``max(1, 2**20 // M)`` sets, so results depend only on
    (seed, nu_IG, nu_D, n_sets, M).

    Returns:
        ``nu_ig, nu_d, n_sets, M``, ``<S>_mean, <S>_sd, <S>_se`` for S in
        :data:`TIG_STATISTICS`, ``beta_E2`` and ``beta_Z2``.
    """
    if n_sets < 2:
        raise ValueError("n_sets must be at least 2")
    if M < 2:
        raise ValueError("M must be at least 2")
    if not nu_ig > 0.0:
        raise ValueError(f"nu_ig must be positive, got {nu_ig}")
    dist = GenerativeDistribution("t", float(nu_d))
    root = seed_sequence(seed)
    sets_seed, extra_seed = root.spawn(2)
    per_chunk = max(1, _CHUNK_ELEMENTS // M)
    starts = range(0, n_sets, per_chunk)
    values = {name: np.empty(n_sets) for name in TIG_STATISTICS}
    for start, child in zip(starts, sets_seed.spawn(len(starts)), strict=True):
        rng = np.random.default_rng(child)
        n = min(per_chunk, n_sets - start)
        uE = np.sqrt(rinvgamma(rng, nu_ig / 2.0, nu_ig / 2.0, (n, M)))
        E = calibrated_errors(rng, uE, dist)
        values["RCE"][start : start + n] = rce_rows(E, uE)
        values["RCE2"][start : start + n] = rce2_rows(E, uE)
        values["1-ZMS"][start : start + n] = 1.0 - zms_rows(E, uE)
    out: dict[str, float] = {
        "nu_ig": float(nu_ig),
        "nu_d": float(nu_d),
        "n_sets": n_sets,
        "M": M,
    }
    for name, v in values.items():
        sd = float(np.std(v, ddof=1))
        out |= {
            f"{name}_mean": float(v.mean()),
            f"{name}_sd": sd,
            f"{name}_se": sd / math.sqrt(n_sets),
        }
    E, uE = tig_dataset(np.random.default_rng(extra_seed), nu_ig, nu_d, 10 * M)
    out["beta_E2"] = beta_gm(E**2)
    out["beta_Z2"] = beta_gm((E / uE) ** 2)
    return out


# --- Fig. 5: validation probability of ZMS and RCE -----------------------------------------


def tig_fixed_uncertainties(M: int, seed: int) -> FloatArray:
    """The fixed uncertainties of the TIG scenario of Fig. 5: uE^2 ~ Gamma^-1(3, 3).

    Drawn once from ``SeedSequence([seed, 3])`` and reused for every repeat and every nu_D,
    as in the authors' code (docs/choices.md, "p_val grids").
    """
    if M < 2:
        raise ValueError("M must be at least 2")
    rng = np.random.default_rng(np.random.SeedSequence([seed, _FIXED_UE_CODE]))
    return np.sqrt(rinvgamma(rng, TIG_FIXED_SHAPE, TIG_FIXED_SHAPE, M))


def _scenario_uncertainties(
    scenario: str, M: int, seed: int, fixed_uE: ArrayLike | None
) -> FloatArray | None:
    """None for NIG (uE redrawn per set); the fixed uE of the TIG scenario otherwise."""
    if _scenario_code(scenario) == SCENARIO_CODES["NIG"]:
        if fixed_uE is not None:
            raise ValueError("fixed_uE applies to the TIG scenario only")
        return None
    if fixed_uE is None:
        return tig_fixed_uncertainties(M, seed)
    uE = np.asarray(fixed_uE, dtype=np.float64)
    if uE.shape != (M,) or not np.all(np.isfinite(uE) & (uE > 0.0)):
        raise ValueError(f"fixed_uE must hold {M} finite positive values")
    return uE


def pval_repeats(
    scenario: Scenario,
    nus: float | Sequence[float],
    repeats: Sequence[int],
    M: int,
    n_boot: int,
    base_seed: int,
    fixed_uE: ArrayLike | None = None,
) -> pd.DataFrame:
    """Monte Carlo repeats of the ZMS and RCE validation tests (P001 Fig. 5, Eq. 21).

    Repeat r draws, for each nu, a calibrated set of size M from
    ``SeedSequence([base_seed, scenario_code, round(1000 nu), r])`` (its first spawned
    child): NIG, uE^2 ~ Gamma^-1(nu/2, nu/2) and E = uE * N(0, 1); TIG, E = uE * t_s(nu)
    with the fixed uE (``fixed_uE``, default :func:`tig_fixed_uncertainties`
    ``(M, base_seed)``). ZMS and RCE are bootstrapped on the same ``n_boot`` resamples (95 %
    BCa), drawn from ``SeedSequence([base_seed, scenario_code, r])`` and shared by the sets
    of every nu of the repeat (:func:`~uqval.stats.bootstrap.bca_bootstrap_means_sets`:
    the indices are drawn once per repeat, not once per nu); their zeta-scores (Eq. 14) are
    taken against the references 1 and 0. The resampled sums are float32 matrix products
    (``single_precision_sums``: a relative 10^-6 or so on the replicates, while p_val is a
    fraction of 1000 repeats; docs/choices.md, "p_val grids").

    Args:
        scenario: ``"NIG"`` or ``"TIG"``.
        nus: nu_IG (NIG, > 0) or nu_D (TIG, > 2; the t_s variance is infinite below); one
            value or several (distinct).
        repeats: repeat indices r (non-negative, distinct); any split of the indices into
            calls gives the same rows, and a split of the nu the same rows to rounding
            (the resampled sums of many sets are one matrix product).
        M: set size (paper 5000).
        n_boot: bootstrap replicates (authors' code 5000; docs/choices.md,
            "Bootstrap replicates").
        base_seed: non-negative base seed.
        fixed_uE: TIG only; the uncertainties kept fixed over repeats.

    Returns:
        One row per (nu, repeat), nu-major in the order given: ``scenario, nu, repeat``
        and, for S in ZMS, RCE, ``S`` (the estimate), ``S_bias, S_ci_low, S_ci_high,
        S_zeta``.
    """
    code = _scenario_code(scenario)
    nu_list = [float(nus)] if isinstance(nus, int | float) else [float(nu) for nu in nus]
    nu_codes = [_nu_code(nu) for nu in nu_list]
    if not nu_list or len(set(nu_codes)) != len(nu_codes):
        raise ValueError(f"nus must hold distinct values, got {nu_list}")
    if code == SCENARIO_CODES["TIG"] and not all(nu > 2.0 for nu in nu_list):
        raise ValueError(f"the TIG scenario needs nu_D > 2 (finite t_s variance), got {nu_list}")
    fixed = _scenario_uncertainties(scenario, M, base_seed, fixed_uE)
    indices = [int(r) for r in repeats]
    if any(r < 0 for r in indices) or len(set(indices)) != len(indices):
        raise ValueError("repeat indices must be distinct non-negative integers")
    rows: dict[tuple[float, int], dict[str, object]] = {}
    for r in indices:
        sets = []
        for nu, nu_code in zip(nu_list, nu_codes, strict=True):
            data_seed = np.random.SeedSequence([base_seed, code, nu_code, r]).spawn(2)[0]
            rng = np.random.default_rng(data_seed)
            if fixed is None:
                sets.append(nig_dataset(rng, nu, M))
            else:
                sets.append(tig_dataset(rng, None, nu, M, uncertainties=fixed))
        results = bca_bootstrap_means_sets(
            sets,
            {"ZMS": ZMS, "RCE": RCE},
            n_boot=n_boot,
            seed=np.random.SeedSequence([base_seed, code, r]),
            single_precision_sums=True,
        )
        for nu, per_stat in zip(nu_list, results, strict=True):
            row: dict[str, object] = {"scenario": scenario, "nu": nu, "repeat": r}
            for name, res in per_stat.items():
                row |= {
                    name: res.estimate,
                    f"{name}_bias": res.bias,
                    f"{name}_ci_low": res.ci_low,
                    f"{name}_ci_high": res.ci_high,
                    f"{name}_zeta": zeta_score(
                        res.estimate, PVAL_REFERENCES[name], res.ci_low, res.ci_high
                    ),
                }
            rows[(nu, r)] = row
    ordered = [rows[(nu, r)] for nu in nu_list for r in indices]
    return pd.DataFrame(ordered, columns=_pval_columns())


def _pval_columns() -> list[str]:
    fields = ("", "_bias", "_ci_low", "_ci_high", "_zeta")
    return ["scenario", "nu", "repeat"] + [f"{s}{f}" for s in PVAL_REFERENCES for f in fields]


def pval_summary(rows: pd.DataFrame, confidence: float = 0.95) -> dict[str, object]:
    """p_val of ZMS and RCE with Wilson-cc intervals from repeat rows (P001 Eq. 21, Fig. 5).

    p_val = (1/N) sum_i 1(abs(zeta_i) <= 1) over the N rows of one (scenario, nu), with the
    Wilson interval with continuity correction (authors' code ``DescTools::BinomCI
    "wilsoncc"``; :func:`uqval.stats.pval.validation_probability`). A NaN zeta (BCa limits
    undefined because t0 lies outside all replicates) counts as not validated and is
    reported in ``S_n_undefined``.

    Returns:
        ``scenario, nu, n`` and, for S in ZMS, RCE: ``S_pval, S_ci_low, S_ci_high,
        S_n_valid, S_n_undefined``.
    """
    if rows.empty:
        raise ValueError("rows is empty")
    if rows["scenario"].nunique() != 1 or rows["nu"].nunique() != 1:
        raise ValueError("rows must hold a single (scenario, nu)")
    if rows["repeat"].duplicated().any():
        raise ValueError("rows hold duplicated repeat indices")
    out: dict[str, object] = {
        "scenario": str(rows["scenario"].iloc[0]),
        "nu": float(rows["nu"].iloc[0]),
        "n": len(rows),
    }
    for name in PVAL_REFERENCES:
        zeta = rows[f"{name}_zeta"].to_numpy(dtype=np.float64)
        undefined = np.isnan(zeta)
        vp = validation_probability(np.where(undefined, np.inf, zeta), confidence)
        out |= {
            f"{name}_pval": vp.p_val,
            f"{name}_ci_low": vp.ci_low,
            f"{name}_ci_high": vp.ci_high,
            f"{name}_n_valid": vp.n_valid,
            f"{name}_n_undefined": int(undefined.sum()),
        }
    return out


def pval_upper_axis(
    scenario: Scenario,
    nu: float,
    M: int,
    n_samples: int,
    seed: int,
    fixed_uE: ArrayLike | None = None,
) -> float:
    """Mean beta_GM shown on the upper axis of P001 Fig. 5 (500 samples, authors' code).

    NIG panel: mean of beta_GM(uE^2) over ``n_samples`` samples uE^2 ~ Gamma^-1(nu/2, nu/2)
    of size M. TIG panel: mean of beta_GM(E^2) over samples E = uE * t_s(nu) with the fixed
    uE of the scenario (``fixed_uE``, default :func:`tig_fixed_uncertainties` ``(M, seed)``,
    as the authors' code does). Samples come from
    ``SeedSequence([seed, 4, scenario_code, round(1000 nu)])``; paper: 500 samples.
    """
    if n_samples < 1:
        raise ValueError("n_samples must be at least 1")
    code = _scenario_code(scenario)
    if code == SCENARIO_CODES["TIG"] and not nu > 2.0:
        raise ValueError(f"the TIG scenario needs nu_D > 2 (finite t_s variance), got {nu}")
    fixed = _scenario_uncertainties(scenario, M, seed, fixed_uE)
    rng = np.random.default_rng(
        np.random.SeedSequence([seed, _UPPER_AXIS_CODE, code, _nu_code(nu)])
    )
    if fixed is None:
        samples = (rinvgamma(rng, nu / 2.0, nu / 2.0, M) for _ in range(n_samples))
    else:
        dist = GenerativeDistribution("t", float(nu))
        samples = (calibrated_errors(rng, fixed, dist) ** 2 for _ in range(n_samples))
    return float(np.mean([beta_gm(s) for s in samples]))
