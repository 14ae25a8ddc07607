"""The large-set mode of ``uqval validate`` (issue 29): sequential permutation tests above
``LARGE_ROWS`` rows and the figures' seeded subsample, against the fixed path."""

from __future__ import annotations

import numpy as np
import pytest

from uqval.report import validation as report_validation
from uqval.validation import engine, figure_stage, stages
from uqval.validation.permutation import heterogeneity_tests


def _data(m: int, seed: int, slope: float = 0.0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.5, 2.0, m)
    x = rng.uniform(0.0, 1.0, m)
    e = u * rng.standard_normal(m) * np.sqrt(1.0 + slope * (x - 0.5))
    return e, u, x


def _labels(x: np.ndarray, k: int) -> np.ndarray:
    return np.searchsorted(np.quantile(x, np.linspace(0, 1, k + 1)[1:-1]), x).astype(np.int32)


def test_sequential_never_stopping_equals_fixed():
    e, u, x = _data(3000, 1)
    labels = [_labels(u, 6), _labels(x, 5)]
    fixed = heterogeneity_tests(e / u, labels, n_permutations=300, seed=7)
    # h above the number of permutations: no test can stop, every number is the fixed one
    seq = heterogeneity_tests(e / u, labels, n_permutations=300, seed=7, exceedances=301)
    assert seq == fixed


def test_sequential_stop_is_besag_clifford_on_the_fixed_stream():
    e, u, x = _data(3000, 2)
    labels = [_labels(u, 6), _labels(x, 5)]
    h = 10
    seq = heterogeneity_tests(e / u, labels, n_permutations=2000, seed=11, exceedances=h)
    for v, pair in enumerate(seq):
        for s, test in enumerate(pair):
            n = test.n_permutations
            if n == 2000:  # fewer than h exceedances: the fixed p-value
                assert test.p_value == heterogeneity_tests(
                    e / u, labels, n_permutations=2000, seed=11)[v][s].p_value
                continue
            assert test.p_value == pytest.approx(h / n, rel=1e-15)
            # the first n permutations of the fixed rule: exactly h exceed, the n-th does
            first_n = heterogeneity_tests(e / u, labels, n_permutations=n, seed=11)[v][s]
            first_less = heterogeneity_tests(e / u, labels, n_permutations=n - 1, seed=11)[v][s]
            assert first_n.p_value == pytest.approx((1 + h) / (n + 1), rel=1e-15)
            assert first_less.p_value == pytest.approx(h / n, rel=1e-15)  # (1 + h - 1) / n
            assert test.null_mean == first_n.null_mean
            assert test.statistic == first_n.statistic


def test_sequential_keeps_full_count_for_a_clear_departure():
    e, u, x = _data(4000, 3, slope=1.6)
    seq = heterogeneity_tests(e / u, [_labels(x, 5)], n_permutations=500, seed=0,
                              exceedances=20)
    fixed = heterogeneity_tests(e / u, [_labels(x, 5)], n_permutations=500, seed=0)
    assert seq[0][0] == fixed[0][0]  # T_ZMS along x: no exceedance, all 500 drawn
    assert seq[0][0].p_value == 1 / 501


def test_exceedances_must_be_positive():
    e, u, x = _data(200, 4)
    with pytest.raises(ValueError, match="exceedances"):
        heterogeneity_tests(e / u, [_labels(x, 2)], n_permutations=20, exceedances=0)


FAST = dict(n_boot=200, n_permutations=999, n_ucc_permutations=199, seed=5)


@pytest.mark.parametrize("slope", [0.0, 1.6])
def test_large_mode_gives_the_verdicts_of_the_fixed_path(monkeypatch, slope):
    e, u, x = _data(3000, 6, slope)
    fixed = engine.validate(e, u, {"x": x}, **FAST)
    monkeypatch.setattr(stages, "LARGE_ROWS", 1000)
    large = engine.validate(e, u, {"x": x}, **FAST)
    assert large.stage_verdicts == fixed.stage_verdicts
    assert large.parameters["permutation_rule"].startswith("sequential, h = 20")
    assert fixed.parameters["permutation_rule"] == "fixed"
    # only the permutation tests differ (p-value, spread ratio T/mean of the null drawn)
    same = ["stage", "feature", "scaled", "verdict", "statistic", "ci_low", "ci_high"]
    assert large.verdicts[same].equals(fixed.verdicts[same])
    average = fixed.verdicts["stage"] == "average"
    assert large.verdicts[average].equals(fixed.verdicts[average])
    ratio = ~average & fixed.verdicts["value"].notna()
    assert np.allclose(large.verdicts.loc[ratio, "value"], fixed.verdicts.loc[ratio, "value"],
                       rtol=0.25)
    assert large.scale_factor == fixed.scale_factor
    # per-bin <Z^2>: the same value; the interval is the Student-t one, derived here
    from scipy import stats

    z2 = np.square(e / (u * large.parameters["conditional_scaling"]))
    for name, xv in (("uncertainty", u), ("x", x)):
        table, ref = large.bins[name], fixed.bins[name]
        assert np.allclose(table["value"], ref["value"], rtol=1e-12)
        assert table[["low", "high", "n", "mean_z", "mean_z_low"]].equals(
            ref[["low", "high", "n", "mean_z", "mean_z_low"]])
        for row in table.itertuples():
            inside = (xv >= row.low) & (xv <= row.high)
            w = z2[inside]
            assert w.size == row.n
            half = stats.t.ppf(0.975, w.size - 1) * w.std(ddof=1) / np.sqrt(w.size)
            assert row.ci_low == pytest.approx(w.mean() - half, rel=1e-10)
            assert row.ci_high == pytest.approx(w.mean() + half, rel=1e-10)
    assert large.parameters["bin_intervals"].startswith("Student t")
    assert fixed.parameters["bin_intervals"] == "BCa, 200 replicates per bin"


def test_figure_subsample(monkeypatch):
    assert figure_stage.figure_subsample(figure_stage.FIGURE_FULL_ROWS, 0) is None
    monkeypatch.setattr(figure_stage, "FIGURE_FULL_ROWS", 100)
    monkeypatch.setattr(figure_stage, "FIGURE_SUBSAMPLE", 50)
    a = figure_stage.figure_subsample(1000, 3)
    assert a is not None and a.size == 50 and np.unique(a).size == 50
    assert a.min() >= 0 and a.max() < 1000
    assert np.array_equal(a, figure_stage.figure_subsample(1000, 3))  # seeded
    assert not np.array_equal(a, figure_stage.figure_subsample(1000, 4))


def test_large_figures_use_the_subsample_except_per_bin_ones(monkeypatch):
    import matplotlib.pyplot as plt

    e, u, x = _data(3000, 8)
    result = engine.validate(e, u, {"x": x}, **FAST)
    full = report_validation.figure_specs(result)
    assert not any("drawn at random" in title for _, title, _, _ in full)
    monkeypatch.setattr(figure_stage, "FIGURE_FULL_ROWS", 1000)
    monkeypatch.setattr(figure_stage, "FIGURE_SUBSAMPLE", 500)
    sampled_result = engine.validate(e, u, {"x": x}, **FAST)
    specs = report_validation.figure_specs(sampled_result)
    assert [s[0] for s in specs] == [s[0] for s in full]
    sampled = {stem for stem, title, _, _ in specs if "500 of the 3000 rows" in title}
    assert sampled == {"calibration_curve", "isotonic_reliability", "z_vs_x",
                       "confidence_curve", "ucc"}
    records = sampled_result.figures
    assert records is not None and records.subsample_rows == 500
    assert records.calibration.n_band == 500 and records.z_along["x"].n_rows == 500
    assert records.reliability["n"].sum() == 3000  # per-bin figures: all rows
    for _, _, _, draw in specs:  # every figure still draws something
        fig, ax = plt.subplots()
        draw(ax)
        assert ax.has_data()
        plt.close(fig)


def test_binfree_sequential_against_fixed():
    from uqval.calibration.isotonic import mcb_permutation_test
    from uqval.validation.binfree import binfree_tests

    e, u, x = _data(2000, 9)
    z = e / u
    fixed = binfree_tests(z, u, [u, x], n_permutations=400, seed=3)
    never = binfree_tests(z, u, [u, x], n_permutations=400, seed=3, exceedances=401)
    assert never == fixed
    h = 10
    seq = binfree_tests(z, u, [u, x], n_permutations=400, seed=3, exceedances=h)
    for row, ref in zip(seq[0], fixed[0], strict=True):
        assert row[0] == ref[0] and row[2] == ref[2]  # the statistics
        for p, p_fixed in ((row[1], ref[1]), (row[3], ref[3])):
            if p_fixed <= h / 401:  # fewer than h exceedances in 400: the fixed p-value
                assert p == p_fixed
            else:  # p = h/l with l <= 400, at least the fixed-rule estimate's order
                assert h / 400 <= p <= 1.0
                assert float(h / p).is_integer()
    # MCB: stopped at the h-th exceedance of the fixed rule's own permutations
    mcb = mcb_permutation_test(e, u, n_permutations=300, seed=4, exceedances=h)
    assert mcb.n_permutations < 300  # calibrated data: stops early
    if mcb.n_permutations < 300:
        n = mcb.n_permutations
        first = mcb_permutation_test(e, u, n_permutations=n, seed=4)  # the same first n
        assert mcb.p_value == pytest.approx(h / n, rel=1e-15)
        assert first.p_value == pytest.approx((1 + h) / (n + 1), rel=1e-15)
        assert first.miscalibration == mcb.miscalibration
    assert mcb_permutation_test(e, u, n_permutations=300, seed=4, exceedances=301) == \
        mcb_permutation_test(e, u, n_permutations=300, seed=4)


def _subsample(seed: int, children: int, m: int, rows: int) -> np.ndarray:
    # derived here: the last child of the seed's spawn drives a PCG64 choice without replacement
    child = np.random.SeedSequence(seed).spawn(children)[-1]
    return np.sort(np.random.Generator(np.random.PCG64(child)).choice(m, rows, replace=False))


def test_binfree_subsample_is_the_full_test_on_the_subsampled_rows():
    from uqval.validation.binfree import binfree_tests, rows_note

    e, u, x = _data(4000, 12, slope=0.8)
    z = e / u
    rows = _subsample(21, 3, z.size, 1500)
    sub = binfree_tests(z, u, [u, x], n_permutations=300, seed=21, exceedances=20,
                        max_rows=1500)
    ref = binfree_tests(z[rows], u[rows], [u[rows], x[rows]], n_permutations=300, seed=21,
                        exceedances=20)
    assert sub == ref and sub[1][3] == 1500
    full = binfree_tests(z, u, [u, x], n_permutations=300, seed=21, exceedances=20)
    assert full[1][3] == 4000 and full != sub
    # max_rows at or above M: all rows, every number unchanged
    assert binfree_tests(z, u, [u, x], n_permutations=300, seed=21, exceedances=20,
                         max_rows=4000) == full
    assert rows_note(4000, 4000) == ""
    assert rows_note(4000, 1500) == ", on a seeded subsample of 1500 of the 4000 rows"


def test_joint_subsample_tests_the_subsampled_rows_and_counts_all_rows():
    from uqval.calibration.joint import joint_calibration

    rng = np.random.default_rng(13)
    m, n = 6000, 2000
    x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    u = rng.uniform(0.5, 2.0, m)
    e = u * rng.standard_normal(m)
    e[(x1 > 0.5) ^ (x2 > 0.5)] *= 1.6
    rows = _subsample(4, 7, m, n)
    sub = joint_calibration(e, u, {"x1": x1, "x2": x2}, n_permutations=199, seed=4, max_rows=n)
    ref = joint_calibration(e[rows], u[rows], {"x1": x1[rows], "x2": x2[rows]},
                            n_permutations=199, seed=4)
    for a, b in ((sub.spread, ref.spread), (sub.bias, ref.bias)):
        assert a.correlation == b.correlation and a.p_halves == b.p_halves
    # regions: counted over all rows, held-out values from the subsample's held-out rows
    high = sub.spread.high
    assert high.mask.size == m and high.rows == int(high.mask.sum())
    assert high.share == pytest.approx(high.rows / m)
    assert high.n_heldout < high.rows / 2
    assert joint_calibration(e, u, {"x1": x1, "x2": x2}, n_permutations=199, seed=4,
                             max_rows=m) == joint_calibration(
        e, u, {"x1": x1, "x2": x2}, n_permutations=199, seed=4)


def test_large_mode_with_subsample_gives_the_verdicts_of_the_fixed_path(monkeypatch):
    from uqval.validation import binfree

    for slope in (0.0, 1.6):
        e, u, x = _data(6000, 14, slope)
        x2 = np.random.default_rng(15).uniform(size=e.size)
        fixed = engine.validate(e, u, {"x": x, "x2": x2}, **FAST)
        with monkeypatch.context() as mp:
            mp.setattr(stages, "LARGE_ROWS", 1000)
            mp.setattr(binfree, "BINFREE_ROWS", 3000)
            mp.setattr(stages, "JOINT_ROWS", 4000)
            large = engine.validate(e, u, {"x": x, "x2": x2}, **FAST)
        assert large.stage_verdicts == fixed.stage_verdicts
        assert large.parameters["subsample"] == (
            "cumulative and isotonic MCB tests on a seeded subsample of 3000 rows (more than "
            "1000 rows); joint test on a seeded subsample of 4000 rows (more than 4000 rows)")
        assert "a seeded subsample of 4000 of the 6000 rows" in large.parameters["joint"]
        assert fixed.parameters["subsample"] == "none (all rows)"
        assert large.scale_factor == fixed.scale_factor
        notes = large.verdicts.loc[large.verdicts["statistic"].str.startswith(
            ("cumulative", "isotonic")), "note"]
        assert notes.str.contains("subsample of 3000 of the 6000 rows").all()


def test_joint_permutations_do_not_depend_on_the_threads():
    from uqval.calibration.heldout import permutation_p as _permutation_p

    rng = np.random.default_rng(16)
    pred = rng.normal(size=5000)
    y = 0.03 * pred + rng.normal(size=5000)
    one = _permutation_p(pred, y, 999, np.random.SeedSequence(3), n_workers=1)
    assert _permutation_p(pred, y, 999, np.random.SeedSequence(3), n_workers=2) == one


def test_shared_sorts_sort_each_array_once(monkeypatch):
    from uqval import binning

    rng = np.random.default_rng(17)
    x, y = rng.normal(size=500), rng.normal(size=500)
    calls = []
    real = np.argsort
    monkeypatch.setattr(np, "argsort", lambda a, **k: calls.append(a.size) or real(a, **k))
    with binning.shared_sorts():
        first = binning.equal_count_bins(x, 5)
        again = binning.equal_count_bins(x, 5)
        other = binning.equal_count_bins(y, 4)
    assert len(calls) == 2  # x once, y once
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert np.array_equal(np.concatenate(other), np.argsort(y, kind="stable"))
    binning.equal_count_bins(x, 5)  # outside the block: sorted again
    assert len(calls) == 4  # (the reference argsort above, then this one)


def test_sequential_rule_from_sequential_rows_on_all_rows(monkeypatch):
    """Between SEQUENTIAL_ROWS and LARGE_ROWS: every permutation test (binned, bin-free, the
    joint test's halves) follows the sequential rule on all rows; the per-bin intervals stay
    BCa and no test is subsampled."""
    from uqval.calibration.joint import joint_calibration
    from uqval.validation.binfree import binfree_tests

    e, u, x = _data(3000, 18, slope=0.3)
    x2 = np.random.default_rng(19).uniform(size=e.size)
    fixed = engine.validate(e, u, {"x": x, "x2": x2}, **FAST)
    monkeypatch.setattr(stages, "SEQUENTIAL_ROWS", 1000)
    seq = engine.validate(e, u, {"x": x, "x2": x2}, **FAST)
    assert seq.parameters["permutation_rule"] == "sequential, h = 20 (more than 1000 rows)"
    assert fixed.parameters["permutation_rule"] == "fixed"
    assert seq.parameters["bin_intervals"] == fixed.parameters["bin_intervals"]
    assert seq.parameters["subsample"] == "none (all rows)"
    for name in fixed.bins:  # per-bin tables: the same BCa intervals
        assert seq.bins[name].equals(fixed.bins[name])
    same = ["stage", "feature", "scaled", "statistic", "ci_low", "ci_high"]
    assert seq.verdicts[same].equals(fixed.verdicts[same])
    # the bin-free and joint rows are those of the sequential tests run directly
    seeds = stages.Seeds.of(5)
    direct = binfree_tests(e / u, u, [u, x, x2], n_permutations=seq.parameters["n_permutations"],
                           seed=seeds.binfree, exceedances=20)
    rows = seq.verdicts[seq.verdicts["statistic"].str.startswith("cumulative Kuiper Z²")
                        & seq.verdicts["scaled"]]
    assert rows["p_value"].tolist() == [d[1] for d in direct[0]]
    joint = joint_calibration(e, u * seq.parameters["conditional_scaling"],
                              {"x": x, "x2": x2}, n_permutations=999, seed=seeds.joint,
                              exceedances=20)
    assert seq.joint is not None
    assert seq.joint.spread.p_splits == joint.spread.p_splits
    assert seq.joint.bias.p_splits == joint.bias.p_splits


def test_joint_fits_in_threads_give_the_one_thread_numbers():
    from uqval.calibration.joint import joint_calibration

    rng = np.random.default_rng(20)
    m = 3000
    x1, x2 = rng.uniform(size=m), rng.uniform(size=m)
    u = rng.uniform(0.5, 2.0, m)
    e = u * rng.standard_normal(m) * np.where((x1 > 0.5) ^ (x2 > 0.5), 1.4, 1.0)
    args = (e, u, {"x1": x1, "x2": x2})
    one = joint_calibration(*args, n_permutations=199, seed=6, n_workers=1)
    two = joint_calibration(*args, n_permutations=199, seed=6, n_workers=2)
    assert one == two
    assert one.spread.p_splits == two.spread.p_splits
    assert one.spread.correlation == two.spread.correlation
