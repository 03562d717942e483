"""reshape, permute_dims, slicing, matmul, astype and the other manipulation functions against
NumPy."""

import numpy as np
import pytest

import ember
from conftest import check


@pytest.fixture
def x(rng):
    return rng.standard_normal((4, 5, 6))


def test_reshape_and_permute_dims(x):
    t = ember.asarray(x)
    check(ember.reshape(t, (20, 6)), x.reshape(20, 6))
    check(ember.reshape(t, (-1,)), x.reshape(-1))
    check(ember.reshape(t, (2, -1, 3)), x.reshape(2, -1, 3))
    check(ember.permute_dims(t, (2, 0, 1)), np.transpose(x, (2, 0, 1)))
    check(ember.matrix_transpose(t), np.swapaxes(x, -1, -2))
    check(t.mT, np.swapaxes(x, -1, -2))
    check(ember.asarray(x[0]).T, x[0].T)
    check(ember.reshape(ember.permute_dims(t, (1, 0, 2)), (5, 24)),
          np.transpose(x, (1, 0, 2)).reshape(5, 24))
    with pytest.raises(ValueError, match="permutation"):
        ember.permute_dims(t, (0, 0, 1))
    with pytest.raises(ValueError):
        ember.reshape(t, (7, -1))


KEYS = [
    np.s_[1], np.s_[-1], np.s_[1:3], np.s_[::2], np.s_[::-1], np.s_[3:0:-2], np.s_[-2:],
    np.s_[:, 1], np.s_[:, ::-2, 1:5:3], np.s_[..., 2], np.s_[1, ..., ::-1], np.s_[None, 1],
    np.s_[:, None, 2:], np.s_[1, 2, 3], np.s_[..., None], np.s_[-4:-1, -5::4, 5:-7:-3],
    np.s_[-100:2], np.s_[2, :, -1],
]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_basic_indexing_matches_numpy(key, x):
    check(ember.asarray(x)[key], x[key])


def test_indexing_errors(x):
    t = ember.asarray(x)
    with pytest.raises(IndexError, match="out of range"):
        t[4]
    with pytest.raises(IndexError, match="too many"):
        t[1, 2, 3, 4]
    with pytest.raises(IndexError, match="empty"):
        t[3:1]
    with pytest.raises(IndexError):
        t[1.5]


def test_a_1d_int_tensor_index_takes_entries(x):
    idx = np.array([3, 0, 0, 2])
    check(ember.asarray(x)[ember.asarray(idx)], x[idx])
    check(ember.take(ember.asarray(x), ember.asarray(idx, dtype=ember.int32), axis=2),
          np.take(x, idx, axis=2))


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 6)), ((4,), (4, 3)),
                                   ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(sa, sb, rng):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    check(ember.matmul(ember.asarray(a), ember.asarray(b)), np.matmul(a, b), rtol=1e-5,
          atol=1e-5)
    check(ember.asarray(a) @ ember.asarray(b), a @ b, rtol=1e-5, atol=1e-5)


def test_matmul_errors():
    with pytest.raises(ValueError, match="0-d"):
        ember.matmul(ember.asarray(1.0), ember.asarray([1.0]))
    with pytest.raises(ValueError):
        ember.asarray(np.ones((2, 3))) @ ember.asarray(np.ones((2, 3)))


def test_astype(x):
    t = ember.asarray(x * 10)
    check(ember.astype(t, ember.int32), (x * 10).astype(np.int32))
    check(ember.astype(t, ember.float16), (x * 10).astype(np.float16).astype(np.float64),
          rtol=1e-3)
    check(ember.astype(t > 0, ember.int64), (x > 0).astype(np.int64))
    check(ember.astype(t, ember.bool), (x * 10).astype(bool))
    with pytest.raises(TypeError, match="not an ember dtype"):
        ember.astype(t, np.float64)


def test_expand_squeeze_broadcast(x):
    t = ember.asarray(x)
    check(ember.expand_dims(t, axis=1), np.expand_dims(x, 1))
    check(ember.expand_dims(t, axis=-1), np.expand_dims(x, -1))
    check(ember.squeeze(ember.asarray(x[:1]), axis=0), x[0])
    with pytest.raises(ValueError, match="size 4"):
        ember.squeeze(t, axis=0)
    y = x[:, :1, :]
    check(ember.broadcast_to(ember.asarray(y), (2, 4, 5, 6)), np.broadcast_to(y, (2, 4, 5, 6)))
    a, b = ember.broadcast_arrays(ember.asarray(y), ember.asarray(x[0]))
    check(a, np.broadcast_arrays(y, x[0])[0])
    check(b, np.broadcast_arrays(y, x[0])[1])


def test_concat_stack_flip(x):
    t = ember.asarray(x)
    check(ember.concat([t, t[:2]], axis=0), np.concatenate([x, x[:2]], axis=0))
    check(ember.concat([t, t], axis=-1), np.concatenate([x, x], axis=-1))
    check(ember.concat([t, t[0]], axis=None), np.concatenate([x, x[0]], axis=None))
    check(ember.stack([t[0], t[1], t[2]], axis=1), np.stack([x[0], x[1], x[2]], axis=1))
    check(ember.flip(t), np.flip(x))
    check(ember.flip(t, axis=1), np.flip(x, axis=1))
    check(ember.flip(t, axis=(0, 2)), np.flip(x, axis=(0, 2)))
    check(ember.concat([ember.asarray([1, 2], dtype=ember.int32), ember.asarray([3])]),
          np.array([1, 2, 3]))
