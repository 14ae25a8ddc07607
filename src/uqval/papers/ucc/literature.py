"""UCC gains of datasets with uncertainties or prediction intervals (beyond the UCC paper).

For a dataset of errors E = y - y_pred, the UCC only depends on E and the band half-widths,
so the prediction is taken as 0 and the observation as E. Variance-based datasets give
symmetric bands uE (the coverage factor is irrelevant: the UCC sweeps the scale); interval
datasets use their U_P. The reference is the constant band on the same predictions
(UCC paper Sect. 2.3, Eq. 6), compared on both coordinate systems with the paired
permutation test (docs/choices.md, "Permutation test").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from uqval.ucc import (
    Axis,
    PredictionIntervals,
    auucc,
    auucc_gain,
    auucc_permutation_test,
    constant_band,
    ucc_curve,
)

AXES: dict[str, tuple[Axis, Axis]] = {
    "bandwidth-miss_rate": ("bandwidth", "miss_rate"),
    "excess-deficit": ("excess", "deficit"),
}


def band_half_widths(table: pd.DataFrame) -> tuple[str, np.ndarray]:
    """The band of a prepared dataset: uE if present, else the widest interval U_P.

    Raises ValueError naming the columns when E is missing or there is neither uE nor U_P.
    """
    intervals = [c for c in map(str, table.columns) if c.startswith("U_")]
    if "E" not in table or ("uE" not in table and not intervals):
        raise ValueError(
            f"table needs a column E and a column uE or U_<P> (columns: "
            f"{', '.join(map(str, table.columns))})"
        )
    if "uE" in table:
        return "uE", table["uE"].to_numpy()
    col = max(intervals, key=lambda c: float(c[2:]))
    return col, table[col].to_numpy()


def dataset_gains(table: pd.DataFrame, n_permutations: int, seed: int) -> pd.DataFrame:
    """AUUCC of the dataset's band and of the constant band, gain (%) and permutation p-value,
    for both coordinate systems (axes normalised by sd(E), "standard-deviation units")."""
    band, half = band_half_widths(table)
    E = table["E"].to_numpy()
    zero = np.zeros_like(E)
    model = PredictionIntervals.from_half_widths(zero, half)
    const = constant_band(zero)
    rows = []
    for i, (name, (x, y)) in enumerate(AXES.items()):
        a_model = auucc(ucc_curve(E, model, x, y, normalize="std"))
        a_const = auucc(ucc_curve(E, const, x, y, normalize="std"))
        test = auucc_permutation_test(E, model, const, x, y, normalize="std",
                                      n_permutations=n_permutations, seed=seed + i)
        rows.append({"axes": name, "band": band, "M": E.size, "auucc": a_model, "auucc_constant": a_const,
                     "gain_percent": auucc_gain(a_model, a_const), "p_value": test.p_value})
    return pd.DataFrame(rows)


def curves_for_plot(table: pd.DataFrame) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """(x, y) of the model and constant UCCs per coordinate system, for figures."""
    _, half = band_half_widths(table)
    E = table["E"].to_numpy()
    zero = np.zeros_like(E)
    out: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for name, (x, y) in AXES.items():
        out[name] = {}
        for label, pi in (("model", PredictionIntervals.from_half_widths(zero, half)), ("constant", constant_band(zero))):
            c = ucc_curve(E, pi, x, y, normalize="std")
            out[name][label] = (c.x, c.y)
    return out
