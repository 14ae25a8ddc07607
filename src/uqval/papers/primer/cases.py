"""Synthetic cases A-F of the primer (P000 Sect. III.1, Eqs. 11-15, Tables 1-2).

Recipe (P000 Sect. III.1; gaps filled from the authors' script
``2023_Primer/R/0_makeFigs_Synth.R``, see docs/choices.md, "Primer synthetic cases"):

* **A** (calibrated, consistent, adaptive): X ~ N(0, 1) sorted ascending; R = a + X^2
  (Eq. 11, a = 0.1); uE = b abs(R) (Eq. 12, b = 0.1); V = R + uE N(0, 1) (Eq. 13); E = R - V.
* **B** (calibrated, not consistent): case A with uE = RMS(uE_A) N(1, 0.1), where
  RMS(uE_A) = sqrt(<uE_A^2>) (Eq. 14 literally writes sqrt(<uE>_A), which contradicts
  Table 2; the code uses the RMS).
* **C** (average calibration by Eq. 2 only): case A with uE_A randomly permuted.
* **D** (not calibrated): case A with uE = 2 uE_A.
* **E** (calibrated, non-normal): case A with V = R + uE t_4(0, 1), t_4 scaled to unit
  variance (t_4 / sqrt(2), Eq. 15).
* **F** (homoscedastic): uE = RMS(uE_A) for every point and *new* errors
  V = R + uE_F N(0, 1) (as the code; the text does not say).

Random streams. :func:`synthetic_cases` spawns one child generator per case (in the order
A-F) from the given generator, so every case's draws come from its own stream and do not
depend on how many numbers the other cases drew. Case D has no random draws; its stream is
spawned but unused so that the other cases keep their positions. R's ``set.seed(12345)``
stream cannot be reproduced, so the values match the paper only statistically (class MC1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike
from uqval.stats.bootstrap import MeanStatistic, bca_bootstrap_means
from uqval.stats.synthetic import rt_unit_variance

__all__ = [
    "CASE_E_NU",
    "CASE_NAMES",
    "case_a",
    "case_b",
    "case_c",
    "case_d",
    "case_e",
    "case_f",
    "synthetic_cases",
    "table2",
]

CASE_NAMES = ("A", "B", "C", "D", "E", "F")
CASE_E_NU = 4.0
"""Degrees of freedom of the unit-variance Student t errors of case E (Eq. 15)."""

_COLUMNS = ["X", "R", "V", "E", "uE"]


def _frame(X: np.ndarray, R: np.ndarray, V: np.ndarray, uE: np.ndarray) -> pd.DataFrame:
    """Case table with columns X, R (reference), V (prediction), E = R - V and uE."""
    return pd.DataFrame({"X": X, "R": R, "V": V, "E": R - V, "uE": uE}, columns=_COLUMNS)


def _rms(x: pd.Series) -> float:
    return math.sqrt(float(np.mean(np.square(x.to_numpy()))))


def case_a(rng: np.random.Generator, M: int = 5000, a: float = 0.1, b: float = 0.1) -> pd.DataFrame:
    """Case A: R = a + X^2, uE = b abs(R), V = R + uE N(0, 1) (P000 Eqs. 11-13).

    X ~ N(0, 1) sorted ascending (authors' code). Draws X (M normals) then the noise (M normals).
    """
    if M < 2:
        raise ValueError(f"need M >= 2 points, got {M}")
    X = np.sort(rng.standard_normal(M))
    R = a + X**2
    uE = b * np.abs(R)
    return _frame(X, R, R + uE * rng.standard_normal(M), uE)


def case_b(base: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Case B: case A's X, R, V, E with uE = RMS(uE_A) N(1, 0.1) (Eq. 14 as in the code)."""
    uE = _rms(base["uE"]) * rng.normal(1.0, 0.1, len(base))
    return base.assign(uE=uE)


def case_c(base: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Case C: case A with its uncertainties randomly permuted (P000 Sect. III.1)."""
    return base.assign(uE=rng.permutation(base["uE"].to_numpy()))


def case_d(base: pd.DataFrame) -> pd.DataFrame:
    """Case D: case A with uE = 2 uE_A (P000 Sect. III.1)."""
    return base.assign(uE=2.0 * base["uE"].to_numpy())


def case_e(base: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Case E: V = R + uE_A t_4(0, 1) with unit-variance t_4 = t(4)/sqrt(2) (Eq. 15)."""
    R, uE = base["R"].to_numpy(), base["uE"].to_numpy()
    return _frame(base["X"].to_numpy(), R, R + uE * rt_unit_variance(rng, CASE_E_NU, len(base)), uE)


def case_f(base: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Case F: uE = RMS(uE_A) constant and new errors V = R + uE N(0, 1) (as the code)."""
    R = base["R"].to_numpy()
    uE = np.full(len(base), _rms(base["uE"]))
    return _frame(base["X"].to_numpy(), R, R + uE * rng.standard_normal(len(base)), uE)


def synthetic_cases(
    rng: np.random.Generator, M: int = 5000, a: float = 0.1, b: float = 0.1
) -> dict[str, pd.DataFrame]:
    """Build cases A-F (P000 Sect. III.1), each from its own spawned stream of ``rng``.

    Args:
        rng: generator; ``rng.spawn(6)`` gives the streams of cases A-F in that order
            (D's stream is unused).
        M: number of points (5000 in P000).
        a, b: parameters of Eqs. 11-12 (0.1 and 0.1 in the authors' code).

    Returns:
        Dict ``{"A": frame, ..., "F": frame}``; each frame has columns X, R, V, E, uE.
    """
    streams = dict(zip(CASE_NAMES, rng.spawn(len(CASE_NAMES)), strict=True))
    base = case_a(streams["A"], M, a, b)
    return {
        "A": base,
        "B": case_b(base, streams["B"]),
        "C": case_c(base, streams["C"]),
        "D": case_d(base),
        "E": case_e(base, streams["E"]),
        "F": case_f(base, streams["F"]),
    }


def _variance_ratio_statistics(m: int) -> dict[str, MeanStatistic]:
    """Var(E)/<uE^2> and Var(Z) (n - 1 denominators, P000 Eqs. 2-3) as mean statistics.

    With c = M/(M - 1): Var(E)/<uE^2> = c (<E^2> - <E>^2)/<uE^2> and
    Var(Z) = c (<Z^2> - <Z>^2). The factor c is that of the full sample; it is a constant,
    so it leaves the BCa acceleration (scale invariant) unchanged.
    """
    c = m / (m - 1.0)

    def ratio(means: np.ndarray) -> np.ndarray:
        return c * (means[..., 1] - means[..., 0] ** 2) / means[..., 2]

    def var_z(means: np.ndarray) -> np.ndarray:
        return c * (means[..., 1] - means[..., 0] ** 2)

    return {
        "ratio": MeanStatistic(
            columns=lambda E, uE: (E, np.square(E), np.square(uE)), combine=ratio
        ),
        "var_z": MeanStatistic(
            columns=lambda E, uE: (np.divide(E, uE), np.square(np.divide(E, uE))),
            combine=var_z,
        ),
    }


def table2(
    cases: Mapping[str, pd.DataFrame],
    n_boot: int = 10_000,
    seed: SeedLike = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """P000 Table 2: Var(E)/<uE^2> and Var(Z) per case with BCa intervals and flags.

    Both statistics use n - 1 variance denominators (as R ``var``). The asterisk
    rule (docs/choices.md, "Table 2 asterisks"): a value is flagged when its ``confidence`` BCa
    bootstrap interval (:func:`~uqval.stats.bootstrap.bca_bootstrap_means`, both statistics on the
    same resamples of the pairs (E, uE)) excludes 1. Case i (in the mapping's order) bootstraps
    with the i-th child of ``SeedSequence(seed)`` (or of ``seed`` if it is a SeedSequence).

    Returns:
        DataFrame indexed by case name with columns ``ratio``, ``ratio_low``,
        ``ratio_high``, ``ratio_flag``, ``var_z``, ``var_z_low``, ``var_z_high``,
        ``var_z_flag``.
    """
    root = seed_sequence(seed)
    rows = {}
    for (name, frame), child in zip(cases.items(), root.spawn(len(cases)), strict=True):
        E, uE = frame["E"].to_numpy(), frame["uE"].to_numpy()
        results = bca_bootstrap_means(
            (E, uE),
            _variance_ratio_statistics(E.size),
            n_boot=n_boot,
            seed=child,
            confidence=confidence,
        )
        row: dict[str, float | bool] = {}
        for key, res in results.items():
            row[key] = res.estimate
            row[f"{key}_low"] = res.ci_low
            row[f"{key}_high"] = res.ci_high
            row[f"{key}_flag"] = bool(res.ci_low > 1.0 or res.ci_high < 1.0)
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index")
