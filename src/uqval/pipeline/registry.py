"""Dataset registry: one YAML file per dataset family: the papers' families in
``config/literature/`` and a user's in ``datasets_dir`` (default ``config/datasets/``).

Each file is validated against ``config/schema/dataset.schema.yaml``; a family's ``defaults``
are merged into each of its datasets. The registry answers which files exist (with their
SHA-256 and upstream address) and how each dataset is built from them.

Dataset files are exchanged between users, so they are read as untrusted input:

* at most ``MAX_YAML_BYTES`` (1 MiB) per file; YAML anchors/aliases (``&a``/``*a``, the
  "billion laughs" bomb), duplicate keys and non-text keys are refused;
* ``files[].path`` must be a relative POSIX path without ``.``/``..`` or empty segments,
  absolute paths or backslashes (:func:`check_relative_path`), and after joining it must stay
  under its root (:func:`resolve_under`); paths are compared case-insensitively for duplicates;
* family names, dataset ids and file paths are unique across all files of the registry
  (ids also without regard to case: ``a`` and ``A`` would share a folder on macOS/Windows);
* dataset ids (:func:`check_dataset_id`): at most ``MAX_ID_LENGTH`` (64) characters; not a
  reserved name (``index``, ``index.html``, ``all``, ``gallery``, device names such as
  ``con``, ...: an output named like a page of the workflow makes its graph cyclic); no
  slash, no ``..``, not ending in ``.``, ``-`` or ``_`` or in a file suffix the workflow
  writes (``.html``, ``.csv``, ...), and not ending in a run of more than
  ``MAX_TRAILING_REPEAT`` equal characters (Snakemake matches wildcards by regular
  expressions: such ids make file names ambiguous or slow to match);
* feature names must not be the workflow's own column names (``E``, ``uE``, ``Z``, ``V``,
  ``row``, ``U_...``, without regard to case): they would collide with them in the last job;
* a family file must be a regular file (a FIFO or a device named ``*.yaml`` is refused
  without being opened) inside its folder: a symbolic link to a file elsewhere is refused
  and named, never quoted; messages about a file that is not a dataset family file (no
  ``family``/``datasets`` keys, or invalid YAML) give the line and column, not its content;
* ``parts:`` (a dataset given as a folder or glob of Parquet files) is resolved as a
  ``local:`` file (absolute, or relative to the YAML file's folder) and must name an existing
  folder; its quantities, features and group must be column names
  (:func:`uqval.pipeline.parts.parts_columns`); the files, listed when the workflow is
  planned, may not lead out of that folder (:class:`uqval._internal.parts.PartsSource`);
* every expression is checked (:func:`uqval.pipeline.expression.check_expression`) and every
  ``key_value`` pattern compiled and screened (:func:`check_key_value_pattern`) at load time.

Every problem raises :class:`~uqval._internal.errors.ConfigError` naming the file, the field and the
reason, with long offending values shortened.
"""

from __future__ import annotations

import math
import posixpath
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema
import yaml

from uqval._internal.errors import ConfigError
from uqval.pipeline.expression import check_expression
from uqval.pipeline.quantities import check_quantities, quantity_expressions
from uqval.pipeline.workflow_config import deep_merge

__all__ = [
    "MAX_ID_LENGTH",
    "LOCAL_SUFFIXES",
    "LOCK_SUFFIX",
    "MAX_YAML_BYTES",
    "RESERVED_FEATURES",
    "RESERVED_IDS",
    "DatasetSpec",
    "RegisteredFile",
    "Registry",
    "check_dataset_id",
    "check_feature_name",
    "check_key_value_pattern",
    "apply_lock",
    "check_relative_path",
    "load_family",
    "load_registry",
    "load_yaml",
    "lock_path",
    "resolve_local",
    "resolve_under",
]

SCHEMA_NAME = "dataset.schema.yaml"
MAX_YAML_BYTES = 1 << 20
MAX_PATTERN_LENGTH = 200
MAX_LISTED_ERRORS = 50
MAX_PATTERN_REPEATS = 4
MAX_ID_LENGTH = 64
"""Longest dataset id (ids name folders and files of every stage)."""
MAX_TRAILING_REPEAT = 3
"""Longest run of one character at the end of a dataset id."""
RESERVED_IDS = frozenset({
    "index", "index.html", "all", "gallery", "report", "summary", "datasets", "tables",
    "values", "sets", "figures", "logs", "data", "results",
    "con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
})
"""Ids refused without regard to case: pages and folders of the workflow, Windows devices."""
_WRITTEN_SUFFIXES = (".html", ".htm", ".csv", ".json", ".md", ".png", ".pdf", ".svg", ".tsv",
                     ".log", ".yaml", ".yml", ".txt", ".rst", ".zip", ".gz", ".parquet")
LOCAL_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".dat", ".parquet", ".pq")
"""Suffixes of a user's own file (``files: [{local: PATH}]``)."""
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip")
RESERVED_FEATURES = frozenset({"e", "ue", "z", "v", "row"})
"""Feature names refused without regard to case (the prepared table's own columns)."""
_MAX_SHOWN = 200


def _short(value: object, limit: int = _MAX_SHOWN) -> str:
    """``str(value)`` cut to ``limit`` characters, with the number of characters left out."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors/aliases, duplicate keys, keys that are not text,
    integers too long to convert (Python's 4300-digit limit) and non-finite numbers (``.nan``,
    ``.inf``: no setting of a dataset file is meant to be one, and a NaN threshold would
    silently filter nothing)."""

    def construct_yaml_int(self, node: Any) -> Any:
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.MarkedYAMLError(
                problem=f"an integer of {len(str(node.value))} characters, too long to be read",
                problem_mark=node.start_mark) from None

    def construct_yaml_float(self, node: Any) -> Any:
        value = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.MarkedYAMLError(
                problem=f"'{_short(node.value, 20)}' is not a finite number; give a number "
                "(or quote it if it is text)", problem_mark=node.start_mark)
        return value

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.MarkedYAMLError(
                problem="YAML anchors and aliases (&name, *name) are not allowed in dataset files",
                problem_mark=event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        self.flatten_mapping(node)
        seen: set[str] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.MarkedYAMLError(
                    problem=f"key {_short(key, 40)!r} is not text; quote it (e.g. \"95\")",
                    problem_mark=key_node.start_mark,
                )
            if key in seen:
                raise yaml.MarkedYAMLError(
                    problem=f"duplicate key '{_short(key, 40)}'", problem_mark=key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


def load_yaml(path: str | Path) -> Any:
    """Parse a YAML file of at most MAX_YAML_BYTES with the restricted loader.

    Raises ConfigError naming the file (and line) for unreadable, oversized or invalid files,
    anchors/aliases, duplicate keys, non-text keys and excessive nesting.
    """
    path = Path(path)
    try:
        info = path.stat()  # follows links, opens nothing: a FIFO is refused unread
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{path}: not a regular file (a FIFO, device or folder named "
                              "like a dataset file); refused without reading it")
        size = info.st_size
        if size > MAX_YAML_BYTES:
            raise ConfigError(
                f"{path}: {size} bytes, more than the {MAX_YAML_BYTES} allowed for a dataset file"
            )
        with path.open("rb") as fh:
            return yaml.load(fh, Loader=_StrictLoader)  # noqa: S506 (restricted SafeLoader)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {_yaml_problem(exc)}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid YAML: nested too deeply") from None



def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The problem and its line/column, without the excerpt of the file that PyYAML quotes
    (the file may not be a dataset file at all: a secrets file named in error)."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "syntax error"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return _short(str(problem).replace("\n", " "), 200) + where


def check_dataset_id(value: str, where: str) -> str:
    """Return the dataset id ``value`` or raise ConfigError with the rule it breaks (module
    docstring)."""
    shown = f"'{_short(value, 80)}'"
    reason = None
    folded = value.casefold()
    run = len(value) - len(value.rstrip(value[-1])) if value else 0
    if len(value) > MAX_ID_LENGTH:
        reason = f"it has {len(value)} characters, at most {MAX_ID_LENGTH} are allowed"
    elif folded in RESERVED_IDS:
        reason = ("it is a reserved name (a page or folder of the workflow, or a device name "
                  "on Windows)")
    elif "/" in value or "\\" in value or ".." in value:
        reason = "slashes and '..' are not allowed"
    elif value.endswith((".", "-", "_")):
        reason = "it must not end in '.', '-' or '_'"
    elif folded.endswith(_WRITTEN_SUFFIXES):
        reason = "it must not end in a file suffix (.html, .csv, ...)"
    elif run > MAX_TRAILING_REPEAT:
        reason = (f"it ends in {run} repeated '{value[-1]}'; at most {MAX_TRAILING_REPEAT} are "
                  "allowed (wildcard matching of file names)")
    if reason:
        raise ConfigError(f"{where}: dataset id {shown} is refused: {reason}; use letters, "
                          "digits and _ or - inside, such as FAMILY_set1")
    return value


def check_feature_name(name: str, where: str) -> str:
    """Return the feature ``name`` unless it is one of the prepared table's own columns."""
    if name.casefold() in RESERVED_FEATURES or name.casefold().startswith("u_"):
        raise ConfigError(f"{where}: feature name '{_short(name, 80)}' is reserved (the prepared "
                          "table's columns E, uE, Z, V, row and U_<level>, in any case); rename "
                          "the feature")
    return name


def check_relative_path(rel: Any, where: str) -> str:
    """Return ``rel`` if it is a safe relative POSIX path, else raise ConfigError.

    Refused: non-text, empty, absolute paths, backslashes, empty segments (``a//b``, trailing
    ``/``), ``.`` and ``..`` segments, and control characters. ``where`` names the file/field.
    """
    if not isinstance(rel, str) or not rel:
        raise ConfigError(f"{where}: the path must be a non-empty text, got {_short(repr(rel))}")
    reason = None
    if rel.startswith("/") or re.match(r"^[A-Za-z]:", rel):
        reason = "absolute paths are not allowed"
    elif "\\" in rel:
        reason = "backslashes are not allowed (use / between directories)"
    elif any(ord(c) < 32 for c in rel):
        reason = "control characters are not allowed"
    else:
        segments = rel.split("/")
        if any(s == "" for s in segments):
            reason = "empty path segments ('//' or a trailing '/') are not allowed"
        elif any(s in (".", "..") for s in segments):
            reason = "'.' and '..' segments are not allowed"
    if reason:
        raise ConfigError(
            f"{where}: path '{_short(rel)}' is refused: {reason}; write a path relative to the "
            f"data root such as FAMILY/file.csv"
        )
    return rel


def resolve_under(root: str | Path, rel: str, where: str = "path") -> Path:
    """``root / rel`` after checking ``rel`` (:func:`check_relative_path`) and that the resolved
    path (symbolic links followed) stays inside ``root``; ConfigError otherwise."""
    check_relative_path(rel, where)
    base = Path(root).resolve()
    target = (base / PurePosixPath(rel)).resolve()
    if not target.is_relative_to(base):
        raise ConfigError(
            f"{where}: path '{_short(rel)}' leads outside {root} (to {target}); refused"
        )
    return Path(root) / PurePosixPath(rel)


def resolve_local(yaml_file: str | Path, value: str, where: str = "files[].local") -> Path:
    """Absolute path of a user's own file ``{local: value}``: ``~`` expanded, relative paths
    taken from the folder of ``yaml_file``, symbolic links followed. ConfigError unless it
    names an existing regular file (the message gives the path tried)."""
    if any(ord(c) < 32 for c in value):
        raise ConfigError(f"{where}: path '{_short(value)}' has control characters; refused")
    given = Path(value).expanduser()
    target = (given if given.is_absolute() else Path(yaml_file).resolve().parent / given).resolve()
    if not target.exists():
        variable = re.search(r"\$\{?\w+\}?|%\w+%", value)
        hint = (f"; environment variables such as '{variable.group(0)}' are not expanded, write "
                "the path itself" if variable else "")
        raise ConfigError(
            f"{where}: local file '{_short(value)}' not found (looked for {target}); paths are "
            f"absolute or relative to the folder of {yaml_file}{hint}"
        )
    if not target.is_file():
        raise ConfigError(f"{where}: local file '{_short(value)}' ({target}) is not a regular file")
    suffixes = [x.lower() for x in target.suffixes[-2:]]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    if not suffixes or suffixes[-1] not in LOCAL_SUFFIXES:
        raise ConfigError(
            f"{where}: local file '{_short(value)}' is not named like a data table "
            f"({', '.join(LOCAL_SUFFIXES)}, optionally compressed); refused without reading it "
            "(a local: path must name your predictions, not another file)")
    return target


LOCK_SUFFIX = ".lock"
"""Suffix of a family's lock file (``JAC2024.lock`` beside ``JAC2024.yaml``), written by
``python -m uqval.pipeline.jacobs``: SHA-256 pins, the mirror folder and ``enabled``."""
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def lock_path(family_file: str | Path) -> Path:
    """The lock file beside a family file: ``JAC2024.yaml`` -> ``JAC2024.lock``."""
    return Path(family_file).with_suffix(LOCK_SUFFIX)


def apply_lock(path: Path, doc: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The family document ``doc`` of ``path`` with the pins and ``enabled`` of its lock file
    (if any), and the lock's mirror folder (None without lock). ConfigError for a lock that is
    not a regular file, names another family, lists an unknown file or a malformed digest, or
    contradicts a digest pinned in the YAML."""
    lock_file = lock_path(path)
    if not lock_file.exists() and not lock_file.is_symlink():
        return doc, None
    if lock_file.is_symlink():
        raise ConfigError(f"{lock_file}: a symbolic link; refused (write the lock file with "
                          "`python -m uqval.pipeline.jacobs`)")
    lock = load_yaml(lock_file)
    if not isinstance(lock, dict) or lock.get("family") != doc.get("family") or not isinstance(
            lock.get("files"), dict):
        raise ConfigError(f"{lock_file}: not a lock file of family '{doc.get('family')}' "
                          "(rewrite it with `python -m uqval.pipeline.jacobs ARCHIVE`)")
    files = [dict(f) for f in doc.get("files", [])]
    known = {f.get("path"): f for f in files}
    for rel, digest in lock["files"].items():
        if rel not in known:
            raise ConfigError(f"{lock_file}: file '{_short(rel, 120)}' is not listed in {path.name}")
        if not isinstance(digest, str) or not _HEX64.match(digest):
            raise ConfigError(f"{lock_file}: the SHA-256 of '{_short(rel, 120)}' is not 64 hex "
                              "digits")
        pinned = known[rel].get("sha256")
        if pinned is not None and pinned != digest:
            raise ConfigError(f"{lock_file}: '{_short(rel, 120)}' has SHA-256 {digest} in the lock "
                              f"file but {pinned} in {path.name}; one of them is wrong")
        known[rel]["sha256"] = digest
    mirror = lock.get("mirror")
    return ({**doc, "files": files, "enabled": bool(lock.get("enabled", True))},
            str(mirror) if isinstance(mirror, str) else None)


def _path_key(rel: str) -> str:
    """Comparison key of a registered path: normalised and case-folded, so two spellings of
    one file on a case-insensitive file system count as duplicates."""
    return posixpath.normpath(rel).casefold()


def check_key_value_pattern(pattern: Any, where: str) -> re.Pattern[str]:
    """Compile a ``key_value`` pattern after screening it against catastrophic backtracking.

    The pattern must have at most MAX_PATTERN_LENGTH characters, exactly two groups (key,
    value), at most MAX_PATTERN_REPEATS repetition operators and no repetition or alternation
    inside a repeated group (``(a+)+``, ``(a|ab)*``: exponential backtracking). The pattern is
    applied line by line to lines of bounded length (see ``uqval.pipeline.prepare``), which
    bounds the polynomial worst case of what remains.
    """
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{where}: the pattern must be a non-empty text")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ConfigError(
            f"{where}: the pattern has {len(pattern)} characters, more than {MAX_PATTERN_LENGTH}"
        )
    try:
        compiled = re.compile(pattern)
        tree = re._parser.parse(pattern)  # type: ignore[attr-defined]
    except (re.error, RecursionError, OverflowError) as exc:
        raise ConfigError(f"{where}: pattern '{_short(pattern)}' is not a valid regular expression: {exc}") from None
    if compiled.groups != 2:
        raise ConfigError(
            f"{where}: pattern '{_short(pattern)}' has {compiled.groups} groups; it needs exactly "
            f"two, (key) and (value)"
        )
    repeats = _repeats(tree, inside_repeat=False, where=where, pattern=pattern)
    if repeats > MAX_PATTERN_REPEATS:
        raise ConfigError(
            f"{where}: pattern '{_short(pattern)}' has {repeats} repetition operators; at most "
            f"{MAX_PATTERN_REPEATS} are allowed (backtracking cost)"
        )
    return compiled


def _repeats(items: Any, inside_repeat: bool, where: str, pattern: str) -> int:
    """Number of repetition operators in a parsed pattern; raise on nested repetitions."""
    from re import _constants as c  # type: ignore[attr-defined]

    count = 0
    for op, av in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, sub = av
            if high == low:
                count += _repeats(sub, inside_repeat, where, pattern)
                continue
            if inside_repeat:
                raise ConfigError(
                    f"{where}: pattern '{_short(pattern)}' repeats a repeated element (like "
                    f"'(a+)+'), which can backtrack exponentially; refused"
                )
            count += 1 + _repeats(sub, True, where, pattern)
        elif op == c.BRANCH:
            if inside_repeat:
                raise ConfigError(
                    f"{where}: pattern '{_short(pattern)}' repeats an alternation (like "
                    f"'(a|ab)*'), which can backtrack exponentially; refused"
                )
            count += sum(_repeats(b, inside_repeat, where, pattern) for b in av[1])
        elif op == c.SUBPATTERN:
            count += _repeats(av[-1], inside_repeat, where, pattern)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            count += _repeats(av[1], inside_repeat, where, pattern)
        elif op == c.ATOMIC_GROUP:
            count += _repeats(av, inside_repeat, where, pattern)
        elif op == c.GROUPREF_EXISTS:
            raise ConfigError(f"{where}: pattern '{_short(pattern)}': conditional groups are not supported")
    return count


@dataclass(frozen=True)
class RegisteredFile:
    """A raw data file: path relative to the data root, pinned checksum, upstream address."""

    path: str
    sha256: str | None
    url: str | None
    family: str
    mirror: str | None = None
    """A mirror folder holding the file (from the family's lock file), tried first."""


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
    pins: dict[str, str | None] = field(default_factory=dict, hash=False, compare=False)
    """Pinned SHA-256 of each source file (None when not pinned), checked before reading."""
    local_files: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """User's own files (``files: [{local: PATH}]``): source text -> resolved absolute path.
    They are read in place, not fetched, and need no pin."""
    parts: str | None = None
    """A dataset given as parts (``parts:``): its folder or glob pattern, absolute
    (:func:`uqval.pipeline.parts.resolve_parts`); None for a dataset read from sources."""

    @property
    def source_files(self) -> list[str]:
        """Raw files (relative to the data root) this dataset reads, in source order."""
        return [src["file"] for src in self.entry.get("sources", [])]

    @property
    def predictive_kind(self) -> str | None:
        """Kind of predictive output (``distribution``, ``members``, ``samples``,
        ``quantiles``, ``interval``; :mod:`uqval.pipeline.quantities`), None for E with uE or
        half-widths."""
        return check_quantities(self.entry["quantities"], self.id)

    @property
    def has_uncertainty(self) -> bool:
        """True when the prepared table has standard uncertainties uE (variance-based UQ):
        given (uE), or the sd of an ensemble or of draws."""
        return "uE" in self.entry["quantities"] or self.predictive_kind in ("members", "samples")

    @property
    def has_band(self) -> bool:
        """True when the prepared table has uE or half-widths U_P (the flowchart of
        ``results/validate/`` and the UCC gain need one); False for quantile sets and
        [low, high] intervals, which the dataset page validates by coverage and shape."""
        return self.has_uncertainty or (self.predictive_kind is None
                                        and bool(self.entry["quantities"].get("intervals")))

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
    skipped: dict[str, str] = field(default_factory=dict)
    """Files of a user's folder that were not loaded, with the reason (``skip_invalid``)."""

    def enabled_ids(self) -> list[str]:
        """Ids of datasets whose family is enabled, in registration order."""
        return [d.id for d in self.datasets.values() if d.enabled]

    def get(self, dataset_id: str) -> DatasetSpec:
        """Look a dataset up by id; unknown ids raise a ConfigError listing the known ones."""
        try:
            return self.datasets[dataset_id]
        except KeyError:
            known = ", ".join(sorted(self.datasets))
            skipped = (f" Skipped as invalid (their reasons are printed first): "
                       f"{', '.join(self.skipped)}." if self.skipped else "")
            raise ConfigError(
                f"Unknown dataset id '{dataset_id}'. Registered datasets (config/literature/ and "
                f"datasets_dir): {known}.{skipped}"
            ) from None


def _validate(doc: Any, schema: dict[str, Any], path: Path) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for err in errors[:MAX_LISTED_ERRORS]:
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            hint = (err.schema.get("description") if err.validator in ("pattern", "oneOf")
                    else None)
            rule = f" ({_short(' '.join(hint.split()), 300)})" if isinstance(hint, str) else ""
            text = repr(err.instance)
            message = err.message.replace(text, _short(text)) if len(text) > _MAX_SHOWN else err.message
            lines.append(f"  at '{_short(where, 120)}': {_short(message, 600)}{rule}")
        shown = MAX_LISTED_ERRORS
        more = f"\n  ... and {len(errors) - shown} more" if len(errors) > shown else ""
        raise ConfigError(
            f"{path}: does not match the dataset schema ({SCHEMA_NAME}):\n" + "\n".join(lines) + more
        )


def _expressions(merged: dict[str, Any]) -> list[tuple[str, Any]]:
    """(field, expression) pairs of a merged dataset entry."""
    out = quantity_expressions(merged["quantities"])
    out += [(f"features.{k}", v) for k, v in merged.get("features", {}).items() if isinstance(v, str)]
    return out


def load_family(path: Path, schema: dict[str, Any]) -> tuple[list[RegisteredFile], list[DatasetSpec]]:
    """Read and validate one family file; return its files and merged dataset specs."""
    doc = load_yaml(path)
    if not isinstance(doc, dict) or "family" not in doc or "datasets" not in doc:
        kind = type(doc).__name__ if not isinstance(doc, dict) else "mapping without them"
        raise ConfigError(f"{path}: not a dataset family file (it needs the keys 'family' and "
                          f"'datasets'; found a {kind}); its content is not shown")
    doc, mirror = apply_lock(path, doc)
    # Unsafe paths first, with the reason in words (the schema pattern says the same in regex).
    listed = doc.get("files") if isinstance(doc, dict) else None
    for i, f in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(f, dict) and isinstance(f.get("path"), str):
            check_relative_path(f["path"], f"{path}: files[{i}].path")
    try:
        _validate(doc, schema, path)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a dataset file") from None
    family = doc["family"]
    files = []
    keys: dict[str, str] = {}
    local: dict[str, str] = {}
    for i, f in enumerate(doc.get("files", [])):
        if "local" in f:
            if f["local"] in local:
                raise ConfigError(f"{path}: files[{i}].local '{_short(f['local'])}' is listed twice")
            local[f["local"]] = str(resolve_local(path, f["local"], f"{path}: files[{i}].local"))
            continue
        rel = check_relative_path(f["path"], f"{path}: files[{i}].path")
        key = _path_key(rel)
        if key in keys:
            raise ConfigError(f"{path}: files[{i}].path '{rel}' is listed twice (as '{keys[key]}')")
        keys[key] = rel
        files.append(RegisteredFile(path=rel, sha256=f["sha256"], url=f.get("url"), family=family,
                                    mirror=mirror))
    known_paths = {f.path for f in files} | set(local)
    pins = {f.path: f.sha256 for f in files}
    defaults = doc.get("defaults", {})
    datasets = []
    for entry in doc["datasets"]:
        merged = deep_merge(defaults, entry)
        check_dataset_id(merged["id"], f"{path}: datasets[].id")
        where = f"{path}: dataset '{merged['id']}'"
        for name in merged.get("features", {}):
            check_feature_name(name, f"{where}, features")
        if "parts" in merged:
            if "sources" in merged:
                raise ConfigError(f"{where} gives both parts and sources; a dataset reads "
                                  "either Parquet parts or source files")
            datasets.append(_parts_dataset(path, doc, merged, where))
            continue
        if "sources" not in merged or "quantities" not in merged:
            raise ConfigError(f"{where} needs sources and quantities (or parts and quantities)")
        for k, src in enumerate(merged["sources"]):
            if src["file"] not in known_paths:
                raise ConfigError(
                    f"{where} reads '{_short(src['file'])}', which is not listed under files: "
                    f"(listed: {_short(', '.join(sorted(known_paths)))})"
                )
            if src.get("format", "csv") == "key_value" and "pattern" in src:
                check_key_value_pattern(src["pattern"], f"{where}, sources[{k}].pattern")
            names = src.get("names")
            if names is not None and len(set(names)) != len(names):
                dup = sorted({n for n in names if names.count(n) > 1})
                raise ConfigError(f"{where}, sources[{k}].names: duplicate column name(s) {_short(dup)}")
        check_quantities(merged["quantities"], where)
        for what, expr in _expressions(merged):
            try:
                check_expression(expr)
            except ValueError as exc:
                raise ConfigError(f"{where}, {what}: {exc}") from None
        datasets.append(
            DatasetSpec(
                id=merged["id"],
                family=family,
                citation=doc["citation"],
                enabled=bool(doc.get("enabled", True)),
                needs_internet=bool(doc.get("needs_internet", False)),
                config_file=str(path),
                entry=merged,
                pins={src["file"]: pins.get(src["file"]) for src in merged["sources"]},
                local_files={s["file"]: local[s["file"]] for s in merged["sources"] if s["file"] in local},
            )
        )
    return files, datasets


def _parts_dataset(path: Path, doc: dict[str, Any], merged: dict[str, Any],
                   where: str) -> DatasetSpec:
    """A dataset given as parts (:mod:`uqval.pipeline.parts`): its columns checked, its folder
    or glob resolved."""
    from uqval.pipeline.parts import parts_columns, resolve_parts

    parts_columns(merged, where)
    return DatasetSpec(id=merged["id"], family=doc["family"], citation=doc["citation"],
                       enabled=bool(doc.get("enabled", True)),
                       needs_internet=bool(doc.get("needs_internet", False)),
                       config_file=str(path), entry=merged,
                       parts=resolve_parts(path, merged["parts"], f"{where}, parts"))


def _family_files(dirs: Sequence[Path]) -> list[Path]:
    """``*.yaml`` files of the folders, sorted by name; a file of a later folder replaces the
    file of the same name of an earlier one (a user's copy of a built-in family file)."""
    by_name: dict[str, Path] = {}
    for folder in dirs:
        for path in sorted(folder.glob("*.yaml")):
            by_name[path.name] = path
    return [by_name[name] for name in sorted(by_name)]


def load_registry(
    datasets_dir: str | Path | Sequence[str | Path],
    schema_path: str | Path,
    *,
    skip_invalid: Sequence[str | Path] = (),
) -> Registry:
    """Load every ``*.yaml`` family file of ``datasets_dir`` (sorted by name).

    ``datasets_dir`` may be several folders (e.g. the built-in literature registry, then a
    user's folder); the same folder given twice is read once, and a file of a later folder
    replaces the file of the same name of an earlier one.

    Raises ConfigError naming the file for invalid YAML, schema violations, unsafe paths,
    invalid expressions or patterns, sources that are not among the family's files, and naming
    both files for a family name, dataset id or file path defined twice. A file of a folder
    listed in ``skip_invalid`` (a user's folder, shared between labs) is skipped instead, whole:
    its message is kept in ``Registry.skipped`` and the other files load, so one bad file stops
    only the targets that need its datasets (``Registry.get`` names it).
    """
    given = [datasets_dir] if isinstance(datasets_dir, (str, Path)) else list(datasets_dir)
    dirs = list({Path(d).resolve(): Path(d) for d in given}.values())
    datasets_dir = ", ".join(str(d) for d in dirs)
    tolerant = {Path(d).resolve() for d in skip_invalid}
    schema = load_yaml(Path(schema_path))
    family_files = _family_files(dirs)
    if not family_files:
        raise ConfigError(f"{datasets_dir}: no dataset files (*.yaml) found")
    loaded = _Loaded()
    for path in family_files:
        try:
            if path.is_symlink() and not path.resolve().is_relative_to(path.parent.resolve()):
                raise ConfigError(
                    f"{path}: a symbolic link to a file outside {path.parent}; refused (its "
                    "target is neither read nor shown): copy the dataset file into the folder")
            loaded.add(path, *load_family(path, schema))
        except ConfigError as exc:
            if path.parent.resolve() not in tolerant:
                raise
            loaded.skipped[str(path)] = str(exc)
    return Registry(files=loaded.files, datasets=loaded.datasets, skipped=loaded.skipped)


@dataclass
class _Loaded:
    """The family files read so far; :meth:`add` checks a family against them before taking
    any of it, so a refused file leaves nothing behind."""

    files: dict[str, RegisteredFile] = field(default_factory=dict)
    datasets: dict[str, DatasetSpec] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    path_keys: dict[str, tuple[str, Path]] = field(default_factory=dict)
    families: dict[str, Path] = field(default_factory=dict)
    folded: dict[str, str] = field(default_factory=dict)

    def add(self, path: Path, fam_files: list[RegisteredFile], fam_datasets: list[DatasetSpec]) -> None:
        family = fam_datasets[0].family
        if family in self.families:
            raise ConfigError(
                f"{path}: family '{family}' is already defined in {self.families[family]}; family "
                f"names must be unique across config/literature/ and datasets_dir"
            )
        new_keys: dict[str, tuple[str, Path]] = {}
        for f in fam_files:
            key = _path_key(f.path)
            if key in self.path_keys:
                other, where = self.path_keys[key]
                raise ConfigError(
                    f"{path}: file '{f.path}' is already registered as '{other}' in {where}"
                )
            new_keys[key] = (f.path, path)
        new_folded: dict[str, str] = {}
        for d in fam_datasets:
            if d.id in self.datasets or d.id in new_folded.values():
                first = self.datasets[d.id].config_file if d.id in self.datasets else "this file"
                raise ConfigError(f"{path}: dataset id '{d.id}' is already defined in {first}")
            twin = self.folded.get(d.id.casefold()) or new_folded.get(d.id.casefold())
            if twin is not None:
                held = self.datasets[twin].config_file if twin in self.datasets else str(path)
                raise ConfigError(
                    f"{path}: dataset id '{d.id}' differs from '{twin}' (in {held}) only in "
                    "case; ids name folders and files, which are one on macOS and Windows: "
                    "rename one")
            new_folded[d.id.casefold()] = d.id
        self.families[family] = path
        self.path_keys.update(new_keys)
        self.folded.update(new_folded)
        self.files.update({f.path: f for f in fam_files})
        self.datasets.update({d.id: d for d in fam_datasets})
