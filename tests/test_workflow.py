"""End-to-end runs of the Snakemake workflow on a copy of the project (no shared data needed)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
COPIED = ["Snakefile", "config", "workflow", "profiles", "scripts", "src", "envs"]


@pytest.fixture
def project(tmp_path):
    """A copy of the workflow with a user dataset registry containing one generated CSV."""
    proj = tmp_path / "proj"
    proj.mkdir()
    for name in COPIED:
        src = ROOT / name
        if src.is_symlink():  # profiles -> workflow/profiles (where Snakemake looks for defaults)
            (proj / name).symlink_to(src.readlink())
        else:
            (shutil.copytree if src.is_dir() else shutil.copy)(src, proj / name)
    rng = np.random.default_rng(1)
    n = 500
    sigma = rng.uniform(0.1, 1.0, n)
    sigma[:3] = [0.0, -0.5, 0.0]  # three non-positive uncertainties to be filtered
    y_true = rng.normal(size=n)
    y_pred = y_true - sigma * rng.normal(size=n)
    mirror = tmp_path / "mirror"
    (mirror / "MYLAB").mkdir(parents=True)
    csv = mirror / "MYLAB" / "predictions.csv"
    pd.DataFrame({"y_true": y_true, "y_pred": y_pred, "sigma": sigma, "temperature": rng.uniform(300, 500, n)}).to_csv(csv, index=False)
    family = {
        "family": "MYLAB",
        "citation": "My lab, unpublished",
        "files": [{"path": "MYLAB/predictions.csv", "sha256": hashlib.sha256(csv.read_bytes()).hexdigest(), "url": None}],
        "datasets": [{
            "id": "my_model",
            "units": "eV",
            "sources": [{"file": "MYLAB/predictions.csv"}],
            "quantities": {"E": "y_true - y_pred", "uE": "sigma", "V": "y_pred"},
            "features": {"temperature": "temperature"},
        }],
    }
    ddir = proj / "my_datasets"
    ddir.mkdir()
    (ddir / "MYLAB.yaml").write_text(yaml.safe_dump(family, sort_keys=False))
    return proj, mirror


def run(proj: Path, *args: str) -> subprocess.CompletedProcess:
    """Run snakemake in ``proj``; stdout and stderr are merged into ``.stdout``."""
    return subprocess.run(
        [*SNAKEMAKE, "--cores", "1", *args],
        cwd=proj, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
    )


USER_TARGETS = [
    "results/tables/datasets.csv",
    "results/screen/my_model.json",
    "results/average/my_model.json",
    "results/validate/my_model.md",
    "results/tables/verdicts.csv",
    "results/ucc/datasets/my_model.csv",
]


def test_user_dataset_runs_end_to_end(project):
    """A user's CSV plus one YAML file get the same per-dataset diagnostics as the literature
    sets (paper-level figures need the papers' datasets and are skipped)."""
    proj, mirror = project
    res = run(proj, *USER_TARGETS, "--config", "datasets_dir=my_datasets", f"data_mirror={mirror}", "profile=quick")
    assert res.returncode == 0, res.stdout[-3000:]
    table = pd.read_csv(proj / "results" / "tables" / "datasets.csv")
    row = table.set_index("id").loc["my_model"]
    assert (row["M"], row["n_raw"], row["n_filtered"]) == (497, 500, 3)
    assert "nonpositive_uncertainty: 3" in row["filtered"]
    prepared = pd.read_csv(proj / "data" / "prepared" / "my_model.csv")
    assert list(prepared.columns) == ["row", "E", "uE", "V", "X_temperature"]
    verdicts = pd.read_csv(proj / "results" / "tables" / "verdicts.csv").set_index("dataset")
    assert verdicts.loc["my_model", "average"] == "pass"  # generated calibrated: E = uE N(0, 1)
    assert "temperature" in verdicts.loc["my_model", "adaptivity"]
    summary = (proj / "results" / "validate" / "my_model.md").read_text()
    assert "# Validation of `my_model`" in summary and "adaptivity:temperature" in summary


def test_checksum_mismatch_fails_without_partial_file(project):
    proj, mirror = project
    csv = mirror / "MYLAB" / "predictions.csv"
    csv.write_text(csv.read_text() + "0,0,0.5,400\n")
    res = run(proj, "results/tables/datasets.csv", "--config", "datasets_dir=my_datasets", f"data_mirror={mirror}")
    assert res.returncode != 0
    assert "checksum mismatch for 'MYLAB/predictions.csv'" in res.stdout
    raw = proj / "data" / "raw" / "MYLAB"
    assert not raw.exists() or list(raw.iterdir()) == []


def test_offline_without_mirror_names_the_option(project):
    proj, _ = project
    res = run(proj, "results/tables/datasets.csv", "--config", "datasets_dir=my_datasets")
    assert res.returncode != 0
    assert "cannot obtain 'MYLAB/predictions.csv'" in res.stdout and "data_mirror" in res.stdout


@pytest.mark.parametrize(
    "override, message",
    [("profile=fast", "profile"), ("bogus_key=1", "bogus_key"), ("analysis={'seed': -3}", "seed")],
)
def test_invalid_config_stops_the_run(project, override, message):
    proj, _ = project
    res = run(proj, "-n", "--config", "datasets_dir=my_datasets", override)
    assert res.returncode != 0
    assert message in res.stdout


def test_unknown_extra_dataset_is_reported(project):
    proj, _ = project
    res = run(proj, "-n", "--config", "datasets_dir=my_datasets", "extra_datasets=['nope']")
    assert res.returncode != 0
    assert "Unknown dataset id 'nope'" in res.stdout and "my_model" in res.stdout


def test_malformed_dataset_yaml_names_the_file(project):
    proj, _ = project
    (proj / "my_datasets" / "BROKEN.yaml").write_text("family: BROKEN\ncitation: x\nfiles: []\ndatasets: []\n")
    res = run(proj, "-n", "--config", "datasets_dir=my_datasets")
    assert res.returncode != 0
    assert "BROKEN.yaml: does not match the dataset schema" in res.stdout


def test_jacobs_layout_builds_tables_5_6_and_figures(project):
    """The shipped JAC2024 entry, enabled on generated files with the Jacobs et al. layout
    (one folder per set, single-column CSVs with a header line), builds Tables 5-6 and
    Figs 9-10 with the counts of non-positive uE and null errors."""
    proj, mirror = project
    shipped = yaml.safe_load((ROOT / "config" / "datasets" / "JAC2024.yaml").read_text())
    cases = ["concrete", "diffusion", "Li_conductivity"]  # numbered case-insensitively: 1 concrete, 2 diffusion, 3 Li
    rng = np.random.default_rng(7)
    files = []
    for i, case in enumerate(cases):
        uE = rng.uniform(0.2, 1.0, 300)
        E = uE * rng.normal(size=300)
        uE[:i] = 0.0  # 0, 1, 2 non-positive uncertainties
        E[-2:] = 0.0  # two null errors per set
        folder = mirror / "JAC2024" / case
        folder.mkdir(parents=True)
        pd.DataFrame({"residuals": E}).to_csv(folder / "residuals_leaveout.csv", index=False)
        pd.DataFrame({"model_errors": uE}).to_csv(folder / "model_errors_leaveout_calibrated.csv", index=False)
        for name in ("residuals_leaveout.csv", "model_errors_leaveout_calibrated.csv"):
            rel = f"JAC2024/{case}/{name}"
            files.append({"path": rel, "sha256": hashlib.sha256((mirror / rel).read_bytes()).hexdigest(), "url": None})
    family = {**shipped, "enabled": True, "files": files,
              "datasets": [d for d in shipped["datasets"] if d["id"].removeprefix("JAC2024_") in cases]}
    (proj / "my_datasets" / "JAC2024.yaml").write_text(yaml.safe_dump(family, sort_keys=False))
    res = run(proj, "results/heavytails/tab5.csv", "results/heavytails/fig10.png", "--config",
              "datasets_dir=my_datasets", f"data_mirror={mirror}", "profile=quick")
    assert res.returncode == 0, res.stdout[-3000:]
    tab5 = pd.read_csv(proj / "results" / "heavytails" / "tab5.csv")
    assert tab5["dataset"].tolist() == ["JAC2024_concrete", "JAC2024_diffusion", "JAC2024_Li_conductivity"]
    assert tab5["n0_uE"].tolist() == [0, 1, 2] and tab5["n0_E"].tolist() == [2, 2, 2]
    assert tab5["M"].tolist() == [300, 299, 298]
    assert ((tab5["ZMS_ci_low"] < tab5["ZMS_estimate"]) & (tab5["ZMS_estimate"] < tab5["ZMS_ci_high"])).all()
    assert (proj / "results" / "heavytails" / "fig09.png").exists()


# Seeded outputs of every kind (bootstrap, Monte Carlo chunks, validation) that need no paper data.
SEEDED_TARGETS = USER_TARGETS + [
    "results/heavytails/mc/pval/NIG_0.csv",
    "results/heavytails/mc/pval/TIG_1.csv",
    "results/heavytails/mc/tig_bias.csv",
    "results/simref/appb/NIG_2000.csv",
    "results/simref/appb/T6IG_4000.csv",
]


def result_files(proj: Path) -> dict[str, bytes]:
    """Tables of a run (CSV, JSON, Markdown), benchmarks excluded (they hold timings)."""
    root = proj / "results"
    return {
        str(p.relative_to(proj)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.suffix in {".csv", ".json", ".md"} and "benchmarks" not in p.parts
    }


def test_same_numbers_whatever_cores_and_interruptions(project, tmp_path):
    """--cores 2 and an interrupted-then-resumed --cores 1 run give byte-identical tables; the
    resumed run keeps the jobs finished before the interruption and leaves no partial file."""
    import os
    import signal
    import time

    proj, mirror = project
    other = tmp_path / "proj_cores2"
    shutil.copytree(proj, other, symlinks=True)
    args = [*SEEDED_TARGETS, "--config", "datasets_dir=my_datasets", f"data_mirror={mirror}", "profile=quick"]

    res = subprocess.run([*SNAKEMAKE, "--cores", "2", *args], cwd=other, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:]

    # Finished work: the Monte Carlo chunks, run to completion first.
    chunks = [t for t in SEEDED_TARGETS if t not in USER_TARGETS]
    res = run(proj, *chunks, *args[len(SEEDED_TARGETS):])
    assert res.returncode == 0, res.stdout[-3000:]
    kept = {proj / t: (proj / t).stat().st_mtime_ns for t in chunks}

    # Interrupt the full run (Ctrl-C) as soon as the user dataset is prepared, while its
    # bootstrap, validation and UCC jobs are still to come.
    # SIGINT back to its default in the child: a shell starting the tests in the background
    # (e.g. CI under nohup ... &) leaves it ignored, and Snakemake would never see the Ctrl-C.
    proc = subprocess.Popen([*SNAKEMAKE, "--cores", "1", *args], cwd=proj, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    prepared = proj / "data" / "prepared" / "my_model.csv"
    deadline = time.monotonic() + 300
    while not prepared.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=120) != 0
    leftovers = [p for p in (proj / "results").rglob("*.tmp")] + [p for p in (proj / "data").rglob("*.tmp")]
    assert leftovers == []
    assert not all((proj / t).exists() for t in SEEDED_TARGETS), "the run ended before the interruption"

    res = run(proj, *args)
    assert res.returncode == 0, res.stdout[-3000:]
    assert {p: p.stat().st_mtime_ns for p in kept} == kept      # finished work is not redone
    resumed, reference = result_files(proj), result_files(other)
    assert sorted(resumed) == sorted(reference) and len(resumed) > 10
    assert [f for f in reference if resumed[f] != reference[f]] == []
