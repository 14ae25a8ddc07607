"""Test sets in parts (issue 41): the two-pass path against all rows held at once.

References are computed here with NumPy/SciPy on all rows (brute force), or are
:func:`uqval.validate` on all rows."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval import validate
from uqval._internal.errors import DataError
from uqval._internal.parts import PartsSource
from uqval.calibration.robust_scale import z2_tail_shares
from uqval.stats.groups import GroupIndex, cluster_mean_se
from uqval.stats.part_sums import ExactSums, poisson_bootstrap_sums
from uqval.validation.parts import PartColumns, validate_parts

FAST = dict(n_boot=300, n_permutations=199, n_ucc_permutations=199)


def _frame(m: int, seed: int = 1, local: float = 1.0, groups: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.5, m)
    x1 = rng.uniform(size=m)
    z = rng.standard_normal(m)
    frame = pd.DataFrame({"u": u, "x1": x1, "x2": rng.normal(size=m)})
    if groups is not None:
        g = np.sort(rng.integers(0, groups, m))
        a = rng.standard_normal(groups)[g]
        z = math.sqrt(0.5) * a + math.sqrt(0.5) * z
        frame["structure"] = [f"s{k:05d}" for k in g]
    frame["e"] = u * z * np.where(x1 > 0.8, local, 1.0)
    return frame


def _write(frame: pd.DataFrame, folder: Path, cuts: list[int]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    bounds = [0, *cuts, len(frame)]
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        frame.iloc[a:b].to_parquet(folder / f"part-{i:03d}.parquet")
    return folder


COLUMNS = PartColumns("u", error="e", features=("x1", "x2"))


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    frame = _frame(60_000, local=1.5)
    folder = _write(frame, tmp_path_factory.mktemp("planted"), [7000, 7100, 31000, 52000])
    return frame, folder, validate_parts(folder, COLUMNS, subsample=10_000, n_jobs=2, **FAST)


def test_all_row_numbers_equal_brute_force(planted):
    frame, _, res = planted
    z = (frame["e"] / frame["u"]).to_numpy()
    assert res.scale_factor.value == pytest.approx(math.sqrt(np.mean(z**2)), rel=1e-13)
    avg = res.verdicts[res.verdicts["stage"] == "average"].set_index("statistic")
    assert avg.loc["<Z>", "value"] == pytest.approx(z.mean(), abs=1e-15)
    half = stats.t.ppf(0.975, z.size - 1) * z.std(ddof=1) / math.sqrt(z.size)
    assert avg.loc["<Z>", "ci_low"] == pytest.approx(z.mean() - half, rel=1e-9)
    want = z2_tail_shares(frame["e"], frame["u"])
    assert res.tail_shares.top_1_percent == pytest.approx(want.top_1_percent, rel=1e-12)
    assert res.tail_shares.top_0_1_percent == pytest.approx(want.top_0_1_percent, rel=1e-12)
    assert res.row_counts["rows used"] == len(frame)
    reference = res.parameters["conditional_scaling"]
    for name, column in (("u", "u"), ("x1", "x1"), ("x2", "x2")):
        table = res.bins[name]
        x = frame[column].to_numpy()
        label = np.searchsorted(table["low"].to_numpy(), x, side="right") - 1
        assert np.array_equal(np.bincount(label), table["n"].to_numpy())
        zs = z / reference
        for b in (0, len(table) // 2, len(table) - 1):
            zb = zs[label == b]
            assert table["value"].iloc[b] == pytest.approx(np.mean(zb**2), rel=1e-12)
            assert table["mean_z"].iloc[b] == pytest.approx(np.mean(zb), rel=1e-10, abs=1e-14)
            h = stats.t.ppf(0.975, zb.size - 1) * np.std(zb**2, ddof=1) / math.sqrt(zb.size)
            assert table["ci_high"].iloc[b] == pytest.approx(np.mean(zb**2) + h, rel=1e-10)
            assert table["low"].iloc[b] == x[label == b].min()
            assert table["high"].iloc[b] == x[label == b].max()
    assert "60000 rows in 5 parts" in res.parameters["parts"]


def test_same_verdicts_as_all_rows_at_once(planted):
    frame, _, res = planted
    whole = validate(frame["e"], frame["u"], {"x1": frame["x1"], "x2": frame["x2"]}, **FAST)
    assert res.stage_verdicts == whole.stage_verdicts
    assert res.stage_verdicts["adaptivity: x1"] == "fail"
    assert whole.scale_factor.ci_low == pytest.approx(res.scale_factor.ci_low, abs=0.01)
    assert whole.scale_factor.ci_high == pytest.approx(res.scale_factor.ci_high, abs=0.01)
    ranges = res.advice[res.advice["action"] == "recalibrate_per_range"]
    high = ranges[ranges["low"] > 0.5]
    assert len(high) == 1 and high["factor"].iloc[0] == pytest.approx(1.5, abs=0.05)
    # the planted 20 % and at most the bin of 2 % that straddles x1 = 0.8 (half of it off)
    assert high["share"].iloc[0] == pytest.approx(0.2, abs=0.025)
    # sqrt(0.8 + 0.2 * 1.5^2) = 1.118 beyond the band, but the other 80 % are right: no
    # global factor beside the range (the rest's factor, uqval.validation.rest_scale)
    assert "scale" not in set(res.advice["action"])


def test_numbers_do_not_depend_on_the_cutting_or_the_jobs(planted, tmp_path):
    frame, _, res = planted
    other = _write(frame, tmp_path / "other", [20000, 40000])
    again = validate_parts(other, COLUMNS, subsample=10_000, n_jobs=1, **FAST)
    assert again.scale_factor.value == res.scale_factor.value
    assert again.scale_factor.ci_low == pytest.approx(res.scale_factor.ci_low, rel=1e-12)
    for name in res.bins:
        pd.testing.assert_frame_equal(again.bins[name], res.bins[name], rtol=1e-13)
    pd.testing.assert_frame_equal(again.verdicts, res.verdicts, rtol=1e-9)


def test_a_set_within_the_subsample_is_validated_as_one_table(tmp_path):
    frame = _frame(3000, seed=4)
    folder = _write(frame, tmp_path / "small", [1000, 1001, 2500])
    res = validate_parts(folder, COLUMNS, subsample=10_000, **FAST)
    whole = validate(frame["e"], frame["u"], {"x1": frame["x1"], "x2": frame["x2"]},
                     uncertainty_name="u", **FAST)
    pd.testing.assert_frame_equal(res.verdicts, whole.verdicts)
    for name in whole.bins:
        pd.testing.assert_frame_equal(res.bins[name], whole.bins[name])
    assert "parts" not in res.parameters and res.input_sha256


def test_poisson_weights_are_poisson_one_and_split_free():
    m = 200_000
    ones = np.ones((m, 1))
    keys = np.arange(m, dtype=np.uint64)
    boot = poisson_bootstrap_sums(ones, keys, seed=7, n_boot=3)
    # each replicate: sum of m Poisson(1) weights ~ mean m, sd sqrt(m)
    assert np.all(np.abs(boot[:, 0] - m) < 5 * math.sqrt(m))
    # single weights: one unit per call gives its weight; their histogram is Poisson(1)
    w = np.array([poisson_bootstrap_sums(ones[:1], keys[k:k + 1], seed=7, n_boot=1)[0, 0]
                  for k in range(5000)])
    observed = np.bincount(w.astype(int), minlength=5)[:5]
    expected = 5000 * stats.poisson.pmf(np.arange(5), 1.0)
    assert stats.chisquare(observed[:4], expected[:4] * observed[:4].sum()
                           / expected[:4].sum()).pvalue > 1e-3
    parts = poisson_bootstrap_sums(ones[:777], keys[:777], seed=7, n_boot=3) + \
        poisson_bootstrap_sums(ones[777:], keys[777:], seed=7, n_boot=3)
    assert np.array_equal(parts, boot)


def test_exact_sums_are_the_correctly_rounded_sums_in_any_cutting():
    z = np.random.default_rng(3).standard_t(3, 10_001) * 1e3
    whole = ExactSums.zeros(1)
    whole.add(0, z)
    pieces = [ExactSums.zeros(1) for _ in range(3)]
    for piece, chunk in zip(pieces, np.array_split(z, [5, 6000]), strict=True):
        piece.add(0, chunk)
    merged = pieces[2].merge(pieces[0]).merge(pieces[1])
    assert merged.values()[0] == whole.values()[0] == math.fsum(z)


def test_groups_stay_whole_and_the_mean_uses_cluster_errors(tmp_path):
    frame = _frame(30_000, seed=5, groups=600)
    codes = frame["structure"].to_numpy()
    cuts = [int(np.searchsorted(codes, f"s{k:05d}")) for k in (150, 300, 450)]
    folder = _write(frame, tmp_path / "grouped", cuts)
    columns = PartColumns("u", error="e", features=("x1",), group="structure")
    res = validate_parts(folder, columns, subsample=10_000, **FAST)
    z = (frame["e"] / frame["u"]).to_numpy()
    mean, se = cluster_mean_se(z, GroupIndex.from_codes(pd.factorize(codes)[0]))
    avg = res.verdicts[res.verdicts["stage"] == "average"].set_index("statistic")
    half = stats.t.ppf(0.975, 599) * se
    assert avg.loc["<Z>", "ci_high"] == pytest.approx(mean + half, rel=1e-9)
    assert res.groups is not None and res.groups.n_groups < 600  # the subsample's groups
    assert "whole groups" in res.parameters["parts"]
    split = _write(frame, tmp_path / "split", [cuts[0] + 3])  # cuts a group in two
    with pytest.raises(DataError, match="each part must hold whole groups"):
        validate_parts(split, columns, subsample=10_000, **FAST)


def test_bad_parts_are_named(tmp_path):
    frame = _frame(20_000, seed=6)
    frame.loc[15_003, "u"] = -1.0
    folder = _write(frame, tmp_path / "bad", [5000, 10000, 15000])
    with pytest.raises(DataError, match=r"part-003\.parquet: column 'u', data row 4: "
                                        r"non-positive uncertainty"):
        validate_parts(folder, COLUMNS, subsample=10_000, **FAST)
    res = validate_parts(folder, PartColumns("u", error="e", drop_invalid=True),
                         subsample=10_000, **FAST)
    assert res.row_counts["removed: non-positive uncertainty"] == 1
    assert res.row_counts["rows used"] == 19_999
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match="no Parquet files"):
        validate_parts(empty, COLUMNS)
    outside = tmp_path / "outside.parquet"
    frame.iloc[:100].to_parquet(outside)
    linked = tmp_path / "linked"
    linked.mkdir()
    os.symlink(outside, linked / "a.parquet")
    with pytest.raises(DataError, match="leads out of"):
        PartsSource(linked).files()


def test_a_part_changed_between_the_passes_is_refused(tmp_path, monkeypatch):
    frame = _frame(20_000, seed=8)
    folder = _write(frame, tmp_path / "changing", [10_000])
    from uqval.validation import parts

    original = parts.bin_part

    def bin_after_change(path, *args, **kwargs):
        changed = frame.iloc[:10_000].copy()
        changed.loc[0, "e"] += 1.0
        changed.to_parquet(folder / "part-000.parquet")
        return original(path, *args, **kwargs)

    monkeypatch.setattr(parts, "bin_part", bin_after_change)
    with pytest.raises(DataError, match="changed while it was read"):
        validate_parts(folder, COLUMNS, subsample=10_000, **FAST)


def test_command_line_on_a_folder_and_a_glob(planted, tmp_path):
    _, folder, res = planted
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "uqval", "validate", str(folder), "--error", "e",
           "--uncertainty", "u", "--feature", "x1", "--feature", "x2", "--subsample", "10000",
           "--n-boot", "300", "--n-permutations", "199", "--jobs", "2", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    verdicts = pd.read_csv(out / "verdicts.csv")
    assert set(verdicts["verdict"]) >= {"fail", "pass"}
    assert "parts" in (out / "report.html").read_text()
    bad = subprocess.run([*cmd[:4], str(folder / "*.parquet"), "--error", "e",
                          "--uncertainty", "nope", "--out", str(tmp_path / "r2")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "no column 'nope'" in bad.stderr


def test_job_files_give_the_in_process_numbers(planted, tmp_path):
    """The pipeline's route: each pass of each part written to a file by its own job and
    read back, then combined: the same result as the in-process run."""
    from uqval.validation import parts, parts_io

    frame, folder, res = planted
    files = PartsSource(folder).files()
    firsts, stored = parts._first_rows(files)
    fraction = parts._candidate_fraction(10_000, stored)
    summaries = []
    for k, (path, first) in enumerate(zip(files, firsts, strict=True)):
        parts_io.save_summary(parts.summarise_part(path, COLUMNS, first_row=first, seed=0,
                                                   n_boot=300, fraction=fraction),
                              tmp_path / f"a{k}.npz")
        summaries.append(parts_io.load_summary(tmp_path / f"a{k}.npz"))
    plan = parts.plan_parts(summaries, COLUMNS, folder, subsample=10_000, n_bins=None)
    assert plan is not None and plan.bins is not None
    parts_io.save_bin_plan(plan.bins, tmp_path / "plan.npz")
    bin_plan = parts_io.load_bin_plan(tmp_path / "plan.npz")
    second = []
    for k, s in enumerate(summaries):
        parts_io.save_part_bins(parts.bin_part(Path(s.path), COLUMNS, bin_plan, sha256=s.sha256),
                                tmp_path / f"b{k}.npz")
        second.append(parts_io.load_part_bins(tmp_path / f"b{k}.npz"))
    got = parts.finish_parts(plan, second, seed=0, n_boot=300, n_permutations=199, n_bins=None,
                             n_ucc_permutations=199, alpha=0.05, tolerance=0.1, n_workers=1,
                             say=lambda _: None)
    pd.testing.assert_frame_equal(got.verdicts, res.verdicts)
    for name in res.bins:
        pd.testing.assert_frame_equal(got.bins[name], res.bins[name])
    assert got.input_sha256 == res.input_sha256
    (tmp_path / "bad.npz").write_bytes(b"not a file")
    with pytest.raises(DataError, match="not a uqval parts file"):
        parts_io.load_part_bins(tmp_path / "bad.npz")
