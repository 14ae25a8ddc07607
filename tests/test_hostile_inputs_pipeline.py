"""Hostile and careless inputs of the pipeline (issue #28): dataset ids and feature names
checked at load, dataset files that are FIFOs, symbolic links to elsewhere or not dataset files
at all (their content never quoted), local files that are not data tables, digests taken from
the bytes actually read (a file edited during preparation is detected), too few rows stated at
preparation, and the Jacobs archive command (``python -m uqval.pipeline.jacobs``)."""

from __future__ import annotations

import hashlib
import os
import re
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
    registry = load_registry(root / "config" / "literature", DATASET_SCHEMA)
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


# --- the Jacobs archive in one command ---------------------------------------------------------

import shutil  # noqa: E402
import zipfile  # noqa: E402

from uqval.pipeline import jacobs  # noqa: E402
from uqval.pipeline.fetch import fetch_file  # noqa: E402
from uqval.pipeline.registry import lock_path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "config" / "literature" / "JAC2024.yaml"
NAMES = ("residuals_leaveout.csv", "model_errors_leaveout_calibrated.csv")


def jacobs_folders() -> list[str]:
    doc = yaml.safe_load(SHIPPED.read_text())
    return sorted({f["path"].split("/")[1] for f in doc["files"]})


def archive_files(seed: int = 0) -> dict[str, bytes]:
    """The deposit's files, ``<folder>/<file>`` -> bytes (single-column CSVs with a header)."""
    rng = np.random.default_rng(seed)
    out = {}
    for folder in jacobs_folders():
        u = rng.uniform(0.2, 1.0, 80)
        out[f"{folder}/{NAMES[0]}"] = ("residuals\n" + "".join(
            f"{x:.6f}\n" for x in u * rng.standard_normal(80))).encode()
        out[f"{folder}/{NAMES[1]}"] = ("model_errors\n" + "".join(
            f"{x:.6f}\n" for x in u)).encode()
    return out


def make_zip(path: Path, files: dict[str, bytes], prefix: str = "deposit/",
             extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(prefix + name, data)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return path


@pytest.fixture
def family_dir(tmp_path) -> Path:
    ddir = tmp_path / "datasets"
    ddir.mkdir()
    shutil.copy(SHIPPED, ddir / "JAC2024.yaml")
    return ddir


def test_the_shipped_family_expects_33_folders_of_two_files():
    layout = jacobs.expected_layout(SHIPPED)
    assert len(layout.folders) == 33 and len(layout.files) == 66
    assert all(len([f for f in layout.files.values() if f.startswith(d + "/")]) == 2
               for d in layout.folders)


def test_a_zip_archive_is_installed_pinned_enabled_and_verified(tmp_path, family_dir):
    files = archive_files()
    archive = make_zip(tmp_path / "figshare.zip", files, extra={"deposit/README.txt": b"x"})
    mirror = tmp_path / "mirror"
    lock = jacobs.install_archive(archive, family_dir / "JAC2024.yaml", mirror)
    assert lock == lock_path(family_dir / "JAC2024.yaml") == family_dir / "JAC2024.lock"
    recorded = yaml.safe_load(lock.read_text())
    assert recorded["enabled"] is True and len(recorded["files"]) == 66
    for inner, data in files.items():
        rel = f"JAC2024/{inner}"
        assert recorded["files"][rel] == hashlib.sha256(data).hexdigest()
        assert (mirror / rel).read_bytes() == data
    assert recorded["archive"]["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    registry = load_registry(family_dir, DATASET_SCHEMA)
    spec = registry.get("JAC2024_concrete")
    assert spec.enabled and "JAC2024_concrete" in registry.enabled_ids()
    entry = registry.files["JAC2024/concrete/residuals_leaveout.csv"]
    assert entry.sha256 == recorded["files"][entry.path] and entry.mirror == str(mirror)
    raw = tmp_path / "raw"
    for rel in spec.source_files:  # the fetch rule: from the lock's mirror, verified
        fetch_file(registry.files[rel], raw / rel, mirrors=[], data_root=raw)
    prepared = prepare_dataset(spec, raw)
    assert prepared.report["M"] == 80
    # a file changed later is refused by the next preparation and by the next fetch
    (raw / spec.source_files[0]).write_bytes(files[f"concrete/{NAMES[0]}"] + b"0.5\n")
    with pytest.raises(DataError, match="no longer matches the SHA-256 pinned"):
        prepare_dataset(spec, raw)
    (mirror / spec.source_files[0]).write_bytes(b"residuals\n1.0\n")
    (raw / spec.source_files[0]).unlink()
    with pytest.raises(Exception, match="checksum mismatch"):
        fetch_file(registry.files[spec.source_files[0]], raw / spec.source_files[0],
                   data_root=raw)


def test_a_folder_archive_without_wrapping_folder_is_installed(tmp_path, family_dir):
    files = archive_files(1)
    folder = tmp_path / "unpacked"
    for inner, data in files.items():
        (folder / inner).parent.mkdir(parents=True, exist_ok=True)
        (folder / inner).write_bytes(data)
    code = jacobs.main([str(folder), "--family-file", str(family_dir / "JAC2024.yaml"),
                        "--mirror", str(tmp_path / "mirror")])
    assert code == 0
    assert len(yaml.safe_load((family_dir / "JAC2024.lock").read_text())["files"]) == 66


def test_a_symlink_in_a_folder_archive_is_refused(tmp_path, family_dir):
    folder = tmp_path / "unpacked"
    for inner, data in archive_files().items():
        (folder / inner).parent.mkdir(parents=True, exist_ok=True)
        (folder / inner).write_bytes(data)
    secret = tmp_path / "secret.csv"
    secret.write_text(SECRET)
    target = folder / "concrete" / NAMES[0]
    target.unlink()
    target.symlink_to(secret)
    with pytest.raises(DataError, match="a symbolic link or not a regular file"):
        jacobs.install_archive(folder, family_dir / "JAC2024.yaml", tmp_path / "mirror")
    assert not (family_dir / "JAC2024.lock").exists()


def test_a_missing_folder_or_file_is_listed_and_nothing_written(tmp_path, family_dir, capsys):
    files = archive_files()
    del files[f"concrete/{NAMES[0]}"], files[f"concrete/{NAMES[1]}"]
    del files[f"heusler/{NAMES[1]}"]
    archive = make_zip(tmp_path / "partial.zip", files)
    code = jacobs.main([str(archive), "--family-file", str(family_dir / "JAC2024.yaml"),
                        "--mirror", str(tmp_path / "mirror")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "(33 folders, 66 files; 3 not found under 'deposit/')" in err
    assert "1 folder(s) missing: concrete" in err
    assert f"file(s) missing: heusler/{NAMES[1]}" in err and "nothing was written" in err
    assert not (tmp_path / "mirror").exists() and not (family_dir / "JAC2024.lock").exists()


def test_zip_member_names_cannot_escape_and_stay_unread(tmp_path, family_dir):
    files = archive_files()
    evil = {"../escape.csv": b"x", "/abs.csv": b"x", "deposit\\win.csv": b"x",
            f"../{'concrete'}/{NAMES[0]}": b"residuals\n9\n"}
    archive = make_zip(tmp_path / "evil.zip", files, extra=evil)
    mirror = tmp_path / "work" / "mirror"
    jacobs.install_archive(archive, family_dir / "JAC2024.yaml", mirror)
    assert not (tmp_path / "work" / "escape.csv").exists()
    assert not (tmp_path / "escape.csv").exists() and not Path("/abs.csv").exists()
    assert (mirror / "JAC2024" / "concrete" / NAMES[0]).read_bytes() == \
        files[f"concrete/{NAMES[0]}"]
    written = sorted(p.relative_to(mirror).as_posix() for p in mirror.rglob("*") if p.is_file())
    assert written == sorted(f"JAC2024/{n}" for n in files)


def test_oversized_and_symlinked_zip_members_are_refused(tmp_path, family_dir, monkeypatch):
    files = archive_files()
    monkeypatch.setattr(jacobs, "MAX_FILE_BYTES", 4096)
    big = dict(files)
    big[f"concrete/{NAMES[0]}"] = b"residuals\n" + b"0\n" * 100_000  # 200 kB, compresses well
    archive = make_zip(tmp_path / "big.zip", big)
    with pytest.raises(DataError, match="more than the 4096 allowed for one file"):
        jacobs.install_archive(archive, family_dir / "JAC2024.yaml", tmp_path / "mirror")
    monkeypatch.setattr(jacobs, "MAX_FILE_BYTES", 512 << 20)
    linked = tmp_path / "link.zip"
    with zipfile.ZipFile(linked, "w") as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo("deposit/" + name)
            if name == f"concrete/{NAMES[0]}":
                info.external_attr = (0o120777 << 16)  # a symbolic link to /etc/passwd
                data = b"/etc/passwd"
            zf.writestr(info, data)
    with pytest.raises(DataError, match="a symbolic link inside the zip file"):
        jacobs.install_archive(linked, family_dir / "JAC2024.yaml", tmp_path / "mirror")
    assert not (family_dir / "JAC2024.lock").exists()


def test_a_lock_that_contradicts_a_pin_or_is_malformed_is_refused(tmp_path, family_dir):
    archive = make_zip(tmp_path / "a.zip", archive_files())
    lock = jacobs.install_archive(archive, family_dir / "JAC2024.yaml", tmp_path / "mirror")
    doc = yaml.safe_load((family_dir / "JAC2024.yaml").read_text())
    doc["files"][0]["sha256"] = "0" * 64
    (family_dir / "JAC2024.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    with pytest.raises(ConfigError, match="in the lock file but 0{64} in JAC2024.yaml"):
        load_registry(family_dir, DATASET_SCHEMA)
    shutil.copy(SHIPPED, family_dir / "JAC2024.yaml")
    recorded = yaml.safe_load(lock.read_text())
    recorded["files"]["JAC2024/concrete/residuals_leaveout.csv"] = "abc"
    lock.write_text(yaml.safe_dump(recorded))
    with pytest.raises(ConfigError, match="is not 64 hex digits"):
        load_registry(family_dir, DATASET_SCHEMA)
    lock.unlink()
    assert not load_registry(family_dir, DATASET_SCHEMA).get("JAC2024_concrete").enabled


# --- one uncertainty for every row in the simulated-reference stage (simref_set) -------------


def test_simref_statistics_comparing_uncertainties_are_not_testable_on_a_constant_u():
    from uqval import simref

    rng = np.random.default_rng(0)
    e, u = 0.7 * rng.standard_normal(400), np.full(400, 0.7)
    stats = [simref.as_statistic(s, 20) for s in ("ZMS", "CC", "ENCE", "ZMSE")]
    refs = {"N": simref.simulated_references(u, stats, "normal", 50, 1),
            "T": simref.simulated_references(u, stats, ("t", 6), 50, 2)}
    out = {}
    for i, stat in enumerate(stats):
        v = simref.validate_statistic(e, u, stat, n_boot=100, n_mc=50, seed=3, all_schemes=True,
                                      references={k: r[i] for k, r in refs.items()})
        out[stat.name] = v
        assert v.as_row()["verdict"] == v.verdict
    assert out["ZMS"].verdict in ("validated", "not validated")
    assert out["ZMS"].estimate == pytest.approx(np.mean((e / u) ** 2), rel=1e-12)
    for name in ("CC", "ENCE", "ZMSE"):
        assert out[name].verdict == "not testable"
        assert "one uncertainty value (0.7) in every row" in out[name].reason


# --- round 3b: numbers a YAML parser turns into exceptions or NaN ----------------------------


@pytest.mark.parametrize(("value", "problem"), [
    ("9" * 5000, "an integer of 5000 characters, too long to be read at line"),
    (".nan", "'.nan' is not a finite number"), ("-.inf", "'-.inf' is not a finite number"),
])
def test_numbers_yaml_cannot_hold_are_refused_at_their_line(make_family, value, problem):
    """A 5000-digit integer raised Python's bare int-conversion ValueError (no file named); a
    .nan threshold was accepted and filters nothing (every comparison with NaN is False)."""
    raw, ddir = make_family({"T/a.csv": rows_csv()}, [entry("set1")])
    path = ddir / "TEST.yaml"
    text = path.read_text().replace("datasets:\n", "defaults:\n  filters:\n    min_uE_rel_sd: "
                                    f"{value}\ndatasets:\n", 1)
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"TEST.yaml: not valid YAML: {re.escape(problem)}"):
        load_registry(ddir, DATASET_SCHEMA)


def test_a_local_path_with_an_environment_variable_says_it_is_not_expanded(tmp_path,
                                                                             monkeypatch):
    from uqval.pipeline.registry import resolve_local

    yaml_file = tmp_path / "d.yaml"
    yaml_file.write_text("")
    with pytest.raises(ConfigError, match=r"environment variables such as '\$HOME' are not "
                                          "expanded"):
        resolve_local(yaml_file, "$HOME/preds.csv")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "preds.csv").write_text(rows_csv())
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # ~ is expanded (documented), $HOME not
    assert resolve_local(yaml_file, "~/preds.csv") == (tmp_path / "home" / "preds.csv").resolve()


def test_workflow_config_bounds_resample_counts_at_load():
    """--config analysis=... with n_boot 10^12 passed the schema and failed in every job."""
    import copy

    import jsonschema

    root = Path(__file__).resolve().parents[1]
    schema = yaml.safe_load((root / "config" / "schema" / "config.schema.yaml").read_text())
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    jsonschema.validate(config, schema)  # the shipped counts are within the bound
    bad = copy.deepcopy(config)
    bad["analysis"]["bootstrap"]["n_boot"] = 10**12
    with pytest.raises(jsonschema.ValidationError, match="greater than the maximum of 1000000"):
        jsonschema.validate(bad, schema)
