"""zeta-scores of a statistic against a known or simulated reference (simref paper P002 App. A,
Eqs. 20-24; docs/choices.md, "Uncertainty of simulated references" and "Sim2 intervals").

BS (known reference, bootstrap interval), SimN/SimT (simulated reference with the bootstrap
interval), Sim2N/Sim2T (Monte Carlo interval I_D: zeta = (est - ref)/(ref - I_D-) if
est <= ref, else (est - ref)/(I_D+ - ref)).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from uqval.simref.reference import SimulatedReference
from uqval.stats.zeta import zeta_score

__all__ = [
    "zeta_bs",
    "zeta_schemes",
    "zeta_sim2",
]

def zeta_bs(
    estimate: float, reference: float, ci_low: float, ci_high: float, reference_u: float = 0.0
) -> float:
    """zeta(theta_est, theta_ref, I) of P002 Eq. 20/A1 (bootstrap interval of the estimate).

    ``reference_u`` is u(theta_ref); the authors' code adds U_t = 2u in quadrature to the
    half-width; the text ignores it (0, default). See docs/choices.md, "Uncertainty of
    simulated references".
    """
    return float(
        zeta_score(estimate, reference, ci_low, ci_high, reference_uncertainty=2.0 * reference_u)
    )


def zeta_sim2(estimate: float, reference: float, ci_low: float, ci_high: float) -> float:
    """Sim2 zeta with the Monte Carlo interval I_D of the reference (P002 Eq. 24).

    zeta = (est - ref)/(ref - I_D-) if est <= ref, else (est - ref)/(I_D+ - ref), i.e. the
    authors' -zeta(ref, est, I_D). 0 when est == ref.
    """
    delta = float(estimate) - float(reference)
    if delta == 0.0:
        return 0.0
    half = (float(reference) - ci_low) if delta < 0.0 else (ci_high - float(reference))
    with np.errstate(divide="ignore"):
        return float(np.divide(delta, half))


def zeta_schemes(
    estimate: float,
    ci_low: float,
    ci_high: float,
    references: Mapping[str, SimulatedReference],
    known_reference: float | None = None,
    *,
    reference_uncertainty: bool = False,
) -> dict[str, float]:
    """The zeta-scores of App. A for one estimate.

    Args:
        estimate, ci_low, ci_high: theta_est and its bootstrap interval I_BS.
        references: simulated references keyed by the scheme suffix (``{"N": ..., "T": ...}``
            gives SimN, Sim2N, SimT, Sim2T).
        known_reference: predefined reference (ZMS: 1) for the BS scheme; None skips BS.
        reference_uncertainty: False (text): Sim ignores u(theta_ref); True (code):
            the half-width is sqrt((est - lim)^2 + (2u)^2).

    Returns:
        ``{"BS": ..., "SimN": ..., "Sim2N": ..., ...}``.
    """
    out: dict[str, float] = {}
    if known_reference is not None:
        out["BS"] = zeta_bs(estimate, known_reference, ci_low, ci_high)
    for key, ref in references.items():
        u = ref.u if reference_uncertainty else 0.0
        out[f"Sim{key}"] = zeta_bs(estimate, ref.mean, ci_low, ci_high, u)
    for key, ref in references.items():
        out[f"Sim2{key}"] = zeta_sim2(estimate, ref.mean, ref.ci_low, ref.ci_high)
    return out

