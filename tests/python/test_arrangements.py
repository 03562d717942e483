"""roll, tile, repeat, meshgrid, tril, triu, tensordot and can_cast
(engine/python/ember/_arrangements.py, _composites.py) against NumPy: several shapes, dtypes,
negative axes and shifts, diagonal offsets and batch dims, and every refusal."""

import numpy as np
import pytest

import ember
from conftest import DTYPES, EMBER, check, data


def same(got, want, dtype):
    """Exactly NumPy's values, in the input's dtype: these functions only move elements."""
    assert got.dtype == EMBER[dtype]
    check(got, want, rtol=0, atol=0)


# --- roll -----------------------------------------------------------------------------------
ROLLS = [((7,), 3, None), ((7,), -10, None), ((3, 4), 5, None), ((3, 4), 1, 0),
         ((3, 4), -1, -1), ((2, 3, 4), (1, -2), (0, 2)), ((2, 3, 4), 2, (1, 2)),
         ((2, 3, 4), (1, 1), (1, 1)), ((2, 3, 4), 0, 1), ((2, 3, 4), 13, -2),
         ((2, 3, 4), 4, ()), ((), 3, None)]


@pytest.mark.parametrize("shape,shift,axis", ROLLS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_roll(shape, shift, axis, dtype, rng):
    x = data(rng, shape, dtype)
    same(ember.roll(ember.asarray(x), shift, axis=axis), np.roll(x, shift, axis=axis), dtype)


def test_roll_refusals():
    t = ember.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(IndexError, match="out of range"):
        ember.roll(t, 1, axis=2)
    with pytest.raises(IndexError, match="out of range"):
        ember.roll(t, (1, 1), axis=(0, -3))
    with pytest.raises(ValueError, match="same length"):
        ember.roll(t, (1, 2), axis=0)
    with pytest.raises(ValueError, match="same length"):
        ember.roll(t, (1, 2), axis=(0,))
    with pytest.raises(ValueError, match="not None"):
        ember.roll(t, (1, 2))
    with pytest.raises(TypeError, match="shift 1.5 is not an int"):
        ember.roll(t, 1.5, axis=0)
    with pytest.raises(TypeError, match="shift True is not an int"):
        ember.roll(t, True)
    with pytest.raises(TypeError, match="axis"):
        ember.roll(t, 1, axis=[0])
    with pytest.raises(TypeError, match="ember.Tensor"):
        ember.roll(np.ones(3), 1)


# --- tile -----------------------------------------------------------------------------------
TILES = [((3,), (2,)), ((3,), (2, 3)), ((2, 3), (2,)), ((2, 3), (1, 1)), ((2, 3, 4), (2, 1, 3)),
         ((), (3,)), ((2, 3), ()), ((2, 1, 3), [1, 4, 1, 2]), ((), ())]


@pytest.mark.parametrize("shape,reps", TILES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_tile(shape, reps, dtype, rng):
    x = data(rng, shape, dtype)
    same(ember.tile(ember.asarray(x), reps), np.tile(x, reps), dtype)


def test_tile_refusals():
    t = ember.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="tuple of ints"):
        ember.tile(t, 2)
    with pytest.raises(TypeError, match="not an int"):
        ember.tile(t, (2, 1.0))
    with pytest.raises(ValueError, match="negative"):
        ember.tile(t, (2, -1))
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.tile(t, (0, 1))
    with pytest.raises(TypeError, match="ember.Tensor"):
        ember.tile([1, 2], (2,))


# --- repeat ---------------------------------------------------------------------------------
REPEATS = [((5,), 3, None), ((2, 3), 2, None), ((2, 3), 2, 0), ((2, 3, 4), 3, -1),
           ((2, 3), 1, 1), ((2, 3), [1, 0, 2], 1), ((2, 3), (3, 1), -2), ((2, 3), [2], 0),
           ((2, 3), [1, 2, 0, 1, 1, 3], None), ((), 4, None)]


@pytest.mark.parametrize("shape,repeats,axis", REPEATS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_repeat(shape, repeats, axis, dtype, rng):
    x = data(rng, shape, dtype)
    same(ember.repeat(ember.asarray(x), repeats, axis=axis), np.repeat(x, repeats, axis=axis),
         dtype)


@pytest.mark.parametrize("counts_dtype", [ember.int32, ember.int64])
def test_repeat_counts_in_a_tensor_are_read_on_the_host(counts_dtype, rng):
    x = data(rng, (3, 4), np.float32)
    counts = np.array([2, 0, 1, 3])
    got = ember.repeat(ember.asarray(x), ember.asarray(counts, dtype=counts_dtype), axis=1)
    same(got, np.repeat(x, counts, axis=1), np.float32)
    # One count broadcasts; a computed count tensor is computed first.
    one = ember.asarray([1], dtype=counts_dtype) + 1
    same(ember.repeat(ember.asarray(x), one), np.repeat(x, 2), np.float32)


def test_repeat_refusals():
    t = ember.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="int dtype"):
        ember.repeat(t, ember.asarray([1.0, 2.0, 1.0]), axis=1)
    with pytest.raises(ValueError, match="1-D"):
        ember.repeat(t, ember.asarray([[1, 2, 1]]), axis=1)
    with pytest.raises(ValueError, match="2 repeat counts for 3"):
        ember.repeat(t, [1, 2], axis=1)
    with pytest.raises(ValueError, match="negative"):
        ember.repeat(t, -1)
    with pytest.raises(ValueError, match="negative"):
        ember.repeat(t, [1, -1], axis=0)
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.repeat(t, 0, axis=1)
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.repeat(t, [0, 0], axis=0)
    with pytest.raises(IndexError, match="out of range"):
        ember.repeat(t, 2, axis=2)
    with pytest.raises(TypeError, match="not an int"):
        ember.repeat(t, 2.0)
    with pytest.raises(TypeError, match="not an int"):
        ember.repeat(t, [1, 2.0], axis=0)


# --- meshgrid -------------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(), (4,), (3, 4), (3, 1, 5), (2, 3, 4, 2)], ids=str)
def test_meshgrid(sizes, indexing, rng):
    dtypes = [DTYPES[i % len(DTYPES)] for i in range(len(sizes))]  # each keeps its own dtype
    xs = [data(rng, (n,), d) for n, d in zip(sizes, dtypes)]
    got = ember.meshgrid(*[ember.asarray(x) for x in xs], indexing=indexing)
    want = np.meshgrid(*xs, indexing=indexing)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w, d in zip(got, want, dtypes):
        same(g, w, d)


def test_meshgrid_refusals():
    a = ember.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="indexing"):
        ember.meshgrid(a, a, indexing="xz")
    with pytest.raises(ValueError, match="1-D"):
        ember.meshgrid(a, ember.asarray([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="1-D"):
        ember.meshgrid(ember.asarray(1.0))
    with pytest.raises(TypeError, match="ember.Tensor"):
        ember.meshgrid(a, [1.0, 2.0])


# --- tril and triu --------------------------------------------------------------------------
TRIANGLE_SHAPES = [(4, 4), (3, 5), (5, 3), (1, 1), (2, 3, 4, 5), (3, 1, 4)]
OFFSETS = [0, 1, -1, 2, -3, 7, -7, 10**30, -(10**30)]


@pytest.mark.parametrize("fn", ["tril", "triu"])
@pytest.mark.parametrize("shape", TRIANGLE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_tril_triu(fn, shape, dtype, rng):
    x = data(rng, shape, dtype)
    for k in OFFSETS:
        want = getattr(np, fn)(x, k=max(min(k, 100), -100))  # NumPy's k is a C long
        same(getattr(ember, fn)(ember.asarray(x), k=k), want, dtype)


def test_tril_triu_refusals():
    t = ember.asarray(np.ones((3, 3), np.float32))
    for fn in (ember.tril, ember.triu):
        with pytest.raises(ValueError, match="at least 2 dims"):
            fn(ember.asarray([1.0, 2.0]))
        with pytest.raises(ValueError, match="at least 2 dims"):
            fn(ember.asarray(1.0))
        with pytest.raises(TypeError, match="k 1.0 is not an int"):
            fn(t, k=1.0)
        with pytest.raises(TypeError, match="k True is not an int"):
            fn(t, k=True)
        with pytest.raises(TypeError, match="ember.Tensor"):
            fn(np.ones((3, 3)))


# --- tensordot ------------------------------------------------------------------------------
CONTRACTIONS = [((3, 4, 5), (4, 5, 6), 2), ((3, 4), (4, 5), 1), ((3,), (4,), 0),
                ((2, 3), (4, 5), 0), ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
                ((2, 3, 4), (3, 2), ([0, 1], [1, 0])), ((3, 4), (3, 4), ([0, 1], [0, 1])),
                ((3, 4), (5, 4), ([-1], [-1])), ((2, 3), (3,), 1), ((3, 4), (3, 4), 2),
                ((2, 3, 4), (4, 2), ((2, 0), (0, 1))), ((), (3,), 0)]


@pytest.mark.parametrize("sa,sb,axes", CONTRACTIONS, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64], ids=lambda d: d.__name__)
def test_tensordot(sa, sb, axes, dtype, rng):
    a, b = data(rng, sa, dtype), data(rng, sb, dtype)
    got = ember.tensordot(ember.asarray(a), ember.asarray(b), axes=axes)
    assert got.dtype == EMBER[dtype]
    want = np.tensordot(a.astype(np.float64), b.astype(np.float64), axes=axes)
    check(got, want, rtol=1e-5, atol=1e-5)


def test_tensordot_promotes_its_operands(rng):
    a = data(rng, (3, 4), np.int32)
    b = data(rng, (4, 2), np.float32)
    got = ember.tensordot(ember.asarray(a), ember.asarray(b), axes=1)
    assert got.dtype == ember.float32
    check(got, np.tensordot(a, b.astype(np.float64), axes=1), rtol=1e-5, atol=1e-5)
    c = data(rng, (4, 2), np.int64)
    got = ember.tensordot(ember.asarray(a), ember.asarray(c), axes=1)
    assert got.dtype == ember.int64
    check(got, np.tensordot(a, c, axes=1))


def test_tensordot_refusals():
    a = ember.asarray(np.ones((2, 3), np.float32))
    b = ember.asarray(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="numeric"):
        ember.tensordot(a > 0, b > 0, axes=1)
    with pytest.raises(ValueError, match="non-negative"):
        ember.tensordot(a, b, axes=-1)
    with pytest.raises(ValueError, match="contracts 3 dims"):
        ember.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match="contracted axes must be equal"):
        ember.tensordot(a, b, axes=2)
    with pytest.raises(ValueError, match="contracted axes must be equal"):
        ember.tensordot(a, b, axes=([0], [0]))
    with pytest.raises(ValueError, match="twice"):
        ember.tensordot(a, a, axes=([1, 1], [0, 1]))
    with pytest.raises(ValueError, match="same number"):
        ember.tensordot(a, b, axes=([1], [0, 1]))
    with pytest.raises(IndexError, match="out of range"):
        ember.tensordot(a, b, axes=([2], [0]))
    with pytest.raises(TypeError, match="pair of sequences"):
        ember.tensordot(a, b, axes=(1, 0))
    with pytest.raises(TypeError, match="pair of sequences"):
        ember.tensordot(a, b, axes=([1], [0], [0]))
    with pytest.raises(TypeError, match="not an int"):
        ember.tensordot(a, b, axes=1.0)
    with pytest.raises(TypeError, match="both operands"):
        ember.tensordot(a, np.ones((3, 4)), axes=1)


# --- can_cast -------------------------------------------------------------------------------
NUMPY_TWINS = {ember.float32: np.float32, ember.float16: np.float16, ember.int32: np.int32,
               ember.int64: np.int64, ember.bool: np.bool_}


@pytest.mark.parametrize("from_", list(NUMPY_TWINS), ids=lambda d: d.name)
@pytest.mark.parametrize("to", list(NUMPY_TWINS), ids=lambda d: d.name)
def test_can_cast_matches_numpy_within_a_kind(from_, to):
    if from_.kind != to.kind:
        # The standard's lattice has no path between kinds (NumPy's does, bool to anything).
        assert ember.can_cast(from_, to) is False
        return
    assert ember.can_cast(from_, to) == np.can_cast(NUMPY_TWINS[from_], NUMPY_TWINS[to])


def test_can_cast_bfloat16_and_tensors():
    assert ember.can_cast(ember.bfloat16, ember.bfloat16)
    assert ember.can_cast(ember.bfloat16, ember.float32)
    assert not ember.can_cast(ember.bfloat16, ember.float16)
    assert not ember.can_cast(ember.float16, ember.bfloat16)
    assert not ember.can_cast(ember.float32, ember.bfloat16)
    assert not ember.can_cast(ember.int32, ember.bfloat16)
    assert ember.can_cast(ember.asarray([1, 2], dtype=ember.int32), ember.int64)
    assert not ember.can_cast(ember.asarray([1.0]), ember.float16)
    with pytest.raises(TypeError, match="not an ember dtype"):
        ember.can_cast(ember.int32, np.int64)
    with pytest.raises(TypeError, match="not an ember dtype"):
        ember.can_cast("int32", ember.int64)
