"""The standard's statistical and searching reductions over ember's per-dim reductions, which
keep the reduced dim (SumDim, MaxDim, ArgMax, ...): `axis` (None, an int or a tuple) and
`keepdims` are handled here, and a reduction over every axis reduces the flattened tensor once."""

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import _cast, _require_tensor
from ._manipulation import _axis, reshape


def _axes(x, axis, fn):
    if axis is None:
        return list(range(x.ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = sorted({_axis(a, x.ndim, fn) for a in axes})
    if len(out) != len(axes):
        raise ValueError(f"ember: {fn}: axis {axis} names a dim twice")
    return out


def _reduce(op, x, axis, keepdims, fn):
    _require_tensor(x, fn)
    axes = _axes(x, axis, fn)
    kept = [1 if d in axes else s for d, s in enumerate(x.shape)]
    final = kept if keepdims else [s for d, s in enumerate(x.shape) if d not in axes]
    if not axes and x.ndim > 0:
        return x
    if x.ndim <= 1 or len(axes) == x.ndim:
        t = x._t if x.ndim == 1 else _ember.reshape(x._t, [-1])
        return reshape(Tensor(_ember.reduce(op, t, 0)), final)
    t = x._t
    for d in axes:
        t = _ember.reduce(op, t, d)
    return reshape(Tensor(t), final)


def _accumulating(x, dtype, fn):
    """sum and prod: ints and bool accumulate in the default int dtype, as the standard asks."""
    _require_tensor(x, fn)
    if dtype is not None:
        return _cast(x, _dtypes.check(dtype))
    if x.dtype.kind in "ib":
        return _cast(x, _dtypes.default_int)
    return x


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    return _reduce("SumDim", _accumulating(x, dtype, "sum"), axis, keepdims, "sum")


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    return _reduce("ProdDim", _accumulating(x, dtype, "prod"), axis, keepdims, "prod")


def mean(x, /, *, axis=None, keepdims=False):
    _require_tensor(x, "mean")
    if x.dtype.kind != "f":
        raise TypeError(f"ember: mean: a {x.dtype.name} tensor; expected a float dtype "
                        "(astype first)")
    return _reduce("MeanDim", x, axis, keepdims, "mean")


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce("MaxDim", x, axis, keepdims, "max")


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce("MinDim", x, axis, keepdims, "min")


def _arg(op, x, axis, keepdims, fn):
    _require_tensor(x, fn)
    if axis is not None and not isinstance(axis, int):
        raise TypeError(f"ember: {fn}: axis must be an int or None")
    return _reduce(op, x, axis, keepdims, fn)


def argmax(x, /, *, axis=None, keepdims=False):
    """int64 index of the first maximum; over the flattened tensor when axis is None."""
    return _arg("ArgMax", x, axis, keepdims, "argmax")


def argmin(x, /, *, axis=None, keepdims=False):
    return _arg("ArgMin", x, axis, keepdims, "argmin")
