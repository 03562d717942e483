"""The standard's creation functions and DLPack import. Values computed on the host (asarray of
Python data and NumPy arrays, arange, linspace, eye) are uploaded with one copy (ember's
Tensor::FromBytes); from_dlpack (and asarray(copy=False)) borrows host memory without a copy
(ember::ImportMemory); zeros, ones and full are queued as ember ops."""

import builtins
import sys

import numpy as np

from . import _dtypes
from . import _elementwise
from . import _ember
from ._array import Tensor
from ._elementwise import _cast
from ._manipulation import _shape


def _device(device):
    """The canonical name of `device` (default "cpu"), checked before anything is queued."""
    if device is None:
        return "cpu"
    if not isinstance(device, str):
        raise TypeError(f"ember: device {device!r} is not a device name; expected \"cpu\" or "
                        "\"cuda:N\"")
    return _ember.check_device(device)


def _from_numpy(a, dtype, device):
    if a.size == 0:
        raise ValueError(f"ember: shape {a.shape} has no elements, and ember has no empty tensors")
    dtype = _dtypes.from_numpy(a.dtype) if dtype is None else _dtypes.check(dtype)
    if dtype == _dtypes.bfloat16:
        # NumPy has no bfloat16: upload float32 and let ember round (nearest even).
        t = Tensor(_ember.from_buffer(np.ascontiguousarray(a, np.float32), list(a.shape),
                                      _dtypes.float32.code, device))
        return Tensor(_ember.cast(t._t, dtype.code))
    if dtype.kind == "i" and a.dtype.kind in "iu":
        _check_int_range(a, dtype)
    data = np.ascontiguousarray(a, _dtypes.to_numpy(dtype))
    return Tensor(_ember.from_buffer(data, list(a.shape), dtype.code, device))


def _asarray_without_copy(obj, dtype, device):
    """asarray(copy=False): the memory of a NumPy array or a DLPack producer, borrowed
    (from_dlpack), or ValueError where that needs a copy, as the standard says."""
    if not isinstance(obj, np.ndarray) and not hasattr(obj, "__dlpack__"):
        raise ValueError(f"ember: asarray(copy=False): {type(obj).__name__} has no memory to "
                         "share; only ember tensors, NumPy arrays and DLPack producers avoid a copy")
    try:
        out = from_dlpack(obj, device=device, copy=False)
    except (BufferError, TypeError) as e:
        raise ValueError(f"ember: asarray(copy=False) needs a copy: {e}") from None
    if dtype is not None and out.dtype != dtype:
        raise ValueError(f"ember: asarray(copy=False): {out.dtype.name} data as {dtype.name} needs "
                         "a copy")
    return out


def _check_int_range(a, dtype):
    """OverflowError when integer data `a` has a value that `dtype` (int32 or int64) cannot
    hold: uint64 data above 2**63 - 1 (or int64 data for int32) would otherwise wrap."""
    info = np.iinfo(_dtypes.to_numpy(dtype))
    if np.can_cast(a.dtype, info.dtype):
        return
    lo, hi = int(a.min()), int(a.max())
    if lo < info.min or hi > info.max:
        bad = hi if hi > info.max else lo
        raise OverflowError(f"ember: asarray: the value {bad} ({a.dtype} data) does not fit "
                            f"{dtype.name} [{info.min}, {info.max}]; ember has no unsigned or "
                            "wider integer dtype")


def _python_ints_out_of_range(obj, dtype):
    """(the first Python int in `obj` (a scalar or nested lists and tuples) outside `dtype`'s
    range or None, whether `obj` holds a Python float)."""
    info = np.iinfo(_dtypes.to_numpy(dtype))
    bad, has_float, stack = None, False, [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, float):
            has_float = True
        elif isinstance(v, int) and not isinstance(v, builtins.bool) and bad is None:
            if not info.min <= v <= info.max:
                bad = v
    return bad, has_float


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """A tensor of `obj`: an ember.Tensor (cast or moved if asked), a DLPack producer (its
    memory borrowed: from_dlpack), or Python data and NumPy arrays (copied once to the device;
    with copy=False a NumPy array is borrowed instead, or ValueError). Python floats and float64
    data become float32, ember's default float dtype; Python ints become int64."""
    if dtype is not None:
        _dtypes.check(dtype)
    if isinstance(obj, Tensor):
        out = obj if dtype is None else _cast(obj, dtype)
        return out if device is None else out.to_device(device)
    device = _device(device)
    if copy is False:
        return _asarray_without_copy(obj, dtype, device)
    if not isinstance(obj, np.ndarray) and hasattr(obj, "__dlpack__") and dtype is None:
        return from_dlpack(obj, device=device)
    if isinstance(obj, (int, list, tuple)) and (dtype is None or dtype.kind == "i"):
        # NumPy makes ints past int64 uint64, float64 or objects; ember's ints are int64 at most.
        bad, has_float = _python_ints_out_of_range(obj, dtype or _dtypes.default_int)
        if bad is not None and (dtype is not None or not has_float):
            target = (dtype or _dtypes.default_int).name
            raise OverflowError(f"ember: asarray: the Python int {bad} does not fit {target}; "
                                "ember has no unsigned or wider integer dtype")
    a = np.asarray(obj)
    if a.dtype == object:
        raise TypeError(f"ember: asarray: cannot make a tensor of {type(obj).__name__}")
    if dtype is None and isinstance(obj, (builtins.bool, int, float, list, tuple)):
        # The standard's defaults for Python data (NumPy would pick float64 and int64).
        if a.dtype.kind == "f":
            dtype = _dtypes.default_float
        elif a.dtype.kind in "iu":
            dtype = _dtypes.default_int
    return _from_numpy(a, dtype, device)


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor of the data of `x` (a NumPy array, a PyTorch tensor, a CuPy array, anything
    with __dlpack__), on `device` (default: x's own device, as the standard says).

    Memory is borrowed, not copied, where ember can read it as it is: the tensor aliases the
    producer's memory, as torch.from_dlpack does, and keeps it alive until the last tensor
    reading it is gone (device memory: until the device has finished the kernels that read
    it). ember never writes it (not even for an op that could reuse a last use's memory).
    ember is lazy: its ops read the memory when they run, so a write by the producer is seen
    by every ember op that has not run yet; sync() (or read a result) before writing it.

    CUDA memory (kDLCUDA) is borrowed on its own device: ember asks the producer for it with
    the calling thread's stream (`__dlpack__(stream=...)`), so the producer's pending writes
    are ordered before ember's reads without a host wait.

    It copies, as copy=True always does, for memory ember cannot read in place: host data not
    aligned to its element size, NumPy strides that are no whole element, big-endian NumPy
    data, memory for another device than its own (CUDA memory is then read through the host).
    copy=False raises BufferError there instead (docs/API.md, "Python")."""
    if copy is not None and not isinstance(copy, builtins.bool):
        raise TypeError(f"ember: from_dlpack: copy={copy!r}; expected True, False or None")
    if isinstance(x, Tensor):
        return x if device is None else x.to_device(device)
    if isinstance(x, np.ndarray):
        return _from_numpy_memory(x, _device(device), copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"ember: from_dlpack: {type(x).__name__} has no __dlpack__")
    kind, index = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (_KDL_CPU, 0)
    if kind == _KDL_CUDA:
        # Checked before the producer is asked for anything: no GPU is a RuntimeError here.
        source = _ember.check_device(f"cuda:{index}")
        target = source if device is None else _device(device)
        capsule = _cuda_capsule(x, index, _ember.native_stream(source))
        return Tensor(_ember.from_dlpack(capsule, target, copy))
    if kind not in (_KDL_CPU, _KDL_CUDA_HOST):
        raise TypeError(f"ember: from_dlpack: memory on DLPack device {(kind, index)} is not "
                        "importable; ember imports host memory and CUDA device memory")
    return Tensor(_ember.from_dlpack(x.__dlpack__(), _device(device), copy))


def _cuda_capsule(x, index, stream):
    """x's capsule, its producer's pending writes ordered before `stream` (on GPU `index`).
    PyTorch orders the current stream of its *current* device, whichever GPU x is on, so a
    PyTorch tensor is asked with its own GPU made current; other producers order x's own."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        with torch.cuda.device(index):
            return x.__dlpack__(stream=stream)
    return x.__dlpack__(stream=stream)


# DLPack's device types (dlpack.h, DLDeviceType) that ember imports.
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST = 1, 2, 3


def _from_numpy_memory(a, device, copy):
    """from_dlpack of a NumPy array, through the array itself: NumPy 1.24 exports neither
    read-only nor bool arrays through DLPack."""
    if a.size == 0:
        raise ValueError(f"ember: shape {a.shape} has no elements, and ember has no empty tensors")
    dtype = _dtypes.stored_as(a.dtype)
    whole = builtins.all(s % a.itemsize == 0 for s in a.strides)
    if dtype is not None and whole:
        return Tensor(_ember.from_numpy(a, dtype.code, device, copy))
    if a.dtype.newbyteorder("=") not in (np.float32, np.float16, np.int32, np.int64, np.bool_):
        raise TypeError(f"ember: from_dlpack: {a.dtype} data has no ember dtype; expected "
                        "float32, float16, int32, int64 or bool (astype first)")
    if copy is False:
        why = "big-endian data" if dtype is None else "strides that are no whole element"
        raise BufferError(f"ember: from_dlpack(copy=False): the array has {why}, which ember "
                          "cannot read without a copy; pass copy=None to let ember copy it")
    return _from_numpy(a, None, device)


def _dtype_or(dtype, default):
    return default if dtype is None else _dtypes.check(dtype)


def zeros(shape, *, dtype=None, device=None):
    dtype = _dtype_or(dtype, _dtypes.default_float)
    return Tensor(_ember.zeros(_shape(shape, "zeros"), dtype.code, _device(device)))


def ones(shape, *, dtype=None, device=None):
    dtype = _dtype_or(dtype, _dtypes.default_float)
    return Tensor(_ember.ones(_shape(shape, "ones"), dtype.code, _device(device)))


def empty(shape, *, dtype=None, device=None):
    """ember has no uninitialized tensors: zeros (one fill, which ember fuses away when the
    tensor is overwritten by a later op anyway)."""
    return zeros(shape, dtype=dtype, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    if dtype is None:
        if isinstance(fill_value, builtins.bool):
            dtype = _dtypes.bool
        elif isinstance(fill_value, int):
            dtype = _dtypes.default_int
        elif isinstance(fill_value, float):
            dtype = _dtypes.default_float
        else:
            raise TypeError(f"ember: full: fill_value {fill_value!r} is not a Python scalar")
    dtype = _dtypes.check(dtype)
    if dtype.kind == "i" and _elementwise._is_big_int(fill_value):
        # Past 2**53 the double that Full takes would round: zeros plus the exact 0-d value
        # (one fused op), as the elementwise functions pass such ints.
        zero = zeros(shape, dtype=dtype, device=device)
        return zero + _elementwise._exact_int(fill_value, zero)
    return Tensor(_ember.full(_shape(shape, "full"), float(fill_value), dtype.code,
                              _device(device)))


def zeros_like(x, /, *, dtype=None, device=None):
    return zeros(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def ones_like(x, /, *, dtype=None, device=None):
    return ones(x.shape, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def empty_like(x, /, *, dtype=None, device=None):
    return zeros_like(x, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return full(x.shape, fill_value, dtype=_dtype_or(dtype, x.dtype), device=device or x.device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    values = np.arange(start, stop, step)
    if dtype is None and values.dtype.kind == "f":
        dtype = _dtypes.default_float
    elif dtype is None:
        dtype = _dtypes.default_int
    return _from_numpy(values, dtype, _device(device))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    values = np.linspace(start, stop, num, endpoint=endpoint)
    return _from_numpy(values, _dtype_or(dtype, _dtypes.default_float), _device(device))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    values = np.eye(n_rows, n_cols, k)
    return _from_numpy(values, _dtype_or(dtype, _dtypes.default_float), _device(device))


def random_uniform(shape, low=0.0, high=1.0, *, dtype=None, device=None):
    """Not in the standard: ember's RandomUniform (seeded by ember.seed)."""
    dtype = _dtype_or(dtype, _dtypes.default_float)
    return Tensor(_ember.random_uniform(_shape(shape, "random_uniform"), dtype.code,
                                        _device(device), float(low), float(high)))


def random_normal(shape, mean=0.0, std=1.0, *, dtype=None, device=None):
    """Not in the standard: ember's RandomNormal (seeded by ember.seed)."""
    dtype = _dtype_or(dtype, _dtypes.default_float)
    return Tensor(_ember.random_normal(_shape(shape, "random_normal"), dtype.code,
                                       _device(device), float(mean), float(std)))
