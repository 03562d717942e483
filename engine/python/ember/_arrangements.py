"""The standard's functions that rearrange, repeat or mask a tensor's elements: roll, tile,
repeat, meshgrid, tril, triu and tensordot. ember has no op for any of them; each is composed of
shape ops it has (Slice, Cat, Reshape, Expand, Permute, Select), a mask (MaskFill) or Matmul, as
noted at each, so they queue and fuse like any other ops. Only repeat with per-element counts
given as a tensor reads values back (a sync point)."""

import builtins
import math

import numpy as np

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import _operands, _require_tensor, greater_equal, less_equal, subtract, where
from ._manipulation import _axis, _part, broadcast_to, concat, matmul, permute_dims, reshape


def _int(value, what, fn):
    """`value` as a Python int; TypeError for anything else (a bool too)."""
    if isinstance(value, (builtins.bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"ember: {fn}: {what} {value!r} is not an int")
    return int(value)


def _no_elements(fn, shape):
    return ValueError(f"ember: {fn}: the result would have shape {tuple(shape)}, no elements, "
                      "and ember has no empty tensors")


# --- roll -----------------------------------------------------------------------------------
def _roll_axis(x, shift, axis):
    """x rolled by `shift` along `axis`: its last `shift` entries (a Slice) before the others
    (another Slice), joined by Cat."""
    n = x.shape[axis]
    shift %= n
    if shift == 0:
        return x
    return concat([_part(x, axis, n - shift, n), _part(x, axis, 0, n - shift)], axis=axis)


def roll(x, /, shift, *, axis=None):
    """Two Slices and a Cat per rolled axis; with axis=None the tensor is flattened (Reshape),
    rolled and given its shape back. A tuple shift needs a tuple axis of the same length; an
    int shift with a tuple axis rolls each axis by it; an axis named twice rolls by the sum."""
    _require_tensor(x, "roll")
    if axis is None:
        if isinstance(shift, tuple):
            raise ValueError(f"ember: roll: shift {shift} is a tuple, so axis must be a tuple of "
                             "the same length, not None")
        flat = reshape(x, (-1,))
        return reshape(_roll_axis(flat, _int(shift, "shift", "roll"), 0), x.shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if isinstance(shift, tuple):
        if not isinstance(axis, tuple) or len(shift) != len(axis):
            raise ValueError(f"ember: roll: shift {shift} and axis {axis}; a tuple shift needs a "
                             "tuple axis of the same length")
        shifts = shift
    else:
        shifts = (shift,) * len(axes)
    total = {}
    for a, s in zip(axes, shifts):
        d = _axis(a, x.ndim, "roll")
        total[d] = total.get(d, 0) + _int(s, "shift", "roll")
    for d, s in total.items():
        x = _roll_axis(x, s, d)
    return x


# --- tile and repeat ------------------------------------------------------------------------
def tile(x, repetitions, /):
    """One Expand: x's shape (s0, s1, ...) read as (1, s0, 1, s1, ...), expanded to
    (r0, s0, r1, s1, ...) and reshaped to (r0 * s0, r1 * s1, ...). `repetitions` (a tuple of
    ints) and x's shape are padded with leading ones to the same length, as the standard says."""
    _require_tensor(x, "tile")
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"ember: tile: repetitions {repetitions!r} is not a tuple of ints")
    reps = [_int(r, "repetition", "tile") for r in repetitions]
    if builtins.any(r < 0 for r in reps):
        raise ValueError(f"ember: tile: repetitions {tuple(reps)} has a negative entry")
    n = builtins.max(len(reps), x.ndim)
    reps = [1] * (n - len(reps)) + reps
    shape = [1] * (n - x.ndim) + list(x.shape)
    final = [r * s for r, s in zip(reps, shape)]
    if 0 in final:
        raise _no_elements("tile", final)
    if reps == [1] * n:
        return reshape(x, shape)
    spread = reshape(x, [v for s in shape for v in (1, s)])
    return reshape(broadcast_to(spread, [v for r, s in zip(reps, shape) for v in (r, s)]), final)


def _counts(repeats, n, fn):
    """`repeats` (an int, a 1-D int tensor or a sequence of ints) as an int, or as a list of n
    counts; a tensor's values are read back (a sync point)."""
    if isinstance(repeats, Tensor):
        if repeats.dtype.kind != "i":
            raise TypeError(f"ember: {fn}: repeats is a {repeats.dtype.name} tensor; expected an "
                            "int dtype")
        if repeats.ndim != 1:
            raise ValueError(f"ember: {fn}: repeats is a {repeats.ndim}-D tensor; expected 1-D")
        counts = [int(c) for c in np.asarray(repeats)]
    elif isinstance(repeats, (tuple, list)):
        counts = [_int(c, "repeat count", fn) for c in repeats]
    else:
        counts = [_int(repeats, "repeats", fn)]
    if len(counts) not in (1, n):
        raise ValueError(f"ember: {fn}: {len(counts)} repeat counts for {n} entries; expected 1 "
                         f"or {n}")
    if builtins.any(c < 0 for c in counts):
        raise ValueError(f"ember: {fn}: repeats has a negative count")
    return counts[0] if len(counts) == 1 else counts


def repeat(x, repeats, /, *, axis=None):
    """Each entry of x along `axis` (of the flattened x when axis is None) `repeats` times, in
    place. One int count: an Expand of a new dim after `axis`, merged into it by Reshape. A
    count per entry: a Select of index i repeated repeats[i] times; a 1-D int tensor of counts is
    read back first (a sync point: the result's shape depends on its values)."""
    _require_tensor(x, "repeat")
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _axis(axis, x.ndim, "repeat")
    n = x.shape[axis]
    counts = _counts(repeats, n, "repeat")
    final = list(x.shape)
    final[axis] = counts * n if isinstance(counts, int) else builtins.sum(counts)
    if final[axis] == 0:
        raise _no_elements("repeat", final)
    if isinstance(counts, int):
        if counts == 1:
            return x
        inner = list(x.shape[:axis + 1]) + [1] + list(x.shape[axis + 1:])
        spread = list(inner)
        spread[axis + 1] = counts
        return reshape(broadcast_to(reshape(x, inner), spread), final)
    index = np.repeat(np.arange(n, dtype=np.int64), counts)
    index_t = _ember.from_buffer(index, [index.size], _dtypes.int64.code, x.device)
    return Tensor(_ember.select(x._t, axis, index_t))


# --- meshgrid -------------------------------------------------------------------------------
def meshgrid(*arrays, indexing="xy"):
    """A list of N tensors of N dims from N 1-D tensors, each a Reshape and an Expand (a view of
    its input, nothing copied). indexing="xy" (Cartesian) swaps the first two dims of the
    result, "ij" (matrix) keeps the inputs' order; each result keeps its input's dtype."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ember: meshgrid: indexing {indexing!r}; expected 'xy' or 'ij'")
    for a in arrays:
        _require_tensor(a, "meshgrid")
        if a.ndim != 1:
            raise ValueError(f"ember: meshgrid: a {a.ndim}-D tensor; expected 1-D tensors")
        if a.device != arrays[0].device:
            raise ValueError(f"ember: meshgrid: tensors on {arrays[0].device} and {a.device}; "
                             "expected one device (use to_device)")
    dims = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        dims[0], dims[1] = 1, 0
    shape = [0] * len(arrays)
    for a, d in zip(arrays, dims):
        shape[d] = a.shape[0]
    out = []
    for a, d in zip(arrays, dims):
        own = [1] * len(arrays)
        own[d] = a.shape[0]
        out.append(broadcast_to(reshape(a, own), shape))
    return out


# --- tril and triu --------------------------------------------------------------------------
def _diagonal_offsets(x, fn):
    """The (M, N) int64 tensor col - row for x's innermost M x N matrices: arange columns minus
    arange rows, which broadcast over any batch dims."""
    _require_tensor(x, fn)
    if x.ndim < 2:
        raise ValueError(f"ember: {fn}: a {x.ndim}-D tensor; expected at least 2 dims (..., M, N)")
    m, n = x.shape[-2], x.shape[-1]
    rows = np.arange(m, dtype=np.int64)
    cols = np.arange(n, dtype=np.int64)
    rows_t = Tensor(_ember.from_buffer(rows, [m, 1], _dtypes.int64.code, x.device))
    cols_t = Tensor(_ember.from_buffer(cols, [1, n], _dtypes.int64.code, x.device))
    return subtract(cols_t, rows_t), m, n


def _zero(x):
    return False if x.dtype == _dtypes.bool else 0


def tril(x, /, *, k=0):
    """x where col - row <= k, else 0 (MaskFill with a mask from arange comparisons)."""
    offsets, m, n = _diagonal_offsets(x, "tril")
    k = builtins.min(builtins.max(_int(k, "k", "tril"), -m), n)  # past either end: all or none
    return where(less_equal(offsets, k), x, _zero(x))


def triu(x, /, *, k=0):
    """x where col - row >= k, else 0 (MaskFill with a mask from arange comparisons)."""
    offsets, m, n = _diagonal_offsets(x, "triu")
    k = builtins.min(builtins.max(_int(k, "k", "triu"), -m), n)
    return where(greater_equal(offsets, k), x, _zero(x))


# --- tensordot ------------------------------------------------------------------------------
def _contracted(axes, a, b):
    """The contracted axes of a and of b (non-negative, in pairing order) from tensordot's
    `axes`: an int N (a's last N, b's first N) or a pair of sequences."""
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2 or not builtins.all(isinstance(s, (tuple, list)) for s in axes):
            raise TypeError(f"ember: tensordot: axes {axes!r}; expected an int or a pair of "
                            "sequences of ints")
        first, second = axes
        if len(first) != len(second):
            raise ValueError(f"ember: tensordot: axes {axes!r} name {len(first)} axes of x1 and "
                             f"{len(second)} of x2; expected the same number")
        pa = [_axis(i, a.ndim, "tensordot") for i in first]
        pb = [_axis(i, b.ndim, "tensordot") for i in second]
        for p, name in ((pa, "x1"), (pb, "x2")):
            if len(set(p)) != len(p):
                raise ValueError(f"ember: tensordot: axes {axes!r} name an axis of {name} twice")
        return pa, pb
    count = _int(axes, "axes", "tensordot")
    if count < 0:
        raise ValueError(f"ember: tensordot: axes={count}; expected a non-negative int")
    if count > a.ndim or count > b.ndim:
        raise ValueError(f"ember: tensordot: axes={count} contracts {count} dims, but x1 has "
                         f"{a.ndim} and x2 {b.ndim}")
    return list(range(a.ndim - count, a.ndim)), list(range(count))


def tensordot(x1, x2, /, *, axes=2):
    """Permute each operand so its contracted axes are x1's last and x2's first, Reshape both to
    matrices (free x contracted, contracted x free), one Matmul, and Reshape to x1's free dims
    then x2's. The operands promote as the standard's type promotion says."""
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("ember: tensordot: both operands must be tensors")
    a, b = _operands(x1, x2, "tensordot")
    if a.dtype == _dtypes.bool:
        raise TypeError("ember: tensordot: bool tensors; expected a numeric dtype (astype first)")
    pa, pb = _contracted(axes, a, b)
    for i, j in zip(pa, pb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"ember: tensordot: axis {i} of x1 (size {a.shape[i]}) and axis {j} "
                             f"of x2 (size {b.shape[j]}) differ; contracted axes must be equal")
    free_a = [d for d in range(a.ndim) if d not in pa]
    free_b = [d for d in range(b.ndim) if d not in pb]
    size = math.prod(a.shape[d] for d in pa)
    lhs = reshape(permute_dims(a, tuple(free_a + pa)), (-1, size))
    rhs = reshape(permute_dims(b, tuple(pb + free_b)), (size, -1))
    return reshape(matmul(lhs, rhs), [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])
