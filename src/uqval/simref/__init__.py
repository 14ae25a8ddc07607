"""Simulated reference values for calibration statistics (simref paper P002 Sect. II.D,
Apps A-C, Table II).

Statistics (P002 Sect. II.B-C), all functions of errors E and uncertainties uE:

* **ZMS** = <Z^2>, Z = E/uE (Eq. 14), known reference 1;
* **CC** = Spearman rank correlation of abs(E) and uE (Eq. 18), average ranks for ties (R
  ``cor(method = "spearman")``), no reference;
* **ENCE** = (1/N) sum_i abs(RCE_i), RCE_i = (RMV_i - RMSE_i)/RMV_i (Eq. 11), no reference;
* **ZMSE** = (1/N) sum_i abs(ln ZMS_i) (Eq. 17), no reference;

ENCE and ZMSE use N equal-size bins of the data sorted by uE (stable sort, ties in file order):
bin i holds sorted positions ``b_i .. b_{i+1} - 1`` with ``b_i = floor(M i/N + 1/2)``
(:func:`uqval.binning.equal_count_boundaries`). The sensitivity studies use N = 50, the
zeta-scores N = 20 (P002 Sect. III.C).

Simulated reference (P002 Sect. II.D.2, App. A). E*_i = uE_i eps_i with eps ~ D(0, 1)
and the *actual* uE; theta_D,ref = mean of theta over N_MC sets, u = sd/sqrt(N_MC), and the
Monte Carlo 95 % interval I_D = type-7 quantiles 2.5/97.5 % of the simulated sample (see
docs/choices.md, "Sim2 intervals").
Because uE is fixed, the data are put once in uE-sorted order ("sorted frame") and every
synthetic set is drawn directly in that frame (column j of eps multiplies the j-th smallest
uE): the bins, the sort order of uE and every per-bin count are fixed, so ZMS, ENCE and ZMSE
are functions of whole-set and per-bin sums of Z^2 and E^2, computed once per set for all the
requested statistics (:func:`~uqval.simref.statistics.sorted_batch_table`, sub-blocks of rows
that stay in cache; MV_b of the fixed uE once per bin count). CC needs the ranks of abs(E*)
(uE ranks are fixed): a compiled radix sort in O(M) per set and the numerator
sum_i rank_i ru_i summed exactly in integers (:mod:`uqval.stats.rank_kernel`; rows with ties
in abs(E*), which continuous D never gives, take one argsort). Same draws and the same ZMS,
ENCE, ZMSE values as the per-statistic code; CC equal to rounding (~1e-16, the former BLAS
sum depended on the thread count). ``benchmarks/simref_page.md``: 3.5x less CPU.
Replicates are drawn in fixed stream blocks of ``max(1, 2**20 // M)`` sets, block j from
child j of ``SeedSequence(seed).spawn(n_blocks)``; ``chunk`` only caps how many sets are
evaluated per call, so results depend on (seed, M, N_MC) only. Several statistics can be
evaluated on the same synthetic sets (:func:`simulated_references`).

Bootstrap (P002 Sect. II.D; see docs/choices.md, "Bootstrap replicates"). BCa with
``nptest::np.boot`` conventions (:func:`uqval.stats.bootstrap.bca_bootstrap`), n_boot = 5000 as in
the authors' code. ZMS uses the mean-statistic fast path. CC, ENCE and ZMSE use the generic path in
the authors' manner: each resample is re-sorted by uE and the index-based equal-size bins are
reapplied; the jackknife uses bins computed for M - 1 points. Implementation: the bootstrapped
"data" is the vector of sorted positions 0..M-1, so a resample arrives as a (B, M) array of
positions; its per-point multiplicities c_j (one ``bincount``) describe the re-sorted resample
completely (point j repeated c_j times at sorted positions C_{j-1}..C_j - 1, C = cumsum c). Bin sums
are differences of the weighted prefix sums S(b) = W_{k-1} + (b - C_{k-1}) x_k, k = #{j: C_j <= b}
(one ``searchsorted`` over all rows at once), so a resample costs O(M) with no sort. CC on a
resample is the weighted Pearson correlation of the tie-averaged ranks, computed per tie
group from the multiplicities. Ties in uE between *different* points are ordered by file
order in the resample, whereas R orders them by resample position (both arbitrary;
statistically immaterial).

zeta schemes (App. A, Eqs. 20-24; docs/choices.md, "Uncertainty of simulated references"
and "Sim2 intervals"): BS (known reference, bootstrap interval),
SimN/SimT (simulated reference with the bootstrap interval; the text ignores u(theta_ref),
the code option adds U_t = 2u in quadrature), Sim2N/Sim2T (Monte Carlo interval I_D, zeta =
(est - ref)/(ref - I_D-) if est <= ref, else (est - ref)/(I_D+ - ref), the code's
-zeta(ref, est, I_D)). Scheme names follow the keys of the reference mapping ("N", "T").

Workflow (Fig. 1, Sect. II.D.3): :func:`validate_statistic`. Sensitivity to D (Sect. II.D.3:
"If the simulated reference values for these choices of D differ more than their statistical
uncertainty, the statistic is deemed to be over-sensitive to D and should not be used"): the
references of D = N(0, 1) and D = t_s(6) are compared with abs(delta) > k sqrt(u_N^2 + u_T^2),
k = 2 by default (the expanded uncertainty U = 2u used throughout the paper). Sect. III.C.3
judges sensitivity by its effect on the zeta-scores ("sizable effect"), i.e. relative to the
bootstrap interval, so an optional criterion additionally requires abs(delta) to exceed the
bootstrap standard error of the estimate (``sensitivity="mc+estimate"``); the ratio
abs(delta)/U_BS is always reported.

Modules: :mod:`~uqval.simref.statistics` (the statistics and their bootstrap),
:mod:`~uqval.simref.reference` (simulated references), :mod:`~uqval.simref.zeta`
(zeta schemes), :mod:`~uqval.simref.validation` (the workflow). The paper's own material
(Table II z-score summary, App. B and C) is in :mod:`uqval.papers.simref`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.simref.reference import (
        DEFAULT_N_BINS_SENSITIVITY,
        DEFAULT_N_MC,
        SimulatedReference,
        reference_from_values,
        reference_sensitivity,
        reference_table,
        sensitivity_statistics,
        simulated_error_samples,
        simulated_reference,
        simulated_references,
    )
    from uqval.simref.statistics import (
        DEFAULT_N_BOOT,
        KNOWN_REFERENCES,
        STATISTIC_NAMES,
        SimRefStatistic,
        as_statistic,
        bootstrap_statistic,
    )
    from uqval.simref.validation import (
        DEFAULT_T_NU,
        Validation,
        validate_statistic,
        validation_bootstrap,
    )
    from uqval.simref.zeta import (
        zeta_bs,
        zeta_schemes,
        zeta_sim2,
    )

__all__ = [
    "DEFAULT_N_BINS_SENSITIVITY",
    "DEFAULT_N_BOOT",
    "DEFAULT_N_MC",
    "DEFAULT_T_NU",
    "KNOWN_REFERENCES",
    "STATISTIC_NAMES",
    "SimRefStatistic",
    "SimulatedReference",
    "Validation",
    "as_statistic",
    "bootstrap_statistic",
    "reference_from_values",
    "reference_sensitivity",
    "reference_table",
    "sensitivity_statistics",
    "simulated_error_samples",
    "simulated_reference",
    "simulated_references",
    "validate_statistic",
    "validation_bootstrap",
    "zeta_bs",
    "zeta_schemes",
    "zeta_sim2",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
