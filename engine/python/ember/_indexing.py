"""Basic indexing (`t[...]`): ints, slices, `...` and None, over ember's Slice (a view) and
Reshape. Python's slice bounds are normalized here, so ember sees the elements Python names:
ember's negative step walks a [start, end) range backwards from its end (ember/slice.h), Python's
walks from `start`. A 1-D int tensor on one axis takes entries (ember's Select) as NumPy does:
negative ones count from the end, out-of-range ones raise IndexError; checking them reads the
index tensor's values back (a sync point); int tensors of any rank with ints, slices and `...` in
one tuple key are _advanced_indexing.py's (Note [Integer-array indexing]). A bool tensor of x's
shape, or of its leading dims, takes the elements where it is true (NumPy's boolean indexing);
the result's shape depends on the mask's values, so the mask is read back first (a sync point;
Note [Reading by a bool mask]). nonzero reads its tensor back the same way."""

import math

import numpy as np

from . import _dtypes
from . import _ember
from ._array import Tensor


def _dims_taken(k):
    """The dims of x a key entry indexes: a bool tensor its own ndim, None and '...' none."""
    if k is None or k is Ellipsis:
        return 0
    return k.ndim if isinstance(k, Tensor) and k.dtype == _dtypes.bool else 1


def _expand_key(key, ndim):
    """`key` as a tuple with '...' (or the end) standing for whole slices of the dims the other
    entries leave. Identity tests only: `==` on a tensor entry is the elementwise comparison."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("ember: an index can only have one ellipsis ('...')")
    consumed = sum(_dims_taken(k) for k in key)
    if consumed > ndim:
        raise IndexError(f"ember: too many indices: {consumed} for a {ndim}-D tensor")
    i = ellipses[0] if ellipses else len(key)
    return key[:i] + (slice(None),) * (ndim - consumed) + key[i + 1:]


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
    i = _int_index(k, n, dim, "or one 1-D int or bool tensor: docs/API.md, 'Python'")
    return (i, i + 1, 1), False


def _int_index(k, n, dim, others):
    """Int key entry k of a dim of size n as a position in [0, n); IndexError for an entry that is
    no int (`others` says what else the key could hold) or out of range."""
    if isinstance(k, bool) or not (isinstance(k, int) or hasattr(k, "__index__")):
        raise IndexError(f"ember: index {k!r} on dim {dim} is not an int, a slice, ... or None "
                         f"({others})")
    i = k.__index__()
    if not -n <= i < n:
        raise IndexError(f"ember: index {i} is out of range for dim {dim} of size {n}")
    return i % n


def _checked_indices(x, key):
    """The tensor `key` as indices into x's dim 0, as NumPy reads them: it must be a 1-D int
    tensor and x at least 1-D; negative entries count from the end, and any outside [-n, n) is
    an IndexError. ember's Select reads zeros for those, so this reads the index values back (a
    sync point, like np.asarray(key)); an index tensor with a negative entry is replaced by a
    wrapped copy."""
    if key.dtype.kind != "i" or key.ndim != 1:
        raise IndexError(f"ember: a tensor index must be a 1-D int or a bool tensor, not "
                         f"{key.ndim}-D {key.dtype.name}")
    if x.ndim == 0:
        raise IndexError("ember: a tensor index on a 0-d tensor")
    return _in_range(key, x.shape[0], 0)


def _in_range(key, n, dim):
    """The int tensor `key`, of any rank, as indices into dim `dim` (size n) as NumPy reads
    them (_checked_indices): read back (a sync point), IndexError for an entry outside [-n, n),
    and a wrapped copy where an entry is negative."""
    idx = np.asarray(key)
    lo, hi = int(idx.min()), int(idx.max())
    if lo < -n or hi >= n:
        bad = lo if lo < -n else hi
        raise IndexError(f"ember: index {bad} is out of range for dim {dim} of size {n}")
    if lo >= 0:
        return key
    wrapped = np.ascontiguousarray(np.where(idx < 0, idx + n, idx), idx.dtype)
    return Tensor(_ember.from_buffer(wrapped, list(idx.shape), key.dtype.code, key.device))


# Note [Reading by a bool mask]
# `x[mask]` with a bool tensor `mask` whose shape is x's first mask.ndim dims is, as NumPy's, the
# 1-D run of x's entries (along those dims, in row-major order) where the mask is true, each
# keeping x's trailing dims: shape (count,) + x.shape[mask.ndim:]. How many there are depends on
# the mask's values, which a lazy program has not computed yet, so the mask is read back (a sync
# point, np.asarray(mask)) and its true positions become an int64 index tensor; x with its
# masked dims flattened (Reshape) is then taken at them (Select), queued like any other op. A
# mask with no true entry would give an empty tensor, which ember does not have: ValueError.
# nonzero(x) reads x back the same way. Assignment through a mask needs no read (setitem: it is a
# where over x's shape).


def _index_tensor(positions, device):
    return _ember.from_buffer(np.ascontiguousarray(positions, np.int64), [positions.size],
                              _dtypes.int64.code, device)


def _masked(x, mask):
    """x[mask] (Note [Reading by a bool mask])."""
    lead = list(mask.shape)
    if mask.ndim > x.ndim or list(x.shape[:mask.ndim]) != lead:
        raise IndexError(f"ember: a bool index of shape {tuple(lead)} on a tensor of shape "
                         f"{tuple(x.shape)}; expected the tensor's shape or its leading dims")
    picked = np.flatnonzero(np.asarray(mask))  # row-major true positions: a sync point
    if picked.size == 0:
        raise ValueError("ember: a bool index that is all False selects nothing, and ember has no "
                         "empty tensors")
    rows = math.prod(lead)
    flat = _ember.reshape(x._t, [rows] + list(x.shape[mask.ndim:]))
    if picked.size == rows:
        return Tensor(flat)  # every entry, in order
    return Tensor(_ember.select(flat, 0, _index_tensor(picked, x.device)))


def nonzero(x, /):
    """A tuple of x.ndim int64 tensors, the indices of x's nonzero entries along each dim in
    row-major order (NaN counts as nonzero). x is read back first (a sync point: the result's
    length depends on its values; Note [Reading by a bool mask]); x must have at least 1 dim and
    a nonzero entry (ember has no empty tensors)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"ember: nonzero: expected an ember.Tensor, not {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError("ember: nonzero: a 0-d tensor; expected at least 1 dim")
    found = np.nonzero(np.asarray(x))
    if found[0].size == 0:
        raise ValueError("ember: nonzero: the tensor has no nonzero entry, so the indices would "
                         "be empty, and ember has no empty tensors")
    return tuple(Tensor(_index_tensor(i, x.device)) for i in found)


# Note [A bool mask among other indices]
# `x[..., mask]`, `x[:, mask, 1:]`, `x[0, mask]`: one bool tensor in a tuple key with ints,
# slices and `...` (beside None or another tensor it goes to _advanced_indexing.py, as its
# nonzero() indices: Note [Integer-array indexing]). NumPy counts the ints as indices of the
# same kind as the mask; the selection becomes one dim, put where the mask was when those
# indices stand next to each other and first otherwise (NumPy's rule for advanced indices).
# Here: the key before the mask is applied first (basic indexing; its ints drop their dims),
# the mask then takes the dims it names there, the selection is moved to the mask's place (or
# to the front), and the key after the mask indexes the rest. Same values and shape as NumPy's.


def _masked_in_tuple(x, key):
    """x[key] for a tuple key holding one bool tensor (Note [A bool mask among other
    indices])."""
    where = [i for i, k in enumerate(key) if isinstance(k, Tensor)]
    mask = key[where[0]]
    if len(where) > 1 or any(k is None for k in key):
        raise IndexError("ember: a bool index can be combined with ints, slices and '...' only "
                         "(not with None or another tensor index)")
    key = _expand_key(key, x.ndim)  # the mask names mask.ndim dims
    m = next(i for i, k in enumerate(key) if isinstance(k, Tensor))
    before, after = key[:m], key[m + 1:]
    # The ints count as advanced indices beside the mask (NumPy): adjacent ones keep the
    # selection at the mask's place, others send it to the front.
    advanced = [i for i, k in enumerate(key) if not isinstance(k, slice)]
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    head = getitem(x, before + (Ellipsis,)) if before else x
    at = sum(1 for k in before if isinstance(k, slice))  # the mask's first dim in `head`
    dims = list(range(head.ndim))
    moved = dims[at:at + mask.ndim] + dims[:at] + dims[at + mask.ndim:]
    front = head if at == 0 else Tensor(_ember.permute(head._t, moved))
    picked = _masked(front, mask)  # (count,) + head's other dims, in order
    place = at if adjacent else 0
    if place:
        order = list(range(1, place + 1)) + [0] + list(range(place + 1, picked.ndim))
        picked = Tensor(_ember.permute(picked._t, order))
    # Either way the key after the mask indexes what follows the selection and head's dims
    # before the mask.
    return getitem(picked, (slice(None),) * (at + 1) + after) if after else picked


def getitem(x, key):
    from . import _advanced_indexing
    if _advanced_indexing.is_advanced(key):
        return _advanced_indexing.getitem(x, key)  # Note [Integer-array indexing]
    if isinstance(key, Tensor) and key.dtype == _dtypes.bool:
        return _masked(x, key)
    if isinstance(key, tuple) and any(isinstance(k, Tensor) and k.dtype == _dtypes.bool
                                      for k in key):
        return _masked_in_tuple(x, key)
    if isinstance(key, Tensor):
        return Tensor(_ember.select(x._t, 0, _checked_indices(x, key)._t))
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


# --- Assignment (`t[key] = value`) --------------------------------------------------------
# Note [Assignment by rebinding]
# ember's tensors are values: a queued op never writes another's memory. `t[key] = value`
# therefore computes the tensor with those elements replaced, `where(mask, spread, t)`, and the
# Tensor object `t` takes it (Tensor.__setitem__ rebinds its handle). What held the old tensor
# keeps the old values: a slice taken before (`s = t[1:3]`), an exported DLPack capsule, another
# name bound to it by `u = t` sees the new one (the same object). NumPy's views would see the
# write; the standard leaves writes through views unspecified (Copy-view behaviour and
# mutability), and JAX's `.at[key].set` is this same computation.
#
# `spread` is `value` broadcast to the indexed region and then moved to its positions one dim at
# a time with Select (an index per position of the dim: the region entry that lands there, 0
# where none does; a repeated index keeps the last value, as NumPy's assignment does), and `mask`
# is the product of one 0/1 row per dim that the key does not take whole. Everything is queued as
# ordinary ops (Full, Expand, Reshape, Select, Mul, Equal, MaskWhere), so it fuses like any
# other program; only a 1-D int tensor key is read back (to check its range, as getitem does).


def _positions(k, n, dim):
    """The positions of a dim of size n that key entry k names, in the key's order, and whether
    the dim stays in the indexed view."""
    if isinstance(k, slice):
        return list(range(*k.indices(n))), True
    return [_int_index(k, n, dim, "or one 1-D int or bool tensor: docs/API.md, 'Python'")], False


def _value_for(x, value, shape):
    """`value` as a tensor of x's dtype and device broadcast to `shape` (a ValueError when it
    does not broadcast, as NumPy's)."""
    from . import _creation, _manipulation
    if isinstance(value, Tensor):
        if value.device != x.device:
            raise ValueError(f"ember: assigning a tensor on {value.device} into one on "
                             f"{x.device}; move it first (to_device)")
        _check_broadcasts(value, shape)
        v = value if value.dtype == x.dtype else _manipulation.astype(value, x.dtype)
        return _manipulation.broadcast_to(v, shape)
    if isinstance(value, (bool, int, float, np.generic)):  # Python and NumPy scalars
        return _creation.full(tuple(shape), value, dtype=x.dtype, device=x.device)
    _check_broadcasts(value, shape)  # lists and NumPy arrays, as NumPy's shapes
    return _value_for(x, _creation.asarray(value, dtype=x.dtype, device=x.device), shape)


def _check_broadcasts(value, shape):
    vshape = list(value.shape) if isinstance(value, Tensor) else list(np.shape(value))
    if len(vshape) > len(shape) or any(
            v not in (1, s) for v, s in zip(vshape[::-1], shape[::-1])):
        raise ValueError(f"ember: a value of shape {tuple(vshape)} does not broadcast to the "
                         f"indexed shape {tuple(shape)}")


def setitem(x, key, value):
    """The tensor that `x[key] = value` leaves in x (Note [Assignment by rebinding])."""
    from . import _advanced_indexing, _elementwise
    _advanced_indexing.refuse_assignment(key)
    if isinstance(key, Tensor) and key.dtype == _dtypes.bool:
        if list(key.shape) != list(x.shape):
            raise IndexError(f"ember: a bool index of shape {tuple(key.shape)} on a tensor of "
                             f"shape {tuple(x.shape)}; expected the same shape")
        if key.device != x.device:
            raise ValueError(f"ember: a bool index on {key.device} for a tensor on {x.device}")
        return _elementwise.where(key, _value_for(x, value, x.shape), x)
    if isinstance(key, Tensor):
        checked = np.asarray(_checked_indices(x, key))
        taken = [[int(i) for i in checked]] + [list(range(n)) for n in x.shape[1:]]
        view = [len(checked)] + list(x.shape[1:])
    else:
        taken, view, dim = [], [], 0
        for k in _expand_key(key, x.ndim):
            if k is None:
                view.append(1)
                continue
            positions, keep = _positions(k, x.shape[dim], dim)
            taken.append(positions)
            if keep:
                view.append(len(positions))
            dim += 1
        if any(not p for p in taken):
            _check_broadcasts(value, view)  # as NumPy does, though nothing is assigned
            return x
    region = [len(p) for p in taken]
    spread = _value_for(x, value, view)
    if list(spread.shape) != region:
        spread = Tensor(_ember.reshape(spread._t, region))
    mask = None
    for d, positions in enumerate(taken):
        n = x.shape[d]
        if positions == list(range(n)):
            continue  # the whole dim, in order
        source = np.zeros(n, np.int32)
        hit = np.zeros(n, np.int32)
        for k, p in enumerate(positions):
            source[p] = k  # a repeated position keeps its last entry
            hit[p] = 1
        index = Tensor(_ember.from_buffer(source, [n], _dtypes.int32.code, x.device))
        spread = Tensor(_ember.select(spread._t, d, index._t))
        row = [1] * x.ndim
        row[d] = n
        part = Tensor(_ember.from_buffer(hit, row, _dtypes.int32.code, x.device))
        mask = part if mask is None else _elementwise.multiply(mask, part)
    if mask is None:
        return spread  # every element replaced
    return _elementwise.where(_elementwise.equal(mask, 1), spread, x)
