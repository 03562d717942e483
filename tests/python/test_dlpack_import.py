"""ember.from_dlpack borrows host memory without a copy (ember::ImportMemory): the tensor is the
producer's memory (ember's export of it hands out the same address, and a write by the
producer is seen by reads that run after it), ember never writes it, the producer gets it back
once the last tensor reading it is gone, and memory the CPU cannot read in place is copied."""

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import ember
from conftest import DLPackOnly, address, check

try:
    import torch
except ImportError:  # python3-torch is a test dependency only
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (python3-torch) is not installed")


def _released(ref):
    """Whether the object behind weakref `ref` is gone, once ember ran the calling thread's
    queued drops (ember.sync gives borrowed memory back before it returns)."""
    ember.sync()
    gc.collect()
    return ref() is None


def test_numpy_memory_is_borrowed(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    t = ember.from_dlpack(a)
    assert address(np.from_dlpack(t)) == address(np.asarray(t)) == address(a)
    check(t, a.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.bool_])
def test_every_dtype_is_borrowed(dtype):
    a = (np.arange(6) % 2).astype(dtype)
    t = ember.from_dlpack(a, copy=False)
    assert address(np.asarray(t)) == address(a)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_strided_views_are_borrowed_with_their_strides(rng):
    x = rng.standard_normal((6, 5)).astype(np.float32)
    for view in (x.T, x[::-2, 1:], x[1:, ::3], np.broadcast_to(x[0], (4, 5))):
        t = ember.from_dlpack(view, copy=False)
        assert address(np.asarray(t)) == address(view)
        check(t, view.astype(np.float64))
        check(ember.sum(t * 2.0, axis=0), (view * 2.0).sum(axis=0, dtype=np.float64), rtol=1e-5)


def test_read_only_arrays_are_borrowed():
    # NumPy 1.24 exports no read-only array through DLPack: ember takes the array itself.
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    assert address(np.asarray(ember.from_dlpack(a, copy=False))) == address(a)
    exported = np.asarray(ember.asarray([1.0, 2.0]))  # ember's own memory, read-only
    assert address(np.asarray(ember.from_dlpack(exported, copy=False))) == address(exported)


def test_a_dlpack_capsule_is_borrowed():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = ember.from_dlpack(DLPackOnly(a), copy=False)
    assert address(np.from_dlpack(t)) == address(a)
    check(t, a)


def test_producer_writes_are_seen_by_reads_that_run_after_them():
    # The tensor aliases the producer's memory, as torch.from_dlpack does. ember is lazy: an op
    # reads the memory when it runs, not when it is queued; a sync runs what is queued.
    a = np.zeros(4, np.float32)
    t = ember.from_dlpack(a)
    a[:] = 5.0
    doubled = t * 2.0
    ember.sync()  # doubled is computed now, from 5.0
    a[:] = 7.0
    np.testing.assert_array_equal(np.asarray(doubled), np.full(4, 10.0))
    np.testing.assert_array_equal(np.asarray(t), np.full(4, 7.0))


def test_ember_never_writes_the_producers_memory():
    # The imported tensor's last use feeds elementwise ops (fused or not): an owned buffer
    # would take their result in place, a borrowed one never does.
    a = np.ones(4096, np.float32)
    y = ember.from_dlpack(a) + 1.0
    z = ember.exp(ember.from_dlpack(a) * 2.0) - ember.from_dlpack(a)
    w = -ember.from_dlpack(a.reshape(64, 64))
    np.testing.assert_array_equal(np.asarray(y), np.full(4096, 2.0))
    np.testing.assert_allclose(np.asarray(z), np.full(4096, np.exp(2.0) - 1.0), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(w), np.full((64, 64), -1.0))
    np.testing.assert_array_equal(a, np.ones(4096, np.float32))


def test_the_producer_gets_its_memory_back_after_the_last_tensor():
    a = np.arange(12, dtype=np.float32)
    ref = weakref.ref(a)
    t = ember.from_dlpack(a)
    view = ember.reshape(t, (3, 4))
    del a, t
    assert not _released(ref)  # the view still reads it
    exported = np.from_dlpack(view)
    del view
    assert not _released(ref)  # and so does NumPy's view of ember's export
    del exported
    assert _released(ref)


class CountedProducer:
    """A DLPack producer over `x` whose capsule's deleter counts its calls and the threads that
    make them (ctypes: DLPack 0.6's DLManagedTensor)."""

    class _Tensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device", ctypes.c_int32 * 2),
                    ("ndim", ctypes.c_int32), ("dtype", ctypes.c_uint8 * 4),
                    ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                    ("byte_offset", ctypes.c_uint64)]

    _Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class _Managed(ctypes.Structure):
        pass

    _Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p),
                         ("deleter", _Deleter)]

    def __init__(self, x):
        self._x = x
        self.calls = []
        self._callbacks = []  # alive until the producer is

    def __dlpack_device__(self):
        return self._x.__dlpack_device__()

    def __dlpack__(self, stream=None):
        capsule = self._x.__dlpack__()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        managed = self._Managed.from_address(get(capsule, b"dltensor"))
        slot = ctypes.addressof(managed) + self._Managed.deleter.offset
        original = self._Deleter(ctypes.c_void_p.from_address(slot).value)  # a copy, not a view

        def counting(p):
            self.calls.append(threading.get_ident())
            original(p)

        callback = self._Deleter(counting)
        self._callbacks.append(callback)
        managed.deleter = callback
        return capsule


def test_the_dlpack_deleter_runs_once_on_a_python_thread():
    producer = CountedProducer(np.arange(8, dtype=np.float32))
    t = ember.from_dlpack(producer)
    y = ember.exp(t)
    ember.sync()
    assert producer.calls == []  # t still reads it
    del t, y
    ember.sync()
    assert producer.calls == [threading.get_ident()]


def test_threads_borrow_and_give_back_side_by_side():
    arrays = [np.full(1000, float(i), np.float32) for i in range(8)]
    refs = [weakref.ref(a) for a in arrays]
    results, errors = {}, []

    def work(i):
        try:
            for _ in range(10):
                results[i] = float(ember.sum(ember.from_dlpack(arrays[i]) * 2.0))
            ember.sync()
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert results == {i: 2000.0 * i for i in range(8)}
    for i, a in enumerate(arrays):
        np.testing.assert_array_equal(a, np.full(1000, float(i)))
    del arrays, a
    assert all(_released(ref) for ref in refs)


def test_misaligned_memory_is_copied():
    raw = np.zeros(4 * 8 + 1, np.uint8)
    a = np.frombuffer(raw.data, np.float32, count=8, offset=1)  # one byte past float alignment
    raw[1:] = np.arange(8, dtype=np.float32).view(np.uint8)
    assert not a.flags.aligned
    t = ember.from_dlpack(a)
    assert address(np.asarray(t)) != address(a)
    check(t, np.arange(8))
    with pytest.raises(BufferError, match="not aligned"):
        ember.from_dlpack(a, copy=False)


def test_what_the_cpu_cannot_read_in_place_is_copied():
    packed = np.zeros(4, dtype=[("tag", np.int8), ("value", np.float32)])  # 5-byte records
    packed["value"] = [1, 2, 3, 4]
    check(ember.from_dlpack(packed["value"]), [1, 2, 3, 4])
    with pytest.raises(BufferError, match="no whole element"):
        ember.from_dlpack(packed["value"], copy=False)
    big = np.arange(4, dtype=">f4")
    check(ember.from_dlpack(big), [0, 1, 2, 3])
    with pytest.raises(BufferError, match="big-endian"):
        ember.from_dlpack(big, copy=False)
    a = np.arange(4, dtype=np.float32)
    copied = ember.from_dlpack(a, copy=True)
    assert address(np.asarray(copied)) != address(a)
    a[0] = 9.0
    check(copied, [0, 1, 2, 3])


def test_asarray_without_copy_borrows():
    a = np.arange(6, dtype=np.int64)
    assert address(np.asarray(ember.asarray(a, copy=False))) == address(a)
    with pytest.raises(ValueError, match="copy"):
        ember.asarray(np.arange(3, dtype=np.float64), copy=False)
    with pytest.raises(ValueError, match="copy"):
        ember.asarray([1.0, 2.0], copy=False)
    with pytest.raises(ValueError, match="copy"):
        ember.asarray(a, dtype=ember.int32, copy=False)


@needs_torch
def test_torch_memory_is_borrowed():
    p = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    for view in (p, p.t(), p[:, 1::2]):
        t = ember.from_dlpack(view, copy=False)
        assert torch.from_dlpack(t).data_ptr() == view.data_ptr()
        check(t, view.numpy())
    b = p.to(torch.bfloat16)
    assert torch.from_dlpack(ember.from_dlpack(b, copy=False)).data_ptr() == b.data_ptr()
    t = ember.from_dlpack(p)
    p[0, 0] = 100.0  # an alias: seen by reads that run afterwards
    assert float(t[0, 0]) == 100.0
    y = ember.from_dlpack(p) + 1.0  # the import's last use
    np.testing.assert_array_equal(np.asarray(y)[0], [101, 2, 3, 4])
    assert p[0].tolist() == [100, 1, 2, 3]


@needs_torch
def test_torch_gets_its_memory_back():
    producer = CountedProducer(torch.arange(6, dtype=torch.float32))
    t = ember.from_dlpack(producer)
    check(t * 2.0, np.arange(6) * 2.0)
    assert producer.calls == []
    del t
    ember.sync()
    assert producer.calls == [threading.get_ident()]


_AT_EXIT = textwrap.dedent("""
    import threading, numpy as np, ember
    kept = ember.from_dlpack(np.ones(1000, np.float32)) + 1.0  # alive at exit
    borrowed = ember.from_dlpack(np.ones(1000, np.float32))    # still borrowed at exit

    def work():
        for _ in range(20):
            t = ember.from_dlpack(np.ones(1000, np.float32))
            float(ember.sum(t))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    print(float(ember.sum(kept)))
""")


def test_the_interpreter_exits_with_borrowed_memory():
    env = dict(os.environ, EMBER_PLAN_DB="off")
    out = subprocess.run([sys.executable, "-c", _AT_EXIT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2000.0"
