"""Shared state of the workflow: effective configuration, dataset registry and lists, seeds,
path helpers. Rules live in stages/ (one file per per-dataset stage), papers/ (one file per
paper) and report.smk."""

import copy
import dataclasses
import glob
import hashlib
import re
import sys

sys.path.insert(0, f"{UQVAL_DIR}/src")

from snakemake.io import get_flag_value, is_flagged  # noqa: E402

from uqval._internal.atomic import remove_stale_temporaries, write_text  # noqa: E402
from uqval._internal.errors import UqvalError  # noqa: E402
from uqval._internal.parts import PartsSource  # noqa: E402
from uqval.pipeline.registry import load_registry  # noqa: E402
from uqval.pipeline.workflow_config import (
    registry_dirs,
    selected_datasets,
)  # noqa: E402
from uqval._internal.seeding import derive_seed  # noqa: E402


def _deep_update(base, override):
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_update(merged[key], value)
        else:
            merged[key] = value
    return merged


# Analysis parameters of the selected profile (paper values, or the quick overrides).
ANALYSIS = _deep_update(
    config["analysis"],
    config.get("profiles", {}).get(config["profile"], {}).get("analysis", {}),
)

# The built-in literature registry plus the user's datasets_dir. A bad built-in file or an empty
# selection stops the run with uqval's message alone (one block, no traceback).
try:
    # Datasets chosen on the command line (`--config datasets=a,b`): the run builds only these.
    _OVERRIDES = (
        getattr(getattr(workflow, "config_settings", None), "config", None) or {}
    )
    USER_SELECTION = selected_datasets(
        config.get("datasets"), explicit="datasets" in _OVERRIDES
    )
    _REGISTRY_DIRS = registry_dirs(
        f"{UQVAL_DIR}/config/literature", config["datasets_dir"]
    )
    # A user's file that fails its checks is skipped (and named) rather than stopping every
    # target: only the targets that need its datasets stop, with Registry.get's message.
    REGISTRY = load_registry(
        _REGISTRY_DIRS,
        f"{UQVAL_DIR}/config/schema/dataset.schema.yaml",
        skip_invalid=_REGISTRY_DIRS[1:],
    )
    for _reason in REGISTRY.skipped.values():
        print(f"Warning: skipped {_reason}", file=sys.stderr)
    if USER_SELECTION:
        DATASETS = [REGISTRY.get(d).id for d in USER_SELECTION]
    else:
        DATASETS = REGISTRY.enabled_ids() + [
            REGISTRY.get(d).id
            for d in config.get("extra_datasets", [])
            if d not in REGISTRY.enabled_ids()
        ]
except UqvalError as exc:
    sys.exit(f"Error: {exc}")

# The user's datasets (from datasets_dir, not the built-in registry): listed first in the
# gallery, with their pages results/datasets/<id>/ built by `all`.
_BUILTIN = os.path.realpath(f"{UQVAL_DIR}/config/literature")
USER_DATASETS = [
    d
    for d in DATASETS
    if os.path.dirname(os.path.realpath(REGISTRY.get(d).config_file)) != _BUILTIN
]

# Relative expected_dir: a folder of this workflow (the papers' printed values).
EXPECTED_DIR = os.path.join(UQVAL_DIR, config["expected_dir"])

# Temporaries of atomic writes killed by SIGKILL (uqval._internal.atomic): removed at start-up.
remove_stale_temporaries("data")
remove_stale_temporaries("results")

# Long-format value tables (key,value) compared with the papers by the scoreboard; each stage
# and paper appends the tables it produces.
VALUE_TABLES = []

# Output folders shared by a per-dataset stage, the dataset pages and a paper.
SR = "results/simref"
UC = "results/ucc"


def _alternation(names):
    """A regular expression matching exactly the `names` (none: matching nothing)."""
    if not names:
        return "(?!)"
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


wildcard_constraints:
    dataset=_alternation(REGISTRY.datasets),
    rawfile=_alternation(REGISTRY.files),


# Datasets given as parts (`parts:`, a folder or glob of Parquet files): validated by the
# rules of stages/parts.smk, one job per part and pass; no prepared table, so none of the
# stages that read one (prepare, screening, simulated references, UCC, flowchart) and their
# own page rule (their wildcard constraints give the page rules disjoint ids).
ALL_PARTS_IDS = [d for d, spec in REGISTRY.datasets.items() if spec.parts is not None]
SOURCE_IDS = [d for d, spec in REGISTRY.datasets.items() if spec.parts is None]
PARTS_DATASETS = [d for d in DATASETS if REGISTRY.get(d).parts is not None]
PREPARED_DATASETS = [d for d in DATASETS if REGISTRY.get(d).parts is None]


def _list_parts(dataset):
    try:
        return [str(p) for p in PartsSource(REGISTRY.get(dataset).parts).files()]
    except UqvalError as exc:
        sys.exit(f"Error: dataset {dataset}: {exc}")


# The parts of each selected dataset, in reading order (listed when the workflow is planned;
# rule parts_index refuses a listing that changed since).
PARTS_FILES = {d: _list_parts(d) for d in PARTS_DATASETS}


def parts_file(wildcards):
    """Part k of a dataset (its Parquet file, an input: editing it re-runs its jobs)."""
    return PARTS_FILES[wildcards.dataset][int(wildcards.k)]


def parts_outputs(kind):
    """Input function: the file of pass `kind` (first, second) of every part."""

    def files(wildcards):
        d = wildcards.dataset
        return [f"results/parts/{d}/{kind}/{k}.npz" for k in range(len(PARTS_FILES[d]))]

    return files


def parts_columns_param(wildcards):
    """The columns of a dataset given as parts (uqval.pipeline.parts.parts_columns), as
    plain data for params: (any change of them re-runs the dataset's jobs)."""
    from uqval.pipeline.parts import parts_columns

    spec = REGISTRY.get(wildcards.dataset)
    return dataclasses.asdict(parts_columns(spec.entry, spec.id))


PARTS_CONSTRAINT = _alternation(ALL_PARTS_IDS)
PARTS_SUBSAMPLE = ANALYSIS["validate"]["parts_subsample"]


def dataset_raw_files(wildcards):
    """Files a dataset reads: fetched files under data/raw/, a user's local files in place
    (direct inputs: editing one rebuilds the dataset)."""
    spec = REGISTRY.get(wildcards.dataset)
    return [spec.local_files.get(p, f"data/raw/{p}") for p in spec.source_files]


def dataset_spec(wildcards):
    """The registry entry of a dataset as plain data (params: any change of the YAML entry,
    pin or file list re-runs the dataset's jobs, and nothing else's)."""
    spec = dataclasses.asdict(REGISTRY.get(wildcards.dataset))
    if os.path.abspath(spec["config_file"]).startswith(os.getcwd() + os.sep):
        spec["config_file"] = os.path.relpath(spec["config_file"])
    return spec


def dataset_features(wildcards):
    """Input features (names without the X_ prefix) of a dataset."""
    return list(REGISTRY.get(wildcards.dataset).entry.get("features", {}))


def dataset_levels(wildcards):
    """Coverage levels P (percent) of an interval dataset's prediction intervals."""
    return sorted(
        float(p)
        for p in REGISTRY.get(wildcards.dataset)
        .entry["quantities"]
        .get("intervals", {})
    )


# Datasets with standard uncertainties uE (average-calibration and screening stages).
UNCERTAINTY_DATASETS = [d for d in PREPARED_DATASETS if REGISTRY.get(d).has_uncertainty]
# Datasets with uE or half-widths U_P (the flowchart of results/validate/ and the UCC gain);
# quantile sets and [low, high] intervals are validated by coverage on their pages only.
BAND_DATASETS = [d for d in PREPARED_DATASETS if REGISTRY.get(d).has_band]


def paper_sets(paper):
    """Datasets of a paper, or [] (paper outputs skipped) when some are not built."""
    wanted = config["papers"][paper]["sets"]
    missing = [d for d in wanted if d not in DATASETS]
    if missing and not USER_SELECTION:
        logger.warning(
            f"{paper} paper outputs skipped: datasets not built: {', '.join(missing)}"
        )
    return [] if missing else wanted


# The nine sets of the heavy-tails paper, also those of the simref paper.
HEAVYTAILS_SETS = paper_sets("heavytails")
# The Jacobs et al. sets (heavy-tails Tables 5-6, UCC literature gains).
JACOBS_SETS = sorted(
    (
        d
        for d in UNCERTAINTY_DATASETS
        if REGISTRY.get(d).family == config["papers"]["heavytails"].get("jacobs_family")
    ),
    key=str.lower,
)


def dataset_seed(*labels):
    """Seed of a job, derived from analysis.seed and what the job computes."""
    return derive_seed(ANALYSIS["seed"], *labels)


def png_pdf_outputs(folder, paper, figs):
    """PNG (report-tagged, captioned by workflow/report/<paper>_<fig>.rst) and PDF outputs of
    figures, named <fig>_png / <fig>_pdf. For rules in workflow/rules/papers/: Snakemake reads
    a caption path relative to the file of the rule that uses it."""
    out = {}
    for fig in figs:
        out[f"{fig}_png"] = report(
            f"{folder}/{fig}.png",
            caption=f"../../report/{paper}_{fig}.rst",
            category=paper,
        )
        out[f"{fig}_pdf"] = f"{folder}/{fig}.pdf"
    return out


def library_listing(package_dir):
    """`sha256sum` listing (digest, two spaces, path relative to src/; one line per file,
    sorted by path) of every file of the package; caches (__pycache__, also numba's), hidden
    and backup files excluded."""
    src = os.path.dirname(package_dir)
    entries = []
    for folder, dirs, files in os.walk(package_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for name in files:
            if name.startswith((".", "#")) or name.endswith(("~", ".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            entries.append((os.path.relpath(path, src).replace(os.sep, "/"), digest))
    return "".join(f"{digest}  {rel}\n" for rel, digest in sorted(entries))


def write_if_changed(path, text):
    """Write `text` to `path` (atomically) unless the file already holds it, so that its
    modification time changes only with its content."""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return
    write_text(path, text)


def validated_by_engine(dataset):
    """True for a dataset given by E and uE: rule dataset_engine validates it (the page of a
    predictive dataset or of half-widths is validated by dataset_page itself)."""
    spec = REGISTRY.get(dataset)
    return spec.predictive_kind is None and spec.has_uncertainty


def dataset_page_inputs(wildcards):
    """Prepared table and sidecar, the UCC gain (uE or half-widths), and the simulated
    references and screening (standard uncertainties) or the flowchart's interval checks
    (half-widths); quantile sets and [low, high] intervals need the prepared files only.
    """
    d = wildcards.dataset
    spec = REGISTRY.get(d)
    inputs = {
        "table": f"data/prepared/{d}.csv",
        "report": f"data/prepared/{d}.json",
    }
    if not spec.has_band:
        return inputs
    inputs["ucc"] = f"{UC}/datasets/{d}.csv"
    if validated_by_engine(d):
        inputs["engine"] = f"results/engine/{d}"
    if spec.has_uncertainty:
        inputs.update(
            screen=f"results/screen/{d}.json",
            simref=f"{SR}/sets/{d}.json",
            zeta=f"{SR}/sets/{d}_zeta.csv",
        )
    else:
        inputs.update(
            checks=f"results/validate/{d}.csv", summary=f"results/validate/{d}.md"
        )
    return inputs


def _flat(items):
    for item in items:
        if isinstance(item, (list, tuple)) or hasattr(item, "keys"):
            yield from _flat(list(item))
        else:
            yield str(item)


def gallery_items(targets, hidden_inputs=()):
    """Report-tagged outputs of wildcard-free rules among `targets`: id (caption file name),
    category, path, rule, inputs (but `hidden_inputs`) and the rule's constant parameters.
    """
    wanted = set(_flat(targets))
    hidden = set(_flat(hidden_inputs))
    items = []
    for r in workflow.rules:
        if r.has_wildcards():
            continue
        for f in r.output:
            if str(f) not in wanted or not is_flagged(f, "report"):
                continue
            flag = get_flag_value(f, "report")
            items.append(
                {
                    "item_id": os.path.splitext(os.path.basename(str(flag.caption)))[0],
                    "category": flag.category,
                    "path": str(f),
                    "rule": r.name,
                    "inputs": sorted(p for p in _flat(r.input) if p not in hidden),
                    "params": {k: v for k, v in r.params.items() if not callable(v)},
                }
            )
    return items
