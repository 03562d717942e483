"""ember.Tensor: the Array API's array object over a lazy ember tensor.

Every operation queues ember ops on the calling thread's stream and returns at once; values are
computed when they are read (`np.asarray(t)`, `t.tolist()`, `float(t)`, DLPack) or at
`ember.sync()`, exactly as ToVector and Sync in C++. ember's tensors are values: `t[key] = v`
makes the object hold a new tensor with those elements replaced (Note [Assignment by rebinding],
_indexing.py); slices taken before, and exports, keep the old values.
"""

import builtins

import numpy as np

from . import _dtypes
from . import _ember


class Tensor:
    """An ember tensor (the standard's array object)."""

    __slots__ = ("_t", "__weakref__")
    __hash__ = None  # `==` is elementwise

    def __init__(self, handle):
        if not isinstance(handle, _ember.Tensor):
            raise TypeError("ember: make tensors with ember.asarray, ember.zeros, ...")
        self._t = handle

    # --- Attributes (no sync) ------------------------------------------------------------
    @property
    def dtype(self):
        return _dtypes.BY_CODE[self._t.dtype_code]

    @property
    def shape(self):
        return self._t.shape

    @property
    def ndim(self):
        return len(self._t.shape)

    @property
    def size(self):
        return self._t.size

    @property
    def device(self):
        return self._t.device

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError(f"ember: .T needs a 2-D tensor, not {self.ndim}-D; use "
                             "permute_dims or .mT")
        return _m.permute_dims(self, (1, 0))

    @property
    def mT(self):
        return _m.matrix_transpose(self)

    def __array_namespace__(self, api_version=None):
        import ember  # the package is the namespace
        return ember

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("ember: len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self):
        values = np.array2string(self.__array__(), separator=", ", prefix="ember.tensor(")
        return f"ember.tensor({values}, dtype={self.dtype!r}, device={self.device!r})"

    # --- Reading back (syncs) ------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        """A read-only NumPy view of the tensor's memory (a copy for bfloat16 and GPU data, and
        for another `dtype`). NumPy 2's `copy`: True always gives a writable copy, False raises
        ValueError where a view is impossible, None (NumPy 1's only way) views where it can."""
        out = _ember.to_numpy(self._t)
        copied = out.base is None  # to_numpy made the array itself: bfloat16, GPU memory
        if dtype is not None and np.dtype(dtype) != out.dtype:
            out, copied = out.astype(dtype), True
        if copy is False and copied:
            raise ValueError(f"ember: __array__(copy=False): a {self.dtype.name} tensor on "
                             f"{self.device} as {out.dtype} cannot be viewed without a copy")
        return out.copy() if copy is True and not copied else out

    def tolist(self):
        return self.__array__().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError(f"ember: item() of a tensor of {self.size} elements")
        return self.__array__().reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.kind != "i":
            raise TypeError(f"ember: __index__ of a {self.dtype.name} tensor")
        return int(self.item())

    def __bool__(self):
        return builtins.bool(self.item())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the tensor's memory, shared, not copied; it stays alive while the
        consumer holds it. The values are complete: the export waits for the device, so any
        consumer `stream` may read them at once. The capsule is DLPack 0.6/0.8's ("dltensor"),
        whatever `max_version` asks: the standard lets a producer answer with it, and every
        consumer takes it. BufferError for `dl_device` other than the tensor's own, or
        copy=True: ember exports its memory only as it is."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"ember: __dlpack__: the tensor is on {self.device}, not on DLPack "
                              f"device {tuple(dl_device)}; to_device() first")
        if copy is True:
            raise BufferError("ember: __dlpack__(copy=True): ember exports its memory as it is; "
                              "copy on the consumer's side")
        return _ember.to_dlpack(self._t)

    def __dlpack_device__(self):
        device = self.device
        if device == "cpu":
            return (1, 0)  # kDLCPU
        return (2, int(device.split(":")[1]))  # kDLCUDA

    def to_device(self, device, stream=None):
        """The tensor on `device`: the same tensor, or a copy through the host."""
        device = _ember.check_device(device)
        if device == self.device:
            return self
        return Tensor(_ember.from_buffer(np.ascontiguousarray(self.__array__()), list(self.shape),
                                         self.dtype.code, device))

    # --- Operators -----------------------------------------------------------------------
    def __add__(self, other):
        return _ew.add(self, other)

    def __radd__(self, other):
        return _ew.add(other, self)

    def __sub__(self, other):
        return _ew.subtract(self, other)

    def __rsub__(self, other):
        return _ew.subtract(other, self)

    def __mul__(self, other):
        return _ew.multiply(self, other)

    def __rmul__(self, other):
        return _ew.multiply(other, self)

    def __truediv__(self, other):
        return _ew.divide(self, other)

    def __rtruediv__(self, other):
        return _ew.divide(other, self)

    def __floordiv__(self, other):
        return _ew.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _ew.floor_divide(other, self)

    def __mod__(self, other):
        return _ew.remainder(self, other)

    def __rmod__(self, other):
        return _ew.remainder(other, self)

    def __pow__(self, other):
        return _ew.pow(self, other)

    def __rpow__(self, other):
        return _ew.pow(other, self)

    def __matmul__(self, other):
        return _m.matmul(self, other)

    def __rmatmul__(self, other):
        return _m.matmul(other, self)

    def __neg__(self):
        return _ew.negative(self)

    def __pos__(self):
        return _ew.positive(self)

    def __abs__(self):
        return _ew.abs(self)

    def __invert__(self):
        return _bw.bitwise_invert(self)

    def __and__(self, other):
        return _bw.bitwise_and(self, other)

    def __rand__(self, other):
        return _bw.bitwise_and(other, self)

    def __or__(self, other):
        return _bw.bitwise_or(self, other)

    def __ror__(self, other):
        return _bw.bitwise_or(other, self)

    def __xor__(self, other):
        return _bw.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _bw.bitwise_xor(other, self)

    def __lshift__(self, other):
        return _bw.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return _bw.bitwise_left_shift(other, self)

    def __rshift__(self, other):
        return _bw.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return _bw.bitwise_right_shift(other, self)

    def __eq__(self, other):
        return _ew.equal(self, other)

    def __ne__(self, other):
        return _ew.not_equal(self, other)

    def __lt__(self, other):
        return _ew.less(self, other)

    def __le__(self, other):
        return _ew.less_equal(self, other)

    def __gt__(self, other):
        return _ew.greater(self, other)

    def __ge__(self, other):
        return _ew.greater_equal(self, other)

    def __getitem__(self, key):
        return _index.getitem(self, key)

    def __setitem__(self, key, value):
        # A new tensor with the elements replaced, which this object then holds (Note
        # [Assignment by rebinding], _indexing.py): what held the old tensor keeps its values.
        self._t = _index.setitem(self, key, value)._t


def wrap(handle):
    return Tensor(handle)


# The functions the operators call; imported last because they import Tensor from here.
from . import _bitwise as _bw  # noqa: E402
from . import _elementwise as _ew  # noqa: E402
from . import _indexing as _index  # noqa: E402
from . import _manipulation as _m  # noqa: E402
