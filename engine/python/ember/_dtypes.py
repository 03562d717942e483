"""ember's dtypes as Array API dtype objects, their promotion, and their NumPy counterparts.

ember has float32, float16, bfloat16, int32, int64 and bool (docs/API.md). The standard's other
dtypes (float64, the unsigned and small ints, complex) have no ember tensor; docs/API.md,
"Python", lists what that changes.
"""

import numpy as np


class DType:
    """An ember element type; `code` is the C++ DType's stored value."""

    __slots__ = ("name", "code", "kind", "bits")

    def __init__(self, name, code, kind, bits):
        self.name = name
        self.code = code
        self.kind = kind  # "f" float, "i" signed int, "b" bool
        self.bits = bits

    def __repr__(self):
        return f"ember.{self.name}"

    def __eq__(self, other):
        return isinstance(other, DType) and other.code == self.code

    def __hash__(self):
        return hash(self.code)


float32 = DType("float32", 0, "f", 32)
float16 = DType("float16", 1, "f", 16)
bfloat16 = DType("bfloat16", 2, "f", 16)
int32 = DType("int32", 3, "i", 32)
int64 = DType("int64", 4, "i", 64)
bool = DType("bool", 5, "b", 8)  # noqa: A001 - the standard's name

ALL = (float32, float16, bfloat16, int32, int64, bool)
BY_CODE = {d.code: d for d in ALL}

# The standard makes float64 and int64 the defaults; ember has no float64, so Python floats
# and float64 data become float32.
default_float = float32
default_int = int64

_NUMPY = {float32: np.float32, float16: np.float16, int32: np.int32, int64: np.int64,
          bool: np.bool_}


def to_numpy(dtype):
    """The NumPy dtype that holds `dtype`'s values exactly (bfloat16 widens to float32)."""
    return np.dtype(_NUMPY.get(dtype, np.float32))


def check(dtype):
    """`dtype` itself, or TypeError when it is not an ember dtype."""
    if isinstance(dtype, DType):
        return dtype
    raise TypeError(f"ember: {dtype!r} is not an ember dtype; expected one of "
                    + ", ".join(f"ember.{d.name}" for d in ALL))


def stored_as(np_dtype):
    """The ember dtype whose elements are NumPy `np_dtype`'s bytes as they are (float32,
    float16, int32, int64 and bool in the machine's byte order), or None: what ember can
    borrow from a NumPy array without converting it."""
    np_dtype = np.dtype(np_dtype)
    for dtype, np_type in _NUMPY.items():
        if np_dtype == np.dtype(np_type):
            return dtype
    return None


def from_numpy(np_dtype):
    """The ember dtype for NumPy data of `np_dtype` (float64 narrows to float32, small and
    unsigned ints widen to int32 or int64); TypeError for data ember cannot hold."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.byteorder not in "=|":
        np_dtype = np_dtype.newbyteorder("=")  # big-endian data: the copy swaps its bytes
    if np_dtype == np.bool_:
        return bool
    if np_dtype in (np.float64, np.float32):
        return float32
    if np_dtype == np.float16:
        return float16
    if np_dtype.kind in "iu":
        fits_int32 = np_dtype.itemsize < 4 or (np_dtype.itemsize == 4 and np_dtype.kind == "i")
        return int32 if fits_int32 else int64
    raise TypeError(f"ember: NumPy dtype {np_dtype} has no ember dtype; expected bool, "
                    "integer or float data")


def promote(a, b):
    """The dtype two operands compute in. The standard's table within a kind (int32 with int64
    is int64, float16 with float32 is float32); across kinds, which the standard leaves open, ember
    does as PyTorch does: bool joins the other kind, ints join the float dtype."""
    if a == b:
        return a
    if a.kind == b.kind == "f":
        return float32
    if a.kind == b.kind == "i":
        return int64
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    return a if a.kind == "f" else b


def isdtype(dtype, kind):
    """The standard's isdtype: `kind` is a dtype, a kind name or a tuple of them."""
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype == kind
    # ember has no unsigned or complex dtype: those kinds hold none of its dtypes.
    names = {"bool": "b", "signed integer": "i", "unsigned integer": "", "integral": "i",
             "real floating": "f", "complex floating": "", "numeric": "if"}
    if kind not in names:
        raise ValueError(f"ember: isdtype: unknown kind {kind!r}")
    return dtype.kind in names[kind]
