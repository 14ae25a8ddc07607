"""Unit tests of the primer's table helpers (P000 Table 1, Sect. III.1; Fig. 12, Sect. IV.1).

References: the printed Table 1 of P000, SciPy's Student-t interval of the mean, and the
Cho et al. (2008) variance of the sample variance, vv = (mu_4 - (n-3)/(n-1) mu_2^2)/n,
written out here with explicit central moments, plus its normal-theory value 2/(n-1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval.papers.primer.figures import mean_var_intervals, table1_design

# P000 Table 1 as printed: case, calibration, consistency, adaptivity.
PRINTED_TABLE1 = [
    ("A", "yes", "yes", "yes"),
    ("B", "yes", "no", "no"),
    ("C", "yes/no", "no", "no"),
    ("D", "no", "no", "no"),
    ("E", "yes", "yes", "yes"),
    ("F", "yes", "-", "no"),
]


def test_table1_design_is_the_printed_table():
    table = table1_design()
    assert list(table.columns) == ["case", "design", "calibration", "consistency", "adaptivity"]
    columns = ["case", "calibration", "consistency", "adaptivity"]
    rows = list(table[columns].itertuples(index=False, name=None))
    assert rows == PRINTED_TABLE1
    assert table["design"].str.len().min() > 0


def hand_intervals(E: np.ndarray, uE: np.ndarray) -> dict[str, float]:
    z = E / uE
    n = z.size
    se = np.std(z, ddof=1) / np.sqrt(n)
    t_low, t_high = stats.t.interval(0.95, n - 1, loc=z.mean(), scale=se)
    d = z - z.mean()
    mu2, mu4 = np.mean(d**2), np.mean(d**4)
    vv = (mu4 - (n - 3) / (n - 1) * mu2**2) / n
    var = np.var(z, ddof=1)
    half = stats.norm.ppf(0.975) * np.sqrt(vv)
    return {
        "M": n, "mean_z": z.mean(), "mean_z_low": t_low, "mean_z_high": t_high,
        "var_z": var, "var_z_low": var - half, "var_z_high": var + half,
    }


def toy_sets() -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    rng = np.random.default_rng(12)
    sets = {}
    for name, M, shrink in (("one", 300, 0.6), ("two", 1000, 0.9)):
        uE = rng.uniform(0.5, 1.5, M)
        E = uE * rng.standard_normal(M) + 0.05
        sets[name] = (pd.DataFrame({"E": E, "uE": shrink * uE}), pd.DataFrame({"E": E, "uE": uE}))
    return sets


def test_mean_var_intervals_match_direct_computation():
    sets = toy_sets()
    table = mean_var_intervals(sets)
    assert list(zip(table["set"], table["version"], strict=True)) == [
        ("one", "uncal"), ("one", "cal"), ("two", "uncal"), ("two", "cal"),
    ]
    for row in table.itertuples(index=False):
        frame = sets[row.set][0 if row.version == "uncal" else 1]
        expected = hand_intervals(frame["E"].to_numpy(), frame["uE"].to_numpy())
        for key, value in expected.items():
            assert getattr(row, key) == pytest.approx(value, rel=1e-10), (row.set, row.version, key)
        assert row.var_z_ci_contains_1 == (row.var_z_low <= 1.0 <= row.var_z_high)
    # Uncertainties shrunk to 60 %: Var(Z) ~ 1/0.36, far from 1; the honest set contains 1.
    flags = table.set_index(["set", "version"])["var_z_ci_contains_1"]
    assert not flags[("one", "uncal")] and flags[("one", "cal")]


def test_cho_half_width_matches_normal_theory_for_large_normal_samples():
    # For normal z, Var(s^2) = 2 sigma^4/(n - 1): the Cho interval's half-width is close to
    # 1.96 sqrt(2/(n - 1)).
    rng = np.random.default_rng(3)
    n = 20_000
    frame = pd.DataFrame({"E": rng.standard_normal(n), "uE": np.ones(n)})
    row = mean_var_intervals({"normal": (frame, frame)}).iloc[0]
    half = 0.5 * (row["var_z_high"] - row["var_z_low"])
    assert half == pytest.approx(stats.norm.ppf(0.975) * np.sqrt(2.0 / (n - 1)), rel=0.05)
