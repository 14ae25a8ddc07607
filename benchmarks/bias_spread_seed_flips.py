"""Does the spread advised beside an offset on rows in groups hang on the seed? The sets of
``bias_spread_groups.py`` (``group_error_rates.grouped_set``, E = uE (s Z + b)), each
validated with seed 0 and seed 1; a flip is a ``scale`` row of the average stage under one
seed only (sd(Z)'s interval over groups is a seeded studentized bootstrap).

Usage: ``PYTHONPATH=src python benchmarks/bias_spread_seed_flips.py`` (from the project root;
``benchmarks/advice_rules.md`` holds a run).
"""

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from group_error_rates import grouped_set  # noqa: E402

from uqval import validate  # noqa: E402

CELLS = [(100, 10, 0.3, 0.5, 1.0), (100, 10, 0.3, 0.5, 0.88), (30, 30, 0.5, 0.5, 1.0)]
"""Groups, rows per group, ICC, offset b, spread s (0.88: at the edge of the band)."""


def scale_advised(e, u, feats, g, seed: int) -> bool:
    a = validate(e, u, feats, groups=g, seed=seed, n_boot=500, n_permutations=199,
                 n_ucc_permutations=99).advice
    return bool(((a.stage == "average") & (a.action == "scale")).any())


def main() -> None:
    warnings.filterwarnings("ignore")
    for n_groups, size, rho, b, s in CELLS:
        flips = scale0 = 0
        for k in range(40):
            e, u, feats, g = grouped_set(1000 + k, n_groups, size, rho, "normal")
            e = u * (s * (e / u) + b)
            first, second = (scale_advised(e, u, feats, g, seed) for seed in (0, 1))
            flips += first != second
            scale0 += first
        print(f"G={n_groups} n={size} ICC={rho} b={b} s={s}: scale (seed 0) {scale0}/40, "
              f"flips {flips}/40", flush=True)


if __name__ == "__main__":
    main()
