"""Ranges of adjacent bins that depart beyond the tolerance band with confidence.

:func:`problem_ranges` chains the adjacent bins of one per-bin table whose intervals lie on
the same side of the target and keeps the chains whose pooled interval, simultaneous over
the bins looked at, lies wholly beyond the band (the advice's rule, docs/decision-rules.md);
:func:`grid_ranges` does it on the stage's grid and on the finer one
(:func:`uqval.validation.bin_tables.fine_bin_count`) and keeps, where they overlap, the grid
whose ranges gain more (:func:`range_gain`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["grid_ranges", "problem_ranges", "range_gain"]


def problem_ranges(table: pd.DataFrame, value: str = "value", low: str = "ci_low",
                   high: str = "ci_high", target: float = 1.0, *,
                   simultaneous: bool = False,
                   band: tuple[float, float] | None = None,
                   family: int | None = None) -> list[dict]:
    """Ranges of adjacent bins whose interval lies on the same side of ``target``; each with
    side (``above``/``below``), low, high, n, the first and last bin and the count-weighted
    mean of ``value`` over its bins (the pooled <Z^2>, or <Z>). Two adjacent bins are pooled
    only when their intervals, simultaneous over the K bins (below), overlap: disjoint ones
    say the two need different values beyond chance, and one range would give both the same
    one (a bin just beyond the target beside one three times beyond it would get their mean),
    so the range ends between them. Simultaneous, so that a uniform range is split by chance
    rarely (two 95 % intervals of one value are disjoint in 0.6 % of the pairs, and a long
    range has many pairs).

    ``simultaneous=True`` widens each bin's 95 % interval to a Bonferroni interval over the
    K bins (half-width on the target's side times Phi^-1(1 - 0.025/K)/Phi^-1(0.975)), so
    that with no departure anywhere a range is named with probability <= 5 %: "where"
    claims then control the family-wise error over the bins, not each bin's alone.

    ``band=(b_low, b_high)`` (around ``target``) keeps only the ranges whose pooled
    simultaneous interval lies wholly beyond the band: the departure exceeds the practical
    tolerance with the stated confidence, not merely chance (the advice's rule,
    :mod:`uqval.validation.rules`). The pooled interval of bins b with counts n_b, values v_b
    and 95 % half-widths h_b on the band's side is mean_b(n_b v_b) -+ z_K sqrt(sum_b (n_b/N)^2
    (h_b/1.96)^2), z_K = Phi^-1(1 - 0.025/K): the bins' rows are disjoint, and K covers the
    choice among the bins (``family``: the bins of every variable whose ranges the same
    advice names, K by default). Each kept range gets ``pooled_low`` and ``pooled_high``.

    >>> t = pd.DataFrame({"low": [0, 1, 2, 3], "high": [1, 2, 3, 4], "n": [50] * 4,
    ...                   "value": [1.0, 1.5, 1.3, 1.1], "ci_low": [0.8, 1.3, 1.1, 0.9],
    ...                   "ci_high": [1.2, 1.7, 1.5, 1.3]})
    >>> [(r["first"], r["last"]) for r in problem_ranges(t)]
    [(1, 2)]
    >>> [round(r["pooled_low"], 3) for r in problem_ranges(t, band=(1 / 1.21, 1.21))]
    [1.22]
    >>> problem_ranges(t, band=(1 / 1.3, 1.3))
    []
    >>> u = t.assign(value=[1.0, 1.15, 3.0, 1.0], ci_low=[0.8, 1.01, 2.0, 0.8],
    ...              ci_high=[1.2, 1.3, 3.9, 1.2])
    >>> [(r["first"], r["last"]) for r in problem_ranges(u)]  # 1.15 and 3.0 apart
    [(1, 1), (2, 2)]
    """
    v, lo, hi = (table[c].to_numpy(dtype=float) for c in (value, low, high))
    z95 = stats.norm.ppf(0.975)
    k = len(table) if family is None else max(family, len(table))
    z_k = stats.norm.ppf(1 - 0.025 / k) if k > 1 else z95
    # simultaneous intervals over the K bins: two neighbours whose simultaneous intervals
    # are disjoint need different values (a chance split inside a uniform range is rare)
    lo_k, hi_k = v - z_k / z95 * (v - lo), v + z_k / z95 * (hi - v)
    if simultaneous:
        lo, hi = lo_k, hi_k
    side = np.where(lo > target, "above", np.where(hi < target, "below", ""))
    out: list[dict] = []
    for i, s in enumerate(side):
        if not s:
            continue
        row = table.iloc[i]
        if (out and out[-1]["side"] == s and out[-1]["last"] == i - 1
                and lo_k[i] <= hi_k[i - 1] and lo_k[i - 1] <= hi_k[i]):
            r = out[-1]
            r.update(high=row["high"], n=r["n"] + row["n"], sum=r["sum"] + row["n"] * row[value],
                     last=i)
        else:
            out.append({"side": s, "low": row["low"], "high": row["high"], "n": int(row["n"]),
                        "sum": row["n"] * row[value], "first": i, "last": i})
    for r in out:
        r["mean"] = r.pop("sum") / r["n"]
    if band is None:
        return out
    n = table["n"].to_numpy(dtype=float)
    # the 95 % half-widths on each side, before any widening
    v0, lo0, hi0 = (table[c].to_numpy(dtype=float) for c in (value, low, high))
    kept = []
    for r in out:
        b = slice(r["first"], r["last"] + 1)
        w = n[b] / n[b].sum()
        half_low = z_k * float(np.sqrt(np.sum(np.square(w * (v0[b] - lo0[b]) / z95))))
        half_high = z_k * float(np.sqrt(np.sum(np.square(w * (hi0[b] - v0[b]) / z95))))
        r["pooled_low"] = float(r["mean"] - half_low)
        r["pooled_high"] = float(r["mean"] + half_high)
        if r["pooled_low"] > band[1] or r["pooled_high"] < band[0]:
            kept.append(r)
    return kept


def grid_ranges(grids: Sequence[pd.DataFrame], value: str = "value", low: str = "ci_low",
                 high: str = "ci_high", target: float = 1.0, *, band: tuple[float, float],
                 family: int) -> list[dict]:
    """The ranges of :func:`problem_ranges` (``band``, simultaneous over ``family`` bins) on
    the stage's grid and on the finer grid, the grid that describes each place better.

    A departure confined to half a bin of the stage's grid is diluted by half in that bin;
    the finer grid (twice the bins, :func:`uqval.validation.bin_tables.fine_bin_count`) resolves
    it. ``family`` counts the bins of both grids, so that a range is named, on either grid,
    with probability at most 5 % when nothing departs (Bonferroni over every bin looked at).
    Where ranges of the two grids overlap (a chain of overlapping ranges), the grid whose
    ranges there gain more is kept (:func:`range_gain`: the drop in the normal deviance when
    their rows get their own factor or offset); a range overlapping none is kept.

    >>> coarse = pd.DataFrame({"low": [0, 2], "high": [2, 4], "n": [100, 100],
    ...                        "value": [1.0, 2.5], "ci_low": [0.8, 2.0], "ci_high": [1.2, 3.0]})
    >>> fine = pd.DataFrame({"low": [0, 1, 2, 3], "high": [1, 2, 3, 4], "n": [50] * 4,
    ...                      "value": [1.0, 1.0, 1.0, 4.0], "ci_low": [0.7, 0.7, 0.7, 3.0],
    ...                      "ci_high": [1.3, 1.3, 1.3, 5.0]})
    >>> [(float(r["low"]), float(r["high"])) for r in grid_ranges(
    ...     [coarse, fine], band=(0.9, 1.1), family=6)]
    [(3.0, 4.0)]
    """
    found = [[(g, r) for r in problem_ranges(grid, value, low, high, target, band=band,
                                             family=family)] for g, grid in enumerate(grids)]
    pending = [x for ranges in found for x in ranges]
    out: list[dict] = []
    while pending:  # chains of overlapping ranges, one grid kept per chain
        chain = [pending.pop(0)]
        grew = True
        while grew:
            grew = False
            for x in list(pending):
                if any(x[1]["low"] <= c[1]["high"] and c[1]["low"] <= x[1]["high"]
                       for c in chain):
                    chain.append(x)
                    pending.remove(x)
                    grew = True
        gains = {g: sum(range_gain(r, target, value) for h, r in chain if h == g)
                 for g, _ in chain}
        best = max(gains, key=lambda g: (gains[g], -g))
        out += [r for g, r in chain if g == best]
    return sorted(out, key=lambda r: r["low"])


def range_gain(r: dict, target: float, value: str) -> float:
    """The drop in the normal deviance of a range's rows when they get their own factor
    (n (g - 1 - ln g), g = pooled <Z^2> / target: QLIKE) or offset (n (<Z> - target)^2 for
    ``value="mean_z"``)."""
    if value == "mean_z":
        return float(r["n"] * (r["mean"] - target) ** 2)
    g = max(float(r["mean"]) / target, 1e-12)
    return float(r["n"] * (g - 1.0 - math.log(g)))
