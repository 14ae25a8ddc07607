"""Hostile and careless inputs, round 4 (issue #39): the provenance of the bytes validated
(the recorded SHA-256 is that of the bytes parsed; a file that changes while it is read is
refused; a pipeline source edited during preparation fails the job), untrusted text escaped
in every output of the pipeline, extreme finite values, corrupt archive members, bounded
pipeline settings, write errors of the command line, Excel's ``sep=`` line and repeated rows.

Each test says which defect of the issue it covers and how the code before the fix failed it.
"""

from __future__ import annotations

import hashlib
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from conftest import DATASET_SCHEMA
from uqval._internal import tables
from uqval._internal.errors import DataError
from uqval.cli import EXIT_BAD_INPUT, EXIT_CANNOT_WRITE, EXIT_OK, main
from uqval.pipeline.prepare import prepare_dataset
from uqval.pipeline.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
FAST = ["--n-boot", "100", "--n-permutations", "199"]


def columns(m: int = 400, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.4, m)
    return {"err": u * rng.standard_normal(m), "sigma": u, "T": rng.uniform(250, 400, m)}


def write_csv(path: Path, data: dict[str, np.ndarray]) -> bytes:
    names = list(data)
    lines = [",".join(names)] + [",".join(f"{data[n][i]:.6f}" for n in names)
                                 for i in range(len(data[names[0]]))]
    text = ("\n".join(lines) + "\n").encode()
    path.write_bytes(text)
    return text


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uqval: error: ") and "Traceback" not in err
    return err


# --- High: the page's SHA-256 is that of the bytes validated ---------------------------------
# Before the fix the command line hashed the input file again after the computation
# (input_sha256=file_sha256(args.file)): a file replaced meanwhile gave the new file's digest
# beside the old data's verdicts.


def test_validate_records_the_digest_of_the_bytes_it_validated(tmp_path, monkeypatch, capsys):
    import uqval.validation

    path = tmp_path / "big.csv"
    validated = write_csv(path, columns())
    other = write_csv(tmp_path / "other.csv", columns(seed=1))
    original = uqval.validation.validate

    def replace_then_validate(*args, **kwargs):  # `cp other.csv big.csv` while it computes
        path.write_bytes(other)
        return original(*args, **kwargs)

    monkeypatch.setattr(uqval.validation, "validate", replace_then_validate)
    out = tmp_path / "report"
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(out), *FAST])
    assert code == EXIT_OK, capsys.readouterr().err
    page = (out / "report.html").read_text()
    assert sha(validated) in page and sha(other) not in page


def test_compare_records_the_digest_of_the_bytes_it_compared(tmp_path, monkeypatch, capsys):
    import uqval.comparison

    data = columns()
    data["sigma_b"] = 1.5 * data["sigma"]
    path = tmp_path / "big.csv"
    compared = write_csv(path, data)
    other = write_csv(tmp_path / "other.csv", {**data, "err": -data["err"]})
    original = uqval.comparison.compare

    def replace_then_compare(*args, **kwargs):
        path.write_bytes(other)
        return original(*args, **kwargs)

    monkeypatch.setattr(uqval.comparison, "compare", replace_then_compare)
    out = tmp_path / "cmp"
    code = main(["compare", str(path), "--model", "A:err:sigma", "--model", "B:err:sigma_b",
                 "--out", str(out), "--n-boot", "40"])
    assert code == EXIT_OK, capsys.readouterr().err
    page = (out / "report.html").read_text()
    assert sha(compared) in page and sha(other) not in page


@pytest.mark.parametrize("name", ["t.csv", "t.csv.gz", "t.csv.zip"])
def test_a_file_changing_between_two_reads_is_refused_in_one_line(tmp_path, monkeypatch, capsys,
                                                                  name):
    # before: the checks of the first pass and the values of the second came from different
    # files without a word, and the digest from a third read
    import gzip
    import zipfile

    path = tmp_path / name

    def write(data: dict[str, np.ndarray]) -> None:
        plain = tmp_path / "plain.csv"
        text = write_csv(plain, data)
        if name.endswith(".gz"):
            path.write_bytes(gzip.compress(text))
        elif name.endswith(".zip"):
            with zipfile.ZipFile(path, "w") as archive:
                archive.writestr("t.csv", text)
        else:
            path.write_bytes(text)

    write(columns())
    original = tables._check_text

    def check_then_edit(*args, **kwargs):
        facts = original(*args, **kwargs)
        write(columns(seed=2))  # another program saves the file between the two passes
        return facts

    monkeypatch.setattr(tables, "_check_text", check_then_edit)
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == EXIT_BAD_INPUT
    assert "the file changed while it was being read" in one_line_error(capsys)
    assert not (tmp_path / "o" / "report.html").exists()


def test_a_parquet_file_changing_while_it_is_read_is_refused(tmp_path, monkeypatch, capsys):
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    pd.DataFrame(columns()).to_parquet(path)
    original = tables.decompressed_limit

    def limit_then_edit(size):  # called once pyarrow has read the metadata
        pd.DataFrame(columns(seed=3)).to_parquet(path)
        return original(size)

    monkeypatch.setattr(tables, "decompressed_limit", limit_then_edit)
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == EXIT_BAD_INPUT
    assert "the file changed while it was being read" in one_line_error(capsys)


def test_every_whole_pass_gives_the_digest_of_the_file(tmp_path):
    import gzip

    path = tmp_path / "t.csv.gz"
    data = gzip.compress(b"a,b\n1,2\n3,4\n")
    path.write_bytes(data)
    raw = tables.FileBytes(path)
    table = tables.read_csv_table(path, raw=raw)
    assert table.shape == (2, 2) and raw.sha256 == sha(data)
    from uqval._internal.batched import read_columns

    assert read_columns(path, ["a"]).sha256 == sha(data)


# --- Medium: a local file edited while `prepare` reads it ------------------------------------
# Before the fix the digest came from a separate read and the last check ran before the
# outputs were written: an edit in between left outputs newer than the edited file, with a
# digest that matched neither, and the next run said "Nothing to be done".


def rows_csv(m: int = 100, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.2, 1.0, m)
    e = u * rng.standard_normal(m)
    return "E,uE\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in zip(e, u, strict=True))


def _prepare_job(spec, raw: Path, out: Path) -> SimpleNamespace:
    return SimpleNamespace(
        log=[], rule="prepare_dataset",
        params=SimpleNamespace(spec=dict(spec.__dict__), data_root=str(raw)),
        output=SimpleNamespace(table=str(out / "d1.csv"), report=str(out / "d1.json")))


def test_a_source_edited_while_the_outputs_are_written_fails_the_job(make_family, tmp_path,
                                                                     monkeypatch):
    import uqval._internal.atomic as atomic

    raw, ddir = make_family({"T/a.csv": rows_csv()}, [{"id": "d1", "sources": [
        {"file": "T/a.csv"}], "quantities": {"E": "E", "uE": "uE"}}])
    spec = load_registry(ddir, DATASET_SCHEMA).get("d1")
    spec = type(spec)(**{**spec.__dict__, "pins": {"T/a.csv": None}})  # a user's own file
    original = atomic.write_json

    def edit_then_write(*args, **kwargs):  # the user saves the file while the table is written
        (raw / "T" / "a.csv").write_text(rows_csv(seed=1))
        return original(*args, **kwargs)

    monkeypatch.setattr(atomic, "write_json", edit_then_write)
    out = tmp_path / "prepared"
    out.mkdir()
    with pytest.raises(SystemExit) as info:
        runpy.run_path(str(ROOT / "scripts" / "prepare.py"),
                       init_globals={"snakemake": _prepare_job(spec, raw, out)})
    assert info.value.code == 1
    assert not (out / "d1.csv").exists() and not (out / "d1.json").exists()


def test_an_edit_after_preparation_is_newer_than_its_outputs(make_family, tmp_path):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [{"id": "d1", "sources": [
        {"file": "T/a.csv"}], "quantities": {"E": "E", "uE": "uE"}}])
    spec = load_registry(ddir, DATASET_SCHEMA).get("d1")
    out = tmp_path / "prepared"
    out.mkdir()
    runpy.run_path(str(ROOT / "scripts" / "prepare.py"),
                   init_globals={"snakemake": _prepare_job(spec, raw, out)})
    source = raw / "T" / "a.csv"
    source.write_text(rows_csv(seed=1))  # right after the job: the next run must prepare again
    assert source.stat().st_mtime_ns > max((out / n).stat().st_mtime_ns
                                           for n in ("d1.csv", "d1.json"))


def test_prepare_records_the_digest_of_the_bytes_it_parsed(make_family, monkeypatch):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [{"id": "d1", "sources": [
        {"file": "T/a.csv"}], "quantities": {"E": "E", "uE": "uE"}}])
    spec = load_registry(ddir, DATASET_SCHEMA).get("d1")
    spec = type(spec)(**{**spec.__dict__, "pins": {"T/a.csv": None}})
    original = tables._check_text

    def check_then_edit(*args, **kwargs):  # an edit between the digest and the parse
        facts = original(*args, **kwargs)
        (raw / "T" / "a.csv").write_text(rows_csv(seed=1))
        return facts

    monkeypatch.setattr(tables, "_check_text", check_then_edit)
    with pytest.raises(DataError, match="changed while it was being read"):
        prepare_dataset(spec, raw)
    monkeypatch.undo()
    text = (raw / "T" / "a.csv").read_bytes()
    prepared = prepare_dataset(spec, raw)
    assert prepared.report["source_sha256"]["T/a.csv"] == sha(text)


# --- Low: write errors of the command line ---------------------------------------------------
# Before the fix `uqval validate ... > /dev/full` exited 1 with a traceback (the summary's
# write failed at the interpreter's last flush, or inside print).


def test_a_full_standard_output_is_one_line_and_exit_code_three(tmp_path):
    import subprocess
    import sys

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    path = tmp_path / "t.csv"
    write_csv(path, columns())
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "uqval", "validate", str(path), "--error", "err",
             "--uncertainty", "sigma", "--out", str(tmp_path / "o"), *FAST],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=600)
    assert res.returncode == EXIT_CANNOT_WRITE
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith("uqval: error: cannot write to standard output: No space left")
    assert (tmp_path / "o" / "report.html").is_file()  # the report itself is complete


def test_a_write_error_of_standard_output_in_process(tmp_path, monkeypatch, capsys):
    import errno
    import io
    import sys

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.EIO, "Input/output error")

    path = tmp_path / "t.csv"
    write_csv(path, columns())
    monkeypatch.setattr(sys, "stdout", Full())
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == EXIT_CANNOT_WRITE
    assert "cannot write to standard output: Input/output error" in one_line_error(capsys)


# --- Low: Excel's `sep=` first line ----------------------------------------------------------
# Before the fix "sep=," was read as the header and the next line refused as "a separator
# inside an unquoted value" on line 2.


@pytest.mark.parametrize(("first", "sep"), [("sep=,", ","), ("sep=;", ";"), ("SEP=\t", "\t"),
                                            ("\ufeffsep=|", "|")])
def test_excel_separator_line_names_the_separator(tmp_path, capsys, first, sep):
    data = columns()
    body = [sep.join(data)] + [sep.join(f"{data[n][i]:.6f}" for n in data) for i in range(400)]
    path = tmp_path / "excel.csv"
    path.write_text(first + "\r\n" + "\r\n".join(body) + "\r\n", encoding="utf-8")
    table = tables.read_table(path)
    assert list(table.columns) == ["err", "sigma", "T"] and len(table) == 400
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == EXIT_OK, capsys.readouterr().err


def test_excel_separator_line_keeps_file_line_numbers_and_refuses_unknown_separators(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("sep=;\na;b\n1;2\n3;4;5\n")
    with pytest.raises(DataError, match=r"line 4 \(data row 2\): 3 fields where the header has "
                                        "2; field 3 holds '5'"):
        tables.read_table(path)
    path.write_text("sep=:\na:b\n1:2\n")
    with pytest.raises(DataError, match="line 1: Excel's separator line 'sep=' names ':', not a "
                                        "separator uqval reads"):
        tables.read_table(path)


# --- Medium: valid extreme data refused with a misleading message ----------------------------
# Before the fix E and uE spread log-uniformly over 1e-300..1e300 (every Z finite) gave
# "overflow encountered in square" and then "sample contains 105 non-finite values", naming
# no column and no row; a single uE of 1e-300 among ordinary values gave NaN warnings (and
# a consistency verdict computed from them).


def log_uniform(decades: float, m: int = 400, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = 10.0 ** rng.uniform(-decades, decades, m)
    return {"err": u * rng.standard_normal(m), "sigma": u, "T": rng.uniform(0, 1, m)}


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_values_over_600_decades_are_refused_naming_column_and_rows(tmp_path, capsys):
    path = tmp_path / "extreme.csv"
    pd.DataFrame(log_uniform(300)).to_csv(path, index=False, float_format="%.17g")
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--out",
                 str(tmp_path / "o"), *FAST])
    assert code == EXIT_BAD_INPUT
    err = one_line_error(capsys)
    assert "column 'err' has" in err and "too far from the others to share a unit" in err
    assert "(rows " in err and "less than 150 orders of magnitude apart" in err
    assert "non-finite" not in err
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature",
                 "T", "--out", str(tmp_path / "o"), "--drop-invalid", *FAST])
    assert code == EXIT_OK
    page = (tmp_path / "o" / "report.html").read_text()
    assert "removed: uncertainties too far from the others for one unit" in page


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_one_tiny_uncertainty_among_ordinary_ones_is_named():
    from uqval import validate

    data = columns()
    e, u = data["err"].copy(), data["sigma"].copy()
    e[5], u[5] = 0.7e-300, 1e-300
    with pytest.raises(ValueError, match=r"uncertainties has 1 value\(s\) \(row 6\) too far from "
                                         r"the others to share a unit with them \(row 6: 1e-300"):
        validate(e, u, n_boot=100, n_permutations=199, n_ucc_permutations=199)
    res = validate(e, u, n_boot=100, n_permutations=199, n_ucc_permutations=199,
                   drop_invalid=True)
    assert res.row_counts["removed: uncertainties too far from the others for one unit"] == 1


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_values_over_148_decades_are_validated_in_a_common_unit(tmp_path, capsys):
    data = log_uniform(74)
    path = tmp_path / "wide.csv"
    pd.DataFrame(data).to_csv(path, index=False, float_format="%.17g")
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature",
                 "T", "--out", str(tmp_path / "o"), *FAST])
    assert code == EXIT_OK, capsys.readouterr().err
    from uqval import validate

    res = validate(data["err"], data["sigma"], {"T": data["T"]}, n_boot=100,
                   n_permutations=199, n_ucc_permutations=199)
    z = data["err"] / data["sigma"]
    assert res.scale_factor.value == pytest.approx(np.sqrt(np.mean(z**2)), rel=1e-12)


def test_the_common_unit_keeps_squares_and_fourth_powers_normal():
    from uqval._internal.checks import unit_outliers, unit_scaled

    rng = np.random.default_rng(4)
    for _ in range(200):
        centre, half = rng.uniform(-300, 300), rng.uniform(0, 80)
        u = 10.0 ** np.clip(centre + rng.uniform(-half, half, 50), -307, 307)
        e = u * rng.standard_normal(50)
        bad_e, bad_u = unit_outliers(e, u)
        keep = ~(bad_e | bad_u)
        e_unit, u_unit, unit = unit_scaled(e[keep], u[keep])
        with np.errstate(all="raise"):
            fourth = np.square(np.square(np.r_[e_unit, u_unit]))
        assert np.isfinite(fourth).all() and (np.square(np.square(u_unit)) > 2.3e-308).all()
        assert np.array_equal(e_unit / u_unit, e[keep] / u[keep])  # Z unchanged, exactly
        if half < 74:  # less than 150 decades: every row is kept
            assert keep.all()


def test_ordinary_values_are_never_rescaled():
    from uqval._internal.checks import unit_scaled

    data = columns()
    e, u, unit = unit_scaled(data["err"], data["sigma"])
    assert unit == 1.0 and e is data["err"] and u is data["sigma"]


# --- Low: a table concatenated with itself ---------------------------------------------------
# Before the fix the doubled rows were validated without a word (the scale factor's interval
# narrowed from [0.976, 1.12] to [1.000, 1.10]).


def test_a_table_concatenated_with_itself_is_counted_and_warned(tmp_path, capsys):
    path = tmp_path / "twice.csv"
    text = write_csv(path, columns()).decode()
    header, _, body = text.partition("\n")
    path.write_text(header + "\n" + body + body)
    out = tmp_path / "o"
    code = main(["validate", str(path), "--error", "err", "--uncertainty", "sigma", "--feature",
                 "T", "--out", str(out), *FAST])
    assert code == EXIT_OK
    err = capsys.readouterr().err
    assert (f"uqval: warning: {path}: 400 of the 800 rows (50 %) repeat an earlier row exactly"
            in err)
    summary = (out / "summary.md").read_text()
    assert "**Check your input.** 400 of the 800 rows (50 %) repeat an earlier row" in summary
    assert "rows repeating an earlier row (kept)</th><td class=\"num\">400" in (
        out / "report.html").read_text()


def test_a_few_repeated_rows_are_counted_without_a_warning():
    from uqval import validate

    data = columns()
    e, u = data["err"].copy(), data["sigma"].copy()
    e[10:20], u[10:20] = e[:10], u[:10]  # 10 of 400 rows (2.5 %) are copies
    res = validate(e, u, {"T": data["T"]}, n_boot=100, n_permutations=199,
                   n_ucc_permutations=199)
    assert "rows repeating an earlier row (kept)" not in res.row_counts  # T differs: not copies
    res = validate(e, u, n_boot=100, n_permutations=199, n_ucc_permutations=199)
    assert res.row_counts["rows repeating an earlier row (kept)"] == 10
    assert not any("repeat an earlier row" in w for w in res.warnings)
    assert list(res.row_counts)[-1] == "rows used" and res.row_counts["rows used"] == 400


def test_repeated_rows_count_exact_copies_only():
    from uqval.validation.inputs import repeated_rows

    a = np.array([1.0, 1.0, 0.0, -0.0, 2.0, 1.0])
    b = np.array([3.0, 3.0, 5.0, 5.0, 3.0, 3.0 + 1e-15])
    assert repeated_rows([a, b]) == 2  # rows 2 and 4 (-0.0 equals 0.0); row 6 differs
    assert repeated_rows([np.arange(5.0)]) == 0


def test_recalibrated_validation_warns_once_about_repeated_rows():
    from uqval.validation.recalibrated import validate_recalibrated

    data = columns()
    e, u = np.r_[data["err"], data["err"]], np.r_[data["sigma"], data["sigma"]]
    res = validate_recalibrated(e, u, None, method="sigma", n_boot=100, n_permutations=199)
    assert sum("repeat an earlier row" in w for w in res.warnings) == 1
    assert res.row_counts["rows repeating an earlier row (kept)"] == 400


# --- Medium: raw HTML from a dataset YAML's title/citation in results/validate/*.md ----------
# Before the fix md_text wrote "<" as "\<": a CommonMark renderer shows it as text, but
# Python-Markdown (MkDocs) and Markdown.pl do not treat "\<" as an escape and passed
# "\<script>" / "\<img onerror=...>" on as raw HTML; a title starting with "# " became a
# heading. Pipeline logs printed YAML values with their escape sequences, and CSV tables kept
# control characters.

HOSTILE_REPORT = {"title": "# <script>alert(1)</script> & co", "M": 400, "n_raw": 400,
                  "units": "<b>eV</b> | **x**", "citation": "<img src=x onerror=alert(1)>"}


def _flowchart_text() -> str:
    from uqval.report.flowchart import flowchart_summary_markdown
    from uqval.validation.flowchart import validate_variance

    data = columns()
    table = pd.DataFrame({"E": data["err"], "uE": data["sigma"], "X_T": data["T"]})
    return flowchart_summary_markdown("d1", HOSTILE_REPORT, validate_variance(table, ["T"], 100, 0))


def test_the_pipeline_summary_holds_no_raw_html_in_any_markdown_flavour():
    text = _flowchart_text()
    assert "<" not in text.replace("`", "")  # no tag can open, whatever the renderer
    assert "&lt;script>alert(1)&lt;/script> &amp; co" in text
    assert "&lt;img src=x onerror=alert(1)>" in text and "&lt;b>eV&lt;/b> \\|" in text
    from uqval.report.markdown import render_markdown

    rendered = render_markdown(text)
    assert "<script" not in rendered and "<img" not in rendered and "<b>" not in rendered
    assert "# &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in rendered  # shown as typed
    assert rendered.count("<h1>") == 1  # the title line is a paragraph, not a heading


def test_a_commonmark_renderer_shows_the_yaml_fields_as_text():
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").render(_flowchart_text())
    assert "<script" not in rendered and "<img" not in rendered and "<b>" not in rendered
    assert "&lt;script&gt;" in rendered and rendered.count("<h1>") == 1


@pytest.mark.parametrize("text", ["<b>", "a & b", "&lt;", "# title", "- item", "+ x", "12. x",
                                  "3) y", "-", "-1.5", "x > y", "&amp;amp;", "1.5"])
def test_md_text_round_trips_through_the_terminal_and_the_page(text):
    import html

    from uqval.report.markdown import md_plain, md_text, render_inline

    assert md_plain(md_text(text)) == text
    assert render_inline(md_text(text)) == html.escape(text)
    assert "<" not in md_text(text)


def test_pipeline_logs_and_csv_tables_hold_no_escape_sequences(tmp_path, capsys):
    from uqval._internal.errors import ConfigError
    from uqval.pipeline.datasets_summary import summarize_reports
    from uqval.pipeline.scripting import run_logged

    log = tmp_path / "job.log"
    smk = SimpleNamespace(log=[str(log)], rule="prepare_dataset")

    def fail(_):
        raise ConfigError("dataset 'd1': quantities.uE = 'sigma\x1b[2J\x1b[31m' is wrong")

    with pytest.raises(SystemExit):
        run_logged(smk, fail)
    assert "\x1b" not in log.read_text() and "\x1b" not in capsys.readouterr().err
    assert "quantities.uE = 'sigma[2J[31m' is wrong" in log.read_text()
    report = {"id": "d1", "family": "F", "title": "\x1b[31m=cmd", "M": 100, "n_raw": 100,
              "filters": [], "kind": "variance", "features": [], "units": "eV\x07",
              "citation": "ok"}
    path = tmp_path / "d1.json"
    path.write_text(__import__("json").dumps(report))
    table = summarize_reports([path])
    assert table.loc[0, "title"] == "[31m=cmd" and table.loc[0, "units"] == "eV"


# --- Medium: a corrupt archive member --------------------------------------------------------
# Before the fix a stored member with a bad CRC made `python -m uqval.pipeline.jacobs` exit 1
# with a traceback (zipfile.BadZipFile), leaving the members copied before it in the mirror.


def _jacobs_archive(tmp_path: Path, method: int) -> tuple[Path, dict[str, bytes], str]:
    import shutil
    import zipfile

    import yaml

    shipped = ROOT / "config" / "literature" / "JAC2024.yaml"
    ddir = tmp_path / "datasets"
    ddir.mkdir()
    shutil.copy(shipped, ddir / "JAC2024.yaml")
    rng = np.random.default_rng(0)
    files = {}
    for f in yaml.safe_load(shipped.read_text())["files"]:
        inner = "/".join(f["path"].split("/")[1:])
        column = "residuals" if "residuals" in inner else "model_errors"
        files[inner] = (column + "\n" + "".join(f"{x:.6f}\n" for x in rng.uniform(
            0.2, 1.0, 80))).encode()
    archive = tmp_path / "figshare.zip"
    with zipfile.ZipFile(archive, "w", method) as zf:
        for inner, data in files.items():
            zf.writestr("deposit/" + inner, data)
    victim = list(files)[len(files) // 2]  # half the members are copied before it
    return archive, files, victim


def _corrupt(archive: Path, data: bytes) -> None:
    content = bytearray(archive.read_bytes())
    at = content.find(data) + len(data) // 2
    assert at > len(data) // 2
    content[at] ^= 0x20
    archive.write_bytes(bytes(content))


@pytest.mark.parametrize("method", ["stored", "deflated"])
def test_a_corrupt_member_is_one_line_exit_two_and_nothing_stays(tmp_path, capsys, method):
    import zipfile
    import zlib

    from uqval.pipeline import jacobs

    kind = zipfile.ZIP_STORED if method == "stored" else zipfile.ZIP_DEFLATED
    archive, files, victim = _jacobs_archive(tmp_path, kind)
    if method == "stored":
        _corrupt(archive, files[victim])  # a bad CRC-32
    else:  # a damaged deflate stream
        compressed = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        stream = compressed.compress(files[victim]) + compressed.flush()
        _corrupt(archive, stream)
    mirror = tmp_path / "work" / "mirror"
    family = tmp_path / "datasets" / "JAC2024.yaml"
    code = jacobs.main([str(archive), "--family-file", str(family), "--mirror", str(mirror)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"deposit/{victim}: cannot be read from the archive (" in err
    assert "nothing was written" in err
    assert not (tmp_path / "work").exists()  # no staging folder, no copied file, no folder
    assert not (tmp_path / "datasets" / "JAC2024.lock").exists()


def test_a_failed_import_keeps_the_previous_one_whole(tmp_path, capsys):
    import zipfile

    from uqval.pipeline import jacobs

    archive, files, victim = _jacobs_archive(tmp_path, zipfile.ZIP_STORED)
    family = tmp_path / "datasets" / "JAC2024.yaml"
    mirror = tmp_path / "mirror"
    lock = jacobs.install_archive(archive, family, mirror)
    before = {p: p.read_bytes() for p in mirror.rglob("*") if p.is_file()}
    locked = lock.read_text()
    assert yaml_sha(locked) == sha(archive.read_bytes())  # the archive's bytes as read
    _corrupt(archive, files[victim])
    assert jacobs.main([str(archive), "--family-file", str(family), "--mirror",
                        str(mirror)]) == 2
    assert {p: p.read_bytes() for p in mirror.rglob("*") if p.is_file()} == before
    assert not list(mirror.glob(".jacobs-import-*")) and lock.read_text() == locked


def yaml_sha(text: str) -> str:
    import yaml

    return yaml.safe_load(text)["archive"]["sha256"]


# --- Medium: pipeline settings without an upper bound ----------------------------------------
# Before the fix n_bins, n_perm, perms_per_job, download.attempts (and most counts) had no
# maximum: `n_bins: 100000000` passed the dry run and a job then failed with a traceback.

SCHEMA = ROOT / "config" / "schema" / "config.schema.yaml"


def _numeric_nodes(node, path=""):
    if isinstance(node, dict):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if any(k in ("integer", "number") for k in kinds):
            yield path, node
        for key, value in node.items():
            yield from _numeric_nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _numeric_nodes(value, f"{path}/{i}")


def test_every_numeric_setting_has_a_maximum_and_every_list_a_length():
    import yaml

    schema = yaml.safe_load(SCHEMA.read_text())
    settings = [(p, n) for p, n in _numeric_nodes(schema) if not p.startswith("/properties/datasets")]
    assert len(settings) > 60
    unbounded = [p for p, n in settings if "maximum" not in n and "exclusiveMaximum" not in n]
    assert unbounded == []
    lists = [p.rpartition("/items")[0] for p, _ in settings if p.endswith("/items")]
    assert lists
    for path in lists:
        node = schema
        for key in path.strip("/").split("/"):
            node = node[int(key)] if isinstance(node, list) else node[key]
        assert "maxItems" in node, path


@pytest.mark.parametrize(("section", "key", "value"), [
    (("analysis", "adaptivity"), "n_bins", 100_000_000),
    (("analysis", "adaptivity"), "n_perm", 10**12),
    (("analysis", "adaptivity"), "perms_per_job", 10**12),
    (("download",), "attempts", 10**9),
    (("analysis", "validate"), "n_bins", 100_000_000),
    (("analysis",), "seed", 2**64),
    (("analysis", "simref", "large_sets"), "max_points", 1e300),
])
def test_huge_settings_are_refused_at_load(section, key, value):
    import copy

    import jsonschema
    import yaml

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema = yaml.safe_load(SCHEMA.read_text())
    jsonschema.validate(config, schema)
    bad = copy.deepcopy(config)
    node = bad
    for name in section:
        node = node[name]
    node[key] = value
    with pytest.raises(jsonschema.ValidationError, match="greater than the maximum"):
        jsonschema.validate(bad, schema)


@pytest.mark.workflow
def test_a_dry_run_stops_on_a_setting_above_its_maximum(tmp_path):
    import subprocess
    import sys

    (tmp_path / "big.yaml").write_text("analysis:\n  adaptivity:\n    n_bins: 100000000\n")
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "1", "-n",
         "--configfile", "big.yaml"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert res.returncode != 0
    assert "100000000 is greater than the maximum of 1000" in res.stdout
