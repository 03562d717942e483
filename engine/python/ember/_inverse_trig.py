"""The standard's inverse trigonometric functions (atan, atan2, asin, acos), composed of ember's
ops: ember has no op for any of them, and none of its transcendental ops (exp, log, sin, cos,
tanh) inverts to them without an iteration. They are built as a libm builds them: a range
reduction to a small interval, an odd polynomial there, and the reduction undone, all in
float32 adds, multiplies, divides, sqrt, comparisons and masks, so they fuse like any other
elementwise ops and never read a value back. Int and bool tensors compute in float32, float16
and bfloat16 in float32 rounded back to their own dtype once (as _hyperbolic.py's functions).

Note [Inverse trigonometric compositions]
  - The angle of a point (X, Y), X, Y >= 0 (atan2 of magnitudes; atan is that of (1, |x|)):
    with the ratio Y / X below 7/16, in [7/16, 11/16), [11/16, 11/8), [11/8, 4), or from 4 up
    (compared as 16Y < 7X, 16Y < 11X, 8Y < 11X, Y < 4X: products that do not underflow, where
    7/16 * X could), it is atan(c) + atan(t) for the centre c = 0, 1/2, 1, 2 or inf,
    t = (Y - cX) / (X + cY) = Y / X, (2Y - X) / (2X + Y), (Y - X) / (X + Y), (Y - 2X) / (X + 2Y)
    or -X / Y. Each numerator is exact (Sterbenz: in its interval, its two terms are within a
    factor of 2 of each other), each denominator rounds once, and |t| <= 7/16. atan(t) = t +
    t z P(z), z = t^2, P of degree 4 (Horner); atan(c) is a float32 pair hi + lo (pi - atan(c)
    in the second quadrant, where t and the tail change sign), and hi + t is summed with its
    rounding error (Knuth's TwoSum), so the result is one rounding of hi + t + (tail + lo +
    that error).
  - atan2(x1, x2): that angle of (|x2|, |x1|) in the second quadrant where x2's sign bit is
    set (signbit: -0.0 counts), negated where x1's is. Both magnitudes are scaled by 2**-6
    where the larger passes 2**120, so no comparison's product or denominator overflows (exact,
    but for a smaller one below 2**-120, whose ratio to the larger rounds to 0 anyway); two
    infinities become (1, 1) (pi/4), two zeros (1, 0) (0; the quadrant and sign then give +-0
    or +-pi); a NaN in either reaches t (every comparison with it is false: c = inf, t = -X / Y).
  - asin: |x| < 1/2: a + a z Q(z), z = a^2, a = |x|, Q of degree 5. |x| >= 1/2: pi/2 - 2 asin(u),
    u = sqrt((1 - a) / 2) <= 1/2 (1 - a and the halving are exact), with u split as hi + lo:
    hi = (u + 1536) - 1536 keeps u's bits down to 2**-13, at most 12, so hi * hi is exact, and
    lo = ((1 - a) / 2 - hi * hi) / (hi + u) is sqrt's rounding error to first order; then
    (pi/2_hi - 2 hi) is exact and (pi/2_lo - 2 (lo + u^3 Q(u^2))) adds the rest: no rounding of
    u reaches the result, and the subtraction from pi/2 does not magnify the others. x's sign;
    asin(+-0) = +-0; NaN where |x| > 1 (sqrt of a negative) and for NaN.
  - acos: |x| < 1/2: pi/2 - asin(x) = pi/2_hi + (pi/2_lo - (x + x z Q(z))); x >= 1/2: 2 asin(u)
    = 2 (hi + (lo + u^3 Q(u^2))) with u as above; x <= -1/2: pi - 2 asin(u), u = sqrt((1 +
    x) / 2), as pi_hi + (pi_lo - 2 asin(u)). acos(1) = 0, acos(-1) = pi.
The polynomials' coefficients are this module's own: P fits (atan(t) - t) / t^3 on |t| <= 7/16
and Q (asin(u) - u) / u^3 on u <= 1/2, by least squares in float64 on 200 Chebyshev nodes of
z, weighted for the relative error of atan or asin (coefficients() in
tests/python/test_inverse_trig.py redoes the fit and checks these literals); evaluated in
float64, the fits are within 0.03 * 2**-24 (P) and 0.02 * 2**-24 (Q) of atan and asin,
relative. Measured against NumPy in float64 over every float32 value (atan, asin, acos) and
350M pairs (atan2: random bit patterns, magnitudes from subnormals to the largest, ratios at
the switches; the tests check 1M of each), the largest errors in float32 ulp are atan 0.745,
asin 0.682, acos 0.920 and atan2 1.51, with NaN and the signs of zeros as NumPy's everywhere. atan2's worst is where Y / X just passes a
power of 2 and the result does not: the division's rounding is half an ulp of t, a whole one
of the result. float16 comes within half a float16 ulp (every value; atan2 on 20M pairs).
The TwoSum and the split are adds and exact products only, so a GPU compiler's contraction of
a multiply and an add (NVRTC's default; the CPU's kernels never contract: Note [Tile function
targets]) can change only the polynomials' last bits; the bounds above are the CPU's.
Composing asin as atan(x / sqrt((1 - x)(1 + x))) and acos as 2 atan(sqrt((1 - x) / (1 + x))),
the simpler way (with atan above), measured up to 2.3 and 2.05 ulp: the roundings of the sqrt
and of its argument pass to the result, which the half-angle split above keeps out."""

import math

import numpy as np

from ._creation import ones_like
from ._elementwise import (_cast, abs, add, divide, equal, less, logical_and, maximum, multiply,
                           negative, sqrt, subtract, where)
from ._hyperbolic import _in_float32, _pair_in_float32, _with_sign
from ._signs import signbit

# Coefficients, constant term first. Obtained offline with NumPy (float64), as
# tests/python/test_inverse_trig.py's coefficients() does it: z = b^2 (1 - cos((k + 1/2) pi /
# 200)) / 2 for k < 200, t = sqrt(z), w = z t / f(t), c = np.linalg.lstsq(w * z**j (j < n),
# w * (f(t) - t) / (t z)); f, b, n = np.arctan, 7/16, 5 and np.arcsin, 1/2, 6; then rounded to
# float32 (the literals are those float32 values' shortest decimals).
_ATAN = (-0.33333302, 0.19997664, -0.14228484, 0.10484257, -0.058054753)
_ASIN = (0.1666666, 0.07500497, 0.044518523, 0.031793926, 0.01449195, 0.037441026)

# Y / X from which the next centre takes over, 7/16, 11/16, 11/8 and 4, as (m, n): m Y < n X
_BREAKS = ((16.0, 7.0), (16.0, 11.0), (8.0, 11.0), (1.0, 4.0))
_SPLIT = 1536.0  # u + 1536 rounds u to a multiple of 2**-13 (1536's ulp)
_SCALE_PAST = 2.0**120  # above: both atan2 magnitudes are scaled by 2**-6


def _hi_lo(v):
    """v as a float32 pair: hi the nearest float32, lo the nearest float32 to v - hi."""
    hi = float(np.float32(v))
    return hi, float(np.float32(v - hi))


_CENTRES = [0.0, math.atan(0.5), math.pi / 4, math.atan(2.0), math.pi / 2]
_FIRST = [_hi_lo(c) for c in _CENTRES]  # atan(c)
_SECOND = [_hi_lo(math.pi - c) for c in _CENTRES]  # pi - atan(c): the second quadrant
_PI_2 = _hi_lo(math.pi / 2)
_PI = _hi_lo(math.pi)


def _select(masks, values):
    """values[i] where masks[i] is the first mask that holds; values[-1] where none does."""
    out = values[-1]
    for mask, value in zip(reversed(masks), reversed(values[:-1])):
        out = where(mask, value, out)
    return out


def _horner(coefficients, z):
    p = multiply(z, coefficients[-1])
    for c in coefficients[-2:0:-1]:
        p = multiply(add(p, c), z)
    return add(p, coefficients[0])


def _sum_error(a, b, s):
    """a + b - s exactly, s the rounded a + b (Knuth's TwoSum)."""
    bv = subtract(s, a)
    return add(subtract(a, subtract(s, bv)), subtract(b, bv))


def _angle(y, x, second=None):
    """atan(y / x) for float32 y, x >= 0 (not both 0 or both inf), or pi minus it where
    `second` (Note [Inverse trigonometric compositions])."""
    masks = [less(multiply(y, m), multiply(x, n)) for m, n in _BREAKS]
    y2, x2 = multiply(y, 2.0), multiply(x, 2.0)
    num = _select(masks, [y, subtract(y2, x), subtract(y, x), subtract(y, x2), negative(x)])
    den = _select(masks, [x, add(x2, y), add(x, y), add(x, y2), y])
    t = divide(num, den)
    z = multiply(t, t)
    tail = multiply(multiply(t, z), _horner(_ATAN, z))
    hi = _select(masks, [h for h, _ in _FIRST])
    lo = _select(masks, [lo for _, lo in _FIRST])
    if second is not None:
        hi = where(second, _select(masks, [h for h, _ in _SECOND]), hi)
        lo = where(second, _select(masks, [lo for _, lo in _SECOND]), lo)
        t, tail = where(second, negative(t), t), where(second, negative(tail), tail)
    s = add(hi, t)
    return add(s, add(_sum_error(hi, t, s), add(tail, lo)))


def _asin_tail(u):
    """asin(u) - u for |u| <= 1/2: u z Q(z), z = u^2."""
    z = multiply(u, u)
    return multiply(multiply(u, z), _horner(_ASIN, z))


def _half_angle(w):
    """u = sqrt(w) for w = (1 - |x|) / 2 in [0, 1/4] (|x| >= 1/2), as hi + lo (hi of 12 bits),
    and asin(u) - u (Note [Inverse trigonometric compositions])."""
    u = sqrt(w)
    hi = subtract(add(u, _SPLIT), _SPLIT)
    lo = where(equal(w, 0), 0.0, divide(subtract(w, multiply(hi, hi)), add(hi, u)))
    return hi, lo, _asin_tail(u)


def atan(x, /):
    """The inverse tangent in [-pi/2, pi/2], within 1 ulp of float32 (Note [Inverse
    trigonometric compositions]); atan(+-0) = +-0, atan(+-inf) = +-pi/2."""
    x, dtype = _in_float32(x, "atan")
    a = abs(x)
    r = _with_sign(x, _angle(a, ones_like(a)))
    return _cast(where(equal(x, 0), x, r), dtype)


def atan2(x1, x2, /):
    """The angle of the point (x2, x1) in [-pi, pi], within 2 ulp of float32, with the
    standard's special values (signed zeros, infinities, NaN; Note [Inverse trigonometric
    compositions]); either may be a Python scalar, as for the other binary functions."""
    y, x, dtype = _pair_in_float32(x1, x2, "atan2")
    ay, ax = abs(y), abs(x)
    big = less(_SCALE_PAST, maximum(ay, ax))
    ay, ax = where(big, multiply(ay, 2.0**-6), ay), where(big, multiply(ax, 2.0**-6), ax)
    infinite = logical_and(equal(ay, math.inf), equal(ax, math.inf))
    ay, ax = where(infinite, 1.0, ay), where(infinite, 1.0, ax)
    ax = where(logical_and(equal(ay, 0), equal(ax, 0)), 1.0, ax)
    r = _angle(ay, ax, signbit(x))
    return _cast(where(signbit(y), negative(r), r), dtype)


def asin(x, /):
    """The inverse sine in [-pi/2, pi/2], within 1 ulp of float32; NaN outside [-1, 1]
    (Note [Inverse trigonometric compositions])."""
    x, dtype = _in_float32(x, "asin")
    a = abs(x)
    hi, lo, tail = _half_angle(multiply(subtract(1.0, a), 0.5))
    far = add(subtract(_PI_2[0], multiply(hi, 2.0)),
              subtract(_PI_2[1], multiply(add(lo, tail), 2.0)))
    r = where(less(a, 0.5), add(a, _asin_tail(a)), far)
    return _cast(where(equal(x, 0), x, _with_sign(x, r)), dtype)


def acos(x, /):
    """The inverse cosine in [0, pi], within 1 ulp of float32; NaN outside [-1, 1] (Note
    [Inverse trigonometric compositions])."""
    x, dtype = _in_float32(x, "acos")
    a = abs(x)
    near = add(_PI_2[0], subtract(_PI_2[1], add(x, _asin_tail(x))))
    hi, lo, tail = _half_angle(multiply(subtract(1.0, a), 0.5))
    twice = multiply(add(hi, add(lo, tail)), 2.0)  # 2 asin(u)
    far = where(less(x, 0), add(_PI[0], subtract(_PI[1], twice)), twice)
    return _cast(where(less(a, 0.5), near, far), dtype)


__all__ = ["acos", "asin", "atan", "atan2"]
