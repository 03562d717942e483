"""The standard's rounding functions, floor, ceil, trunc and round, composed exactly of ember's
ops (ember has no rounding op: burn's Round, Floor and Ceil do not fuse, and ember keeps burn's
op set; shared/reference/burn-cubecl-fusion.md). Integer tensors come back as they are, as the
standard says.

Note [Exact rounding by composition]
A float of magnitude at least 2**p (p the significand's fraction bits: 23 for float32, 10 for
float16, 7 for bfloat16) is already an integer, and so are inf and NaN: those are returned as
they are. Below it:
  - trunc casts to int32 and back. ember's float-to-int cast truncates toward zero (docs/API.md,
    Casts), every such value fits int32, and the integer is exact in the float dtype again.
  - floor and ceil take trunc and step by one where it went the wrong way (x < t, x > t).
  - round adds 2**p to |x| and takes it away. The sum lies in [2**p, 2**(p+1)), where the
    dtype's spacing is exactly 1, so IEEE addition rounds |x| to the nearest integer with ties
    to even: the standard's rule. Each op's result is rounded to the dtype on its own (ember
    computes no fast-math, on either backend), so nothing folds the two steps away.
A zero result takes the sign of x (x * 0), as NumPy's and the standard's do: trunc(-0.5),
ceil(-0.5) and round(-0.25) are -0.0.
Each is a handful of elementwise ops that fuse like any others."""

from . import _dtypes
from ._elementwise import (_cast, _require_tensor, abs, add, equal, greater, less, multiply,
                           negative, subtract, where)

_FRACTION_BITS = {"float32": 23, "float16": 10, "bfloat16": 7}


def _float_or_none(x, fn):
    """x's dtype's fraction bits, or None for an int tensor (returned unchanged); TypeError for
    a bool one (the standard's rounding functions take real numbers)."""
    _require_tensor(x, fn)
    if x.dtype.kind == "b":
        raise TypeError(f"ember: {fn}: expected a numeric tensor, got bool")
    if x.dtype.kind == "i":
        return None
    return _FRACTION_BITS[x.dtype.name]


def _signed_zero(t, x):
    """t, with its zeros carrying x's sign."""
    return where(equal(t, 0), multiply(x, 0.0), t)


def _small(x, bits):
    """Where |x| < 2**bits: the values that are not integers already (NaN compares false)."""
    return less(abs(x), float(2**bits))


def _trunc_small(x):
    return _signed_zero(_cast(_cast(x, _dtypes.int32), x.dtype), x)


def trunc(x, /):
    bits = _float_or_none(x, "trunc")
    if bits is None:
        return x
    return where(_small(x, bits), _trunc_small(x), x)


def floor(x, /):
    bits = _float_or_none(x, "floor")
    if bits is None:
        return x
    t = _trunc_small(x)
    return where(_small(x, bits), where(less(x, t), subtract(t, 1.0), t), x)


def ceil(x, /):
    bits = _float_or_none(x, "ceil")
    if bits is None:
        return x
    t = _trunc_small(x)
    return where(_small(x, bits), _signed_zero(where(greater(x, t), add(t, 1.0), t), x), x)


def round(x, /):  # noqa: A001
    bits = _float_or_none(x, "round")
    if bits is None:
        return x
    magnitude = abs(x)
    shift = float(2**bits)
    r = subtract(add(magnitude, shift), shift)
    signed = _signed_zero(where(less(x, 0), negative(r), r), x)
    return where(less(magnitude, shift), signed, x)


__all__ = ["ceil", "floor", "round", "trunc"]
