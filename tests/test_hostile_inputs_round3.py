"""Hostile and careless inputs, round 3 (issue #28): one table reader for the command line and
the pipeline (trailing separators, extra fields, compression bombs, binary data, separators of
compressed files, duplicate header names), one output writer (an output folder holding the
input, colliding file names, read-only folders, all-or-nothing saves), untrusted text kept as
text in CSV files, Markdown and on the terminal, option bounds, degenerate inputs (one
uncertainty value, all-zero errors, extreme scales, near-constant features, too few rows)
and library inputs (Series labels, masked arrays, seeds, row numbers). The pipeline's probes
are in test_hostile_inputs_pipeline.py."""

from __future__ import annotations

import bz2
import csv
import ctypes
import gzip
import lzma
import os
import re
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import DATASET_SCHEMA
from uqval._internal.errors import DataError
from uqval._internal.tables import (
    MIN_DECOMPRESSED_LIMIT,
    decompressed_limit,
    printable,
    read_csv_table,
    read_table,
)
from uqval.cli import EXIT_CANNOT_WRITE, main
from uqval.pipeline.prepare import prepare_dataset
from uqval.pipeline.registry import load_registry
from uqval.report import files
from uqval.report.content import FigureSection
from uqval.report.files import (
    STAGING_PREFIX,
    OutputError,
    check_output_folder,
    csv_safe,
    unique_names,
    write_outputs,
)

FAST = ["--n-boot", "100", "--n-permutations", "199"]


def columns(m: int = 400, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.4, m)
    return {"err": u * rng.standard_normal(m), "sigma": u, "T": rng.uniform(250, 400, m)}


def csv_text(data: dict[str, np.ndarray], sep: str = ",", end: str = "") -> str:
    names = list(data)
    lines = [sep.join(names)]
    lines += [sep.join(f"{data[n][i]:.6f}" for n in names) + end for i in range(len(data[names[0]]))]
    return "\n".join(lines) + "\n"


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uqval: error: ") and "Traceback" not in err
    return err


# --- trailing separators and extra fields -----------------------------------------------------


def test_trailing_empty_field_on_every_row_is_dropped(tmp_path):
    data = columns()
    path = tmp_path / "trailing.csv"
    path.write_text(csv_text(data, end=","))
    table = read_table(path)
    assert list(table.columns) == ["err", "sigma", "T"]
    np.testing.assert_allclose(table["sigma"], data["sigma"], atol=1e-6)


def test_trailing_empty_fields_on_some_rows_only_are_dropped(tmp_path):
    path = tmp_path / "some.csv"
    path.write_text("a,b\n1,2\n3,4,\n5,6,,\n7,8\n")
    table = read_table(path)
    assert list(table.columns) == ["a", "b"] and table.to_numpy().tolist() == [[1, 2], [3, 4],
                                                                                  [5, 6], [7, 8]]


@pytest.mark.parametrize(
    ("text", "line", "row", "value"),
    [("a,b\n1,2\n3,4\n5,6,7\n", 4, 3, "7"),     # a later row
     ("a,b\n1,2,x\n3,4\n", 2, 1, "x"),          # the first data row (pandas would cut it)
     ("a,b\n1,2,\n3,4,oops\n", 3, 2, "oops"),   # after rows with an empty trailing field
     ('a,b\n"1\n1",2\n3,4,5\n', 4, 2, "5")],    # line numbers count the lines of quoted values
)
def test_extra_non_empty_field_is_refused_with_its_line(tmp_path, text, line, row, value):
    path = tmp_path / "extra.csv"
    path.write_text(text)
    with pytest.raises(DataError) as info:
        read_table(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: line {line} (data row {row}): 3 fields where the header "
                          f"has 2; field 3 holds '{value}'")
    assert "\n" not in msg


def test_extra_fields_are_refused_by_the_command_line_and_the_pipeline(tmp_path, capsys,
                                                                       make_family):
    data = columns()
    text = csv_text(data).splitlines()
    text[7] += ",9.5"
    path = tmp_path / "shifted.csv"
    path.write_text("\n".join(text) + "\n")
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == 2
    assert "shifted.csv: line 8 (data row 7): 4 fields where the header has 3" in \
        one_line_error(capsys)
    raw, ddir = make_family({"T/a.csv": "E,uE\n0.1,0.2\n0.3,0.4,0.5\n"},
                            [{"id": "d1", "sources": [{"file": "T/a.csv"}],
                              "quantities": {"E": "E", "uE": "uE"}}])
    with pytest.raises(DataError, match=r"a\.csv: line 3 \(data row 2\): 3 fields where the "
                                        r"header has 2; field 3 holds '0\.5'"):
        prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("d1"), raw)
    raw, ddir = make_family({"T/b.csv": "E,uE\n0.1,0.2,\n0.3,0.4,\n-0.1,0.5,\n0.2,0.3,\n"},
                            [{"id": "d2", "sources": [{"file": "T/b.csv"}],
                              "quantities": {"E": "E", "uE": "uE"}}])
    prepared = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("d2"), raw)
    assert prepared.table["uE"].tolist() == [0.2, 0.4, 0.5, 0.3]


def test_pipeline_options_follow_the_same_rules(tmp_path):
    path = tmp_path / "headerless.csv"
    path.write_text("1, 2,\n3, 4,\n")
    table = read_csv_table(path, header=False, names=["x", "y"], skipinitialspace=True)
    assert list(table.columns) == ["x", "y"] and table.to_numpy().tolist() == [[1, 2], [3, 4]]
    path.write_text("1,2\n3,4,5\n")
    with pytest.raises(DataError, match=r"line 2 \(data row 2\): 3 fields where the names "
                                        r"given list 2"):
        read_csv_table(path, header=False, names=["x", "y"])


# --- compression -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "sep", "pack"),
    [("preds.tsv.gz", "\t", gzip.compress), ("preds.csv.gz", ",", gzip.compress),
     ("preds.tsv.xz", "\t", lzma.compress), ("preds.csv.bz2", ",", bz2.compress),
     ("preds.tab.gz", "\t", gzip.compress)],
)
def test_separator_comes_from_the_suffix_before_the_compression(tmp_path, name, sep, pack):
    data = columns(200)
    path = tmp_path / name
    path.write_bytes(pack(csv_text(data, sep=sep).encode()))
    table = read_table(path)
    assert list(table.columns) == ["err", "sigma", "T"]
    np.testing.assert_allclose(table["T"], data["T"], atol=1e-6)


def test_zip_with_one_table_is_read_and_with_two_refused(tmp_path):
    data = columns(100)
    path = tmp_path / "preds.tsv.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inner.tsv", csv_text(data, sep="\t"))
    assert list(read_table(path).columns) == ["err", "sigma", "T"]
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("other.tsv", "x\n1\n")
    with pytest.raises(DataError, match=r"a \.zip file must hold exactly one table, it holds 2"):
        read_table(path)


def test_txt_separator_is_sniffed_on_a_bounded_prefix(tmp_path):
    data = columns(5000)  # about 150 KB: more than the 64 KiB the sniffer looks at
    path = tmp_path / "preds.txt"
    path.write_text(csv_text(data, sep=";"))
    table = read_table(path)
    assert list(table.columns) == ["err", "sigma", "T"] and len(table) == 5000


def _gzip_bomb(path: Path, decompressed_mib: int) -> None:
    """Header, then ``decompressed_mib`` MiB of "0,0" rows, deflated block by block."""
    block = b"0,0\n" * (1 << 18)  # 1 MiB
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        out.write(packer.compress(b"a,b\n"))
        for _ in range(decompressed_mib):
            out.write(packer.compress(block))
        out.write(packer.flush())


BOMB_PROBE = """
import resource, sys, time
from pathlib import Path
from uqval._internal.errors import DataError
from uqval._internal.tables import read_table
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.monotonic()
try:
    read_table(Path(sys.argv[1]))
    print("read")
except DataError as exc:
    print(exc)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
seconds = round(time.monotonic() - start, 2)
from uqval.cli import main
code = main(["validate", sys.argv[1], "--error", "a", "--uncertainty", "b", "--out", sys.argv[2]])
cli = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before // 1024, after // 1024, seconds, code, cli // 1024)
"""


def test_gzip_bomb_fails_fast_with_bounded_memory(tmp_path, capsys):
    bomb = tmp_path / "bomb.csv.gz"
    _gzip_bomb(bomb, 512)  # 512 MiB of text in about 0.5 MB
    size = bomb.stat().st_size
    assert size < 600_000 and decompressed_limit(size) < 64 * 2**20
    # Linux keeps ru_maxrss across execve, so a child started by this (large) pytest process
    # would report pytest's peak: a shell forks first, and the probe starts with a fresh count.
    run = subprocess.run(["/bin/sh", "-c", '"$@"; :', "sh", sys.executable, "-c", BOMB_PROBE,
                          str(bomb), str(tmp_path / "o")],
                         capture_output=True, text=True, timeout=120)
    message, numbers = run.stdout.strip().splitlines()
    before_mib, peak_mib, seconds, code, cli_peak_mib = numbers.split()
    assert message.startswith(f"{bomb}: decompresses to more than ")
    assert "compression bomb" in message
    assert int(peak_mib) - int(before_mib) < 64, f"the read took {peak_mib} - {before_mib} MiB"
    assert float(seconds) < 10
    # the whole command line, interpreter and libraries included (measured: about 135 MiB)
    assert code == "2" and "decompresses to more than" in run.stderr
    assert int(cli_peak_mib) < 300, f"peak RSS {cli_peak_mib} MiB"
    assert main(["compare", str(bomb), "--model", "a:a:b", "--model", "b:a:b"]) == 2
    assert "decompresses to more than" in one_line_error(capsys)


@pytest.mark.parametrize("kind", ["bz2", "xz", "zip"])
def test_small_bombs_of_every_compression_are_refused(tmp_path, kind):
    block = b"0,0\n" * (1 << 18)  # 1 MiB, compressed once and repeated (multi-stream files)
    repeats = MIN_DECOMPRESSED_LIMIT // len(block) + 4
    if kind == "bz2":
        path = tmp_path / "bomb.csv.bz2"
        path.write_bytes(bz2.compress(b"a,b\n") + bz2.compress(block) * repeats)
    elif kind == "xz":
        path = tmp_path / "bomb.csv.xz"
        path.write_bytes(lzma.compress(b"a,b\n") + lzma.compress(block) * repeats)
    else:
        path = tmp_path / "bomb.csv.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("bomb.csv", b"a,b\n" + block * repeats)
    assert path.stat().st_size < 200_000
    with pytest.raises(DataError, match=r"decompresses to more than 16 MiB, the limit for a "):
        read_table(path)


# --- binary data, encodings, long lines --------------------------------------------------------


def test_nul_bytes_are_refused_as_binary_data(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(b"a,b\n1,2\n3,\x004\n")
    with pytest.raises(DataError, match=r"nul\.csv: binary data \(a NUL byte\) at byte 11, "
                                        r"line 3; a table must be text$"):
        read_table(path)
    compressed = tmp_path / "packed.csv"
    compressed.write_bytes(gzip.compress(b"a,b\n1,2\n"))
    with pytest.raises(DataError, match=r"looks gzip-compressed: name it \.csv\.gz"):
        read_table(compressed)


def test_other_text_problems_name_the_line(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\n1,2\n3,caf\xe9\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"latin\.csv: line 3: not UTF-8 text \(byte 14: "):
        read_table(path)
    path = tmp_path / "long.csv"
    path.write_bytes(b"a,b\n1,2\n3," + b"4" * (2 << 20) + b"\n")
    with pytest.raises(DataError, match=r"long\.csv: line 3 is longer than 1 MiB"):
        read_table(path)


# --- header names ------------------------------------------------------------------------------


def test_duplicate_header_names_name_both_positions(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("x,err,sigma,err\n1,2,3,4\n")
    with pytest.raises(DataError, match=r"dup\.csv: duplicate column name\(s\) in the header "
                                        r"line: err \(columns 2 and 4\); rename them$"):
        read_table(path)


def test_header_names_with_control_characters_are_refused(tmp_path, capsys):
    path = tmp_path / "ctrl.csv"
    path.write_bytes(b"err,sigma,\x1b[2Jname\n1,2,3\n")
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o")])
    err = one_line_error(capsys)
    assert code == 2 and "\x1b" not in err
    assert "ctrl.csv: line 1, column 3: the column name '[2Jname' contains control characters" \
        in err


def test_messages_quote_short_sanitised_excerpts():
    assert printable("a\x1b[31m\u202eb\r\nc") == "a[31mbc"
    assert len(printable("v" * 1000)) == 40


# --- CSV cells stay text -----------------------------------------------------------------------


def test_csv_safe_neutralises_formulas_and_leaves_numbers():
    table = pd.DataFrame({"text": ["=1+1", "+cmd", "-A1", "@SUM(A1)", "\tx", "\rx", "-1.5",
                                   "+2", "plain", "-"],
                          "value": [-1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, -10.0]},
                         index=pd.Index(["=a"] * 10, name="@model"))
    safe = csv_safe(table)
    assert safe["text"].tolist() == ["'=1+1", "'+cmd", "'-A1", "'@SUM(A1)", "'\tx", "'\rx",
                                     "-1.5", "+2", "plain", "'-"]
    assert safe["value"].tolist() == table["value"].tolist()
    assert safe.index.name == "'@model" and set(safe.index) == {"'=a"}
    assert table["text"].iloc[0] == "=1+1"  # the input is not modified


def _cells(path: Path) -> list[str]:
    with path.open(newline="") as handle:
        return [cell for record in csv.reader(handle) for cell in record]


def test_written_csv_files_hold_no_formula(tmp_path):
    data = columns(600, seed=3)
    frame = pd.DataFrame({"err": data["err"], "sigma": data["sigma"], "=HYPERLINK(x)": data["T"],
                          "@cmd": np.random.default_rng(1).normal(size=600)})
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", "=HYPERLINK(x)", "--feature", "@cmd", "--out", str(out),
                 *FAST]) == 0
    written = sorted(out.glob("*.csv"))
    assert {p.name for p in written} >= {"verdicts.csv", "bins_HYPERLINK_x.csv",
                                         "bins_cmd.csv"}
    for csv_file in written:
        assert not any(c.startswith(("=", "@", "+")) for c in _cells(csv_file)), csv_file
    assert "'=HYPERLINK(x)" in _cells(out / "verdicts.csv")
    frame["pred"] = 0.0
    frame.to_csv(path, index=False)
    cmp_out = tmp_path / "cmp"
    assert main(["compare", str(path), "--model", "=evil:err:sigma", "--model",
                 "+plain:err:sigma", "--out", str(cmp_out), "--n-boot", "40"]) == 0
    for name in ("comparison.csv", "verdicts.csv", "pairwise.csv", "ranking.csv"):
        cells = _cells(cmp_out / name)
        assert not any(c.startswith(("=", "+")) for c in cells), name
        assert "'=evil" in cells


# --- output folder -----------------------------------------------------------------------------


def test_output_folder_holding_the_input_is_refused_and_the_input_unchanged(tmp_path, capsys,
                                                                           monkeypatch):
    folder = tmp_path / "d"
    folder.mkdir()
    path = folder / "verdicts.csv"
    path.write_text(csv_text(columns()))
    before = path.read_bytes()
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(folder), *FAST])
    assert code == EXIT_CANNOT_WRITE == 3
    assert "the output folder contains the input file" in one_line_error(capsys)
    assert path.read_bytes() == before and [p.name for p in folder.iterdir()] == ["verdicts.csv"]
    nested = folder / "sub" / "x.csv"
    nested.parent.mkdir()
    nested.write_bytes(before)
    with pytest.raises(OutputError, match="contains the input file"):
        check_output_folder(folder, [nested])
    monkeypatch.chdir(folder)  # the same folder spelt differently
    with pytest.raises(OutputError, match="contains the input file"):
        check_output_folder(".", [Path("sub/../verdicts.csv")])


def test_out_naming_an_existing_file_or_a_too_long_name_exit_three(tmp_path, capsys):
    data = tmp_path / "in.csv"
    data.write_text(csv_text(columns()))
    existing = tmp_path / "taken.txt"
    existing.write_text("mine")
    for out, message in ((existing, "the output folder is an existing file"),
                         (existing / "sub", "taken.txt is a file, not a folder"),
                         (tmp_path / ("x" * 300), "is longer than the 255 bytes")):
        code = main(["validate", str(data), "--error", "err", "--uncertainty", "sigma",
                     "--out", str(out), *FAST])
        assert code == 3 and message in one_line_error(capsys)
    assert existing.read_text() == "mine"


def _drop_write_override() -> None:
    """In the child: drop root's capabilities to ignore file permissions (bounding set)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP


def test_read_only_output_folder_exits_three_with_one_line(tmp_path):
    data = tmp_path / "in.csv"
    data.write_text(csv_text(columns()))
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    preexec = _drop_write_override if os.geteuid() == 0 else None
    try:
        probe = subprocess.run([sys.executable, "-c",
                                f"open({str(read_only / 'probe')!r}, 'w')"],
                               capture_output=True, preexec_fn=preexec, timeout=60)
        if probe.returncode == 0:
            pytest.skip("this process can write into read-only folders")
        for out in (read_only, read_only / "report"):
            run = subprocess.run(
                [sys.executable, "-m", "uqval", "validate", str(data), "--error", "err",
                 "--uncertainty", "sigma", "--out", str(out), *FAST],
                capture_output=True, text=True, preexec_fn=preexec, timeout=300)
            assert run.returncode == 3, run.stderr
            assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
            assert "cannot write the report there: Permission denied" in run.stderr
            assert run.stdout == ""  # refused before the computation
        assert list(read_only.iterdir()) == []
    finally:
        read_only.chmod(0o755)


def _page(text: str):
    def write(path: Path) -> Path:
        path.write_text(text)
        return path
    return write


def test_an_interrupted_save_leaves_the_previous_report_whole(tmp_path):
    out = tmp_path / "out"
    figure = FigureSection("f", "how", b"\x89PNG old")
    write_outputs(out, [("verdicts.csv", "old\n"), ("bins_x.csv", "old\n")],
                  [("lzms_x", figure)], _page("old page"))
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def interrupted(path: Path) -> Path:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_outputs(out, [("verdicts.csv", "new\n"), ("bins_y.csv", "new\n")],
                      [("lzms_y", FigureSection("f", "how", b"\x89PNG new"))], interrupted)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a staging folder of a killed save (pid that no longer exists) goes at the next save
    stale = out / f"{STAGING_PREFIX}{files._HOST}-999999999-abc"
    stale.mkdir()
    (stale / "verdicts.csv").write_text("partial")
    written = write_outputs(out, [("verdicts.csv", "new\n")], [], _page("new page"))
    assert sorted(p.name for p in out.iterdir()) == [".uqval-manifest", "report.html",
                                                     "verdicts.csv"]
    assert [p.name for p in written] == ["verdicts.csv", "report.html"]
    assert (out / "verdicts.csv").read_text() == "new\n"


def test_a_folder_in_the_way_stops_the_save_before_any_file_moves(tmp_path):
    out = tmp_path / "out"
    write_outputs(out, [("verdicts.csv", "old\n")], [], _page("old page"))
    (out / "bins_x.csv").mkdir()
    with pytest.raises(OutputError, match=r"cannot write bins_x\.csv: a folder of that name"):
        write_outputs(out, [("verdicts.csv", "new\n"), ("bins_x.csv", "new\n")], [],
                      _page("new page"))
    assert (out / "verdicts.csv").read_text() == "old\n"
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]


# --- colliding file names ----------------------------------------------------------------------


def test_unique_names_are_distinct_without_case():
    stems = unique_names(["a b", "a_b", "a_b-2", "T", "t", "x" * 300])
    assert len({s.casefold() for s in stems.values()}) == 6
    assert stems["a_b"] == "a_b" and stems["a_b-2"] == "a_b-2" and stems["a b"] == "a_b-3"
    assert stems["T"] == "T" and stems["t"] == "t-2" and len(stems["x" * 300]) == 100


def test_colliding_feature_names_get_distinct_files(tmp_path):
    data = columns(600, seed=5)
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"err": data["err"], "sigma": data["sigma"], "a b": data["T"],
                          "a_b": rng.normal(size=600)})
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", "a b", "--feature", "a_b", "--out", str(out), *FAST]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"bins_a_b.csv", "bins_a_b-2.csv", "lzms_a_b.png", "lzms_a_b-2.png",
            "z_vs_a_b.png", "z_vs_a_b-2.png"} <= names
    spread = pd.read_csv(out / "bins_a_b-2.csv")  # the bins of "a b": its range is 250..400
    assert spread["low"].min() >= 249 and spread["high"].max() <= 401
    assert "a b → a_b-2" in (out / "report.html").read_text()


# --- options and terminal output ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [(["--n-boot", "50"], "--n-boot 50: at least 100 bootstrap replicates are needed"),
     (["--n-permutations", "20", "--feature", "T"],
      "--n-permutations 20: at least 99 are needed with 1 binning variable(s)"),
     (["--n-permutations", "99", "--feature", "T", "--feature", "err", "--feature", "sigma"],
      "--n-permutations 99: at least 239 are needed with 3 binning variable(s)"),
     (["--seed", "-1"], "--seed -1: the seed must be a non-negative integer"),
     (["--bins", "1000000"], "--bins 1000000: the 400 rows give at most 13 bins of 30 rows"),
     (["--bins", "1"], "--bins 1: at least 2 bins are needed"),
     (["--tolerance", "-0.1"], "--tolerance -0.1: the tolerance must lie between 0 and 1")],
)
def test_option_bounds_name_the_option_and_the_minimum(tmp_path, capsys, options, message):
    path = tmp_path / "in.csv"
    path.write_text(csv_text(columns()))
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), "--n-boot", "100", *options])
    err = one_line_error(capsys)
    assert code == 2 and message in err
    if "--seed" in options:
        assert str(path) not in err
    assert not (tmp_path / "o").exists()


def test_compare_bounds_and_control_characters_on_the_terminal(tmp_path, capsys):
    data = columns(300, seed=9)
    path = tmp_path / "in.csv"
    pd.DataFrame(data).to_csv(path, index=False)
    assert main(["compare", str(path), "--model", "a:err:sigma", "--model", "b:err:sigma",
                 "--n-boot", "10"]) == 2
    assert "--n-boot 10: at least 40 paired bootstrap resamples" in one_line_error(capsys)
    assert main(["compare", str(path), "--model", "\x1b[2Jevil:err:sigma", "--model",
                 "b:err:sigma", "--n-boot", "40", "--out", str(tmp_path / "o")]) == 0
    printed = capsys.readouterr()
    assert "\x1b" not in printed.out and "\x1b" not in printed.err
    assert "[2Jevil" in printed.out


# --- degenerate inputs get a verdict or a clear message (issue #28) ---------------------------

from uqval import Ensemble, compare, validate  # noqa: E402
from uqval.report.markdown import render_markdown  # noqa: E402
from uqval.validation.degenerate import untestable_reason  # noqa: E402

QUICK = dict(n_boot=100, n_permutations=99, n_ucc_permutations=99)


def arrays(m: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = columns(m, seed)
    return data["err"], data["sigma"], data["T"]


def test_constant_uncertainties_test_the_average_and_say_consistency_is_not_testable():
    e, _, t = arrays()
    u = np.full(e.size, 0.7)
    res = validate(e, u, {"T": t}, **QUICK)
    assert res.stage_verdicts["consistency"] == "not testable"
    assert res.stage_verdicts["adaptivity: T"] in ("pass", "fail", "inconclusive")
    # the average stage is computed on the data: sqrt(<(E/uE)^2>) by hand
    assert res.scale_factor.value == pytest.approx(np.sqrt(np.mean((e / 0.7) ** 2)), rel=1e-12)
    assert res.stage_verdicts["average"] == "fail"  # errors ~ lognormal(0, 0.4) sd, not 0.7
    assert res.parameters["not_testable"] == {"uncertainty": "one uncertainty value (0.7) in "
                                                             "every row"}
    assert "uncertainty" not in res.bins and "T" in res.bins
    row = res.verdicts[res.verdicts["stage"] == "consistency"]
    assert row["verdict"].tolist() == ["not testable"]
    assert "not testable: one uncertainty value" in row["note"].iloc[0]
    assert ("Across the uncertainty itself: **not testable** — one uncertainty value (0.7) in "
            "every row") in res.summary()


def test_constant_uncertainties_through_the_command_line_and_compare(tmp_path, capsys):
    e, u, t = arrays()
    path = tmp_path / "const.csv"
    pd.DataFrame({"err": e, "sigma": np.full(e.size, 0.7), "good": u, "T": t}).to_csv(
        path, index=False)
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", "T", "--out", str(tmp_path / "o"), *FAST])
    assert code == 0, capsys.readouterr().err
    assert "not testable" in (tmp_path / "o" / "summary.md").read_text()
    verdicts = pd.read_csv(tmp_path / "o" / "verdicts.csv")
    assert "not testable" in set(verdicts["verdict"])
    assert not (tmp_path / "o" / "bins_sigma.csv").exists()
    res = compare({"constant": (e, np.full(e.size, 0.7)), "varying": (e, u)}, {"T": t},
                  n_boot=40, n_sim=40, n_permutations=40)
    assert res.validations["constant"].stage_verdicts["consistency"] == "not testable"
    # the rank correlation of a constant uncertainty is undefined: no winner on it
    row = res.differences.loc[("constant", "varying", "rank_correlation")]
    assert row["better"] == "" and np.isnan(row["p_value"])
    code = main(["compare", str(path), "--model", "A:err:sigma", "--model", "B:err:good",
                 "--n-boot", "40", "--out", str(tmp_path / "c")])
    assert code == 0, capsys.readouterr().err


def test_all_zero_errors_are_refused_with_the_reason(tmp_path, capsys):
    _, u, t = arrays()
    with pytest.raises(ValueError, match="errors: every value is 0 \\(400 rows\\)"):
        validate(np.zeros(400), u, **QUICK)
    with pytest.raises(ValueError, match="negligible against its uncertainty"):
        validate(np.full(400, 1e-200), u, **QUICK)  # every Z^2 underflows to 0
    with pytest.raises(ValueError, match="models\\['a'\\]: errors: every value is 0"):
        compare({"a": (np.zeros(400), u), "b": (np.ones(400), u)}, n_boot=40)
    path = tmp_path / "zero.csv"
    pd.DataFrame({"y": np.ones(400), "p": np.ones(400), "sigma": u}).to_csv(path, index=False)
    code = main(["validate", str(path), "--y-true", "y", "--y-pred", "p", "--uncertainty",
                 "sigma", "--out", str(tmp_path / "o"), *FAST])
    err = one_line_error(capsys)
    assert code == 2 and "errors ('y' - 'p'): every value is 0" in err


def test_tiny_and_huge_scales_give_the_verdicts_of_the_unscaled_data(tmp_path, capsys):
    e, u, t = arrays()
    reference = validate(e, u, {"T": t}, **QUICK)
    for unit in (1e-300, 1e300):
        res = validate(e * unit, u * unit, {"T": t}, **QUICK)
        assert res.stage_verdicts == reference.stage_verdicts
        assert res.scale_factor.value == pytest.approx(reference.scale_factor.value, rel=1e-9)
        assert res.ucc.gain_percent == pytest.approx(reference.ucc.gain_percent, rel=1e-6)
        assert res.screening.zms_reliable == reference.screening.zms_reliable
        np.testing.assert_allclose(res.bins["uncertainty"]["low"],
                                   reference.bins["uncertainty"]["low"] * unit, rtol=1e-12)
    path = tmp_path / "huge.csv"
    pd.DataFrame({"err": e * 1e300, "sigma": u * 1e300, "T": t}).to_csv(path, index=False)
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", "T", "--out", str(tmp_path / "o"), *FAST])
    assert code == 0, capsys.readouterr().err
    assert "e+300" in (tmp_path / "o" / "bins_sigma.csv").read_text()
    with pytest.raises(ValueError, match="under- or overflows"):
        compare({"a": (e * 1e-300, u * 1e-300), "b": (e * 1e-300, 2 * u * 1e-300)}, n_boot=40)


def test_a_row_whose_z_square_overflows_is_named_or_dropped(tmp_path, capsys):
    e, u, _ = arrays()
    e = e.copy()
    e[6] = 1e300
    with pytest.raises(ValueError, match=r"1 row\(s\) \(row 7\) have \|E/uE\| = .*e\+299"):
        validate(e, u, **QUICK)
    res = validate(e, u, drop_invalid=True, **QUICK)
    assert res.row_counts["removed: (E/uE)^2 overflows"] == 1
    assert res.row_counts["rows used"] == 399
    path = tmp_path / "one.csv"
    pd.DataFrame({"err": e, "sigma": u}).to_csv(path, index=False)
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), *FAST])
    err = one_line_error(capsys)
    assert code == 2 and "(row 7)" in err and "rows are data rows counted from 1" in err


def _brute_force_testable(x: np.ndarray, least: int) -> bool:
    xs = sorted(x)
    return any(xs[c - 1] != xs[c] and c >= least and len(xs) - c >= least
               for c in range(1, len(xs)))


def test_untestable_reason_agrees_with_a_brute_force_search():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(1, 120))
        x = rng.choice(rng.normal(size=int(rng.integers(1, 5))), size=m,
                       p=None).astype(float)
        assert (untestable_reason(x, 30) is None) == _brute_force_testable(x, 30)


def test_near_constant_features_are_not_testable_and_tied_groups_stay_together(tmp_path,
                                                                             capsys):
    e, u, _ = arrays()
    almost = np.r_[np.zeros(399), 1.0]
    res = validate(e, u, {"almost": almost}, **QUICK)
    assert res.stage_verdicts["adaptivity: almost"] == "not testable"
    assert "399 of 400 rows share the value 0" in res.parameters["not_testable"]["almost"]
    two = np.r_[np.zeros(370), np.ones(30)]  # two groups, the smaller has 30 rows: testable
    res = validate(e, u, {"two": two}, **QUICK)
    assert res.bins["two"]["n"].tolist() == [370, 30]
    path = tmp_path / "near.csv"
    pd.DataFrame({"err": e, "sigma": u, "almost": almost}).to_csv(path, index=False)
    for command in (["validate", str(path), "--error", "err", "--uncertainty", "sigma", *FAST],
                    ["compare", str(path), "--model", "A:err:sigma", "--model", "B:err:sigma",
                     "--n-boot", "40"]):
        code = main([*command, "--feature", "almost", "--out", str(tmp_path / command[0])])
        assert code == 0, capsys.readouterr().err
    assert "not testable" in (tmp_path / "validate" / "summary.md").read_text()


def test_too_few_rows_say_how_many_are_needed(tmp_path, capsys):
    e, u, _ = arrays(59)
    with pytest.raises(ValueError, match="59 usable rows; at least 60 are needed"):
        validate(e, u, **QUICK)
    path = tmp_path / "few.csv"
    pd.DataFrame({"err": e[:20], "sigma": u[:20]}).to_csv(path, index=False)
    code = main(["compare", str(path), "--model", "A:err:sigma", "--model", "B:err:sigma",
                 "--out", str(tmp_path / "c")])
    err = one_line_error(capsys)
    assert code == 2 and "20 data rows; compare needs at least 60" in err


# --- library inputs ------------------------------------------------------------------------


def test_series_are_paired_by_label_or_refused_naming_both_arguments():
    e, u, t = arrays()
    labels = [f"r{i}" for i in range(400)]
    order = np.random.default_rng(1).permutation(400)
    es = pd.Series(e, index=labels)
    us = pd.Series(u, index=labels).iloc[order]  # same labels, another order
    ts = pd.Series(t, index=labels).iloc[order[::-1]]
    paired = validate(es, us, {"T": ts}, **QUICK)
    reference = validate(e, u, {"T": t}, **QUICK)
    assert paired.scale_factor == reference.scale_factor
    assert paired.verdicts.equals(reference.verdicts)
    with pytest.raises(ValueError, match="errors and uncertainties are pandas Series with "
                                         "different labels \\(label 'r0' of errors"):
        validate(es, pd.Series(u), **QUICK)
    with pytest.raises(ValueError, match="errors and features\\['T'\\] are pandas Series"):
        validate(es, u, {"T": pd.Series(t, index=[f"s{i}" for i in range(400)])}, **QUICK)
    with pytest.raises(ValueError, match="models\\['a'\\]: errors and models\\['b'\\]: errors"):
        compare({"a": (es, us), "b": (pd.Series(e), u)}, n_boot=40)


def test_masked_values_are_refused_with_their_rows():
    e, u, _ = arrays()
    masked = np.ma.masked_array(e, mask=np.arange(400) == 4)
    with pytest.raises(ValueError, match=r"errors has 1 masked value\(s\) \(row 5\)"):
        validate(masked, u, **QUICK)
    with pytest.raises(ValueError, match="masked value"):
        compare({"a": (masked, u), "b": (e, u)}, n_boot=40)
    fine = np.ma.masked_array(e, mask=False)  # nothing masked: used as it is
    assert validate(fine, u, **QUICK).scale_factor == validate(e, u, **QUICK).scale_factor


def test_seed_none_is_drawn_recorded_and_repeats_the_run():
    e, u, _ = arrays()
    res = validate(e, u, seed=None, **QUICK)
    seed = res.parameters["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2**63
    again = validate(e, u, seed=seed, **QUICK)
    assert again.scale_factor == res.scale_factor and again.verdicts.equals(res.verdicts)
    assert validate(e, u, seed=np.int64(3), **QUICK).parameters["seed"] == 3
    cmp = compare({"a": (e, u), "b": (e, 2 * u)}, seed=None, n_boot=40, n_sim=40,
                  n_permutations=40, validate_models=False)
    assert isinstance(cmp.parameters["seed"], int)


@pytest.mark.parametrize(("seed", "message"), [
    (np.random.default_rng(0), "got Generator .*a Generator's state cannot be recorded"),
    ("7", "got str '7'"), (-1, "got int -1"), (1.5, "got float 1.5"), (True, "got bool True"),
])
def test_bad_seeds_are_refused_naming_the_argument(seed, message):
    e, u, _ = arrays()
    with pytest.raises(ValueError, match="seed must be an integer >= 0, a "
                                         "numpy.random.SeedSequence or None, " + message):
        validate(e, u, seed=seed, **QUICK)
    with pytest.raises(ValueError, match="seed must be an integer"):
        compare({"a": (e, u), "b": (e, u)}, seed=seed, n_boot=40)


def test_the_same_bad_cell_has_the_same_row_whatever_the_options(tmp_path, capsys):
    e, u, _ = arrays(100)
    y, p = e + 5.0, np.full(100, 5.0)
    frame = pd.DataFrame({"y": y, "p": p, "err": e, "sigma": u}).astype(object)
    frame.loc[8, ["p", "err"]] = np.nan  # data row 9 (line 10 of the file)
    path = tmp_path / "nan.csv"
    frame.to_csv(path, index=False)
    messages = []
    for option in (["--error", "err"], ["--y-true", "y", "--y-pred", "p"]):
        code = main(["validate", str(path), *option, "--uncertainty", "sigma",
                     "--out", str(tmp_path / "o"), *FAST])
        assert code == 2
        messages.append(one_line_error(capsys))
    assert all("(row 9)" in m and "rows are data rows counted from 1" in m for m in messages)
    assert "column 'err'" in messages[0]
    assert "column 'p' has 1 empty, NaN or infinite value(s) (row 9)" in messages[1]
    assert "y - p" not in messages[1]
    frame.loc[8, ["p", "err"]] = "1.2.3"
    frame.to_csv(path, index=False)
    for option, column in ((["--error", "err"], "err"), (["--y-true", "y", "--y-pred", "p"], "p")):
        main(["validate", str(path), *option, "--uncertainty", "sigma",
              "--out", str(tmp_path / "o"), *FAST])
        assert f"column '{column}' has non-numeric values (row 9: '1.2.3')" in \
            one_line_error(capsys)


def test_library_messages_quote_short_sanitised_excerpts():
    e, u, _ = arrays()
    bad = pd.Series(e.astype(object))
    bad[2] = "\x1b[31m" + "s3cr3t" * 50
    with pytest.raises(ValueError) as info:
        validate(bad, u, **QUICK)
    message = str(info.value)
    assert "\x1b" not in message and len(message) < 200 and "row 3" in message


# --- untrusted text in Markdown --------------------------------------------------------------

HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](http://evil) `x` | y"


def test_names_cannot_inject_markup_into_summaries(tmp_path):
    e, u, t = arrays()
    x = np.random.default_rng(2).uniform(0, 1, 400)
    e2 = e * np.where(x > 0.5, 1.8, 0.5)  # a planted problem: the feature name is quoted
    res = validate(e2, u, {HOSTILE: x}, uncertainty_name="s<script>", **QUICK)
    text = res.summary()
    outside_code = re.sub(r"(`+) .*? \1|(`+)[^`].*?\2", "", text)  # code spans show text
    assert "<img" not in outside_code.replace("\\<img", "")
    assert "[link](" not in outside_code.replace("\\[link](", "")
    assert "<script>" not in outside_code
    html_text = render_markdown(text)
    assert "<img" not in html_text and "<script" not in html_text and "href" not in html_text
    assert "&lt;img src=x onerror=alert(1)&gt;" in html_text  # shown as text
    cmp = compare({HOSTILE: (e, u), "b": (e, 2 * u)}, n_boot=40, n_sim=40, n_permutations=40)
    summary = cmp.summary()
    assert "<img" not in re.sub(r"(`+).*?\1", "", summary).replace("\\<img", "")
    assert "<img" not in render_markdown(summary)


def test_pipeline_summary_neutralises_yaml_fields():
    from uqval.report.flowchart import flowchart_summary_markdown
    from uqval.validation.flowchart import validate_variance

    e, u, t = arrays()
    table = pd.DataFrame({"E": e, "uE": u, "X_T": t})
    checks = validate_variance(table, ["T"], 100, 0)
    report = {"title": "<script>alert(1)</script>", "M": 400, "n_raw": 400,
              "units": "eV | **x**", "citation": "[paper](javascript:alert(1))"}
    text = flowchart_summary_markdown("d1", report, checks)
    # round 4: "<" is the entity &lt; (Python-Markdown passes "\\<script>" on as HTML)
    assert "<script" not in text and "&lt;script>" in text
    assert "\\[paper](javascript" in text and "eV \\| \\*\\*x" in text
    rendered = render_markdown(text)
    assert "<script" not in rendered and "javascript:alert(1))" not in rendered.replace(
        "(javascript:alert(1))", "")


def test_pipeline_dataset_table_is_formula_safe(tmp_path):
    import json

    from uqval.pipeline.datasets_summary import summarize_reports

    report = {"id": "d1", "family": "F", "title": "=HYPERLINK(\"http://x\")", "M": 100,
              "n_raw": 100, "filters": [], "kind": "uncertainty", "features": ["T"],
              "units": "@SUM(A1)", "citation": "+cmd"}
    path = tmp_path / "d1.json"
    path.write_text(json.dumps(report))
    table = summarize_reports([path])
    assert table.loc[0, "title"].startswith("'=") and table.loc[0, "units"] == "'@SUM(A1)"
    assert table.loc[0, "source"] == "'+cmd" and table.loc[0, "M"] == 100


def test_every_seeded_function_names_a_bad_seed():
    from uqval import bca_bootstrap
    from uqval.validation.stages import SQRT_ZMS

    e, u, _ = arrays()
    with pytest.raises(ValueError, match="seed must be an integer >= 0, a numpy.random."
                                         "SeedSequence or None, got Generator"):
        bca_bootstrap((e, u), SQRT_ZMS, n_boot=50, seed=np.random.default_rng(1))
    with pytest.raises(ValueError, match="got str 'abc'"):
        bca_bootstrap((e, u), SQRT_ZMS, n_boot=50, seed="abc")


# --- round 3b: the terminal summary is plain text; the pipeline flowchart's tied bins ----------


def test_terminal_summary_is_plain_text_and_summary_md_stays_escaped(tmp_path, capsys):
    e, u, _ = arrays()
    x = np.random.default_rng(2).uniform(0, 1, 400)
    name = "<img src=x>\x1b[31m*f*_1 [a](b)"
    path = tmp_path / "in.csv"
    pd.DataFrame({"err": e * np.where(x > 0.5, 1.8, 0.5), "sigma": u, name: x}).to_csv(
        path, index=False)
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",  # refused:
                 "--feature", name, "--out", str(tmp_path / "o"), *FAST]) == 2  # control char
    capsys.readouterr()
    name = name.replace("\x1b[31m", "")
    pd.DataFrame({"err": e * np.where(x > 0.5, 1.8, 0.5), "sigma": u, name: x}).to_csv(
        path, index=False)
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", name, "--out", str(tmp_path / "o"), *FAST]) == 0
    out = capsys.readouterr().out
    assert "\\" not in out and "**" not in out
    assert f"  - {name} from 0." in out  # the name as written, outside a code span
    md = (tmp_path / "o" / "summary.md").read_text()
    assert "&lt;img src=x>\\*f\\*\\_1 \\[a](b)" in md  # round 4: entities, not "\\<"


def test_md_plain_undoes_exactly_the_escapes_of_md_text():
    """And the HTML renderer shows the text itself (an escaped backtick opens no code span)."""
    import html

    from uqval.report.markdown import md_plain, md_text, render_inline

    for text in ["<b>", "a\\b", "\\*", "x | y", "[a](b)", "_x_ `c`", "**", "\\\\<", "~&",
                 "`a` and `b`"]:
        assert md_plain(md_text(text)) == text
        assert md_plain(f"**{md_text(text)}**") == text
        assert render_inline(md_text(text)) == html.escape(text)


def _flowchart_csv(tmp_path, table, features):
    from uqval.report.flowchart import flowchart_summary_markdown
    from uqval.validation.flowchart import checks_table, validate_variance

    checks = validate_variance(table, features, 100, 0)
    path = tmp_path / "d1.csv"
    checks_table(checks).to_csv(path, index=False)
    return checks, path, flowchart_summary_markdown("d1", {"M": len(table), "n_raw": len(table)}, checks)


def test_pipeline_flowchart_says_not_testable_on_one_global_sigma(tmp_path):
    """validate_dataset (the paper's flowchart) gave "pass" on bins of tied uE; now "not
    testable" with the reason, through to results/tables/verdicts.csv."""
    import runpy
    from types import SimpleNamespace

    from uqval.validation.flowchart import verdicts

    e, _, t = arrays()
    near_constant = np.r_[np.zeros(399), 1.0]
    table = pd.DataFrame({"E": e, "uE": np.full(400, 0.7), "X_T": t, "X_c": near_constant})
    checks, path, text = _flowchart_csv(tmp_path, table, ["T", "c"])
    v = verdicts(checks)
    assert v["consistency"] == "not testable" and v["adaptivity:c"] == "not testable"
    assert v["adaptivity:T"] in ("pass", "fail") and v["average"] == "fail"  # ZMS far from 1
    assert ("**consistency**: not testable — uE: one uncertainty value (0.7) in every row; the "
            "average and the features are still tested") in text
    assert "399 of 400 rows share the value 0" in text
    assert "| consistency | uE | not testable | - | - | - | not testable |" in text
    out = tmp_path / "verdicts.csv"
    smk = SimpleNamespace(log=[], rule="verdicts_table", input=SimpleNamespace(checks=[str(path)]),
                          params=SimpleNamespace(datasets=["d1"]),
                          output=SimpleNamespace(table=str(out)))
    runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "verdicts_table.py"),
                   init_globals={"snakemake": smk})
    row = pd.read_csv(out, keep_default_na=False).iloc[0]
    assert row["consistency"] == "not testable" and "c: not testable" in row["adaptivity"]
    assert "not testable" not in row["failed_tests"]
    assert "one uncertainty value (0.7) in every row" in row["notes"]


def test_interval_page_shows_not_testable_for_one_interval_width(tmp_path):
    from uqval.pipeline.dataset_page import interval_page
    from uqval.report.flowchart import flowchart_summary_markdown
    from uqval.validation.flowchart import checks_table, validate_intervals

    e, _, t = arrays()
    table = pd.DataFrame({"E": e, "U_95": np.full(400, 2.0), "X_T": t})
    checks = validate_intervals(table, [95], ["T"])
    report = {"id": "d1", "M": 400, "n_raw": 400}
    text = flowchart_summary_markdown("d1", report, checks)
    page = interval_page(checks_table(checks), text, report, tmp_path / "p")
    assert page["stage_verdicts"]["consistency: U_95"] == "not testable"
    assert page["stage_verdicts"]["adaptivity: T"] in ("pass", "fail")
    verdicts = pd.read_csv(tmp_path / "p" / "verdicts.csv")
    assert verdicts.loc[verdicts["stage"] == "consistency", "verdict"].tolist() == ["not testable"]
    assert "one interval half-width (2) in every row" in text


# --- round 3b: library inputs of every odd type, option bounds, copies of a column -----------

from decimal import Decimal  # noqa: E402


@pytest.mark.parametrize(("values", "message"), [
    (lambda e: e > 0, r"errors holds booleans \(True/False\), not numbers"),
    (lambda e: e + 1j, "errors holds complex numbers; pass real numbers"),
    (lambda e: pd.Series(pd.date_range("2020", periods=e.size)), "errors holds dates"),
    (lambda e: (v for v in e), "got generator \\(pass list\\(...\\) of it\\)"),
    (lambda e: map(float, e), "got map"),
    (lambda e: set(e), "got set \\(a set has no order"),
    (lambda e: dict(enumerate(e)), "got dict \\(pass list\\(d.values\\(\\)\\)"),
    (lambda e: "err", "got str 'err' \\(a column name needs data=\\)"),
    (lambda e: pd.DataFrame({"a": e}), "errors must be 1-D, got shape \\(400, 1\\)"),
    (lambda e: [], "errors: 0 usable rows; at least 60 are needed"),
])
def test_values_that_are_not_numbers_in_rows_are_refused_naming_the_argument(values, message):
    e, u, _ = arrays()
    with pytest.raises(ValueError, match=message):
        validate(values(e), u if not isinstance(values(e), list) else [], **QUICK)


def test_booleans_are_refused_as_uncertainties_and_accepted_as_a_feature():
    e, u, t = arrays()
    with pytest.raises(ValueError, match="uncertainties holds booleans"):
        validate(e, u > 0, **QUICK)
    res = validate(e, u, {"hot": t > 325}, **QUICK)
    assert "hot" in res.bins and res.bins["hot"].shape[0] == 2  # the two groups


@pytest.mark.parametrize("convert", [
    lambda a: a.astype(np.float32), lambda a: a.astype(object),
    lambda a: [Decimal(repr(float(v))) for v in a], lambda a: pd.Series(a, dtype="Float64"),
    lambda a: [str(float(v)) for v in a],
])
def test_other_numeric_types_give_the_float64_result(convert):
    """Values representable in float64 give the float64 result (float32 after its rounding)."""
    e, u, _ = arrays()
    if convert(e[:1]).__class__ is np.ndarray and convert(e[:1]).dtype == np.float32:
        e, u = e.astype(np.float32).astype(float), u.astype(np.float32).astype(float)
    ref = validate(e, u, **QUICK)
    res = validate(convert(e), convert(u), **QUICK)
    assert res.scale_factor.value == ref.scale_factor.value
    assert res.stage_verdicts == ref.stage_verdicts


@pytest.mark.parametrize(("options", "message"), [
    ({"n_boot": 10**12}, "n_boot must be an integer from 1 to 1000000, got 1000000000000"),
    ({"n_boot": float("nan")}, "n_boot must be an integer from 1 to 1000000, got nan"),
    ({"n_permutations": float("inf")}, "n_permutations must be an integer from 1 to 1000000"),
    ({"n_ucc_permutations": 10**15}, "n_ucc_permutations must be an integer from 1 to 1000000"),
    ({"n_bins": 10**12}, "n_bins = 1000000000000: the 400 rows give at most 13 bins of 30 rows"),
    ({"n_bins": float("nan")}, "n_bins must be an integer >= 2, got nan"),
    ({"n_bins": float("inf")}, "n_bins must be an integer >= 2, got inf"),
    ({"alpha": 1e-300, "n_permutations": None, "features": {"x": np.arange(400.0)}},
     "alpha = 1e-300 needs 2e\\+301 permutations"),
    ({"drop_invalid": "no"}, "drop_invalid must be True or False, got str 'no'"),
    ({"variance": "yes"}, "variance must be True or False, got str 'yes'"),
    ({"progress": 5}, "progress must be a function of one message"),
    ({"uncertainty_name": ""}, "uncertainty_name must be a non-empty string"),
])
def test_library_option_bounds_name_the_option(options, message):
    """Huge counts were accepted and exhausted memory (n_boot = 10^12 took 24 GB before the
    kernel killed it); NaN or infinite counts raised bare conversion errors."""
    e, u, _ = arrays()
    with pytest.raises(ValueError, match=message):
        validate(e, u, **{**QUICK, **options})
    if "n_bins" in options or "alpha" in options or "progress" in options:
        return
    from uqval import bca_bootstrap
    from uqval.validation.stages import SQRT_ZMS
    with pytest.raises(ValueError, match="n_boot must be an integer from 1 to 1000000"):
        bca_bootstrap((e, u), SQRT_ZMS, n_boot=10**12, seed=0)
    with pytest.raises(ValueError, match="n_sim must be an integer from 2 to 1000000"):
        compare({"a": (e, u), "b": (e, 2 * u)}, n_sim=10**9)
    with pytest.raises(ValueError, match="validate_models must be True or False"):
        compare({"a": (e, u), "b": (e, 2 * u)}, validate_models="no")


def test_a_column_passed_twice_and_bad_feature_names_are_refused():
    e, u, t = arrays()
    with pytest.raises(ValueError, match="errors and uncertainties hold the same values"):
        validate(np.abs(e) + 0.1, np.abs(e) + 0.1, **QUICK)
    with pytest.raises(ValueError, match=r"features\['E'\] holds the same values as the errors"):
        validate(e, u, {"E": e.copy()}, **QUICK)
    with pytest.raises(ValueError, match="features: name '' is empty"):
        validate(e, u, {"": t}, **QUICK)
    with pytest.raises(ValueError, match="features: names 1 and '1' are the same name '1'"):
        validate(e, u, {1: t, "1": t + 1}, **QUICK)
    data = pd.DataFrame(np.c_[e, u, e], columns=["e", "u", "e"])
    with pytest.raises(ValueError, match="errors: data has 2 columns named 'e'"):
        validate("e", "u", data=data, **QUICK)


@pytest.mark.parametrize(("options", "message"), [
    (["--n-boot", "99999999999"], "--n-boot 99999999999: at most 1000000"),
    (["--n-permutations", "10000000"], "--n-permutations 10000000: at most 1000000"),
    (["--jobs", "-1"], "--jobs -1: at least 1"),
])
def test_command_line_upper_bounds_and_jobs(tmp_path, capsys, options, message):
    path = tmp_path / "in.csv"
    pd.DataFrame(columns()).to_csv(path, index=False)
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), *options]) == 2
    assert message in one_line_error(capsys)
    assert not (tmp_path / "o").exists()


def test_the_same_column_twice_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "in.csv"
    pd.DataFrame(columns()).to_csv(path, index=False)
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--feature", "err", "--out", str(tmp_path / "o"), *FAST]) == 2
    assert ("column 'err' holds the same values as the column 'err' (the error column given as "
            "a feature?)") in one_line_error(capsys)
    assert main(["validate", str(path), "--error", "sigma", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), *FAST]) == 2
    assert ("column 'sigma' and column 'sigma' hold the same values (the same column passed "
            "twice?)") in one_line_error(capsys)


@pytest.mark.parametrize(("name", "what"), [
    ("book.xlsx", "an Excel workbook: export the sheet as CSV"),
    ("table.json", "JSON: write the table as CSV or Parquet"),
    ("frame.pkl", "a pickle, never loaded"), ("arr.npy.gz", "a NumPy array"),
])
def test_files_of_other_formats_are_refused_by_their_suffix(tmp_path, capsys, name, what):
    """A JSON file read as CSV said "the file has a header but no data rows"; a workbook
    without NUL bytes in its first bytes complained about control characters in a name."""
    path = tmp_path / name
    path.write_bytes(b"PK\x03\x04fake" if name.endswith("xlsx") else b'{"E": {"0": 1}}')
    assert main(["validate", str(path), "--error", "E", "--uncertainty", "u",
                 "--out", str(tmp_path / "o")]) == 2
    assert f"'.{name.split('.')[1]}' is {what}" in one_line_error(capsys)
    with pytest.raises(DataError, match=what):
        read_table(path)


def test_every_resampling_function_bounds_its_count():
    """calibration_scores(n_sim=10**12), cumulative_test(n_permutations=10**12) and
    isotonic_reliability(n_sim=10**12) tried to allocate TiB-sized arrays."""
    from uqval import (
        calibration_scores,
        cumulative_test,
        isotonic_reliability,
        simulated_reference,
    )

    e, u, _ = arrays()
    for call, name in [(lambda: calibration_scores(e, u, n_sim=10**12), "n_sim"),
                       (lambda: cumulative_test(e, u, n_permutations=10**12), "n_permutations"),
                       (lambda: isotonic_reliability(e, u, n_sim=10**12), "n_sim"),
                       (lambda: isotonic_reliability(e, u, n_boot=float("inf")), "n_boot"),
                       (lambda: simulated_reference(u, "ZMS", "normal", n_mc=10**12), "n_mc")]:
        with pytest.raises(ValueError, match=f"{name} must be an integer from .* to 1000000"):
            call()


def test_compare_names_the_model_whose_columns_are_the_same():
    e, u, _ = arrays()
    with pytest.raises(ValueError, match=r"models\['b'\]: errors and uncertainties hold the same"):
        compare({"a": (e, u), "b": (u, u)}, n_boot=40, n_sim=40, n_permutations=40)


def test_a_number_beyond_the_float_range_is_named_as_such(tmp_path, capsys):
    data = columns()
    text = csv_text(data).splitlines()
    cells = text[5].split(",")
    text[5] = ",".join([cells[0], "1e400", cells[2]])
    path = tmp_path / "in.csv"
    path.write_text("\n".join(text) + "\n")
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma",
                 "--out", str(tmp_path / "o"), *FAST]) == 2
    message = one_line_error(capsys)
    # pandas 2 keeps the cell as text (named as beyond the float range); pandas 3's parser
    # turns it into inf (named as an infinite value): either way the column, row and reason
    assert ("column 'sigma' has non-numeric values (row 5: '1e400' (beyond the float range, "
            "about 1.8e308))") in message or (
        "column 'sigma' has 1 NaN or infinite value(s) (row 5)" in message)


def test_paper_rule_reports_one_global_sigma_as_not_testable(tmp_path, capsys):
    """rule="paper" refused a global sigma outright, and its stage verdicts held only the
    average stage (its rows are not rescaled, the property kept only rescaled ones)."""
    e, _, t = arrays()
    res = validate(e, np.full(e.size, 0.7), {"T": t}, rule="paper", **QUICK)
    assert res.stage_verdicts["consistency"] == "not testable"
    assert set(res.stage_verdicts) == {"average", "consistency", "adaptivity: T"}
    assert ("consistency along uncertainty: **not testable**: one uncertainty value (0.7) in "
            "every row") in res.summary()
    path = tmp_path / "const.csv"
    pd.DataFrame({"err": e, "sigma": np.full(e.size, 0.7), "T": t}).to_csv(path, index=False)
    assert main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature",
                 "T", "--rule", "paper", "--out", str(tmp_path / "o"), *FAST]) == 0
    assert "consistency along sigma: not testable" in capsys.readouterr().out


@pytest.mark.parametrize(("models", "features", "message"), [
    ("list", None, "models must be a mapping name -> \\(errors, uncertainties\\), got list"),
    ("triple", None, "models\\['a'\\] must be a pair \\(errors, uncertainties\\), got 3 items"),
    ("frame", None, "models\\['a'\\] must be a pair \\(errors, uncertainties\\), got DataFrame"),
    ("same name", None, "models: names 1 and '1' are the same name '1'"),
    ("empty name", None, "models: name '' is empty"),
    ("ok", "generator", "features must be a mapping name -> values \\(or None\\), got generator"),
])
def test_compare_refuses_malformed_models_and_features(models, features, message):
    """These ended in AttributeError, KeyError or "zip() argument 2 is longer"."""
    e, u, t = arrays()
    given = {"list": [(e, u), (e, 2 * u)], "triple": {"a": (e, u, u), "b": (e, u)},
             "frame": {"a": pd.DataFrame({"e": e, "u": u}), "b": (e, u)},
             "same name": {1: (e, u), "1": (e, 2 * u)}, "empty name": {"": (e, u), "b": (e, u)},
             "ok": {"a": (e, u), "b": (e, 2 * u)}}[models]
    feats = (v for v in t) if features == "generator" else None
    with pytest.raises(ValueError, match=message):
        compare(given, feats, n_boot=40, n_sim=40, n_permutations=40, validate_models=False)


def test_compare_takes_a_dataframe_of_features():
    e, u, t = arrays()
    frame = pd.DataFrame({"T": t})
    a = compare({"a": (e, u), "b": (e, 2 * u)}, frame, n_boot=40, n_sim=40, n_permutations=40,
                validate_models=False, seed=1)
    b = compare({"a": (e, u), "b": (e, 2 * u)}, {"T": t}, n_boot=40, n_sim=40,
                n_permutations=40, validate_models=False, seed=1)
    pd.testing.assert_frame_equal(a.scores, b.scores)


def test_binned_scaling_keeps_equal_feature_values_in_one_bin():
    """A boolean feature was cut into 20 bins, 10 of them x = 0 with different factors, and
    apply() gave every x = 0 row the first one's; now one factor per group, sqrt(<Z^2>) of
    the group computed by hand."""
    from uqval import binned_scaling

    e, u, t = arrays()
    hot = t > 325
    fit = binned_scaling(e, u, hot, n_boot=200)
    assert fit.counts.tolist() == [int((~hot).sum()), int(hot.sum())]
    z2 = (e / u) ** 2
    expected = [np.sqrt(z2[~hot].mean()), np.sqrt(z2[hot].mean())]
    np.testing.assert_allclose(fit.factors, expected, rtol=1e-12)
    np.testing.assert_allclose(fit.apply(np.ones(2), [False, True]), expected, rtol=1e-12)


@pytest.mark.parametrize("folds", [float("nan"), 10**9, 1, True])
def test_cross_validate_names_bad_folds(folds):
    from uqval import cross_validate

    e, u, _ = arrays()
    with pytest.raises(ValueError, match=r"folds must be an integer from 2 to 200, got"):
        cross_validate("sigma", e, u, folds=folds)


def test_errors_whose_squares_are_subnormal_are_judged_not_crashed(tmp_path, capsys):
    # errors 1e-160 x N(0, 1) against uE = 1: every Z^2 is a subnormal number (1e-320), not 0,
    # so the set is validated; the BCa acceleration's (sum d^2)^(3/2) used to underflow to 0
    # (ZeroDivisionError). Now: a factor 1e-160 and the units check, from the command line too
    rng = np.random.default_rng(4)
    e = 1e-160 * rng.standard_normal(300)
    path = tmp_path / "tiny.csv"
    pd.DataFrame({"e": e, "s": np.ones(300)}).to_csv(path, index=False)
    code = main(["validate", str(path), "--error", "e", "--uncertainty", "s", "--n-boot", "100",
                 "--out", str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert code != 2 and "Traceback" not in err, err
    assert "same units" in out
    res = validate(e, np.ones(300), **QUICK)
    assert 0.5e-160 < res.scale_factor.value < 2e-160


def test_an_ensemble_equal_to_its_observations_gives_rmse_zero_not_a_crash():
    # every member and the observation equal (members 5 + 1e-160 x N(0, 1) round to 5): the
    # variance stages are not run (no spread), and the rmse's delta-method se, se/(2 rmse),
    # used to divide by zero
    rng = np.random.default_rng(4)
    y = np.full(300, 5.0)
    res = validate(y, Ensemble(5.0 + 1e-160 * rng.standard_normal((300, 8))), **QUICK)
    assert res.variance is None
    rmse = res.scores.set_index("score").loc["rmse"]
    assert rmse["value"] == 0.0 and rmse["se"] == 0.0


def test_predictive_routes_print_plain_text_too(tmp_path, capsys):
    """`validate --distribution` and `compare NAME:normal=...` print the summary as plain text
    like the sigma route (no bold markers, no Markdown escapes of a name with underscores);
    summary.md keeps them."""
    rng = np.random.default_rng(4)
    m = 400
    x = rng.uniform(0, 1, m)
    sd = rng.lognormal(0.0, 0.3, m)
    y = sd * rng.standard_normal(m) * np.where(x > 0.5, 2.0, 1.0)
    path = tmp_path / "p.csv"
    pd.DataFrame({"y": y, "mean_a": 0.0, "sd_a": sd, "sd_b": 1.5 * sd, "mol_weight_x": x}
                 ).to_csv(path, index=False)
    assert main(["validate", str(path), "--y-true", "y", "--y-pred", "mean_a", "--uncertainty",
                 "sd_a", "--distribution", "normal", "--feature", "mol_weight_x", "--out",
                 str(tmp_path / "v"), *FAST]) == 0
    out = capsys.readouterr().out
    assert "\\" not in out and "**" not in out and "mol_weight_x" in out
    assert "**" in (tmp_path / "v" / "summary.md").read_text()
    assert main(["compare", str(path), "--y-true", "y", "--model", "a_1:normal=mean_a,sd_a",
                 "--model", "b_1:normal=mean_a,sd_b", "--out", str(tmp_path / "c"),
                 "--n-boot", "100"]) == 0
    out = capsys.readouterr().out
    assert "\\" not in out and "**" not in out and "a_1" in out


def test_off_centre_question_only_for_an_error_column(tmp_path, capsys):
    """Errors biased by 0.9 sd: with --error the column is questioned (it may hold
    predictions); with --y-true and --y-pred, on the sigma and the predictive routes, the
    errors are y - prediction by construction, and the offset is advised, not questioned."""
    rng = np.random.default_rng(0)
    n = 400
    u = rng.lognormal(0.0, 0.3, n)
    y = rng.normal(0.0, 3.0, n)
    p = y - u * (1.0 + rng.standard_normal(n))
    path = tmp_path / "b.csv"
    pd.DataFrame({"y": y, "p": p, "u": u, "e": y - p}).to_csv(path, index=False)
    runs = {"error": ["--error", "e", "--uncertainty", "u"],
            "sigma": ["--y-true", "y", "--y-pred", "p", "--uncertainty", "u"],
            "normal": ["--y-true", "y", "--y-pred", "p", "--uncertainty", "u",
                       "--distribution", "normal"]}
    for name, cols in runs.items():
        out = tmp_path / name
        assert main(["validate", str(path), *cols, "--out", str(out), *FAST]) == 0
        err = capsys.readouterr().err
        questioned = "far from centred" in err
        assert questioned == (name == "error"), name
        assert ("far from centred" in (out / "summary.md").read_text()) == (name == "error")
        advice = pd.read_csv(out / "advice.csv")
        assert (advice["action"] == "correct_bias").any(), name


@pytest.mark.parametrize("grouped", [False, True])
def test_errors_exactly_proportional_to_the_uncertainties(grouped):
    """E = 0.5 uE on every row: every z-score is 0.5. The offset is advised, no spread factor
    (sd(Z) = 0 would read 'multiply by 0'), the advice says why, and no RuntimeWarning."""
    import warnings

    rng = np.random.default_rng(0)
    n = 400
    u = rng.uniform(0.5, 2.0, n)
    groups = np.repeat(np.arange(40), 10) if grouped else None
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = validate(0.5 * u, u, {"x": rng.uniform(size=n)}, groups=groups, n_boot=200,
                       n_permutations=199)
    a = res.advice[res.advice["stage"] == "average"]
    assert list(a["action"]) == ["correct_bias", "none"]
    assert "every z-score equals the mean z" in a["reason"].iloc[1]
