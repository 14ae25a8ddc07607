"""Hostile and careless inputs (issue #20): each probe gets a clear error naming the file, field
or argument, or the correct behaviour, and nothing is written where it should not be."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import DATASET_SCHEMA, copy_project, sha256_bytes
from uqval._internal.atomic import remove_stale_temporaries, write_atomic, write_json
from uqval._internal.errors import ConfigError, DataError, FetchError
from uqval.calibration.average import (
    average_calibration,
    calibration_tests,
    decimation,
    remove_largest_uncertainties,
)
from uqval.papers.adaptivity.random_order import rank_correlations
from uqval.papers.ucc.literature import curves_for_plot, dataset_gains
from uqval.pipeline.expression import evaluate
from uqval.pipeline.fetch import fetch_file
from uqval.pipeline.prepare import check_enough_rows, prepare_dataset
from uqval.pipeline.registry import RegisteredFile, load_registry, resolve_under
from uqval.validation.flowchart import validate_intervals, validate_variance

CSV = b"E,uE\n0.1,0.2\n-0.3,0.4\n0.5,0.6\n-0.7,0.8\n"
EVIL = "EVIL/../../../.venv/lib/python3.11/site-packages/x.pth"
ALIAS = "PROBE/../RAS2023/logP_150k_LS-GCN_test.csv"


def tree(root: Path) -> set[str]:
    """Every path under ``root`` (to check that a refused input wrote nothing)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def family(path: str = "T/a.csv", sha: str | None = None, name: str = "T", **dataset) -> dict:
    entry = {"id": f"{name.lower()}_d", "sources": [{"file": path}], "quantities": {"E": "E", "uE": "uE"}}
    entry.update(dataset)
    return {"family": name, "citation": "x", "files": [{"path": path, "sha256": sha or sha256_bytes(CSV)}],
            "datasets": [entry]}


def write_registry(tmp_path: Path, *docs: dict | str) -> Path:
    ddir = tmp_path / "datasets"
    ddir.mkdir(exist_ok=True)
    for i, doc in enumerate(docs):
        text = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False)
        (ddir / f"F{i}.yaml").write_text(text)
    return ddir


# --- paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize("probe", [EVIL, ALIAS])
def test_traversal_paths_are_refused_and_nothing_is_written(tmp_path, probe):
    mirror = tmp_path / "mirror"
    (mirror / "EVIL").mkdir(parents=True)
    ddir = write_registry(tmp_path, family(probe))
    before = tree(tmp_path)
    with pytest.raises(ConfigError) as info:
        load_registry(ddir, DATASET_SCHEMA)
    msg = str(info.value)
    assert msg.startswith(f"{ddir / 'F0.yaml'}: files[0].path: path '{probe}' is refused: '.' and '..' segments")
    # The code check also refuses it when a RegisteredFile is built without the schema.
    with pytest.raises(ConfigError, match=r"files\[\]\.path: path .* '\.' and '\.\.' segments"):
        fetch_file(RegisteredFile(probe, sha256_bytes(CSV), None, "T"), tmp_path / "data/raw" / probe,
                   mirrors=[mirror], data_root=tmp_path / "data/raw")
    assert tree(tmp_path) == before


@pytest.mark.parametrize(
    "path, reason",
    [("/etc/passwd", "absolute"), ("C:/x.csv", "absolute"), ("A\\b.csv", "backslash"),
     ("A//b.csv", "empty path segments"), ("A/b.csv/", "empty path segments"), ("./a.csv", "'..' segments"),
     ("A/./b.csv", "'..' segments"), ("..", "'..' segments"), ("", "non-empty")],
)
def test_unsafe_relative_paths_are_refused_by_the_code_check(tmp_path, path, reason):
    with pytest.raises(ConfigError, match=re.escape(reason)):
        resolve_under(tmp_path, path, "F.yaml: files[0].path")


def test_symlink_leading_outside_the_root_is_refused(tmp_path):
    root = tmp_path / "raw"
    (root / "T").mkdir(parents=True)
    (root / "T" / "link.csv").symlink_to(tmp_path / "secret.csv")
    with pytest.raises(ConfigError, match="leads outside"):
        resolve_under(root, "T/link.csv")


def test_differently_spelt_duplicate_paths_name_both_files(tmp_path):
    ddir = write_registry(tmp_path, family("RAS/a.csv", name="A"), family("ras/A.csv", name="B"))
    with pytest.raises(ConfigError, match=r"F1\.yaml: file 'ras/A.csv' is already registered as "
                                          r"'RAS/a.csv' in .*F0\.yaml"):
        load_registry(ddir, DATASET_SCHEMA)


def test_fetch_destination_must_be_the_registered_path_under_the_data_root(tmp_path):
    entry = RegisteredFile("T/a.csv", sha256_bytes(CSV), None, "T")
    with pytest.raises(ConfigError, match="is not"):
        fetch_file(entry, tmp_path / "elsewhere.csv", data_root=tmp_path / "raw")


# --- YAML --------------------------------------------------------------------------------------

BOMB = textwrap.dedent("""\
    family: BOMB
    citation: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    files: [{path: a.csv, sha256: null}]
    datasets: [{id: d, sources: [{file: a.csv}], quantities: {E: e, uE: u}, title: *i}]
""")


def test_alias_bomb_is_refused_with_a_short_message(tmp_path):
    assert len(BOMB) < 700  # the size class of the 645-byte probe
    ddir = write_registry(tmp_path, BOMB)
    with pytest.raises(ConfigError) as info:
        load_registry(ddir, DATASET_SCHEMA)
    msg = str(info.value)
    assert "F0.yaml: not valid YAML: YAML anchors and aliases" in msg and "line 2" in msg
    assert len(msg) < 500


def test_alias_bomb_is_skipped_by_name_and_stops_only_what_needs_it(tmp_path):
    """A user's bomb file is named in one warning line and skipped: a dry run of the other
    datasets goes on; asking for a dataset it might define stops, naming the skipped file."""
    proj = tmp_path / "proj"
    proj.mkdir()
    copy_project(proj, ["Snakefile", "config", "workflow", "scripts", "src", "envs"])
    (proj / "bomb").mkdir()
    (proj / "bomb" / "BOMB.yaml").write_text(BOMB)

    def dry_run(*config: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--config",
                               "datasets_dir=bomb", *config],
                              cwd=proj, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)

    res = dry_run()
    assert res.returncode == 0, res.stdout[-2000:]
    warnings = [ln for ln in res.stdout.splitlines() if ln.startswith("Warning: skipped bomb/BOMB.yaml")]
    assert len(warnings) == 1 and "not valid YAML: YAML anchors and aliases" in warnings[0]
    assert len(warnings[0]) < 500 and "Traceback" not in res.stdout
    res = dry_run("datasets=from_the_bomb")
    assert res.returncode != 0
    assert "Unknown dataset id 'from_the_bomb'" in res.stdout and "Skipped as invalid (their reasons are printed first): bomb/BOMB.yaml." in res.stdout
    assert "Traceback" not in res.stdout and 'File "' not in res.stdout


@pytest.mark.parametrize(
    "text, message",
    [
        ("family: A\nfamily: B\n", r"(?s)duplicate key 'family'.*line 2"),
        ("family: A\ncitation: x\nfiles: []\ndatasets: [{id: d, quantities: {intervals: {95: u}}}]\n",
         r"key '95' is not text; quote it"),
        ("[" * 100_000, "nested too deeply"),
        ("family: !!python/object/apply:os.system [echo hi]\n", "not valid YAML"),
        ("x: " + "a" * (1 << 20) + "\n", "more than the 1048576 allowed"),
    ],
)
def test_yaml_restrictions(tmp_path, text, message):
    ddir = write_registry(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert str(info.value).startswith(str(ddir / "F0.yaml")) and len(str(info.value)) < 1000


def test_long_instances_are_truncated_in_schema_errors(tmp_path):
    doc = family()
    doc["citation"] = ["x" * 100_000]
    ddir = write_registry(tmp_path, doc)
    with pytest.raises(ConfigError, match=r"at 'citation': \['xxx.*more characters\)") as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert len(str(info.value)) < 1000


def test_family_names_are_unique_across_files(tmp_path):
    other = family("U/b.csv", name="T")
    other["datasets"][0]["id"] = "other"
    ddir = write_registry(tmp_path, family(), other)
    with pytest.raises(ConfigError, match=r"F1\.yaml: family 'T' is already defined in .*F0\.yaml"):
        load_registry(ddir, DATASET_SCHEMA)


def test_dataset_ids_are_unique_across_files(tmp_path):
    other = family("U/b.csv", name="U")
    other["datasets"][0]["id"] = "t_d"
    ddir = write_registry(tmp_path, family(), other)
    with pytest.raises(ConfigError, match=r"F1\.yaml: dataset id 't_d' is already defined in .*F0\.yaml"):
        load_registry(ddir, DATASET_SCHEMA)


# --- expressions -------------------------------------------------------------------------------


def _balanced(n: int) -> str:
    """A sum of n terms E written as a balanced tree: shallow (log2 n levels) but wide."""
    return "E" if n == 1 else f"({_balanced(n // 2)}+{_balanced(n // 2)})"


BALANCED_128 = _balanced(128)


@pytest.mark.parametrize(
    "quantities, message",
    [
        ({"E": "+".join(["E"] * 30_000), "uE": "uE"}, r"does not match the dataset schema[\s\S]*quantities/E': 'E\+E[\s\S]*more characters\) is too long"),
        ({"E": "E", "uE": "sqrt"}, r"dataset 't_d', quantities\.uE: expression 'sqrt': 'sqrt' is a function"),
        ({"E": "E", "uE": "-" * 150 + "uE"}, r"dataset 't_d', quantities\.uE: .*nested too deeply"),
        ({"E": "+".join(["E"] * 300), "uE": "uE"}, r"dataset 't_d', quantities\.E: .*nested too deeply"),
        ({"E": BALANCED_128, "uE": "uE"}, r"dataset 't_d', quantities\.E: .*more than 500 elements"),
        ({"E": "E.real", "uE": "uE"}, r"dataset 't_d', quantities\.E: .*unsupported element 'E\.real'"),
        ({"E": "E", "uE": "sqrt(uE, 2)"}, r"dataset 't_d', quantities\.uE: .*takes exactly one argument"),
    ],
)
def test_bad_expressions_are_refused_at_load_time(tmp_path, quantities, message):
    ddir = write_registry(tmp_path, family(quantities=quantities))
    with pytest.raises(ConfigError, match=r"F0\.yaml: " + message):
        load_registry(ddir, DATASET_SCHEMA)


def test_unknown_name_lists_the_available_columns(tmp_path):
    raw = tmp_path / "raw"
    (raw / "T").mkdir(parents=True)
    (raw / "T" / "a.csv").write_bytes(CSV)
    ddir = write_registry(tmp_path, family(quantities={"E": "E", "uE": "sigma"}))
    with pytest.raises(DataError, match=r"uE = 'sigma': column\(s\) 'sigma'\s+columns available: a\.csv: E, uE"):
        prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("t_d"), raw)
    with pytest.raises(ValueError, match=r"unknown name 'sigma' \(available: E, uE\)"):
        evaluate("sigma", {"E": np.ones(2), "uE": np.ones(2)})


# --- key_value patterns ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, message",
    [
        (r"(\w+)=((?:\d+)+)", "repeats a repeated element"),
        (r"(\w+)=((?:a|ab)*)", "repeats an alternation"),
        (r"(\w+=(", "not a valid regular expression"),
        (r"(\w+)=", "needs exactly two"),
        (r"(\w*)\s*\s*\s*=\s*(\d+)", "repetition operators"),
    ],
)
def test_key_value_patterns_are_screened(tmp_path, pattern, message):
    doc = family(sources=[{"file": "T/a.csv"}, {"file": "T/a.csv", "format": "key_value", "pattern": pattern}])
    ddir = write_registry(tmp_path, doc)
    with pytest.raises(ConfigError, match=r"F0\.yaml: dataset 't_d', sources\[1\]\.pattern: .*" + re.escape(message)):
        load_registry(ddir, DATASET_SCHEMA)


def test_key_value_pattern_length_is_bounded(tmp_path):
    doc = family(sources=[{"file": "T/a.csv", "format": "key_value", "pattern": "(a)(b)" + "c" * 300}])
    with pytest.raises(ConfigError, match=r"(?s)sources/0/pattern.*more characters\) is too long"):
        load_registry(write_registry(tmp_path, doc), DATASET_SCHEMA)


@pytest.mark.parametrize(
    "text, message",
    [("k=" + "1" * 2000 + "\n", "line 1 is longer than 1000"), ("a=1\na=2\n", "defined twice"),
     ("a=+-\n", "line 1: the value matched by the pattern is not a number"), ("nothing here\n", "no key/value pair")],
)
def test_key_value_file_problems_name_file_and_line(tmp_path, text, message):
    raw = tmp_path / "raw"
    (raw / "T").mkdir(parents=True)
    (raw / "T" / "a.csv").write_bytes(CSV)
    (raw / "T" / "k.txt").write_text(text)
    doc = family(sources=[{"file": "T/a.csv"}, {"file": "T/k.txt", "format": "key_value"}])
    doc["files"].append({"path": "T/k.txt", "sha256": None})
    spec = load_registry(write_registry(tmp_path, doc), DATASET_SCHEMA).get("t_d")
    with pytest.raises(DataError, match=r"k\.txt: .*" + message):
        prepare_dataset(spec, raw)


# --- data values -------------------------------------------------------------------------------


def prepare_text(tmp_path: Path, text: str, **dataset):
    raw = tmp_path / "raw"
    (raw / "T").mkdir(parents=True, exist_ok=True)
    (raw / "T" / "a.csv").write_text(text)
    ddir = write_registry(tmp_path, family(sha=sha256_bytes(text.encode()), **dataset))
    return prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("t_d"), raw)


@pytest.mark.parametrize(
    "text, message",
    [
        ("E,uE\n0.1,0.2\n1e200,0.4\n0.5,0.6\n", r"E = 'E' .*square .* data row\(s\) 2;"),
        ("E,uE\n0.1,0.2\n0.3,0.4\n0.5,1e-300\n", r"uE = 'uE' .*square .* data row\(s\) 3;"),
        ("E,uE\n0.1,1e-160\n0.3,0.4\n0.5,0.6\n", r"E/uE = '\(E\) / \(uE\)' .*data row\(s\) 1;"),
    ],
)
def test_overflowing_or_underflowing_values_name_column_and_row(tmp_path, text, message):
    with pytest.raises(DataError, match=r"dataset 't_d' \(.*F0\.yaml\): " + message):
        prepare_text(tmp_path, text)


def test_duplicate_column_names_are_refused(tmp_path):
    with pytest.raises(DataError, match=r"a\.csv: duplicate column name\(s\) in the header line: E"):
        prepare_text(tmp_path, "E,uE,E\n0.1,0.2,0.3\n")


def test_duplicate_names_option_is_refused(tmp_path):
    doc = family(sources=[{"file": "T/a.csv", "names": ["E", "E"]}])
    with pytest.raises(ConfigError, match=r"sources\[0\]\.names: duplicate column name\(s\) \['E'\]"):
        load_registry(write_registry(tmp_path, doc), DATASET_SCHEMA)


def test_nonpositive_uncertainty_false_refuses_such_rows(tmp_path):
    text = "E,uE\n0.1,0.2\n0.3,0\n0.5,-1\n0.7,0.8\n"
    with pytest.raises(DataError, match=r"uE <= 0 in data row\(s\) 2, 3, and filters\.nonpositive_uncertainty is false"):
        prepare_text(tmp_path, text, filters={"nonpositive_uncertainty": False})


def test_nonpositive_uncertainty_false_keeps_valid_data(tmp_path):
    out = prepare_text(tmp_path, CSV.decode(), filters={"nonpositive_uncertainty": False})
    assert out.report["M"] == 4 and out.report["filters"] == []


def test_too_few_rows_stop_after_preparation(tmp_path):
    out = prepare_text(tmp_path, "E,uE\n0.1,0.2\n0.3,0.4\n")
    with pytest.raises(DataError, match=r"dataset 't_d' .*M = 2 row\(s\) after filtering .*at least 60 are needed"):
        check_enough_rows(out)


# --- integrity ---------------------------------------------------------------------------------


def test_prepare_verifies_the_raw_digest(tmp_path):
    raw = tmp_path / "raw"
    (raw / "T").mkdir(parents=True)
    (raw / "T" / "a.csv").write_bytes(CSV + b"9,9\n")  # modified after the fetch
    spec = load_registry(write_registry(tmp_path, family()), DATASET_SCHEMA).get("t_d")
    with pytest.raises(DataError, match=r"raw file .*T/a\.csv no longer matches the SHA-256 pinned in .*F0\.yaml"):
        prepare_dataset(spec, raw)


@pytest.fixture
def mirrors(tmp_path):
    bad, good = tmp_path / "bad", tmp_path / "good"
    for m, content in ((bad, b"corrupt\n"), (good, CSV)):
        (m / "T").mkdir(parents=True)
        (m / "T" / "a.csv").write_bytes(content)
    return bad, good


def test_corrupt_first_mirror_falls_back_to_the_next(tmp_path, mirrors):
    bad, good = mirrors
    dest = tmp_path / "raw" / "T" / "a.csv"
    result = fetch_file(RegisteredFile("T/a.csv", sha256_bytes(CSV), None, "T"), dest, mirrors=[bad, good])
    assert result.source == f"mirror:{good}" and dest.read_bytes() == CSV
    assert sorted(p.name for p in dest.parent.iterdir()) == ["a.csv"]


def test_corrupt_mirror_falls_back_to_the_url(tmp_path, mirrors):
    bad, good = mirrors
    url = (good / "T" / "a.csv").as_uri()
    dest = tmp_path / "raw" / "T" / "a.csv"
    result = fetch_file(RegisteredFile("T/a.csv", sha256_bytes(CSV), url, "T"), dest, mirrors=[bad])
    assert result.source == url and dest.read_bytes() == CSV


def test_all_sources_corrupt_lists_each(tmp_path, mirrors):
    bad, _ = mirrors
    dest = tmp_path / "raw" / "T" / "a.csv"
    url = (bad / "T" / "a.csv").as_uri()
    with pytest.raises(FetchError) as info:
        fetch_file(RegisteredFile("T/a.csv", sha256_bytes(CSV), url, "T"), dest, mirrors=[bad], attempts=1)
    msg = str(info.value)
    assert f"mirror {bad}: checksum mismatch" in msg and f"download {url}: checksum mismatch" in msg
    assert not dest.parent.exists() or list(dest.parent.iterdir()) == []


WRITER = """
import sys, time
from uqval._internal.atomic import write_atomic
def slow(fh):
    fh.write("partial")
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
write_atomic(sys.argv[1], slow)
"""


def _start_writer(dest: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(dest)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    return proc


def test_sigterm_leaves_no_temporary_file(tmp_path):
    proc = _start_writer(tmp_path / "out.csv")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []


def test_sigkill_temporary_is_removed_at_the_next_start(tmp_path):
    proc = _start_writer(tmp_path / "sub" / "out.csv")
    proc.kill()
    proc.wait(timeout=30)
    left = list((tmp_path / "sub").iterdir())
    assert len(left) == 1 and left[0].name.startswith(".out.csv.") and left[0].name.endswith(".tmp")
    assert remove_stale_temporaries(tmp_path) == left
    assert list((tmp_path / "sub").iterdir()) == []


def test_next_write_in_the_directory_removes_stale_temporaries(tmp_path):
    proc = _start_writer(tmp_path / "out.csv")
    proc.kill()
    proc.wait(timeout=30)
    write_atomic(tmp_path / "other.csv", lambda fh: fh.write("x"))
    assert [p.name for p in tmp_path.iterdir()] == ["other.csv"]


def test_temporaries_of_running_writers_are_kept(tmp_path):
    proc = _start_writer(tmp_path / "out.csv")
    try:
        assert remove_stale_temporaries(tmp_path) == []
        assert len(list(tmp_path.iterdir())) == 1
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_json_outputs_hold_null_for_non_finite_numbers(tmp_path):
    write_json({"a": float("nan"), "b": [np.inf, -np.inf, np.float64(2.5)], "c": np.array([1.0, np.nan])},
               tmp_path / "x.json")
    text = (tmp_path / "x.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == {
        "a": None, "b": [None, None, 2.5], "c": [1.0, None]}


# --- core API ----------------------------------------------------------------------------------


def test_rank_correlations_of_one_and_two_columns():
    assert rank_correlations({"a": [3.0, 1.0, 2.0]}).to_numpy().tolist() == [[1.0]]
    # ranks (3,1,2) and (1,2,3): d = (2,-1,-1), rho = 1 - 6 * 6 / (3 * 8) = -0.5
    two = rank_correlations({"a": [3.0, 1.0, 2.0], "b": [1.0, 2.0, 3.0]})
    assert two.loc["a", "b"] == pytest.approx(-0.5) and two.loc["b", "a"] == pytest.approx(-0.5)
    assert two.loc["a", "a"] == 1.0 and list(two.index) == ["a", "b"]
    with pytest.raises(ValueError, match="columns is empty"):
        rank_correlations({})
    with pytest.raises(ValueError, match="different lengths"):
        rank_correlations({"a": [1, 2, 3], "b": [1, 2]})


@pytest.mark.parametrize("M", [1, 2, 3])
def test_too_few_points_for_the_calibration_tests(M):
    E, uE = np.linspace(-1, 1, M), np.ones(M)
    with pytest.raises(ValueError, match=rf"M = {M} point\(s\); .*at least 4"):
        calibration_tests(E, uE, 200, 1)
    with pytest.raises(ValueError, match=rf"M = {M} point\(s\)"):
        average_calibration(E, uE, 200, 1)


def test_four_points_give_finite_zeta_scores():
    tests = calibration_tests(np.array([-1.0, 0.5, 1.5, -0.2]), np.ones(4), 500, 3)
    assert all(np.isfinite(t.zeta) for t in tests)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"max_percent": 150}, "max_percent must lie in"), ({"max_percent": 100}, "max_percent must lie in"),
     ({"max_percent": -5}, "max_percent must lie in"), ({"step": 0}, "step must be a positive"),
     ({"step": -1}, "step must be a positive"), ({"max_percent": 99.9, "step": 1e-9}, "steps; at most")],
)
def test_decimation_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        decimation(np.linspace(-1, 1, 20), np.ones(20), **kwargs)


def test_decimation_must_keep_a_point():
    with pytest.raises(ValueError, match="removes all M = 5 points"):
        decimation(np.linspace(-1, 1, 5), np.ones(5), max_percent=99.99999999999, step=0.1)


@pytest.mark.parametrize("fraction, message", [(-0.1, "trimmed_fraction must lie"), (1.0, "trimmed_fraction must lie"),
                                               (0.95, "leaves 2 of M = 40 points")])
def test_average_calibration_trimmed_fraction(fraction, message):
    with pytest.raises(ValueError, match=message):
        average_calibration(np.linspace(-1, 1, 40), np.ones(40), 100, 1, trimmed_fraction=fraction)
    if fraction < 0:
        with pytest.raises(ValueError, match="fraction must lie"):
            remove_largest_uncertainties(np.ones(3), np.ones(3), fraction)


def test_validate_functions_name_missing_columns():
    table = pd.DataFrame({"E": np.linspace(-1, 1, 30)})
    with pytest.raises(ValueError, match=r"validate_variance: table has no column\(s\) uE \(columns: E\)"):
        validate_variance(table, [], 100, 1)
    with pytest.raises(ValueError, match=r"validate_variance: table has no column\(s\) X_T"):
        validate_variance(table.assign(uE=1.0), ["T"], 100, 1)
    with pytest.raises(ValueError, match=r"validate_intervals: table has no column\(s\) U_95"):
        validate_intervals(table, [95.0], [])


def test_zero_bins_is_an_error_not_sqrt_m():
    table = pd.DataFrame({"E": np.linspace(-1, 1, 30), "uE": 1.0, "U_95": 2.0})
    with pytest.raises(ValueError, match="n_bins must be an integer >= 1, got 0"):
        validate_variance(table, [], 100, 1, n_bins=0)
    with pytest.raises(ValueError, match="n_bins must be an integer >= 1, got 0"):
        validate_intervals(table, [95.0], [], n_bins=0)


@pytest.mark.parametrize("columns", [{"uE": [1.0, 2.0]}, {"E": [1.0, 2.0]}])
def test_ucc_dataset_functions_name_missing_columns(columns):
    table = pd.DataFrame(columns)
    with pytest.raises(ValueError, match=r"needs a column E and a column uE or U_<P> \(columns: "):
        dataset_gains(table, 10, 1)
    with pytest.raises(ValueError, match=r"needs a column E and a column uE or U_<P>"):
        curves_for_plot(table)



def _count_checks():
    """(call, refused parameter, bad value) of the integer counts checked by checks.integer."""
    from uqval.binning import adaptive_bin_sizes, equal_width_bins
    from uqval.calibration.curves import identity_band, probabilistic_reference
    from uqval.simref.reference import simulated_references
    from uqval.simref.statistics import SimRefStatistic
    from uqval.stats.bootstrap import bca_bootstrap, bca_bootstrap_bins, bca_bootstrap_means_sets
    from uqval.stats.zscore_statistics import ZMS
    from uqval.ucc import PredictionIntervals, auucc_permutation_test, constant_band

    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 2.0, 60)
    e = u * rng.standard_normal(60)
    x = np.linspace(1.0, 2.0, 60)
    bins = [np.arange(30), np.arange(30, 60)]
    pi = PredictionIntervals.from_uncertainty(np.zeros(60), u)

    def auucc(**kwargs):
        return auucc_permutation_test(e, pi, constant_band(np.zeros(60)), n_permutations=20, **kwargs)

    return [
        (lambda: equal_width_bins(x, 0), "n_bins", "0"),
        (lambda: equal_width_bins(x, 2.5), "n_bins", "2.5"),
        (lambda: adaptive_bin_sizes(x, 0), "n_bins", "0"),
        (lambda: identity_band([0.5], 0), "n", "0"),
        (lambda: probabilistic_reference(u, rng, n_mc=0), "n_mc", "0"),
        (lambda: bca_bootstrap((e, u), ZMS, n_boot=10, n_workers=0), "n_workers", "0"),
        (lambda: bca_bootstrap((e, u), ZMS, n_boot=10, chunk_size=0), "chunk_size", "0"),
        (lambda: bca_bootstrap_means_sets([(e, u)], {"ZMS": ZMS}, n_boot=0, seed=1), "n_boot", "0"),
        (lambda: bca_bootstrap_means_sets([(e, u)], {"ZMS": ZMS}, n_boot=10, seed=1, n_workers=0),
         "n_workers", "0"),
        (lambda: bca_bootstrap_bins((e, u), ZMS, bins, n_boot=0, seed=1), "n_boot", "0"),
        (lambda: bca_bootstrap_bins((e, u), ZMS, bins, n_boot=[10, 0], seed=1), "n_boot", "0"),
        (lambda: bca_bootstrap_bins((e, u), ZMS, bins, n_boot=10, seed=1, n_workers=0),
         "n_workers", "0"),
        (lambda: simulated_references(u, ["ZMS"], "normal", 10, 1, chunk=0), "chunk", "0"),
        (lambda: SimRefStatistic("ENCE", n_bins=0), "n_bins of ENCE", "0"),
        (lambda: auucc(exceedances=0), "exceedances", "0"),
        (lambda: auucc(n_workers=0), "n_workers", "0"),
    ]


@pytest.mark.parametrize("case", range(16))
def test_counts_must_be_integers_of_at_least_one(case):
    cases = _count_checks()
    assert len(cases) == 16
    call, name, bad = cases[case]
    with pytest.raises(ValueError, match=rf"^{name} must be an integer >= 1, got {re.escape(bad)}$"):
        call()


def test_binned_simref_statistics_need_n_bins_and_bins_one_n_boot_each():
    from uqval.simref.statistics import SimRefStatistic
    from uqval.stats.bootstrap import bca_bootstrap_bins
    from uqval.stats.zscore_statistics import ZMS

    with pytest.raises(ValueError, match="ENCE needs n_bins"):
        SimRefStatistic("ENCE")
    with pytest.raises(ValueError, match="one integer or one per bin, got 1 for 2 bins"):
        bca_bootstrap_bins((np.ones(4), np.ones(4)), ZMS, [np.arange(2), np.arange(2, 4)],
                           n_boot=[10], seed=1)
