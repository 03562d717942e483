"""Zero-copy exchange: np.from_dlpack / torch.from_dlpack / np.asarray take ember's memory
without a copy and keep it alive; ember.from_dlpack takes NumPy arrays and PyTorch tensors (their
memory is borrowed without a copy: test_dlpack_import.py)."""

import gc
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


def test_numpy_from_dlpack_shares_embers_memory(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    t = ember.exp(ember.asarray(x))  # queued: the export runs it
    a = np.from_dlpack(t)
    np.testing.assert_allclose(a, np.exp(x), rtol=1e-6)
    # The same memory as every other view of t: no copy was made.
    assert address(a) == address(np.from_dlpack(t)) == address(np.asarray(t))


def test_exported_views_read_as_their_values(rng):
    # A view may be exported with its strides (a transpose: tests/api/memory_test.cpp) or
    # computed into a buffer of its own; either way the consumer reads the view's values.
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(np.from_dlpack(ember.permute_dims(ember.asarray(x), (1, 0))),
                                  x.T)
    np.testing.assert_array_equal(np.from_dlpack(ember.asarray(x)[::-1, 1::2]), x[::-1, 1::2])
    np.testing.assert_array_equal(np.from_dlpack(ember.broadcast_to(ember.asarray(x[0]), (2, 4))),
                                  np.broadcast_to(x[0], (2, 4)))


def test_exported_memory_outlives_the_tensor():
    t = ember.full((1000,), 3.0) + 1.0
    a = np.from_dlpack(t)
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None
    # New tensors of the same size must not land on the memory NumPy still holds.
    others = [ember.full((1000,), float(i)) * 2.0 for i in range(8)]
    for o in others:
        np.asarray(o)
    np.testing.assert_array_equal(a, np.full(1000, 4.0, np.float32))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.int32, ember.int64])
def test_dlpack_dtypes(dtype):
    t = ember.asarray([1, 2, 3], dtype=dtype)
    a = np.from_dlpack(t)
    assert a.dtype == ember._dtypes.to_numpy(dtype)
    np.testing.assert_array_equal(a, [1, 2, 3])


def test_bool_goes_out_as_dlpack_bool():
    # DLPack 0.8's kDLBool (code 6): ember reads it back; NumPy 1.24 and PyTorch 1.13 know no
    # bool code and refuse it, so np.asarray(t) is their way.
    t = ember.asarray([True, False, True])
    back = ember.from_dlpack(DLPackOnly(t))
    assert back.dtype == ember.bool
    np.testing.assert_array_equal(np.asarray(back), [True, False, True])
    np.testing.assert_array_equal(np.asarray(t), [True, False, True])


def test_an_unconsumed_capsule_frees_its_memory():
    t = ember.ones((4,))
    capsule = t.__dlpack__()
    del capsule  # the capsule's destructor calls the deleter (a leak or crash would show in ASan)
    check(t, np.ones(4))


def test_ember_from_dlpack_of_numpy(rng):
    x = rng.standard_normal((5, 3)).astype(np.float32)
    check(ember.from_dlpack(x), x.astype(np.float64))
    check(ember.from_dlpack(x[::-2, 1:]), x[::-2, 1:].astype(np.float64))
    check(ember.from_dlpack(np.asarray(ember.asarray(x))), x.astype(np.float64))  # read-only
    with pytest.raises(TypeError, match="float64"):
        ember.from_dlpack(x.astype(np.float64))
    t = ember.asarray(x)
    assert ember.from_dlpack(t) is t


@needs_torch
def test_torch_from_dlpack_shares_embers_memory(rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    t = ember.tanh(ember.asarray(x))
    p = torch.from_dlpack(t)
    assert p.data_ptr() == address(np.asarray(t))
    np.testing.assert_allclose(p.numpy(), np.tanh(x), rtol=1e-6)
    del t
    gc.collect()
    np.testing.assert_allclose(p.numpy(), np.tanh(x), rtol=1e-6)  # still alive
    b = torch.from_dlpack(ember.asarray([1.0, 2.0], dtype=ember.bfloat16))
    assert b.dtype == torch.bfloat16 and b.tolist() == [1.0, 2.0]


@needs_torch
def test_ember_from_dlpack_of_torch():
    p = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    check(ember.from_dlpack(p), p.numpy())
    check(ember.from_dlpack(p.t()), p.t().numpy())
    check(ember.from_dlpack(p.to(torch.bfloat16)), p.numpy())
    assert ember.from_dlpack(p.to(torch.int32)).dtype == ember.int32
    check(ember.asarray(p), p.numpy())  # asarray takes DLPack producers too
    with pytest.raises(TypeError, match="no ember dtype"):
        ember.from_dlpack(p.to(torch.float64))


@needs_torch
def test_round_trip_through_torch():
    t = ember.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    back = ember.from_dlpack(torch.from_dlpack(t) * 2)
    check(back, np.arange(6).reshape(2, 3) * 2.0)


def test_array_takes_numpys_copy_keyword():
    t = ember.asarray([[1.0, 2.0], [3.0, 4.0]])
    view = t.__array__(copy=False)
    assert not view.flags.writeable
    assert np.shares_memory(view, np.asarray(t))
    copied = t.__array__(copy=True)
    assert copied.flags.writeable and not np.shares_memory(copied, view)
    np.testing.assert_array_equal(copied, view)
    np.testing.assert_array_equal(t.__array__(np.float16, copy=None), view.astype(np.float16))
    with pytest.raises(ValueError, match="copy=False"):
        t.__array__(np.float16, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        ember.astype(t, ember.bfloat16).__array__(copy=False)
