"""Uncertainty Characteristics Curves (UCC) of prediction intervals (P004, Navrátil et al.).

Notation (P004 Sect. 2). Observations y_i, predictions ŷ_i and positive band
half-widths below and above the prediction, ẑ_i^l = ŷ_i − ŷ_i^l > 0 and ẑ_i^u = ŷ_i^u − ŷ_i > 0;
errors z_i = y_i − ŷ_i. Scaling the bands by k > 0 gives the interval
[ŷ_i − k ẑ_i^l, ŷ_i + k ẑ_i^u] (P004 Sect. 2.3). On the *active* side of each point,
a_i = ẑ_i^u if z_i ≥ 0 else ẑ_i^l, and with e_i = abs(z_i) the metrics at scale k are

* miss rate (Eq. 1, 1 − PICP):   ρ(k) = (1/N) #{i : k_i > k},
* bandwidth (Eq. 2, ½ MPIW):     β(k) = (k/2N) Σ_i (ẑ_i^u + ẑ_i^l),
* excess (App. 9, Eq. 8):        ξ(k) = (1/N) Σ_{i: k_i ≤ k} (k a_i − e_i),
* deficit (App. 9, Eq. 9 with ∉): δ(k) = (1/N) Σ_{i: k_i > k} (e_i − k a_i),

where k_i = e_i / a_i is the critical scale of point i (Definition 2, Eq. 7): the smallest
scale whose interval contains y_i. Excess and deficit follow the authors' UQ360 code: the
distance to the bound of the active side, max(k a_i − e_i, 0) and max(e_i − k a_i, 0). For
the deficit this is Eq. 9 exactly (the violated bound is the closer one); for the excess it
equals Eq. 8's min over both bounds when the bands are symmetric and can exceed it
otherwise.

Fast UCC (Algorithm 1 in O(N log N) instead of O(N²)). Sort the critical scales once,
k'_1 ≤ ... ≤ k'_N, with a'_j, e'_j the active band and abs(error) in that order. At k = k'_j,
with n_j the number of points whose critical scale is ≤ k'_j (n_j ≥ j; with ties it is the
position of the *last* tied point: Lemma 1, "only the element with the highest index among
ties is considered"),

    ρ = (N − n_j)/N,   ξ = (k A_{n_j} − E_{n_j})/N,   δ = (Ē_{n_j} − k Ā_{n_j})/N,

with the head sums A_n = Σ_{m ≤ n} a'_m, E_n = Σ_{m ≤ n} e'_m and the tail sums
Ā_n = Σ_{m > n} a'_m, Ē_n = Σ_{m > n} e'_m (cumulative sums, the tails by a reverse
cumulative sum to avoid cancellation). The same sums give the metrics at any scale k with
n = #{k_i ≤ k} from a binary search. Tied points yield identical UCC points, which have no
width under either area rule.

AUUCC (Sect. 2.3): the trapezoid rule over the points sorted by k, from the first point (no
extension to the axes; UQ360's ``get_AUUCC``; docs/choices.md, "AUUCC integration rule"), or the
rectangle rule of Prop. 1, Eq. 15: S(N) = Σ_i y(k'_i) [x(k'_i) − x(k'_{i−1})] with x(k'_0) = 0.
Gains (Eq. 6) are taken against a constant band around the same predictions; the linear cost is
Eq. 5; the paired permutation test of AUUCC differences follows Dwass (1957), with the details
the paper leaves open fixed in docs/choices.md, "Permutation test".

Two consequences worth knowing. (1) Without ties the bandwidth–miss-rate rectangle area is
S(N) = (1/N) Σ_{j<N} β(k'_j) ≈ mean(k_i) · mean(w_i), w_i = (ẑ_i^l + ẑ_i^u)/2 (Prop. 1), and
for a constant band mean abs(z_i). The gain over the constant is therefore ≈ Cov(k_i, w_i)/mean
abs(z_i) (for symmetric bands): bands whose errors scale with them (k independent of ẑ, e.g.
calibrated heteroscedastic bands, even the ε-perfect band) gain ≈ 0 in these coordinates;
excess–deficit coordinates do reward them. (2) UQ360 decides inclusion with the bounds
fl(k_i ẑ_i) ≥ abs(z_i) at k = k_i; for a few per cent of the points rounding makes this false
and UQ360 counts the point as missed at its own critical scale, which moves its
bandwidth–miss-rate AUUCC by O(1/N) (7e-4 at N = 1000). Here inclusion is k_i ≤ k (Lemma 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.ucc.curve import (
        Cut,
        OperatingPoint,
        Rule,
        UCCCurve,
        auucc,
        auucc_gain,
        linear_cost,
        min_cost,
        operating_point,
        partial_auucc,
        partial_auucc_gain,
        ucc_curve,
    )
    from uqval.ucc.intervals import (
        AXES,
        Axis,
        Normalize,
        PredictionIntervals,
        UCCMetrics,
        constant_band,
        critical_scales,
        metrics_at_scale,
        scale_for_miss_rate,
        std_unit,
        ucc_metrics,
    )
    from uqval.ucc.permutation import (
        Align,
        PermutationTestResult,
        auucc_permutation_test,
    )

__all__ = [
    "Align",
    "Axis",
    "Cut",
    "Normalize",
    "Rule",
    "AXES",
    "OperatingPoint",
    "PermutationTestResult",
    "PredictionIntervals",
    "UCCCurve",
    "UCCMetrics",
    "auucc",
    "auucc_gain",
    "auucc_permutation_test",
    "constant_band",
    "critical_scales",
    "linear_cost",
    "metrics_at_scale",
    "min_cost",
    "operating_point",
    "partial_auucc",
    "partial_auucc_gain",
    "scale_for_miss_rate",
    "std_unit",
    "ucc_curve",
    "ucc_metrics",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
