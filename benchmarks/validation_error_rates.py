"""False-alarm rates and power of ``uqval.validate`` (rule "uqval") by simulation.

Datasets: uE lognormal(0, 0.5); features x1 ~ U(0, 1), x2 ~ N(0, 1), both unrelated to
uE; errors E = uE·D with D standard normal or unit-variance Student t(6) or t(4) (``--errors``).
Cases:

* ``calibrated``: E = uE·D (every fail is a false alarm);
* ``global x1.3``: E = 1.3·uE·D (average must fail; after scaling, the conditional stages
  must keep their false-alarm rate);
* ``local x2.5``: E = 2.5·uE·D where x1 > 0.75 (25 % of the rows): adaptivity along x1
  must fail, along x2 not;
* ``grows with uE``: E = uE·(uE/median uE)^0.25·D: the error SD grows faster than uE,
  consistency must fail;
* ``nearly x1.03``: E = 1.03·uE·D: significant at large M, but within the ±10 % tolerance:
  the advice must not be ``scale``;
* ``dominated``: calibrated, but 0.2 % of the rows state a 40x too small uE: the advice
  must be ``inspect_rows`` first, never a global ``scale``;
* ``bias x1``: E = uE·(D + 0.3) where x1 > 0.5: a bias, the advice must be ``correct_bias``
  and not a recalibration of the uncertainties;
* ``bias 0.5``: E = uE·(D + 0.5) everywhere: the spread is right, so the advice must be
  ``correct_bias`` without a global ``scale`` (sqrt(ZMS) = 1.12 counts the bias);
* ``top 4 % x3``: E = 3·uE·D where x1 > 0.96 (one bin of 25 at M = 10³ and 10⁴): the range
  must be advised (``recalibrate_per_range``), also when the z-scores are heavy-tailed.
* ``middle 10 % x2``: E = 2·uE·D where 0.45 < x1 <= 0.55, a narrow range not aligned with
  the bins (``recalibrate_per_range`` along x1);
* ``middle 15 % bias``: E = uE·(D + 0.6) where 0.45 < x1 <= 0.60 (``correct_bias`` along x1);
* ``confident 12 % x0.6``: E = 0.6·uE·D for the 12 % smallest uE, whose uncertainties are
  1.7x too large (``recalibrate_per_range`` or ``recalibrate_monotone`` along uE).
* ``large x3``: E = uE·D/3, every uncertainty 3x too large and no offset: a
  ``correct_bias`` is a false alarm (the offset is judged in units of the scaled
  uncertainties, <Z>/sqrt(ZMS), :mod:`uqval.validation.effects`);
* ``large x3 bias 0.3``: E = uE·(D + 0.3)/3, an offset of 0.3 error sds that reads 0.1 with
  the uncertainties as given (``correct_bias``);
* ``small x4 bias 0.05``: E = 4·uE·(D + 0.05), an offset of 0.05 error sds, inside the
  tolerance, that reads 0.2 as given (no ``correct_bias``);
* ``bias 0.8 x0.6``: E = uE·(0.6·D + 0.8): an offset that hides a spread 1.7x too large,
  ZMS = 0.36 + 0.64 = 1 (``correct_bias`` and ``scale`` by sd(Z) = 0.6);
* ``bias 0.5 x0.8``: E = uE·(0.8·D + 0.5): sqrt(ZMS) = 0.94 inside the band, sd(Z) = 0.8
  beyond it (``correct_bias`` and ``scale`` by 0.8).

Advice columns (:mod:`uqval.validation.advice`): % of datasets whose advice holds a ``scale``
row with a factor outside the tolerance band [1/1.1, 1.1] (``advice: scale``), an
``inspect_rows`` row, a ``correct_bias`` row, a ``recalibrate_per_range`` row, a
``recalibrate_monotone`` row.

A stage "fails" when its verdict after scaling (``result.stage_verdicts``) is fail; the
last column counts datasets where adaptivity fails along x1 or x2 (Holm keeps it <= 5 %).
Settings: n_boot = 500 (scale factor and per-bin intervals), n_permutations = 999.

Usage: ``nice -n 10 python benchmarks/validation_error_rates.py [--quick]``; writes
``benchmarks/results/validation_error_rates.csv`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import uqval

ERRORS = ("normal", "t6", "t4")
CASES = ("calibrated", "global x1.3", "local x2.5", "grows with uE", "nearly x1.03",
         "dominated", "bias x1", "bias 0.5", "top 4 % x3", "middle 10 % x2",
         "middle 15 % bias", "confident 12 % x0.6", "large x3", "large x3 bias 0.3",
         "small x4 bias 0.05", "bias 0.8 x0.6", "bias 0.5 x0.8")
STAGES = ("average", "consistency", "adaptivity: x1", "adaptivity: x2")
ADVICE = ("scale", "inspect_rows", "correct_bias", "recalibrate_per_range",
          "recalibrate_monotone")
COLUMNS = (*STAGES, "adaptivity (any feature)", *(f"advice: {a}" for a in ADVICE))
OUT = Path(__file__).resolve().parent / "results"


def dataset(m: int, seed: int, errors: str, case: str):
    rng = np.random.default_rng([seed, m, ERRORS.index(errors), CASES.index(case)])
    u = rng.lognormal(0.0, 0.5, m)
    x1, x2 = rng.uniform(0.0, 1.0, m), rng.normal(size=m)
    if errors == "normal":
        d = rng.normal(size=m)
    else:
        nu = int(errors[1:])
        d = rng.standard_t(nu, m) * np.sqrt((nu - 2) / nu)
    e = u * d
    if case == "global x1.3":
        e = 1.3 * e
    elif case == "local x2.5":
        e = np.where(x1 > 0.75, 2.5 * e, e)
    elif case == "grows with uE":
        e = e * (u / np.median(u)) ** 0.25
    elif case == "nearly x1.03":
        e = 1.03 * e
    elif case == "dominated":
        bad = rng.choice(m, size=max(1, m // 500), replace=False)
        u = u.copy()
        u[bad] /= 40.0
    elif case == "bias x1":
        e = np.where(x1 > 0.5, e + 0.3 * u, e)
    elif case == "bias 0.5":
        e = e + 0.5 * u
    elif case == "top 4 % x3":
        e = np.where(x1 > 0.96, 3.0 * e, e)
    elif case == "middle 10 % x2":
        e = np.where((x1 > 0.45) & (x1 <= 0.55), 2.0 * e, e)
    elif case == "middle 15 % bias":
        e = np.where((x1 > 0.45) & (x1 <= 0.60), e + 0.6 * u, e)
    elif case == "confident 12 % x0.6":
        e = np.where(u <= np.quantile(u, 0.12), 0.6 * e, e)
    elif case == "large x3":
        e = e / 3.0
    elif case == "large x3 bias 0.3":
        e = (e + 0.3 * u) / 3.0
    elif case == "small x4 bias 0.05":
        e = 4.0 * (e + 0.05 * u)
    elif case == "bias 0.8 x0.6":
        e = 0.6 * e + 0.8 * u
    elif case == "bias 0.5 x0.8":
        e = 0.8 * e + 0.5 * u
    return e, u, {"x1": x1, "x2": x2}


def advised(res, action: str) -> bool:
    """Whether the advice holds ``action`` (for ``scale``: a factor beyond the tolerance)."""
    rows = res.advice[res.advice["action"] == action]
    if action == "scale":
        t = float(res.parameters["tolerance"])
        return bool(((rows["factor"] > 1 + t) | (rows["factor"] < 1 / (1 + t))).any())
    return not rows.empty


def run(sizes: dict[int, int], cases: tuple[str, ...] = CASES,
        errors_kinds: tuple[str, ...] = ERRORS[:2]) -> pd.DataFrame:
    rows = []
    for m, n_seeds in sizes.items():
        for errors in errors_kinds:
            for case in cases:
                t0 = time.time()
                fails = dict.fromkeys(COLUMNS, 0)
                for seed in range(n_seeds):
                    e, u, feats = dataset(m, seed, errors, case)
                    res = uqval.validate(e, u, feats, seed=seed, n_boot=500, n_permutations=999,
                                         n_bins=25 if case == "top 4 % x3" else None)
                    verdicts = res.stage_verdicts
                    for stage in STAGES:
                        fails[stage] += verdicts[stage] == "fail"
                    fails["adaptivity (any feature)"] += "fail" in (
                        verdicts["adaptivity: x1"], verdicts["adaptivity: x2"])
                    for action in ADVICE:
                        fails[f"advice: {action}"] += advised(res, action)
                rows.append({"M": m, "errors": errors, "case": case, "seeds": n_seeds,
                             **{s: 100.0 * fails[s] / n_seeds for s in COLUMNS},
                             "seconds per dataset": (time.time() - t0) / n_seeds})
                print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few seeds (smoke test)")
    parser.add_argument("--sizes", help="M:seeds pairs, e.g. 10000:400,100000:40")
    parser.add_argument("--null-only", action="store_true", help="calibrated case only")
    parser.add_argument("--cases", help="comma-separated subset of the cases, e.g. "
                        "'calibrated,nearly x1.03,dominated,bias x1'")
    parser.add_argument("--errors", default="normal,t6",
                        help=f"comma-separated error laws from {list(ERRORS)}")
    parser.add_argument("--name", default="validation_error_rates", help="output file stem")
    args = parser.parse_args()
    sizes = {1000: 10, 10_000: 5} if args.quick else {1000: 200, 10_000: 100, 100_000: 15}
    if args.sizes:
        sizes = {int(m): int(n) for m, n in (pair.split(":") for pair in args.sizes.split(","))}
    cases = CASES[:1] if args.null_only else CASES
    if args.cases:
        cases = tuple(c.strip() for c in args.cases.split(","))
        unknown = set(cases) - set(CASES)
        if unknown:
            parser.error(f"unknown case(s) {sorted(unknown)}; choose from {list(CASES)}")
    errors_kinds = tuple(x.strip() for x in args.errors.split(","))
    if set(errors_kinds) - set(ERRORS):
        parser.error(f"unknown error law(s); choose from {list(ERRORS)}")
    table = run(sizes, cases, errors_kinds)
    OUT.mkdir(parents=True, exist_ok=True)
    table.to_csv(OUT / f"{args.name}.csv", index=False)
    shown = table.drop(columns="seconds per dataset").round(1)
    (OUT / f"{args.name}.md").write_text(shown.to_markdown(index=False) + "\n")
    print(shown.to_markdown(index=False))


if __name__ == "__main__":
    main()
