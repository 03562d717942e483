"""Defects a review of the Python module found (issue 48), one test each: every test failed (or
crashed the process, hence the subprocesses) before its fix."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # python3-torch is a test dependency only
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (python3-torch) is not installed")


def _run_isolated(program):
    """Runs `program` in a process of its own (a crash there is a failure here, not an abort of
    the test run); returns its stdout."""
    env = dict(os.environ, EMBER_PLAN_DB="off")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(program)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr}"
    return out.stdout


# --- 1. Reversed views through DLPack ---------------------------------------------------------
@needs_torch
def test_torch_from_dlpack_of_a_reversed_view_gets_a_compact_copy():
    out = _run_isolated("""
        import ember, torch
        f = ember.flip(ember.asarray([1., 2., 3.]))
        print(torch.from_dlpack(f).tolist())
        t = ember.reshape(ember.arange(6, dtype=ember.float32), (2, 3))
        v = torch.from_dlpack(t[:, ::-1])
        print(v.tolist(), all(s >= 0 for s in v.stride()))
    """)
    assert out.split("\n")[:2] == ["[3.0, 2.0, 1.0]", "[[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]] True"]


def test_numpy_from_dlpack_stays_zero_copy_and_reads_reversed_views():
    t = ember.asarray([1., 2., 3.])
    a = np.from_dlpack(t)
    assert a.__array_interface__["data"][0] == np.asarray(t).__array_interface__["data"][0]
    r = np.from_dlpack(ember.flip(t))
    np.testing.assert_array_equal(r, [3., 2., 1.])
    assert all(s >= 0 for s in r.strides)


# --- 2. Capsules that are not DLPack 0.6 ones -------------------------------------------------
@pytest.mark.parametrize("name", [None, b"dltensor_versioned"])
def test_from_dlpack_of_a_foreign_capsule_says_what_it_got(name):
    out = _run_isolated(f"""
        import ctypes, ember
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        class P:
            def __dlpack__(self, stream=None):
                return new(1, {name!r}, None)
            def __dlpack_device__(self):
                return (1, 0)
        try:
            ember.from_dlpack(P())
        except TypeError as e:
            print(e)
    """)
    assert "capsule named" in out
    assert ("NULL" if name is None else "dltensor_versioned") in out
    assert "consumed" not in out


# --- 3. Integers past int64 -------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: ember.asarray([2**63]),
    lambda: ember.asarray(2**63),
    lambda: ember.asarray([-1, 2**63]),
    lambda: ember.asarray([2**64]),
    lambda: ember.asarray(np.array([2**63 + 5], np.uint64)),
    lambda: ember.asarray(np.array([2**40]), dtype=ember.int32),
])
def test_asarray_refuses_integers_that_do_not_fit(make):
    with pytest.raises(OverflowError, match="does not fit"):
        make()


def test_asarray_takes_uint64_data_that_fits_int64():
    t = ember.asarray(np.array([5, 2**63 - 1], np.uint64))
    assert t.dtype == ember.int64 and t.tolist() == [5, 2**63 - 1]
    assert ember.asarray([-2**63]).tolist() == [-2**63]


# --- 4. Python scalars with int tensors -------------------------------------------------------
def test_python_ints_must_fit_the_int_tensors_dtype():
    a = ember.asarray(np.array([-7, 3], np.int32))
    for op in (lambda: a + 2**40, lambda: a + 2**31, lambda: 2**31 * a):
        with pytest.raises(OverflowError, match="does not fit"):
            op()
    assert (a + 5).dtype == ember.int32 and (a + 5).tolist() == [-2, 8]
    assert (a - (-2**31)).dtype == ember.int32


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("scalar", [2**31, 2**40, -2**31 - 1, -2**40, 2**63, -2**63 - 1, 2**70])
def test_comparisons_with_ints_beyond_the_dtype_are_exact(dtype, scalar):
    # NumPy 2 compares them exactly (every element is below or above); ember raised OverflowError.
    info = np.iinfo(dtype)
    if info.min <= scalar <= info.max:
        pytest.skip("fits the dtype")
    x = np.array([info.min, -7, 0, 3, info.max], dtype)
    t = ember.asarray(x)
    ops = [lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b, lambda a, b: a <= b,
           lambda a, b: a > b, lambda a, b: a >= b]
    for op in ops:
        want = [op(int(v), scalar) for v in x]
        assert op(t, scalar).tolist() == want
        assert op(scalar, t).tolist() == [op(scalar, int(v)) for v in x]
    assert ember.less(t, scalar).dtype == ember.bool


def test_python_floats_with_int_tensors_give_the_default_float():
    a = ember.asarray(np.array([-7, 3], np.int32))
    for got in (a + 2.0, 2.0 + a, a * 1e10):
        assert got.dtype == ember.float32
    np.testing.assert_array_equal(np.asarray(a + 2.0), [-5., 5.])
    np.testing.assert_allclose(np.asarray(a * 1e10), [-7e10, 3e10], rtol=1e-6)


def test_python_ints_past_2_53_are_exact_with_int64_tensors():
    big = 2**53 + 1
    assert (ember.asarray([0]) + big).tolist() == [big]
    assert (big - ember.asarray([1])).tolist() == [big - 1]
    assert (ember.asarray([big]) == big).tolist() == [True]
    t = ember.where(ember.asarray([True, False]), ember.asarray([1, 2]), 2**60 + 1)
    assert t.tolist() == [1, 2**60 + 1]


def test_full_and_clip_keep_python_ints_past_2_53_exact():
    # Both took the value as a double: 2**60 + 1 came back as 2**60.
    big = 2**60 + 1
    assert ember.full((2, 3), big, dtype=ember.int64).tolist() == [[big] * 3] * 2
    assert ember.full((2,), -big, dtype=ember.int64).tolist() == [-big, -big]
    assert ember.full((2,), big).dtype == ember.int64
    with pytest.raises(OverflowError):
        ember.full((2,), 2**70, dtype=ember.int64)
    a = np.array([big, 5, -big], np.int64)
    t = ember.asarray(a)
    for lo, hi in ((big + 2, None), (None, big - 2), (-big + 1, big - 1), (1, 3)):
        assert ember.clip(t, lo, hi).tolist() == np.clip(a, lo, hi).tolist()
    # A bound outside an int32 tensor's range clips nothing (or everything); it wrapped (to 0).
    small = ember.asarray(np.array([-7, 3], np.int32))
    assert ember.clip(small, None, 2**60).tolist() == [-7, 3]
    assert ember.clip(small, -2**60, 0).tolist() == [-7, 0]
    assert ember.clip(small, 2**40, None).tolist() == [2**31 - 1] * 2


def test_remainder_by_an_infinite_divisor_matches_numpy():
    # ember's Rem (burn's x - y * floor(x / y)) gave NaN for every finite x over ±inf.
    a = np.array([5., -5., 0., -0., np.inf, np.nan, 5., -5., 3., 0., -7.5], np.float32)
    b = np.array([np.inf] * 6 + [-np.inf, -np.inf, 2., -np.inf, 2.], np.float32)
    with np.errstate(all="ignore"):
        want = np.remainder(a, b)
    for got in (ember.remainder(ember.asarray(a), ember.asarray(b)),
                ember.asarray(a) % ember.asarray(b)):
        got = np.asarray(got)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(np.asarray(ember.asarray(a) % np.inf),
                                  np.remainder(a, np.float32(np.inf)))
    np.testing.assert_array_equal(np.asarray(5.0 % ember.asarray(b)), np.remainder(5.0, b))


# --- 5. Float floor_divide's special values ---------------------------------------------------
def test_float_floor_divide_matches_numpy_on_zero_inf_and_nan():
    assert (ember.asarray([-7., 0., 7.]) // 0.0).tolist()[::2] == [-np.inf, np.inf]
    assert np.isnan((ember.asarray([-7., 0., 7.]) // 0.0).tolist()[1])
    values = [-7., -0.0, 0., 7., 2.5, -2.5, np.inf, -np.inf, np.nan, 1e30, 3., -3.]
    a, b = np.array([(x, y) for x in values for y in values], np.float32).T
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
    got = np.asarray(ember.asarray(a) // ember.asarray(b))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_float_floor_divide_of_ordinary_values(rng):
    x = (rng.standard_normal(1000) * 100).astype(np.float32)
    y = (rng.standard_normal(1000) * 3).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(ember.asarray(x) // ember.asarray(y)), x // y)


# --- 6. NaN in maximum, minimum and sign ------------------------------------------------------
def test_maximum_minimum_propagate_nan_from_either_side():
    x = np.array([1., np.nan, 3., np.nan], np.float32)
    y = np.array([np.nan, 1., 2., np.nan], np.float32)
    for fn, ref in ((ember.maximum, np.maximum), (ember.minimum, np.minimum)):
        np.testing.assert_array_equal(np.asarray(fn(ember.asarray(x), ember.asarray(y))), ref(x, y))
        np.testing.assert_array_equal(np.asarray(fn(np.nan, ember.asarray(x))), ref(np.nan, x))
        np.testing.assert_array_equal(np.asarray(fn(ember.asarray(x), 2.0)), ref(x, 2.0))


def test_sign_of_nan_is_nan():
    got = np.asarray(ember.sign(ember.asarray([np.nan, -2., 0., 3.])))
    np.testing.assert_array_equal(got, [np.nan, -1., 0., 1.])
    assert ember.sign(ember.asarray([-2, 0, 3])).tolist() == [-1, 0, 1]


# --- 7. Tensor indices: negative and out of range ---------------------------------------------
def test_tensor_index_wraps_negative_entries_and_refuses_out_of_range():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    x = ember.asarray(a)
    for idx in ([-1], [0, -3, 2], np.array([2, -1], np.int32)):
        np.testing.assert_array_equal(np.asarray(x[ember.asarray(idx)]), a[np.asarray(idx)])
    for idx in ([3], [-4], [0, 7]):
        with pytest.raises(IndexError, match="out of range"):
            x[ember.asarray(idx)]


# --- 8. Bool operators with Python bools, and xor ---------------------------------------------
def test_bool_operators_take_python_bools_on_either_side_and_xor():
    p = np.array([True, False, True, False])
    q = np.array([True, True, False, False])
    t, u = ember.asarray(p), ember.asarray(q)
    for got, want in ((t & True, p & True), (t | False, p | False), (True & t, True & p),
                      (False | t, False | p), (t ^ u, p ^ q), (t ^ True, p ^ True),
                      (True ^ t, True ^ p), (ember.logical_xor(t, u), np.logical_xor(p, q)),
                      (ember.logical_and(t, False), p & False)):
        assert got.dtype == ember.bool
        np.testing.assert_array_equal(np.asarray(got), want)
    # On int tensors they are the bitwise ops (test_bitwise.py).
    ints = ember.asarray([1, 2]) ^ ember.asarray([3, 4])
    np.testing.assert_array_equal(np.asarray(ints), [2, 6])


# --- 9. Big-endian NumPy data -----------------------------------------------------------------
@pytest.mark.parametrize("np_dtype, dtype", [(">f4", ember.float32), (">f8", ember.float32),
                                             (">f2", ember.float16), (">i4", ember.int32),
                                             (">i8", ember.int64)])
def test_big_endian_numpy_data_is_converted_to_native_order(np_dtype, dtype):
    a = np.arange(4, dtype=np_dtype)
    t = ember.asarray(a)
    assert t.dtype == dtype and t.tolist() == [0, 1, 2, 3]
    if np_dtype != ">f8":
        assert ember.from_dlpack(a).tolist() == [0, 1, 2, 3]


# --- 10. The docs say what DLPack export shares -----------------------------------------------
@needs_torch
def test_torch_from_dlpack_is_a_writable_alias_and_the_docs_say_so():
    t = ember.asarray([1., 2., 3.])
    alias = torch.from_dlpack(t)
    alias[0] = 10.0  # DLPack 0.6 has no read-only flag: the write reaches ember's memory
    assert t.tolist()[0] == 10.0
    api = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "API.md")).read()
    assert "DLPack export is a writable alias" in api
