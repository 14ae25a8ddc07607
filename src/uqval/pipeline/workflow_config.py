"""Effective configuration of the workflow, whether run from its folder or used as a module.

Snakemake skips a module's ``configfile:`` when the host workflow passes ``config: config``,
and the host's configuration holds only the host's keys. :func:`effective_config` therefore
starts from the workflow's own ``config/config.yaml`` and lays the given configuration over
it; :func:`selected_datasets` reads the ``datasets`` key (which datasets a run builds);
:func:`registry_dirs` lists the dataset folders (the built-in literature registry, then the
user's ``datasets_dir``); :func:`simref_counts` the replicate counts of a per-dataset
simulated-reference job and :func:`simref_plan` what its jobs simulate, with which seeds.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from uqval._internal.errors import ConfigError

__all__ = [
    "DEFAULT_DATASETS_DIR",
    "MonteCarloCounts",
    "SimrefPlan",
    "effective_config",
    "registry_dirs",
    "selected_datasets",
    "simref_counts",
    "simref_plan",
]

DEFAULT_DATASETS_DIR = "config/datasets"
"""Default of the ``datasets_dir`` key: a folder of the working directory."""


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` with ``override`` merged in: nested mappings merge key by key, any
    other value of ``override`` replaces the base's. Neither argument is modified.

    >>> deep_merge({"a": {"x": 1, "y": 2}, "b": 1}, {"a": {"y": 3}, "c": 4})
    {'a': {'x': 1, 'y': 3}, 'b': 1, 'c': 4}
    """
    merged = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def effective_config(
    given: Mapping[str, Any], defaults_file: str | Path, schema_file: str | Path, as_module: bool
) -> dict[str, Any]:
    """The workflow's ``config/config.yaml`` with ``given`` laid over it (nested keys merged).

    As a module, keys of ``given`` that the configuration schema does not know (the host
    workflow's own keys) are left out; run on its own, they are kept so that the schema
    reports a misspelt key.
    """
    defaults = yaml.safe_load(Path(defaults_file).read_text(encoding="utf-8")) or {}
    if as_module:
        known = set(yaml.safe_load(Path(schema_file).read_text(encoding="utf-8"))["properties"])
        given = {k: v for k, v in given.items() if k in known}
    return deep_merge(defaults, given)


def selected_datasets(value: Any, explicit: bool = False) -> list[str] | None:
    """Dataset ids of the ``datasets`` key: a list, or a comma-separated text (as written on
    the command line, ``--config datasets=a,b``); None (every enabled dataset) when unset
    (``null``). An empty selection (``--config datasets=``) is a ConfigError: it would
    otherwise build every dataset, downloads included. ``explicit``: the key was given on
    the command line, where Snakemake turns ``datasets=`` into None."""
    if value is None and not explicit:
        return None
    if value is None:
        value = ""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        items = [items]
    ids = [str(v).strip() for v in items if str(v).strip()]
    if not ids:
        raise ConfigError(
            "datasets: the selection is empty (--config datasets= with no id); name at least "
            "one dataset id (--config datasets=ID1,ID2), or leave the key out to build every "
            "enabled dataset")
    return list(dict.fromkeys(ids))


def registry_dirs(builtin_dir: str | Path, datasets_dir: str) -> list[str]:
    """Folders of dataset YAML files: the built-in registry, then ``datasets_dir`` (relative
    to the working directory) when it exists. A ``datasets_dir`` other than the default that
    does not exist is a ConfigError."""
    dirs = [str(builtin_dir)]
    if os.path.isdir(datasets_dir):
        dirs.append(datasets_dir)
    elif datasets_dir != DEFAULT_DATASETS_DIR:
        raise ConfigError(
            f"datasets_dir: folder '{datasets_dir}' not found (relative to {os.getcwd()}); it "
            f"holds your dataset YAML files"
        )
    return dirs


@dataclass(frozen=True)
class MonteCarloCounts:
    """Replicate counts of a per-dataset simulated-reference job (``analysis.simref``).

    ``paper_n_mc``/``paper_n_boot``: the papers' counts (``analysis.simref.n_mc``/``n_boot``),
    to say on the page whether they were kept.
    """

    n_mc: int
    n_boot: int
    jackknife_groups: int | None
    paper_n_mc: int | None = None
    paper_n_boot: int | None = None

    def describe(self) -> str:
        jackknife = (
            "leave-one-out jackknife"
            if self.jackknife_groups is None
            else f"jackknife of CC by {self.jackknife_groups} groups"
        )
        text = f"{self.n_mc} simulated sets, {self.n_boot} bootstrap replicates, {jackknife}"
        if self.paper_n_mc is None or self.paper_n_boot is None:
            return text
        if (self.n_mc, self.n_boot) == (self.paper_n_mc, self.paper_n_boot):
            return text + " (the papers' replicate counts)"
        return (
            f"{text} (reduced from the papers' {self.paper_n_mc} sets and {self.paper_n_boot} "
            "replicates for this large set: analysis.simref.large_sets)"
        )


def simref_counts(settings: Mapping[str, Any], m: int) -> MonteCarloCounts:
    """The papers' counts (``n_mc``, ``n_boot``, leave-one-out jackknife) for M below
    ``large_sets.from_m``; from it on the CC jackknife by ``jackknife_groups`` groups and at
    most ``max_points`` values per reference and per bootstrap (count = max_points // M, not
    below ``min_replicates`` nor above the papers' count: with the default 4e8, the papers'
    counts up to M = 40 000)."""
    large = settings["large_sets"]
    papers = {"paper_n_mc": settings["n_mc"], "paper_n_boot": settings["n_boot"]}
    if m < large["from_m"]:
        return MonteCarloCounts(settings["n_mc"], settings["n_boot"], None, **papers)

    def capped(count: int) -> int:
        return min(count, max(large["min_replicates"], int(large["max_points"] // m)))

    return MonteCarloCounts(
        capped(settings["n_mc"]), capped(settings["n_boot"]), large["jackknife_groups"], **papers
    )


@dataclass(frozen=True)
class SimrefPlan:
    """What the simulated-reference jobs of one dataset compute (rules ``simref_references``
    and ``simref_set``; P002 Sect. III.C).

    ``zeta``: ZMS, CC, ENCE and ZMSE with ``zeta_bins`` bins (the zeta schemes, simulated
    under N and T = t_s(t_nu)); ``sensitivity``: the same four with ``sensitivity_bins`` bins
    (P002 Figs 4-5, under N only, from the same sets). Seeds: children 0 (z-score summary),
    2 (the N sets), 3 (the T sets) and 4 (the bootstraps) of ``SeedSequence(seed)``; child 1
    (the former separate sensitivity sets) is not drawn.
    """

    counts: MonteCarloCounts
    zeta: list[Any]
    sensitivity: list[Any]
    t_nu: float
    seed: int

    def children(self) -> list[Any]:
        """The five children of the dataset's seed (summary, unused, N, T, bootstraps)."""
        import numpy as np

        return list(np.random.SeedSequence(self.seed).spawn(5))

    def simulated(self, distribution: str) -> tuple[list[Any], Any, Any]:
        """(statistics, generative distribution, seed) of the ``"N"`` or ``"T"`` sets: N
        simulates the zeta statistics and then the sensitivity ones not already among them."""
        children = self.children()
        if distribution == "N":
            extra = [s for s in self.sensitivity if s not in self.zeta]
            return self.zeta + extra, "normal", children[2]
        if distribution == "T":
            return list(self.zeta), ("t", self.t_nu), children[3]
        raise ValueError(f"distribution must be 'N' or 'T', got {distribution!r}")


def simref_plan(settings: Mapping[str, Any], m: int, seed: int) -> SimrefPlan:
    """The :class:`SimrefPlan` of a dataset of ``m`` rows under ``analysis.simref``."""
    from uqval import simref

    return SimrefPlan(
        counts=simref_counts(settings, m),
        zeta=[simref.as_statistic(s, settings["zeta_bins"]) for s in ("ZMS", "CC", "ENCE", "ZMSE")],
        sensitivity=simref.sensitivity_statistics(settings["sensitivity_bins"]),
        t_nu=float(settings["t_nu"]),
        seed=int(seed),
    )
