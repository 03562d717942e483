"""Reads whose shape depends on values (Note [Reading by a bool mask],
engine/python/ember/_indexing.py): `t[mask]` with a bool tensor of t's shape or of its leading
dims, and nonzero, against NumPy; both read the mask (or the tensor) back first. And the errors,
among them the empty results ember cannot hold."""

import numpy as np
import pytest

import ember
from conftest import DTYPES, EMBER, check, data


# (tensor shape, mask shape): the whole shape or leading dims.
MASKED = [((7,), (7,)), ((3, 4), (3, 4)), ((3, 4), (3,)), ((2, 3, 4), (2, 3, 4)),
          ((2, 3, 4), (2, 3)), ((2, 3, 4), (2,)), ((5, 1, 3), (5, 1))]


@pytest.mark.parametrize("shape,mask_shape", MASKED, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_a_bool_mask_takes_what_numpy_takes(shape, mask_shape, dtype, rng):
    x = data(rng, shape, dtype)
    mask = rng.random(mask_shape) < 0.5
    mask.flat[0] = True  # at least one entry
    got = ember.asarray(x)[ember.asarray(mask)]
    assert got.dtype == EMBER[dtype]
    check(got, x[mask], rtol=0, atol=0)


def test_a_mask_computed_from_the_tensor(rng):
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    t = ember.asarray(x)
    check(t[t > 0.5], x[x > 0.5], rtol=0, atol=0)
    sums = ember.sum(t, axis=2)
    check(t[sums > 0], x[np.asarray(sums) > 0], rtol=0, atol=0)
    check(t[t > -100], x.reshape(-1), rtol=0, atol=0)  # every entry
    check(t, x, rtol=0, atol=0)  # reading changed nothing


def test_a_0d_mask_adds_a_dim(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    check(ember.asarray(x)[ember.asarray(True)], x[np.True_], rtol=0, atol=0)
    check(ember.asarray(np.float32(2))[ember.asarray(True)], np.array([2.0]))
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.asarray(x)[ember.asarray(False)]


def test_mask_errors(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    t = ember.asarray(x)
    with pytest.raises(IndexError, match="leading dims"):
        t[ember.asarray(np.ones((4,), bool))]
    with pytest.raises(IndexError, match="leading dims"):
        t[ember.asarray(np.ones((3, 3), bool))]
    with pytest.raises(IndexError, match="leading dims"):
        t[ember.asarray(np.ones((3, 4, 1), bool))]
    with pytest.raises(ValueError, match="all False.*no empty tensors"):
        t[t > 100]
    with pytest.raises(IndexError, match="1-D int or a bool"):
        t[ember.asarray(np.ones((3,), np.float32))]
    check(t, x, rtol=0, atol=0)


# --- nonzero --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(9,), (3, 4), (2, 3, 4), (1, 5, 1)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_nonzero(shape, dtype, rng):
    x = data(rng, shape, dtype)
    if dtype is np.float32:
        x[rng.random(shape) < 0.4] = 0
    x.flat[-1] = 1  # at least one nonzero entry
    got = ember.nonzero(ember.asarray(x))
    want = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == len(want) == x.ndim
    for g, w in zip(got, want):
        assert g.dtype == ember.int64
        check(g, w)


def test_nonzero_counts_nan_and_indexes_back(rng):
    x = np.array([0.0, np.nan, -0.0, 2.5, 0.0, -1.0], np.float32)
    (i,) = ember.nonzero(ember.asarray(x))
    check(i, np.nonzero(x)[0])
    check(ember.asarray(x)[i], x[np.nonzero(x)])
    y = rng.standard_normal((3, 4)).astype(np.float32)
    rows, cols = ember.nonzero(ember.asarray(y) > 0)
    check(rows, np.nonzero(y > 0)[0])
    check(cols, np.nonzero(y > 0)[1])


def test_nonzero_errors():
    with pytest.raises(ValueError, match="0-d"):
        ember.nonzero(ember.asarray(1.0))
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.nonzero(ember.zeros((2, 3)))
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.nonzero(ember.asarray([False, False]))
    with pytest.raises(TypeError, match="ember.Tensor"):
        ember.nonzero(np.ones(3))
