"""Pages of users' datasets (uqval.pipeline.dataset_page) and the registry's local files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from uqval._internal.errors import ConfigError
from uqval.pipeline.dataset_page import interval_page, one_line_summary, pages_html
from uqval.pipeline.registry import resolve_local
from uqval.pipeline.workflow_config import effective_config, registry_dirs

REPORT = {
    "id": "iv", "title": "Intervals", "citation": "me", "config_file": "config/datasets/ME.yaml",
    "units": "eV", "M": 120, "n_raw": 121, "sources": ["../x.csv"], "filters": [],
    "local_files": {"../x.csv": "/data/x.csv"}, "source_sha256": {"../x.csv": "ab" * 32},
}


def test_one_line_summary_takes_the_first_statement():
    text = "# Title\n\n400 predictions.\n\n## On average\n\n- The uncertainties are **too small** by 1.3. Multiply.\n- b\n"
    assert one_line_summary(text) == "The uncertainties are **too small** by 1.3."
    assert one_line_summary("# T\n\nNo list here. Second.") == "No list here."


def test_interval_page_turns_checks_into_verdicts(tmp_path):
    checks = pd.DataFrame({
        "stage": ["average", "average", "adaptivity"], "conditioning": ["-", "-", "distance"],
        "test": ["PICP_68", "PICP_95", "f_v"], "value": [0.7, 0.9, 0.5], "ci_low": [0.6, 0.85, 0.4],
        "ci_high": [0.8, 0.93, 0.6], "target": [0.68, 0.95, 0.95], "passed": [True, False, False],
        "note": ["", "", ""],
    })
    page = interval_page(checks, "# Validation\n\n- **average**: fail — PICP_95\n", REPORT, tmp_path / "iv")
    assert page["stage_verdicts"] == {"average": "fail", "adaptivity: distance": "fail"}
    assert page["one_line"] == "**average**: fail — PICP_95"
    verdicts = pd.read_csv(tmp_path / "iv" / "verdicts.csv")
    assert verdicts["verdict"].tolist() == ["pass", "fail", "fail"] and "passed" not in verdicts
    html = (tmp_path / "iv" / "index.html").read_text()
    assert "ab" * 32 in html and "<strong>average</strong>" in html
    assert json.loads((tmp_path / "iv" / "page.json").read_text())["M"] == 120


def test_pages_table_links_and_escapes(tmp_path):
    page_dir = tmp_path / "results" / "datasets" / "a<b"
    page_dir.mkdir(parents=True)
    (page_dir / "page.json").write_text(json.dumps({
        "id": "a<b", "title": "T & co", "M": 7, "stage_verdicts": {"average": "pass"},
        "one_line": "`code` and <img src=x>",
    }))
    html = pages_html([page_dir / "page.json"], tmp_path / "results")
    assert "href='datasets/a&lt;b/index.html'" in html and "T &amp; co" in html
    assert "<code>code</code> and &lt;img src=x&gt;" in html and "<img" not in html
    assert "None yet" in pages_html([], tmp_path)


def test_local_file_paths_resolve_from_the_yaml_folder(tmp_path):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "data.csv").write_text("a\n1\n")
    yaml_file = tmp_path / "cfg" / "F.yaml"
    assert resolve_local(yaml_file, "../data.csv") == (tmp_path / "data.csv").resolve()
    assert resolve_local(yaml_file, str(tmp_path / "data.csv")) == (tmp_path / "data.csv").resolve()
    with pytest.raises(ConfigError, match="not found"):
        resolve_local(yaml_file, "missing.csv")
    with pytest.raises(ConfigError, match="not a regular file"):
        resolve_local(yaml_file, "..")


def test_module_config_keeps_defaults_and_drops_host_keys():
    defaults = ROOT / "config" / "config.yaml"
    schema = ROOT / "config" / "schema" / "config.schema.yaml"
    given = {"profile": "quick", "samples": ["s1"], "analysis": {"seed": 7}}
    as_module = effective_config(given, defaults, schema, as_module=True)
    assert as_module["profile"] == "quick" and "samples" not in as_module
    assert as_module["analysis"]["seed"] == 7 and as_module["analysis"]["bootstrap"]["n_boot"] == 10000
    assert "samples" in effective_config(given, defaults, schema, as_module=False)


def test_registry_dirs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert registry_dirs("/builtin", "config/datasets") == ["/builtin"]   # default, absent: fine
    with pytest.raises(ConfigError, match="'mine' not found"):
        registry_dirs("/builtin", "mine")
    (tmp_path / "mine").mkdir()
    assert registry_dirs("/builtin", "mine") == ["/builtin", "mine"]


def test_engine_then_tables_is_the_one_call_page(tmp_path):
    """Rule dataset_engine + dataset_page give the page of one variance_page call, byte for byte."""
    from uqval.pipeline.dataset_page import dataset_tables, finish_variance_page, variance_page

    rng = np.random.default_rng(5)
    x = rng.uniform(0.0, 3.0, 400)
    u = 0.1 * (1.0 + x)
    table = pd.DataFrame({"E": u * rng.standard_normal(400) * (1.0 + 0.3 * (x > 2)), "uE": u,
                          "X_x": x})
    report = {**REPORT, "M": 400, "features": {"x": "x"}, "filters": [{"rule": "E < 9", "removed": 0}]}
    later = dataset_tables(report, screening={"dataset": "d", "beta_E": 0.1, "reasons": ["<b>x</b>"]},
                           zeta=pd.DataFrame({"statistic": ["ZMS"], "verdict": ["validated"],
                                              "theta_est": [1.01]}),
                           ucc=pd.DataFrame({"dataset": ["d"], "gain": [0.2]}))
    settings = {"seed": 3, "n_boot": 100, "n_permutations": 99}
    whole = variance_page(table, report, tmp_path / "whole", extra=later, **settings)
    variance_page(table, report, tmp_path / "engine", extra=dataset_tables(report), **settings)
    known = dataset_tables(report)
    split = finish_variance_page(tmp_path / "engine", tmp_path / "split",
                                 {k: v for k, v in later.items() if k not in known})
    assert split == whole
    names = sorted(p.name for p in (tmp_path / "whole").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "split").iterdir())
    for name in names:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "split" / name).read_bytes(), name
    assert "&lt;b&gt;x&lt;/b&gt;" in (tmp_path / "split" / "index.html").read_text()


def test_insert_tables_needs_a_tables_section():
    from uqval.report.html import insert_tables

    with pytest.raises(ValueError, match="no Tables section"):
        insert_tables("<html><body>no tables</body></html>", {"t": pd.DataFrame({"a": [1]})})
