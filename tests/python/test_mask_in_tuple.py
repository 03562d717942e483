"""A bool mask among ints, slices and '...' in one key (Note [A bool mask among other
indices], engine/python/ember/_indexing.py): NumPy's values and shape, with the selection where
the mask stood when the ints beside it are adjacent and first when they are not; and the keys
it refuses."""

import numpy as np
import pytest

import ember

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


def mask(shape, seed):
    m = np.random.default_rng(seed).random(shape) < 0.5
    m.flat[0] = True
    return m


# (key builder taking a mask, the mask's shape)
CASES = [
    (lambda m: (m, slice(1, None)), (2,)),
    (lambda m: (m, 0), (2, 3)),
    (lambda m: (slice(None), m), (3,)),
    (lambda m: (slice(None), m, slice(None, None, -1)), (3, 4)),
    (lambda m: (Ellipsis, m), (5,)),
    (lambda m: (Ellipsis, m), (4, 5)),
    (lambda m: (0, m), (3,)),
    (lambda m: (slice(None), 1, m), (4,)),
    (lambda m: (0, slice(None), m), (4,)),  # not adjacent: the selection goes first
    (lambda m: (slice(None), m, slice(None), 2), (3,)),  # not adjacent either
    (lambda m: (1, m, Ellipsis), (3, 4)),
    (lambda m: (slice(0, 1), m, 3), (3,)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_numpy(case):
    build, shape = CASES[case]
    m = mask(shape, case)
    want = X[build(m)]
    got = np.asarray(ember.asarray(X)[build(ember.asarray(m))])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_beside_none_or_an_int_tensor_as_numpy():
    """A mask beside None or an int tensor goes to integer-array indexing (its nonzero()
    indices: Note [Integer-array indexing]) with NumPy's shapes and values."""
    m = mask((3,), 1)
    count = int(m.sum())
    i = np.arange(count) % 4
    for key, want in [((slice(None), ember.asarray(m), None), (slice(None), m, None)),
                      ((slice(None), ember.asarray(m), ember.asarray(i)), (slice(None), m, i))]:
        got = np.asarray(ember.asarray(X)[key])
        assert got.shape == X[want].shape
        np.testing.assert_array_equal(got, X[want])


def test_refusals():
    x = ember.asarray(X)
    m = ember.asarray(mask((3,), 1))
    with pytest.raises(IndexError):
        x[:, :, :, :, m]  # too many indices
    with pytest.raises(IndexError):
        x[0, 0, m]  # the mask's shape does not match the dims it names
