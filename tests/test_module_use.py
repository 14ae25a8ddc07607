"""uqval's workflow used as a Snakemake module by a host workflow in its own directory."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT

# Slow: Snakemake runs end to end. The fast tier is `pytest -m "not workflow"`.
pytestmark = pytest.mark.workflow

HOST_SNAKEFILE = """\
configfile: "config.yaml"


rule host_all:
    input:
        "results/datasets/index.html",
        "host.txt",


rule host_step:
    output:
        "host.txt",
    shell:
        "echo {config[host_message]} > {output}"


module uqval:
    snakefile:
        "%s"
    config:
        config


use rule * from uqval as uqval_*
"""


def test_host_workflow_validates_its_own_dataset(tmp_path):
    """`module uqval: ... config: config` + `use rule * from uqval as uqval_*`: the host keeps
    its default target and its own config keys, and uqval builds the page of the host's
    dataset (a local CSV of the host's folder) offline, with no job for any other dataset."""
    rng = np.random.default_rng(3)
    n = 300
    sigma = rng.uniform(0.2, 1.0, n)
    (tmp_path / "inputs").mkdir()
    pd.DataFrame({"err": sigma * rng.normal(size=n), "sd": sigma, "x": rng.uniform(0, 1, n)}).to_csv(
        tmp_path / "inputs" / "preds.csv", index=False
    )
    family = {
        "family": "HOSTLAB",
        "citation": "host lab, unpublished",
        "files": [{"local": "../../inputs/preds.csv"}],
        "datasets": [{
            "id": "host_model",
            "sources": [{"file": "../../inputs/preds.csv"}],
            "quantities": {"E": "err", "uE": "sd"},
            "features": {"x": "x"},
        }],
    }
    (tmp_path / "config" / "datasets").mkdir(parents=True)
    (tmp_path / "config" / "datasets" / "HOSTLAB.yaml").write_text(yaml.safe_dump(family))
    host_config = {"host_message": "hello", "profile": "quick", "datasets": ["host_model"]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(host_config))
    (tmp_path / "Snakefile").write_text(HOST_SNAKEFILE % (ROOT / "Snakefile").as_posix())

    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
    )
    assert res.returncode == 0, res.stdout[-3000:]
    assert (tmp_path / "host.txt").read_text().strip() == "hello"
    page = tmp_path / "results" / "datasets" / "host_model"
    for name in ("index.html", "report.html", "verdicts.csv", "summary.md", "bins_x.csv", "ucc.png"):
        assert (page / name).is_file(), name
    facts = json.loads((page / "page.json").read_text())
    assert facts["M"] == n and set(facts["stage_verdicts"]) == {"average", "consistency", "adaptivity: x"}
    assert "host_model" in (tmp_path / "results" / "datasets" / "index.html").read_text()
    # Offline and alone: no fetch, and only the host's dataset was prepared.
    assert "fetch_raw_file" not in res.stdout
    assert sorted(p.name for p in (tmp_path / "data" / "prepared").iterdir()) == [
        "host_model.csv", "host_model.json"
    ]
