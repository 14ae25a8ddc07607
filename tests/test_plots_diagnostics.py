"""One-call diagnostic plots: Axes handling, input checks, and the plotted numbers against
independent brute-force computations."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from scipy import stats

from uqval.calibration.curves import probabilistic_reference
from uqval.plots import (
    calibration_curve_plot,
    confidence_curve_plot,
    intervals_plot,
    local_zms_plot,
    reliability_diagram_plot,
    ucc_plot,
    z_vs_feature_plot,
)
from uqval.plots import diagnostics as diag
from uqval.plots.panels import RUNNING
from uqval.plots.style import CALIBRATED, UNCALIBRATED
from uqval.stats.running import running_quantiles_along


def planted(m: int, seed: int = 1, factor: float = 1.0):
    """uE lognormal, feature x ~ U(0, 1), E = uE·N(0, 1) scaled by ``factor`` where x > 0.5
    (uncertainties ``factor`` times too small there; calibrated for factor 1)."""
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.6, m)
    x = rng.uniform(0.0, 1.0, m)
    e = u * np.where(x > 0.5, factor, 1.0) * rng.standard_normal(m)
    return e, u, x


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


CALLS = {
    "calibration": lambda e, u, x, **kw: calibration_curve_plot(e, u, **kw),
    "reliability": lambda e, u, x, **kw: reliability_diagram_plot(e, u, units="eV", **kw),
    "lzms": lambda e, u, x, **kw: local_zms_plot(e, u, **kw),
    "lzms_feature": lambda e, u, x, **kw: local_zms_plot(e, u, x, x_name="x", **kw),
    "z_feature": lambda e, u, x, **kw: z_vs_feature_plot(e, u, x, feature_name="x", **kw),
    "confidence": lambda e, u, x, **kw: confidence_curve_plot(e, u, n_mc=50, **kw),
    "ucc": lambda e, u, x, **kw: ucc_plot(e, u, **kw),
    "intervals": lambda e, u, x, **kw: intervals_plot(e, u, **kw),
}


def markers(ax: Axes, color: str | None = None):
    """(x, y) of the marker-only lines of ax (optionally of one colour), concatenated."""
    lines = [
        ln
        for ln in ax.get_lines()
        if ln.get_marker() == "o" and ln.get_linestyle() == "None"
        and (color is None or ln.get_color() == color)
    ]
    if not lines:
        return np.empty(0), np.empty(0)
    return (np.concatenate([ln.get_xdata() for ln in lines]),
            np.concatenate([ln.get_ydata() for ln in lines]))


def legend_texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def equal_count_bins_brute(x: np.ndarray, n: int) -> list[np.ndarray]:
    """Bins of floor(M/n) or ceil(M/n) points of the stable x order, cut at floor(M i/n + 1/2)."""
    order = sorted(range(x.size), key=lambda i: (x[i], i))
    cuts = [int(np.floor(x.size * i / n + 0.5)) for i in range(n + 1)]
    return [np.array(order[cuts[i] : cuts[i + 1]]) for i in range(n)]


@pytest.mark.parametrize("name", CALLS)
def test_every_plot_returns_its_axes_and_draws_on_a_given_one(name, tmp_path):
    e, u, x = planted(300, factor=2.0)
    own = CALLS[name](e, u, x)
    assert isinstance(own, Axes)
    fig, ax = plt.subplots()
    assert CALLS[name](e, u, x, ax=ax) is ax
    assert ax.has_data()
    fig.savefig(tmp_path / f"{name}.png")  # mathtext and layout errors only show when drawn
    assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("name", CALLS)
def test_series_input_draws_what_arrays_draw(name):
    e, u, x = planted(300)
    index = pd.Index(np.arange(300)[::-1] * 7, name="id")
    from_arrays = CALLS[name](e, u, x)
    from_series = CALLS[name](pd.Series(e, index), pd.Series(u, index), pd.Series(x, index))
    for a, b in zip(from_arrays.get_lines(), from_series.get_lines(), strict=True):
        np.testing.assert_array_equal(a.get_xydata(), b.get_xydata())
    assert legend_texts(from_arrays) == legend_texts(from_series)


def test_reliability_points_are_the_per_bin_rmse_and_rmv():
    e, u, _ = planted(1000, factor=2.0)
    ax = reliability_diagram_plot(e, u, n_bins=7)
    rmv, rmse = markers(ax)
    bins = equal_count_bins_brute(u, 7)
    expected_rmv = [np.sqrt(sum(u[i] ** 2 for i in b) / len(b)) for b in bins]
    expected_rmse = [np.sqrt(sum(e[i] ** 2 for i in b) / len(b)) for b in bins]
    np.testing.assert_allclose(rmv, expected_rmv, rtol=1e-12)
    np.testing.assert_allclose(rmse, expected_rmse, rtol=1e-12)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("RMV", "RMSE")


def test_reliability_default_bins_follow_the_authors_rule():
    e, u, _ = planted(1000)
    assert markers(reliability_diagram_plot(e, u))[0].size == 1000 // 150
    e, u, _ = planted(3000)
    ax = reliability_diagram_plot(e, u, units="eV")
    assert markers(ax)[0].size == 15
    assert ax.get_ylabel() == "RMSE (eV)"


def test_local_zms_points_are_the_per_bin_mean_squared_z():
    e, u, x = planted(800, factor=2.0)
    ax = local_zms_plot(e, u, x, n_bins=10)
    bins = equal_count_bins_brute(x, 10)
    expected_pos = [0.5 * (x[b].min() + x[b].max()) for b in bins]
    expected_zms = [np.mean([(e[i] / u[i]) ** 2 for i in b]) for b in bins]
    pos, value = markers(ax)
    order = np.argsort(pos)
    np.testing.assert_allclose(pos[order], expected_pos, rtol=1e-12)
    np.testing.assert_allclose(value[order], expected_zms, rtol=1e-12)
    # red bins are those whose interval misses 1, blue ones contain it
    for color, misses in ((CALIBRATED, False), (UNCALIBRATED, True)):
        for coll in ax.collections:
            if isinstance(coll, LineCollection) and np.allclose(
                coll.get_colors()[0][:3], plt.matplotlib.colors.to_rgb(color)
            ):
                for seg in coll.get_segments():
                    low, high = sorted(seg[:, 1])
                    assert (not low <= 1.0 <= high) == misses
    n_valid = markers(ax, CALIBRATED)[0].size
    assert f"valid bin ({n_valid} of 10," in legend_texts(ax)[0]


def test_local_zms_finds_the_planted_region():
    """Uncertainties 2x too small for x > 0.5: the bins that miss 1 lie there."""
    e, u, x = planted(4000, seed=5, factor=2.0)
    ax = local_zms_plot(e, u, x, n_bins=20)
    red_x, _ = markers(ax, UNCALIBRATED)
    blue_x, _ = markers(ax, CALIBRATED)
    assert (red_x > 0.5).sum() >= 9 and (red_x < 0.5).sum() <= 1
    assert (blue_x < 0.5).sum() >= 9


def test_local_zms_default_bins_and_log_axis_on_uncertainty():
    e, u, _ = planted(900)
    ax = local_zms_plot(e, u, units="eV")
    assert markers(ax)[0].size == 30  # round(sqrt(900))
    assert ax.get_xscale() == "log"  # lognormal uE spanning decades
    assert ax.get_xlabel() == "uncertainty $u_E$ (eV)"


def test_uniform_feature_keeps_a_linear_axis():
    e, u, x = planted(900)
    assert local_zms_plot(e, u, x).get_xscale() == "linear"
    assert z_vs_feature_plot(e, u, x).get_xscale() == "linear"


def test_calibration_curve_is_the_fraction_below_each_normal_quantile():
    e, u, _ = planted(500, factor=2.0)
    ax = calibration_curve_plot(e, u)
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("data")]
    p, eta = line.get_xdata(), line.get_ydata()
    for j in range(0, p.size, 17):
        below = sum(1 for i in range(e.size) if e[i] < u[i] * stats.norm.ppf(p[j]))
        assert eta[j] == pytest.approx(below / e.size, abs=1e-12)


def test_running_quantiles_of_z_equal_the_core_running_quantiles():
    e, u, x = planted(600)
    ax = z_vs_feature_plot(e, u, x)
    low, high = (ln for ln in ax.get_lines() if ln.get_color() == RUNNING)
    positions, quantiles = running_quantiles_along(x, e / u)
    np.testing.assert_allclose(low.get_xdata(), positions)
    np.testing.assert_allclose(low.get_ydata(), quantiles[:, 0])
    np.testing.assert_allclose(high.get_ydata(), quantiles[:, 1])
    (scatter,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert scatter.get_offsets().shape == (600, 2)


def test_large_sets_draw_a_thinned_deterministic_scatter():
    e, u, x = planted(diag.MAX_SCATTER + 5000)
    first = z_vs_feature_plot(e, u, x)
    offsets = [c for c in first.collections if isinstance(c, PathCollection)][0].get_offsets()
    assert offsets.shape == (diag.MAX_SCATTER, 2)
    assert offsets[:, 0].min() == x.min() and offsets[:, 0].max() == x.max()
    again = z_vs_feature_plot(e, u, x)
    np.testing.assert_array_equal(
        offsets, [c for c in again.collections if isinstance(c, PathCollection)][0].get_offsets()
    )
    low = next(ln for ln in first.get_lines() if ln.get_color() == RUNNING)
    assert low.get_xdata().size == diag.MAX_WINDOWS
    drawn = sum(ln.get_xdata().size for ln in intervals_plot(e, u).get_lines()[:2])
    assert drawn == diag.MAX_SCATTER


def test_confidence_curve_is_the_rmse_after_removing_the_largest_uncertainties():
    e, u, _ = planted(400, factor=2.0)
    ax = confidence_curve_plot(e, u, seed=3, n_mc=60)
    data = next(ln for ln in ax.get_lines() if ln.get_label() == "data")
    by_u = sorted(range(e.size), key=lambda i: (-u[i], i))
    for k in (0, 10, 50, 90, 99):
        kept = by_u[k * e.size // 100 :]
        assert data.get_ydata()[k] == pytest.approx(np.sqrt(np.mean(e[kept] ** 2)), rel=1e-12)
    ref = probabilistic_reference(u, np.random.default_rng(3), n_mc=60)
    mean = next(ln for ln in ax.get_lines() if ln.get_label() == "probabilistic ref.")
    np.testing.assert_allclose(mean.get_ydata(), ref.mean)


def test_confidence_reference_of_large_sets_is_simulated_on_a_thinned_set(monkeypatch):
    """Above MAX_REFERENCE points the band is simulated on evenly spaced ranks of uE and its
    distance to the mean shrunk by sqrt(m/M)."""
    e, u, _ = planted(400)
    monkeypatch.setattr(diag, "MAX_REFERENCE", 100)
    ax = confidence_curve_plot(e, u, seed=2, n_mc=40)
    kept = np.sort(u)[np.rint(np.linspace(0, 399, 100)).astype(int)]
    ref = probabilistic_reference(kept, np.random.default_rng(2), n_mc=40)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    expected_low = ref.mean - 0.5 * (ref.mean - ref.low)
    expected_high = ref.mean + 0.5 * (ref.high - ref.mean)
    for value in np.concatenate([expected_low, expected_high]):
        assert np.isclose(band, value, rtol=1e-12).any()


def brute_ucc_area(e: np.ndarray, a: np.ndarray) -> float:
    """Trapezoid area of mean deficit against mean excess over the critical scales."""
    k_crit = sorted(abs(e[i]) / a[i] for i in range(e.size))
    excess, deficit = [], []
    for k in k_crit:
        excess.append(sum(max(k * a[i] - abs(e[i]), 0.0) for i in range(e.size)) / e.size)
        deficit.append(sum(max(abs(e[i]) - k * a[i], 0.0) for i in range(e.size)) / e.size)
    return abs(sum((excess[j + 1] - excess[j]) * (deficit[j + 1] + deficit[j]) / 2
                   for j in range(len(k_crit) - 1)))


def test_ucc_gain_in_the_legend_matches_a_brute_force_area():
    e, u, _ = planted(150, seed=4, factor=2.0)
    ax = ucc_plot(e, u, units="eV")
    model, const = brute_ucc_area(e, u), brute_ucc_area(e, np.ones_like(u))
    texts = legend_texts(ax)
    gain = float(re.search(r"gain ([+-][\d.]+) %", texts[-1]).group(1))
    assert gain == pytest.approx((const - model) / const * 100, abs=0.051)
    assert f"AUUCC {model:.3g}" in texts[1] and f"AUUCC {const:.3g}" in texts[0]
    assert ax.get_xlabel() == "mean excess (eV)"


def test_intervals_mark_exactly_the_errors_outside():
    e, u, _ = planted(700, factor=2.0)
    ax = intervals_plot(e, u, coverage=0.9)
    q = stats.norm.ppf(0.95)
    outside = sum(1 for i in range(e.size) if abs(e[i]) > q * u[i])
    red = next(ln for ln in ax.get_lines() if ln.get_color() == UNCALIBRATED)
    assert red.get_xdata().size == outside
    assert f"outside: {outside} of 700 = {100 * outside / 700:.1f} %\n" in legend_texts(ax)[-1]
    by_u = np.sort(u)
    rank = np.rint(red.get_xdata() / 100 * 699).astype(int)
    assert np.all(np.abs(red.get_ydata()) > q * by_u[rank])


E, U, X = planted(50)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: calibration_curve_plot(np.r_[np.nan, E[1:]], U), "errors"),
        (lambda: reliability_diagram_plot(E, -U), "uncertainties"),
        (lambda: ucc_plot(E[:-1], U), "errors and uncertainties"),
        (lambda: intervals_plot(E, np.r_[np.inf, U[1:]]), "uncertainties"),
        (lambda: confidence_curve_plot(["a"] * 50, U), "errors"),
        (lambda: z_vs_feature_plot(E, U, X[:-1]), "feature"),
        (lambda: z_vs_feature_plot(E, U, np.ones(50)), "feature"),
        (lambda: local_zms_plot(E, U, np.r_[np.nan, X[1:]]), "x"),
        (lambda: local_zms_plot(E, U, n_bins=0), "n_bins"),
        (lambda: reliability_diagram_plot(E, U, n_bins=40), "n_bins"),
        (lambda: intervals_plot(E, U, coverage=1.5), "coverage"),
        (lambda: local_zms_plot(E[:3], U[:3]), "errors and uncertainties"),
    ],
)
def test_bad_input_raises_a_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
