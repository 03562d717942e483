"""Creation functions, dtypes and devices: values and dtypes against NumPy, and the standard's
defaults (Python floats are float32 here, ember having no float64)."""

import numpy as np
import pytest

import ember
from conftest import check


def test_asarray_from_python_data_uses_the_default_dtypes():
    assert ember.asarray([1.5, 2.0]).dtype == ember.float32
    assert ember.asarray([1, 2]).dtype == ember.int64
    assert ember.asarray([True, False]).dtype == ember.bool
    assert ember.asarray(3.0).shape == ()
    check(ember.asarray([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))


@pytest.mark.parametrize("np_dtype,dtype", [(np.float32, ember.float32),
                                            (np.float16, ember.float16),
                                            (np.float64, ember.float32),
                                            (np.int32, ember.int32), (np.int64, ember.int64),
                                            (np.uint8, ember.int32), (np.bool_, ember.bool)])
def test_asarray_from_numpy_keeps_or_widens_the_dtype(np_dtype, dtype, rng):
    a = (rng.standard_normal((3, 4)) * 10).astype(np_dtype)
    t = ember.asarray(a)
    assert t.dtype == dtype
    check(t, a.astype(np.float64) if a.dtype.kind == "f" else a, rtol=1e-3 if np_dtype ==
          np.float16 else 1e-6)


def test_asarray_of_a_strided_numpy_view(rng):
    a = rng.standard_normal((4, 6))
    check(ember.asarray(a[::2, ::-3]), a[::2, ::-3])
    check(ember.asarray(a.T), a.T)


def test_asarray_with_dtype_casts(rng):
    a = rng.standard_normal(5)
    check(ember.asarray(a, dtype=ember.bfloat16), a, rtol=1e-2)
    check(ember.asarray([1.7, -2.2], dtype=ember.int32), np.array([1, -2]))
    assert ember.asarray(ember.asarray([1, 2]), dtype=ember.float16).dtype == ember.float16


def test_zeros_ones_full_empty():
    check(ember.zeros((2, 3)), np.zeros((2, 3)))
    check(ember.ones(4, dtype=ember.int32), np.ones(4, np.int32))
    check(ember.full((2, 2), 7), np.full((2, 2), 7))
    assert ember.full((2,), 7).dtype == ember.int64
    assert ember.full((2,), 7.5).dtype == ember.float32
    assert ember.full((2,), True).dtype == ember.bool
    assert ember.empty((3, 1)).shape == (3, 1)
    x = ember.asarray([[1.0, 2.0]])
    check(ember.zeros_like(x), np.zeros((1, 2)))
    check(ember.ones_like(x, dtype=ember.int64), np.ones((1, 2), np.int64))
    check(ember.full_like(x, 3.0), np.full((1, 2), 3.0))


def test_arange_linspace_eye():
    check(ember.arange(5), np.arange(5))
    assert ember.arange(5).dtype == ember.int64
    check(ember.arange(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25))
    check(ember.arange(10, 0, -3, dtype=ember.int32), np.arange(10, 0, -3))
    check(ember.linspace(0, 1, 5), np.linspace(0, 1, 5))
    check(ember.eye(3, 4, k=1), np.eye(3, 4, k=1))


def test_dtype_objects():
    assert ember.float32 == ember.float32 and ember.float32 != ember.int32
    assert ember.isdtype(ember.int64, "integral")
    assert ember.isdtype(ember.float16, ("bool", "real floating"))
    assert not ember.isdtype(ember.bool, "numeric")
    assert repr(ember.bfloat16) == "ember.bfloat16"


def test_devices():
    t = ember.zeros((2,), device="cpu")
    assert t.device == "cpu"
    assert t.__dlpack_device__() == (1, 0)
    assert t.to_device("cpu") is t
    with pytest.raises(ValueError, match="not a device name"):
        ember.zeros((2,), device="tpu")
    with pytest.raises(TypeError, match="not a device name"):
        ember.zeros((2,), device=0)


def test_cuda_device_says_why_where_no_gpu_is_usable():
    try:
        t = ember.ones((2,), device="cuda:0")
    except RuntimeError as e:
        assert "cuda" in str(e).lower()
        return
    # A machine with a GPU: the tensor lives there and reads back through the host.
    assert t.device == "cuda:0"
    check(t, np.ones(2))
    check(t.to_device("cpu") + 1.0, np.full(2, 2.0))


def test_random_is_seeded():
    ember.seed(7)
    a = np.asarray(ember.random_uniform((100,), -1.0, 1.0))
    ember.seed(7)
    b = np.asarray(ember.random_uniform((100,), -1.0, 1.0))
    np.testing.assert_array_equal(a, b)
    assert a.min() >= -1.0 and a.max() < 1.0
    n = np.asarray(ember.random_normal((4000,), 2.0, 0.5))
    assert abs(n.mean() - 2.0) < 0.05 and abs(n.std() - 0.5) < 0.05


def test_reading_values():
    t = ember.asarray([[1, 2], [3, 4]], dtype=ember.int32)
    assert t.tolist() == [[1, 2], [3, 4]]
    assert int(t[1, 0]) == 3
    assert float(ember.asarray(2.5)) == 2.5
    assert bool(ember.asarray(True))
    assert len(t) == 2
    assert [r.tolist() for r in t] == [[1, 2], [3, 4]]
    a = np.asarray(t)
    assert not a.flags.writeable  # a view of ember's memory, which ember never changes
    assert np.array(t).flags.writeable  # np.array copies
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    check(ember.asarray([1.5], dtype=ember.bfloat16), np.array([1.5]))
