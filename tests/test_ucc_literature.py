"""Unit tests of uqval.papers.ucc.literature (UCC gains of prepared datasets, P004 Sect. 2).

The UCC of a tiny table is computed here by brute force from the definitions (P004 Def. 1):
at scale k a point is captured when abs(E_i) <= k u_i; the miss rate is the fraction not
captured, the bandwidth is k mean(u), the excess is mean(max(k u_i - abs(E_i), 0)) and the
deficit mean(max(abs(E_i) - k u_i, 0)). The curve is evaluated at each critical scale
abs(E_i)/u_i, the axes (except the miss rate) are divided by the population sd of E, and the
area is the trapezoid rule written as a loop. The gain is (A_const - A_model)/A_const * 100
(P004 Eq. 6) with the constant band u_i = 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from uqval.papers.ucc.literature import band_half_widths, dataset_gains

E_TINY = np.array([0.3, -1.2, 2.0, -0.1, 0.8, -2.5])
U_TINY = np.array([0.5, 1.0, 1.5, 0.4, 1.1, 1.0])


def brute_force_area(E: np.ndarray, u: np.ndarray, x_axis: str, y_axis: str) -> float:
    e = np.abs(E)
    unit = float(np.sqrt(np.mean((E - E.mean()) ** 2)))
    points = []
    for k in sorted(e / u):
        captured = [e[i] <= k * u[i] for i in range(len(e))]
        metrics = {
            "miss_rate": 1.0 - sum(captured) / len(e),
            "bandwidth": k * float(np.mean(u)) / unit,
            "excess": sum(max(k * u[i] - e[i], 0.0) for i in range(len(e))) / len(e) / unit,
            "deficit": sum(max(e[i] - k * u[i], 0.0) for i in range(len(e))) / len(e) / unit,
        }
        points.append((metrics[x_axis], metrics[y_axis]))
    area = 0.0
    for (x0, y0), (x1, y1) in zip(points[:-1], points[1:], strict=True):
        area += 0.5 * (y0 + y1) * (x1 - x0)
    return abs(area)


def test_dataset_gains_match_brute_force_ucc_on_a_tiny_table():
    table = pd.DataFrame({"E": E_TINY, "uE": U_TINY})
    gains = dataset_gains(table, n_permutations=50, seed=1).set_index("axes")
    assert list(gains.index) == ["bandwidth-miss_rate", "excess-deficit"]
    ones = np.ones_like(U_TINY)
    for name, (x, y) in {
        "bandwidth-miss_rate": ("bandwidth", "miss_rate"),
        "excess-deficit": ("excess", "deficit"),
    }.items():
        row = gains.loc[name]
        a_model = brute_force_area(E_TINY, U_TINY, x, y)
        a_const = brute_force_area(E_TINY, ones, x, y)
        assert row["auucc"] == pytest.approx(a_model, rel=1e-12)
        assert row["auucc_constant"] == pytest.approx(a_const, rel=1e-12)
        assert row["gain_percent"] == pytest.approx((a_const - a_model) / a_const * 100, rel=1e-10)
        assert row["band"] == "uE" and row["M"] == 6
        assert 0.0 < row["p_value"] <= 1.0


def test_constant_band_scale_is_irrelevant_and_gain_is_zero_for_a_constant_model():
    table = pd.DataFrame({"E": E_TINY, "uE": np.full(6, 3.7)})
    gains = dataset_gains(table, n_permutations=20, seed=2)
    np.testing.assert_allclose(gains["auucc"], gains["auucc_constant"], rtol=1e-12)
    np.testing.assert_allclose(gains["gain_percent"], 0.0, atol=1e-10)


def test_informative_band_has_a_positive_significant_gain():
    # u proportional to abs(E) up to 10 % noise: the band ranks the errors almost perfectly.
    rng = np.random.default_rng(4)
    E = rng.standard_normal(300) * rng.uniform(0.2, 3.0, 300)
    u = np.abs(E) * rng.uniform(0.9, 1.1, 300) + 1e-3
    gains = dataset_gains(pd.DataFrame({"E": E, "uE": u}), n_permutations=200, seed=3)
    assert (gains["gain_percent"] > 50.0).all()
    assert (gains["p_value"] < 0.01).all()
    # A band unrelated to the errors only adds spread: it does worse than the constant band.
    noise = dataset_gains(
        pd.DataFrame({"E": E, "uE": rng.uniform(0.5, 1.5, 300)}), n_permutations=200, seed=3
    )
    assert (noise["gain_percent"] < 0.0).all()


def test_band_half_widths_prefers_ue_then_the_widest_interval():
    table = pd.DataFrame({"E": E_TINY, "U_9": U_TINY, "U_50": 2 * U_TINY, "uE": 3 * U_TINY})
    name, half = band_half_widths(table)
    assert name == "uE"
    np.testing.assert_array_equal(half, 3 * U_TINY)
    # Widest by probability level, compared as numbers (a string comparison picks "U_9").
    name, half = band_half_widths(table.drop(columns="uE"))
    assert name == "U_50"
    np.testing.assert_array_equal(half, 2 * U_TINY)
    with pytest.raises(ValueError, match="column E and a column uE or U_<P>"):
        band_half_widths(table[["U_9"]])
