"""Integer-array indexing (Note [Integer-array indexing],
engine/python/ember/_advanced_indexing.py): int tensors of any rank with ints, slices and '...'
in one key give NumPy's shape and values (B where the advanced indices stood when adjacent,
first when not), and the keys it refuses."""

import numpy as np
import pytest

import ember
from conftest import DTYPES, EMBER, check, data


def r(n, shape, seed):
    """Indices into a dim of size n, both signs, of the given shape."""
    return np.random.default_rng(seed).integers(-n, n, size=shape)


# (x's shape, key): NumPy arrays in the key become ember int tensors.
CASES = [
    ((6,), (r(6, (4,), 1), Ellipsis)),
    ((6,), (r(6, (2, 3), 2),)),
    ((6,), (np.array(-2),)),
    ((5, 6), (r(5, (4,), 3), r(6, (4,), 4))),
    ((5, 6), (r(5, (2, 3), 5), r(6, (2, 3), 6))),
    ((5, 6), (r(5, (3, 1), 7), r(6, (4,), 8))),  # broadcast to (3, 4)
    ((5, 6), (r(5, (2, 1, 3), 9), r(6, (4, 1), 10))),  # broadcast to (2, 4, 3)
    ((5, 6), (1, r(6, (4,), 11))),
    ((5, 6), (r(5, (4,), 12), 2)),
    ((5, 6), (-1, r(6, (2, 2), 13))),
    ((5, 6), (slice(None), r(6, (4,), 14))),
    ((5, 6), (slice(1, 4), r(6, (2, 3), 15))),
    ((5, 6), (r(5, (3,), 16), slice(None, None, -2))),
    ((5, 6), (Ellipsis, r(6, (3,), 17))),
    ((5, 6), (r(5, (2, 2), 18), Ellipsis)),
    ((5, 6), (np.array(3), r(6, (3,), 19))),
    ((5, 6), (np.array(3), np.array(-1))),  # a 0-d result
    ((3, 4, 5), (slice(None), r(4, (3,), 20), r(5, (3,), 21))),
    ((3, 4, 5), (r(3, (3,), 22), slice(None), r(5, (3,), 23))),  # not adjacent: B first
    ((3, 4, 5), (r(3, (2, 2), 24), r(4, (2, 2), 25), slice(1, 3))),
    ((3, 4, 5), (1, slice(None), r(5, (2, 3), 26))),  # an int apart from the tensor: B first
    ((3, 4, 5), (slice(None), 2, r(5, (2, 3), 27))),  # adjacent: B in place
    ((3, 4, 5), (r(3, (2, 2), 28), slice(None, None, -1), 0)),  # B first
    ((3, 4, 5), (Ellipsis, r(5, (2,), 29))),
    ((3, 4, 5), (r(3, (4,), 30), Ellipsis)),
    ((3, 4, 5), (r(3, (2, 1, 1), 31), r(4, (1, 3, 1), 32), r(5, (4,), 33))),
    ((3, 4, 5), (slice(1, 3), r(4, (3,), 34))),
    ((3, 4, 5), (r(3, (3,), 35), 1, slice(None, 2))),
    ((2, 3, 4, 5), (slice(None), r(3, (3,), 36), slice(1, 3), r(5, (3,), 37))),  # B first
    ((2, 3, 4, 5), (r(2, (2,), 38), r(3, (2,), 39), r(4, (2,), 40), r(5, (2,), 41))),
    ((2, 3, 4, 5), (1, r(3, (2, 2), 42), 2, r(5, (2, 1), 43))),  # all advanced: in place
    ((2, 3, 4, 5), (slice(None), r(3, (3,), 44), r(4, (3,), 45), slice(None, None, 2))),
    ((2, 3, 4, 5), (Ellipsis, r(4, (2, 3), 46), r(5, (3,), 47))),
    ((2, 3, 4, 5), (slice(1, 2), r(3, (4,), 48), Ellipsis, r(5, (4,), 49))),  # B first
    ((2, 3, 4, 5), (r(2, (2, 3), 50), Ellipsis, -2)),  # B first
    ((2, 3, 4, 5), (0, slice(None), slice(None), r(5, (3,), 51))),  # B first
]


def ember_key(key, dtype):
    return tuple(ember.asarray(k.astype(dtype)) if isinstance(k, np.ndarray) else k
                 for k in key)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_numpy(case, index_dtype, dtype, rng):
    shape, key = CASES[case]
    x = data(rng, shape, dtype)
    got = ember.asarray(x)[ember_key(key, index_dtype)]
    assert got.dtype == EMBER[dtype]
    check(got, x[key], rtol=0, atol=0)


@pytest.mark.parametrize("case", [3, 5, 18, 20, 28, 33])
def test_float16(case, rng):
    shape, key = CASES[case]
    x = rng.standard_normal(shape).astype(np.float16)
    got = ember.asarray(x)[ember_key(key, np.int64)]
    assert got.dtype == ember.float16
    values = np.asarray(got)
    assert values.shape == x[key].shape
    np.testing.assert_array_equal(values, x[key])


def test_index_tensors_are_left_alone(rng):
    x = data(rng, (4, 5), np.float32)
    i, j = np.array([-1, 0, -4]), np.array([[2], [-5]])
    ti, tj = ember.asarray(i), ember.asarray(j)
    check(ember.asarray(x)[ti, tj], x[i, j], rtol=0, atol=0)
    check(ti, i)  # the wrapped copy is another tensor
    check(tj, j)


def test_lazy_input(rng):
    """x itself a queued computation, not a buffer: only the indices are read back."""
    x = data(rng, (3, 4, 5), np.float32)
    t = ember.asarray(x) * 2.0
    i = np.array([[0, 2], [-1, 1]])
    check(t[ember.asarray(i[0]), :, ember.asarray(i)], (x * 2.0)[i[0], :, i], rtol=0,
          atol=0)


def test_out_of_range():
    x = ember.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="index 4 is out of range for dim 1 of size 4"):
        x[0, ember.asarray([0, 4])]
    with pytest.raises(IndexError, match="index -4 is out of range for dim 0 of size 3"):
        x[ember.asarray([[0], [-4]]), :]
    with pytest.raises(IndexError, match="index 3 is out of range for dim 0 of size 3"):
        x[3, ember.asarray([0, 1])]
    with pytest.raises(IndexError, match="out of range"):
        x[ember.asarray(np.array([1, 5], np.int32)), ember.asarray([0, 1])]


def test_shapes_that_do_not_broadcast():
    x = ember.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match=r"\(2,\) \(3,\) do not broadcast"):
        x[ember.asarray([0, 1]), ember.asarray([0, 1, 2])]
    with pytest.raises(IndexError, match=r"\(2, 2\) \(3,\) do not broadcast"):
        x[ember.asarray([[0, 1], [1, 2]]), ember.asarray([0, 1, 2])]


def test_refusals():
    x = ember.asarray(np.zeros((3, 4, 5), np.float32))
    i = ember.asarray([0, 1])
    with pytest.raises(IndexError, match="int"):
        x[ember.asarray(np.array([0.0, 1.0], np.float32)), 0]
    with pytest.raises(IndexError, match="too many"):
        x[i, i, i, i]
    with pytest.raises(IndexError, match="one ellipsis"):
        x[..., i, ...]
    with pytest.raises(IndexError, match="empty"):
        x[1:1, i]
    with pytest.raises(IndexError):
        x[1.5, i]


def test_assignment_is_refused(rng):
    a = data(rng, (3, 4), np.float32)
    t = ember.asarray(a)
    i, j = ember.asarray([0, 1]), ember.asarray([2, 3])
    for key in [(i, j), (i, slice(None)), (0, i), (Ellipsis, i), (i, 1)]:
        with pytest.raises(IndexError, match="assignment through int tensor"):
            t[key] = 1.0
    with pytest.raises(IndexError, match="1-D int or a bool"):
        t[ember.asarray(np.zeros((2, 2), np.int64))] = 1.0
    check(t, a, rtol=0, atol=0)  # nothing above changed t
    # A 0-d int tensor in a tuple reads as an int, as before.
    t[ember.asarray(1), 2] = 7.0
    a[1, 2] = 7.0
    check(t, a, rtol=0, atol=0)


@pytest.mark.parametrize("rank", [0, 2, 3])
def test_a_lone_int_tensor_of_any_rank(rank):
    """x[idx] with an int tensor of rank 0, 2 or 3 takes along dim 0, as NumPy's."""
    rng = np.random.default_rng(rank)
    a = rng.standard_normal((5, 3)).astype(np.float32)
    idx = rng.integers(-5, 5, size=(2, 3, 2)[:rank])
    check(ember.asarray(a)[ember.asarray(idx)], a[idx], rtol=0, atol=0)
    with pytest.raises(IndexError, match="out of range"):
        ember.asarray(a)[ember.asarray(np.full((2, 2), 5))]


def _mixed_keys(t):
    """Keys with None and bool masks beside int tensors, slices and ints, for an x of shape
    (3, 4, 5): each as a NumPy key and the same with ember tensors (t: np -> ember)."""
    i, j = np.array([0, 2]), np.array([[1], [3]])
    m3, m4 = np.array([True, False, True]), np.array([False, True, False, True])
    m34 = np.array([[True, False, True, False], [False, False, True, True],
                    [True, True, False, False]])
    keys = [(None, i), (i, slice(None), None), (i, None, j), (slice(None), None, i),
            (None, slice(None), i, None), (Ellipsis, None, i), (m3, i), (i, m4), (m3, m4),
            (m3, None), (None, m3), (m3, slice(None), i), (m34, None), (None, m34, np.array([1])),
            (m3, 1, None), (m34, np.array([4]))]
    return [(k, tuple(t(e) if isinstance(e, np.ndarray) else e for e in k)) for k in keys]


@pytest.mark.parametrize("case", range(16))
def test_none_and_bool_masks_beside_other_indices_as_numpy(case):
    """None is a new dim that stays where it stands and parts the indices beside it; a bool
    mask is read as its nonzero() int indices (a sync point): NumPy's shapes and values."""
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    want_key, key = _mixed_keys(ember.asarray)[case]
    check(ember.asarray(a)[key], a[want_key], rtol=0, atol=0)


def test_an_all_false_mask_beside_an_index_selects_nothing():
    x = ember.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="no empty tensors"):
        x[ember.asarray(np.zeros(3, bool)), ember.asarray([0])]


def test_a_mask_must_have_the_shape_of_the_dims_it_names():
    x = ember.asarray(np.zeros((3, 4, 5), np.float32))
    with pytest.raises(IndexError, match=r"shape \(2,\) on dims \(3,\)"):
        x[ember.asarray(np.array([True, True])), ember.asarray([0])]
    with pytest.raises(IndexError, match=r"shape \(3,\) on dims \(5,\) \(from dim 2\)"):
        x[..., ember.asarray(np.array([True, False, True])), None]
