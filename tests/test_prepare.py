import numpy as np
import pytest

from conftest import DATASET_SCHEMA
from uqval._internal.errors import DataError
from uqval.pipeline.prepare import prepare_dataset
from uqval.pipeline.registry import load_registry

BASIC = [{"id": "d1", "sources": [{"file": "T/a.csv"}], "quantities": {"E": "E", "uE": "uE"}}]


def prepare(make_family, files, datasets=BASIC, dataset="d1", **extra):
    raw, ddir = make_family(files, datasets, **extra)
    return prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get(dataset), raw)


def test_basic_table_and_report(make_family):
    out = prepare(make_family, {"T/a.csv": "E,uE,X\n0.1,0.2,5\n-0.3,0.4,6\n"})
    assert list(out.table.columns) == ["row", "E", "uE"]
    np.testing.assert_allclose(out.table["E"], [0.1, -0.3])
    assert out.report["M"] == 2 and out.report["n_raw"] == 2 and out.report["kind"] == "variance"


def test_expressions_and_formula_features(make_family):
    datasets = [{
        "id": "q",
        "sources": [{"file": "T/q.csv"}],
        "quantities": {"E": "ref - pred", "uE": "sqrt(var)", "V": "pred"},
        "features": {
            "mass": {"formula_column": "formula", "property": "molecular_mass", "unit": "Da"},
            "het": {"formula_column": "formula", "property": "heteroatom_fraction"},
            "double_pred": "2 * pred",
        },
    }]
    text = "formula,ref,pred,var\nC5H10N2O,1.0,0.5,0.04\nCH4,2.0,2.5,0.09\n"
    t = prepare(make_family, {"T/q.csv": text}, datasets, "q").table
    np.testing.assert_allclose(t["E"], [0.5, -0.5])
    np.testing.assert_allclose(t["uE"], [0.2, 0.3])
    # C5H10N2O: 5*12.011 + 10*1.008 + 2*14.007 + 15.999 = 114.148 Da; 3 heteroatoms of 18 atoms
    np.testing.assert_allclose(t["X_mass"], [114.148, 12.011 + 4 * 1.008])
    np.testing.assert_allclose(t["X_het"], [3 / 18, 0.0])
    np.testing.assert_allclose(t["X_double_pred"], [1.0, 5.0])


def test_headerless_sources_key_values_and_intervals(make_family):
    datasets = [{
        "id": "hu",
        "sources": [
            {"file": "H/res.csv", "header": False, "names": ["residual"]},
            {"file": "H/dist.csv", "header": False, "names": ["distance"]},
            {"file": "H/qhat.txt", "format": "key_value",
             "pattern": r"For (\d+)% expected confidence level, qhat = ([-+0-9.eE]+)",
             "key_template": "qhat_{key}"},
        ],
        "quantities": {"E": "residual", "intervals": {"68": "qhat_68 * distance", "95": "qhat_95 * distance"}},
    }]
    files = {
        "H/res.csv": "0.1\n-0.2\n",
        "H/dist.csv": "1.0\n2.0\n",
        "H/qhat.txt": "For 68% expected confidence level, qhat = 0.5\nFor 95% expected confidence level, qhat = 1.5",
    }
    out = prepare(make_family, files, datasets, "hu")
    np.testing.assert_allclose(out.table["U_68"], [0.5, 1.0])
    np.testing.assert_allclose(out.table["U_95"], [1.5, 3.0])
    assert out.report["kind"] == "interval" and out.report["interval_levels"] == [68.0, 95.0]


def test_nonpositive_uncertainties_are_filtered_and_counted(make_family):
    text = "E,uE\n0.1,0.2\n0.2,0\n0.3,-1\n0.4,0.5\n"
    out = prepare(make_family, {"T/a.csv": text})
    assert out.table["row"].tolist() == [1, 4]
    f = out.report["filters"][0]
    assert (f["name"], f["removed"], f["remaining"]) == ("nonpositive_uncertainty", 2, 2)


def test_relative_filter_uses_sd_of_all_errors(make_family):
    datasets = [{**BASIC[0], "filters": {"min_uE_rel_sd": 0.1}}]
    text = "E,uE\n1,1\n-1,0.05\n3,1\n-3,1\n"
    out = prepare(make_family, {"T/a.csv": text}, datasets)
    sd = np.std([1, -1, 3, -3], ddof=1)  # 2.582 -> threshold 0.258 removes the 0.05
    assert 0.05 <= 0.1 * sd < 1
    assert out.table["row"].tolist() == [1, 3, 4]
    assert [f["removed"] for f in out.report["filters"]] == [0, 1]


def test_missing_column_is_named_with_available_columns(make_family):
    with pytest.raises(DataError, match=r"uE = 'uE': column\(s\) 'uE'\s+columns available: a\.csv: E, uEE"):
        prepare(make_family, {"T/a.csv": "E,uEE\n0.1,0.2\n"})


def test_nan_values_are_reported_with_rows(make_family):
    with pytest.raises(DataError, match=r"a.csv: column 'uE' has missing \(NaN/empty\) values in data row\(s\) 2, 4"):
        prepare(make_family, {"T/a.csv": "E,uE\n0.1,0.2\n0.2,\n0.3,0.1\n0.4,NaN\n"})


def test_non_numeric_values_are_reported_with_rows(make_family):
    with pytest.raises(DataError, match=r"column 'E' has non-numeric values in data row\(s\) 3 \(e.g. 'abc'\)"):
        prepare(make_family, {"T/a.csv": "E,uE\n0.1,0.2\n0.2,0.3\nabc,0.1\n"})


def test_empty_and_header_only_files(make_family):
    with pytest.raises(DataError, match=r"a.csv: the file is empty"):
        prepare(make_family, {"T/a.csv": ""})


def test_header_only_file(make_family):
    with pytest.raises(DataError, match=r"a.csv: the file has a header but no data rows"):
        prepare(make_family, {"T/a.csv": "E,uE\n"})


def test_invalid_derived_values(make_family):
    datasets = [{**BASIC[0], "quantities": {"E": "E", "uE": "sqrt(v)"}}]
    with pytest.raises(DataError, match=r"uE = 'sqrt\(v\)' is not finite .* data row\(s\) 2"):
        prepare(make_family, {"T/a.csv": "E,v\n0.1,0.04\n0.2,-0.01\n"}, datasets)


def test_sources_with_different_lengths(make_family):
    datasets = [{"id": "d1", "sources": [{"file": "T/a.csv"}, {"file": "T/b.csv"}],
                 "quantities": {"E": "E", "uE": "uE"}}]
    with pytest.raises(DataError, match="different row counts"):
        prepare(make_family, {"T/a.csv": "E\n1\n2\n", "T/b.csv": "uE\n1\n"}, datasets)


def test_nothing_left_after_filters(make_family):
    with pytest.raises(DataError, match="no rows left after filtering"):
        prepare(make_family, {"T/a.csv": "E,uE\n0.1,0\n"})


def test_bad_formula(make_family):
    datasets = [{**BASIC[0], "features": {"m": {"formula_column": "f", "property": "molecular_mass"}}}]
    with pytest.raises(DataError, match=r"column 'f': no atomic weight for element\(s\) Xe"):
        prepare(make_family, {"T/a.csv": "E,uE,f\n0.1,0.2,XeF2\n"}, datasets)
