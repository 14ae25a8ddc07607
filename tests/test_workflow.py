"""End-to-end runs of the Snakemake workflow on a copy of the project (no shared data needed)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT, copy_project

# Slow: Snakemake runs end to end. The fast tier is `pytest -m "not workflow"`.
pytestmark = pytest.mark.workflow

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
COPIED = ["Snakefile", "config", "workflow", "profiles", "scripts", "src", "envs"]


@pytest.fixture
def project(tmp_path):
    """A copy of the workflow with a user dataset registry containing one generated CSV."""
    proj = tmp_path / "proj"
    proj.mkdir()
    copy_project(proj, COPIED)
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
    res = run(proj, *USER_TARGETS, "--config", "datasets_dir=my_datasets", "datasets=my_model",
              f"data_mirror={mirror}", "profile=quick")
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
    res = run(proj, "results/tables/datasets.csv", "--config", "datasets_dir=my_datasets", "datasets=my_model",
              f"data_mirror={mirror}")
    assert res.returncode != 0
    assert "checksum mismatch for 'MYLAB/predictions.csv'" in res.stdout
    raw = proj / "data" / "raw" / "MYLAB"
    assert not raw.exists() or list(raw.iterdir()) == []


def test_offline_without_mirror_names_the_option(project):
    proj, _ = project
    res = run(proj, "results/tables/datasets.csv", "--config", "datasets_dir=my_datasets", "datasets=my_model")
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
    """A user's file that fails the schema is named and skipped; the user's other datasets
    still build (a dry run plans my_model's jobs)."""
    proj, _ = project
    (proj / "my_datasets" / "BROKEN.yaml").write_text("family: BROKEN\ncitation: x\nfiles: []\ndatasets: []\n")
    res = run(proj, "-n", "results/validate/my_model.md", "--config", "datasets_dir=my_datasets", "datasets=my_model")
    assert res.returncode == 0, res.stdout[-3000:]
    assert "Warning: skipped my_datasets/BROKEN.yaml: does not match the dataset schema" in res.stdout
    assert "my_model" in res.stdout


def test_a_yaml_written_into_the_projects_config_never_reaches_a_test(tmp_path):
    """copy_project leaves a user's config/datasets/*.yaml out of every test project, and keeps
    the literature registry and the folder's README."""
    src = tmp_path / "src_project"
    (src / "config" / "datasets").mkdir(parents=True)
    (src / "config" / "literature").mkdir()
    (src / "config" / "datasets" / "MYLAB.yaml").write_text("family: MYLAB\n")
    (src / "config" / "datasets" / "README.md").write_text("x")
    (src / "config" / "literature" / "HU2022.yaml").write_text("family: HU2022\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    copy_project(proj, ["config"], root=src)
    assert sorted(p.name for p in (proj / "config" / "datasets").iterdir()) == ["README.md"]
    assert (proj / "config" / "literature" / "HU2022.yaml").exists()


def test_jacobs_layout_builds_tables_5_6_and_figures(project):
    """The shipped JAC2024 entry, enabled on generated files with the Jacobs et al. layout
    (one folder per set, single-column CSVs with a header line), builds Tables 5-6 and
    Figs 9-10 with the counts of non-positive uE and null errors."""
    proj, mirror = project
    shipped = yaml.safe_load((ROOT / "config" / "literature" / "JAC2024.yaml").read_text())
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
              "datasets_dir=my_datasets", f"datasets={','.join('JAC2024_' + c for c in cases)}",
              f"data_mirror={mirror}", "profile=quick")
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
    args = [*SEEDED_TARGETS, "--config", "datasets_dir=my_datasets", "datasets=my_model", f"data_mirror={mirror}",
            "profile=quick"]

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


# --- Users' own datasets: local files, `validate`, freshness, errors at once -----------------

def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """This checkout's Snakefile run from ``workdir`` (outside the repository)."""
    return subprocess.run(
        [*SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--cores", "2", *args],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
    )


LOCAL_FAMILY = """\
family: MINE
citation: my own predictions
files:
  - local: ../../inputs/preds.csv
datasets:
  - id: loc_a
    units: eV
    sources: [{file: ../../inputs/preds.csv}]
    quantities: {E: y_true - y_pred, uE: sigma}
    features: {temperature: temperature}
  - id: loc_b
    sources: [{file: ../../inputs/preds.csv}]
    quantities: {E: y_true - y_pred, uE: 1.5 * sigma}
"""


@pytest.fixture
def local_user(tmp_path):
    """A user's folder: config/datasets/MINE.yaml pointing at inputs/preds.csv (no pin)."""
    rng = np.random.default_rng(5)
    n = 300
    sigma = rng.uniform(0.2, 1.0, n)
    y_true = rng.normal(size=n)
    (tmp_path / "inputs").mkdir()
    pd.DataFrame({"y_true": y_true, "y_pred": y_true - sigma * rng.normal(size=n), "sigma": sigma,
                  "temperature": rng.uniform(300, 500, n)}).to_csv(tmp_path / "inputs" / "preds.csv", index=False)
    (tmp_path / "config" / "datasets").mkdir(parents=True)
    (tmp_path / "config" / "datasets" / "MINE.yaml").write_text(LOCAL_FAMILY)
    return tmp_path


def _planned_outputs(res: subprocess.CompletedProcess) -> list[str]:
    """Output files of the jobs a dry run plans."""
    return [ln.split("output:", 1)[1].strip() for ln in res.stdout.splitlines() if ln.strip().startswith("output:")]


def test_validate_one_local_dataset_offline(local_user):
    """`validate --config datasets=<id>` on a local CSV: no fetch, no job for any other
    dataset (literature or user), the engine's files plus index.html, the file's SHA-256 in
    the sidecar, a short console, and nothing to do on a second run."""
    res = _snakemake(local_user, "validate", "--config", "datasets=loc_a", "profile=quick")
    assert res.returncode == 0, res.stdout[-3000:]
    assert "fetch_raw_file" not in res.stdout
    assert len(res.stdout.splitlines()) < 300
    assert "results/datasets/index.html" in res.stdout  # onsuccess says where the pages are
    assert sorted(p.name for p in (local_user / "data" / "prepared").iterdir()) == ["loc_a.csv", "loc_a.json"]
    page = local_user / "results" / "datasets" / "loc_a"
    for name in ("index.html", "report.html", "verdicts.csv", "summary.md", "bins_uE.csv",
                 "bins_temperature.csv", "calibration_curve.png", "page.json"):
        assert (page / name).is_file(), name
    html = (page / "index.html").read_text()
    for section in ("Simulated references", "Heavy-tail screening", "UCC: AUUCC gain", "Source files"):
        assert section in html, section
    digest = hashlib.sha256((local_user / "inputs" / "preds.csv").read_bytes()).hexdigest()
    assert digest in html
    sidecar = json.loads((local_user / "data" / "prepared" / "loc_a.json").read_text())
    assert sidecar["source_sha256"] == {"../../inputs/preds.csv": digest}
    assert "Nothing to be done" in _snakemake(local_user, "validate", "-n", "--config", "datasets=loc_a",
                                               "profile=quick").stdout


PREDICTIVE_FAMILY = """\
family: PRED
citation: my own predictive outputs
files:
  - local: ../../inputs/pred.csv
defaults:
  sources: [{file: ../../inputs/pred.csv}]
  features: {temperature: temperature}
datasets:
  - id: ens
    quantities: {y_true: y, members: 'm_*'}
  - id: qr
    quantities: {y_true: y, quantiles: {"0.1": q10, "0.5": q50, "0.9": q90}}
"""


def test_predictive_datasets_get_pages_and_skip_variance_only_jobs(tmp_path):
    """An ensemble (its sd is a variance: simulated references, screening, UCC and the
    flowchart run) and a quantile set (no variance: those jobs are not planned, the page
    says so) in one run of `validate`."""
    rng = np.random.default_rng(7)
    n = 240
    mu, sd = rng.normal(size=n), rng.uniform(0.5, 1.5, n)
    y = mu + sd * rng.standard_normal(n)
    cols = {"y": y, "temperature": rng.uniform(300, 500, n)}
    cols |= {f"m_{k}": mu + sd * rng.standard_normal(n) for k in range(8)}
    cols |= {"q10": mu - 1.2816 * sd, "q50": mu, "q90": mu + 1.2816 * sd}
    (tmp_path / "inputs").mkdir()
    pd.DataFrame(cols).to_csv(tmp_path / "inputs" / "pred.csv", index=False)
    (tmp_path / "config" / "datasets").mkdir(parents=True)
    (tmp_path / "config" / "datasets" / "PRED.yaml").write_text(PREDICTIVE_FAMILY)
    res = _snakemake(tmp_path, "validate", "--config", "datasets=ens,qr", "profile=quick")
    assert res.returncode == 0, res.stdout[-3000:]
    assert "ucc_dataset" in res.stdout and "results/ucc/datasets/qr.csv" not in res.stdout
    assert "results/validate/qr.csv" not in res.stdout
    ens, qr = (tmp_path / "results" / "datasets" / d for d in ("ens", "qr"))
    page = json.loads((ens / "page.json").read_text())
    assert {"average", "coverage", "shape"} <= set(page["stage_verdicts"])
    html = (ens / "index.html").read_text()
    for section in ("Simulated references", "UCC: AUUCC gain", "PIT histogram", "Coverage along temperature"):
        assert section in html, section
    assert set(json.loads((qr / "page.json").read_text())["stage_verdicts"]) == {"coverage", "shape"}
    html = (qr / "index.html").read_text()
    assert "Not run for this dataset" in html and "Simulated references" not in html
    assert (qr / "coverage.csv").is_file() and (qr / "pit_histogram.png").is_file()


def test_edits_rerun_exactly_the_edited_dataset(local_user):
    """Editing one dataset's expression re-runs that dataset's jobs only; editing the local
    CSV re-runs every dataset reading it."""
    targets = ["data/prepared/loc_a.csv", "data/prepared/loc_b.csv"]
    res = _snakemake(local_user, *targets, "--config", "datasets=loc_a,loc_b")
    assert res.returncode == 0, res.stdout[-3000:]
    assert "Nothing to be done" in _snakemake(local_user, *targets, "-n").stdout

    yaml_file = local_user / "config" / "datasets" / "MINE.yaml"
    yaml_file.write_text(LOCAL_FAMILY.replace("uE: 1.5 * sigma", "uE: 2 * sigma"))
    planned = _planned_outputs(_snakemake(local_user, *targets, "-n"))
    assert planned == ["data/prepared/loc_b.csv, data/prepared/loc_b.json"]

    csv = local_user / "inputs" / "preds.csv"
    csv.write_text(csv.read_text() + "0.1,0.2,0.5,400\n")
    planned = _planned_outputs(_snakemake(local_user, *targets, "-n"))
    assert sorted(planned) == ["data/prepared/loc_a.csv, data/prepared/loc_a.json",
                               "data/prepared/loc_b.csv, data/prepared/loc_b.json"]


def test_new_pin_refetches_and_mirror_spelling_does_not(project):
    proj, mirror = project
    args = ["--config", "datasets_dir=my_datasets", "datasets=my_model"]
    res = run(proj, "data/prepared/my_model.csv", *args, f"data_mirror={mirror}")
    assert res.returncode == 0, res.stdout[-3000:]
    res = run(proj, "data/prepared/my_model.csv", "-n", *args, f"data_mirror={mirror}/")
    assert "Nothing to be done" in res.stdout

    csv = mirror / "MYLAB" / "predictions.csv"
    csv.write_text(csv.read_text() + "0,0,0.5,400\n")
    yaml_file = proj / "my_datasets" / "MYLAB.yaml"
    family = yaml.safe_load(yaml_file.read_text())
    family["files"][0]["sha256"] = hashlib.sha256(csv.read_bytes()).hexdigest()
    yaml_file.write_text(yaml.safe_dump(family, sort_keys=False))
    res = run(proj, "data/prepared/my_model.csv", "-n", *args, f"data_mirror={mirror}")
    assert "data/raw/MYLAB/predictions.csv" in _planned_outputs(res)


def test_dataset_errors_are_listed_at_once(local_user):
    """Every schema violation of a YAML file, then every missing column of a CSV, in one
    message naming the file, without a traceback."""
    yaml_file = local_user / "config" / "datasets" / "MINE.yaml"
    yaml_file.write_text(LOCAL_FAMILY.replace("units: eV", "units: 3").replace("citation:", "citations:"))
    res = _snakemake(local_user, "validate", "-n", "--config", "datasets=loc_a")
    assert res.returncode != 0
    assert "MINE.yaml: does not match the dataset schema" in res.stdout
    for where in ("'(top level)'", "'datasets/0/units'"):
        assert where in res.stdout, where
    assert "Traceback" not in res.stdout

    yaml_file.write_text(LOCAL_FAMILY.replace("y_true - y_pred, uE: sigma", "truth - y_pred, uE: sd"))
    res = _snakemake(local_user, "validate", "--config", "datasets=loc_a")
    assert res.returncode != 0
    assert "2 expression(s) use columns that are not in the source files" in res.stdout
    assert "column(s) 'truth'" in res.stdout and "column(s) 'sd'" in res.stdout
    assert "Traceback" not in res.stdout


def test_missing_local_file_is_named(local_user):
    (local_user / "inputs" / "preds.csv").unlink()
    res = _snakemake(local_user, "validate", "-n", "--config", "datasets=loc_a")
    assert res.returncode != 0
    assert "files[0].local: local file '../../inputs/preds.csv' not found" in res.stdout
    assert str(local_user / "inputs" / "preds.csv") in res.stdout


@pytest.mark.parametrize(
    "value, expected",
    [(None, None), ("a", ["a"]), ("a, b,a", ["a", "b"]), (["x", 7], ["x", "7"])],
)
def test_datasets_key_accepts_lists_and_comma_separated_text(value, expected):
    from uqval.pipeline.workflow_config import selected_datasets

    assert selected_datasets(value) == expected


@pytest.mark.parametrize("value", ["", " , ", [], [""]])
def test_an_empty_datasets_selection_is_refused(value):
    from uqval._internal.errors import ConfigError
    from uqval.pipeline.workflow_config import selected_datasets

    with pytest.raises(ConfigError, match="the selection is empty"):
        selected_datasets(value)
    with pytest.raises(ConfigError, match="the selection is empty"):  # --config datasets=
        selected_datasets(None, explicit=True)


def test_an_empty_datasets_option_stops_the_run_with_one_message(project):
    proj, _ = project
    res = run(proj, "-n", "--config", "datasets=")
    assert res.returncode != 0 and "Traceback" not in res.stdout
    assert "datasets: the selection is empty" in res.stdout


def test_simref_counts_keep_the_papers_below_the_large_set_size():
    from uqval.pipeline.workflow_config import simref_counts

    settings = {
        "n_mc": 10_000,
        "n_boot": 5000,
        "large_sets": {"from_m": 20_000, "max_points": 2.0e8, "min_replicates": 200,
                       "jackknife_groups": 200},
    }
    paper = simref_counts(settings, 13_885)  # QM9, the largest literature set
    assert (paper.n_mc, paper.n_boot, paper.jackknife_groups) == (10_000, 5000, None)
    mid = simref_counts(settings, 40_000)  # 2e8 / 4e4 = 5000 sets; bootstrap unchanged
    assert (mid.n_mc, mid.n_boot, mid.jackknife_groups) == (5000, 5000, 200)
    big = simref_counts(settings, 1_000_000)  # 2e8 / 1e6 = 200: the floor
    assert (big.n_mc, big.n_boot) == (200, 200)
    assert simref_counts(settings, 10_000_000).n_mc == 200
    assert "200 simulated sets" in big.describe() and "200 groups" in big.describe()
    assert "reduced from the papers' 10000 sets and 5000" in big.describe()
    assert paper.describe().endswith("(the papers' replicate counts)")


def test_jacobs_archive_command_enables_the_family_and_runs_verify_it(project, tmp_path):
    """`python -m uqval.pipeline.jacobs` on a synthetic deposit (33 folders, two files each):
    the workflow then fetches a set from the lock's mirror and prepares it; a mirror file
    changed afterwards is refused by the next fetch."""
    from uqval.pipeline import jacobs

    proj, _ = project
    family_file = proj / "config" / "literature" / "JAC2024.yaml"
    layout = jacobs.expected_layout(family_file)
    rng = np.random.default_rng(11)
    deposit = tmp_path / "deposit"
    for inner in layout.files.values():
        values = rng.uniform(0.2, 1.0, 90)
        if inner.endswith("residuals_leaveout.csv"):
            values = values * rng.standard_normal(90)
        (deposit / inner).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"v": values}).to_csv(deposit / inner, index=False)
    assert jacobs.main([str(deposit), "--family-file", str(family_file),
                        "--mirror", str(proj / "data" / "archives")]) == 0
    target = "data/prepared/JAC2024_concrete.csv"
    res = run(proj, target, "--config", "datasets=JAC2024_concrete")
    assert res.returncode == 0, res.stdout[-3000:]
    assert len(pd.read_csv(proj / target)) == 90
    mirror_file = proj / "data" / "archives" / "JAC2024" / "concrete" / "residuals_leaveout.csv"
    mirror_file.write_text("v\n1.0\n")
    (proj / "data" / "raw" / "JAC2024" / "concrete" / "residuals_leaveout.csv").unlink()
    (proj / target).unlink()
    res = run(proj, target, "--config", "datasets=JAC2024_concrete")
    assert res.returncode != 0 and "checksum mismatch" in res.stdout


def test_configured_counts_keep_the_papers_up_to_forty_thousand_rows():
    from uqval.pipeline.workflow_config import simref_counts

    settings = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["analysis"]["simref"]
    for m in (27_000, 40_000):  # papers' counts; from 20 000 on the CC jackknife by groups
        c = simref_counts(settings, m)
        assert (c.n_mc, c.n_boot, c.jackknife_groups) == (10_000, 5000, 200)
    assert simref_counts(settings, 40_001).n_mc == 9999
    c = simref_counts(settings, 1_000_000)  # 4e8 / 1e6
    assert (c.n_mc, c.n_boot) == (400, 400)
    assert "400 simulated sets" in c.describe() and "reduced" in c.describe()
