"""The standard's bitwise functions and their operators against NumPy: int32 and int64 tensors
with negative numbers and the extremes, broadcasting, Python ints on either side, shifts by
amounts inside and outside the width, the logical forms on bool tensors, and the refusals."""

import numpy as np
import pytest

import ember
from conftest import check

INT_DTYPES = [(np.int32, ember.int32), (np.int64, ember.int64)]


def _values(np_dtype):
    info = np.iinfo(np_dtype)
    return np.array([[0, 1, -1, 5, -6, 12], [info.min, info.max, info.min + 1, info.max - 1,
                                            0x12345678, -0x12345678]], np_dtype)


BINARY = [("bitwise_and", np.bitwise_and, "__and__"), ("bitwise_or", np.bitwise_or, "__or__"),
          ("bitwise_xor", np.bitwise_xor, "__xor__")]


@pytest.mark.parametrize("np_dtype,dtype", INT_DTYPES, ids=["int32", "int64"])
@pytest.mark.parametrize("name,ref,op", BINARY, ids=[b[0] for b in BINARY])
def test_and_or_xor_broadcast_and_take_python_ints_on_either_side(name, ref, op, np_dtype, dtype):
    x = _values(np_dtype)
    y = np.array([3, -3, 255, -1, 0, np.iinfo(np_dtype).min], np_dtype)  # broadcasts as a row
    t, u = ember.asarray(x), ember.asarray(y)
    f = getattr(ember, name)
    got = f(t, u)
    assert got.dtype == dtype
    check(got, ref(x, y))
    check(getattr(t, op)(u), ref(x, y))
    for s in (0, 7, -8, int(np.iinfo(np_dtype).max), int(np.iinfo(np_dtype).min)):
        check(f(t, s), ref(x, np_dtype(s)))
        check(f(s, t), ref(np_dtype(s), x))
    check(t & 0x0F0F, x & np_dtype(0x0F0F))
    check(0x0F0F & t, np_dtype(0x0F0F) & x)
    check(t | -2, x | np_dtype(-2))
    check(-2 | t, np_dtype(-2) | x)
    check(t ^ 9, x ^ np_dtype(9))
    check(9 ^ t, np_dtype(9) ^ x)


@pytest.mark.parametrize("np_dtype,dtype", INT_DTYPES, ids=["int32", "int64"])
def test_invert(np_dtype, dtype):
    x = _values(np_dtype)
    t = ember.asarray(x)
    check(ember.bitwise_invert(t), np.invert(x))
    check(~t, ~x)
    assert (~t).dtype == dtype


AMOUNTS = [-1, 0, 1, 31, 32, 63, 64, 1000]


@pytest.mark.parametrize("np_dtype,dtype", INT_DTYPES, ids=["int32", "int64"])
def test_shifts_by_amounts_inside_and_outside_the_width_give_numpys_values(np_dtype, dtype):
    x = _values(np_dtype)
    t = ember.asarray(x)
    for s in AMOUNTS:
        amount = np_dtype(s)
        check(ember.bitwise_left_shift(t, s), np.left_shift(x, amount))
        check(ember.bitwise_right_shift(t, s), np.right_shift(x, amount))
        check(t << s, np.left_shift(x, amount))
        check(t >> s, np.right_shift(x, amount))
    # A tensor of amounts, broadcast along the rows.
    amounts = np.array(AMOUNTS[:6], np_dtype)
    a = ember.asarray(amounts)
    check(t << a, np.left_shift(x, amounts))
    check(t >> a, np.right_shift(x, amounts))
    # The scalar on the left: its bits shifted by each element.
    check(3 << a, np.left_shift(np_dtype(3), amounts))
    check(-100 >> a, np.right_shift(np_dtype(-100), amounts))
    check(ember.bitwise_left_shift(1, a), np.left_shift(np_dtype(1), amounts))


def test_int32_shifted_past_its_width_is_zero_or_its_sign_fill():
    x = np.array([1, -1, 7, -7, np.iinfo(np.int32).min, np.iinfo(np.int32).max], np.int32)
    t = ember.asarray(x)
    for s in range(32, 64):
        np.testing.assert_array_equal(np.asarray(t << s), np.zeros_like(x))
        np.testing.assert_array_equal(np.asarray(t >> s), np.where(x < 0, -1, 0))
        np.testing.assert_array_equal(np.asarray(t << s), np.left_shift(x, np.int32(s)))
        np.testing.assert_array_equal(np.asarray(t >> s), np.right_shift(x, np.int32(s)))


def test_int64_masks_past_2_53_keep_every_bit():
    x = np.array([-1, 0x0123456789ABCDEF, 2**62 + 3], np.int64)
    t = ember.asarray(x)
    mask = 2**60 + 2**3 + 1  # a double would round it
    check(t & mask, x & np.int64(mask))
    check(mask | t, np.int64(mask) | x)
    check(ember.bitwise_xor(t, -mask), x ^ np.int64(-mask))


def test_mixed_int_dtypes_promote_to_int64():
    x = np.array([1, -2, 3], np.int32)
    y = np.array([-1, 6, 2**40], np.int64)
    got = ember.asarray(x) ^ ember.asarray(y)
    assert got.dtype == ember.int64
    check(got, x ^ y)


def test_bool_tensors_are_logical_with_python_bools_on_either_side():
    p = np.array([True, False, True, False])
    q = np.array([True, True, False, False])
    t, u = ember.asarray(p), ember.asarray(q)
    for got, want in ((ember.bitwise_and(t, u), p & q), (ember.bitwise_or(t, u), p | q),
                      (ember.bitwise_xor(t, u), p ^ q), (ember.bitwise_invert(t), ~p),
                      (t & u, p & q), (t | u, p | q), (t ^ u, p ^ q), (~t, ~p),
                      (t & True, p & True), (False | t, False | p), (True ^ t, True ^ p),
                      (~t & u | t, ~p & q | p)):
        assert got.dtype == ember.bool
        np.testing.assert_array_equal(np.asarray(got), want)


def test_bool_with_ints_joins_the_int_kind():
    p = np.array([True, False, True])
    x = np.array([6, 7, -8], np.int32)
    got = ember.asarray(p) & ember.asarray(x)
    assert got.dtype == ember.int32
    check(got, p & x)
    got = ember.asarray(p) | 6
    assert got.dtype == ember.int64  # NumPy's int64 for a Python int
    check(got, p | 6)
    check(ember.asarray(x) ^ True, x ^ True)


def test_a_chain_of_bitwise_ops_matches_numpy():
    rng = np.random.default_rng(3)
    x = rng.integers(-2**31, 2**31, (16, 9), dtype=np.int64).astype(np.int32)
    y = rng.integers(-2**31, 2**31, (9,), dtype=np.int64).astype(np.int32)
    s = rng.integers(0, 40, (16, 1), dtype=np.int32)
    t, u, a = ember.asarray(x), ember.asarray(y), ember.asarray(s)
    got = ~(((t & u) ^ 0x5A5A) << a | (t >> 3)) & -1
    want = ~(np.left_shift((x & y) ^ np.int32(0x5A5A), s) | (x >> np.int32(3))) & np.int32(-1)
    check(got, want)


def test_refusals():
    f = ember.asarray([1.5, 2.0])
    i = ember.asarray(np.array([1, 2], np.int32))
    b = ember.asarray([True, False])
    for call in (lambda: f & i, lambda: i | f, lambda: ember.bitwise_xor(f, 1), lambda: ~f,
                 lambda: i & 1.5, lambda: 2.0 ^ i, lambda: ember.bitwise_invert(f),
                 lambda: b << 1, lambda: i >> b, lambda: ember.bitwise_left_shift(b, b),
                 lambda: f << 1):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(OverflowError):
        i & 2**31  # a Python int must fit the tensor's dtype (NumPy 2)
    with pytest.raises(OverflowError):
        i << -2**31 - 1
    with pytest.raises(TypeError):
        ember.bitwise_and(1, 2)
