"""The report's figures draw the numbers the engine computed (``ValidationResult.figures`` and
the bins tables): saving computes no statistic, the per-bin figures show the bins of the
verdicts, and the other figures keep the numbers of the one-call plots."""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection

from uqval import validate
from uqval.binning import equal_count_bins
from uqval.plots import diagnostics, drawing, reliability
from uqval.report import validation as report_validation

FAST = dict(n_boot=200, n_permutations=199, n_ucc_permutations=199, seed=11)

# the statistics the report's figures ran before they drew records, by defining module
STATISTICS = [
    ("uqval.binning", "equal_count_bins"),
    ("uqval.binning", "tie_aware_bins"),
    ("uqval.calibration.local", "local_zmean_unchecked"),
    ("uqval.validation.judgement", "judge"),
    ("uqval.validation.advice", "advice_table"),
    ("uqval.stats.bootstrap", "bca_bootstrap"),
    ("uqval.stats.bootstrap", "bca_bootstrap_bins"),
    ("uqval.calibration.local", "local_zms"),
    ("uqval.calibration.local", "local_zmean"),
    ("uqval.calibration.local", "global_zms"),
    ("uqval.calibration.local", "global_zmean"),
    ("uqval.calibration.local", "reliability_diagram"),
    ("uqval.calibration.isotonic", "isotonic_reliability"),
    ("uqval.calibration.curves", "probabilistic_reference"),
    ("uqval.calibration.curves", "confidence_curve"),
    ("uqval.calibration.curves", "calibration_curve"),
    ("uqval.ucc", "ucc_curve"),
    ("uqval.ucc", "auucc"),
    ("uqval.stats.running", "hd_quantiles_sorted"),
    ("uqval.plots.records", "z_along_record"),
    ("uqval.plots.records", "confidence_record"),
    ("uqval.plots.records", "ucc_record"),
    ("uqval.plots.records", "isotonic_record"),
]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def binary_data(m: int = 2000, zeros: int = 957, seed: int = 36):
    """uE ~ U(0.5, 2); a binary feature b with ``zeros`` zeros, errors 1.3 x larger than uE
    says where b = 1; a uniform feature x."""
    rng = np.random.default_rng(seed)
    b = np.ones(m)
    b[rng.choice(m, zeros, replace=False)] = 0.0
    u = rng.uniform(0.5, 2.0, m)
    x = rng.uniform(0.0, 1.0, m)
    e = u * rng.standard_normal(m) * np.where(b == 1.0, 1.3, 1.0)
    return e, u, b, x


@pytest.fixture(scope="module")
def binary_result():
    e, u, b, x = binary_data()
    return validate(e, u, {"b": b, "x": x}, **FAST)


def patch_everywhere(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> int:
    """Replace function ``module.name`` by one that raises, under every name a loaded uqval
    module holds it (where it is looked up); returns how many bindings were patched."""
    original = getattr(importlib.import_module(module), name)

    def refuse(*args, **kwargs):
        raise AssertionError(f"{module}.{name} ran while the report was saved")

    patched = 0
    for loaded in list(sys.modules.values()):
        if not getattr(loaded, "__name__", "").startswith("uqval"):
            continue
        for attr, value in list(vars(loaded).items()):
            if value is original:
                monkeypatch.setattr(loaded, attr, refuse)
                patched += 1
    return patched


def markers(ax: Axes) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of the marker-only lines of ax, sorted by x."""
    lines = [ln for ln in ax.get_lines()
             if ln.get_marker() == "o" and ln.get_linestyle() == "None"]
    x = np.concatenate([ln.get_xdata() for ln in lines]).astype(float)
    y = np.concatenate([ln.get_ydata() for ln in lines]).astype(float)
    order = np.argsort(x, kind="stable")
    return x[order], y[order]


def intervals(ax: Axes) -> np.ndarray:
    """(x, low, high) of the vertical interval segments of ax, sorted by x."""
    rows = [(seg[0, 0], *sorted(seg[:, 1])) for coll in ax.collections
            if isinstance(coll, LineCollection) for seg in coll.get_segments()]
    return np.array(sorted(rows))


def draw(spec) -> Axes:
    fig, ax = plt.subplots()
    spec[3](ax)
    return ax


def lines_of(ax: Axes) -> list[np.ndarray]:
    return [np.asarray(ln.get_xydata(), dtype=float) for ln in ax.get_lines()]


def legend_of(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


# --- (a) saving computes no statistic -----------------------------------------------------


def test_saving_the_report_runs_no_statistic(tmp_path, binary_result):
    with pytest.MonkeyPatch.context() as mp:
        counts = {f"{m}.{n}": patch_everywhere(mp, m, n) for m, n in STATISTICS}
        assert all(counts.values()), counts  # every function was found where it is looked up
        written = binary_result.save(tmp_path)
    stems = [spec[0] for spec in report_validation.figure_specs(binary_result)]
    assert len(stems) == 3 + 2 * 3 + 2 + 2  # 3 curves, LZMS + LZM x 3 variables, z x 2, 2 curves
    pngs = sorted(p.stem for p in tmp_path.glob("*.png"))
    assert pngs == sorted(stems)
    for stem in stems:
        assert (tmp_path / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
    assert tmp_path / "report.html" in written
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(stems)


def test_the_patch_does_catch_a_statistic(binary_result):
    """The check above would see a figure that re-bins: the one-call plot raises."""
    e, u = binary_result.errors, binary_result.uncertainties
    with pytest.MonkeyPatch.context() as mp:
        patch_everywhere(mp, "uqval.binning", "equal_count_bins")
        with pytest.raises(AssertionError, match="equal_count_bins ran"):
            diagnostics.local_zms_plot(e, u)


# --- (b) the LZMS and LZM figures draw the bins of the table ------------------------------


def test_binary_feature_figures_draw_the_tables_bins(binary_result):
    _, _, b, _ = binary_data()
    table = binary_result.bins["b"]
    assert table["n"].tolist() == [957, 1043]
    assert table[["low", "high"]].to_numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    # equal-count bins (the figure before) put ones into the bin of the zeros
    old = equal_count_bins(b, len(table))
    assert [int(b[i].sum()) for i in old] == [43, 1000]
    specs = {spec[0]: spec for spec in report_validation.figure_specs(binary_result)}
    lzms = draw(specs["lzms_b"])
    x, value = markers(lzms)
    assert x.tolist() == [0.0, 1.0]  # a bin of zeros and a bin of ones
    assert x.size == len(table)
    np.testing.assert_array_equal(value, table["value"].to_numpy())
    np.testing.assert_array_equal(intervals(lzms),
                                  np.c_[x, table["ci_low"], table["ci_high"]])
    # each drawn bin holds exactly the rows of its table row (n per bin)
    for pos, n in zip(x, table["n"], strict=True):
        assert int((b == pos).sum()) == n
    lzm = draw(specs["lzm_b"])
    x, value = markers(lzm)
    assert x.tolist() == [0.0, 1.0]
    np.testing.assert_array_equal(value, table["mean_z"].to_numpy())
    np.testing.assert_array_equal(intervals(lzm),
                                  np.c_[x, table["mean_z_low"], table["mean_z_high"]])


def test_every_lzms_figure_draws_its_table(binary_result):
    specs = {spec[0]: spec for spec in report_validation.figure_specs(binary_result)}
    for name, table in binary_result.bins.items():
        stem = report_validation.variable_stems(binary_result)[name]
        x, value = markers(draw(specs[f"lzms_{stem}"]))
        np.testing.assert_allclose(x, 0.5 * (table["low"] + table["high"]), rtol=0, atol=0)
        np.testing.assert_array_equal(value, table["value"].to_numpy())
        red = draw(specs[f"lzms_{stem}"])
        n_invalid = int((~table["valid"]).sum())
        assert f"valid bin ({len(table) - n_invalid} of {len(table)}," in legend_of(red)[0]


# --- (c) the reliability diagram uses the bins of the consistency table -------------------


def test_reliability_diagram_record_has_the_consistency_bins():
    rng = np.random.default_rng(5)
    u = np.round(rng.uniform(0.5, 2.0, 1500), 1)  # 16 values: ties the bins keep together
    e = u * rng.standard_normal(u.size)
    res = validate(e, u, **FAST)
    table = res.bins["uncertainty"]
    rd = res.figures.reliability
    assert rd["n"].tolist() == table["n"].tolist()
    assert table["n"].tolist() != [b.size for b in equal_count_bins(u, len(table))]
    for row, rd_row in zip(table.itertuples(), rd.itertuples(), strict=True):
        inside = (u >= row.low) & (u <= row.high)
        assert inside.sum() == row.n == rd_row.n
        assert rd_row.x == pytest.approx(np.sqrt(np.mean(u[inside] ** 2)), rel=1e-12)
        assert rd_row.value == pytest.approx(np.sqrt(np.mean(e[inside] ** 2)), rel=1e-12)
    ax = draw(next(s for s in report_validation.figure_specs(res)
                   if s[0] == "reliability_diagram"))
    rmv, rmse = markers(ax)
    np.testing.assert_array_equal(rmv, rd["x"].to_numpy())
    np.testing.assert_array_equal(rmse, rd["value"].to_numpy())
    assert legend_of(ax)[0].startswith(f"{len(table)} bins of $u_E$")


# --- the other figures keep the one-call plots' numbers ------------------------------------


def test_records_draw_what_the_one_call_plots_draw():
    """Same arrays and seeds as the report's one-call figures before: same lines, same
    legends (the reliability diagram with as many bins, no ties: the same bins)."""
    rng = np.random.default_rng(8)
    m = 900
    u = rng.lognormal(0.0, 0.5, m)
    x = rng.uniform(0.0, 1.0, m)
    e = u * rng.standard_normal(m) * np.where(x > 0.5, 1.5, 1.0)
    res = validate(e, u, {"x": x}, **FAST)
    seed = int(res.parameters["seed"])
    factor = float(res.parameters["conditional_scaling"])
    specs = {spec[0]: spec for spec in report_validation.figure_specs(res)}
    k = len(res.bins["uncertainty"])
    pairs = {
        "calibration_curve": lambda ax: diagnostics.calibration_curve_plot(e, u, ax=ax),
        "reliability_diagram": lambda ax: diagnostics.reliability_diagram_plot(
            e, u, n_bins=k, ax=ax, seed=seed),
        "isotonic_reliability": lambda ax: reliability.isotonic_reliability_plot(
            e, u, ax=ax, seed=seed, n_sim=200, n_boot=100),
        "z_vs_x": lambda ax: diagnostics.z_vs_feature_plot(e, u * factor, x, feature_name="x",
                                                           ax=ax),
        "confidence_curve": lambda ax: diagnostics.confidence_curve_plot(e, u, ax=ax, seed=seed),
        "ucc": lambda ax: diagnostics.ucc_plot(e, u, ax=ax),
    }
    for stem, one_call in pairs.items():
        new = draw(specs[stem])
        fig, old = plt.subplots()
        one_call(old)
        for a, b in zip(lines_of(new), lines_of(old), strict=True):
            np.testing.assert_array_equal(a, b, err_msg=stem)
        if stem != "reliability_diagram":  # its legend names the bins of the table
            assert legend_of(new) == legend_of(old), stem
        assert (new.get_xscale(), new.get_yscale()) == (old.get_xscale(), old.get_yscale())
    # LZMS along x: the "all points" line of the one-call plot (scaled uncertainties)
    legend = legend_of(draw(specs["lzms_x"]))
    old = diagnostics.local_zms_plot(e, u * factor, x, x_name="x", seed=seed)
    assert legend[2] == legend_of(old)[2]


def test_without_records_only_the_bins_tables_are_drawn(binary_result):
    bare = dataclasses.replace(binary_result, figures=None)
    specs = report_validation.figure_specs(bare)
    assert [s[0] for s in specs] == ["lzms_uncertainty", "lzm_uncertainty", "lzms_b", "lzm_b",
                                     "lzms_x", "lzm_x"]
    for spec in specs:
        assert draw(spec).has_data()


def test_paper_rule_computes_the_records_too():
    e, u, b, x = binary_data(600, 280, seed=3)
    res = validate(e, u, {"x": x}, rule="paper", n_boot=200, seed=2)
    assert res.figures is not None and set(res.figures.z_along) == {"x"}


def test_figure_stage_imports_no_matplotlib():
    code = ("import sys, uqval.validation.figure_stage, uqval.plots.records; "
            "print(any(m.startswith('matplotlib') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --- (d) drawing functions and the public one-call plots ----------------------------------


def test_one_call_plots_still_run():
    rng = np.random.default_rng(2)
    u = rng.uniform(0.5, 2.0, 400)
    x = rng.uniform(0.0, 1.0, 400)
    e = u * rng.standard_normal(400)
    calls = [
        lambda: diagnostics.calibration_curve_plot(e, u),
        lambda: diagnostics.reliability_diagram_plot(e, u, units="eV"),
        lambda: diagnostics.local_zms_plot(e, u),
        lambda: diagnostics.local_zms_plot(e, u, x, x_name="x", n_bins=8),
        lambda: diagnostics.local_zm_plot(e, u, x, x_name="x"),
        lambda: diagnostics.z_vs_feature_plot(e, u, x, feature_name="x"),
        lambda: diagnostics.confidence_curve_plot(e, u, n_mc=50),
        lambda: diagnostics.ucc_plot(e, u, x_axis="bandwidth", y_axis="miss_rate"),
        lambda: diagnostics.intervals_plot(e, u),
        lambda: reliability.isotonic_reliability_plot(e, u, n_sim=50, n_boot=50),
        lambda: reliability.cumulative_plot(e, u, n_permutations=99),
    ]
    for call in calls:
        ax = call()
        assert isinstance(ax, Axes) and ax.has_data()


def lzms_table(values, valid=None) -> pd.DataFrame:
    values = np.asarray(values, dtype=float)
    k = values.size
    return pd.DataFrame({
        "low": np.arange(k, dtype=float), "high": np.arange(k) + 0.9, "n": np.full(k, 100),
        "value": values, "ci_low": 0.8 * values, "ci_high": 1.2 * values,
        "valid": np.ones(k, bool) if valid is None else valid,
    })


def test_one_dwarfing_bin_gets_a_log_axis_that_says_so():
    flat = drawing.bins_table_plot(lzms_table([0.9, 1.1, 1.0, 1.2, 0.95]), "lzms")
    assert flat.get_yscale() == "linear" and "log" not in flat.get_ylabel()
    tall = drawing.bins_table_plot(lzms_table([0.9, 1.1, 40.0, 1.2, 0.95]), "lzms")
    assert tall.get_yscale() == "log" and tall.get_ylabel().endswith("(log scale)")
    low, high = tall.get_ylim()
    assert low < 0.8 * 0.9 and high > 1.2 * 40.0  # every interval in view


def test_bins_table_plot_positions_spans_and_shading():
    table = lzms_table([1.0, 2.0, 1.0], valid=np.array([True, False, True]))
    ax = drawing.bins_table_plot(table, "lzms", x_name="feature (K)", whole=(1.1, 0.9, 1.3))
    x, value = markers(ax)
    np.testing.assert_allclose(x, [0.45, 1.45, 2.45])
    np.testing.assert_array_equal(value, [1.0, 2.0, 1.0])
    (shade,) = ax.patches  # the x range of the invalid bin, half-way to its neighbours
    box = shade.get_bbox()
    assert (box.x0, box.x1) == pytest.approx((0.95, 1.95))
    texts = legend_of(ax)
    assert texts[0].startswith("valid bin (2 of 3,") and "ZMS = 1.10 [0.90, 1.30]" in texts[2]
    assert ax.get_xlabel() == "feature (K)"
    with pytest.raises(ValueError, match="kind"):
        drawing.bins_table_plot(table, "zms")  # type: ignore[arg-type]
