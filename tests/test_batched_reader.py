"""The batched column reader (``uqval._internal.batched``) against the in-memory reader it
replaced on the command line (``uqval._internal.tables.read_table``): the same values (same
dtype, bit for bit), the same one-line messages with the same rows, lines and columns, and the
same ``uqval validate`` / ``uqval compare`` outputs, with batches small enough that every file
spans several of them."""

from __future__ import annotations

import bz2
import gzip
import shutil
import zipfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from uqval._internal import batched
from uqval._internal.batched import ColumnTable, open_table, read_columns
from uqval._internal.errors import DataError
from uqval._internal.tables import read_table
from uqval.cli import main

FAST = ["--n-boot", "100", "--n-permutations", "99"]


def former_read_columns(path, columns, *, batch_rows=None):
    """The former command-line path: the whole table in memory, then the columns."""
    table = read_table(path)
    return ColumnTable(path, tuple(table.columns), len(table),
                       {c: table[c] for c in dict.fromkeys(columns) if c in table.columns})


def assert_same_columns(path, columns, batch_rows):
    new = read_columns(path, columns, batch_rows=batch_rows)
    old = read_table(path)
    assert new.columns == tuple(old.columns)
    assert len(new) == len(old)
    for c in columns:
        if not pd.api.types.is_numeric_dtype(old[c].dtype):
            # text in the column (object, or pandas 3's str): clean batches stay numbers
            numbers = [pd.to_numeric(s, errors="coerce") for s in (new[c], old[c])]
            bad = [s.isna() & n.notna() | n.isna() & s.notna() for s, n in
                   zip((new[c], old[c]), numbers, strict=True)]
            pd.testing.assert_series_equal(numbers[0], numbers[1].reset_index(drop=True),
                                           check_exact=True)
            assert new[c][bad[0]].tolist() == old[c][bad[1]].tolist()
            continue
        pd.testing.assert_series_equal(new[c], old[c].reset_index(drop=True), check_exact=True)
        if new[c].dtype.kind == "f":  # bit for bit, NaN and signed zeros included
            assert new[c].to_numpy().tobytes() == old[c].to_numpy().tobytes()


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(29)
    m = 1000
    u = rng.lognormal(-1, 0.5, m)
    x = rng.uniform(0, 1, m)
    return pd.DataFrame({"y": rng.normal(size=m), "yhat": rng.normal(size=m) / 3,
                         "err": u * rng.normal(size=m) * (1 + x), "sigma": u, "x": x,
                         "k": rng.integers(0, 5, m), "name": [f"s{i}" for i in range(m)]})


def text_table(frame, path, sep=","):
    text = frame.to_csv(sep=sep, index=False, float_format="%.17g")
    data = text.encode()
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    elif path.suffix == ".bz2":
        path.write_bytes(bz2.compress(data))
    elif path.suffix == ".zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("t.csv", data)
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.csv.gz", "t.tsv.bz2", "t.csv.zip",
                                  "t.txt"])
@pytest.mark.parametrize("batch_rows", [1, 7, 256, 10**6])
def test_text_tables_give_the_values_of_the_in_memory_reader(frame, tmp_path, name,
                                                            batch_rows):
    path = text_table(frame, tmp_path / name, sep="\t" if ".tsv" in name else ",")
    assert_same_columns(path, ["err", "sigma", "x", "k", "y"], batch_rows)


def test_parquet_gives_the_values_of_the_in_memory_reader(frame, tmp_path):
    df = frame.assign(f32=frame["x"].astype(np.float32), i32=frame["k"].astype(np.int32),
                      flag=frame["k"] > 2, nullable=pd.array(
                          np.where(frame["k"] == 0, None, frame["k"]), dtype="Int64"))
    df.index = df.index + 100  # a stored index: not a column, as with pandas.read_parquet
    path = tmp_path / "t.parquet"
    df.to_parquet(path, row_group_size=300)
    assert open_table(path).columns == tuple(pd.read_parquet(path).columns)
    for rows in (1, 64, 10**6):
        assert_same_columns(path, ["err", "sigma", "f32", "i32", "flag", "nullable", "name"],
                            rows)
    assert read_columns(path, ["f32"], batch_rows=64)["f32"].dtype == np.float32


def test_awkward_cells_keep_the_dtype_of_the_whole_column(tmp_path):
    """Empty cells, NA spellings, inf, integers then floats, booleans, text in a late batch,
    spaces around numbers, CR line ends (more rows than counted newlines: the arrays grow)."""
    n = 60
    cols = {
        "nan": [("" if i % 7 == 3 else "NA" if i % 11 == 5 else f"{i / 3!r}") for i in range(n)],
        "inf": [("inf" if i == 40 else "-Infinity" if i == 41 else str(i)) for i in range(n)],
        "int_then_float": [str(i) if i < 50 else f"{i}.5" for i in range(n)],
        "bools": ["True" if i % 2 else "False" for i in range(n)],
        "late_text": [f"{i}.25" if i != 57 else "n/d" for i in range(n)],
        "spaces": [f" {i}.5 " for i in range(n)],
        "big": ["1e400" if i == 30 else "-0.0" for i in range(n)],
    }
    lines = [",".join(cols)] + [",".join(cols[c][i] for c in cols) for i in range(n)]
    for end, name in (("\n", "a.csv"), ("\r\n", "b.csv"), ("\r", "c.csv")):
        path = tmp_path / name
        path.write_bytes(end.join(lines).encode() + end.encode())
        for rows in (4, 16, 1000):
            assert_same_columns(path, list(cols), rows)


def test_a_late_row_with_empty_extra_fields_is_read_as_before(frame, tmp_path):
    text = frame[["err", "sigma"]].to_csv(index=False).splitlines()
    text[700] += ",,"
    path = tmp_path / "t.csv"
    path.write_text("\n".join(text) + "\n")
    assert_same_columns(path, ["err", "sigma"], 64)


def message(call):
    with pytest.raises(DataError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # a row with a non-empty extra field in the 11th batch of 64 rows
        (lambda t: t.__setitem__(700, t[700] + ",7"),
         "line 701 (data row 700): 3 fields where the header has 2; field 3 holds '7'"),
        # an open quote late in the file
        (lambda t: t.__setitem__(900, '"' + t[900]), "cannot be parsed as CSV"),
        # a NUL byte late in the file (first pass)
        (lambda t: t.__setitem__(950, t[950] + "\0"), "binary data (a NUL byte) at byte"),
        # no data rows
        (lambda t: t.__delitem__(slice(1, None)), "the file has a header but no data rows"),
    ],
)
def test_late_problems_give_the_message_of_the_in_memory_reader(frame, tmp_path, edit,
                                                                expected):
    text = frame[["err", "sigma"]].to_csv(index=False).splitlines()
    edit(text)
    path = tmp_path / "t.csv"
    path.write_text("\n".join(text) + "\n")
    old = message(lambda: read_table(path))
    new = message(lambda: read_columns(path, ["err", "sigma"], batch_rows=64))
    assert new == old
    assert expected in new and str(path) in new and "\n" not in new


def test_duplicate_parquet_names_are_refused_as_before(tmp_path):
    path = tmp_path / "dup.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array([1.0, 2.0]), pa.array([3.0, 4.0])],
                                        names=["a", "a"]), path)
    old = message(lambda: read_table(path))
    assert message(lambda: read_columns(path, ["a"], batch_rows=1)) == old
    assert "cannot read the Parquet file" in old


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def outputs(folder):
    """Every written file but the figures and the page (they embed the figures); the folder
    is then removed, so that the next run writes the same paths."""
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir())
             if p.suffix in {".csv", ".md"}}
    shutil.rmtree(folder)
    return files


@pytest.fixture()
def former(monkeypatch):
    """Run the command line through the former in-memory reader."""

    def use_former():
        monkeypatch.setattr(batched, "read_columns", former_read_columns)
        monkeypatch.setattr(batched.TableFile, "read", lambda self, columns, batch_rows=None:
                            former_read_columns(self.path, columns))

    return use_former


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_validate_outputs_are_byte_identical_to_the_in_memory_path(frame, tmp_path, capsys,
                                                                   monkeypatch, former, suffix):
    path = tmp_path / f"t{suffix}"
    if suffix == ".csv":
        text_table(frame, path)
    else:
        frame.to_parquet(path, row_group_size=256)
    argv = ["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature", "x",
            "--bins", "5", *FAST]
    new_files = same_run_with_both_readers(argv, tmp_path / "out", capsys, monkeypatch, former)
    assert {"verdicts.csv", "summary.md", "bins_sigma.csv", "bins_x.csv"} <= set(new_files)


def same_run_with_both_readers(argv, out, capsys, monkeypatch, former):
    """Run the command with batches of 97 rows, then with the former reader; assert the same
    exit code, text and written files; return the files of the first run."""
    monkeypatch.setattr(batched, "BATCH_ROWS", 97)
    new = run([*argv, "--out", str(out)], capsys)
    new_files = outputs(out)
    former()
    old = run([*argv, "--out", str(out)], capsys)
    assert new == old and new[0] == 0
    assert new_files == outputs(out)
    return new_files


@pytest.mark.parametrize(
    ("options", "column", "row"),
    [
        (["--error", "err", "--uncertainty", "sigma", "--feature", "x"], "err", 900),
        (["--error", "err", "--uncertainty", "sigma", "--feature", "x"], "x", 901),
        (["--y-true", "y", "--y-pred", "yhat", "--uncertainty", "sigma"], "yhat", 902),
        (["--y-true", "y", "--members", "m*"], "m2", 903),
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_bad_cell_in_a_late_batch_gives_the_former_one_line_error(
        frame, tmp_path, capsys, monkeypatch, former, options, column, row, suffix):
    df = frame.assign(m1=frame["yhat"] + 0.1, m2=frame["yhat"] - 0.1,
                      m3=frame["yhat"]).astype({column: object})
    df.loc[row - 1, column] = "n/a?"
    df.loc[row + 50, column] = "1,5"
    path = tmp_path / f"bad{suffix}"
    if suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        df.astype({column: str}).to_parquet(path, row_group_size=128)
    argv = ["validate", str(path), *options, "--out", str(tmp_path / "o"), *FAST]
    monkeypatch.setattr(batched, "BATCH_ROWS", 64)
    new = run(argv, capsys)
    former()
    old = run(argv, capsys)
    assert new == old
    code, _, err = new
    assert code == 2 and err.count("\n") == 1
    assert (f"column '{column}' has non-numeric values (row {row}: 'n/a?', row {row + 51}: "
            "'1,5')") in err


def test_compare_outputs_are_byte_identical_to_the_in_memory_path(frame, tmp_path, capsys,
                                                                  monkeypatch, former):
    df = frame.assign(err_b=frame["err"] * 1.3)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    argv = ["compare", str(path), "--model", "A:err:sigma", "--model", "B:err_b:sigma",
            "--n-boot", "40"]
    new_files = same_run_with_both_readers(argv, tmp_path / "out", capsys, monkeypatch, former)
    assert "comparison.csv" in new_files


def test_option_errors_still_come_after_the_file_problems(frame, tmp_path, capsys):
    """A file with a bad line and a --members pattern matching one column: the file's problem
    is reported first, as when the file was read whole before the options were matched."""
    text = frame[["y", "yhat"]].to_csv(index=False).splitlines()
    text[500] += ",1,2"
    path = tmp_path / "t.csv"
    path.write_text("\n".join(text) + "\n")
    code, _, err = run(["validate", str(path), "--y-true", "y", "--members", "yh*", "--out",
                        str(tmp_path / "o")], capsys)
    assert code == 2 and "line 501 (data row 500)" in err
