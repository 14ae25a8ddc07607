import pandas as pd
import pytest
import yaml

from conftest import ROOT
from uqval.errors import ConfigError
from uqval.pipeline.scoreboard import compare, load_expected, load_values, summary

SCHEMA = ROOT / "config" / "schema" / "expected.schema.yaml"


def write_expected(tmp_path, values, paper="heavytails"):
    path = tmp_path / f"{paper}.yaml"
    path.write_text(yaml.safe_dump({"paper": paper, "values": values}))
    return path


def test_statuses(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab1", "quantity": "M1", "key": "M/a", "value": 10, "tolerance": 0},
        {"item": "heavytails_tab1", "quantity": "M2", "key": "M/b", "value": 10, "tolerance": 0},
        {"item": "heavytails_tab4", "quantity": "ZMS", "key": "zms/a", "value": 0.96, "tolerance": 0.005},
        {"item": "heavytails_tab4", "quantity": "RCE", "key": "rce/a", "value": 0.1, "rel_tolerance": 0.1},
        {"item": "heavytails_tab5", "quantity": "Jacobs M", "value": 30150,
         "not_reproducible": "needs the Jacobs et al. download"},
    ])
    vals = tmp_path / "v.csv"
    pd.DataFrame({"key": ["M/a", "M/b", "zms/a", "rce/a"], "value": [10, 11, 0.9649, 0.111]}).to_csv(vals, index=False)
    board = compare(load_expected([exp], SCHEMA), load_values([vals]))
    assert board["status"].tolist() == ["pass", "fail", "pass", "fail", "not_reproducible"]
    assert summary(board).splitlines()[0] == (
        "reproduction: 2/4 passed, 2 failed, 0 missing, 1 not reproducible"
    )
    assert summary(board).splitlines()[2:] == [
        "    1 not reproducible: needs the Jacobs et al. download"
    ]
    board2 = compare(load_expected([exp], SCHEMA), {})
    assert (board2["status"] == "missing").sum() == 4


def test_expected_file_must_name_a_key_or_a_reason(tmp_path):
    exp = write_expected(tmp_path, [{"item": "heavytails_tab1", "quantity": "M", "value": 1}])
    with pytest.raises(ConfigError, match=r"heavytails.yaml: at 'values/0'"):
        load_expected([exp], SCHEMA)


def test_shipped_expected_files_are_valid():
    table = load_expected(sorted((ROOT / "config" / "expected").glob("*.yaml")), SCHEMA)
    assert len(table) > 0 and table["item"].str.match(r"^[a-z]+_").all()


def test_values_needing_a_download_are_compared_once_computed(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab5", "quantity": "M", "key": "M/JAC2024_x", "value": 5,
         "tolerance": 0, "not_reproducible": "needs the download"},
    ])
    table = load_expected([exp], SCHEMA)
    assert compare(table, {})["status"].tolist() == ["not_reproducible"]
    assert compare(table, {"M/JAC2024_x": 5.0})["status"].tolist() == ["pass"]


def test_accept_range(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab1", "quantity": "x", "key": "k", "value": 0.98, "accept_range": [0.87, 1.12]},
    ])
    table = load_expected([exp], SCHEMA)
    assert compare(table, {"k": 1.1})["status"].tolist() == ["pass"]
    assert compare(table, {"k": 1.13})["status"].tolist() == ["fail"]
