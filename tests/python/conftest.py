"""Shared setup of the Python module's tests. The test processes keep their plans in memory
(EMBER_PLAN_DB=off; ember reads it once, when the first device starts), so they never touch
./.ember and can run side by side; the plan-database tests start processes of their own on
databases in pytest's temporary directories (test_plan_database.py)."""

import os

import numpy as np
import pytest

os.environ["EMBER_PLAN_DB"] = "off"

import ember  # noqa: E402  (after the environment is set)


@pytest.fixture
def rng():
    return np.random.default_rng(48)


@pytest.fixture
def no_host_reads(monkeypatch):
    """For tests of lazy compositions: makes every way of reading values back (to_numpy,
    DLPack export, sync) raise."""
    def refuse(*args, **kwargs):
        raise AssertionError("a host read or sync")
    for name in ("to_numpy", "to_dlpack", "sync"):
        monkeypatch.setattr(ember._ember, name, refuse)
    return monkeypatch


def check(got, want, rtol=1e-5, atol=1e-6):
    """`got` (an ember tensor) against `want` (NumPy, computed in float64): shape, then values."""
    assert isinstance(got, ember.Tensor)
    values = np.asarray(got)
    want = np.asarray(want)
    assert values.shape == want.shape, f"shape {values.shape} != {want.shape}"
    if want.dtype == np.bool_ or want.dtype.kind in "iu":
        np.testing.assert_array_equal(values, want)
    else:
        np.testing.assert_allclose(values.astype(np.float64), want, rtol=rtol, atol=atol)


def floats(values, name):
    """`values` as an ember tensor of float dtype `name` ("float32", "float16", "bfloat16"),
    and the values it holds (float64)."""
    x = np.asarray(values, np.float64)
    if name == "float16":
        with np.errstate(over="ignore"):  # values past 65504 are inf in float16
            t = ember.asarray(x.astype(np.float16))
    else:
        t = ember.asarray(x.astype(np.float32))
        if name == "bfloat16":
            t = ember.astype(t, ember.bfloat16)
    return t, np.asarray(t).astype(np.float64)


# The dtypes the arrangement and mask tests cover, NumPy's beside ember's.
DTYPES = [np.float32, np.int32, np.int64, np.bool_]
EMBER = {np.float32: ember.float32, np.int32: ember.int32, np.int64: ember.int64,
         np.bool_: ember.bool}


def data(rng, shape, dtype):
    """Values of `dtype` with both signs (bool: both values)."""
    if dtype is np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    v = rng.integers(-9, 10, size=shape)
    return v > 0 if dtype is np.bool_ else v.astype(dtype)


class DLPackOnly:
    """A producer with only the DLPack protocol of `x`: ember.from_dlpack takes NumPy arrays
    through the array and returns ember tensors themselves, so this is how a test sends their
    memory through a DLPack capsule instead."""

    def __init__(self, x):
        self._x = x

    def __dlpack__(self, stream=None):
        return self._x.__dlpack__()

    def __dlpack_device__(self):
        return self._x.__dlpack_device__()


def address(a):
    """The address of NumPy array `a`'s element [0, ..., 0]."""
    return a.__array_interface__["data"][0]
