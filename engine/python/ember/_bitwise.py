"""The standard's bitwise functions, behind the operators & | ^ << >> ~.

ember's Bitwise ops take int tensors only (docs/API.md, "Bitwise"; Note [Bitwise ops] in
engine/runtime/cpu/elementwise.cpp): and, or, xor and not of the two's-complement bits, and
shifts that give what NumPy's give past the width (0 to the left, the sign fill to the right, for
an amount that is negative or at least 64). For bool tensors the standard defines bitwise_and,
bitwise_or, bitwise_xor and bitwise_invert as the logical ops; they are composed here of exact
ember ops (a cast to int32, the int op, a cast back; invert is x == False). Shifts of bools and
every bitwise function of floats are a TypeError, as in NumPy.
"""

import builtins

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import _cast, _operands, _require_tensor, _scalar_tensor


def _is_bool(x):
    return isinstance(x, builtins.bool) or (isinstance(x, Tensor) and x.dtype == _dtypes.bool)


def _require_integral(x1, x2, fn, bools):
    """TypeError for a float operand, and for a bool one where `bools` is false (the shifts)."""
    for x in (x1, x2):
        if isinstance(x, float) or (isinstance(x, Tensor) and x.dtype.kind == "f"):
            kind = x.dtype.name if isinstance(x, Tensor) else "float"
            raise TypeError(f"ember: {fn}: takes integer or boolean operands, not {kind}")
        if not bools and _is_bool(x):
            raise TypeError(f"ember: {fn}: takes integer operands, not bool")


def _bitwise(name, x1, x2, fn, commutes=True, bools=True):
    """ember op `name` on two operands, each a tensor or a Python scalar (at least one a
    tensor); `commutes`: scalar op tensor is tensor op scalar."""
    _require_integral(x1, x2, fn, bools)
    if _is_bool(x1) and _is_bool(x2):
        # Both bool (tensors or Python bools): the logical op, through int32 and back.
        if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
            raise TypeError(f"ember: {fn}: expected at least one ember.Tensor")
        a = _cast(x1, _dtypes.int32) if isinstance(x1, Tensor) else int(x1)
        b = _cast(x2, _dtypes.int32) if isinstance(x2, Tensor) else int(x2)
        return _cast(_bitwise(name, a, b, fn, commutes), _dtypes.bool)
    # A bool tensor with a Python int computes in the default int dtype, as NumPy's int64.
    if isinstance(x1, Tensor) and x1.dtype == _dtypes.bool and isinstance(x2, int):
        x1 = _cast(x1, _dtypes.default_int)
    if isinstance(x2, Tensor) and x2.dtype == _dtypes.bool and isinstance(x1, int):
        x2 = _cast(x2, _dtypes.default_int)
    a, b = _operands(x1, x2, fn)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return Tensor(_ember.binary(name, a._t, b._t))
    if isinstance(a, Tensor):
        return Tensor(_ember.int_scalar(name, a._t, int(b)))
    if commutes:
        return Tensor(_ember.int_scalar(name, b._t, int(a)))
    return Tensor(_ember.binary(name, _scalar_tensor(a, b)._t, b._t))


def bitwise_and(x1, x2, /):
    return _bitwise("BitwiseAnd", x1, x2, "bitwise_and")


def bitwise_or(x1, x2, /):
    return _bitwise("BitwiseOr", x1, x2, "bitwise_or")


def bitwise_xor(x1, x2, /):
    return _bitwise("BitwiseXor", x1, x2, "bitwise_xor")


def bitwise_left_shift(x1, x2, /):
    """x1 << x2 on the two's-complement bits; an amount that is negative or at least 64 gives 0
    (NumPy's result; the standard leaves negative amounts open)."""
    return _bitwise("BitwiseLeftShift", x1, x2, "bitwise_left_shift", commutes=False, bools=False)


def bitwise_right_shift(x1, x2, /):
    """Arithmetic x1 >> x2; an amount that is negative or at least 64 gives the sign fill (0 or
    -1, NumPy's result)."""
    return _bitwise("BitwiseRightShift", x1, x2, "bitwise_right_shift", commutes=False,
                    bools=False)


def bitwise_invert(x, /):
    """~x: the bits flipped for ints, logical not for bools."""
    _require_tensor(x, "bitwise_invert")
    if x.dtype == _dtypes.bool:
        return Tensor(_ember.scalar("Equal", x._t, 0.0))
    if x.dtype.kind != "i":
        raise TypeError(f"ember: bitwise_invert: takes an integer or boolean tensor, not "
                        f"{x.dtype.name}")
    return Tensor(_ember.unary("BitwiseNot", x._t))
