"""The standard's signbit and copysign (2023.12), composed of ember's comparisons, Abs, Neg, Div
and masks: ember has no op for either, and no bitcast to read a float's sign bit directly.

The sign of a zero shows in its reciprocal (1 / -0.0 is -inf), so signbit is x < 0, or x == 0
and 1 / x < 0. The one bit no comparison can see is a NaN's sign (every comparison with NaN is
false): signbit(NaN) is False and copysign(x1, NaN) is |x1|, whatever the NaN's sign, where
IEEE and NumPy read the bit (np.signbit(-np.nan) is True). A NaN that x1 holds stays a NaN
(its own sign is then unspecified, as it is for NumPy's arithmetic)."""

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import (_cast, _operands, _require_tensor, _scalar_tensor, abs, divide, equal,
                           less, negative, where)


def signbit(x, /):
    """Where x's sign bit is set, as a bool tensor of x's shape: for floats x < 0, or x == 0
    and 1 / x < 0 (so -0.0 is True and +0.0 False; -inf True), one MaskWhere of the two
    comparisons; False for every NaN, whatever its sign bit (ember cannot read it: module
    docstring). Ints: x < 0; bool: all False."""
    _require_tensor(x, "signbit")
    if x.dtype == _dtypes.bool:
        return Tensor(_ember.full(list(x.shape), 0.0, _dtypes.bool.code, x.device))
    if x.dtype.kind != "f":
        return less(x, 0)
    return where(equal(x, 0), less(divide(1.0, x), 0), less(x, 0))


def copysign(x1, x2, /):
    """|x1| with the sign of x2: where(signbit(x2), -|x1|, |x1|), in the dtype the operands
    promote to; either may be a Python scalar, as for the other binary functions. Int and bool
    operands compute in the default float dtype (float32), as the float functions do (exact:
    only the sign changes). A NaN x2 counts as positive, whatever its sign bit (signbit)."""
    a, b = _operands(x1, x2, "copysign")
    a = a if isinstance(a, Tensor) else _scalar_tensor(a, b)
    b = b if isinstance(b, Tensor) else _scalar_tensor(b, a)
    if a.dtype.kind != "f":
        a, b = _cast(a, _dtypes.default_float), _cast(b, _dtypes.default_float)
    magnitude = abs(a)
    return where(signbit(b), negative(magnitude), magnitude)
