"""hypot (Note [Accurate compositions], _hyperbolic.py) against NumPy in float64: within 2 ulp
of float32 from subnormals to overflow, IEEE's special values (inf beside NaN is inf), Python
scalars and float16; and moveaxis and unstack (_manipulation.py) against NumPy."""

import numpy as np
import pytest

import ember

HYPOT_BOUND = 2.0  # float32 ulp: 1.96 at most measured over a million values (CPU)


def ulp_error(got, want):
    """|got - want| in float32 ulp at want (float64) rounded; 0 where equal or both NaN."""
    w32 = want.astype(np.float32)
    err = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(w32)).astype(np.float64)
    same = (got == w32) | (np.isnan(got) & np.isnan(w32))
    return np.where(same, 0.0, err)


def test_hypot_within_two_ulp_of_numpy():
    rng = np.random.default_rng(11)
    exps = rng.uniform(-40, 38, 20000)
    a = (rng.choice([-1, 1], 20000) * 10.0**exps).astype(np.float32)
    b = (a * rng.uniform(-3, 3, 20000).astype(np.float32)).astype(np.float32)
    b[::7] = rng.uniform(-1e-30, 1e-30, b[::7].size)
    got = np.asarray(ember.hypot(ember.asarray(a), ember.asarray(b)))
    want = np.hypot(a.astype(np.float64), b.astype(np.float64))
    finite = np.isfinite(want.astype(np.float32))
    assert ulp_error(got[finite], want[finite]).max() <= HYPOT_BOUND
    assert np.array_equal(np.isinf(got), np.isinf(want.astype(np.float32)))


@pytest.mark.parametrize("x,y,want", [
    (3.0, 4.0, 5.0), (0.0, 0.0, 0.0), (-0.0, 0.0, 0.0), (np.inf, np.nan, np.inf),
    (np.nan, -np.inf, np.inf), (np.nan, 1.0, np.nan), (3e38, 3e38, np.inf),
    (1e-45, 1e-45, 1e-45), (-5.0, 12.0, 13.0)])
def test_hypot_special_values_are_numpys(x, y, want):
    got = np.asarray(ember.hypot(ember.asarray(np.float32([x])), ember.asarray(np.float32([y]))))
    np.testing.assert_equal(got, np.hypot(np.float32([x]), np.float32([y])))
    np.testing.assert_equal(got, np.float32([want]))


def test_hypot_scalars_dtypes_and_refusals():
    x = ember.asarray(np.float32([3.0, -6.0]))
    np.testing.assert_array_equal(np.asarray(ember.hypot(x, 4)), np.float32([5.0, np.hypot(6, 4)]))
    np.testing.assert_array_equal(np.asarray(ember.hypot(8.0, x)), np.hypot(8, [3, -6]).astype(
        np.float32))
    h = ember.hypot(ember.astype(x, ember.float16), 4.0)
    assert h.dtype == ember.float16
    np.testing.assert_array_equal(np.asarray(h), np.hypot(np.float16([3, -6]), np.float16(4)))
    assert ember.hypot(ember.asarray([3, 5]), ember.asarray([4, 12])).dtype == ember.float32
    with pytest.raises(TypeError):
        ember.hypot(3.0, 4.0)


X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


@pytest.mark.parametrize("source,destination", [
    (0, -1), (-1, 0), (1, 2), ((0, 1), (2, 0)), ((0, 3), (3, 0)), ((), ()), ((1, 2, 3), (0, 1, 2))])
def test_moveaxis_matches_numpy(source, destination):
    got = np.asarray(ember.moveaxis(ember.asarray(X), source, destination))
    np.testing.assert_array_equal(got, np.moveaxis(X, source, destination))


def test_moveaxis_refusals():
    t = ember.asarray(X)
    with pytest.raises(IndexError):
        ember.moveaxis(t, 4, 0)
    with pytest.raises(ValueError, match="as many"):
        ember.moveaxis(t, (0, 1), (2,))
    with pytest.raises(ValueError, match="twice"):
        ember.moveaxis(t, (0, 0), (1, 2))
    with pytest.raises(TypeError):
        ember.moveaxis(X, 0, 1)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -4])
def test_unstack_matches_numpy(axis):
    got = ember.unstack(ember.asarray(X), axis=axis)
    want = [np.take(X, i, axis=axis) for i in range(X.shape[axis])]
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_unstack_refusals():
    with pytest.raises(IndexError):
        ember.unstack(ember.asarray(X), axis=4)
    with pytest.raises(ValueError, match="0-d"):
        ember.unstack(ember.asarray(np.float32(1.0)))
