"""Heavy-tail screening of a dataset before average-calibration testing.

Heavy-tails paper (P001), Sects. III-V: the robust skewness beta_GM of uE^2, E^2 and Z^2
(Table 3) is compared with the safety limits of Table 2 (0.6 for uE^2, 0.8 for E^2 and Z^2):
above them the RCE (uE^2, E^2) or the ZMS (Z^2) are unreliable. The shape of the three
distributions is summarised by minimum-KS fits (Table 1): inverse gamma for uE^2, scaled
F(1, nu) for E^2 and Z^2. The NIG model line of Fig. 6 maps the shape nu of a calibrated
normal-inverse-gamma dataset to (beta_GM(uE^2), beta_GM(E^2))."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from numpy.typing import ArrayLike

from uqval._internal.checks import errors_uncertainties
from uqval._internal.types import FloatArray
from uqval.stats.robust import beta_gm, kappa_cs

# The fits (scipy.stats, scipy.optimize and Numba: 0.9 s per job) are imported by shape_fits on
# first use: the validation jobs screen with the robust statistics only.


@dataclass(frozen=True)
class SkewnessLimits:
    """Safety limits of beta_GM (P001 Table 2)."""

    uE2: float = 0.6
    E2: float = 0.8
    Z2: float = 0.8


@dataclass(frozen=True)
class Screening:
    """Robust shape statistics of uE^2, E^2, Z^2 and the reliability verdicts they imply.

    Examples:
        >>> import numpy as np
        >>> from uqval import screen
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> s = screen(u * rng.standard_normal(1000), u)
        >>> s.M, round(s.beta_uE2, 2), round(s.beta_E2, 2), round(s.beta_Z2, 2)
        (1000, 0.14, 0.69, 0.61)
        >>> s.as_dict()["reasons"]  # no statistic above its limit
        []
    """

    M: int
    beta_uE2: float
    beta_E2: float
    beta_Z2: float
    kappa_uE2: float
    kappa_E2: float
    kappa_Z2: float
    rce_reliable: bool
    zms_reliable: bool
    reasons: tuple[str, ...]

    def as_dict(self) -> dict:
        return {**asdict(self), "reasons": list(self.reasons)}


def screen(errors: ArrayLike, uncertainties: ArrayLike, limits: SkewnessLimits = SkewnessLimits()) -> Screening:
    """beta_GM and kappa_CS of uE^2, E^2, Z^2 with the P001 Table 2 verdicts.

    RCE is questionable when beta_GM(uE^2) > limits.uE2 or beta_GM(E^2) > limits.E2; ZMS when
    beta_GM(Z^2) > limits.Z2 (P001 Sect. IV.4 and Conclusions).

    Examples:
        Normal errors pass; heavy-tailed ones (unit-variance Student t, nu = 3) do not:

        >>> import numpy as np
        >>> from uqval import screen
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> s = screen(u * rng.standard_normal(1000), u)
        >>> round(s.beta_Z2, 2), s.zms_reliable, s.rce_reliable
        (0.61, True, True)
        >>> s = screen(u * rng.standard_t(3, 1000) / np.sqrt(3), u)
        >>> s.zms_reliable, s.rce_reliable
        (False, False)
        >>> s.reasons
        ('beta_GM(E^2) = 0.87 > 0.8: RCE unreliable', 'beta_GM(Z^2) = 0.83 > 0.8: ZMS unreliable')
    """
    return screen_unchecked(*errors_uncertainties(errors, uncertainties), limits)


def screen_unchecked(errors: FloatArray, uncertainties: FloatArray,
                     limits: SkewnessLimits = SkewnessLimits()) -> Screening:
    """:func:`screen` on arrays already checked (float64, same length, finite, uE > 0), as
    the validation engine's stages hold them after its one input check."""
    u2, e2, z2 = uncertainties**2, errors**2, (errors / uncertainties) ** 2
    b_u2, b_e2, b_z2 = beta_gm(u2), beta_gm(e2), beta_gm(z2)
    reasons = []
    if b_u2 > limits.uE2:
        reasons.append(f"beta_GM(uE^2) = {b_u2:.2f} > {limits.uE2}: RCE unreliable")
    if b_e2 > limits.E2:
        reasons.append(f"beta_GM(E^2) = {b_e2:.2f} > {limits.E2}: RCE unreliable")
    if b_z2 > limits.Z2:
        reasons.append(f"beta_GM(Z^2) = {b_z2:.2f} > {limits.Z2}: ZMS unreliable")
    return Screening(
        M=int(errors.size),
        beta_uE2=b_u2,
        beta_E2=b_e2,
        beta_Z2=b_z2,
        kappa_uE2=kappa_cs(u2),
        kappa_E2=kappa_cs(e2),
        kappa_Z2=kappa_cs(z2),
        rce_reliable=b_u2 <= limits.uE2 and b_e2 <= limits.E2,
        zms_reliable=b_z2 <= limits.Z2,
        reasons=tuple(reasons),
    )


def shape_fits(E: ArrayLike, uE: ArrayLike) -> dict[str, float]:
    """P001 Table 1: KS fits of uE^2 (inverse gamma), E^2 and Z^2 (scaled F(1, nu)).

    Returns the shapes ``nu_*`` and scales ``sigma_*`` (on the scale of uE, E, Z) and the KS
    distances ``ks_*`` of the three fits. Null errors (e.g. 10 % of Jacobs set 1) cannot be
    described by a continuous F distribution: E^2 and Z^2 are fitted on their positive values
    and the number of excluded zeros is reported as ``n_zero_E``.
    """
    from uqval.stats.fits import fit_invgamma_ks, fit_scaled_f_ks

    E, uE = errors_uncertainties(E, uE)
    nonzero = E != 0
    fits = {
        "uE2": fit_invgamma_ks(uE**2),
        "E2": fit_scaled_f_ks(E[nonzero] ** 2),
        "Z2": fit_scaled_f_ks((E[nonzero] / uE[nonzero]) ** 2),
    }
    out: dict[str, float] = {"n_zero_E": int((~nonzero).sum())}
    for name, fit in fits.items():
        out[f"nu_{name}"] = fit.nu
        out[f"sigma_{name}"] = fit.sigma
        out[f"ks_{name}"] = fit.ks_distance
    return out

