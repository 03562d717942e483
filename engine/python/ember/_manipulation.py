"""The standard's manipulation functions, matmul and astype, over ember's shape ops (Reshape,
Permute, Expand, Cat, Select, Slice) and Matmul."""

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import _cast, _operands, _require_tensor


def _axis(axis, ndim, fn):
    """`axis` in [-ndim, ndim) as a non-negative int; IndexError otherwise (as NumPy's
    AxisError, which is one)."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"ember: {fn}: axis {axis!r} is not an int")
    if not -ndim <= axis < ndim:
        raise IndexError(f"ember: {fn}: axis {axis} is out of range for {ndim} dims; expected an "
                         f"axis in [{-ndim}, {ndim})")
    return axis % ndim


def _shape(shape, fn):
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = [int(s) for s in shape]
    except TypeError:
        raise TypeError(f"ember: {fn}: shape {shape!r} is not a tuple of ints") from None
    return shape


def astype(x, dtype, /, *, copy=True, device=None):
    _require_tensor(x, "astype")
    out = _cast(x, _dtypes.check(dtype))
    return out if device is None else out.to_device(device)


def reshape(x, /, shape, *, copy=None):
    _require_tensor(x, "reshape")
    shape = _shape(shape, "reshape")
    if list(x.shape) == shape:
        return x
    return Tensor(_ember.reshape(x._t, shape))


def permute_dims(x, /, axes):
    _require_tensor(x, "permute_dims")
    axes = [_axis(a, x.ndim, "permute_dims") for a in axes]
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"ember: permute_dims: axes {tuple(axes)} are not a permutation of "
                         f"{x.ndim} dims")
    if axes == list(range(x.ndim)):
        return x
    return Tensor(_ember.permute(x._t, axes))


def moveaxis(x, source, destination, /):
    """permute_dims with `source`'s axes at `destination` and the others in their order."""
    _require_tensor(x, "moveaxis")
    src = source if isinstance(source, tuple) else (source,)
    dst = destination if isinstance(destination, tuple) else (destination,)
    src = [_axis(a, x.ndim, "moveaxis") for a in src]
    dst = [_axis(a, x.ndim, "moveaxis") for a in dst]
    if len(src) != len(dst):
        raise ValueError(f"ember: moveaxis: {len(src)} source axes and {len(dst)} destinations; "
                         "expected as many of each")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("ember: moveaxis: an axis is named twice")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, order)


def unstack(x, /, *, axis=0):
    """The slices of x along `axis`, each without that dim (views: Slice and Reshape)."""
    _require_tensor(x, "unstack")
    if x.ndim == 0:
        raise ValueError("ember: unstack: a 0-d tensor has no axis to unstack")
    axis = _axis(axis, x.ndim, "unstack")
    lead = (slice(None),) * axis
    return tuple(x[lead + (i,)] for i in range(x.shape[axis]))


def matrix_transpose(x, /):
    _require_tensor(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"ember: matrix_transpose: needs at least 2 dims, not {x.ndim}")
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return Tensor(_ember.permute(x._t, axes))


def expand_dims(x, /, *, axis=0):
    _require_tensor(x, "expand_dims")
    axis = _axis(axis, x.ndim + 1, "expand_dims")
    shape = list(x.shape)
    shape.insert(axis, 1)
    return Tensor(_ember.reshape(x._t, shape))


def squeeze(x, /, axis):
    _require_tensor(x, "squeeze")
    axes = {_axis(a, x.ndim, "squeeze") for a in (axis if isinstance(axis, tuple) else (axis,))}
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"ember: squeeze: axis {a} has size {x.shape[a]}; expected 1")
    return Tensor(_ember.reshape(x._t, [s for i, s in enumerate(x.shape) if i not in axes]))


def broadcast_to(x, /, shape):
    _require_tensor(x, "broadcast_to")
    shape = _shape(shape, "broadcast_to")
    if list(x.shape) == shape:
        return x
    return Tensor(_ember.expand(x._t, shape))


def broadcast_arrays(*arrays):
    shape = []
    for a in arrays:
        shape = _broadcast_shapes(shape, list(a.shape))
    return [broadcast_to(a, shape) for a in arrays]


def _broadcast_shapes(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"ember: shapes {tuple(a)} and {tuple(b)} do not broadcast")
        out.append(max(x, y))
    return out


def _same_dtype(arrays, fn):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"ember: {fn}: expected at least one tensor")
    for a in arrays:
        _require_tensor(a, fn)
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = _dtypes.promote(dtype, a.dtype)
    return [_cast(a, dtype) for a in arrays]


def concat(arrays, /, *, axis=0):
    arrays = _same_dtype(arrays, "concat")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    axis = _axis(axis, arrays[0].ndim, "concat")
    if len(arrays) == 1:
        return arrays[0]
    return Tensor(_ember.cat([a._t for a in arrays], axis))


def stack(arrays, /, *, axis=0):
    arrays = _same_dtype(arrays, "stack")
    axis = _axis(axis, arrays[0].ndim + 1, "stack")
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def flip(x, /, *, axis=None):
    """A Slice with step -1 on each flipped dim (a view, no copy)."""
    _require_tensor(x, "flip")
    if x.ndim == 0:
        return x
    if axis is None:
        axes = set(range(x.ndim))
    else:
        axes = {_axis(a, x.ndim, "flip") for a in (axis if isinstance(axis, tuple) else (axis,))}
    ranges = [(0, None, -1 if d in axes else 1) for d in range(max(axes) + 1)]
    return Tensor(_ember.slice(x._t, ranges))


def _part(x, axis, start, end):
    """x[..., start:end, ...] along `axis` (a Slice: a view), for the compositions that cut a
    tensor along one axis (roll, cumulative_sum)."""
    whole = [(0, s, 1) for s in x.shape[:axis]]
    return Tensor(_ember.slice(x._t, whole + [(start, end, 1)]))


def take(x, indices, /, *, axis=None):
    """ember's Select: an index out of range reads 0 (the standard leaves it unspecified)."""
    _require_tensor(x, "take")
    _require_tensor(indices, "take")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("ember: take: axis is required for a tensor of more than 1 dim")
        axis = 0
    if indices.dtype.kind != "i" or indices.ndim != 1:
        raise TypeError(f"ember: take: indices must be a 1-D int tensor, not {indices.ndim}-D "
                        f"{indices.dtype.name}")
    return Tensor(_ember.select(x._t, _axis(axis, x.ndim, "take"), indices._t))


def matmul(x1, x2, /):
    """ember's Matmul, with the standard's 1-D rules: a 1-D left operand is a row, a 1-D right
    operand a column, and the added dim is removed from the result."""
    a, b = _operands(x1, x2, "matmul")
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("ember: matmul: both operands must be tensors")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("ember: matmul: 0-d operands; use multiply")
    row, col = a.ndim == 1, b.ndim == 1
    if row:
        a = reshape(a, (1, a.shape[0]))
    if col:
        b = reshape(b, (b.shape[0], 1))
    out = Tensor(_ember.binary("Matmul", a._t, b._t))
    shape = list(out.shape)
    if col:
        shape.pop(-1)
    if row:
        shape.pop(-1 if col else -2)
    return reshape(out, shape)
