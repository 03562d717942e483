"""The standard's elementwise functions, with broadcasting, type promotion and Python scalars.

Each maps onto ember's C++ ops (docs/API.md has the table); a few that ember has no op for are
built from ops it has (not_equal, maximum, sign, isnan, ...), as noted at each.
"""

import builtins
import math

import numpy as np

from . import _dtypes
from . import _ember
from ._array import Tensor

_SCALARS = (builtins.bool, int, float)


def _require_tensor(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"ember: {fn}: expected an ember.Tensor, not {type(x).__name__}")


def _check_scalar(s, fn):
    if not isinstance(s, _SCALARS):
        raise TypeError(f"ember: {fn}: expected an ember.Tensor or a Python scalar, not "
                        f"{type(s).__name__}")


def _cast(x, dtype):
    return x if x.dtype == dtype else Tensor(_ember.cast(x._t, dtype.code))


def _scalar_tensor(s, like):
    """A Python scalar as a 0-d tensor of `like`'s dtype and device (it broadcasts)."""
    if isinstance(s, int) and like.dtype.kind == "i":
        return _exact_int(s, like)
    return Tensor(_ember.full([], float(s), like.dtype.code, like.device))


def _exact_int(s, like):
    """The Python int `s` as a 0-d tensor of `like`'s int dtype, every bit kept (a scalar
    travels to ember's ops as a double, exact only up to 2**53)."""
    data = np.array(s, _dtypes.to_numpy(like.dtype))
    return Tensor(_ember.from_buffer(data, [], like.dtype.code, like.device))


_EXACT_IN_DOUBLE = 2**53


def _is_big_int(s):
    """A Python int that a double cannot hold exactly."""
    return (isinstance(s, int) and not isinstance(s, builtins.bool)
            and builtins.abs(s) > _EXACT_IN_DOUBLE)


def _operands(x1, x2, fn):
    """Both operands as tensors of one dtype, or a tensor and a Python scalar, as the standard
    says for Python scalars: an int scalar with an int tensor keeps the tensor's dtype and must
    fit it (OverflowError otherwise, as NumPy 2 raises); a float scalar with an int or bool
    tensor computes in the default float dtype (float32), whatever its value. An int past 2**53
    with an int64 tensor comes back as a 0-d int64 tensor (exact; a scalar would be a double)."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor):
        if x1.device != x2.device:
            raise ValueError(f"ember: {fn}: tensors on {x1.device} and {x2.device}; expected one "
                             "device (use to_device)")
        dtype = _dtypes.promote(x1.dtype, x2.dtype)
        return _cast(x1, dtype), _cast(x2, dtype)
    tensor, scalar = (x1, x2) if isinstance(x1, Tensor) else (x2, x1)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"ember: {fn}: expected at least one ember.Tensor")
    _check_scalar(scalar, fn)
    if isinstance(scalar, float) and tensor.dtype.kind != "f":
        tensor = _cast(tensor, _dtypes.default_float)
    elif (isinstance(scalar, int) and not isinstance(scalar, builtins.bool)
          and tensor.dtype.kind == "i"):
        info = np.iinfo(_dtypes.to_numpy(tensor.dtype))
        if not info.min <= scalar <= info.max:
            raise OverflowError(f"ember: {fn}: the Python int {scalar} does not fit the "
                                f"{tensor.dtype.name} tensor's dtype [{info.min}, {info.max}]; "
                                "cast the tensor first (astype) or pass a float")
        if _is_big_int(scalar):
            scalar = _exact_int(scalar, tensor)
    return (tensor, scalar) if isinstance(x1, Tensor) else (scalar, tensor)


def _binary(name, x1, x2, fn, reflected=None):
    """ember op `name` on two operands; `reflected` is the op for scalar op tensor (None: the
    scalar becomes a 0-d tensor)."""
    a, b = _operands(x1, x2, fn)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return Tensor(_ember.binary(name, a._t, b._t))
    if isinstance(a, Tensor):
        return Tensor(_ember.scalar(name, a._t, float(b)))
    if reflected is not None:
        return Tensor(_ember.scalar(reflected, b._t, float(a)))
    return Tensor(_ember.binary(name, _scalar_tensor(a, b)._t, b._t))


def _unary(name, x, fn):
    _require_tensor(x, fn)
    return Tensor(_ember.unary(name, x._t))


def _float_unary(name, x, fn):
    """A math function of floats: ints are computed in the default float dtype (NumPy does the
    same in float64)."""
    _require_tensor(x, fn)
    if x.dtype.kind != "f":
        x = _cast(x, _dtypes.default_float)
    return Tensor(_ember.unary(name, x._t))


# --- Arithmetic -------------------------------------------------------------------------
def add(x1, x2):
    return _binary("Add", x1, x2, "add", reflected="Add")


def subtract(x1, x2):
    return _binary("Sub", x1, x2, "subtract", reflected="RSub")


def multiply(x1, x2):
    return _binary("Mul", x1, x2, "multiply", reflected="Mul")


def divide(x1, x2):
    """True division: ints divide in the default float dtype, as the standard asks."""
    a, b = _operands(x1, x2, "divide")
    if isinstance(a, Tensor) and a.dtype.kind != "f":
        a = _cast(a, _dtypes.default_float)
    if isinstance(b, Tensor) and b.dtype.kind != "f":
        b = _cast(b, _dtypes.default_float)
    return _binary("Div", a, b, "divide", reflected="RDiv")


def remainder(x1, x2):
    """Python's %: the sign of the divisor (ember's Rem). A finite x over an infinite divisor is
    NumPy's: x where x is zero or has the divisor's sign (a zero takes the divisor's sign), else
    the divisor (ember's Rem, x - y * floor(x / y), gives NaN there, as burn's does)."""
    a, b = _operands(x1, x2, "remainder")
    r = _binary("Rem", a, b, "remainder")
    if r.dtype.kind != "f":
        return r
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, r)
    b = b if isinstance(b, Tensor) else _scalar_tensor(b, r)
    negative_b = less(b, 0)
    zero = where(negative_b, -0.0, 0.0)
    keep = logical_or(equal(a, 0), equal(less(a, 0), negative_b))
    fixed = where(equal(a, 0), zero, where(keep, a, b))
    return where(logical_and(isinf(b), isfinite(a)), fixed, r)


def floor_divide(x1, x2):
    """(x1 - remainder(x1, x2)) / x2: exact for ints. For floats that quotient is a whole
    number but for the division's rounding, so it is rounded to the nearest one (through int64,
    where |q| < 2**62; past that every float is whole). The special values are NumPy's: x // 0 is
    x / 0 (-inf, nan or inf), a finite x // ±inf is 0 or -1, inf or NaN operands give NaN, and a
    zero quotient has the sign of x / y."""
    a, b = _operands(x1, x2, "floor_divide")
    q = _binary("Div", subtract(a, remainder(a, b)), b, "floor_divide", reflected="RDiv")
    if q.dtype.kind != "f":
        return q
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, q)
    b = b if isinstance(b, Tensor) else _scalar_tensor(b, q)
    rounded = _cast(_cast(add(q, where(less(q, 0), -0.5, 0.5)), _dtypes.int64), q.dtype)
    out = where(less(abs(q), 2.0**62), rounded, q)  # NaN and huge quotients stay as they are
    ratio = divide(a, b)
    out = where(equal(out, 0), multiply(ratio, 0.0), out)  # 0 with the sign of x / y
    opposite = less(multiply(a, b), 0)  # NaN for a zero x: then the signed zero x / y
    out = where(logical_and(isinf(b), isfinite(a)), where(opposite, -1.0, ratio), out)
    return where(equal(b, 0), ratio, out)


def pow(x1, x2):  # noqa: A001 - the standard's name
    """Float tensors (ember's Powf); ints compute in the default float dtype."""
    a, b = _operands(x1, x2, "pow")
    if isinstance(a, Tensor) and a.dtype.kind != "f":
        a = _cast(a, _dtypes.default_float)
    if isinstance(b, Tensor) and b.dtype.kind != "f":
        b = _cast(b, a.dtype if isinstance(a, Tensor) else _dtypes.default_float)
    return _binary("Powf", a, b, "pow")


def negative(x):
    return _unary("Neg", x, "negative")


def positive(x):
    _require_tensor(x, "positive")
    return x


def abs(x):  # noqa: A001
    return _unary("Abs", x, "abs")


def square(x):
    _require_tensor(x, "square")
    return multiply(x, x)


def sign(x):
    """-1, 0 or 1 by comparison (ember has no sign op); NaN gives NaN, as the standard says."""
    _require_tensor(x, "sign")
    zero = _zeros_like(x)
    out = where(greater(x, 0), _ones_like(x), where(less(x, 0), negative(_ones_like(x)), zero))
    return where(isnan(x), x, out) if x.dtype.kind == "f" else out


def clip(x, /, min=None, max=None):  # noqa: A002
    _require_tensor(x, "clip")
    if x.dtype.kind == "i":
        # An int bound past 2**53 would round as the double Clamp takes: a 0-d tensor instead.
        # (A bound outside the dtype's range stays a number: it clips all or nothing.)
        info = np.iinfo(_dtypes.to_numpy(x.dtype))
        exact = [_is_big_int(b) and info.min <= b <= info.max for b in (min, max)]
        min = _exact_int(min, x) if exact[0] else min  # noqa: A001
        max = _exact_int(max, x) if exact[1] else max  # noqa: A001
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = x if min is None else where(less(x, min), min, x)
        return out if max is None else where(greater(out, max), max, out)
    lo = -math.inf if min is None else float(min)
    hi = math.inf if max is None else float(max)
    if x.dtype.kind != "f":
        # Within ember's int scalar range (±9e18: 2**63 is past int64); Clamp itself holds an
        # int32 tensor's bounds to int32.
        lo = builtins.min(builtins.max(lo, -9e18), 9e18)
        hi = builtins.max(builtins.min(hi, 9e18), -9e18)
    return Tensor(_ember.clamp(x._t, lo, hi))


def _nan_first(a, b, out):
    """`out`, but NaN where `a` is NaN (a comparison with NaN is false, so `out` already has
    the NaN of `b`): NumPy's maximum and minimum propagate NaN from either side."""
    if out.dtype.kind != "f":
        return out
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, out)
    return where(isnan(a), a, out)


def maximum(x1, x2):
    """The larger of each pair; NaN where either is NaN (NumPy's maximum)."""
    a, b = _operands(x1, x2, "maximum")
    return _nan_first(a, b, where(greater_equal(a, b), a, b))


def minimum(x1, x2):
    """The smaller of each pair; NaN where either is NaN (NumPy's minimum)."""
    a, b = _operands(x1, x2, "minimum")
    return _nan_first(a, b, where(less_equal(a, b), a, b))


# --- Math functions (float) -------------------------------------------------------------
def exp(x):
    return _float_unary("Exp", x, "exp")


def log(x):
    return _float_unary("Log", x, "log")


def log1p(x):
    return _float_unary("Log1p", x, "log1p")


def sqrt(x):
    return _float_unary("Sqrt", x, "sqrt")


def sin(x):
    return _float_unary("Sin", x, "sin")


def cos(x):
    return _float_unary("Cos", x, "cos")


def tan(x):
    return divide(sin(x), cos(x))


def tanh(x):
    return _float_unary("Tanh", x, "tanh")


def erf(x):
    """Not in the standard (ember's Erf; gelu needs it)."""
    return _float_unary("Erf", x, "erf")


def reciprocal(x):
    """Not in the standard (ember's Recip)."""
    return _float_unary("Recip", x, "reciprocal")


# --- Comparisons and logic --------------------------------------------------------------
# For each comparison `t OP s` of an int tensor with a Python int s beyond its dtype: the
# answer when s is above the dtype's range, and when it is below.
_BEYOND = {"Equal": (False, False), "Lower": (True, False), "LowerEqual": (True, False),
           "Greater": (False, True), "GreaterEqual": (False, True)}


def _compare_beyond(name, flipped, x1, x2):
    """The comparison of an int tensor with a Python int outside its dtype, as NumPy 2 gives it
    (exactly: every element is below, or above, the int), or None for any other operands."""
    tensor, scalar = (x1, x2) if isinstance(x1, Tensor) else (x2, x1)
    if (not isinstance(tensor, Tensor) or isinstance(scalar, (Tensor, builtins.bool))
            or not isinstance(scalar, int) or tensor.dtype.kind != "i"):
        return None
    info = np.iinfo(_dtypes.to_numpy(tensor.dtype))
    if info.min <= scalar <= info.max:
        return None
    op = name if isinstance(x1, Tensor) else flipped  # as `tensor OP scalar`
    value = _BEYOND[op][0 if scalar > info.max else 1]
    return Tensor(_ember.full(list(tensor.shape), float(value), _dtypes.bool.code,
                              tensor.device))


def _compare(name, flipped, x1, x2, fn):
    beyond = _compare_beyond(name, flipped, x1, x2)
    if beyond is not None:
        return beyond
    a, b = _operands(x1, x2, fn)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return Tensor(_ember.binary(name, a._t, b._t))
    if isinstance(a, Tensor):
        return Tensor(_ember.scalar(name, a._t, float(b)))
    return Tensor(_ember.scalar(flipped, b._t, float(a)))


def equal(x1, x2):
    return _compare("Equal", "Equal", x1, x2, "equal")


def not_equal(x1, x2):
    return logical_not(equal(x1, x2))


def less(x1, x2):
    return _compare("Lower", "Greater", x1, x2, "less")


def less_equal(x1, x2):
    return _compare("LowerEqual", "GreaterEqual", x1, x2, "less_equal")


def greater(x1, x2):
    return _compare("Greater", "Lower", x1, x2, "greater")


def greater_equal(x1, x2):
    return _compare("GreaterEqual", "LowerEqual", x1, x2, "greater_equal")


def _require_bool(x, fn):
    _require_tensor(x, fn)
    if x.dtype != _dtypes.bool:
        raise TypeError(f"ember: {fn}: expected a bool tensor, not {x.dtype.name}")


def logical_not(x):
    _require_bool(x, "logical_not")
    return Tensor(_ember.scalar("Equal", x._t, 0.0))


def _bool_operands(x1, x2, fn):
    """Two bool tensors, or a bool tensor and a Python bool (made a 0-d bool tensor)."""
    if isinstance(x1, builtins.bool) and isinstance(x2, Tensor):
        x1 = Tensor(_ember.full([], float(x1), _dtypes.bool.code, x2.device))
    if isinstance(x2, builtins.bool) and isinstance(x1, Tensor):
        x2 = Tensor(_ember.full([], float(x2), _dtypes.bool.code, x1.device))
    _require_bool(x1, fn)
    _require_bool(x2, fn)
    return x1, x2


def logical_and(x1, x2):
    """Bool tensors (either may be a Python bool); `&`."""
    a, b = _bool_operands(x1, x2, "logical_and")
    return _cast(multiply(_cast(a, _dtypes.int32), _cast(b, _dtypes.int32)), _dtypes.bool)


def logical_or(x1, x2):
    """Bool tensors (either may be a Python bool); `|`."""
    a, b = _bool_operands(x1, x2, "logical_or")
    return _cast(add(_cast(a, _dtypes.int32), _cast(b, _dtypes.int32)), _dtypes.bool)


def logical_xor(x1, x2):
    """Bool tensors (either may be a Python bool); `^`: true where exactly one is."""
    a, b = _bool_operands(x1, x2, "logical_xor")
    return logical_not(equal(a, b))


def isnan(x):
    _require_tensor(x, "isnan")
    if x.dtype.kind != "f":
        return Tensor(_ember.full(list(x.shape), 0.0, _dtypes.bool.code, x.device))
    return logical_not(equal(x, x))


def isfinite(x):
    """x - x is 0 exactly for finite x and NaN for inf and NaN."""
    _require_tensor(x, "isfinite")
    if x.dtype.kind != "f":
        return Tensor(_ember.full(list(x.shape), 1.0, _dtypes.bool.code, x.device))
    return equal(subtract(x, x), 0)


def isinf(x):
    return logical_and(logical_not(isfinite(x)), logical_not(isnan(x)))


# --- where -------------------------------------------------------------------------------
def where(condition, x1, x2):
    """x1 where `condition` (bool) is true, else x2; all three broadcast; x1 or x2 may be Python
    scalars (ember's MaskWhere and MaskFill)."""
    _require_bool(condition, "where")
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        _check_scalar(x1, "where")
        dtype = _dtypes.default_float if isinstance(x1, float) or isinstance(x2, float) else (
            _dtypes.bool if isinstance(x1, builtins.bool) else _dtypes.default_int)
        x2 = Tensor(_ember.full([], float(x2), dtype.code, condition.device))
    if isinstance(x1, Tensor) and isinstance(x2, Tensor):
        a, b = _operands(x1, x2, "where")
        return Tensor(_ember.mask_where(b._t, condition._t, a._t))
    if isinstance(x2, Tensor):
        b, x1 = _operands(x2, x1, "where")
        if isinstance(x1, Tensor):  # an int past 2**53: exact as a tensor
            return where(condition, x1, b)
        return Tensor(_ember.mask_fill(b._t, condition._t, float(x1)))
    a, x2 = _operands(x1, x2, "where")
    if isinstance(x2, Tensor):
        return where(condition, a, x2)
    return Tensor(_ember.mask_fill(a._t, logical_not(condition)._t, float(x2)))


def _zeros_like(x):
    return Tensor(_ember.zeros(list(x.shape), x.dtype.code, x.device))


def _ones_like(x):
    return Tensor(_ember.ones(list(x.shape), x.dtype.code, x.device))
