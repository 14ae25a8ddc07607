"""Predictive datasets in the pipeline (issue #26): a dataset YAML with y_true and members,
quantiles, [low, high] intervals or a distribution; the prepared table, its sidecar and the
dataset page; the coverage stage on the page of a half-width interval dataset (HU2022's
form). Expected values are computed here from the raw columns, independently of uqval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import DATASET_SCHEMA
from uqval._internal.errors import ConfigError, DataError
from uqval.pipeline.dataset_page import (
    NO_VARIANCE_NOTE,
    dataset_tables,
    interval_page,
    predictive_page,
    predictive_result,
)
from uqval.pipeline.prepare import prepare_dataset
from uqval.pipeline.registry import load_registry

N_TREES = 20
CROSSED = 6  # rows whose q05 is above q95
FAST = {"seed": 3, "n_boot": 200, "n_permutations": 199}


@pytest.fixture(scope="module")
def predictions(tmp_path_factory):
    """Per-tree predictions of a random forest on load_diabetes (test half), quantiles from
    the trees with crossings planted in the first rows, and 90 % intervals; in one CSV."""
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor

    x, y = load_diabetes(return_X_y=True)
    rf = RandomForestRegressor(n_estimators=N_TREES, min_samples_leaf=5, random_state=0)
    rf.fit(x[:200], y[:200])
    trees = np.column_stack([t.predict(x[200:]) for t in rf.estimators_])
    df = pd.DataFrame(trees, columns=[f"tree_{i}" for i in range(N_TREES)])
    df["y"], df["bmi"], df["rf_mean"] = y[200:], x[200:, 2], rf.predict(x[200:])
    q = np.quantile(trees, [0.05, 0.5, 0.95], axis=1).T
    q[:CROSSED, 0] = q[:CROSSED, 2] + 10.0  # crossing quantiles
    df["q05"], df["q50"], df["q95"] = q.T
    df["lo"], df["hi"] = q[:, 1] - 60.0, q[:, 1] + 60.0
    folder = tmp_path_factory.mktemp("user")
    df.to_csv(folder / "preds.csv", index=False)
    return folder, df


def _registry(folder: Path, datasets: list[dict]):
    ddir = folder / "datasets"
    ddir.mkdir(exist_ok=True)
    family = {"family": "MINE", "citation": "me", "files": [{"local": "../preds.csv"}],
              "defaults": {"sources": [{"file": "../preds.csv"}], "features": {"bmi": "bmi"}},
              "datasets": datasets}
    (ddir / "MINE.yaml").write_text(yaml.safe_dump(family, sort_keys=False))
    return load_registry(ddir, DATASET_SCHEMA)


def _prepare(folder: Path, entry: dict):
    reg = _registry(folder, [{"id": "set1", **entry}])
    prepared = prepare_dataset(reg.get("set1"), folder)
    # the page reads the prepared table back from its CSV, as the workflow does
    table = pd.read_csv(pd.io.common.StringIO(prepared.table.to_csv(index=False)))
    return reg.get("set1"), table, json.loads(json.dumps(prepared.report))


def test_ensemble_dataset_keeps_members_and_gets_all_stages(predictions, tmp_path):
    folder, df = predictions
    spec, table, report = _prepare(folder, {"quantities": {"y_true": "y", "members": "tree_*"}})
    assert (spec.predictive_kind, spec.has_uncertainty, spec.has_band) == ("members", True, True)
    trees = df[[f"tree_{i}" for i in range(N_TREES)]].to_numpy()
    assert [f"M_{k}" for k in range(1, N_TREES + 1)] == [c for c in table if c.startswith("M_")]
    np.testing.assert_allclose(table["V"], df["rf_mean"], rtol=1e-12)  # sklearn: mean of trees
    np.testing.assert_allclose(table["E"], df["y"] - df["rf_mean"], rtol=1e-9, atol=1e-9)
    # uE: the ensemble sd (1 + 1/m) s^2 with s^2 the sample variance of the members
    expected_ue = np.sqrt((1 + 1 / N_TREES) * trees.var(axis=1, ddof=1))
    np.testing.assert_allclose(table["uE"], expected_ue, rtol=1e-9)
    assert report["kind"] == "ensemble" and report["predictive"]["kind"] == "members"
    assert report["predictive"]["columns"] == [f"tree_{i}" for i in range(N_TREES)]
    page = predictive_page(table, report, tmp_path / "rf", extra=dataset_tables(report), **FAST)
    assert {"average", "consistency", "coverage", "shape"} <= set(page["stage_verdicts"])
    assert page["kind"] == "ensemble" and page["scale_factor"] > 0
    verdicts = pd.read_csv(tmp_path / "rf" / "verdicts.csv")
    assert {"average", "coverage", "shape"} <= set(verdicts["stage"])
    html = (tmp_path / "rf" / "index.html").read_text()
    for section in ("PIT histogram", "Coverage by level", "Coverage along bmi", "Source files"):
        assert section in html, section
    assert "Not run for this dataset" not in html
    for name in ("coverage.csv", "pit_histogram.png", "coverage_levels.png", "lcp_bmi.png"):
        assert (tmp_path / "rf" / name).is_file(), name


def test_quantile_dataset_with_crossings(predictions, tmp_path):
    folder, df = predictions
    quantiles = {"0.05": "q05", "0.5": "q50", "0.95": "q95"}
    spec, table, report = _prepare(folder, {"quantities": {"y_true": "y", "quantiles": quantiles}})
    assert (spec.predictive_kind, spec.has_uncertainty, spec.has_band) == ("quantiles", False, False)
    assert {"Q_0.05", "Q_0.5", "Q_0.95"} <= set(table) and "uE" not in table
    assert report["predictive"]["levels"] == [0.05, 0.5, 0.95] and report["filters"] == []
    page = predictive_page(table, report, tmp_path / "q", **FAST)
    assert set(page["stage_verdicts"]) == {"coverage", "shape"} and page["scale_factor"] is None
    # the crossing rows are reported with their 1-based rows; each row's quantiles are sorted
    issues = pd.read_csv(tmp_path / "q" / "data_issues.csv")
    assert sorted(issues["row"]) == list(range(1, CROSSED + 1))
    q = np.sort(df[["q05", "q50", "q95"]].to_numpy(), axis=1)
    inside = (q[:, 0] <= df["y"]) & (df["y"] <= q[:, 2])
    coverage = pd.read_csv(tmp_path / "q" / "coverage.csv").set_index("level")
    assert coverage.loc[0.9, "covered"] == inside.sum() and coverage.loc[0.9, "n"] == len(df)
    html = (tmp_path / "q" / "index.html").read_text()
    assert "Not run for this dataset" in html and "crossing" in html
    assert NO_VARIANCE_NOTE.split(":**")[0].strip("*") in html


def test_interval_dataset_gets_the_coverage_stage_only(predictions, tmp_path):
    folder, df = predictions
    spec, table, report = _prepare(
        folder, {"quantities": {"y_true": "y", "intervals": {"0.9": ["lo", "hi"]}}})
    assert spec.predictive_kind == "interval" and not spec.has_band
    assert {"L_0.9", "H_0.9"} <= set(table)
    page = predictive_page(table, report, tmp_path / "iv", **FAST)
    assert set(page["stage_verdicts"]) == {"coverage"}
    inside = ((df["lo"] <= df["y"]) & (df["y"] <= df["hi"])).mean()
    coverage = pd.read_csv(tmp_path / "iv" / "coverage.csv").set_index("level")
    assert coverage.loc[0.9, "value"] == pytest.approx(inside, abs=1e-12)


def test_distribution_dataset_with_nu_per_row(predictions):
    folder, df = predictions
    df_nu = df.assign(nu=4.0)
    df_nu.to_csv(folder / "preds_nu.csv", index=False)
    ddir = folder / "nu"
    ddir.mkdir(exist_ok=True)
    entry = {"id": "ngb", "sources": [{"file": "../preds_nu.csv"}],
             "quantities": {"y_true": "y", "y_pred": "q50", "uE": "(q95 - q05) / 3.29 + 20",
                            "distribution": "t:nu"}}
    (ddir / "N.yaml").write_text(yaml.safe_dump({"family": "N", "citation": "c", "files": [
        {"local": "../preds_nu.csv"}], "datasets": [entry]}))
    prepared = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("ngb"), folder)
    t = prepared.table
    np.testing.assert_allclose(t["E"], df["y"] - df["q50"])
    np.testing.assert_allclose(t["uE"], (df["q95"] - df["q05"]) / 3.29 + 20)
    assert (t["NU"] == 4.0).all() and prepared.report["predictive"]["nu_column"] == "nu"
    assert prepared.report["kind"] == "t"


def test_half_width_intervals_get_the_coverage_stage_beside_the_checks(tmp_path):
    """HU2022's form (E and U_68, U_95): the flowchart's checks stay as they are, and the
    coverage stage of uqval.validate(E, Intervals({P: (-U_P, U_P)})) is added."""
    rng = np.random.default_rng(2)
    n = 400
    u = rng.uniform(0.5, 2.0, n)
    e = 0.8 * u * rng.standard_normal(n)  # intervals too wide: coverage above nominal
    table = pd.DataFrame({"row": np.arange(1, n + 1), "E": e, "U_68": 0.99 * u,
                          "U_95": 1.96 * u, "X_distance": u})
    report = {"id": "hu", "M": n, "n_raw": n, "sources": ["a.csv"], "features": {"distance": ""},
              "kind": "interval", "interval_levels": [68.0, 95.0], "filters": []}
    checks = pd.DataFrame({"stage": ["average"], "conditioning": ["-"], "test": ["PICP_68"],
                           "value": [0.7], "ci_low": [0.6], "ci_high": [0.8], "target": [0.68],
                           "passed": [True], "note": [""]})
    coverage = predictive_result(table, report, seed=1, n_boot=200, n_bins=None,
                                 n_permutations=199)
    page = interval_page(checks, "# V\n\n- **average**: pass\n", report, tmp_path / "hu",
                         coverage=coverage)
    assert page["stage_verdicts"]["average"] == "pass" and "coverage" in page["stage_verdicts"]
    verdicts = pd.read_csv(tmp_path / "hu" / "verdicts.csv")
    assert verdicts.loc[0, "test"] == "PICP_68" and verdicts.loc[0, "verdict"] == "pass"
    added = verdicts[verdicts["stage"] == "coverage"]
    assert {"coverage 0.68", "coverage 0.95"} <= set(added["test"])
    assert {"-", "distance", "interval width"} <= set(added["conditioning"])
    assert "coverage: distance" in page["stage_verdicts"]
    levels = pd.read_csv(tmp_path / "hu" / "coverage.csv").set_index("level")
    for p, col in ((0.68, "U_68"), (0.95, "U_95")):
        assert levels.loc[p, "value"] == pytest.approx(np.mean(np.abs(e) <= table[col]), abs=1e-12)
    html = (tmp_path / "hu" / "index.html").read_text()
    assert "Coverage by level" in html and "Coverage along distance" in html
    assert (tmp_path / "hu" / "coverage" / "report.html").is_file()


@pytest.mark.parametrize(("quantities", "message"), [
    ({"y_true": "y", "quantiles": {"95": "q95", "0.05": "q05"}},
     r"quantities/quantiles.*'95' does not match.*probability between 0 and 1"),
    ({"y_true": "y", "intervals": {"1.5": ["lo", "hi"]}}, r"level '1.5' must be a number between"),
    ({"y_true": "y", "members": "tree_*", "quantiles": {"0.05": "q05", "0.95": "q95"}},
     r"give members and quantiles; with y_true give exactly one of y_pred"),
    ({"y_true": "y", "y_pred": "q50"}, r"y_pred needs uE"),
    ({"members": "tree_*", "E": "y - q50", "uE": "1"}, r"members need\(s\) y_true"),
    ({"y_true": "y", "y_pred": "q50", "uE": "1", "distribution": "gamma"},
     r"quantities/distribution.*normal, laplace, t:NU"),
    ({"y_true": "y", "quantiles": {"0.5": "q50"}}, r"at least two levels"),
])
def test_bad_predictive_quantities_give_one_clear_message(predictions, quantities, message):
    folder, _ = predictions
    with pytest.raises(ConfigError, match=message) as info:
        _registry(folder, [{"id": "bad", "quantities": quantities}])
    assert str(info.value).count("\n  at '") <= 1  # one problem, one line


@pytest.mark.parametrize(("quantities", "message"), [
    ({"y_true": "y", "quantiles": {"0.05": "q05", "0.95": "q_95"}}, r"quantiles.0.95 = 'q_95'.*'q_95'"),
    ({"y_true": "y", "members": "pred_*"}, r"members 'pred_\*': needs at least 2 columns, found 0"),
    ({"y_true": "y", "members": ["tree_0", "tree_x"]}, r"members: column\(s\) 'tree_x'"),
])
def test_missing_columns_are_named(predictions, quantities, message):
    folder, _ = predictions
    reg = _registry(folder, [{"id": "bad", "quantities": quantities}])
    with pytest.raises(DataError, match=message):
        prepare_dataset(reg.get("bad"), folder)


def test_samples_from_a_yaml_list_and_empty_member_cells(predictions, tmp_path):
    """Draws given as a YAML list; an empty cell is NaN (the predictive ignores it in its
    row) and the row keeps the sd of its other draws."""
    folder, df = predictions
    holes = df.copy()
    holes.loc[3, "tree_1"] = np.nan
    holes.to_csv(folder / "holes.csv", index=False)
    ddir = folder / "holes"
    ddir.mkdir(exist_ok=True)
    names = [f"tree_{i}" for i in range(5)]
    (ddir / "H.yaml").write_text(yaml.safe_dump({"family": "H", "citation": "c", "files": [
        {"local": "../holes.csv"}], "datasets": [{"id": "mc", "sources": [{"file": "../holes.csv"}],
                                                  "quantities": {"y_true": "y", "samples": names}}]}))
    prepared = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("mc"), folder)
    t, report = prepared.table, prepared.report
    assert [c for c in t if c.startswith("S_")] == [f"S_{k}" for k in range(1, 6)]
    assert report["kind"] == "samples" and report["predictive"]["columns"] == names
    row = holes.loc[3, names].dropna().to_numpy()
    assert t.loc[3, "V"] == pytest.approx(row.mean())
    assert t.loc[3, "uE"] == pytest.approx(np.sqrt((1 + 1 / row.size) * row.var(ddof=1)))
    page = predictive_page(pd.read_csv(pd.io.common.StringIO(t.to_csv(index=False))),
                           json.loads(json.dumps(report)), tmp_path / "mc", **FAST)
    assert "shape" in page["stage_verdicts"]
    issues = pd.read_csv(tmp_path / "mc" / "data_issues.csv")
    assert issues["row"].tolist() == [4]


def test_ensemble_dataset_with_a_group_column(predictions, tmp_path):
    """`group:` with predictive quantities: the page validates by group (Korn-Graubard
    coverage over the groups, the groups in the parameters)."""
    folder, df = predictions
    grouped = df.assign(patient_block=[f"b{i // 6}" for i in range(len(df))])
    grouped.to_csv(folder / "preds.csv", index=False)
    try:
        spec, table, report = _prepare(folder, {"quantities": {"y_true": "y",
                                                               "members": "tree_*"},
                                                "group": "patient_block"})
    finally:
        df.to_csv(folder / "preds.csv", index=False)
    assert report["group"] == "patient_block" and "G" in table
    page = predictive_page(table, report, tmp_path / "rfg", **FAST)
    assert "coverage" in page["stage_verdicts"]
    verdicts = pd.read_csv(tmp_path / "rfg" / "verdicts.csv")
    n_groups = -(-len(df) // 6)
    notes = verdicts.loc[verdicts["statistic"].astype(str).str.startswith("coverage 0."), "note"]
    assert notes.str.contains(f"Korn-Graubard test and interval over {n_groups} groups").all()
