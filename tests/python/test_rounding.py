"""floor, ceil, trunc and round (Note [Exact rounding by composition], _rounding.py) against
NumPy: every value bit for bit, signed zeros, ties, the largest non-integers, integers past the
significand, inf and NaN, in float32 and float16 (bfloat16 through its float32 values)."""

import numpy as np
import pytest

import ember

FUNCTIONS = [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("round", np.round)]


def values(np_dtype):
    bits = {np.float32: 23, np.float16: 10}[np_dtype]
    big = 2.0**bits
    special = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 0.25, -0.25,
               1.0, -1.0, 3.7, -3.7, big - 0.5, -(big - 0.5), big - 1.5, big, -big, big + 2,
               2 * big + 2, 1e30 if np_dtype == np.float32 else 6e4, np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(7)
    spread = rng.uniform(-50, 50, 300)
    halves = np.arange(-40, 41) / 2.0
    return np.concatenate([special, spread, halves]).astype(np_dtype)


def same_bits(got, want):
    """Equal values with equal signs of zero; NaN where NaN."""
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


@pytest.mark.parametrize("name,ref", FUNCTIONS)
@pytest.mark.parametrize("np_dtype", [np.float32, np.float16])
def test_floats_match_numpy(name, ref, np_dtype):
    x = values(np_dtype)
    got = np.asarray(getattr(ember, name)(ember.asarray(x)))
    same_bits(got, ref(x))


@pytest.mark.parametrize("name,ref", FUNCTIONS)
def test_bfloat16_matches_numpy_on_its_values(name, ref):
    x = ember.astype(ember.asarray(values(np.float32)), ember.bfloat16)
    exact = np.asarray(ember.astype(x, ember.float32))  # the bfloat16 values, widened exactly
    got = np.asarray(ember.astype(getattr(ember, name)(x), ember.float32))
    # Every rounded bfloat16 value is representable (at most 2**8 in magnitude below 2**7).
    same_bits(got, ref(exact))


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
@pytest.mark.parametrize("dtype", [ember.int32, ember.int64])
def test_ints_come_back_unchanged(name, dtype):
    x = ember.asarray([-3, 0, 7, 2**30], dtype=dtype)
    out = getattr(ember, name)(x)
    assert out.dtype == dtype
    assert out.tolist() == [-3, 0, 7, 2**30]


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
def test_bool_and_non_tensors_are_refused(name):
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)(ember.asarray([True, False]))
    with pytest.raises(TypeError):
        getattr(ember, name)([1.5])


def test_broadcast_shapes_and_lazy_chains_keep_the_values():
    x = np.linspace(-5, 5, 4 * 33, dtype=np.float32).reshape(4, 33)
    t = ember.asarray(x)
    y = ember.round(t * 2.0) / 2.0 + ember.floor(t)
    np.testing.assert_array_equal(np.asarray(y), np.round(x * 2) / 2 + np.floor(x))
