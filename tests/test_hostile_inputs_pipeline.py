"""Hostile and careless inputs of the pipeline (issue #28): dataset ids and feature names
checked at load, dataset files that are FIFOs, symbolic links to elsewhere or not dataset files
at all (their content never quoted), local files that are not data tables, digests taken from
the bytes actually read (a file edited during preparation is detected), too few rows stated at
preparation, and the Jacobs archive command (``python -m uqval.pipeline.jacobs``)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import DATASET_SCHEMA
from uqval._internal.errors import ConfigError, DataError
from uqval.pipeline import prepare as prepare_module
from uqval.pipeline.prepare import MIN_PREPARED_ROWS, check_enough_rows, prepare_dataset
from uqval.pipeline.registry import (
    MAX_ID_LENGTH,
    check_dataset_id,
    load_registry,
)

SECRET = "s3cr3t-AKIA-do-not-print"


def rows_csv(m: int = 100, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.2, 1.0, m)
    e = u * rng.standard_normal(m)
    return "E,uE\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in zip(e, u, strict=True))


def entry(dataset_id: str, file: str = "T/a.csv", **extra) -> dict:
    return {"id": dataset_id, "sources": [{"file": file}], "quantities": {"E": "E", "uE": "uE"},
            **extra}


# --- dataset ids and feature names -----------------------------------------------------------


@pytest.mark.parametrize(("dataset_id", "reason"), [
    ("a" * (MAX_ID_LENGTH + 1), f"it has {MAX_ID_LENGTH + 1} characters, at most 64"),
    ("index.html", "reserved name"), ("INDEX", "reserved name"), ("Gallery", "reserved name"),
    ("con", "reserved name"), ("set1aaaaaaaaaaaaaaaaaaaa", "ends in 20 repeated 'a'"),
    ("set1.csv", "file suffix"), ("set1_", "must not end in"), ("set1.", "must not end in"),
    ("a..b", "slashes and '..'"),
])
def test_bad_dataset_ids_are_refused_at_load_with_the_rule(make_family, dataset_id, reason):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry(dataset_id)])
    with pytest.raises(ConfigError, match="dataset id .* is refused: .*" + reason.replace(
            "(", r"\(").replace(")", r"\)")):
        load_registry(ddir, DATASET_SCHEMA)


@pytest.mark.parametrize("dataset_id", ["JAC2024_bandgap_expt", "logP_10k_a_LS-GCN", "x1.v2",
                                        "aaa", "set-111", "ab" * (MAX_ID_LENGTH // 2)])
def test_good_dataset_ids_pass(dataset_id):
    assert check_dataset_id(dataset_id, "here") == dataset_id


def test_ids_that_differ_only_in_case_are_refused(make_family, tmp_path):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("mySet"), entry("MYSET")])
    with pytest.raises(ConfigError, match="dataset id 'MYSET' differs from 'mySet' .* only in "
                                          "case"):
        load_registry(ddir, DATASET_SCHEMA)


def test_the_shipped_registry_passes_the_id_rules():
    root = Path(__file__).resolve().parents[1]
    registry = load_registry(root / "config" / "datasets", DATASET_SCHEMA)
    assert len(registry.datasets) > 50


@pytest.mark.parametrize("name", ["uE", "ue", "E", "Z", "row", "U_95"])
def test_features_named_like_the_tables_columns_are_refused_at_load(make_family, name):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("d1", features={name: "E"})])
    with pytest.raises(ConfigError, match=f"feature name '{name}' is reserved"):
        load_registry(ddir, DATASET_SCHEMA)


# --- dataset files that are not what they seem ---------------------------------------------


def test_a_fifo_named_yaml_is_refused_without_opening_it(make_family):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("d1")])
    os.mkfifo(ddir / "ZZZ.yaml")
    outcome: list[BaseException] = []

    def load() -> None:
        try:
            load_registry(ddir, DATASET_SCHEMA)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # unblock the reader before failing
        with open(ddir / "ZZZ.yaml", "w"):
            pass
        pytest.fail("load_registry opened the FIFO")
    assert isinstance(outcome[0], ConfigError)
    assert "ZZZ.yaml: not a regular file" in str(outcome[0])


def test_a_yaml_symlinked_to_a_file_elsewhere_is_refused_by_name(make_family, tmp_path):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("d1")])
    secret = tmp_path / "secrets.yaml"
    secret.write_text(f"aws_secret_access_key: {SECRET}\n")
    (ddir / "shared.yaml").symlink_to(secret)
    with pytest.raises(ConfigError) as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert "shared.yaml: a symbolic link to a file outside" in str(info.value)
    assert SECRET not in str(info.value) and "aws_secret" not in str(info.value)


@pytest.mark.parametrize("text", [
    f"aws_secret_access_key: {SECRET}\n", f"{SECRET}\n", f"key: [{SECRET}\n",
    f"-----BEGIN KEY-----\n{SECRET}: [\n",
])
def test_a_file_that_is_not_a_dataset_file_is_not_quoted(make_family, text):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("d1")])
    (ddir / "other.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_registry(ddir, DATASET_SCHEMA)
    message = str(info.value)
    assert "other.yaml" in message and SECRET not in message
    assert "not a dataset family file" in message or "not valid YAML" in message


def test_a_local_file_that_is_not_a_table_is_refused_and_secrets_are_not_echoed(tmp_path):
    ddir = tmp_path / "datasets"
    ddir.mkdir()
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[default]\naws_secret_access_key = {SECRET}\n")

    def family(local: str, pattern: str | None = None) -> None:
        source = {"file": local, "format": "key_value"}
        if pattern:
            source["pattern"] = pattern
        doc = {"family": "MINE", "citation": "mine", "files": [{"local": local}],
               "datasets": [{"id": "mine", "sources": [source],
                             "quantities": {"E": "E", "uE": "uE"}}]}
        (ddir / "MINE.yaml").write_text(yaml.safe_dump(doc))

    family(str(credentials))
    with pytest.raises(ConfigError, match="is not named like a data table") as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert SECRET not in str(info.value)
    renamed = tmp_path / "secrets.txt"
    credentials.rename(renamed)
    family(str(renamed), pattern=r"(\w+)\s*=\s*(\S+)")
    spec = load_registry(ddir, DATASET_SCHEMA).get("mine")
    with pytest.raises(DataError) as info:
        prepare_dataset(spec, tmp_path / "raw")
    message = str(info.value)
    assert "line 2: the value matched by the pattern is not a number" in message
    assert SECRET not in message and "aws_secret_access_key" not in message


# --- digests of the bytes read; files edited during preparation ------------------------------


def test_the_recorded_digest_is_that_of_the_bytes_read(make_family):
    text = rows_csv()
    raw, ddir = make_family({"T/a.csv": text}, [entry("d1")])
    prepared = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("d1"), raw)
    assert prepared.report["source_sha256"]["T/a.csv"] == hashlib.sha256(text.encode()).hexdigest()


def test_a_file_edited_while_it_is_prepared_fails_the_job(make_family, monkeypatch):
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("d1")])
    spec = load_registry(ddir, DATASET_SCHEMA).get("d1")
    spec = type(spec)(**{**spec.__dict__, "pins": {"T/a.csv": None}})  # a user's unpinned file
    original = prepare_module.read_csv_table

    def read_then_edit(path, **kwargs):
        table = original(path, **kwargs)
        Path(path).write_text(rows_csv(seed=1))  # the user saves a new version meanwhile
        return table

    monkeypatch.setattr(prepare_module, "read_csv_table", read_then_edit)
    with pytest.raises(DataError, match="T/a.csv changed while it was being prepared .*nothing "
                                        "was written"):
        prepare_dataset(spec, raw)


def test_too_few_rows_are_refused_after_preparation_with_the_minimum(make_family):
    raw, ddir = make_family({"T/a.csv": rows_csv(10)}, [entry("d1")])
    prepared = prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("d1"), raw)
    with pytest.raises(DataError, match=f"M = 10 row\\(s\\) after filtering \\(10 raw\\); at "
                                        f"least {MIN_PREPARED_ROWS} are needed"):
        check_enough_rows(prepared)
    raw, ddir = make_family({"T/a.csv": rows_csv(MIN_PREPARED_ROWS)}, [entry("d1")])
    check_enough_rows(prepare_dataset(load_registry(ddir, DATASET_SCHEMA).get("d1"), raw))
