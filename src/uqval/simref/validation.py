"""The simulated-reference validation of one statistic (simref paper P002 Fig. 1, Sect. II.D.3).

Sensitivity to D: the references of D = N(0, 1) and D = t_s(6) are compared with
abs(delta) > k sqrt(u_N^2 + u_T^2), k = 2 by default; ``sensitivity="mc+estimate"`` also
requires abs(delta) to exceed the bootstrap standard error of the estimate (Sect. III.C.3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from uqval._internal.checks import errors_uncertainties
from uqval._internal.seeding import seed_sequence
from uqval._internal.types import SeedLike
from uqval.simref.reference import (
    DEFAULT_N_MC,
    DistSpec,
    SimulatedReference,
    simulated_reference,
)
from uqval.simref.statistics import (
    DEFAULT_N_BOOT,
    SimRefStatistic,
    as_statistic,
    bootstrap_statistic,
)
from uqval.simref.zeta import zeta_schemes
from uqval.stats.bootstrap import BootstrapResult

__all__ = [
    "DEFAULT_T_NU",
    "Validation",
    "validate_statistic",
    "validation_bootstrap",
]

DEFAULT_T_NU = 6.0  # D = t_s(6) for the "T" variants (Sect. III.C.2)


@dataclass(frozen=True)
class Validation:
    """All intermediate values of the validation of one statistic on one set.

    Attributes:
        statistic: label; M: set size; n_boot, n_mc: sizes used (n_mc 0 if nothing was
            simulated).
        estimate: theta_est; ci_low, ci_high: BCa interval I_BS; se_bs, bias_bs: bootstrap
            standard error and bias; half_range_bs: U_BS = (I_BS+ - I_BS-)/2.
        reference: predefined reference (ZMS: 1) or None.
        references: simulated references keyed "N", "T" (or "D" for a known D).
        zeta: zeta-scores per scheme (BS, SimN, SimT, Sim2N, Sim2T as computed).
        sensitivity: abs(delta) = abs(theta_N - theta_T), u_combined = sqrt(u_N^2 + u_T^2), the
            threshold k u_combined, ratio_to_U_BS = abs(delta)/U_BS, sensitive (bool), criterion.
        mc_precision_ok: 2 u(theta_ref) < U_BS for every simulated reference (Sect. II.D.2).
        verdict: "validated", "not validated", "borderline" (Sim zetas disagree),
            "do not use" (sensitive to D) or "not testable" (a statistic without reference,
            CC, ENCE or ZMSE, on one uncertainty value for every row).
        scheme: the scheme(s) the verdict rests on; reason: explanation.

    Examples:
        >>> import numpy as np
        >>> from uqval import validate_statistic
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> v = validate_statistic(e, u, "ZMS", n_boot=500, seed=0)
        >>> v.statistic, v.M, v.reference, round(v.estimate, 3), v.n_mc  # nothing simulated
        ('ZMS', 1000, 1.0, 1.052, 0)
        >>> v.reason
        'predefined reference 1: |zeta| <= 1 for BS'
        >>> row = v.as_row()  # flat record, as in P002 Tables A1-A4
        >>> row["verdict"], round(row["zeta_BS"], 2)
        ('validated', 0.61)
    """

    statistic: str
    M: int
    n_boot: int
    n_mc: int
    estimate: float
    ci_low: float
    ci_high: float
    se_bs: float
    bias_bs: float
    half_range_bs: float
    reference: float | None
    references: dict[str, SimulatedReference]
    zeta: dict[str, float]
    sensitivity: dict[str, Any]
    mc_precision_ok: bool | None
    verdict: str
    scheme: str
    reason: str

    def as_row(self) -> dict[str, Any]:
        """Flat record (one row of P002 Tables A1-A4)."""
        row: dict[str, Any] = {
            "statistic": self.statistic,
            "M": self.M,
            "theta_est": self.estimate,
            "I_BS_low": self.ci_low,
            "I_BS_high": self.ci_high,
            "U_BS": self.half_range_bs,
            "se_BS": self.se_bs,
            "theta_ref": self.reference,
        }
        for key, ref in self.references.items():
            row |= {
                f"theta_ref_{key}": ref.mean,
                f"u_{key}": ref.u,
                f"I_{key}_low": ref.ci_low,
                f"I_{key}_high": ref.ci_high,
            }
        row |= {f"zeta_{k}": v for k, v in self.zeta.items()}
        row |= {f"sens_{k}": v for k, v in self.sensitivity.items()}
        row |= {"verdict": self.verdict, "scheme": self.scheme, "reason": self.reason}
        return row


def _verdict_from(zetas: Mapping[str, float], schemes: Sequence[str]) -> tuple[str, str]:
    ok = [abs(zetas[s]) <= 1.0 for s in schemes]
    label = "/".join(schemes)
    if all(ok):
        return "validated", f"|zeta| <= 1 for {label}"
    if not any(ok):
        return "not validated", f"|zeta| > 1 for {label}"
    return "borderline", f"{label} disagree on |zeta| <= 1"


NOT_TESTABLE = "not testable"
"""Verdict of a statistic that compares uncertainties when every uncertainty is the same."""


def _not_testable(label: str, m: int, value: float, n_boot: int) -> Validation:
    """The :class:`Validation` of a statistic without reference (CC, ENCE, ZMSE: they compare
    the uncertainties with each other) on one uncertainty value for every row: undefined (the
    rank correlation) or arbitrary (bins of tied values), so not testable."""
    nan = float("nan")
    return Validation(
        statistic=label, M=m, n_boot=n_boot, n_mc=0, estimate=nan, ci_low=nan, ci_high=nan,
        se_bs=nan, bias_bs=nan, half_range_bs=nan, reference=None, references={}, zeta={},
        sensitivity={}, mc_precision_ok=None, verdict=NOT_TESTABLE, scheme="-",
        reason=(f"not testable: one uncertainty value ({value:.6g}) in every row; {label} "
                "compares the uncertainties with each other (ZMS, the average, is testable)"))


def validation_bootstrap(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    statistic: SimRefStatistic | str,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: SeedLike = None,
    n_workers: int = 1,
    jackknife_groups: int | None = None,
) -> BootstrapResult | None:
    """Step 1 of :func:`validate_statistic` on its own: theta_est and I_BS with the seed
    that ``validate_statistic`` gives it (the first of ``SeedSequence(seed).spawn(3)``), or
    None where the statistic is not testable (an unknown reference and a constant uE).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 500)
    >>> e = u * rng.standard_normal(500)
    >>> bs = validation_bootstrap(e, u, "ENCE20", n_boot=200, seed=3)
    >>> v = validate_statistic(e, u, "ENCE20", n_boot=200, n_mc=100, seed=3, bootstrap=bs)
    >>> v.ci_low == validate_statistic(e, u, "ENCE20", n_boot=200, n_mc=100, seed=3).ci_low
    True
    """
    stat = as_statistic(statistic)
    e, ue = errors_uncertainties(errors, uncertainties)
    if stat.reference is None and np.ptp(ue) == 0.0:
        return None
    return bootstrap_statistic(e, ue, stat, n_boot=n_boot, seed=seed_sequence(seed).spawn(3)[0],
                               n_workers=n_workers, jackknife_groups=jackknife_groups)


def validate_statistic(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    statistic: SimRefStatistic | str,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    n_mc: int = DEFAULT_N_MC,
    t_nu: float = DEFAULT_T_NU,
    seed: SeedLike = None,
    distribution: DistSpec | None = None,
    all_schemes: bool = False,
    reference_uncertainty: bool = False,
    sensitivity: Literal["mc", "mc+estimate"] = "mc",
    k_sensitivity: float = 2.0,
    chunk: int | None = None,
    n_workers: int = 1,
    references: Mapping[str, SimulatedReference] | None = None,
    jackknife_groups: int | None = None,
    bootstrap: BootstrapResult | None = None,
) -> Validation:
    """Validation workflow of P002 Fig. 1 (Sect. II.D.3) for one statistic on one set.

    1. theta_est and the BCa interval I_BS (n_boot = 5000 as in the authors' code; P002 Sect. II.D).
    2. Known reference (ZMS): zeta_BS, verdict on abs(zeta_BS) <= 1 (Eq. 22). With
       ``all_schemes`` the simulated references and Sim/Sim2 zetas are also computed
       (Tables A1-A4, Figs 6-7), without changing the verdict.
    3. Unknown reference, ``distribution`` given (D constrained, e.g. a GP): one simulated
       reference, verdict on abs(zeta_Sim) <= 1 (Eq. 23).
    4. Unknown reference, D unknown: simulate under N(0, 1) and t_s(t_nu) (Sect. II.D.3,
       nu = 6); sensitive if abs(theta_N - theta_T) > k sqrt(u_N^2 + u_T^2) (paper: "differ
       more than their statistical uncertainty"; k = 2, the paper's expanded uncertainty),
       and, with ``sensitivity="mc+estimate"``, also abs(delta) > se_BS (the shift would move
       zeta by more than about half the interval). Sensitive: verdict "do not use".
       Otherwise the verdict rests on SimN and SimT together.

    Seeds: ``SeedSequence(seed).spawn(3)`` gives the bootstrap, N and T (or D) streams.

    ``references``: precomputed simulated references keyed "N" and "T" (or "D"), e.g. from
    one :func:`simulated_references` call shared by several statistics; they replace the
    simulation step (their statistic label must match).

    ``jackknife_groups``: passed to :func:`bootstrap_statistic` (grouped jackknife of CC for
    large M; None keeps the leave-one-out jackknife of the papers).

    ``bootstrap``: step 1 computed beforehand by :func:`validation_bootstrap` with the same
    arguments (e.g. by a job that ran beside the simulations); it replaces step 1.

    Examples:
        ZMS (known reference 1) for errors drawn with their uE, then for uE half too small:

        >>> import numpy as np
        >>> from uqval import validate_statistic
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> v = validate_statistic(e, u, "ZMS", n_boot=500, seed=0)
        >>> v.verdict, v.scheme, round(v.zeta["BS"], 2)
        ('validated', 'BS', 0.61)
        >>> v = validate_statistic(e, u / 2, "ZMS", n_boot=500, seed=0)
        >>> v.verdict, round(v.zeta["BS"], 1)
        ('not validated', 9.4)

        ENCE (no known reference) is simulated under N(0, 1) and t_s(6); its references
        differ by far more than their Monte Carlo uncertainty, so it should not be used:

        >>> v = validate_statistic(e, u, "ENCE20", n_boot=500, n_mc=500, seed=0)
        >>> v.verdict, {k: round(r.mean, 3) for k, r in v.references.items()}
        ('do not use', {'N': 0.08, 'T': 0.113})
    """
    stat = as_statistic(statistic)
    e, ue = errors_uncertainties(errors, uncertainties)
    if stat.reference is None and np.ptp(ue) == 0.0:
        return _not_testable(stat.label, e.size, float(ue[0]), n_boot)
    boot_seed, seed_n, seed_t = seed_sequence(seed).spawn(3)
    if bootstrap is None:
        bs = bootstrap_statistic(e, ue, stat, n_boot=n_boot, seed=boot_seed, n_workers=n_workers,
                                 jackknife_groups=jackknife_groups)
    elif bootstrap.n_boot != n_boot:
        raise ValueError(f"bootstrap has {bootstrap.n_boot} replicates, n_boot is {n_boot}")
    else:
        bs = bootstrap
    half = 0.5 * (bs.ci_high - bs.ci_low)
    known = stat.reference
    refs: dict[str, SimulatedReference] = {}
    if references is not None:
        refs = dict(references)
        if set(refs) not in ({"N", "T"}, {"D"}):
            raise ValueError(f"references must be keyed 'N' and 'T', or 'D'; got {sorted(refs)}")
        if any(r.statistic != stat.label for r in refs.values()):
            raise ValueError(f"references are not for {stat.label}")
    elif known is None or all_schemes:
        if distribution is not None:
            refs["D"] = simulated_reference(ue, stat, distribution, n_mc, seed_n, chunk)
        else:
            refs["N"] = simulated_reference(ue, stat, "normal", n_mc, seed_n, chunk)
            refs["T"] = simulated_reference(ue, stat, ("t", t_nu), n_mc, seed_t, chunk)
    zetas = zeta_schemes(
        bs.estimate,
        bs.ci_low,
        bs.ci_high,
        refs,
        known,
        reference_uncertainty=reference_uncertainty,
    )
    mc_ok = all(2.0 * r.u < half for r in refs.values()) if refs else None
    sens: dict[str, Any] = {}
    if "N" in refs and "T" in refs:
        delta = abs(refs["N"].mean - refs["T"].mean)
        u_comb = math.hypot(refs["N"].u, refs["T"].u)
        sensitive = delta > k_sensitivity * u_comb
        if sensitivity == "mc+estimate":
            sensitive = sensitive and delta > bs.se
        elif sensitivity != "mc":
            raise ValueError(f"unknown sensitivity criterion {sensitivity!r}")
        sens = {
            "delta": delta,
            "u_combined": u_comb,
            "threshold": k_sensitivity * u_comb,
            "ratio_to_U_BS": delta / half if half > 0 else math.inf,
            "sensitive": bool(sensitive),
            "criterion": sensitivity,
        }
    if known is not None:
        verdict, why = _verdict_from(zetas, ["BS"])
        scheme, reason = "BS", f"predefined reference {known:g}: {why}"
    elif "D" in refs:
        verdict, why = _verdict_from(zetas, ["SimD"])
        scheme, reason = "SimD", f"D given ({refs['D'].distribution}): {why}"
    elif sens["sensitive"]:
        verdict, scheme = "do not use", "-"
        reason = (
            "statistic sensitive to the generative distribution: do not use "
            f"(|theta_N - theta_T| = {sens['delta']:.3g} > {k_sensitivity:g} x "
            f"{sens['u_combined']:.2g}; {sens['ratio_to_U_BS']:.2f} U_BS)"
        )
    else:
        verdict, why = _verdict_from(zetas, ["SimN", "SimT"])
        scheme, reason = "SimN/SimT", f"references insensitive to D: {why}"
    if mc_ok is False:
        reason += "; warning: 2u(theta_ref) >= U_BS, increase n_mc"
    return Validation(
        statistic=stat.label,
        M=e.size,
        n_boot=n_boot,
        n_mc=max((r.n_mc for r in refs.values()), default=0),
        estimate=bs.estimate,
        ci_low=bs.ci_low,
        ci_high=bs.ci_high,
        se_bs=bs.se,
        bias_bs=bs.bias,
        half_range_bs=half,
        reference=known,
        references=refs,
        zeta=zetas,
        sensitivity=sens,
        mc_precision_ok=mc_ok,
        verdict=verdict,
        scheme=scheme,
        reason=reason,
    )

