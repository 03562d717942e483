"""Reductions with axis and keepdims, against NumPy in float64."""

import numpy as np
import pytest

import ember
from conftest import check

AXES = [None, 0, 1, -1, (0, 2), (0, 1, 2), ()]


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions(name, axis, keepdims, rng):
    x = rng.standard_normal((3, 4, 5)) * 0.5 + 1.0
    got = getattr(ember, name)(ember.asarray(x), axis=axis, keepdims=keepdims)
    check(got, getattr(np, name)(x, axis=axis, keepdims=keepdims), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_reductions(name, axis, keepdims, rng):
    x = rng.standard_normal((4, 6))
    got = getattr(ember, name)(ember.asarray(x), axis=axis, keepdims=keepdims)
    assert got.dtype == ember.int64
    check(got, getattr(np, name)(x, axis=axis, keepdims=keepdims))


def test_argmax_takes_the_first_of_equal_values():
    check(ember.argmax(ember.asarray([1, 3, 3, 2])), np.array(1))


def test_int_and_bool_sums_accumulate_in_int64():
    i32 = ember.asarray(np.full((1000,), 3_000_000, np.int32))
    s = ember.sum(i32)
    assert s.dtype == ember.int64
    assert int(s) == 3_000_000_000
    b = ember.asarray(np.arange(10) % 3 == 0)
    assert ember.sum(b).dtype == ember.int64 and int(ember.sum(b)) == 4
    assert ember.sum(ember.asarray([1.0, 2.0]), dtype=ember.float16).dtype == ember.float16
    check(ember.max(ember.asarray([[1, 7], [9, 2]]), axis=1), np.array([7, 9]))


def test_reductions_of_0d_tensors():
    x = ember.asarray(2.5)
    check(ember.sum(x), np.array(2.5))
    check(ember.max(x, keepdims=True), np.array(2.5))
    check(ember.argmax(x), np.array(0))


def test_bad_axes():
    x = ember.asarray(np.ones((2, 3)))
    with pytest.raises(IndexError, match="out of range"):
        ember.sum(x, axis=2)
    with pytest.raises(ValueError, match="twice"):
        ember.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="float dtype"):
        ember.mean(ember.asarray([1, 2]))
    with pytest.raises(TypeError, match="int"):
        ember.argmax(x, axis=(0, 1))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_any_all_var_std(axis, keepdims, rng):
    x = rng.standard_normal((4, 5)) * 2.0 + 1.0
    t = ember.asarray(x)
    b = np.round(x) > 0
    check(ember.any(ember.asarray(b), axis=axis, keepdims=keepdims),
          np.any(b, axis=axis, keepdims=keepdims))
    check(ember.all(ember.asarray(b), axis=axis, keepdims=keepdims),
          np.all(b, axis=axis, keepdims=keepdims))
    check(ember.var(t, axis=axis, keepdims=keepdims), np.var(x, axis=axis, keepdims=keepdims),
          rtol=1e-5)
    check(ember.std(t, axis=axis, correction=1, keepdims=keepdims),
          np.std(x, axis=axis, ddof=1, keepdims=keepdims), rtol=1e-5)


def test_vecdot(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    check(ember.vecdot(ember.asarray(a), ember.asarray(b)), a @ b, rtol=1e-5)
    check(ember.vecdot(ember.asarray(a), ember.asarray(a), axis=0), np.sum(a * a, axis=0),
          rtol=1e-5)
