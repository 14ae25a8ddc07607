"""A dataset given as parts (`parts:` in its YAML, issue 41) through the workflow: one job per
part and pass, the plan, the page; its tables are those of `validate_parts` in one process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT

# Slow: Snakemake runs end to end. The fast tier is `pytest -m "not workflow"`.
pytestmark = pytest.mark.workflow

PARTS_FAMILY = """\
family: INPARTS
citation: my own predictions, written in parts
datasets:
  - id: big_parts
    units: eV
    parts: ../../inputs/parts
    quantities: {E: err, uE: sigma}
    features: {temp: temp}
"""
# Small settings: 30 000 rows with a subsample of 10 000 (the second pass runs), few resamples
# (in the quick profile's overrides, which take precedence over analysis:).
SETTINGS = {"profiles": {"quick": {"analysis": {"validate": {
    "parts_subsample": 10_000, "n_boot": 200, "n_permutations": 199}}}}}
ROWS, PARTS, BAD = 10_000, 3, 2


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2", *args],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)


def _config(workdir: Path) -> list[str]:
    (workdir / "small.yaml").write_text(yaml.safe_dump(SETTINGS))
    return ["--configfile", "small.yaml", "--config", "datasets=big_parts", "profile=quick"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A user's folder with three Parquet parts (two rows with uE = 0, removed and counted)
    and the YAML above, and the page built by `snakemake validate`."""
    work = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(11)
    (work / "inputs" / "parts").mkdir(parents=True)
    for k in range(PARTS):
        u, x = rng.uniform(0.5, 2.0, ROWS), rng.uniform(0.0, 1.0, ROWS)
        e = u * (1.0 + 0.5 * x) * rng.standard_normal(ROWS)
        if k == 1:
            u[[5, 77]] = 0.0
        pd.DataFrame({"err": e, "sigma": u, "temp": x}).to_parquet(
            work / "inputs" / "parts" / f"part-{k}.parquet")
    (work / "config" / "datasets").mkdir(parents=True)
    (work / "config" / "datasets" / "INPARTS.yaml").write_text(PARTS_FAMILY)
    res = _snakemake(work, "validate", *_config(work))
    assert res.returncode == 0, res.stdout[-4000:]
    return work, res


def test_parts_page_has_the_tables_of_validate_parts(built, tmp_path):
    """Byte for byte the CSV files of `validate_parts` run in one process with the page's
    seed and settings; one job per part and pass, no prepared table, the page says which
    add-ons were not run."""
    from uqval._internal.seeding import derive_seed
    from uqval.validation.parts import PartColumns, validate_parts

    work, res = built
    page = work / "results" / "datasets" / "big_parts"
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    seed = derive_seed(config["analysis"]["seed"], "dataset_page", "big_parts")
    expected = validate_parts(
        work / "inputs" / "parts", PartColumns("sigma", error="err", features=("temp",),
                                               drop_invalid=True),
        subsample=10_000, seed=seed, n_boot=200, n_permutations=199)
    expected.save(tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert {"verdicts.csv", "stages.csv", "advice.csv", "bins_sigma.csv", "bins_temp.csv"} <= set(names)
    for name in names:
        assert (page / name).read_bytes() == (tmp_path / name).read_bytes(), name
    assert expected.row_counts["rows used"] == PARTS * ROWS - BAD
    assert json.loads((page / "page.json").read_text())["M"] == PARTS * ROWS - BAD
    html = (page / "index.html").read_text()
    assert "Not run for this dataset" in html and "Simulated references" not in html
    for kind in ("first", "second"):
        assert sorted(p.name for p in (work / "results" / "parts" / "big_parts" / kind).iterdir()) \
            == [f"{k}.npz" for k in range(PARTS)]
    assert res.stdout.count("rule parts_first_pass:") == PARTS
    assert res.stdout.count("rule parts_second_pass:") == PARTS
    assert not (work / "data" / "prepared").exists()
    assert "Nothing to be done" in _snakemake(work, "validate", "-n", *_config(work)).stdout


def test_a_part_leading_out_of_its_folder_stops_the_run(tmp_path):
    """A link among the parts to a file elsewhere: the run stops when it is planned, naming
    the file (PartsSource's rule), before any job."""
    (tmp_path / "inputs" / "parts").mkdir(parents=True)
    pd.DataFrame({"err": [0.1], "sigma": [1.0], "temp": [0.5]}).to_parquet(tmp_path / "out.parquet")
    (tmp_path / "inputs" / "parts" / "a.parquet").symlink_to(tmp_path / "out.parquet")
    (tmp_path / "config" / "datasets").mkdir(parents=True)
    (tmp_path / "config" / "datasets" / "INPARTS.yaml").write_text(PARTS_FAMILY)
    res = _snakemake(tmp_path, "validate", "-n", *_config(tmp_path))
    assert res.returncode != 0
    assert "Error: dataset big_parts:" in res.stdout and "leads out of" in res.stdout
    assert "Traceback" not in res.stdout


def test_a_dataset_in_parts_beside_a_csv_dataset_plans_each_its_own_jobs(tmp_path):
    """One page rule per kind of dataset: the parts dataset gets the parts jobs and no
    preparation, the CSV dataset its usual jobs and none of the parts rules (dry run)."""
    (tmp_path / "inputs" / "parts").mkdir(parents=True)
    rng = np.random.default_rng(4)
    for k in range(2):
        pd.DataFrame({"err": rng.standard_normal(100), "sigma": np.ones(100),
                      "temp": rng.uniform(size=100)}).to_parquet(
            tmp_path / "inputs" / "parts" / f"p{k}.parquet")
    pd.DataFrame({"E": rng.standard_normal(100), "u": np.ones(100)}).to_csv(
        tmp_path / "inputs" / "preds.csv", index=False)
    (tmp_path / "config" / "datasets").mkdir(parents=True)
    (tmp_path / "config" / "datasets" / "INPARTS.yaml").write_text(PARTS_FAMILY)
    (tmp_path / "config" / "datasets" / "MINE.yaml").write_text(
        "family: MINE\ncitation: mine\nfiles: [{local: ../../inputs/preds.csv}]\ndatasets:\n"
        "  - id: from_csv\n    sources: [{file: ../../inputs/preds.csv}]\n"
        "    quantities: {E: E, uE: u}\n")
    res = _snakemake(tmp_path, "validate", "-n", "--config", "datasets=big_parts,from_csv",
                     "profile=quick")
    assert res.returncode == 0, res.stdout[-3000:]
    outputs = [ln.split("output:", 1)[1].strip() for ln in res.stdout.splitlines()
               if ln.strip().startswith("output:")]
    assert "data/prepared/from_csv.csv, data/prepared/from_csv.json" in outputs
    assert not any("prepared/big_parts" in o or "engine/big_parts" in o for o in outputs)
    assert not any("parts/from_csv" in o for o in outputs)
    assert sum(o.startswith("results/parts/big_parts/first/") for o in outputs) == 2
    assert "results/engine/from_csv" in outputs and "results/datasets/big_parts" in outputs
    assert res.stdout.count("rule dataset_page:") == 1 and res.stdout.count("rule parts_report:") == 1
