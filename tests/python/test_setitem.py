"""`t[key] = value` (Note [Assignment by rebinding], engine/python/ember/_indexing.py): the
element values NumPy's assignment gives, for every kind of key ember's indexing takes, a bool
mask and a 1-D int tensor; the Tensor object takes the new tensor and what held the old one keeps
its values; and the errors."""

import numpy as np
import pytest

import ember
from conftest import check

KEYS = [
    np.s_[1], np.s_[-1], np.s_[1:3], np.s_[::2], np.s_[::-1], np.s_[3:0:-2], np.s_[-2:],
    np.s_[:, 1], np.s_[:, ::-2, 1:5:3], np.s_[..., 2], np.s_[1, ..., ::-1], np.s_[None, 1],
    np.s_[:, None, 2:], np.s_[1, 2, 3], np.s_[...], np.s_[2, :, -1], np.s_[-4:-1, -5::4, 5:-7:-3],
]


@pytest.fixture
def x(rng):
    return rng.standard_normal((5, 6, 7)).astype(np.float32)


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_a_tensor_value_lands_where_numpy_puts_it(x, rng, key):
    want = x.copy()
    value = rng.standard_normal(want[key].shape).astype(np.float32)
    want[key] = value
    t = ember.asarray(x)
    t[key] = ember.asarray(value)
    check(t, want, rtol=0, atol=0)


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_a_python_scalar_fills_the_indexed_elements(x, key):
    want = x.copy()
    want[key] = -2.5
    t = ember.asarray(x)
    t[key] = -2.5
    check(t, want, rtol=0, atol=0)


def test_a_value_broadcasts_to_the_indexed_shape(x):
    want = x.copy()
    row = np.arange(7, dtype=np.float32)
    want[1:3] = row
    t = ember.asarray(x)
    t[1:3] = ember.asarray(row)
    check(t, want, rtol=0, atol=0)
    want[:, 2:4, :] = np.float32(9)
    t[:, 2:4, :] = ember.asarray(np.float32(9))
    check(t, want, rtol=0, atol=0)


def test_a_bool_mask_selects_the_elements(x):
    want = x.copy()
    want[x < 0] = 0
    t = ember.asarray(x)
    t[t < 0] = 0.0
    check(t, want, rtol=0, atol=0)
    other = np.full_like(x, 7)
    want[x > 1] = other[x > 1]
    t[ember.asarray(x > 1)] = ember.asarray(other)
    check(t, want, rtol=0, atol=0)


def test_a_1d_int_tensor_sets_rows_and_the_last_repeat_wins(x, rng):
    idx = np.array([3, 0, -1, 3])
    value = rng.standard_normal((4, 6, 7)).astype(np.float32)
    want = x.copy()
    want[idx] = value
    t = ember.asarray(x)
    t[ember.asarray(idx)] = ember.asarray(value)
    check(t, want, rtol=0, atol=0)


def test_int_tensors_keep_exact_values():
    x = np.arange(24, dtype=np.int64).reshape(4, 6)
    want = x.copy()
    want[::2, 1] = 2**60 + 1
    t = ember.asarray(x)
    t[::2, 1] = 2**60 + 1
    check(t, want)
    xi = x.astype(np.int32)
    want = xi.copy()
    want[1] = np.arange(6, dtype=np.int32) * -3
    ti = ember.asarray(xi)
    ti[1] = ember.asarray(np.arange(6, dtype=np.int32) * -3)
    check(ti, want)


def test_a_value_of_another_dtype_is_cast_as_numpy_casts(x):
    want = x.copy()
    want[0] = np.arange(7)
    t = ember.asarray(x)
    t[0] = ember.asarray(np.arange(7))  # int64 into float32
    check(t, want, rtol=0, atol=0)


def test_numpy_arrays_lists_and_numpy_scalars_are_values(x):
    want = x.copy()
    want[1:3, 0, :] = np.arange(7)
    want[0, 0] = [1, 2, 3, 4, 5, 6, 7]
    want[4] = np.float32(0.5)
    t = ember.asarray(x)
    t[1:3, 0, :] = np.arange(7)
    t[0, 0] = [1, 2, 3, 4, 5, 6, 7]
    t[4] = np.float32(0.5)
    check(t, want, rtol=0, atol=0)
    with pytest.raises(ValueError, match="broadcast"):
        t[0] = np.ones(5)
    ti = ember.asarray(np.arange(6, dtype=np.int32))
    with pytest.raises(TypeError, match="whole number"):
        ti[0] = 2.5  # NumPy truncates; ember refuses a fractional int, as full does


def test_a_0d_tensor_takes_a_value():
    t = ember.asarray(np.float32(3))
    t[()] = 5.0
    check(t, np.float32(5))
    t[...] = ember.asarray(np.float32(6))
    check(t, np.float32(6))


def test_the_object_takes_the_new_tensor_and_older_holders_keep_the_old(x):
    t = ember.asarray(x)
    same = t
    before = t[1:3]  # a slice taken before the assignment
    exported = np.asarray(t)
    t[1:3] = 0.0
    assert same is t
    check(same[1:3], np.zeros((2, 6, 7), np.float32))
    check(before, x[1:3], rtol=0, atol=0)
    np.testing.assert_array_equal(exported, x)


def test_an_empty_selection_assigns_nothing(x):
    t = ember.asarray(x)
    t[3:1] = 1.0
    check(t, x, rtol=0, atol=0)


def test_assignment_is_queued_ops_and_fuses_in_a_loop(x):
    # The same assignment every step: the second and later steps explore nothing new.
    t = ember.asarray(x)
    for _ in range(3):
        t[:, 1:3] = t[:, 1:3] * 2.0
    ember.sync()
    before = ember.stats()["explorations"]
    for _ in range(3):
        t[:, 1:3] = t[:, 1:3] * 2.0
    np.asarray(t)
    assert ember.stats()["explorations"] == before
    want = x.copy()
    want[:, 1:3] *= 64
    check(t, want)


def test_errors(x):
    t = ember.asarray(x)
    with pytest.raises(IndexError, match="out of range"):
        t[5] = 1.0
    with pytest.raises(IndexError, match="too many"):
        t[1, 2, 3, 4] = 1.0
    with pytest.raises(IndexError):
        t[1.5] = 1.0
    with pytest.raises(ValueError, match="broadcast"):
        t[1] = ember.asarray(np.ones((5,), np.float32))
    with pytest.raises(IndexError, match="same shape"):
        t[ember.asarray(np.ones((5,), bool))] = 1.0
    with pytest.raises(IndexError, match="out of range"):
        t[ember.asarray(np.array([0, 5]))] = 1.0
    with pytest.raises(IndexError, match="1-D int or a bool"):
        t[ember.asarray(np.ones((2, 2), np.int64))] = 1.0
    # Nothing above changed t.
    check(t, x, rtol=0, atol=0)
