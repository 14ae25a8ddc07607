import pandas as pd
import pytest
import yaml

from conftest import ROOT
from uqval._internal.errors import ConfigError
from uqval.pipeline.scoreboard import (
    compare,
    gate,
    load_expected,
    load_values,
    main,
    printed_half_unit,
    summary,
)

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
         "needs_download": "the Jacobs et al. download"},
        {"item": "heavytails_tab6", "quantity": "BNN", "value": 1.5,
         "not_reproducible": "model outputs not published"},
    ])
    vals = tmp_path / "v.csv"
    pd.DataFrame({"key": ["M/a", "M/b", "zms/a", "rce/a"], "value": [10, 11, 0.9649, 0.111]}).to_csv(vals, index=False)
    board = compare(load_expected([exp], SCHEMA), load_values([vals]))
    assert board["status"].tolist() == [
        "pass", "fail", "pass", "fail", "needs_download", "not_reproducible"
    ]
    assert summary(board).splitlines()[0] == (
        "reproduction: 2/4 passed, 2 fail, 0 missing, 0 not at this fidelity, "
        "0 paper inconsistency, 1 needs download, 1 not reproducible"
    )
    assert summary(board).splitlines()[2:] == [
        "    1 needs download: the Jacobs et al. download",
        "    1 not reproducible: model outputs not published",
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
         "tolerance": 0, "needs_download": "the download"},
    ])
    table = load_expected([exp], SCHEMA)
    assert compare(table, {})["status"].tolist() == ["needs_download"]
    assert compare(table, {"M/JAC2024_x": 5.0})["status"].tolist() == ["pass"]


def test_accept_range(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab1", "quantity": "x", "key": "k", "value": 0.98, "accept_range": [0.87, 1.12]},
    ])
    table = load_expected([exp], SCHEMA)
    assert compare(table, {"k": 1.1})["status"].tolist() == ["pass"]
    assert compare(table, {"k": 1.13})["status"].tolist() == ["fail"]


def test_class_d_values_must_round_to_the_printed_digits(tmp_path):
    path = tmp_path / "simref.yaml"
    path.write_text(
        "paper: simref\nvalues:\n"
        "  - {item: simref_tab2, quantity: s, key: s, value: 0.980, tolerance_class: D}\n"
        "  - {item: simref_tab2, quantity: t, key: t, value: 0.96, tolerance_class: D}\n"
    )
    table = load_expected([path], SCHEMA)
    # 0.980 as written keeps its trailing zero: half a unit of the third decimal
    assert table["tolerance"].tolist() == pytest.approx([0.0005, 0.005])
    board = compare(table, {"s": 0.9804, "t": 0.9651})
    assert board["status"].tolist() == ["pass", "fail"]
    assert compare(table, {"s": 0.9806, "t": 0.9649})["status"].tolist() == ["fail", "pass"]


def test_a_wider_class_d_tolerance_needs_a_reason(tmp_path):
    entry = {"item": "adaptivity_fig04", "quantity": "f_v", "key": "k", "value": 0.97,
             "tolerance": 0.02, "tolerance_class": "D"}
    with pytest.raises(ConfigError, match=r"adaptivity.yaml: values/0 \(f_v\).*0.97.*±0.005"):
        load_expected([write_expected(tmp_path, [entry], paper="adaptivity")], SCHEMA)
    entry["tolerance_reason"] = "f_v counts bins: one bin of 100 is 0.01"
    table = load_expected([write_expected(tmp_path, [entry], paper="adaptivity")], SCHEMA)
    assert compare(table, {"k": 0.99})["status"].tolist() == ["pass"]


@pytest.mark.parametrize("text, half", [("0.96", 0.005), ("0.980", 0.0005), ("30150", 0.5),
                                        ("8.2e+2", 5.0), ("-0.0075", 0.00005)])
def test_printed_half_unit(text, half):
    assert printed_half_unit(text) == pytest.approx(half)


def test_a_verdict_that_flips_sign_fails_whatever_the_tolerance(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab4", "quantity": "zeta_RCE", "key": "z", "value": 0.003,
         "tolerance": 0.005, "thresholds": [-1, 0, 1], "tolerance_class": "B"},
        {"item": "heavytails_tab4", "quantity": "ZMS", "key": "m", "value": 1.02,
         "tolerance": 0.05, "thresholds": [1], "tolerance_class": "B"},
        {"item": "heavytails_tab4", "quantity": "zeta", "key": "w", "value": 1.0,
         "tolerance": 0.01, "thresholds": [-1, 0, 1], "tolerance_class": "B"},
    ])
    table = load_expected([exp], SCHEMA)
    board = compare(table, {"z": -0.001, "m": 0.99, "w": 0.995})
    assert board["status"].tolist() == ["fail", "fail", "pass"]  # on the threshold: no side
    assert "other side of 0" in board["note"].iloc[0]
    assert "other side of 1" in board["note"].iloc[1]
    assert compare(table, {"z": 0.0049, "m": 1.08, "w": 1.005})["status"].tolist() == [
        "pass", "fail", "pass"
    ]


def test_reduced_fidelity_and_paper_inconsistency(tmp_path):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_fig05", "quantity": "p", "key": "p", "value": 0.65,
         "tolerance": 0.05, "tolerance_class": "MC"},
        {"item": "heavytails_tab1", "quantity": "M", "key": "M", "value": 10,
         "tolerance_class": "D"},
        {"item": "heavytails_fig05", "quantity": "q", "key": "q", "value": 0.65,
         "tolerance": 0.05, "tolerance_class": "MC",
         "paper_inconsistency": "the stated scenario gives 0.21 at nu_D = 2.1 (see docs)"},
    ])
    table = load_expected([exp], SCHEMA)
    values = {"p": 0.1, "M": 10, "q": 0.21}
    quick = compare(table, values, fidelity="quick")
    assert quick["status"].tolist() == ["not_at_this_fidelity", "pass", "paper_inconsistency"]
    assert quick["obtained"].tolist() == [0.1, 10, 0.21]
    paper = compare(table, values, fidelity="paper")
    assert paper["status"].tolist() == ["fail", "pass", "paper_inconsistency"]
    assert gate(quick).empty
    assert gate(paper)["key"].tolist() == ["p"]


def test_gate_fails_on_missing_values_and_from_the_command_line(tmp_path, capsys):
    exp = write_expected(tmp_path, [
        {"item": "heavytails_tab1", "quantity": "M1", "key": "M/a", "value": 10,
         "tolerance_class": "D"},
        {"item": "heavytails_tab1", "quantity": "M2", "key": "M/b", "value": 10,
         "tolerance_class": "D"},
    ])
    table = load_expected([exp], SCHEMA)
    board = compare(table, {"M/a": 10.0})
    assert gate(board)["status"].tolist() == ["missing"]
    path = tmp_path / "board.csv"
    board.to_csv(path, index=False)
    assert main(["gate", str(path)]) == 1
    assert "M2" in capsys.readouterr().out
    compare(table, {"M/a": 10.0, "M/b": 10.0}).to_csv(path, index=False)
    assert main(["gate", str(path)]) == 0
    assert main(["gate", str(tmp_path / "absent.csv")]) == 2
