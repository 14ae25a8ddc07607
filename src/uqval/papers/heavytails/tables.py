"""Tables of the heavy-tails paper (P001) assembled from per-dataset results.

Per-dataset results are the JSON summaries of the screening stage (robust skewness, shape
fits) and of the average-calibration stage (ZMS, RCE with BCa intervals and zeta-scores).
Sets are numbered in the order given (P001: 1-6 PAL2022 calibrated, 7 QM9_E, 8-9 logP).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

SQUARED = ("uE2", "E2", "Z2")


def table1_shapes(screens: Sequence[dict]) -> pd.DataFrame:
    """Table 1: size M and KS-fitted shapes nu of uE^2 (IG), E^2 and Z^2 (scaled F(1, nu))."""
    rows = []
    for number, s in enumerate(screens, start=1):
        row = {"set": number, "dataset": s["dataset"], "M": s["M"]}
        for name in SQUARED:
            row[f"nu_{name}"] = s["fits"][f"nu_{name}"]
        for name in SQUARED:
            row[f"sigma_{name}"] = s["fits"][f"sigma_{name}"]
        rows.append(row)
    return pd.DataFrame(rows)


def table2_limits(limits: dict[str, float]) -> pd.DataFrame:
    """Table 2: beta_GM limits above which RCE/ZMS should be questioned."""
    affects = {"uE2": "RCE", "E2": "RCE", "Z2": "ZMS"}
    return pd.DataFrame(
        [{"variable": name, "beta_GM_limit": limits[name], "affects": affects[name]} for name in SQUARED]
    )


def table3_skewness(screens: Sequence[dict], limits: dict[str, float]) -> pd.DataFrame:
    """Table 3: beta_GM of uE^2, E^2 and Z^2, with flags for values above the limits.

    With the set size M it is also Table I of the simref paper (same nine sets).
    """
    rows = []
    for number, s in enumerate(screens, start=1):
        row = {"set": number, "dataset": s["dataset"], "M": s["M"]}
        for name in SQUARED:
            row[f"beta_{name}"] = s[f"beta_{name}"]
        for name in SQUARED:
            row[f"above_{name}"] = s[f"beta_{name}"] > limits[name]
        rows.append(row)
    return pd.DataFrame(rows)


def table4_tests(averages: Sequence[dict], which: str = "full") -> pd.DataFrame:
    """Table 4: RCE and ZMS estimate, bootstrap bias, BCa interval and zeta per set.

    ``which`` selects the full sets or the ``trimmed`` ones (5 % largest uE removed, Fig. 7).
    """
    rows = []
    for number, a in enumerate(averages, start=1):
        row = {"set": number, "dataset": a["dataset"], "M": a["M"]}
        for test in sorted(a[which], key=lambda t: t["statistic"] != "RCE"):
            s = test["statistic"]
            for field in ("estimate", "bias", "ci_low", "ci_high", "zeta", "valid"):
                row[f"{s}_{field}"] = test[field]
        rows.append(row)
    return pd.DataFrame(rows)


def table_values(tab1: pd.DataFrame, tab3: pd.DataFrame, tab4: pd.DataFrame) -> pd.DataFrame:
    """Long-format scoreboard values: ``fits/<d>/nu_*``, ``screen/<d>/beta_*``,
    ``average/<d>/<S>/*``."""
    items: list[tuple[str, float]] = []
    for _, r in tab1.iterrows():
        items += [(f"fits/{r['dataset']}/nu_{n}", r[f"nu_{n}"]) for n in SQUARED]
    for _, r in tab3.iterrows():
        items += [(f"screen/{r['dataset']}/beta_{n}", r[f"beta_{n}"]) for n in SQUARED]
    for _, r in tab4.iterrows():
        for s in ("RCE", "ZMS"):
            items += [
                (f"average/{r['dataset']}/{s}/{f}", r[f"{s}_{f}"])
                for f in ("estimate", "bias", "ci_low", "ci_high", "zeta")
            ]
    return pd.DataFrame(items, columns=["key", "value"])


def jacobs_table(reports: Sequence[dict], screens: Sequence[dict], averages: Sequence[dict]) -> pd.DataFrame:
    """Tables 5-6 (Jacobs et al. sets, P001 App. B): M, counts of non-positive uE and of null
    errors in the raw files, beta_GM of uE^2, E^2, Z^2, and ZMS and RCE with their BCa
    intervals and zeta-scores. Sets are numbered in the given order (case-insensitive
    alphabetical order of the folder names in the paper)."""
    rows = []
    for number, (rep, scr, avg) in enumerate(zip(reports, screens, averages, strict=True), start=1):
        removed = {f["name"]: f["removed"] for f in rep["filters"]}
        row = {
            "set": number,
            "dataset": rep["id"],
            "M": rep["M"],
            "n0_uE": removed.get("nonpositive_uncertainty", 0),
            "n0_E": rep["n_zero_errors"],
        }
        row.update({f"beta_{n}": scr[f"beta_{n}"] for n in SQUARED})
        for test in avg["full"]:
            s = test["statistic"]
            row.update({f"{s}_{f}": test[f] for f in ("estimate", "ci_low", "ci_high", "zeta", "valid")})
        rows.append(row)
    return pd.DataFrame(rows)


def jacobs_values(table: pd.DataFrame) -> pd.DataFrame:
    """Scoreboard values of Tables 5-6: M/<d>, screen/<d>/beta_*, average/<d>/<S>/estimate."""
    items: list[tuple[str, float]] = []
    for _, r in table.iterrows():
        d = r["dataset"]
        items.append((f"M/{d}", r["M"]))
        items += [(f"screen/{d}/beta_{n}", r[f"beta_{n}"]) for n in SQUARED]
        items += [(f"average/{d}/{s}/estimate", r[f"{s}_estimate"]) for s in ("ZMS", "RCE")]
    return pd.DataFrame(items, columns=["key", "value"])
