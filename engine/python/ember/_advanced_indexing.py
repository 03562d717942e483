"""Integer-array ("advanced") indexing in `t[key]`: int tensors of any rank, with Python ints,
slices and `...`, in one tuple key, read as NumPy reads them (Note [Integer-array indexing]).
`_indexing.getitem` sends such keys here; a lone 1-D int tensor keeps its path there.

Note [Integer-array indexing]
In a key with at least one int tensor, NumPy counts every int tensor and every Python int as an
advanced index: they broadcast together to one shape B (IndexError when they do not), and each
entry picks a position of its dim (negative ones count from the end, out-of-range ones are an
IndexError). The result has x's slice dims, each where it stood, with B in place of the
advanced dims: where they stood when they are adjacent in the key (`x[:, i, j]`, `x[1, i]`),
first when a slice stands between them (`x[i, :, j]`, `x[0, :, i]`). Here:
  1. the slices are applied first, as basic indexing does (a Slice view; the advanced dims are
     taken whole, so the view's dims are the key's entries one to one);
  2. the advanced dims are brought together: permute_dims moves them to the front, in key
     order, when they are not adjacent (where NumPy puts B), and stay where they are when they
     are;
  3. reshape merges them into one dim of size prod(n_j), row-major in key order;
  4. the linear index sum_j(i_j * stride_j), stride_j = prod(n_k for k after j), is computed in
     int64 over the index tensors (ordinary Mul and Add, which broadcast them to B; a Python
     int adds a constant), after each tensor is checked and wrapped by _indexing._in_range,
     which reads its values back (a sync point, as for a lone 1-D int tensor);
  5. the index, flattened to 1-D, is taken along the merged dim (take: ember's Select), and a
     reshape puts B in its place.
Apart from that range check everything is queued as ordinary ops. A bool mask among them is read
as NumPy reads it, as the int tensors of its nonzero() entries (read back: a sync point), and
None as a new size-1 dim that stays where it stands and parts the indices beside it, as a slice
does; so a mask beside None or another mask comes here too. Assignment through such a key is
refused (setitem)."""

import math

from . import _dtypes
from ._array import Tensor

_WHERE = "integer-array indexing: docs/API.md, 'Python'"


def _is_index_tensor(k):
    return isinstance(k, Tensor) and k.dtype != _dtypes.bool


def is_advanced(key):
    """Whether getitem sends `key` here: a tuple key holding a tensor that is not a bool mask
    (an int tensor, or a float one to refuse), or a lone int tensor of another rank than 1 (a
    1-D one keeps the shorter path of _indexing.getitem)."""
    if isinstance(key, Tensor):
        return key.dtype.kind == "i" and key.ndim != 1
    if not isinstance(key, tuple):
        return False
    tensors = [k for k in key if isinstance(k, Tensor)]
    if any(_is_index_tensor(k) for k in tensors):
        return True
    # A bool mask beside None or another mask, which _indexing's mask path does not take.
    return len(tensors) > 1 or (len(tensors) == 1 and any(k is None for k in key))


def refuse_assignment(key):
    """IndexError for `t[key] = value` with an index tensor of 1 or more dims in a tuple key
    (a 0-d int tensor reads as an int there, as NumPy's)."""
    if isinstance(key, tuple) and any(_is_index_tensor(k) and k.ndim > 0 for k in key):
        raise IndexError("ember: assignment through int tensor indices in a tuple key "
                         "(t[i, j] = v) is not supported; only reading is (" + _WHERE + ")")


def _check_entries(x, key):
    for k in key:
        if not isinstance(k, Tensor):
            continue
        if k.dtype.kind != "i":
            raise IndexError(f"ember: a tensor index must be an int (int32, int64) or a bool "
                             f"tensor, not {k.dtype.name}")
        if k.device != x.device:
            raise ValueError(f"ember: an index tensor on {k.device} for a tensor on "
                             f"{x.device}; move it first (to_device)")


def _masks_as_indices(x, key):
    """`key` with each bool mask replaced by its nonzero() int tensors, one per dim it names:
    NumPy's reading of a mask among other indices (reading the mask is a sync point, as for a
    lone mask: Note [Reading by a bool mask])."""
    from . import _indexing

    def is_mask(k):
        return isinstance(k, Tensor) and k.dtype == _dtypes.bool

    named = sum(0 if k is None or k is Ellipsis else k.ndim if is_mask(k) else 1 for k in key)
    out, dim = [], 0
    for k in key:
        if k is Ellipsis:
            dim += max(x.ndim - named, 0)
        elif is_mask(k):
            if k.device != x.device:
                raise ValueError(f"ember: a bool index on {k.device} for a tensor on "
                                 f"{x.device}; move it first (to_device)")
            if tuple(k.shape) != tuple(x.shape[dim:dim + k.ndim]):
                raise IndexError(f"ember: a bool index of shape {tuple(k.shape)} on dims "
                                 f"{tuple(x.shape[dim:dim + k.ndim])} (from dim {dim}) of a "
                                 f"tensor of shape {tuple(x.shape)}; expected the same shape")
            out.extend(_indexing.nonzero(k))
            dim += k.ndim
            continue
        elif k is not None:
            dim += 1
        out.append(k)
    return tuple(out)


def _new_axes_as_dims(x, key):
    """x with a size-1 dim where each None of the expanded `key` stands, and the key with a
    whole slice there: NumPy's None is a new dim that stays in place and, like a slice, parts
    the int indices on either side of it (then their broadcast shape goes first)."""
    if not any(k is None for k in key):
        return x, key
    from . import _manipulation
    shape, out, dim = [], [], 0
    for k in key:
        if k is None:
            shape.append(1)
            out.append(slice(None))
        else:
            shape.append(x.shape[dim])
            out.append(k)
            dim += 1
    return _manipulation.reshape(x, shape), tuple(out)


def _broadcast_shape(shapes):
    """The shape the index tensors broadcast to (NumPy's rule), or IndexError naming them."""
    out = []
    for s in shapes:
        n = max(len(out), len(s))
        a, b = [1] * (n - len(out)) + out, [1] * (n - len(s)) + list(s)
        if any(p != q and 1 not in (p, q) for p, q in zip(a, b)):
            named = " ".join(str(tuple(t)) for t in shapes)
            raise IndexError(f"ember: the index tensors' shapes {named} do not broadcast "
                             "together")
        out = [max(p, q) for p, q in zip(a, b)]
    return out


def getitem(x, key):
    """x[key] for a tuple key holding int tensors (Note [Integer-array indexing])."""
    from . import _elementwise, _indexing, _manipulation
    key = key if isinstance(key, tuple) else (key,)
    key = _masks_as_indices(x, key)
    _check_entries(x, key)
    x, key = _new_axes_as_dims(x, _indexing._expand_key(key, x.ndim))
    # Every entry now names one dim of x.
    adv = [d for d, k in enumerate(key) if not isinstance(k, slice)]
    shape = _broadcast_shape([k.shape for k in key if isinstance(k, Tensor)])
    picks = []  # per advanced dim, in key order: a checked int64 tensor or a position
    for d in adv:
        k, n = key[d], x.shape[d]
        if isinstance(k, Tensor):
            picks.append(_elementwise._cast(_indexing._in_range(k, n, d), _dtypes.int64))
        else:
            picks.append(_indexing._int_index(k, n, d, "or an int tensor: " + _WHERE))
    # 1. The slices, as basic indexing reads them; the advanced dims stay whole.
    y = _indexing.getitem(x, tuple(slice(None) if d in adv else k for d, k in enumerate(key)))
    # 2. The advanced dims together: where they stand if adjacent, else first (NumPy's place).
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    at = adv[0] if adjacent else 0
    if not adjacent:
        y = _manipulation.permute_dims(y, adv + [d for d in range(y.ndim) if d not in adv])
    lead = list(y.shape[:at])
    tail = list(y.shape[at + len(adv):])
    sizes = [x.shape[d] for d in adv]
    # 3. One merged dim, row-major over the advanced dims in key order.
    merged = _manipulation.reshape(y, lead + [math.prod(sizes)] + tail)
    # 4. The linear index into the merged dim, of shape B.
    linear, constant, stride = None, 0, 1
    for pick, n in reversed(list(zip(picks, sizes))):
        if isinstance(pick, Tensor):
            term = pick if stride == 1 else _elementwise.multiply(pick, stride)
            linear = term if linear is None else _elementwise.add(linear, term)
        else:
            constant += pick * stride
        stride *= n
    if constant:
        linear = _elementwise.add(linear, constant)
    linear = _manipulation.broadcast_to(linear, shape)
    # 5. Take along the merged dim, then B in its place.
    flat = _manipulation.reshape(linear, [math.prod(shape)])
    taken = _manipulation.take(merged, flat, axis=at)
    return _manipulation.reshape(taken, lead + shape + tail)
