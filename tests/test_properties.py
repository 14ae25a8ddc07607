"""Property-based tests (hypothesis): random dataset YAML, expressions and CSV contents fed to
the registry, the expression evaluator and prepare. Every outcome is a result or uqval's own
error (UqvalError; ValueError for the core expression API), never another exception, and no
file appears outside the folder the run was given.

Examples are derandomised (the same on every run) and few enough for the file to run in
seconds; the deadline is generous and only guards against pathological slowness.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

import numpy as np
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import DATASET_SCHEMA, sha256_bytes
from uqval._internal.errors import UqvalError
from uqval.pipeline.expression import evaluate
from uqval.pipeline.fetch import fetch_file
from uqval.pipeline.prepare import prepare_dataset
from uqval.pipeline.registry import Registry, load_registry

SETTINGS = settings(
    max_examples=60,
    deadline=timedelta(seconds=10),
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --- strategies --------------------------------------------------------------------------------

SEGMENT = st.sampled_from(["a", "A", "b.csv", ".", "..", "", "x y", "c\\d", "~", "RAS2023", ".hidden"])
PATHS = st.one_of(
    st.lists(SEGMENT, min_size=1, max_size=5).map("/".join),
    st.builds(lambda p: "/" + p, st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)),
    st.text(max_size=30),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.floats(allow_nan=True),
                    st.text(max_size=20))
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=15,
)
SIMPLE = st.sampled_from(["E", "uE", "sqrt(uE)", "E - x", "2 * uE", "abs(E) / 3"])
NAMES = st.sampled_from(["E", "uE", "x", "sqrt", "log", "qhat_95", "nope", "__class__"])
EXPRESSIONS = st.recursive(
    st.one_of(NAMES, st.floats(allow_nan=False, allow_infinity=False).map(repr), st.integers(0, 10**30).map(str)),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", "%", "//", ".", ",", " if "]), inner).map("".join),
        st.tuples(st.sampled_from(["sqrt", "abs", "log", "exp", "open", "-", "(", "["]), inner).map(
            lambda t: f"{t[0]}({t[1]})"),
    ),
    max_leaves=12,
)


@st.composite
def family_docs(draw):
    """A valid family document with 0 to 3 random mutations: unsafe paths, random expressions,
    source options and filters, invalid names or checksums, or a random value anywhere."""
    source = {"file": "T/a.csv"}
    entry = {"id": "d", "sources": [source], "quantities": {"E": draw(SIMPLE), "uE": draw(SIMPLE)}}
    doc = {"family": "T", "citation": "x", "files": [{"path": "T/a.csv", "sha256": "0" * 64}],
           "datasets": [entry]}
    kinds = ["path", "source", "options", "E", "uE", "intervals", "filters", "family", "sha", "junk", "no_uE"]
    for kind in draw(st.lists(st.sampled_from(kinds), max_size=3)):
        if kind == "path":
            doc["files"][0]["path"] = source["file"] = draw(PATHS)
        elif kind == "source":
            source["file"] = draw(PATHS)
        elif kind == "options":
            source.update(draw(st.fixed_dictionaries({}, optional={
                "header": st.booleans(), "names": st.lists(st.sampled_from(["E", "uE", "x"]), max_size=3),
                "format": st.sampled_from(["csv", "key_value"]),
                "pattern": st.sampled_from([r"(\w+)=(\S+)", r"((a+)+)(b)", r"(x)(", r"(\w+)=((?:\d|\d)*)", "(a)(b)"]),
                "key_template": st.sampled_from(["q_{key}", "{key.__class__}", "{0}"]),
            })))
        elif kind in ("E", "uE"):
            entry["quantities"][kind] = draw(EXPRESSIONS)
        elif kind == "intervals":
            entry["quantities"]["intervals"] = draw(
                st.dictionaries(st.sampled_from(["95", "68", "x", "1.5"]), SIMPLE | EXPRESSIONS, max_size=2))
        elif kind == "filters":
            entry["filters"] = draw(st.fixed_dictionaries({}, optional={
                "nonpositive_uncertainty": st.booleans(), "min_uE_rel_sd": st.floats(-1, 10),
                "zero_error": st.booleans()}))
        elif kind == "family":
            doc["family"] = draw(st.sampled_from(["T-1", "", "U", "T/..", 5]))
        elif kind == "sha":
            doc["files"][0]["sha256"] = draw(st.sampled_from([None, "xyz", "0" * 63]))
        elif kind == "junk":
            doc[draw(st.sampled_from(["family", "citation", "files", "datasets", "defaults", "extra"]))] = draw(JSONISH)
        else:
            del entry["quantities"]["uE"]
    return doc


def _files_outside(root: Path, allowed: Path) -> set[str]:
    return {str(p) for p in root.rglob("*") if allowed not in p.parents and p != allowed}


# --- properties --------------------------------------------------------------------------------


@SETTINGS
@given(doc=family_docs())
def test_registry_accepts_or_raises_config_error(tmp_path, doc):
    with tempfile.TemporaryDirectory(dir=tmp_path) as d:
        ddir = Path(d) / "datasets"
        ddir.mkdir()
        (ddir / "F.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
        try:
            reg = load_registry(ddir, DATASET_SCHEMA)
        except UqvalError as exc:
            event("refused")
            assert str(exc).startswith(str(ddir / "F.yaml")) and len(str(exc)) < 3000
        else:
            event("accepted")
            assert isinstance(reg, Registry)
            for f in reg.files.values():
                assert ".." not in f.path.split("/") and not f.path.startswith("/") and "\\" not in f.path


@SETTINGS
@given(text=st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_registry_on_arbitrary_text(tmp_path, text):
    with tempfile.TemporaryDirectory(dir=tmp_path) as d:
        ddir = Path(d)
        (ddir / "F.yaml").write_text(text, encoding="utf-8", errors="surrogateescape")
        try:
            load_registry(ddir, DATASET_SCHEMA)
        except UqvalError:
            pass


@SETTINGS
@given(expr=st.one_of(EXPRESSIONS, st.text(max_size=60)))
def test_expression_evaluates_or_raises_value_error(expr):
    namespace = {"E": np.array([1.0, -2.0, 0.0]), "uE": np.array([0.5, 1.0, 2.0]), "x": 3.0, "qhat_95": 1.5}
    try:
        out = evaluate(expr, namespace)
    except ValueError as exc:
        event("refused")
        assert "expression" in str(exc)
    else:
        event("evaluated")
        assert out.dtype == float and out.ndim <= 1


@SETTINGS
@given(path=PATHS, mirror_content=st.binary(max_size=50))
def test_fetch_never_writes_outside_the_data_root(tmp_path, path, mirror_content):
    """Whatever path a registry file names, fetching from a mirror writes only under the data
    root (the probe's '..' segments would land inside the temporary folder if they escaped)."""
    with tempfile.TemporaryDirectory(dir=tmp_path) as d:
        base = Path(d)
        deep = base / "w1" / "w2" / "w3" / "w4" / "w5"
        mirror, data_root = deep / "mirror", deep / "data" / "raw"
        mirror.mkdir(parents=True)
        data_root.mkdir(parents=True)
        ddir = base / "datasets"
        ddir.mkdir()
        doc = {"family": "T", "citation": "x", "files": [{"path": path, "sha256": sha256_bytes(mirror_content)}],
               "datasets": [{"id": "d", "sources": [{"file": path}], "quantities": {"E": "E", "uE": "uE"}}]}
        (ddir / "T.yaml").write_text(yaml.safe_dump(doc))
        before = _files_outside(base, data_root)
        try:
            reg = load_registry(ddir, DATASET_SCHEMA)
            entry = reg.files[path]
            target = mirror / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(mirror_content)
            before = _files_outside(base, data_root)
            fetch_file(entry, data_root / path, mirrors=[mirror], data_root=data_root, attempts=1)
            event("fetched")
        except UqvalError:
            event("refused")
        assert _files_outside(base, data_root) == before


NUMBERS = st.floats(0.01, 100).map(repr) | st.floats(-100, 100).map(repr)
CELLS = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.sampled_from(["", "abc", "1e200",
                  "1e-300", "0", "-1", '"1,2"', "nan", "inf", "1e400", " 3", "\x00", "é"]))


@st.composite
def csv_texts(draw):
    """Raw text, noisy tables, or clean numeric tables with an occasional special cell."""
    mode = draw(st.integers(0, 3))
    if mode == 0:
        return draw(st.text(max_size=200))
    if mode == 1:
        header = draw(st.lists(st.sampled_from(["E", "uE", "x", "E", "", "a b"]), min_size=1, max_size=4))
        cell = st.one_of(NUMBERS, NUMBERS, CELLS)
        row = st.one_of(st.lists(cell, min_size=len(header), max_size=len(header)), st.lists(cell, max_size=5))
    else:
        header = ["E", "uE", "x"]
        cell = st.one_of(*[NUMBERS] * 12, CELLS)
        row = st.lists(cell, min_size=3, max_size=3)
    rows = draw(st.lists(row, min_size=0 if mode == 1 else 4, max_size=8))
    return "\n".join([",".join(header)] + [",".join(r) for r in rows]) + draw(st.sampled_from(["", "\n", "\r\n"]))


@SETTINGS
@given(text=csv_texts(), quantities=st.sampled_from([
    {"E": "E", "uE": "uE"}, {"E": "E - x", "uE": "sqrt(uE)"}, {"E": "E", "intervals": {"95": "2 * uE"}},
    {"E": "E", "uE": "uE", "V": "x", "intervals": {"68": "uE"}}]),
    filters=st.sampled_from([{}, {"nonpositive_uncertainty": False}, {"min_uE_rel_sd": 1e-6, "zero_error": True}]))
def test_prepare_returns_a_table_or_data_error(tmp_path, text, quantities, filters):
    with tempfile.TemporaryDirectory(dir=tmp_path) as d:
        base = Path(d)
        raw = base / "raw"
        (raw / "T").mkdir(parents=True)
        data = text.encode("utf-8", errors="surrogateescape")
        (raw / "T" / "a.csv").write_bytes(data)
        ddir = base / "datasets"
        ddir.mkdir()
        doc = {"family": "T", "citation": "x", "files": [{"path": "T/a.csv", "sha256": sha256_bytes(data)}],
               "datasets": [{"id": "d", "sources": [{"file": "T/a.csv"}], "quantities": quantities,
                             "filters": filters}]}
        (ddir / "T.yaml").write_text(yaml.safe_dump(doc))
        spec = load_registry(ddir, DATASET_SCHEMA).get("d")
        try:
            out = prepare_dataset(spec, raw)
        except UqvalError as exc:
            event("refused")
            assert len(str(exc)) < 3000
        else:
            event("prepared")
            t = out.table
            assert len(t) >= 1 and np.isfinite(t.drop(columns="row").to_numpy()).all()
            u_cols = [c for c in t.columns if c == "uE" or c.startswith("U_")]
            assert (t[u_cols].to_numpy() > 0).all()
            with np.errstate(all="ignore"):
                assert np.isfinite(np.square(t["E"])).all()
        assert sorted(p.name for p in base.rglob("*")) == sorted(["raw", "T", "a.csv", "datasets", "T.yaml"])
