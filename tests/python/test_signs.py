"""signbit and copysign (engine/python/ember/_signs.py) against NumPy: every ember dtype, signed
zeros, infinities, subnormals, NaN, broadcasting, Python scalars on either side, the promoted
dtype, and the refusals. A NaN's sign bit is the one thing ember cannot see (no bitcast op):
signbit(-NaN) is False and copysign(x, -NaN) is |x|, where NumPy reads the bit; the tests
here say so explicitly, and compare everything else bit for bit (the sign of zero too)."""

import numpy as np
import pytest

import ember
from conftest import DTYPES, check, data, floats

FLOATS = ["float32", "float16", "bfloat16"]
EMBER_FLOAT = {"float32": ember.float32, "float16": ember.float16, "bfloat16": ember.bfloat16}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-40, -1e-40, 1e-7, -1e-7, 3e38, -3e38, np.inf,
           -np.inf, np.nan]
NEGATIVE_NAN = np.copysign(np.float32(np.nan), np.float32(-1.0))


def same_bits(got, want):
    """Equal values with equal signs (a zero's too); NaN where NaN."""
    got = np.asarray(got).astype(np.float64)
    assert got.shape == want.shape
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


# --- signbit --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_signbit_floats_are_numpys(name, rng):
    t, held = floats(SPECIAL + list(rng.standard_normal(200)), name)
    out = ember.signbit(t)
    assert out.dtype == ember.bool
    check(out, np.signbit(held))


def test_signbit_of_signed_zeros_and_subnormals():
    t = ember.asarray(np.float32([0.0, -0.0, 1e-45, -1e-45, -np.inf, np.inf]))
    check(ember.signbit(t), [False, True, False, True, True, False])


def test_signbit_cannot_see_a_nans_sign():
    """The documented deviation: NumPy says True for -NaN, ember False (no bitcast op)."""
    assert np.signbit(NEGATIVE_NAN)
    t = ember.asarray(np.array([NEGATIVE_NAN, np.nan], np.float32))
    check(ember.signbit(t), [False, False])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 4)], ids=str)
def test_signbit_every_dtype_and_shape(dtype, shape, rng):
    x = data(rng, shape, dtype)
    out = ember.signbit(ember.asarray(x))
    assert out.dtype == ember.bool
    check(out, np.signbit(x) if dtype is not np.bool_ else np.zeros(shape, np.bool_))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_signbit_int_extremes(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, -1, 0, 1, info.max], dtype)
    check(ember.signbit(ember.asarray(x)), np.signbit(x))


def test_signbit_refusals():
    with pytest.raises(TypeError, match="ember: signbit: expected an ember.Tensor"):
        ember.signbit(np.ones(3))
    with pytest.raises(TypeError, match="ember: signbit: expected an ember.Tensor"):
        ember.signbit(-1.0)


# --- copysign -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS)
def test_copysign_floats_are_numpys(name):
    a, ha = floats(SPECIAL, name)
    b, hb = floats(SPECIAL, name)
    out = ember.copysign(ember.reshape(a, (-1, 1)), b)
    assert out.dtype == EMBER_FLOAT[name]
    same_bits(out, np.copysign(ha[:, None], hb))


def test_copysign_random_values(rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((4, 1)).astype(np.float32)
    same_bits(ember.copysign(ember.asarray(a), ember.asarray(b)),
              np.copysign(a, b).astype(np.float64))


def test_copysign_cannot_see_a_nans_sign():
    """The documented deviation: NumPy gives -|x1| for a -NaN x2, ember |x1| (no bitcast)."""
    a = ember.asarray(np.float32([2.0, -3.0, -0.0]))
    b = ember.asarray(np.array([NEGATIVE_NAN] * 3, np.float32))
    same_bits(ember.copysign(a, b), np.float64([2.0, 3.0, 0.0]))
    assert np.array_equal(np.copysign(np.float32([2.0]), NEGATIVE_NAN), [-2.0])


def test_copysign_of_nan_is_nan():
    out = np.asarray(ember.copysign(ember.asarray(np.float32([np.nan, np.nan])),
                                    ember.asarray(np.float32([1.0, -1.0]))))
    assert np.isnan(out).all()


@pytest.mark.parametrize("x1,x2", [(-2.0, None), (None, -0.0), (None, 0.0), (None, -3),
                                   (5, None), (-0.0, None), (None, True)], ids=str)
def test_copysign_python_scalars(x1, x2):
    values = np.float32([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf])
    t = ember.asarray(values)
    a = t if x1 is None else x1
    b = t if x2 is None else x2
    out = ember.copysign(a, b)
    assert out.dtype == ember.float32 and out.shape == (6,)
    want = np.copysign(values if x1 is None else np.float32(x1),
                       values if x2 is None else np.float32(x2))
    same_bits(out, np.broadcast_to(want, (6,)).astype(np.float64))


@pytest.mark.parametrize("d1,d2,want", [
    (ember.int32, ember.int32, ember.float32), (ember.int64, ember.int32, ember.float32),
    (ember.bool, ember.bool, ember.float32), (ember.int32, ember.float16, ember.float16),
    (ember.float16, ember.float32, ember.float32), (ember.bool, ember.bfloat16, ember.bfloat16),
    (ember.float16, ember.bfloat16, ember.float32)], ids=str)
def test_copysign_dtypes(d1, d2, want, rng):
    x1 = data(rng, (4, 5), np.bool_ if d1 == ember.bool else np.int32)
    x2 = data(rng, (5,), np.bool_ if d2 == ember.bool else np.int32)
    x2 = x2 if d2 == ember.bool else x2 - (x2 == 0)  # no zeros: an int 0 is +0
    out = ember.copysign(ember.astype(ember.asarray(x1), d1), ember.astype(ember.asarray(x2), d2))
    assert out.dtype == want
    same_bits(out, np.copysign(x1.astype(np.float64), x2.astype(np.float64)))


def test_copysign_int_tensor_with_a_float_scalar():
    out = ember.copysign(ember.asarray(np.int32([3, -4, 0])), -0.0)
    assert out.dtype == ember.float32
    same_bits(out, np.float64([-3.0, -4.0, -0.0]))


def test_copysign_refusals():
    t = ember.asarray(np.float32([1.0, -2.0]))
    with pytest.raises(TypeError, match="ember: copysign: expected at least one ember.Tensor"):
        ember.copysign(1.0, -1.0)
    with pytest.raises(TypeError, match="ember: copysign: expected an ember.Tensor or a Python"):
        ember.copysign(t, np.ones(2))
    with pytest.raises(TypeError, match="ember: copysign: expected an ember.Tensor or a Python"):
        ember.copysign("1", t)
    with pytest.raises(OverflowError, match="ember: copysign: the Python int"):
        ember.copysign(ember.asarray(np.int32([1])), 2**40)
    with pytest.raises(ValueError, match="broadcast"):
        ember.copysign(t, ember.asarray(np.float32([1.0, 2.0, 3.0])))
