"""Basic indexing (`t[...]`): ints, slices, `...` and None, over ember's Slice (a view) and
Reshape. Python's slice bounds are normalized here, so ember sees the elements Python names:
ember's negative step walks a [start, end) range backwards from its end (ember/slice.h), Python's
walks from `start`. A 1-D int tensor on one axis takes entries (ember's Select) as NumPy does:
negative ones count from the end, out-of-range ones raise IndexError; checking them reads the
index tensor's values back (a sync point)."""

import numpy as np

from . import _ember
from ._array import Tensor


def _expand_key(key, ndim):
    key = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("ember: an index can only have one ellipsis ('...')")
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"ember: too many indices: {consumed} for a {ndim}-D tensor")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - consumed) + key[i + 1:]
    else:
        key = key + (slice(None),) * (ndim - consumed)
    return key


def _as_range(k, n, dim):
    """(ember start, end, step) and whether the dim stays, for index `k` of a dim of size n."""
    if isinstance(k, slice):
        start, stop, step = k.indices(n)
        count = len(range(start, stop, step))
        if count == 0:
            raise IndexError(f"ember: slice {k} of dim {dim} (size {n}) is empty, and ember has "
                             "no empty tensors")
        if step > 0:
            return (start, stop, step), True
        last = start + step * (count - 1)  # the lowest element Python takes
        return (last, start + 1, step), True
    if isinstance(k, bool) or not (isinstance(k, int) or hasattr(k, "__index__")):
        raise IndexError(f"ember: index {k!r} on dim {dim} is not an int, a slice, ... or None "
                         "(boolean and array indices: docs/API.md, 'Python')")
    i = k.__index__()
    if not -n <= i < n:
        raise IndexError(f"ember: index {i} is out of range for dim {dim} of size {n}")
    i %= n
    return (i, i + 1, 1), False


def _checked_indices(key, n):
    """The 1-D int tensor `key` as indices into a dim of size n, as NumPy reads them: negative
    ones count from the end, and any outside [-n, n) is an IndexError. ember's Select reads
    zeros for those, so this reads the index values back (a sync point, like np.asarray(key));
    an index tensor with a negative entry is replaced by a wrapped copy."""
    idx = np.asarray(key)
    lo, hi = int(idx.min()), int(idx.max())
    if lo < -n or hi >= n:
        bad = lo if lo < -n else hi
        raise IndexError(f"ember: index {bad} is out of range for dim 0 of size {n}")
    if lo >= 0:
        return key
    wrapped = np.ascontiguousarray(np.where(idx < 0, idx + n, idx), idx.dtype)
    return Tensor(_ember.from_buffer(wrapped, list(idx.shape), key.dtype.code, key.device))


def getitem(x, key):
    if isinstance(key, Tensor):
        if key.dtype.kind != "i" or key.ndim != 1:
            raise IndexError(f"ember: a tensor index must be a 1-D int tensor, not {key.ndim}-D "
                             f"{key.dtype.name}")
        if x.ndim == 0:
            raise IndexError("ember: a tensor index on a 0-d tensor")
        return Tensor(_ember.select(x._t, 0, _checked_indices(key, x.shape[0])._t))
    key = _expand_key(key, x.ndim)
    ranges, shape, dim = [], [], 0
    for k in key:
        if k is None:
            shape.append(1)
            continue
        n = x.shape[dim]
        (start, end, step), keep = _as_range(k, n, dim)
        ranges.append((start, end, step))
        if keep:
            shape.append(len(range(start, end, abs(step))))
        dim += 1
    while ranges and ranges[-1] == (0, x.shape[len(ranges) - 1], 1):
        ranges.pop()  # whole trailing dims need no Slice
    t = _ember.slice(x._t, ranges) if ranges else x._t
    if list(x.shape) != shape:
        t = _ember.reshape(t, shape)
    return Tensor(t)
