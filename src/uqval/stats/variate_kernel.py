"""Compiled samplers of the generative distributions D of the simulations: N(0, 1) and t_s(nu).

The Monte Carlo references draw ~10^8-10^9 values of D per dataset (P002 Sect. III.C:
10^4 sets of M values). NumPy's ``standard_normal`` and ``standard_t`` cost 11 and 33 ns
a value on the 2-core machine of the pipeline (PCG64 bits, one call per value through
function pointers, Marsaglia-Tsang gamma for the t). Here both come from the polar methods,
exact for every nu, in two passes: a compiled loop draws uniform pairs (a, b) on [-1, 1)^2
from an SFC64 stream and keeps those inside the unit disc (w = a^2 + b^2 in (0, 1),
probability pi/4), then NumPy's vectorised log/expm1/sqrt transform them (4-5 and 10-11 ns
a value, ``benchmarks/variates.md``):

* **Normal** (Marsaglia's polar method): f = sqrt(-2 ln(w) / w); a f and b f are two
  independent N(0, 1) values.
* **Unit-variance Student t** (Bailey 1994, "Polar generation of random variates with the
  t-distribution", Math. Comp. 62, 779): T = a sqrt(nu (w^(-2/nu) - 1) / w) is t(nu) for any
  nu > 0; times sqrt((nu - 2)/nu) (P001 Eq. 20) it is t_s(nu), so
  t_s = a sqrt((nu - 2) expm1(-(2/nu) ln w) / w) (expm1 keeps large nu accurate). One value
  per accepted pair (a and b share w, so their two t values are dependent).

Streams: a draw of shape S from a NumPy generator ``rng`` takes four 63-bit integers of
``rng`` (``rng.integers(0, 2**63, 4)``), hashes them with ``SeedSequence`` into the SFC64
state, and fills S in C order. Same ``rng`` state, same values; ``rng`` advances by those four
integers only. Uniform u = (x >> 11) 2^-52 - 1 from each 64-bit output x (2^53 equally spaced
values).

>>> import numpy as np
>>> x = unit_t(np.random.default_rng(0), 6.0, 200_000)
>>> round(float(x.var()), 2), x.shape
(1.0, (200000,))
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from uqval.stats.resample_kernel import _sfc64_next, sfc64_state

__all__ = ["polar_pairs", "stream_state", "unit_normal", "unit_t"]

Shape = int | tuple[int, ...]

_U = np.uint64
_CHUNK = 1 << 14  # values transformed at a time: the arrays of a piece stay in the L2 cache


@numba.njit(nogil=True, cache=True)
def _polar_pairs(state, a_out, b_out, w_out):  # pragma: no cover - compiled
    """Fill a_out, w_out (and b_out if it has their size) with accepted pairs, continuing
    the SFC64 stream in ``state`` (updated in place).

    Branch-free: every candidate is written at the next free slot, which advances only when
    it is accepted (a rejected candidate is overwritten; the acceptance is not predictable,
    a branch on it cost half the time). The 53-bit integers convert to doubles as int64.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    keep_b = b_out.size == a_out.size
    step = 2.0**-52
    k = 0
    n = a_out.size
    while k < n:
        x, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
        y, s0, s1, s2, s3 = _sfc64_next(s0, s1, s2, s3)
        a = np.int64(x >> _U(11)) * step - 1.0
        b = np.int64(y >> _U(11)) * step - 1.0
        w = a * a + b * b
        a_out[k] = a
        if keep_b:
            b_out[k] = b
        w_out[k] = w
        k += (w < 1.0) & (w > 0.0)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3


def stream_state(rng: np.random.Generator) -> NDArray[np.uint64]:
    """The SFC64 state of one draw: four integers of ``rng`` hashed by ``SeedSequence``."""
    entropy = rng.integers(0, 2**63, size=4, dtype=np.int64)
    return sfc64_state(np.random.SeedSequence([int(v) for v in entropy]))


def polar_pairs(
    state: NDArray[np.uint64], n: int, with_b: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The next ``n`` accepted pairs (a, b, w = a^2 + b^2) of the stream in ``state``.

    ``b`` is empty when ``with_b`` is False (the t sampler uses a and w only).
    """
    a, w = np.empty(n), np.empty(n)
    b = np.empty(n if with_b else 0)
    if n:
        _polar_pairs(state, a, b, w)
    return a, b, w


def _count(size: Shape) -> tuple[int, tuple[int, ...]]:
    shape = (size,) if isinstance(size, int | np.integer) else tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed, got {shape}")
    return int(np.prod(shape, dtype=np.int64)), shape


def unit_normal(rng: np.random.Generator, size: Shape) -> NDArray[np.float64]:
    """N(0, 1) values of shape ``size`` (Marsaglia's polar method; module docstring).

    >>> import numpy as np
    >>> x = unit_normal(np.random.default_rng(0), (400, 500))
    >>> x.shape, round(float(x.mean()), 1), round(float(x.std()), 2)
    ((400, 500), 0.0, 1.0)
    """
    n, shape = _count(size)
    a, b, w = polar_pairs(stream_state(rng), (n + 1) // 2)
    out = np.empty(2 * a.size)
    f = np.empty(min(a.size, _CHUNK))
    for lo in range(0, a.size, _CHUNK):  # pieces that stay in cache through the passes
        hi = min(lo + _CHUNK, a.size)
        g = f[: hi - lo]
        np.log(w[lo:hi], out=g)
        g *= -2.0
        g /= w[lo:hi]
        np.sqrt(g, out=g)
        np.multiply(a[lo:hi], g, out=out[2 * lo : 2 * hi : 2])
        np.multiply(b[lo:hi], g, out=out[2 * lo + 1 : 2 * hi : 2])
    return out[:n].reshape(shape)


def unit_t(rng: np.random.Generator, nu: float, size: Shape) -> NDArray[np.float64]:
    """t_s(nu) = t(nu) sqrt((nu - 2)/nu) values of shape ``size`` (Bailey's polar method;
    module docstring). Needs 2 < nu < inf (the caller handles nu = inf as the normal).

    >>> import numpy as np
    >>> x = unit_t(np.random.default_rng(1), 4.0, 10)
    >>> x.shape, bool(np.isfinite(x).all())
    ((10,), True)
    """
    nu = float(nu)
    if not 2.0 < nu < np.inf:
        raise ValueError(f"unit-variance Student t needs 2 < nu < inf, got nu={nu}")
    n, shape = _count(size)
    a, _, w = polar_pairs(stream_state(rng), n, with_b=False)
    out = np.empty(n)
    for lo in range(0, n, _CHUNK):  # pieces that stay in cache through the passes
        hi = min(lo + _CHUNK, n)
        f = out[lo:hi]
        np.log(w[lo:hi], out=f)
        f *= -2.0 / nu
        np.expm1(f, out=f)
        f *= nu - 2.0
        f /= w[lo:hi]
        np.sqrt(f, out=f)
        f *= a[lo:hi]
    return out.reshape(shape)
