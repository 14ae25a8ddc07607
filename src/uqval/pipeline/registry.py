"""Dataset registry: one YAML file per dataset family in ``config/datasets/``.

Each file is validated against ``config/schema/dataset.schema.yaml``; a family's ``defaults``
are merged into each of its datasets. The registry answers which files exist (with their
SHA-256 and upstream address) and how each dataset is built from them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from uqval.errors import ConfigError

SCHEMA_NAME = "dataset.schema.yaml"


@dataclass(frozen=True)
class RegisteredFile:
    """A raw data file: path relative to the data root, pinned checksum, upstream address."""

    path: str
    sha256: str | None
    url: str | None
    family: str


@dataclass(frozen=True)
class DatasetSpec:
    """How one dataset is read and derived (the merged YAML entry) and where it comes from."""

    id: str
    family: str
    citation: str
    enabled: bool
    needs_internet: bool
    config_file: str
    entry: dict[str, Any] = field(hash=False, compare=False)

    @property
    def source_files(self) -> list[str]:
        """Raw files (relative to the data root) this dataset reads, in source order."""
        return [src["file"] for src in self.entry["sources"]]

    @property
    def has_uncertainty(self) -> bool:
        """True when the dataset defines standard uncertainties uE (variance-based UQ)."""
        return "uE" in self.entry["quantities"]

    @property
    def units(self) -> str:
        return str(self.entry.get("units", ""))

    @property
    def title(self) -> str:
        return str(self.entry.get("title", self.id))


@dataclass(frozen=True)
class Registry:
    """All registered files and datasets, keyed by path and id."""

    files: dict[str, RegisteredFile]
    datasets: dict[str, DatasetSpec]

    def enabled_ids(self) -> list[str]:
        """Ids of datasets whose family is enabled, in registration order."""
        return [d.id for d in self.datasets.values() if d.enabled]

    def get(self, dataset_id: str) -> DatasetSpec:
        """Look a dataset up by id; unknown ids raise a ConfigError listing the known ones."""
        try:
            return self.datasets[dataset_id]
        except KeyError:
            known = ", ".join(sorted(self.datasets))
            raise ConfigError(
                f"Unknown dataset id '{dataset_id}'. Registered datasets (config/datasets/*.yaml): "
                f"{known}."
            ) from None


def _merge(defaults: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """Recursive dict merge: entry values override family defaults."""
    merged = copy.deepcopy(defaults)
    for key, value in entry.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _load_yaml(path: Path) -> Any:
    try:
        with path.open() as fh:
            return yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc


def _validate(doc: Any, schema: dict[str, Any], path: Path) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for err in errors[:5]:
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            lines.append(f"  at '{where}': {err.message}")
        more = f"\n  ... and {len(errors) - 5} more" if len(errors) > 5 else ""
        raise ConfigError(
            f"{path}: does not match the dataset schema ({SCHEMA_NAME}):\n" + "\n".join(lines) + more
        )


def load_family(path: Path, schema: dict[str, Any]) -> tuple[list[RegisteredFile], list[DatasetSpec]]:
    """Read and validate one family file; return its files and merged dataset specs."""
    doc = _load_yaml(path)
    _validate(doc, schema, path)
    family = doc["family"]
    files = [
        RegisteredFile(path=f["path"], sha256=f["sha256"], url=f.get("url"), family=family)
        for f in doc["files"]
    ]
    known_paths = {f.path for f in files}
    defaults = doc.get("defaults", {})
    datasets = []
    for entry in doc["datasets"]:
        merged = _merge(defaults, entry)
        if "sources" not in merged or "quantities" not in merged:
            raise ConfigError(f"{path}: dataset '{merged.get('id')}' needs sources and quantities")
        for src in merged["sources"]:
            if src["file"] not in known_paths:
                raise ConfigError(
                    f"{path}: dataset '{merged['id']}' reads '{src['file']}', which is not listed "
                    f"under files: (listed: {', '.join(sorted(known_paths))})"
                )
        q = merged["quantities"]
        if "uE" not in q and not q.get("intervals"):
            raise ConfigError(
                f"{path}: dataset '{merged['id']}' defines neither quantities.uE nor "
                f"quantities.intervals; one of them is needed to validate uncertainties"
            )
        datasets.append(
            DatasetSpec(
                id=merged["id"],
                family=family,
                citation=doc["citation"],
                enabled=bool(doc.get("enabled", True)),
                needs_internet=bool(doc.get("needs_internet", False)),
                config_file=str(path),
                entry=merged,
            )
        )
    return files, datasets


def load_registry(datasets_dir: str | Path, schema_path: str | Path) -> Registry:
    """Load every ``*.yaml`` family file of ``datasets_dir`` (sorted by name).

    Raises ConfigError naming the file for invalid YAML, schema violations, duplicate dataset
    ids or file paths, and sources that are not among the family's files.
    """
    datasets_dir = Path(datasets_dir)
    schema = _load_yaml(Path(schema_path))
    family_files = sorted(datasets_dir.glob("*.yaml"))
    if not family_files:
        raise ConfigError(f"{datasets_dir}: no dataset files (*.yaml) found")
    files: dict[str, RegisteredFile] = {}
    datasets: dict[str, DatasetSpec] = {}
    for path in family_files:
        fam_files, fam_datasets = load_family(path, schema)
        for f in fam_files:
            if f.path in files:
                raise ConfigError(f"{path}: file '{f.path}' is already registered by {files[f.path].family}")
            files[f.path] = f
        for d in fam_datasets:
            if d.id in datasets:
                raise ConfigError(
                    f"{path}: dataset id '{d.id}' is already defined in {datasets[d.id].config_file}"
                )
            datasets[d.id] = d
    return Registry(files=files, datasets=datasets)
