"""Standard functions that ember has no op for, composed of ops it has: each says what it is made
of, since that decides its accuracy and what it costs (the parts fuse like any other ops)."""

import math

import numpy as np

from . import _dtypes
from ._array import Tensor
from ._elementwise import _cast, _operands, _require_tensor, exp, log, multiply, square, subtract
from ._reductions import _reduce, mean
from ._reductions import sum as _sum


def log2(x):
    """log(x) / ln 2."""
    return multiply(log(x), 1.0 / math.log(2.0))


def log10(x):
    """log(x) / ln 10."""
    return multiply(log(x), 1.0 / math.log(10.0))


def exp2(x):
    """exp(x * ln 2)."""
    _require_tensor(x, "exp2")
    if x.dtype.kind != "f":
        x = _cast(x, _dtypes.default_float)
    return exp(multiply(x, math.log(2.0)))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The max of x != 0 as int32."""
    _require_tensor(x, "any")
    nonzero = _cast(_cast(x, _dtypes.bool), _dtypes.int32)
    return _cast(_reduce("MaxDim", nonzero, axis, keepdims, "any"), _dtypes.bool)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The min of x != 0 as int32."""
    _require_tensor(x, "all")
    nonzero = _cast(_cast(x, _dtypes.bool), _dtypes.int32)
    return _cast(_reduce("MinDim", nonzero, axis, keepdims, "all"), _dtypes.bool)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """sum((x - mean)^2) / (N - correction), two passes (no cancellation of E[x^2] - E[x]^2)."""
    _require_tensor(x, "var")
    if x.dtype.kind != "f":
        raise TypeError(f"ember: var: a {x.dtype.name} tensor; expected a float dtype")
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = 1
    for a in axes:
        n *= x.shape[a]
    centered = subtract(x, mean(x, axis=axis, keepdims=True))
    scale = 1.0 / (n - correction) if n > correction else math.inf
    return multiply(_sum(square(centered), axis=axis, keepdims=keepdims), scale)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """sqrt(var)."""
    from ._elementwise import sqrt
    return sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def vecdot(x1, x2, /, *, axis=-1):
    """sum(x1 * x2, axis) (real dtypes: no conjugate)."""
    a, b = _operands(x1, x2, "vecdot")
    return _sum(multiply(a, b), axis=axis)


def result_type(*arrays_and_dtypes):
    dtype = None
    for a in arrays_and_dtypes:
        d = a.dtype if isinstance(a, Tensor) else _dtypes.check(a)
        dtype = d if dtype is None else _dtypes.promote(dtype, d)
    if dtype is None:
        raise ValueError("ember: result_type: expected at least one tensor or dtype")
    return dtype


def can_cast(from_, to, /):
    """Whether the standard's type promotion lattice leads from `from_` (a dtype or a tensor's)
    to `to`: within a kind, to the wider dtype or itself (int32 to int64; float16 and bfloat16
    to float32); across kinds never, as the lattice has no path between bool, ints and floats
    (ember's own promotion does join them, as PyTorch does: result_type)."""
    from_ = from_.dtype if isinstance(from_, Tensor) else _dtypes.check(from_)
    to = _dtypes.check(to)
    return from_.kind == to.kind and _dtypes.promote(from_, to) == to


def finfo(dtype):
    """NumPy's finfo of the dtype (bfloat16: 8 exponent and 8 significand bits)."""
    dtype = dtype.dtype if isinstance(dtype, Tensor) else _dtypes.check(dtype)
    if dtype.kind != "f":
        raise TypeError(f"ember: finfo: {dtype.name} is not a float dtype")
    if dtype == _dtypes.bfloat16:
        return _BFloat16Info()
    return np.finfo(_dtypes.to_numpy(dtype))


def iinfo(dtype):
    dtype = dtype.dtype if isinstance(dtype, Tensor) else _dtypes.check(dtype)
    if dtype.kind != "i":
        raise TypeError(f"ember: iinfo: {dtype.name} is not an int dtype")
    return np.iinfo(_dtypes.to_numpy(dtype))


class _BFloat16Info:
    bits = 16
    eps = 2.0 ** -7
    max = float.fromhex("0x1.fep127")
    min = -max
    smallest_normal = 2.0 ** -126
    dtype = _dtypes.bfloat16
