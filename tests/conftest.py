"""Shared fixtures: project paths and a factory for small dataset families."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
DATASET_SCHEMA = ROOT / "config" / "schema" / "dataset.schema.yaml"


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
