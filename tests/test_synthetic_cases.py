"""Tests for the primer's synthetic cases A-F and Table 2 (P000 Sect. III.1-III.2)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from uqval.papers.primer.cases import (
    CASE_NAMES,
    synthetic_cases,
    table2,
)


def ratio(frame) -> float:
    """Var(E)/<uE^2> with the n - 1 variance (P000 Eq. 2)."""
    return float(np.var(frame["E"], ddof=1) / np.mean(frame["uE"] ** 2))


def var_z(frame) -> float:
    return float(np.var(frame["E"] / frame["uE"], ddof=1))


@pytest.fixture(scope="module")
def cases():
    return synthetic_cases(np.random.default_rng(12345))


def test_structure_follows_the_recipe(cases):
    assert tuple(cases) == CASE_NAMES
    a = cases["A"]
    for frame in cases.values():
        assert list(frame.columns) == ["X", "R", "V", "E", "uE"]
        assert len(frame) == 5000
        np.testing.assert_array_equal(frame["E"], frame["R"] - frame["V"])
        np.testing.assert_array_equal(frame["X"], a["X"])
        np.testing.assert_array_equal(frame["R"], a["R"])
    assert np.all(np.diff(a["X"]) >= 0)
    np.testing.assert_allclose(a["R"], 0.1 + a["X"] ** 2)
    np.testing.assert_allclose(a["uE"], 0.1 * a["R"])
    rms = np.sqrt(np.mean(a["uE"] ** 2))
    # B, C, D keep case A's errors.
    for name in "BCD":
        np.testing.assert_array_equal(cases[name]["E"], a["E"])
    # B: RMS(uE_A) * N(1, 0.1) (docs/choices.md, "Primer synthetic cases").
    assert np.mean(cases["B"]["uE"] / rms) == pytest.approx(1.0, abs=0.01)
    assert np.std(cases["B"]["uE"] / rms) == pytest.approx(0.1, abs=0.01)
    # C: a permutation of uE_A; D: doubled.
    np.testing.assert_array_equal(np.sort(cases["C"]["uE"]), np.sort(a["uE"]))
    assert not np.array_equal(cases["C"]["uE"], a["uE"])
    np.testing.assert_array_equal(cases["D"]["uE"], 2 * a["uE"])
    # E: same uncertainties, new heavy-tailed errors.
    np.testing.assert_array_equal(cases["E"]["uE"], a["uE"])
    assert not np.array_equal(cases["E"]["E"], a["E"])
    # F: constant RMS(uE_A) and new errors (authors' code).
    np.testing.assert_allclose(cases["F"]["uE"], rms, rtol=1e-15)
    assert not np.array_equal(cases["F"]["E"], a["E"])


def test_seeds_reproduce_and_distinguish_realisations():
    again = synthetic_cases(np.random.default_rng(12345), M=300)
    first = synthetic_cases(np.random.default_rng(12345), M=300)
    other = synthetic_cases(np.random.default_rng(54321), M=300)
    for name in CASE_NAMES:
        assert first[name].shape == (300, 5)
        np.testing.assert_array_equal(first[name].to_numpy(), again[name].to_numpy())
        assert not np.array_equal(first[name]["E"], other[name]["E"])


def test_case_distributions_follow_the_documented_definitions(cases):
    """P000 Sect. III.1 (Eqs. 11-15): KS tests against the stated distributions (p > 1e-3)
    and rank correlations against the stated (in)dependences (|rho| < 4/sqrt(M))."""
    a = cases["A"]
    M = len(a)
    z = {name: (frame["E"] / frame["uE"]).to_numpy() for name, frame in cases.items()}
    # X ~ N(0, 1); Z_A, Z_F ~ N(0, 1) (Eq. 13); Z_E ~ t_4 scaled to unit variance (Eq. 15).
    assert stats.kstest(a["X"], "norm").pvalue > 1e-3
    for name in "AF":
        assert stats.kstest(z[name], "norm").pvalue > 1e-3
    assert stats.kstest(z["E"], stats.t(4, scale=1 / np.sqrt(2)).cdf).pvalue > 1e-3
    assert stats.kstest(z["E"], "norm").pvalue < 1e-3  # and it is not normal
    # B: uE = RMS(uE_A) N(1, 0.1).
    rms = np.sqrt(np.mean(a["uE"] ** 2))
    assert stats.kstest(cases["B"]["uE"] / rms, stats.norm(1.0, 0.1).cdf).pvalue > 1e-3
    small = 4 / np.sqrt(M)
    # uE_A is a function of abs(X); B's and C's uncertainties no longer depend on X.
    assert stats.spearmanr(a["uE"], np.abs(a["X"])).statistic == pytest.approx(1.0)
    for name in "BC":
        assert abs(stats.spearmanr(cases[name]["uE"], np.abs(a["X"])).statistic) < small
    # E and F draw new errors, independent of case A's.
    for name in "EF":
        assert abs(stats.spearmanr(z[name], z["A"]).statistic) < small


def test_table2_exact_identities(cases):
    # P000 Table 2 identities: C ratio = A ratio (permutation); D = A / 4; F ratio = Var(Z).
    assert ratio(cases["C"]) == pytest.approx(ratio(cases["A"]), rel=1e-13)
    assert ratio(cases["D"]) == pytest.approx(ratio(cases["A"]) / 4, rel=1e-13)
    assert var_z(cases["D"]) == pytest.approx(var_z(cases["A"]) / 4, rel=1e-13)
    assert ratio(cases["F"]) == pytest.approx(var_z(cases["F"]), rel=1e-13)


def test_table1_expectations_at_large_m():
    big = synthetic_cases(np.random.default_rng(2024), M=200_000)
    assert var_z(big["A"]) == pytest.approx(1.0, abs=0.02)
    assert ratio(big["A"]) == pytest.approx(1.0, abs=0.04)
    assert ratio(big["B"]) == pytest.approx(1.0 / 1.01, abs=0.04)  # <N(1, 0.1)^2> = 1.01
    assert var_z(big["C"]) > 10.0
    assert var_z(big["D"]) == pytest.approx(0.25, abs=0.005)
    assert var_z(big["E"]) == pytest.approx(1.0, abs=0.1)
    assert var_z(big["F"]) == pytest.approx(1.0, abs=0.02)


# MC1 95% sampling ranges of the P000 Table 2 values for one realisation (case: (ratio range, Var(Z) range)).
MC1_RANGES = {
    "A": ((0.87, 1.12), (0.96, 1.04)),
    "B": ((0.87, 1.11), (0.89, 1.17)),
    "C": (None, (49.0, 81.0)),
    "E": ((0.78, 1.5), (0.90, 1.13)),
    "F": ((0.96, 1.04), (0.96, 1.04)),
}


def test_mc1_ranges_over_seeds():
    """Each range holds 95% of realisations: require >= 85% of 40 seeds inside.

    With a true coverage of 0.95, P(more than 6 of 40 outside) is about 0.5%.
    """
    inside = {(name, j): 0 for name in MC1_RANGES for j in range(2)}
    n_seeds = 40
    for seed in range(n_seeds):
        cs = synthetic_cases(np.random.default_rng(seed))
        for name, ranges in MC1_RANGES.items():
            values = (ratio(cs[name]), var_z(cs[name]))
            for j, (bounds, value) in enumerate(zip(ranges, values, strict=True)):
                if bounds is None or bounds[0] <= value <= bounds[1]:
                    inside[name, j] += 1
    assert min(inside.values()) >= 0.85 * n_seeds, inside


def test_table2_estimates_intervals_and_flags(cases):
    tab = table2(cases, n_boot=500, seed=7)
    assert list(tab.index) == list(CASE_NAMES)
    for name, frame in cases.items():
        assert tab.loc[name, "ratio"] == pytest.approx(ratio(frame), rel=1e-10)
        assert tab.loc[name, "var_z"] == pytest.approx(var_z(frame), rel=1e-10)
        for key in ("ratio", "var_z"):
            assert tab.loc[name, f"{key}_low"] < tab.loc[name, key] < tab.loc[name, f"{key}_high"]
            excludes = not tab.loc[name, f"{key}_low"] <= 1.0 <= tab.loc[name, f"{key}_high"]
            assert tab.loc[name, f"{key}_flag"] == excludes
    # A11 check: 53.8 (C, Var(Z)), 0.25 and 0.26 (D) must be flagged.
    assert tab.loc["C", "var_z_flag"]
    assert tab.loc["D", "ratio_flag"] and tab.loc["D", "var_z_flag"]
    for name in "ABEF":
        assert not tab.loc[name, "ratio_flag"] and not tab.loc[name, "var_z_flag"]
    again = table2(cases, n_boot=500, seed=7)
    assert again.equals(tab)
