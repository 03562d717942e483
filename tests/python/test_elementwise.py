"""Every elementwise function and operator against NumPy in float64: broadcasting, Python
scalars on either side, type promotion, and the float-only functions on ints."""

import numpy as np
import pytest

import ember
from conftest import check


@pytest.fixture
def xy(rng):
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal((4,)) + 3.0  # broadcasts; away from 0 for division
    return x, y


UNARY = [
    ("exp", np.exp, lambda a: a), ("log", np.log, np.abs), ("log1p", np.log1p, np.abs),
    ("sqrt", np.sqrt, np.abs), ("sin", np.sin, lambda a: a), ("cos", np.cos, lambda a: a),
    ("tan", np.tan, lambda a: a), ("tanh", np.tanh, lambda a: a), ("abs", np.abs, lambda a: a),
    ("negative", np.negative, lambda a: a), ("positive", np.positive, lambda a: a),
    ("square", np.square, lambda a: a), ("sign", np.sign, lambda a: a),
    ("reciprocal", np.reciprocal, lambda a: a + 3.0),
]


@pytest.mark.parametrize("name,ref,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref, domain, rng):
    a = domain(rng.standard_normal((5, 7)))
    check(getattr(ember, name)(ember.asarray(a)), ref(a), rtol=2e-5)


def test_erf():
    from math import erf
    a = np.linspace(-3, 3, 13)
    check(ember.erf(ember.asarray(a)), np.vectorize(erf)(a), rtol=1e-5)


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
          ("divide", np.divide), ("remainder", np.remainder), ("pow", np.power),
          ("maximum", np.maximum), ("minimum", np.minimum), ("floor_divide", np.floor_divide)]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcasts(name, ref, xy):
    x, y = xy
    if name == "pow":
        x = np.abs(x)
    check(getattr(ember, name)(ember.asarray(x), ember.asarray(y)), ref(x, y), rtol=1e-5,
          atol=1e-5)


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_with_python_scalars_on_either_side(name, ref, xy):
    x = np.abs(xy[0]) + 0.5
    t = ember.asarray(x)
    f = getattr(ember, name)
    check(f(t, 2.5), ref(x, 2.5), rtol=1e-5, atol=1e-5)
    check(f(1.5, t), ref(1.5, x), rtol=1e-5, atol=1e-5)


def test_operators(xy):
    x, y = xy
    a, b = ember.asarray(x), ember.asarray(y)
    check(a + b, x + y)
    check(a - b, x - y)
    check(a * b, x * y)
    check(a / b, x / y, rtol=1e-5)
    check(a % b, x % y, rtol=1e-5, atol=1e-5)
    check(a // b, x // y)
    check(abs(a) ** 1.5, np.abs(x) ** 1.5, rtol=1e-5)
    check(-a, -x)
    check(+a, x)
    check(abs(a), np.abs(x))
    check(2.0 - a, 2.0 - x)
    check(2.0 / b, 2.0 / y, rtol=1e-5)
    check(3 * a + 1, 3 * x + 1, rtol=1e-5)
    check(ember.exp(a * b + a * 2.0), np.exp(x * y + x * 2.0), rtol=1e-5)


def test_comparisons_and_logic(xy):
    x, y = xy
    y = np.round(y)
    x = np.round(x * 3)
    a, b = ember.asarray(x), ember.asarray(y)
    for name, ref in [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
                      ("less_equal", np.less_equal), ("greater", np.greater),
                      ("greater_equal", np.greater_equal)]:
        check(getattr(ember, name)(a, b), ref(x, y))
        check(getattr(ember, name)(a, 1.0), ref(x, 1.0))
        check(getattr(ember, name)(1.0, a), ref(1.0, x))
    check(a == b, x == y)
    check(a != 1, x != 1)
    check(a < b, x < y)
    check(a <= b, x <= y)
    check(a > 0, x > 0)
    check(a >= 0, x >= 0)
    p, q = x > 0, y > 3
    check(ember.logical_and(ember.asarray(p), ember.asarray(q)), np.logical_and(p, q))
    check(ember.logical_or(ember.asarray(p), ember.asarray(q)), np.logical_or(p, q))
    check(ember.logical_not(ember.asarray(p)), np.logical_not(p))
    check(~ember.asarray(p) & ember.asarray(q) | ember.asarray(p), ~p & q | p)


def test_isnan_isinf_isfinite():
    x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0])
    t = ember.asarray(x)
    check(ember.isnan(t), np.isnan(x))
    check(ember.isinf(t), np.isinf(x))
    check(ember.isfinite(t), np.isfinite(x))
    check(ember.isnan(ember.asarray([1, 2])), np.array([False, False]))


def test_clip(rng):
    x = rng.standard_normal(20) * 3
    t = ember.asarray(x)
    check(ember.clip(t, -1.0, 2.0), np.clip(x, -1.0, 2.0))
    check(ember.clip(t, min=0.5), np.clip(x, 0.5, None))
    check(ember.clip(ember.asarray([1, 5, 9]), 2, 6), np.array([2, 5, 6]))
    check(ember.clip(t, ember.asarray(np.zeros(20)), 1.0), np.clip(x, 0, 1.0))


def test_where(rng):
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((1, 4))
    c = x > 0
    cond = ember.asarray(c)
    check(ember.where(cond, ember.asarray(x), ember.asarray(y)), np.where(c, x, y))
    check(ember.where(cond, ember.asarray(x), 0.0), np.where(c, x, 0.0))
    check(ember.where(cond, -1.0, ember.asarray(x)), np.where(c, -1.0, x))
    check(ember.where(cond, 1, 0), np.where(c, 1, 0))


def test_type_promotion():
    i32 = ember.asarray([1, 2], dtype=ember.int32)
    i64 = ember.asarray([3, 4])
    f16 = ember.asarray([0.5, 0.25], dtype=ember.float16)
    f32 = ember.asarray([1.0, 2.0])
    assert (i32 + i64).dtype == ember.int64
    assert (f16 + f32).dtype == ember.float32
    assert (f16 + ember.asarray([1.0, 1.0], dtype=ember.bfloat16)).dtype == ember.float32
    assert (i32 + f16).dtype == ember.float16  # ints join the float dtype (not in the standard)
    assert (i32 + 1).dtype == ember.int32      # Python scalars take the tensor's dtype
    assert (f16 * 2.0).dtype == ember.float16
    check(i32 + 1.5, np.array([2.5, 3.5]))     # a fractional scalar computes in float32
    assert (i32 / i32).dtype == ember.float32  # true division
    check(i32 / 2, np.array([0.5, 1.0]))
    check(ember.asarray([7, -7]) // 2, np.array([3, -4]))
    check(ember.asarray([7, -7]) % 3, np.array([1, 2]))
    check(ember.exp(i64), np.exp([3.0, 4.0]), rtol=1e-6)  # float functions of ints: float32
    check(i64 ** 2, np.array([9.0, 16.0]))


def test_composed_math(rng):
    x = np.abs(rng.standard_normal(20)) + 0.1
    t = ember.asarray(x)
    check(ember.log2(t), np.log2(x), rtol=1e-5, atol=1e-6)
    check(ember.log10(t), np.log10(x), rtol=1e-5, atol=1e-6)
    check(ember.exp2(t), np.exp2(x), rtol=1e-5)
    check(ember.exp2(ember.asarray([1, 3])), np.array([2.0, 8.0]), rtol=1e-6)


def test_result_type_finfo_iinfo():
    assert ember.result_type(ember.int32, ember.asarray([1])) == ember.int64
    assert ember.result_type(ember.float16, ember.float32) == ember.float32
    assert ember.finfo(ember.float32).eps == np.finfo(np.float32).eps
    assert ember.finfo(ember.bfloat16).eps == 2.0 ** -7
    assert ember.iinfo(ember.int32).max == 2 ** 31 - 1
    with pytest.raises(TypeError):
        ember.finfo(ember.int32)
