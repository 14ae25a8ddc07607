"""App. B of the simulated-reference paper (Pernot 2024, P002 App. B): ENCE and ZMSE
reference values of calibrated synthetic sets against x = (N/M)^(1/2), for the NIG and T6IG
generative models, their straight-line and power-law fits, and the paper's printed lines.

Printed values are kept apart from computed ones: :data:`PRINTED_ZMSE_LINES` holds the
(intercept, slope) lines the paper prints for Fig. A3; everything else is computed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from uqval._internal.seeding import derive_seed, seed_sequence
from uqval._internal.types import SeedLike
from uqval.binning import equal_count_boundaries
from uqval.stats.rank_kernel import sorted_prefix_sums
from uqval.stats.synthetic import GenerativeDistribution, rinvgamma

# ols_line's module imports the bootstrap, the fits and scipy.stats (1 s): fit_sqrt_ratio
# imports it on first use, so that the simulation jobs (simref_appb_chunk) do not.

__all__ = [
    "APPB_MODELS",
    "APPB_N_MC",
    "ENCE_SLOPE_NORMAL",
    "PRINTED_ZMSE_LINES",
    "ZMSE_SLOPE_NORMAL",
    "appb_seed",
    "ence_zmse_reference_grid_point",
    "fit_sqrt_ratio",
]

_BLOCK_ELEMENTS = 1 << 20  # values per simulation stream block (8 MiB of float64)

ENCE_SLOPE_NORMAL = 1.0 / math.sqrt(math.pi)
"""Large-bin asymptote E[ENCE] = (N/M)^(1/2)/sqrt(pi) for normal D (0.5642):
E[ENCE] ≈ 1/sqrt(pi n) with n = M/N points per bin."""
ZMSE_SLOPE_NORMAL = 2.0 / math.sqrt(math.pi)
"""Large-bin asymptote E[ZMSE] = 2 (N/M)^(1/2)/sqrt(pi) for normal D (1.1284):
E[ZMSE] ≈ 2/sqrt(pi n) with n = M/N points per bin."""
PRINTED_ZMSE_LINES: dict[str, tuple[float, float]] = {"NIG": (0.0, 1.14), "T6IG": (0.006, 1.577)}
"""Printed by the paper, not computed: (intercept, slope) of the ZMSE reference lines of
Fig. A3 (P002 App. B), per generative model. Figures that draw them label them "printed"."""

APPB_N_MC = 5000
APPB_MODELS = ("NIG", "T6IG")


# =========================================================================================
# App. B: ENCE and ZMSE reference values vs (N/M)^(1/2)
# =========================================================================================


def appb_seed(base_seed: int, model: str, M: int, N_bins: Iterable[int], nu: float) -> int:
    """Seed of one App. B grid point from (base seed, model, M, N list, nu).

    Depends only on what the point computes, so splitting the grid into jobs never changes
    results (:func:`uqval._internal.seeding.derive_seed`).
    """
    return derive_seed(
        base_seed,
        "simref-appB",
        model,
        int(M),
        ",".join(str(int(n)) for n in N_bins),
        repr(float(nu)),
    )


def ence_zmse_reference_grid_point(
    M: int,
    N_bins: Sequence[int],
    nu: float,
    model: Literal["NIG", "T6IG"],
    n_mc: int = APPB_N_MC,
    seed: SeedLike = None,
    *,
    ig: Literal["text", "code"] = "text",
) -> pd.DataFrame:
    """Mean and SE of ENCE and ZMSE over ``n_mc`` calibrated synthetic sets (P002 App. B).

    Each set: uE^2 ~ Gamma^-1(nu/2, nu/2) (text; ``ig="code"``: Gamma^-1(nu, nu); docs/choices.md,
    "Appendix B generator and fits"), redrawn per set and sorted; E = uE N(0, 1) (NIG) or uE t_s(6)
    (T6IG). Every N of ``N_bins`` is evaluated on the same sets from one sort (prefix sums of uE^2,
    E^2 and Z^2; bins of :func:`uqval.binning.equal_count_boundaries`). Streams: fixed blocks of
    ``max(1, 2**20 // M)`` sets, block j from child j of ``SeedSequence(seed)`` (use
    :func:`appb_seed`); within a block uE is drawn before eps.

    Returns:
        One row per N: model, ig, M, N, nu, n_mc, x = (N/M)^(1/2), ENCE_mean, ENCE_sd,
        ENCE_se, ZMSE_mean, ZMSE_sd, ZMSE_se.
    """
    if model not in APPB_MODELS:
        raise ValueError(f"model must be one of {APPB_MODELS}, got {model!r}")
    if ig not in ("text", "code"):
        raise ValueError(f"ig must be 'text' or 'code', got {ig!r}")
    if n_mc < 2:
        raise ValueError("n_mc must be at least 2")
    n_list = [int(n) for n in N_bins]
    bounds = [equal_count_boundaries(M, n) for n in n_list]
    positions = np.unique(np.concatenate(bounds))
    where = [np.searchsorted(positions, b) for b in bounds]
    dist = GenerativeDistribution("normal") if model == "NIG" else GenerativeDistribution("t", 6.0)
    shape = nu / 2.0 if ig == "text" else float(nu)
    rows = max(1, _BLOCK_ELEMENTS // M)
    starts = range(0, n_mc, rows)
    ence_v = np.empty((len(n_list), n_mc))
    zmse_v = np.empty((len(n_list), n_mc))
    for start, child in zip(starts, seed_sequence(seed).spawn(len(starts)), strict=True):
        rng = np.random.default_rng(child)
        size = min(rows, n_mc - start)
        u2 = rinvgamma(rng, shape, shape, (size, M))
        eps2 = np.square(dist.draw(rng, (size, M)))
        # prefix sums of sorted uE^2, uE^2 eps^2 and eps^2 at every bin boundary
        prefix = sorted_prefix_sums(u2, eps2, positions)
        for j, (b, at) in enumerate(zip(bounds, where, strict=True)):
            su, se_, sz = (np.diff(prefix[:, c, at], axis=1) for c in range(3))
            ence_v[j, start : start + size] = np.mean(np.abs(1.0 - np.sqrt(se_ / su)), axis=1)
            zmse_v[j, start : start + size] = np.mean(np.abs(np.log(sz / np.diff(b))), axis=1)
    records = []
    for j, n in enumerate(n_list):
        rec: dict[str, Any] = {
            "model": model,
            "ig": ig,
            "M": int(M),
            "N": n,
            "nu": float(nu),
            "n_mc": n_mc,
            "x": math.sqrt(n / M),
        }
        for name, v in (("ENCE", ence_v[j]), ("ZMSE", zmse_v[j])):
            sd = float(np.std(v, ddof=1))
            rec |= {
                f"{name}_mean": float(v.mean()),
                f"{name}_sd": sd,
                f"{name}_se": sd / math.sqrt(n_mc),
            }
        records.append(rec)
    return pd.DataFrame.from_records(records)


def fit_sqrt_ratio(table: pd.DataFrame, statistic: Literal["ENCE", "ZMSE"]) -> dict[str, Any]:
    """Linear fits of the App. B means against x = (N/M)^(1/2) (both reported; docs/choices.md,
    "Appendix B generator and fits").

    With intercept (authors' code ``lm(y ~ x)``, text for T6IG) and through the origin
    (text for NIG). Returns intercept, slope and SEs of both fits and the number of cells.
    """
    from uqval.papers.simref.statistics import ols_line

    x = np.sqrt(table["N"].to_numpy(float) / table["M"].to_numpy(float))
    y = table[f"{statistic}_mean"].to_numpy(float)
    full = ols_line(x, y, intercept=True)
    origin = ols_line(x, y, intercept=False)
    return {
        "statistic": statistic,
        "n_cells": int(x.size),
        "intercept": full.intercept,
        "intercept_se": full.intercept_se,
        "slope": full.slope,
        "slope_se": full.slope_se,
        "slope0": origin.slope,
        "slope0_se": origin.slope_se,
    }


def _fit_power_law(table: pd.DataFrame, statistic: Literal["ENCE", "ZMSE"]) -> dict[str, Any]:
    """Log-log fit ln theta = ln a + beta ln M + gamma ln N (App. B: beta ~ -1/2, gamma = 1/2)."""
    y = np.log(table[f"{statistic}_mean"].to_numpy(float))
    design = np.column_stack(
        [
            np.ones(len(table)),
            np.log(table["M"].to_numpy(float)),
            np.log(table["N"].to_numpy(float)),
        ]
    )
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return {
        "statistic": statistic,
        "a": float(np.exp(coef[0])),
        "beta": float(coef[1]),
        "gamma": float(coef[2]),
    }


