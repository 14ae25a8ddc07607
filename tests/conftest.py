"""Shared fixtures: project paths and a factory for small dataset families."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("UQVAL_DATA_MIRROR") or ROOT.parent / "shared" / "data").resolve()
"""The literature data mirror: ``$UQVAL_DATA_MIRROR``, else ``../shared/data`` beside the clone."""


def require_shared_data(path: Path = SHARED_DATA) -> Path:
    """``path`` inside the data mirror; under CI (``CI`` set) a missing mirror FAILS the test,
    elsewhere it skips it (a developer without the data can still run the rest)."""
    if not path.exists():
        message = f"shared data not found at {path} (set UQVAL_DATA_MIRROR)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
DATASET_SCHEMA = ROOT / "config" / "schema" / "dataset.schema.yaml"

def copy_project(dest: Path, names: list[str], *, root: Path = ROOT) -> None:
    """Copy the workflow's files ``names`` (files or folders of ``root``) into ``dest``, leaving
    out the user's dataset files in ``config/datasets/`` (the default ``datasets_dir``) so that
    a YAML a user wrote there never reaches a test (the tests give their own ``datasets_dir``)."""
    import shutil

    users_folder = (root / "config" / "datasets").resolve()

    def users_files(folder: str, entries: list[str]) -> list[str]:
        return [e for e in entries if e != "README.md"] if Path(folder).resolve() == users_folder else []

    for name in names:
        src = root / name
        if src.is_symlink():  # profiles -> workflow/profiles (where Snakemake looks for defaults)
            (dest / name).symlink_to(src.readlink())
        elif src.is_dir():
            shutil.copytree(src, dest / name, ignore=users_files)
        else:
            shutil.copy(src, dest / name)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def make_family(tmp_path):
    """Write raw files under tmp/raw and a family YAML under tmp/datasets; return the paths.

    ``files`` maps relative paths to text contents; ``datasets`` is the list of dataset entries.
    """

    def make(files: dict[str, str], datasets: list[dict], family: str = "TEST", **extra):
        raw = tmp_path / "raw"
        ddir = tmp_path / "datasets"
        ddir.mkdir(exist_ok=True)
        entries = []
        for rel, text in files.items():
            path = raw / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            entries.append({"path": rel, "sha256": sha256_bytes(text.encode()), "url": None})
        doc = {"family": family, "citation": "test", "files": entries, "datasets": datasets, **extra}
        (ddir / f"{family}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        return raw, ddir

    return make


NINE_SETS = [
    "Diffusion_RF", "Perovskite_RF", "Diffusion_LR", "Perovskite_LR", "Diffusion_GPR_Bayesian",
    "Perovskite_GPR_Bayesian", "QM9_E", "logP_10k_a_LS-GCN", "logP_150k_LS-GCN",
]


def load_literature_set(name: str):
    """(E, uE) of one of the nine heavy-tails/simref sets, read straight from the data mirror
    with pandas, independently of the pipeline's preparation code."""
    import numpy as np
    import pandas as pd

    if name == "QM9_E":
        d = pd.read_csv(SHARED_DATA / "BUS2022" / "qm9_qm9_E_calibrated_isotonic_test.csv")
        E, uE = d["E_"] - d["prediction"], np.sqrt(d["uncertainty_total"])
    elif name.startswith("logP"):
        d = pd.read_csv(SHARED_DATA / "RAS2023" / f"{name}_test.csv")
        E, uE = d["logP"] - d["y_pred"], d["uq"]
    else:
        d = pd.read_csv(SHARED_DATA / "PAL2022" / f"{name}_Test_cal.csv")
        keep = d["uE"] > 1e-6 * d["E"].std()
        E, uE = d.loc[keep, "E"], d.loc[keep, "uE"]
    return E.to_numpy(float), uE.to_numpy(float)


@pytest.fixture(scope="session")
def nine_sets():
    """The nine sets in the papers' order (Set 1 first); see :func:`require_shared_data`."""
    require_shared_data()
    return [load_literature_set(name) for name in NINE_SETS]
