"""False alarms, coverage, power and cost of ``uqval.validate(..., groups=...)`` (issue #38).

Grouped calibrated sets: G groups of n rows (M = G n), Z = sqrt(rho) a_g + sqrt(1 - rho) b_i
with a_g (one per group) and b_i (one per row) independent, standard normal or unit-variance
Student t(6): Var(Z) = 1 (calibrated by construction) and ICC(Z) = rho. uE ~ U(0.5, 2) per
row, E = uE Z; features x_row ~ U(0, 1) per row and x_grp ~ U(0, 1) per group (constant inside
a group).

* ``false alarms``: share of sets whose stage verdict (after scaling) is fail, per stage:
  average, consistency (uE), adaptivity x_row, adaptivity x_grp, joint; with ``groups=`` and,
  for the issue's case (rho 0.5, n 30), without (the naive rows-are-independent analysis).
* ``coverage``: share of sets whose 95 % interval of the scale factor sqrt(ZMS) holds 1.
* ``power``: (a) errors 2x in the quarter of the groups with x_grp > 0.75; (b) errors 2.5x
  where x_row > 0.7 (rows); found = the adaptivity verdict along that feature fails;
  located = the bin with the largest factor lies in the planted range (its low end >= 0.6).
* ``cost``: seconds of one validate at M = 10^6 rows in 10^4 groups, with and without groups.

Settings: the defaults of validate (n_boot 1000, n_permutations 999) except
n_ucc_permutations = 199 (the ranking test is not studied here), seed = replicate number.

* ``average`` (``--only average``): the average stage alone (ZMS and <Z> rows, Holm) and the
  scale factor's coverage, on many sets per cell (a few ms per set); a fifth field of a cell,
  G:n:ICC:tails:f, multiplies every uE by f (power: f = 1.111 makes ZMS 0.81).

Usage: ``python benchmarks/group_error_rates.py [--reps R] [--reps-other R2] [--power-reps P]
[--no-cost] [--only alarms|power|cost|average] [--cells G:n:ICC:tails,...]``; prints
Markdown tables (benchmarks/group_error_rates.md holds a run).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from uqval import validate

STAGES = ["average", "consistency", "adaptivity: x_row", "adaptivity: x_grp", "joint"]


def grouped_set(seed: int, n_groups: int, size: int, rho: float, tails: str,
                planted: str = "none"):
    rng = np.random.default_rng(seed)
    m = n_groups * size
    g = np.repeat(np.arange(n_groups), size)

    def draw(k: int) -> np.ndarray:
        if tails == "normal":
            return rng.standard_normal(k)
        return rng.standard_t(6, k) / np.sqrt(6 / 4)

    z = np.sqrt(rho) * draw(n_groups)[g] + np.sqrt(1 - rho) * draw(m)
    u = rng.uniform(0.5, 2.0, m)
    x_row = rng.uniform(0, 1, m)
    x_grp = rng.uniform(0, 1, n_groups)[g]
    e = u * z
    if planted == "groups 2x":
        e = np.where(x_grp > 0.75, 2.0 * e, e)
    elif planted == "rows 2.5x":
        e = np.where(x_row > 0.7, 2.5 * e, e)
    return e, u, {"x_row": x_row, "x_grp": x_grp}, g


def run(seed: int, grouped: bool, **kw):
    e, u, f, g = grouped_set(seed, **kw)
    res = validate(e, u, f, seed=seed, n_ucc_permutations=199,
                   groups=g if grouped else None)
    return res


CELLS = [(200, 30, 0.2, "normal"), (200, 30, 0.5, "normal"), (200, 30, 0.8, "normal"),
         (200, 30, 0.5, "t(6)"), (2000, 3, 0.5, "normal"), (20, 300, 0.5, "normal")]


def false_alarms(reps: int, reps_other: int, first_seed: int = 0,
                 main_only: bool = False, cells=CELLS) -> list[str]:
    lines = ["| G x n (M) | ICC | Z | groups | " + " | ".join(STAGES)
             + " | scale-factor 95 % coverage | mean interval width | s per set |",
             "|---|---|---|---|" + "---|" * (len(STAGES) + 3)]
    for n_groups, size, rho, tails in cells:
        main_cell = (size, rho, tails) == (30, 0.5, "normal")
        if main_only and not main_cell:
            continue
        for grouped in (True, False) if main_cell and not main_only else (True,):
            r = (reps if main_cell else reps_other) if grouped else 20
            fails = np.zeros(len(STAGES))
            cover, width = 0, 0.0
            t0 = time.perf_counter()
            for seed in range(first_seed, first_seed + r):
                res = run(seed, grouped, n_groups=n_groups, size=size, rho=rho, tails=tails)
                verdicts = res.stage_verdicts
                fails += [verdicts.get(s) == "fail" for s in STAGES]
                s = res.scale_factor
                cover += s.ci_low <= 1.0 <= s.ci_high
                width += s.ci_high - s.ci_low
            secs = (time.perf_counter() - t0) / r
            lines.append(
                f"| {n_groups} x {size} ({n_groups * size}) | {rho} | {tails} | "
                f"{'given' if grouped else 'not given'} | "
                + " | ".join(f"{100 * k / r:.0f} % ({int(k)}/{r})" for k in fails)
                + f" | {100 * cover / r:.0f} % ({cover}/{r}) | {width / r:.3f} | {secs:.1f} |")
            print(lines[-1], flush=True)
    return lines


def average_only(reps: int, cells) -> list[str]:
    """The average stage alone (the engine's ``average_stage``: ZMS by the studentized
    cluster bootstrap, <Z> by the cluster-robust t test, Holm), many sets per cell."""
    from uqval._internal.checks import unit_scaled
    from uqval.stats.groups import GroupIndex
    from uqval.validation.stages import Seeds, average_stage

    lines = ["| G x n (M) | ICC | Z | sigma x | sets (seeds) | average fails | ZMS row fails "
             "| <Z> row fails | scale-factor 95 % coverage | mean interval width |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n_groups, size, rho, tails, sigma_factor in cells:
        fails = zms = mean_z = cover = 0
        width = 0.0
        for seed in range(reps):
            e, u, _, g = grouped_set(seed, n_groups, size, rho, tails)
            u = sigma_factor * u  # > 1: every sigma too large, ZMS = 1 / factor^2
            e_unit, u_unit, _ = unit_scaled(e, u)
            avg = average_stage(e, u, e_unit, u_unit, n_boot=1000, alpha=0.05,
                                seeds=Seeds.of(seed), n_workers=1, say=lambda _: None,
                                groups=GroupIndex.from_codes(g))
            verdicts = [r["verdict"] for r in avg.rows]
            fails += "fail" in verdicts
            zms += verdicts[0] == "fail"
            mean_z += verdicts[1] == "fail"
            cover += avg.scale.ci_low <= 1.0 <= avg.scale.ci_high
            width += avg.scale.ci_high - avg.scale.ci_low
        lines.append(f"| {n_groups} x {size} ({n_groups * size}) | {rho} | {tails} | "
                     f"{sigma_factor:g} | {reps} (0-{reps - 1}) | " + " | ".join(
                         f"{100 * k / reps:.1f} % ({k}/{reps})" for k in (fails, zms, mean_z))
                     + f" | {100 * cover / reps:.1f} % | {width / reps:.3f} |")
        print(lines[-1], flush=True)
    return lines


def power(reps: int) -> list[str]:
    lines = ["| planted | groups | found | located | average fails | other feature fails |",
             "|---|---|---|---|---|---|"]
    for planted, feature, other in (("groups 2x", "x_grp", "x_row"),
                                    ("rows 2.5x", "x_row", "x_grp")):
        found = located = avg = wrong = 0
        for seed in range(reps):
            res = run(1000 + seed, True, n_groups=200, size=30, rho=0.5, tails="normal",
                      planted=planted)
            v = res.stage_verdicts
            hit = v.get(f"adaptivity: {feature}") == "fail"
            found += hit
            table = res.bins[feature]
            top = table.iloc[int(np.argmax(table["factor"].to_numpy()))]
            located += hit and float(top["low"]) >= 0.6
            avg += v.get("average") == "fail"
            wrong += v.get(f"adaptivity: {other}") == "fail"
        lines.append(f"| {planted} ({feature}) | given | {found}/{reps} | {located}/{reps} | "
                     f"{avg}/{reps} | {wrong}/{reps} |")
        print(lines[-1], flush=True)
    return lines


def cost() -> list[str]:
    lines = ["| M | G | groups | seconds |", "|---|---|---|---|"]
    e, u, f, g = grouped_set(7, n_groups=10_000, size=100, rho=0.5, tails="normal")
    for grouped in (False, True):
        t0 = time.perf_counter()
        validate(e, u, f, seed=7, n_ucc_permutations=199, groups=g if grouped else None)
        secs = time.perf_counter() - t0
        lines.append(f"| {e.size} | 10000 | {'given' if grouped else 'not given'} | "
                     f"{secs:.0f} |")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=100, help="sets of the issue's cell")
    parser.add_argument("--reps-other", type=int, default=100, help="sets of the other cells")
    parser.add_argument("--power-reps", type=int, default=40)
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first set")
    parser.add_argument("--main-only", action="store_true",
                        help="only the issue's cell (ICC 0.5, groups of 30, normal), groups given")
    parser.add_argument("--no-cost", action="store_true")
    parser.add_argument("--cells", help="false-alarm cells G:n:ICC:tails, comma-separated "
                        "(e.g. 50:20:0.5:normal,1000:100:0.5:normal); default: the grid above")
    parser.add_argument("--only", choices=["alarms", "power", "cost", "average"],
                        help="average: the average stage alone, --reps-other sets per cell")
    args = parser.parse_args()
    fields = [c.split(":") for c in args.cells.split(",")] if args.cells else []
    cells = CELLS if not args.cells else [
        (int(f[0]), int(f[1]), float(f[2]), f[3]) for f in fields]
    if args.only == "average":
        # optional fifth field: every sigma multiplied by it (power: 1.111 gives ZMS 0.81)
        print("\n".join(average_only(args.reps_other, [
            (*cell, float(f[4]) if len(f) > 4 else 1.0)
            for cell, f in zip(cells, fields or [[]] * len(cells), strict=True)])),
              flush=True)
        return
    if args.only in (None, "alarms"):
        print("\n".join(false_alarms(args.reps, args.reps_other, args.first_seed,
                                      args.main_only, cells)), flush=True)
    if args.only in (None, "power"):
        print("\n".join(power(args.power_reps)), flush=True)
    if args.only in (None, "cost") and not args.no_cost:
        print("\n".join(cost()), flush=True)


if __name__ == "__main__":
    main()
