"""What groups of dependent rows change in a validation: the record and the id-column warning.

:func:`group_summary` describes the groups given to :func:`uqval.validate` (``groups=``):
their number G, rows per group, the intra-class correlation (ICC, one-way ANOVA,
:func:`uqval.stats.groups.icc_oneway`) of Z and of Z^2, and the effective sample size of the
average <Z^2>: M / deff with Kish's design effect deff = 1 + (m_bar - 1) ICC(Z^2)
(:func:`uqval.stats.groups.design_effect`), beside the measured ratio of the cluster-robust
to the naive variance of <Z^2>. Under calibration with a share rho of the variance of Z
common to a group, ICC(Z) = rho: a set of M rows then carries about as much information on
the average as M / deff independent rows.

:func:`id_like_columns` names the columns of a table that look like a group id (text
with repeated values) when no group was given: rows sharing an id usually share part of
their error, and treating them as independent makes every interval too narrow.

:func:`serial_warning` says when consecutive groups are dependent
(:func:`uqval.stats.serial_groups.serial_blocks`) and what to give instead.

:func:`unequal_groups_warning` says when a few groups hold most rows: Kish's effective number
of groups (sum n_g)^2 / sum n_g^2, the number of equal groups whose mean has the same
variance, below MIN_GROUPS and below half of G. Every interval over the groups then rests on
those few and is wide; in chemistry the usual cause is a catch-all group, such as the empty
Murcko scaffold that holds every acyclic molecule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval.stats.groups import (
    MIN_GROUPS,
    GroupIndex,
    cluster_mean_se,
    design_effect,
    icc_oneway,
)
from uqval.stats.serial_groups import SerialBlocks

__all__ = ["ID_COLUMNS", "SERIAL_GROUPS", "GroupSummary", "group_summary", "id_columns_to_read", "id_like_columns",
           "id_like_warning", "serial_warning", "UNEQUAL_GROUPS", "unequal_groups_warning",
           "with_id_warning"]

ID_COLUMNS = 100
"""Most other columns the command line reads (without --group) to warn of a group id."""
SERIAL_GROUPS = "consecutive groups are dependent"
UNEQUAL_GROUPS = "the groups are very unequal"
"""How the warning of :func:`unequal_groups_warning` begins."""
"""How the warning of :func:`serial_warning` begins (the command line names the group column)."""


@dataclass(frozen=True)
class GroupSummary:
    """The groups of a validation (module docstring).

    Attributes:
        n_groups: G.
        rows_min, rows_median, rows_max: rows per group.
        icc_z, icc_z2: intra-class correlation of Z and of Z^2.
        design_effect: Kish's 1 + (m_bar - 1) ICC(Z^2), m_bar = sum n_g^2 / M.
        effective_rows: M / design_effect, the independent rows the average is worth.
        variance_ratio: cluster-robust over naive variance of <Z^2> (the measured design
            effect).
        procedures: per binning variable, how its permutations respected the groups
            ("groups exchanged" for a variable constant inside groups, "permuted within
            groups" otherwise).
        serial: the test of consecutive groups and the blocks the inference used
            (:class:`uqval.stats.serial_groups.SerialBlocks`; None when not tested).
    """

    n_groups: int
    rows_min: int
    rows_median: float
    rows_max: int
    icc_z: float
    icc_z2: float
    design_effect: float
    effective_rows: float
    variance_ratio: float
    procedures: Mapping[str, str]
    serial: SerialBlocks | None = None

    @property
    def blocked(self) -> bool:
        """The inference used blocks of consecutive groups, not the groups as given."""
        return self.serial is not None and self.serial.block_size > 1

    def describe(self) -> str:
        """One line for the report and the parameters."""
        blocks = (f"; the units are {self.serial.n_blocks} blocks of {self.serial.block_size} "
                  "consecutive groups" if self.serial is not None and self.blocked else "")
        return (f"{self.n_groups} groups of {self.rows_min}-{self.rows_max} rows (median "
                f"{self.rows_median:g}); ICC of Z {self.icc_z:.3f}, of Z^2 {self.icc_z2:.3f}; "
                f"design effect {self.design_effect:.2f} (cluster-robust/naive variance of "
                f"<Z^2>: {self.variance_ratio:.2f}); effective rows about "
                f"{self.effective_rows:.0f}{blocks}")


def group_summary(z: NDArray[np.float64], groups: GroupIndex,
                  procedures: Mapping[str, str],
                  serial: SerialBlocks | None = None) -> GroupSummary:
    """The :class:`GroupSummary` of z-scores ``z`` in ``groups`` (as given), with the
    blocks of consecutive groups the inference used (``serial``)."""
    z2 = np.square(z)
    icc_z2 = icc_oneway(z2, groups)
    deff = design_effect(icc_z2, groups)
    _, se_cluster = cluster_mean_se(z2, groups)
    naive = float(np.std(z2, ddof=1)) / np.sqrt(z.size)
    ratio = (se_cluster / naive) ** 2 if naive > 0 else float("nan")
    return GroupSummary(
        n_groups=groups.n_groups, rows_min=int(groups.counts.min()),
        rows_median=float(np.median(groups.counts)), rows_max=int(groups.counts.max()),
        icc_z=icc_oneway(z, groups), icc_z2=icc_z2, design_effect=deff,
        effective_rows=z.size / deff if np.isfinite(deff) else float("nan"),
        variance_ratio=float(ratio), procedures=dict(procedures), serial=serial)


def id_like_columns(data: pd.DataFrame, used: Sequence[object]) -> list[str]:
    """Columns of ``data`` not in ``used`` that look like a group id: not numeric, with at
    least 2 distinct values, and fewer distinct values than non-missing rows (repeated)."""
    names = []
    for name in data.columns:
        if name in used:
            continue
        column = data[name]
        if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        present = column.dropna()
        distinct = present.nunique()
        if 2 <= distinct < present.size:
            names.append(str(name))
    return names


def id_like_warning(names: Sequence[str]) -> str | None:
    """The warning of :func:`id_like_columns` (None without such columns)."""
    if not names:
        return None
    listed = ", ".join(repr(n) for n in names[:5])
    return (f"column(s) {listed} look like a group id (text with repeated values) but no group "
            "was given: if rows sharing a value share part of their error (atoms of one "
            "structure, conformers of one molecule, frames of one trajectory), pass it as "
            "groups= (--group) or every interval and test treats them as independent")


def id_columns_to_read(columns: Sequence[str], used: Sequence[object],
                       group: str | None) -> list[str]:
    """The other columns of a file to read for :func:`id_like_columns`: none with a group
    given or with more than :data:`ID_COLUMNS` of them."""
    others = [] if group else [c for c in columns if c not in used]
    return others if len(others) <= ID_COLUMNS else []


def with_id_warning(result: Any, columns: Mapping[str, Any], used: Sequence[object]) -> Any:
    """``result`` (a record with ``warnings``) with the warning of :func:`id_like_warning`
    for the given other columns added."""
    warning = id_like_warning(id_like_columns(pd.DataFrame(dict(columns)), used)) if columns \
        else None
    return result if warning is None else dataclasses.replace(
        result, warnings=(*result.warnings, warning))


def serial_warning(serial: SerialBlocks | None) -> tuple[str, ...]:
    """The warning of dependent consecutive groups (none when they are independent as far as
    tested, or without groups)."""
    if serial is None or not serial.dependent:
        return ()
    return (f"{serial.describe()}; groups should be independent units: give longer ones "
            "(weeks rather than days, whole trajectories rather than their segments)",)


def unequal_groups_warning(groups: GroupIndex, codes: ArrayLike,
                           names: ArrayLike | None = None) -> tuple[str, ...]:
    """The warning of groups so unequal that a few hold most rows (module docstring); none
    otherwise. ``codes``: the rows' group codes (or labels) that ``groups`` was built from;
    ``names``: the label of each code, when ``codes`` are codes (the largest group is
    named).

    >>> g = np.array(["acyclic"] * 60 + [f"s{i}" for i in range(40)])
    >>> w = unequal_groups_warning(GroupIndex.from_codes(g), g)
    >>> w[0][:75]
    "the groups are very unequal: the largest ('acyclic') holds 60 % of the rows"
    >>> unequal_groups_warning(GroupIndex.from_codes(np.repeat(np.arange(20), 5)),
    ...                        np.repeat(np.arange(20), 5))
    ()
    """
    n = groups.counts.astype(np.float64)
    effective = float(n.sum() ** 2 / np.sum(n * n))
    if effective >= MIN_GROUPS or effective >= groups.n_groups / 2:
        return ()
    big = int(np.argmax(n))
    first = np.asarray(codes)[groups.order[groups.starts[big]]]
    label = str(first if names is None else np.asarray(names, dtype=object)[int(first)])
    shown = repr(label if len(label) <= 40 else label[:37] + "...")
    return (f"{UNEQUAL_GROUPS}: the largest ({shown}) holds "
            f"{100 * n[big] / n.sum():.0f} % of the rows, and the {groups.n_groups} groups weigh "
            f"like {effective:.1f} equal ones (Kish's (sum n_g)^2 / sum n_g^2): every interval "
            "over the groups rests mostly on a few of them and is wide; if the largest is a "
            "catch-all (the empty Murcko scaffold of the acyclic molecules, an 'other' "
            "class), split it into real units (a generic framework, clusters of fingerprints)",)
