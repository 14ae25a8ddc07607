"""Figures and tables of the primer paper (P000), assembled from the library.

Each ``fig_*`` function computes what one figure shows with ``uqval.calibration.curves``,
``uqval.calibration.local``, ``uqval.stats.running`` and ``uqval.binning`` and draws it with
``uqval.plots.panels``; the paper's panel layout is kept (panels (a), (b), ... row-wise).
Datasets are passed as DataFrames with columns E, uE (or U_<P>), optional V and X columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from uqval import binning
from uqval.calibration import curves
from uqval.calibration.coverage import global_coverage, interval_half_widths, local_coverage
from uqval.calibration.local import (
    global_zisd,
    global_zmean,
    global_zvar,
    local_zisd,
    reliability_diagram,
)
from uqval.plots import panels
from uqval.plots.style import CALIBRATED, UNCALIBRATED, figure, panel_grid, panel_label
from uqval.stats import running

LETTERS = "abcdefghijkl"
VERSION_LABELS = {"uncal": "uncalibrated", "cal": "calibrated"}


@dataclass(frozen=True)
class PrimerSettings:
    """Parameters of the primer figures (paper values as defaults, config ``primer``)."""

    n_bins: int = 15                      # synthetic figures: 15 equal-count bins
    lcp_probs: tuple[float, ...] = (0.25, 0.5, 0.75, 0.95)
    t_nu: float = 4.0                     # Case E and BUS2022 t_4 variants
    n_mc: int = 500                       # probabilistic reference of confidence curves
    adaptive_bins: int = 20               # PAL2022, BUS2022, HU2022 adaptive binning start
    pop_min: int = 30
    adaptive_log: bool = True             # log grid as the text says (docs/choices.md)
    pal2022_adaptive_log: bool = False    # PAL2022 (Figs 13-15, A2-A3): linear grid of the authors'
    #                                       script, which gives the printed App. B bin counts
    #                                       (docs/paper_inconsistencies.md#p000-figa3-adaptive-bins)
    qm9_rd_bins: int = 10
    seed: int = 0

    @classmethod
    def from_config(cls, cfg: Mapping, seed: int) -> PrimerSettings:
        """Settings from the ``analysis.primer`` block of config/config.yaml."""
        a = cfg["adaptive"]
        return cls(
            n_bins=cfg["n_bins"], lcp_probs=tuple(cfg["lcp_probs"]), t_nu=float(cfg["t_nu"]),
            n_mc=cfg["n_mc"], adaptive_bins=a["n_bins"], pop_min=a["pop_min"], adaptive_log=a["log"],
            pal2022_adaptive_log=a.get("pal2022_log", False),
            qm9_rd_bins=cfg["qm9_rd_bins"], seed=seed,
        )


def _grid(n: int, ncols: int = 3):
    """Primer panels are slightly larger than the default grid cells."""
    return panel_grid(n, ncols, width=2.7, height=2.4)


def _label(ax, i: int, text: str) -> None:
    panel_label(ax, f"({LETTERS[i]}) {text}")


def _rng(settings: PrimerSettings, *labels: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([settings.seed, *labels]))


def _finish(fig: Figure) -> Figure:
    """Readable plain-number tick labels on every log axis of the figure."""
    for ax in fig.axes:
        panels.readable_log_ticks(ax)
    return fig


def _log_axes(ax, y: bool = False) -> None:
    """Force a log x (and y) axis where the paper's code uses one (logX = TRUE), even when
    the values span less than the decade that ``panels.use_log_x`` asks for."""
    ax.set_xscale("log")
    if y:
        ax.set_yscale("log")


def _pair_legend(ax, loc: str = "best") -> None:
    ax.legend(loc=loc, fontsize=6)


def _whole(df: pd.DataFrame) -> tuple[float, float, float]:
    row = df.iloc[0]
    return float(row["value"]), float(row["ci_low"]), float(row["ci_high"])


def _local_zisd(ax, E, uE, x, bins, xlabel, log_x, color=CALIBRATED, label=None, offset=0) -> pd.DataFrame:
    local = local_zisd(E, uE, x, bins, method="cho")
    panels.local_statistic(ax, local, "LZISD", xlabel, whole=_whole(global_zisd(E, uE)),
                           color=color, label=label, log_x=log_x, offset=offset)
    return local


# --- synthetic cases A-F (Sect. III) ---------------------------------------------------------


def table1_design() -> pd.DataFrame:
    """Table 1: expected calibration, consistency and adaptivity of cases A-F."""
    rows = [
        ("A", "reference: calibrated, consistent, adaptive", "yes", "yes", "yes"),
        ("B", "uE = RMS(uE_A) N(1, 0.1)", "yes", "no", "no"),
        ("C", "uE_A randomly permuted", "yes/no", "no", "no"),
        ("D", "uE = 2 uE_A", "no", "no", "no"),
        ("E", "errors from t_4 (unit variance)", "yes", "yes", "yes"),
        ("F", "homoscedastic uE = RMS(uE_A)", "yes", "-", "no"),
    ]
    return pd.DataFrame(rows, columns=["case", "design", "calibration", "consistency", "adaptivity"])


def fig_calibration_curves(cases: Mapping[str, pd.DataFrame], names: Sequence[str]) -> Figure:
    """Fig. 1: calibration curves (normal D) with the 95 % band and miscalibration area."""
    fig, axes = _grid(len(names))
    for i, (ax, name) in enumerate(zip(axes, names, strict=False)):
        c = cases[name]
        panels.calibration_curve(ax, curves.calibration_curve(c["E"], c["uE"]))
        _label(ax, i, f"Case {name}")
    return _finish(fig)


def fig_errors_vs_uncertainty(cases: Mapping[str, pd.DataFrame], names: Sequence[str]) -> Figure:
    """Fig. 2: E vs uE with y = +-k x guides (k = 1, 2, 3) and running 2.5/97.5 % quantiles."""
    fig, axes = _grid(len(names))
    for i, (ax, name) in enumerate(zip(axes, names, strict=False)):
        c = cases[name]
        pos, q = running.running_quantiles_along(c["uE"].to_numpy(), c["E"].to_numpy())
        panels.errors_vs_uncertainty(ax, c["uE"].to_numpy(), c["E"].to_numpy(), pos, q)
        _label(ax, i, f"Case {name}")
    return _finish(fig)


def _conditional_panel(ax, E, uE, bins, distribution="normal") -> None:
    panels.conditional_curves(ax, curves.conditional_calibration_curves(E, uE, bins, distribution=distribution))


def fig_conditional_curves(cases: Mapping[str, pd.DataFrame], names: Sequence[str], variable: str,
                           settings: PrimerSettings, t_panel: str | None = None) -> Figure:
    """Figs 3 and 9: conditional calibration curves in bins of uE (consistency) or of X
    (adaptivity); ``t_panel`` adds the case with a t_nu generative distribution (Fig. 3f)."""
    extra = [t_panel] if t_panel else []
    fig, axes = _grid(len(names) + len(extra))
    for i, name in enumerate([*names, *extra]):
        c = cases[name]
        bins = binning.equal_count_bins(c[variable], settings.n_bins)
        t_variant = i >= len(names)
        _conditional_panel(axes[i], c["E"], c["uE"], bins, ("t", settings.t_nu) if t_variant else "normal")
        _label(axes[i], i, f"Case {name}" + (f", $t_{{{settings.t_nu:g}}}$" if t_variant else ""))
    return _finish(fig)


def fig_reliability(cases: Mapping[str, pd.DataFrame], names: Sequence[str], settings: PrimerSettings) -> Figure:
    """Fig. 4: reliability diagrams, equal-count bins of uE, bootstrap 95 % intervals."""
    fig, axes = _grid(len(names))
    for i, (ax, name) in enumerate(zip(axes, names, strict=False)):
        c = cases[name]
        bins = binning.equal_count_bins(c["uE"], settings.n_bins)
        rd = reliability_diagram(c["E"], c["uE"], bins, method="bootstrap", seed=settings.seed + i)
        panels.reliability_diagram(ax, rd)
        _log_axes(ax, y=True)  # log-log for every case, as the authors' code (logX = TRUE)
        panels.square_parity(ax)
        _label(ax, i, f"Case {name}")
    return _finish(fig)


def fig_lzisd(cases: Mapping[str, pd.DataFrame], names: Sequence[str], variable: str,
              settings: PrimerSettings, log_x: bool) -> Figure:
    """Figs 5 and 10: LZISD per equal-count bin of uE or X, whole-set value in the margin."""
    fig, axes = _grid(len(names))
    xlabel = {"uE": r"$u_E$", "X": "X", "V": "V"}[variable]
    for i, (ax, name) in enumerate(zip(axes, names, strict=False)):
        c = cases[name]
        bins = binning.equal_count_bins(c[variable], settings.n_bins)
        _local_zisd(ax, c["E"], c["uE"], c[variable], bins, xlabel, log_x)
        if log_x:
            _log_axes(ax)
        _label(ax, i, f"Case {name}")
    return _finish(fig)


def fig_lcp(cases: Mapping[str, pd.DataFrame], names: Sequence[str], variable: str,
            settings: PrimerSettings, log_x: bool, t_panel: str | None = None) -> Figure:
    """Figs 6 and 11: local coverage of normal intervals U_P = uE Phi^-1((1+P)/2) for
    P = 25, 50, 75, 95 %; ``t_panel`` adds the case with t_nu intervals (Fig. 6f)."""
    extra = [t_panel] if t_panel else []
    fig, axes = _grid(len(names) + len(extra))
    xlabel = {"uE": r"$u_E$", "X": "X"}[variable]
    for i, name in enumerate([*names, *extra]):
        c = cases[name]
        dist: curves.DistributionSpec = ("t", settings.t_nu) if i >= len(names) else "normal"
        half = interval_half_widths(c["uE"], settings.lcp_probs, dist)
        bins = binning.equal_count_bins(c[variable], settings.n_bins)
        lcp = local_coverage(c["E"], half, c[variable], bins, settings.lcp_probs)
        whole = global_coverage(c["E"], half, settings.lcp_probs)
        panels.coverage(axes[i], lcp, xlabel, whole=whole, log_x=log_x, legend=False)
        if log_x:
            _log_axes(axes[i])
        _label(axes[i], i, f"Case {name}" + (f", $t_{{{settings.t_nu:g}}}$" if i >= len(names) else ""))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=len(settings.lcp_probs))
    return _finish(fig)


def fig_confidence(cases: Mapping[str, pd.DataFrame], names: Sequence[str], settings: PrimerSettings,
                   t_panel: str | None = None) -> Figure:
    """Fig. 7: RMSE confidence curves with the probabilistic reference (500 draws) and its
    95 % band; ``t_panel`` adds the case with a t_nu reference (Fig. 7f)."""
    extra = [t_panel] if t_panel else []
    fig, axes = _grid(len(names) + len(extra))
    for i, name in enumerate([*names, *extra]):
        c = cases[name]
        dist: curves.DistributionSpec = ("t", settings.t_nu) if i >= len(names) else "normal"
        cc = curves.confidence_curve(c["E"], c["uE"], "rmse")
        ref = curves.probabilistic_reference(c["uE"], _rng(settings, 7, i), dist, "rmse", n_mc=settings.n_mc)
        panels.confidence_curve(axes[i], cc, ref, "RMSE", top_axis=False)
        _label(axes[i], i, f"Case {name}" + (f", $t_{{{settings.t_nu:g}}}$" if i >= len(names) else ""))
    return _finish(fig)


def fig_z_vs(cases: Mapping[str, pd.DataFrame], names: Sequence[str], variable: str,
             log_x: bool | Mapping[str, bool], axes_list=None, first: int = 0) -> Figure | None:
    """Fig. 8 (and Fig. A1 a-f): Z vs X (or V) with +-2 guides and running 95 % quantiles;
    the Z range follows the data (capped at +-30, as Case C in the authors' code).
    ``log_x`` may be given per case."""
    fig = None
    if axes_list is None:
        fig, axes_list = _grid(len(names))
    for i, (ax, name) in enumerate(zip(axes_list, names, strict=False)):
        c = cases[name]
        Z = (c["E"] / c["uE"]).to_numpy()
        pos, q = running.running_quantiles_along(c[variable].to_numpy(), Z)
        log = log_x[name] if isinstance(log_x, Mapping) else log_x
        panels.z_vs_variable(ax, c[variable].to_numpy(), Z, pos, q, variable, log_x=log, limit=None)
        if log:
            _log_axes(ax)
        _label(ax, first + i, f"Case {name}")
    return _finish(fig) if fig is not None else None


def fig_a1(cases: Mapping[str, pd.DataFrame], names: Sequence[str], settings: PrimerSettings) -> Figure:
    """Fig. A1: adaptivity vs the predicted value V. (a-f) Z vs V; (g-l) LZISD vs V."""
    fig, axes = _grid(2 * len(names))
    log_x = {n: bool((cases[n]["V"] > 0).all()) for n in names}  # per case, as the authors' code
    fig_z_vs(cases, names, "V", log_x, axes_list=axes[: len(names)])
    for i, name in enumerate(names):
        c = cases[name]
        bins = binning.equal_count_bins(c["V"], settings.n_bins)
        ax = axes[len(names) + i]
        _local_zisd(ax, c["E"], c["uE"], c["V"], bins, "V", log_x[name])
        if log_x[name]:
            _log_axes(ax)
        _label(ax, len(names) + i, f"Case {name}")
    return _finish(fig)


# --- PAL2022 (Sect. IV.1, App. B) -------------------------------------------------------------


def mean_var_intervals(sets: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]]) -> pd.DataFrame:
    """Fig. 12 data: <Z> (Student-t CI with sd/sqrt(M), not the code's sd/M; docs/choices.md,
    "Intervals of local statistics") and Var(Z)
    ("cho" CI) for the uncalibrated and calibrated versions of each set."""
    rows = []
    for name, pair in sets.items():
        for version, data in zip(("uncal", "cal"), pair, strict=True):
            m = global_zmean(data["E"], data["uE"]).iloc[0]
            v = global_zvar(data["E"], data["uE"], method="cho").iloc[0]
            rows.append({
                "set": name, "version": version, "M": len(data),
                "mean_z": m["value"], "mean_z_low": m["ci_low"], "mean_z_high": m["ci_high"],
                "var_z": v["value"], "var_z_low": v["ci_low"], "var_z_high": v["ci_high"],
                "var_z_ci_contains_1": bool(v["ci_low"] <= 1 <= v["ci_high"]),
            })
    return pd.DataFrame(rows)


def fig_mean_var(table: pd.DataFrame) -> Figure:
    """Fig. 12: (a) <Z> and (b) Var(Z) with 95 % intervals, uncalibrated (red) and
    calibrated (blue), one row per set; <Z> on a range symmetric about 0 and Var(Z) on a
    log axis, as the authors' code."""
    fig, axes = figure(1, 2, width=3.4, height=3.0)
    names = list(dict.fromkeys(table["set"]))
    y = np.arange(len(names))
    for ax, (col, target, label) in zip(axes, (("mean_z", 0.0, r"$\langle Z \rangle$"),
                                               ("var_z", 1.0, "Var(Z)")), strict=True):
        ax.axvline(target, ls="--", color="0.4", lw=0.8)
        for version, color, dy in (("uncal", UNCALIBRATED, 0.12), ("cal", CALIBRATED, -0.12)):
            t = table[table["version"] == version].set_index("set").loc[names]
            ax.hlines(y + dy, t[f"{col}_low"], t[f"{col}_high"], color=color, lw=1.5)
            ax.plot(t[col], y + dy, "o", color=color, ms=3, label={"uncal": "uncalibrated", "cal": "calibrated"}[version])
        ax.set_yticks(y, names if ax is axes[0] else [""] * len(names), fontsize=7)
        ax.set_xlabel(label)
        ax.invert_yaxis()
    half = 1.1 * float(np.abs(table[["mean_z_low", "mean_z_high"]].to_numpy()).max())
    axes[0].set_xlim(-half, half)
    axes[1].set_xscale("log")
    axes[1].legend(loc="lower right")
    panel_label(axes[0], "(a)")
    panel_label(axes[1], "(b)")
    return _finish(fig)


def fig_pal_method(sets: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]], settings: PrimerSettings) -> tuple[Figure, dict]:
    """Figs 13-15: for each set (rows: Diffusion, Perovskite) LZISD vs uE with adaptive
    binning (grid ``settings.pal2022_adaptive_log``, linear by default as in the authors'
    script; uncalibrated red, calibrated blue), reliability diagram ("cho" intervals) and
    the RMSE confidence curve of the calibrated set with its probabilistic reference.
    Returns the figure and the adaptive bin counts {(set, version): n_bins}."""
    fig, axes = _grid(3 * len(sets))
    counts = {}
    for r, (name, pair) in enumerate(sets.items()):
        ax_l, ax_r, ax_c = axes[3 * r: 3 * r + 3]
        for j, (version, data, color) in enumerate(zip(("uncal", "cal"), pair, (UNCALIBRATED, CALIBRATED), strict=True)):
            bins = binning.adaptive_bins(data["uE"], settings.adaptive_bins, settings.pop_min,
                                         settings.pal2022_adaptive_log)
            counts[(name, version)] = len(bins)
            _local_zisd(ax_l, data["E"], data["uE"], data["uE"], bins, r"$u_E$ (eV)", True, color=color,
                        label=VERSION_LABELS[version], offset=j)
            rd = reliability_diagram(data["E"], data["uE"], bins, method="cho")
            panels.reliability_diagram(ax_r, rd, color=color, label=VERSION_LABELS[version], unit="eV")
        _log_axes(ax_l)
        _log_axes(ax_r, y=True)
        panels.square_parity(ax_r)
        _pair_legend(ax_l)
        _pair_legend(ax_r, "upper left")
        cal = pair[1]
        cc = curves.confidence_curve(cal["E"], cal["uE"], "rmse")
        ref = curves.probabilistic_reference(cal["uE"], _rng(settings, 13, r), "normal", "rmse", n_mc=settings.n_mc)
        panels.confidence_curve(ax_c, cc, ref, "RMSE (eV)")
        for k, ax in enumerate((ax_l, ax_r, ax_c)):
            _label(ax, 3 * r + k, name)
    return _finish(fig), counts


def fig_binning_impact(pair: tuple[pd.DataFrame, pd.DataFrame], starts: Sequence[int],
                       settings: PrimerSettings) -> tuple[Figure, dict]:
    """Figs A2-A3: LZISD and reliability diagrams with equal-count bins (rows 1-2) and
    adaptive bins (rows 3-4; starting grid ``settings.pal2022_adaptive_log``, linear by default
    as in the authors' script) for n = 10, 20, 40 starting bins; uncalibrated red, calibrated
    blue. Returns the figure and the adaptive bin counts {(version, start): n_bins}."""
    fig, axes = _grid(4 * len(starts), ncols=len(starts))
    counts = {}
    for col, n in enumerate(starts):
        for j, (version, data, color) in enumerate(zip(("uncal", "cal"), pair, (UNCALIBRATED, CALIBRATED), strict=True)):
            for row, scheme in ((0, "equal"), (2, "adaptive")):
                if scheme == "equal":
                    bins = binning.equal_count_bins(data["uE"], n)
                else:
                    bins = binning.adaptive_bins(data["uE"], n, settings.pop_min, settings.pal2022_adaptive_log)
                    counts[(version, n)] = len(bins)
                ax_l = axes[row * len(starts) + col]
                ax_r = axes[(row + 1) * len(starts) + col]
                _local_zisd(ax_l, data["E"], data["uE"], data["uE"], bins, r"$u_E$ (eV)", True, color=color,
                            label=VERSION_LABELS[version], offset=j)
                rd = reliability_diagram(data["E"], data["uE"], bins, method="cho")
                panels.reliability_diagram(ax_r, rd, color=color, label=VERSION_LABELS[version], unit="eV")
                panel_label(ax_l, f"({LETTERS[row * len(starts) + col]}) {scheme}, n = {n}")
                panel_label(ax_r, f"({LETTERS[(row + 1) * len(starts) + col]}) {scheme}, n = {n}")
    for row in range(4):
        for ax in axes[row * len(starts): (row + 1) * len(starts)]:
            _log_axes(ax, y=row % 2 == 1)  # LZISD: log x; reliability diagrams: log-log
            if row % 2 == 1:
                panels.square_parity(ax)
    handles, labels = axes[len(starts)].get_legend_handles_labels()  # reliability diagram: filled markers
    fig.legend(handles, labels, loc="outside lower center", ncols=2)
    return _finish(fig), counts


# --- BUS2022 QM9 (Sect. IV.2) -----------------------------------------------------------------

QM9_RMSE_CC_TOP = 0.015  # eV: the paper truncates the RMSE confidence curves (Figs 17f, 18c)


def fig_qm9_exploration(data: pd.DataFrame) -> Figure:
    """Fig. 16: (a) E vs uE with guides and running quantiles; (b) Z vs molecular mass (the
    caption says "prediction"; text and code use the mass; docs/choices.md, "Figure captions of the
    primer")."""
    fig, axes = figure(1, 2, width=3.4, height=3.0)
    E, uE, mass = data["E"].to_numpy(), data["uE"].to_numpy(), data["X_mass"].to_numpy()
    pos, q = running.running_quantiles_along(uE, E)
    panels.errors_vs_uncertainty(axes[0], uE, E, pos, q, xlabel=r"$u_E$ (eV)", ylabel="E (eV)")
    Z = E / uE
    pos, q = running.running_quantiles_along(mass, Z)
    panels.z_vs_variable(axes[1], mass, Z, pos, q, "molecular mass (Da)")
    panel_label(axes[0], "(a)")
    panel_label(axes[1], "(b)")
    return _finish(fig)


def fig_qm9_validation(data: pd.DataFrame, settings: PrimerSettings) -> tuple[Figure, dict]:
    """Fig. 17: (a) reliability diagram, 10 equal-count bins; (b) calibration curve; (c) MAE
    confidence curve; (d) LZISD vs uE and (e) vs molecular mass, adaptive bins (log grid);
    (f) RMSE confidence curve, truncated at 0.015 eV as in the paper. Returns the figure and
    the adaptive bin counts."""
    fig, axes = _grid(6)
    E, uE, mass = data["E"], data["uE"], data["X_mass"]
    rd = reliability_diagram(E, uE, binning.equal_count_bins(uE, settings.qm9_rd_bins),
                                         method="bootstrap", seed=settings.seed)
    panels.reliability_diagram(axes[0], rd, unit="eV")
    panels.calibration_curve(axes[1], curves.calibration_curve(E, uE, p=curves.P_GRID_DEFAULT))
    stat: curves.ConfidenceStatistic
    for ax, stat, label, i in ((axes[2], "mae", "MAE (eV)", 2), (axes[5], "rmse", "RMSE (eV)", 5)):
        cc = curves.confidence_curve(E, uE, stat)
        ref = curves.probabilistic_reference(uE, _rng(settings, 17, i), "normal", stat, n_mc=settings.n_mc)
        panels.confidence_curve(ax, cc, ref, label, top_axis=False)
    axes[5].set_ylim(0, QM9_RMSE_CC_TOP)
    counts = {}
    for ax, x, xlabel, key in ((axes[3], uE, r"$u_E$ (eV)", "uE"), (axes[4], mass, "molecular mass (Da)", "mass")):
        bins = binning.adaptive_bins(x, settings.adaptive_bins, settings.pop_min, True)
        counts[key] = len(bins)
        _local_zisd(ax, E, uE, x, bins, xlabel, key == "uE")
    for i, ax in enumerate(axes[:6]):
        panel_label(ax, f"({LETTERS[i]})")
    return _finish(fig), counts


def fig_qm9_t(data: pd.DataFrame, settings: PrimerSettings) -> Figure:
    """Fig. 18: the t_4 versions: (a) calibration curve, (b) MAE and (c) RMSE confidence
    curves with t_4 probabilistic references ((c) truncated at 0.015 eV as in the paper)."""
    fig, axes = _grid(3)
    E, uE = data["E"], data["uE"]
    dist: curves.DistributionSpec = ("t", settings.t_nu)
    panels.calibration_curve(axes[0], curves.calibration_curve(E, uE, p=curves.P_GRID_DEFAULT, distribution=dist))
    stat: curves.ConfidenceStatistic
    for ax, stat, label, i in ((axes[1], "mae", "MAE (eV)", 1), (axes[2], "rmse", "RMSE (eV)", 2)):
        cc = curves.confidence_curve(E, uE, stat)
        ref = curves.probabilistic_reference(uE, _rng(settings, 18, i), dist, stat, n_mc=settings.n_mc)
        panels.confidence_curve(ax, cc, ref, label, top_axis=False)
    axes[2].set_ylim(0, QM9_RMSE_CC_TOP)
    for i, ax in enumerate(axes[:3]):
        panel_label(ax, f"({LETTERS[i]}) $t_{{{settings.t_nu:g}}}$")
    return _finish(fig)


# --- HU2022 (Sect. IV.3) ----------------------------------------------------------------------


def fig_hu(feature: pd.DataFrame, latent: pd.DataFrame, settings: PrimerSettings) -> tuple[Figure, dict]:
    """Fig. 19: rows feature / latent distance: (a) E vs U_95 with guides y = +-x and running
    quantiles; (b) LCP of U_68 and U_95 conditioned on the FEATURE distance (as the authors'
    code, for both rows), adaptive bins from 20; (c) RMSE confidence curve with uE = U_95/1.96
    (normal assumption). Energies in eV/sys (the paper's unit). Returns the figure and the
    average coverages."""
    fig, axes = _grid(6)
    x_feature = feature["X_distance"].to_numpy()
    coverages = {}
    for r, (name, data) in enumerate((("feature", feature), ("latent", latent))):
        E, U95 = data["E"].to_numpy(), data["U_95"].to_numpy()
        sub = name[0].upper()  # U_F, U_L
        pos, q = running.running_quantiles_along(U95, E)
        panels.errors_vs_uncertainty(axes[3 * r], U95, E, pos, q, k_guides=(1,),
                                     xlabel=rf"$U_{{{sub},95}}$ (eV/sys)", ylabel="E (eV/sys)")
        half = data[["U_68", "U_95"]].to_numpy()
        probs = (0.68, 0.95)
        bins = binning.adaptive_bins(x_feature, settings.adaptive_bins, settings.pop_min, settings.adaptive_log)
        lcp = local_coverage(E, half, x_feature, bins, probs)
        whole = global_coverage(E, half, probs)
        coverages.update({(name, p): float(v) for p, v in zip(whole["prob"], whole["value"], strict=True)})
        panels.coverage(axes[3 * r + 1], lcp, "feature distance (a.u.)", whole=whole, log_x=True)
        _log_axes(axes[3 * r + 1])  # log x as the authors' code
        uE = U95 / 1.96
        cc = curves.confidence_curve(E, uE, "rmse")
        ref = curves.probabilistic_reference(uE, _rng(settings, 19, r), "normal", "rmse", n_mc=settings.n_mc)
        panels.confidence_curve(axes[3 * r + 2], cc, ref, "RMSE (eV/sys)", top_axis=False)
        titles = (f"E vs $U_{{{sub},95}}$", f"LCP of $U_{{{sub},68}}$, $U_{{{sub},95}}$",
                  f"$u_E = U_{{{sub},95}}/1.96$")
        for k in range(3):
            _label(axes[3 * r + k], 3 * r + k, titles[k])
    return _finish(fig), coverages
