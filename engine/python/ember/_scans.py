"""The standard's cumulative_sum and searchsorted (2023.12), composed of ember's ops: ember has
no scan op and no sort, so each is built from slices, concats, elementwise adds, comparisons
and a sum, and stays lazy (nothing is read back on the host).

- cumulative_sum is a Hillis-Steele scan: for k = 1, 2, 4, ... < n along the axis, y = y plus
  y shifted by k (its first n - k entries, behind k entries that stay as they are): two Slices,
  an Add and a Cat per step, ceil(log2 n) steps in all. Each sum is then a tree of depth at
  most ceil(log2 n) over its prefix instead of NumPy's sequential chain: exact for ints (the
  same wrapping at int64's range), and for floats a different rounding order (within
  ceil(log2 n) roundings of the sum of magnitudes, often closer to the exact sum than the
  sequential order; and a partial sum may overflow to inf in one order and not the other).
- searchsorted compares every value of x2 with every entry of x1 (a broadcast Lower or
  LowerEqual of x2[..., None] against x1) and counts the trues (SumDim over that last dim):
  x2.size * x1.size comparisons, where a binary search would make x2.size * log2(x1.size):
  cheap for a short x1, costly for a long one."""

from . import _dtypes
from . import _ember
from ._array import Tensor
from ._elementwise import (_cast, _operands, _require_tensor, add, isnan, less, less_equal,
                           logical_not, where)
from ._manipulation import _axis, _part, concat, reshape, take
from ._reductions import _accumulating
from ._reductions import sum as _sum


# --- cumulative_sum -----------------------------------------------------------------------
def _scan(y, axis):
    """The inclusive prefix sums of y along `axis`, Hillis-Steele: log2(n) lazy steps."""
    n = y.shape[axis]
    k = 1
    while k < n:
        shifted_sum = add(_part(y, axis, k, n), _part(y, axis, 0, n - k))
        y = concat([_part(y, axis, 0, k), shifted_sum], axis=axis)
        k *= 2
    return y


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The sums of x's entries along `axis`, each over the entries up to and including it;
    include_initial=True puts a zero first (the axis grows by one). `axis` may be None only for
    a 1-D x. The dtype is `sum`'s: `dtype` when given (x is cast to it first), else int64 for
    int and bool tensors and x's own for floats; dtype=bool gives whether any entry so far is
    nonzero (NumPy's: x as bool, summed as int64, cast to bool). A Hillis-Steele scan,
    ceil(log2 n) lazy steps of Slices, an Add and a Cat (module docstring): exact for ints;
    float results differ from NumPy's sequential sums in rounding order only, so they agree
    within a tolerance (about log2(n) roundings of the sum of the magnitudes), not to the last
    bit."""
    _require_tensor(x, "cumulative_sum")
    if x.ndim == 0:
        raise ValueError("ember: cumulative_sum: a 0-d tensor; expected at least 1 dim")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"ember: cumulative_sum: axis=None with a {x.ndim}-D tensor; axis "
                             "is required unless x is 1-D")
        axis = 0
    axis = _axis(axis, x.ndim, "cumulative_sum")
    to_bool = dtype is not None and _dtypes.check(dtype) == _dtypes.bool
    if to_bool:  # NumPy's: each entry made a bool, then or-ed (summed as int64 ones and zeros)
        y = _cast(_cast(x, _dtypes.bool), _dtypes.int64)
    else:
        y = _accumulating(x, dtype, "cumulative_sum")
    y = _scan(y, axis)
    if include_initial:
        shape = list(y.shape)
        shape[axis] = 1
        zero = Tensor(_ember.zeros(shape, y.dtype.code, y.device))
        y = concat([zero, y], axis=axis)
    return _cast(y, _dtypes.bool) if to_bool else y


# --- searchsorted -------------------------------------------------------------------------
def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """For each value v of x2, the index where v would go into the 1-D x1 to keep it sorted
    (ascending, or in the order `sorter`'s 1-D int indices give, applied with take): the count
    of x1's entries a < v (side="left") or a <= v (side="right"), as int64 of x2's shape. The
    operands promote as the binary functions do (bool ones compare as int32). NaN sorts after
    everything, as in NumPy: left counts a < v, or every non-NaN a where v is NaN; right counts
    a <= v, or every a where v is NaN. Composed of a broadcast comparison of x2[..., None]
    against x1 and a SumDim over that last dim (module docstring); x1 is not checked to be
    sorted (that would read it back), and an unsorted x1 gives these counts all the same."""
    _require_tensor(x1, "searchsorted")
    _require_tensor(x2, "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"ember: searchsorted: side {side!r}; expected 'left' or 'right'")
    if x1.ndim != 1:
        raise ValueError(f"ember: searchsorted: x1 is a {x1.ndim}-D tensor; expected 1-D")
    if sorter is not None:
        _require_tensor(sorter, "searchsorted")
        if sorter.dtype.kind != "i":
            raise TypeError(f"ember: searchsorted: sorter is a {sorter.dtype.name} tensor; "
                            "expected int indices")
        if sorter.ndim != 1 or sorter.shape[0] != x1.shape[0]:
            raise ValueError(f"ember: searchsorted: sorter of shape {tuple(sorter.shape)} for x1 "
                             f"of shape {tuple(x1.shape)}; expected a 1-D tensor as long as x1")
        x1 = take(x1, sorter)
    a, v = _operands(x1, x2, "searchsorted")
    if a.dtype == _dtypes.bool:
        a, v = _cast(a, _dtypes.int32), _cast(v, _dtypes.int32)
    v = reshape(v, list(v.shape) + [1])
    if side == "left":
        counted = less(a, v)
        if a.dtype.kind == "f":
            counted = where(isnan(v), logical_not(isnan(a)), counted)
    else:
        counted = less_equal(a, v)
        if a.dtype.kind == "f":
            counted = where(isnan(v), True, counted)
    return _sum(where(counted, 1, 0), axis=-1)  # int64 ones and zeros: no Cast

