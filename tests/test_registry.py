from pathlib import Path

import pytest
import yaml

from conftest import DATASET_SCHEMA, ROOT, SHARED_DATA, require_shared_data
from uqval._internal.errors import ConfigError
from uqval.pipeline.registry import load_registry


def test_shipped_registry_lists_literature_datasets():
    reg = load_registry(ROOT / "config" / "literature", DATASET_SCHEMA)
    enabled = reg.enabled_ids()
    assert len([d for d in enabled if d.startswith("PAL2022_")]) == 12
    assert {"QM9_E_cal", "QM9_E_uncal", "QM9_U0", "HU2022_feature", "HU2022_latent",
            "logP_10k_a_LS-GCN", "logP_150k_LS-GCN"} <= set(enabled)
    jacobs = [d for d in reg.datasets.values() if d.family == "JAC2024"]
    assert len(jacobs) == 33 and not any(d.enabled for d in jacobs)
    assert all(d.needs_internet for d in jacobs)
    # every registered file of an enabled family has a pinned checksum and an upstream URL
    enabled_files = {f for d in enabled for f in reg.get(d).source_files}
    for path in enabled_files:
        assert reg.files[path].sha256 and reg.files[path].url


def test_shipped_checksums_match_manifest():
    manifest = require_shared_data(SHARED_DATA / "MANIFEST.csv")
    import pandas as pd

    man = pd.read_csv(manifest).set_index("file")
    reg = load_registry(ROOT / "config" / "literature", DATASET_SCHEMA)
    for path, entry in reg.files.items():
        if path in man.index:
            assert entry.sha256 == man.loc[path, "sha256"], path
            assert entry.url == man.loc[path, "upstream"], path


def _write(tmp_path: Path, text: str) -> Path:
    ddir = tmp_path / "datasets"
    ddir.mkdir()
    (ddir / "BAD.yaml").write_text(text)
    return ddir


GOOD = {
    "family": "BAD",
    "citation": "x",
    "files": [{"path": "a.csv", "sha256": "0" * 64, "url": None}],
    "datasets": [{"id": "d1", "sources": [{"file": "a.csv"}], "quantities": {"E": "E", "uE": "u"}}],
}


def test_malformed_yaml_names_file(tmp_path):
    ddir = _write(tmp_path, "family: [unclosed\n")
    with pytest.raises(ConfigError, match=r"BAD\.yaml: not valid YAML"):
        load_registry(ddir, DATASET_SCHEMA)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(famly="x"), r"Additional properties .*famly"),
        (lambda d: d["files"][0].update(sha256="xyz"), r"files/0/sha256"),
        (lambda d: d["datasets"][0]["quantities"].pop("E"), r"'E' is a required property"),
        (lambda d: d["datasets"][0].update(filters={"min_uE_rel_sd": "big"}), r"min_uE_rel_sd"),
    ],
)
def test_schema_violations_name_file_and_key(tmp_path, mutate, message):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    mutate(doc)
    ddir = _write(tmp_path, yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match=r"BAD\.yaml: does not match the dataset schema") as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert __import__("re").search(message, str(info.value))


def test_source_must_be_a_registered_file(tmp_path):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    doc["datasets"][0]["sources"][0]["file"] = "other.csv"
    ddir = _write(tmp_path, yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match="reads 'other.csv', which is not listed"):
        load_registry(ddir, DATASET_SCHEMA)


def test_dataset_needs_an_uncertainty(tmp_path):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    doc["datasets"][0]["quantities"] = {"E": "E"}
    ddir = _write(tmp_path, yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match="neither quantities.uE nor quantities.intervals"):
        load_registry(ddir, DATASET_SCHEMA)


def test_unknown_dataset_id_lists_known_ones(tmp_path):
    ddir = _write(tmp_path, yaml.safe_dump(GOOD))
    reg = load_registry(ddir, DATASET_SCHEMA)
    with pytest.raises(ConfigError, match=r"Unknown dataset id 'nope'.*d1"):
        reg.get("nope")


def test_duplicate_ids_across_files(tmp_path):
    ddir = _write(tmp_path, yaml.safe_dump(GOOD))
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    doc["family"] = "OTHER"
    doc["files"][0]["path"] = "b.csv"
    doc["datasets"][0]["sources"][0]["file"] = "b.csv"
    (ddir / "OTHER.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match="dataset id 'd1' is already defined"):
        load_registry(ddir, DATASET_SCHEMA)


def test_family_defaults_are_merged(tmp_path):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    doc["defaults"] = {"units": "eV", "filters": {"min_uE_rel_sd": 1e-6}}
    doc["datasets"][0]["filters"] = {"zero_error": True}
    ddir = _write(tmp_path, yaml.safe_dump(doc))
    spec = load_registry(ddir, DATASET_SCHEMA).get("d1")
    assert spec.units == "eV"
    assert spec.entry["filters"] == {"min_uE_rel_sd": 1e-6, "zero_error": True}


def test_invalid_files_of_a_users_folder_are_skipped_whole_and_named(tmp_path):
    """skip_invalid: a user's bad file (schema, YAML, an id or a file path the literature
    registry already has, a link outside the folder) is skipped whole with its reason; the
    user's good file and the literature registry load; a bad literature file still raises."""
    users = tmp_path / "mine"
    users.mkdir()

    def family(name: str, ids: list[str], path: str) -> dict:
        return {"family": name, "citation": "x", "files": [{"path": path, "sha256": "0" * 64, "url": None}],
                "datasets": [{"id": i, "sources": [{"file": path}], "quantities": {"E": "E", "uE": "u"}}
                             for i in ids]}

    (users / "A_GOOD.yaml").write_text(yaml.safe_dump(family("GOOD", ["mine_ok"], "mine/ok.csv")))
    (users / "B_SCHEMA.yaml").write_text("family: B\ncitation: x\nfiles: []\ndatasets: []\n")
    (users / "C_YAML.yaml").write_text("family: [unclosed\n")
    # a new file and a new id, then an id the literature registry defines: nothing of it is kept
    (users / "D_TWIN.yaml").write_text(yaml.safe_dump(family("TWIN", ["twin_new", "QM9_U0"], "mine/twin.csv")))
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(yaml.safe_dump(family("LINK", ["linked"], "mine/link.csv")))
    (users / "E_LINK.yaml").symlink_to(outside)

    reg = load_registry([ROOT / "config" / "literature", users], DATASET_SCHEMA, skip_invalid=[users])
    assert "mine_ok" in reg.datasets and "QM9_U0" in reg.datasets
    assert reg.datasets["QM9_U0"].family != "TWIN"
    assert not {"twin_new", "linked"} & set(reg.datasets)
    assert "mine/twin.csv" not in reg.files and "mine/link.csv" not in reg.files
    reasons = {Path(k).name: v for k, v in reg.skipped.items()}
    assert sorted(reasons) == ["B_SCHEMA.yaml", "C_YAML.yaml", "D_TWIN.yaml", "E_LINK.yaml"]
    assert "does not match the dataset schema" in reasons["B_SCHEMA.yaml"]
    assert "not valid YAML" in reasons["C_YAML.yaml"]
    assert "dataset id 'QM9_U0' is already defined" in reasons["D_TWIN.yaml"]
    assert "symbolic link" in reasons["E_LINK.yaml"] and "elsewhere" not in reasons["E_LINK.yaml"]
    with pytest.raises(ConfigError, match=r"(?s)Unknown dataset id 'twin_new'.*Skipped as invalid.*D_TWIN\.yaml"):
        reg.get("twin_new")
    # without skip_invalid the same folder stops at its first bad file
    with pytest.raises(ConfigError, match=r"B_SCHEMA\.yaml"):
        load_registry([ROOT / "config" / "literature", users], DATASET_SCHEMA)


# --- Datasets given as parts (`parts:`, issue 41) ----------------------------------------------

def _parts_family(tmp_path, **entry):
    """A family file with one dataset given as parts (no files: list), beside a folder preds/."""
    ddir = tmp_path / "datasets"
    (ddir / "preds").mkdir(parents=True, exist_ok=True)
    dataset = {"id": "p1", "parts": "preds", "quantities": {"E": "err", "uE": "sigma"}, **entry}
    doc = {"family": "PARTS", "citation": "x", "datasets": [dataset]}
    (ddir / "PARTS.yaml").write_text(yaml.safe_dump(doc))
    return ddir


def test_parts_dataset_resolves_its_folder_and_columns(tmp_path):
    """parts: relative to the YAML's folder (a folder or a glob), no files: list needed, the
    columns by the schema's keys; uE: sqrt(COL) reads variances."""
    from uqval.pipeline.parts import parts_columns
    from uqval.validation.parts import PartColumns

    ddir = _parts_family(tmp_path, quantities={"E": "err", "uE": "sqrt(var)"},
                         features={"temp": "temp"}, group="mol")
    spec = load_registry(ddir, DATASET_SCHEMA).get("p1")
    assert spec.parts == str(ddir.resolve() / "preds") and spec.source_files == []
    assert parts_columns(spec.entry, "p1") == PartColumns(
        "var", error="err", features=("temp",), group="mol", variance=True, drop_invalid=True)
    ddir = _parts_family(tmp_path, parts="preds/*.parquet",
                         quantities={"y_true": "y", "y_pred": "mu", "uE": "sd"},
                         filters={"nonpositive_uncertainty": False})
    spec = load_registry(ddir, DATASET_SCHEMA).get("p1")
    assert spec.parts == str(ddir.resolve() / "preds" / "*.parquet")
    assert parts_columns(spec.entry, "p1") == PartColumns("sd", y_true="y", y_pred="mu")


@pytest.mark.parametrize("entry, message", [
    ({"sources": [{"file": "a.csv"}]}, "gives both parts and sources"),
    ({"quantities": {"E": "y - mu", "uE": "sigma"}}, "quantities.E: 'y - mu' is not a column name"),
    ({"quantities": {"E": "err", "uE": "2 * sigma"}}, "quantities.uE: '2 [*] sigma' is not a column"),
    ({"quantities": {"E": "err"}}, r"quantities.uE \(the uncertainty column\) is needed"),
    ({"quantities": {"E": "err", "y_true": "y", "y_pred": "mu", "uE": "s"}}, "not both"),
    ({"quantities": {"E": "err", "uE": "s", "intervals": {"95": "w"}}},
     "quantities.intervals is not available for a dataset given as parts"),
    ({"features": {"t": "temperature"}}, "features.t: with parts a feature is a column, written 't: t'"),
    ({"filters": {"min_uE_rel_sd": 1e-6}}, "filters.min_uE_rel_sd is not available"),
    ({"parts": "missing"}, r"parts 'missing': folder .*missing does not exist"),
    ({"parts": "nowhere/*.parquet"}, r"the folder before the first \*, \? or \[ .*nowhere does not"),
])
def test_parts_dataset_errors_name_the_field(tmp_path, entry, message):
    ddir = _parts_family(tmp_path, **entry)
    with pytest.raises(ConfigError, match=message) as info:
        load_registry(ddir, DATASET_SCHEMA)
    assert "PARTS.yaml" in str(info.value)


def test_a_family_without_files_still_needs_them_for_sources(tmp_path):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    del doc["files"]
    ddir = _write(tmp_path, yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match="reads 'a.csv', which is not listed under files"):
        load_registry(ddir, DATASET_SCHEMA)
