"""Input features computed from a chemical formula (adaptivity paper, Sect. II.B).

The adaptivity paper conditions QM9 z-scores on two proxies of the molecular structure: the
molecular mass X1 (Da) and the fraction of heteroatoms X2 = 1 - (n_C + n_H)/n_atoms. The
authors' code uses CHNOSZ standard atomic weights (H 1.008, C 12.011, N 14.007, O 15.999,
F 18.998), which are the IUPAC conventional values tabulated here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import numpy as np

__all__ = ["ATOMIC_WEIGHTS", "FORMULA_PROPERTIES", "formula_property", "heteroatom_fraction",
           "molecular_mass", "parse_formula"]

# IUPAC conventional standard atomic weights (Da).
ATOMIC_WEIGHTS: dict[str, float] = {
    "H": 1.008, "B": 10.81, "C": 12.011, "N": 14.007, "O": 15.999, "F": 18.998,
    "Si": 28.085, "P": 30.974, "S": 32.06, "Cl": 35.45, "Br": 79.904, "I": 126.90,
}

_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")


def parse_formula(formula: str) -> Counter[str]:
    """Element counts of a flat Hill-style formula such as ``C5H10N2O``.

    Raises ValueError for anything that is not a sequence of element symbols with optional
    counts (parentheses, charges and hydrates are not used by the supported datasets).
    """
    formula = formula.strip()
    if not formula or "".join(m.group(0) for m in _TOKEN.finditer(formula)) != formula:
        raise ValueError(f"not a flat chemical formula: '{formula}'")
    counts: Counter[str] = Counter()
    for symbol, number in _TOKEN.findall(formula):
        counts[symbol] += int(number) if number else 1
    return counts


def molecular_mass(counts: Counter[str]) -> float:
    """Molecular mass in Da: sum of n_el * w_el over the elements of the formula."""
    unknown = sorted(set(counts) - set(ATOMIC_WEIGHTS))
    if unknown:
        raise ValueError(f"no atomic weight for element(s) {', '.join(unknown)}")
    return float(sum(n * ATOMIC_WEIGHTS[el] for el, n in counts.items()))


def heteroatom_fraction(counts: Counter[str]) -> float:
    """Fraction of atoms that are neither C nor H: 1 - (n_C + n_H) / n_atoms."""
    total = sum(counts.values())
    if total == 0:
        raise ValueError("the formula has no atoms")
    return 1.0 - (counts.get("C", 0) + counts.get("H", 0)) / total


FORMULA_PROPERTIES = {
    "molecular_mass": molecular_mass,
    "heteroatom_fraction": heteroatom_fraction,
}


def formula_property(formulas: Iterable[str], prop: str) -> np.ndarray:
    """Vector of ``prop`` (a key of FORMULA_PROPERTIES) for each formula string."""
    if prop not in FORMULA_PROPERTIES:
        raise ValueError(f"unknown formula property '{prop}' (known: {', '.join(FORMULA_PROPERTIES)})")
    func = FORMULA_PROPERTIES[prop]
    return np.array([func(parse_formula(f)) for f in formulas], dtype=float)
