"""The ``uqval validate`` command line: outputs, exit codes, one-line errors."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import uqval
from uqval.cli import main

FAST = ["--n-boot", "200", "--n-permutations", "199"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    m = 1500
    u = rng.lognormal(0, 0.5, m)
    t = rng.uniform(250, 400, m)
    e = u * rng.normal(size=m)
    e = np.where(t > 362, 2.5 * e, e)
    path = tmp_path_factory.mktemp("data") / "preds.csv"
    pd.DataFrame({"y": 3.0 + e, "yhat": 3.0, "sigma": u, "T": t,
                  "P": rng.normal(size=m)}).to_csv(path, index=False)
    return path


def test_validate_writes_the_files_and_prints_the_summary(table, tmp_path, capsys):
    from uqval.report.markdown import md_plain

    out = tmp_path / "out"
    code = main(["validate", str(table), "--y-true", "y", "--y-pred", "yhat", "--uncertainty",
                 "sigma", "--feature", "T", "--feature", "P", "--out", str(out), *FAST])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# Are the uncertainties right?")
    assert "Across `T`: not right" in printed  # plain text on the terminal
    files = {p.name for p in out.iterdir()}
    assert {"report.html", "verdicts.csv", "summary.md", "bins_sigma.csv", "bins_T.csv",
            "bins_P.csv"} <= files
    assert any(f.endswith(".png") for f in files)
    assert md_plain((out / "summary.md").read_text()) in printed
    page = (out / "report.html").read_text()
    assert hashlib.sha256(table.read_bytes()).hexdigest() in page
    assert "How the verdicts are decided" in page


def test_fail_on_miscalibration_exits_one(table, tmp_path):
    args = ["validate", str(table), "--error", "y", "--uncertainty", "sigma", "--feature", "T",
            "--out", str(tmp_path), *FAST]
    assert main(args) == 0
    assert main([*args, "--fail-on-miscalibration"]) == 1


def test_tsv_and_variances(table, tmp_path):
    df = pd.read_csv(table)
    df["var"] = df["sigma"] ** 2
    tsv = tmp_path / "preds.tsv"
    df.to_csv(tsv, sep="\t", index=False)
    assert main(["validate", str(tsv), "--error", "y", "--uncertainty", "var", "--variance",
                 "--out", str(tmp_path / "o"), *FAST]) == 0
    assert (tmp_path / "o" / "bins_var.csv").exists()


@pytest.mark.parametrize(
    ("change", "args", "message"),
    [
        (None, ["--error", "nope", "--uncertainty", "sigma"],
         "no column 'nope' (available: y, yhat, sigma, T, P)"),
        ("nan", ["--error", "y", "--uncertainty", "sigma"],
         "column 'sigma' has 2 NaN or infinite value(s) (rows 4, 11)"),
        ("text", ["--error", "y", "--uncertainty", "sigma", "--feature", "T"],
         "column 'T' has non-numeric values (row 8: 'abc')"),
        ("negative", ["--error", "y", "--uncertainty", "sigma"],
         "column 'sigma' has 1 non-positive value(s) (row 5)"),
        ("short", ["--error", "y", "--uncertainty", "sigma"], "at least 60 are needed"),
        (None, ["--error", "y", "--uncertainty", "sigma", "--y-pred", "yhat"],
         "--y-pred needs --y-true"),
    ],
)
def test_bad_input_gives_one_line_and_exit_two(table, tmp_path, capsys, change, args, message):
    df = pd.read_csv(table)
    if change == "nan":
        df.loc[[3, 10], "sigma"] = np.nan
    elif change == "text":
        df = df.astype({"T": object})
        df.loc[7, "T"] = "abc"
    elif change == "negative":
        df.loc[4, "sigma"] = -1.0
    elif change == "short":
        df = df.head(40)
    path = tmp_path / "in.csv"
    df.to_csv(path, index=False)
    code = main(["validate", str(path), *args, "--out", str(tmp_path / "o"), *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert message in err
    if change is not None:
        assert str(path) in err


def test_missing_file_and_drop_invalid(table, tmp_path, capsys):
    assert main(["validate", str(tmp_path / "absent.csv"), "--error", "y",
                 "--uncertainty", "sigma"]) == 2
    assert "absent.csv: file not found" in capsys.readouterr().err
    df = pd.read_csv(table)
    df.loc[[3, 10], "sigma"] = np.nan
    path = tmp_path / "nan.csv"
    df.to_csv(path, index=False)
    assert main(["validate", str(path), "--error", "y", "--uncertainty", "sigma",
                 "--drop-invalid", "--out", str(tmp_path / "o"), *FAST]) == 0
    assert "(2 of 1500 rows removed: NaN or infinite uncertainties 2)" in capsys.readouterr().out


def test_parquet_without_pyarrow_or_with_it(table, tmp_path, capsys):
    path = tmp_path / "preds.parquet"
    path.write_bytes(b"PAR1")
    code = main(["validate", str(path), "--error", "y", "--uncertainty", "sigma"])
    assert code == 2
    err = capsys.readouterr().err
    assert "preds.parquet" in err and err.count("\n") == 1


def test_help_documents_exit_codes_and_python_dash_m_works():
    out = subprocess.run([sys.executable, "-m", "uqval", "validate", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "Exit codes:" in out and "--fail-on-miscalibration" in out and "Examples:" in out
    usage = subprocess.run([sys.executable, "-m", "uqval"], capture_output=True, text=True)
    assert usage.returncode == 2


def test_command_line_and_library_give_identical_numbers(table, tmp_path):
    """One engine: the verdicts, bins and UCC gain written by the command line are those of
    uqval.validate on the same columns with the same seed and settings."""
    import uqval

    out = tmp_path / "cli"
    assert main(["validate", str(table), "--y-true", "y", "--y-pred", "yhat", "--uncertainty",
                 "sigma", "--feature", "T", "--out", str(out), "--seed", "7", *FAST]) == 0
    df = pd.read_csv(table)
    res = uqval.validate(df["y"] - df["yhat"], df["sigma"], {"T": df["T"]}, seed=7,
                         n_boot=200, n_permutations=199)
    written = pd.read_csv(out / "verdicts.csv", keep_default_na=False, na_values=[""])
    expected = res.verdicts.assign(feature=res.verdicts["feature"].fillna(""))
    for col in ("value", "ci_low", "ci_high", "p_value", "p_adjusted"):
        np.testing.assert_allclose(written[col].to_numpy(float), expected[col].to_numpy(float),
                                   rtol=1e-12, equal_nan=True)
    assert written["verdict"].tolist() == expected["verdict"].tolist()
    bins = pd.read_csv(out / "bins_T.csv")
    np.testing.assert_allclose(bins["value"], res.bins["T"]["value"], rtol=1e-12)
    gain = pd.read_csv(out / "ucc_gain.csv").iloc[0]
    assert gain["gain_percent"] == pytest.approx(res.ucc.gain_percent, rel=1e-12)
    assert gain["p_value"] == pytest.approx(res.ucc.p_value, rel=1e-12)


def test_version_flag(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"uqval {uqval.__version__}"


def test_rows_ending_with_a_separator_do_not_shift_the_columns(tmp_path):
    """Writers that print "value," in a loop end every data row (not the header) with a comma;
    the columns must stay where the header says (round 3 of the hostile-input probes)."""
    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 2.0, 400)
    e = u * rng.standard_normal(400)
    lines = ["error,sigma"] + [f"{a:.6f},{b:.6f}," for a, b in zip(e, u, strict=True)]
    path = tmp_path / "trailing.csv"
    path.write_text("\n".join(lines) + "\n")
    from uqval.validation.io import read_table

    table = read_table(path)
    assert list(table.columns) == ["error", "sigma"]
    assert np.allclose(table["sigma"], u, atol=1e-6)
    assert main(["validate", str(path), "--error", "error", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), *FAST]) == 0
