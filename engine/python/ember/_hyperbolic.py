"""The standard's expm1, logaddexp, hypot and hyperbolic functions (sinh, cosh, asinh, acosh, atanh),
composed of ember's ops (ember has Exp, Log, Log1p, Sqrt and Tanh, and no op for these). Each
is a handful of elementwise ops that fuse like any others. Int and bool tensors compute in the
default float dtype (float32), as exp does; float16 and bfloat16 compute in float32 and round
back to their own dtype once, so their results are within half an ulp or so of their dtype.

Note [Accurate compositions]
The textbook formulas cancel: exp(x) - 1 near 0, (e^x - e^-x) / 2 near 0, log(x + sqrt(x^2+1))
for negative x, log(x + sqrt(x^2-1)) near 1, log((1+x)/(1-x)) / 2 near -1. Each function here
is written so that its sums add terms of one sign and its subtractions are exact (Sterbenz) or
cannot cancel, so the errors of exp, log and log1p (within an ulp in float32: 0.95, 0.55 and
0.58 measured on the CPU, where the tests run) are not magnified. Below, a is
|x|, ulp is float32's, and "tiny" is a < 2**-12, where sinh, asinh and atanh round to x itself
(the next term, x^3/6 or x^3/3, is below half an ulp of x): those return x, which keeps the sign
of zero and the subnormals exact.
  - expm1: Kahan's. u = exp(x); where u == 1 the answer is x; where u - 1 == -1 (u below 2**-25,
    and -inf) it is -1; where u is inf it is inf; else (u - 1) * (x / log(u)). u - 1 is exact
    near 1 (Sterbenz), and the rounding error of u divides out: (u - 1) / log(u) is
    (e^y - 1) / y at y = log(u), a function that changes slowly with y, so the error of u costs
    half of it. x / log(u) is taken first so that u near the top of the range does not overflow
    the product. NaN passes through.
  - sinh: E = expm1(a), then 0.5 * (E + E / (E + 1)) with x's sign: a sum of positive terms
    (e^a - e^-a = E + E / (E + 1)). Past a = 88, where expm1 nears overflow but sinh does not
    until 89.4, it is (0.5 * w) * w with w = exp(a / 2) (a / 2 is exact): sinh is e^a / 2 there
    to float32 precision, and the square doubles w's error (so up to about 2.5 ulp).
  - cosh: 0.5 * (exp(a) + exp(-a)), a sum of positive terms; past a = 88 the same (0.5 * w) * w
    as sinh, so it overflows where NumPy's does (a above 89.4), not where exp does.
  - logaddexp: m + c, m = maximum(x1, x2) (NaN from either side), c = log1p(exp(-d)) in
    [0, ln 2], d = |x1 - x2| (0 where x1 == x2, so equal infinities give m + ln 2 = m, not
    NaN). The rounding of x1 - x2 would cost exp(-d) up to d / 2 ulp (exp's condition number
    is d: 5 ulp at d = 10, seen where m is small): Knuth's TwoSum gives that rounding error
    exactly, and exp(-d) takes it as a first-order factor (1 - err, or 1 + err where x1 < x2,
    since then d = -(x1 - x2)). Adding c to m is one
    rounding. The exception is where the result is near 0 because e^x1 + e^x2 is near 1 (m in
    (-ln 2, 0), c near -m): there m + c cancels, and the error is a few ulp of |m| + c, not of
    the result; NumPy's float32 logaddexp has the same formula and the same limit.
  - hypot: m * sqrt(1 + (n / m)^2) with m = max(|x1|, |x2|), n = min(|x1|, |x2|): no square
    of the inputs, so it neither overflows nor underflows where the result does not, and the
    terms under the root are positive. 0 where both are 0; inf where either is inf, even beside
    NaN (IEEE's hypot and NumPy's); NaN otherwise where either is NaN.
  - asinh: log1p(a + a^2 / (1 + sqrt(1 + a^2))) with x's sign: that is log(a + sqrt(1 + a^2))
    with sqrt(1 + a^2) - 1 written as a^2 / (1 + sqrt(1 + a^2)), positive terms only, and
    taking |x| avoids x + sqrt(x^2 + 1), which cancels for negative x. For a >= 2**12 (before
    a^2 overflows at 1.8e19) it is log(a) + ln 2: asinh(a) - ln(2a) is 1 / (4 a^2), below
    2**-26 there.
  - acosh: with t = x - 1 (exact for every float x >= 1), log1p(t + sqrt(t * (t + 2))), which is
    log(x + sqrt(x^2 - 1)) without forming x^2 - 1 (which cancels near x = 1); for x >= 2**12,
    log(x) + ln 2 as asinh. NaN below 1 and for NaN.
  - atanh: 0.5 * log1p(2a / (1 - a)) with x's sign: taking |x| keeps the log1p argument
    positive (log1p(-1 + small) would cancel for x near -1), and 1 - a is exact for a >= 1/2.
    atanh(±1) = ±inf (2 / 0), NaN outside [-1, 1] and for NaN.
Measured against NumPy in float64 (tests/python/test_hyperbolic.py; 4M random float32 bit
patterns and 3.4M values dense near 0, 1, 2**12 and +-90), the largest errors in float32 ulp
are: expm1 2.36, sinh 2.59, cosh 2.31, asinh 1.51, acosh 2.39, atanh 1.87, logaddexp 1.85
where m >= 0 and 2.04 ulp of |m| + c anywhere; float16 comes within half a float16 ulp (every
value), its few float32 ulp far below a float16 one."""

import math

from . import _dtypes
from ._array import Tensor
from ._elementwise import (_cast, _operands, _require_tensor, _scalar_tensor, abs, add, divide,
                           equal, exp, greater, greater_equal, isinf, less, log, log1p, logical_or,
                           maximum, minimum, multiply, negative, sqrt, subtract, where)

_LN2 = math.log(2.0)
_TINY = 2.0**-12  # below: sinh, asinh and atanh round to x (Note [Accurate compositions])
_HUGE = 2.0**12   # at and above: asinh and acosh are log(a) + ln 2
_SINH_BIG = 88.0  # above: sinh and cosh are e^a / 2, as (0.5 * exp(a / 2)) * exp(a / 2)


def _in_float32(x, fn):
    """x as float32 (ints and bools in the default float dtype, float16 and bfloat16 widened),
    and the dtype the result goes back to."""
    _require_tensor(x, fn)
    if x.dtype.kind != "f":
        x = _cast(x, _dtypes.default_float)
    return _cast(x, _dtypes.float32), x.dtype


def _pair_in_float32(x1, x2, fn):
    """Both operands (either may be a Python scalar) promoted as the binary functions promote
    them, as float32 tensors, and the dtype the result goes back to."""
    a, b = _operands(x1, x2, fn)
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, b)
    b = b if isinstance(b, Tensor) else _scalar_tensor(b, a)
    a, dtype = _in_float32(a, fn)
    b, _ = _in_float32(b, fn)
    return a, b, dtype


def _with_sign(x, r):
    """r (>= 0 or NaN) with x's sign."""
    return where(less(x, 0), negative(r), r)


def _half_exp_squared(a):
    """e^a / 2 for large a, past where exp(a) overflows: (0.5 * w) * w, w = exp(a / 2)."""
    w = exp(multiply(a, 0.5))
    return multiply(multiply(w, 0.5), w)


def _expm1(x):
    u = exp(x)
    r = multiply(subtract(u, 1.0), divide(x, log(u)))
    r = where(equal(subtract(u, 1.0), -1.0), -1.0, r)
    r = where(equal(u, math.inf), math.inf, r)
    return where(equal(u, 1.0), x, r)


def expm1(x, /):
    """exp(x) - 1, accurate near 0: Kahan's method (Note [Accurate compositions])."""
    x, dtype = _in_float32(x, "expm1")
    return _cast(_expm1(x), dtype)


def sinh(x, /):
    """(e^x - e^-x) / 2 as 0.5 * (E + E / (E + 1)), E = expm1(|x|) (Note [Accurate
    compositions])."""
    x, dtype = _in_float32(x, "sinh")
    a = abs(x)
    e = _expm1(a)
    r = multiply(add(e, divide(e, add(e, 1.0))), 0.5)
    r = where(greater(a, _SINH_BIG), _half_exp_squared(a), r)
    r = where(less(a, _TINY), x, _with_sign(x, r))
    return _cast(r, dtype)


def cosh(x, /):
    """0.5 * (exp(|x|) + exp(-|x|)) (Note [Accurate compositions])."""
    x, dtype = _in_float32(x, "cosh")
    a = abs(x)
    r = multiply(add(exp(a), exp(negative(a))), 0.5)
    r = where(greater(a, _SINH_BIG), _half_exp_squared(a), r)
    return _cast(r, dtype)


def _difference_error(a, b, s):
    """a - b - s exactly, s the rounded a - b (Knuth's TwoSum of a and -b); 0 where s is not
    finite."""
    bv = subtract(s, a)
    err = add(subtract(a, subtract(s, bv)), subtract(negative(b), bv))
    return where(equal(err, err), err, 0.0)


def logaddexp(x1, x2, /):
    """log(exp(x1) + exp(x2)) as max + log1p(exp(-|x1 - x2|)) (Note [Accurate compositions]);
    either may be a Python scalar, as for the other binary functions."""
    a, b, dtype = _pair_in_float32(x1, x2, "logaddexp")
    m = maximum(a, b)
    s = subtract(a, b)
    err = _difference_error(a, b, s)
    d = where(equal(a, b), 0.0, abs(s))  # equal infinities: m + ln 2 = m
    e = exp(negative(d))
    e = add(e, multiply(e, where(less(s, 0), err, negative(err))))  # exp(-|a - b|), to first order
    return _cast(add(m, log1p(e)), dtype)


def asinh(x, /):
    """log(x + sqrt(x^2 + 1)) as log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with x's sign, and
    log(|x|) + ln 2 for |x| >= 2**12 (Note [Accurate compositions])."""
    x, dtype = _in_float32(x, "asinh")
    a = abs(x)
    a2 = multiply(a, a)
    r = log1p(add(a, divide(a2, add(sqrt(add(a2, 1.0)), 1.0))))
    r = where(greater_equal(a, _HUGE), add(log(a), _LN2), r)
    r = where(less(a, _TINY), x, _with_sign(x, r))
    return _cast(r, dtype)


def acosh(x, /):
    """log(x + sqrt(x^2 - 1)) as log1p(t + sqrt(t * (t + 2))), t = x - 1, and log(x) + ln 2 for
    x >= 2**12; NaN below 1 (Note [Accurate compositions])."""
    x, dtype = _in_float32(x, "acosh")
    t = subtract(x, 1.0)
    r = log1p(add(t, sqrt(multiply(t, add(t, 2.0)))))
    r = where(greater_equal(x, _HUGE), add(log(x), _LN2), r)
    r = where(less(x, 1.0), math.nan, r)
    return _cast(r, dtype)


def atanh(x, /):
    """log((1 + x) / (1 - x)) / 2 as 0.5 * log1p(2|x| / (1 - |x|)) with x's sign; ±inf at ±1,
    NaN outside [-1, 1] (Note [Accurate compositions])."""
    x, dtype = _in_float32(x, "atanh")
    a = abs(x)
    r = multiply(log1p(divide(multiply(a, 2.0), subtract(1.0, a))), 0.5)
    r = where(greater(a, 1.0), math.nan, r)
    r = where(less(a, _TINY), x, _with_sign(x, r))
    return _cast(r, dtype)


__all__ = ["acosh", "asinh", "atanh", "cosh", "expm1", "logaddexp", "sinh"]


def hypot(x1, x2, /):
    """sqrt(x1^2 + x2^2) as m * sqrt(1 + (n / m)^2) (Note [Accurate compositions]); either may
    be a Python scalar, as for the other binary functions."""
    a, b, dtype = _pair_in_float32(x1, x2, "hypot")
    a, b = abs(a), abs(b)
    m = maximum(a, b)
    n = minimum(a, b)
    q = divide(n, m)
    r = multiply(m, sqrt(add(multiply(q, q), 1.0)))
    r = where(equal(m, 0.0), 0.0, r)
    r = where(logical_or(isinf(a), isinf(b)), math.inf, r)
    return _cast(r, dtype)
