"""False alarms and power of ``uqval.validate(y, predictive, groups=...)`` (issues #38, #37).

Rows in G groups of n rows; every predictive is right by construction, and the rows of a
group share part of their departure: y = mu + sd (sqrt(ICC) a_g + sqrt(1 - ICC) b_i), a_g
per group, b_i per row, both standard normal or both unit-variance t(6). The predictives:

* ``normal``: ``Normal(mu, sd)`` (right marginally: y - mu ~ N(0, sd²) for normal parts);
* ``ensemble``: m = 8 members drawn like y (each member its own a_g and b_i), so that the
  observation of a group is exchangeable with each member's predictions for it (the null of
  the grouped perfect-ensemble reference), normal or t(6) parts;
* ``quantiles``: the 0.05, 0.25, 0.5, 0.75 and 0.95 quantiles of N(mu, sd²).

Features: x_row ~ U(0, 1) per row, x_grp ~ U(0, 1) per group. ``validate`` with n_boot 200
and n_ucc_permutations 99 (smaller counts than the defaults: they widen the Monte Carlo
error of an interval or p-value, not its level), the default permutation counts, alpha 5 %
per stage, seed = set number. Per cell the share of sets whose stage verdict is ``fail``, with and without the
groups given.

Power (``--only power``): the normal predictive with its sd 2x too small in the groups with
x_grp > 0.75 (a quarter of the groups), and with the sd 2x too small where x_row > 0.75,
groups given: share of sets where the coverage stage fails and where the conditional coverage
along the planted feature fails.

Usage::

    nice -n 10 python benchmarks/group_predictive_rates.py [--sets 100] [--only alarms|power]

Results: printed as Markdown and written to ``benchmarks/group_predictive_rates.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy import stats

import uqval

ROOT = Path(__file__).resolve().parents[1]
FAST = dict(n_boot=200, n_ucc_permutations=99)
STAGES = ["average", "consistency", "adaptivity: x_row", "adaptivity: x_grp", "joint",
          "coverage levels", "coverage LCP", "shape"]
"""Columns: the stages of ``stage_verdicts``, with the coverage stage's two Holm families
apart (as docs/explanations/error-rates.md reports them): the levels (and quantile and built
interval rows) and the conditional coverage (LCP) rows; each fails when one of its rows
fails."""


def _verdicts(res) -> dict[str, str]:
    v = dict(res.stage_verdicts)
    rows = res.verdicts[res.verdicts["stage"] == "coverage"]
    local = rows["statistic"].astype(str).str.startswith("LCP")
    for name, part in (("coverage levels", rows[~local]), ("coverage LCP", rows[local])):
        if len(part):
            v[name] = "fail" if (part["verdict"] == "fail").any() else "pass"
    return v
CELLS = [("normal", 200, 30, 0.5, "normal"), ("normal", 20, 300, 0.8, "normal"),
         ("normal", 2000, 3, 0.5, "normal"), ("ensemble", 200, 30, 0.5, "normal"),
         ("ensemble", 100, 10, 0.5, "t(6)"), ("quantiles", 200, 30, 0.2, "normal")]


def _parts(rng: np.random.Generator, size: int, tails: str) -> np.ndarray:
    if tails == "t(6)":
        return rng.standard_t(6, size) / np.sqrt(1.5)
    return rng.standard_normal(size)


def grouped_set(kind: str, n_groups: int, size: int, icc: float, tails: str, seed: int,
                planted: str | None = None):
    rng = np.random.default_rng([seed, n_groups, size])
    m = n_groups * size
    g = np.repeat(np.arange(n_groups), size)
    x_row = rng.uniform(size=m)
    x_grp = np.repeat(rng.uniform(size=n_groups), size)
    mu, sd = rng.normal(size=m), rng.uniform(0.5, 2.0, m)
    factor = np.ones(m)
    if planted == "x_grp":
        factor[x_grp > 0.75] = 2.0
    elif planted == "x_row":
        factor[x_row > 0.75] = 2.0

    def draw() -> np.ndarray:
        a = np.repeat(_parts(rng, n_groups, tails), size)
        return mu + sd * factor * (np.sqrt(icc) * a + np.sqrt(1 - icc) * _parts(rng, m, tails))

    y = draw()
    if kind == "normal":
        pred = uqval.Normal(mu, sd)
    elif kind == "ensemble":
        pred = uqval.Ensemble(np.column_stack([draw() for _ in range(8)]))
    else:
        levels = (0.05, 0.25, 0.5, 0.75, 0.95)
        pred = uqval.Quantiles(levels, np.column_stack([mu + sd * stats.norm.ppf(t)
                                                        for t in levels]))
    return y, pred, {"x_row": x_row, "x_grp": x_grp}, g


def _rate(hits: int, sets: int) -> str:
    return f"{100 * hits / sets:.1f} % ({hits}/{sets})"


def alarms(sets: int) -> list[str]:
    head = "| predictive | G x n | ICC | parts | groups | " + " | ".join(STAGES) + " |"
    lines = [head, "|" + "---|" * (5 + len(STAGES))]
    for kind, n_groups, size, icc, tails in CELLS:
        for given in (True, False):
            reps = sets if given else max(10, sets // 5)
            fails = dict.fromkeys(STAGES, 0)
            seen = dict.fromkeys(STAGES, 0)
            t0 = time.perf_counter()
            for s in range(reps):
                y, pred, f, g = grouped_set(kind, n_groups, size, icc, tails, s)
                res = uqval.validate(y, pred, f, groups=g if given else None, seed=s, **FAST)
                v = _verdicts(res)
                for stage in STAGES:
                    if stage in v:
                        seen[stage] += 1
                        fails[stage] += v[stage] == "fail"
            cells = [_rate(fails[st], seen[st]) if seen[st] else "–" for st in STAGES]
            lines.append(f"| {kind} | {n_groups} x {size} | {icc} | {tails} | "
                         f"{'given' if given else 'not given'} | " + " | ".join(cells) + " |")
            print(lines[-1], f"({time.perf_counter() - t0:.0f} s)", flush=True)
    return lines


def power(sets: int) -> list[str]:
    lines = ["| planted (feature) | coverage stage fails | LCP along the feature fails |",
             "|---|---|---|"]
    for feature in ("x_grp", "x_row"):
        stage_hits, local_hits = 0, 0
        for s in range(sets):
            y, pred, f, g = grouped_set("normal", 200, 30, 0.5, "normal", s, planted=feature)
            res = uqval.validate(y, pred, f, groups=g, seed=s, **FAST)
            stage_hits += res.stage_verdicts.get("coverage") == "fail"
            v = res.verdicts
            lcp = v[(v["stage"] == "coverage") & (v["feature"] == feature)]
            local_hits += bool((lcp["verdict"] == "fail").any())
        lines.append(f"| sd 2x too small where {feature} > 0.75 | {_rate(stage_hits, sets)} | "
                     f"{_rate(local_hits, sets)} |")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=100)
    parser.add_argument("--only", choices=["alarms", "power"])
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "group_predictive_rates.md")
    args = parser.parse_args()
    text = ["# Predictive outputs in groups: false alarms and power", "",
            f"`python benchmarks/group_predictive_rates.py --sets {args.sets}` (module "
            "docstring: data, settings). Binomial noise: a true 5 % reads 1-9 % in 100 sets, "
            "0-11 % in 50, 0-18 % in 20 (±2 sd).", ""]
    if args.only in (None, "alarms"):
        text += ["## False alarms (calibrated sets)", "", *alarms(args.sets), ""]
    if args.only in (None, "power"):
        text += ["## Power (groups given)", "", *power(max(20, args.sets // 2)), ""]
    args.out.write_text("\n".join(text) + "\n", encoding="utf-8")
    print("\n".join(text))


if __name__ == "__main__":
    main()
