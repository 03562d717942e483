"""expm1, sinh, cosh, asinh, acosh, atanh and logaddexp (Note [Accurate compositions],
_hyperbolic.py) against NumPy computed in float64 and rounded: the error in ulp of float32
(np.spacing of the rounded reference) over values from subnormals to the overflow thresholds,
negatives, signed zeros, infinities and NaN; every float16 value (in float16 ulp); ints, bools,
bfloat16, broadcasting and the refusals.

The bounds are measured, with some room: over 4M random float32 bit patterns and 3.4M values
dense around 0, 1, the 2**12 switch and +-90, the largest errors were expm1 2.36, sinh 2.59,
cosh 2.31, asinh 1.51, acosh 2.39, atanh 1.87 ulp, and logaddexp 1.85 ulp where the larger
input is >= 0 and 2.04 ulp of |m| + c elsewhere (m the larger input, c = result - m: where
e^x1 + e^x2 is near 1 the final m + c cancels, so the error is not small in ulp of the
result; NumPy's float32 logaddexp cancels there too). float16 results are within half a
float16 ulp (they compute in float32 and round once)."""

import warnings

import numpy as np
import pytest

import ember

# name: (NumPy reference, bound in float32 ulp)
FUNCTIONS = {"expm1": (np.expm1, 3.0), "sinh": (np.sinh, 3.0), "cosh": (np.cosh, 3.0),
             "asinh": (np.arcsinh, 2.0), "acosh": (np.arccosh, 3.0),
             "atanh": (np.arctanh, 2.0)}
LOGADDEXP_BOUND = 3.0  # ulp of |m| + c, which is the result's ulp where m >= 0
HALF_ULP = 0.5 + 1e-3  # float16: one rounding of a float32 result a few float32 ulp off


def reference(ref, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ref(np.asarray(x, np.float64))


def ulp_error(got, want, np_dtype=np.float32):
    """|got - want| in ulp of the dtype at want rounded to it; 0 where got is want rounded
    (infinities and NaN included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rounded = want.astype(np_dtype)
        same = (got == rounded) | (np.isnan(got) & np.isnan(rounded))
        err = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(rounded)).astype(
            np.float64)
    return np.where(same, 0.0, err)


def values(name):
    rng = np.random.default_rng(48)
    special = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38, 1e-30, -1e-30, 1e-8,
               -1e-8, 2.0**-12, -(2.0**-12), 1e-3, -1e-3, 0.1, 0.5, -0.5, 1.0, -1.0, 2.0, 10.0,
               -10.0, 87.0, 88.0, 88.5, 88.72, 88.73, 89.0, -89.0, 89.4, 89.42, 89.5, -89.5,
               100.0, 4095.0, 4096.0, 4097.0, -4096.0, 1e18, -1e18, 1.9e19, 3e38, -3e38,
               np.inf, -np.inf, np.nan]
    magnitudes = 10.0 ** rng.uniform(-45, 38.5, 40000)
    parts = [special, magnitudes, -magnitudes, rng.uniform(-100, 100, 20000),
             rng.uniform(-2, 2, 20000), rng.integers(0, 2**32, 40000, dtype=np.uint64)
             .astype(np.uint32).view(np.float32)]
    if name == "acosh":  # near 1 from above, where the textbook formula cancels
        near = 10.0 ** rng.uniform(-7, 0, 20000)
        parts += [1.0 + near, [np.nextafter(np.float32(1), np.float32(2)), 0.9999999]]
    if name == "atanh":  # near +-1 from inside, where 1 - x and log1p(-1 + ...) would cancel
        near = 10.0 ** rng.uniform(-7.3, 0, 20000)
        parts += [1.0 - near, near - 1.0, [np.nextafter(np.float32(1), np.float32(0)),
                                            -np.nextafter(np.float32(1), np.float32(0))]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bit patterns' NaN
        return np.concatenate([np.asarray(p, np.float64).astype(np.float32) for p in parts])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_within_a_few_ulp_of_numpy(name):
    ref, bound = FUNCTIONS[name]
    x = values(name)
    out = getattr(ember, name)(ember.asarray(x))
    assert out.dtype == ember.float32
    got = np.asarray(out)
    want = reference(ref, x)
    err = ulp_error(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, (f"{name}({x[worst]!r}) = {got[worst]!r}, NumPy "
                                 f"{want[worst]!r}: {err[worst]:.2f} ulp > {bound}")
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


SPECIAL = [  # name, x, exact result
    ("expm1", [0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf, -200.0, 100.0, np.nan],
     [0.0, -0.0, 1e-30, -1e-30, np.inf, -1.0, -1.0, np.inf, np.nan]),
    ("sinh", [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, 89.5, -89.5, np.nan],
     [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.inf, -np.inf, np.nan]),
    ("cosh", [0.0, -0.0, 1e-30, np.inf, -np.inf, 89.5, -89.5, np.nan],
     [1.0, 1.0, 1.0, np.inf, np.inf, np.inf, np.inf, np.nan]),
    ("asinh", [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan],
     [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan]),
    ("acosh", [1.0, np.inf, 0.9999999, 0.0, -1.0, -np.inf, np.nan],
     [0.0, np.inf, np.nan, np.nan, np.nan, np.nan, np.nan]),
    ("atanh", [0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 1.0000001, -2.0, np.inf, -np.inf, np.nan],
     [0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, np.nan, np.nan, np.nan, np.nan]),
]


@pytest.mark.parametrize("name,x,want", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_values_are_numpys(name, x, want):
    got = np.asarray(getattr(ember, name)(ember.asarray(np.array(x, np.float32))))
    want = np.array(want, np.float32)
    np.testing.assert_array_equal(got, want)
    number = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[number]), np.signbit(want[number]))
    # and NumPy agrees (in float32, where its values are these)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numpy_says = FUNCTIONS[name][0](np.array(x, np.float32))
    np.testing.assert_array_equal(numpy_says, want)


def test_sinh_and_cosh_overflow_where_numpy_does_not_where_exp_does():
    x = np.array([88.8, 89.0, 89.4, -89.4], np.float32)  # exp(x) overflows, sinh and cosh not
    for name in ("sinh", "cosh"):
        got = np.asarray(getattr(ember, name)(ember.asarray(x)))
        assert np.all(np.isfinite(got)), name
        assert ulp_error(got, reference(FUNCTIONS[name][0], x)).max() <= 3.0


def logaddexp_pairs():
    rng = np.random.default_rng(48)
    n = 40000
    a = np.concatenate([rng.uniform(-100, 100, n), rng.normal(0, 1, n),
                        10.0 ** rng.uniform(-30, 38, n) * rng.choice([-1, 1], n)])
    b = np.concatenate([rng.uniform(-100, 100, n), rng.normal(0, 1, n),
                        10.0 ** rng.uniform(-30, 38, n) * rng.choice([-1, 1], n)])
    b[:1000] = a[:1000]
    b[1000:2000] = a[1000:2000] + rng.normal(0, 1e-3, 1000)
    b[2000:3000] = a[2000:3000] * 1e-20  # a small one beside a larger: the difference rounds
    return a.astype(np.float32), b.astype(np.float32)


def test_logaddexp_within_a_few_ulp_of_numpy():
    a, b = logaddexp_pairs()
    got = np.asarray(ember.logaddexp(ember.asarray(a), ember.asarray(b)))
    want = np.logaddexp(a.astype(np.float64), b.astype(np.float64))
    m = np.maximum(a, b).astype(np.float64)
    scale = (np.abs(m) + (want - m)).astype(np.float32)  # |m| + c, c in [0, ln 2]
    err = np.abs(got - want) / np.spacing(scale).astype(np.float64)
    assert err.max() <= LOGADDEXP_BOUND, err.max()
    no_cancellation = m >= 0
    assert ulp_error(got, want)[no_cancellation].max() <= LOGADDEXP_BOUND


def test_logaddexp_special_values_are_numpys():
    inf, nan = np.inf, np.nan
    a = np.array([inf, -inf, inf, -inf, 1.0, -inf, nan, 1.0, nan, -inf, 0.0, 3e38, -3e38],
                 np.float32)
    b = np.array([inf, -inf, -inf, inf, -inf, 2.0, 1.0, nan, -inf, nan, 0.0, -3e38, 3e38],
                 np.float32)
    got = np.asarray(ember.logaddexp(ember.asarray(a), ember.asarray(b)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.logaddexp(a, b)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_float16_value_within_half_an_ulp(name):
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    out = getattr(ember, name)(ember.asarray(x))
    assert out.dtype == ember.float16
    got = np.asarray(out)
    want = reference(FUNCTIONS[name][0], x)
    assert ulp_error(got, want, np.float16).max() <= HALF_ULP
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def test_logaddexp_float16_within_half_an_ulp():
    rng = np.random.default_rng(48)
    a = rng.uniform(-12, 12, 20000).astype(np.float16)
    b = rng.uniform(-12, 12, 20000).astype(np.float16)
    out = ember.logaddexp(ember.asarray(a), ember.asarray(b))
    assert out.dtype == ember.float16
    want = np.logaddexp(a.astype(np.float64), b.astype(np.float64))
    # away from the result's zero (|result| > 0.1), where the float32 sum does not cancel
    away = np.abs(want) > 0.1
    assert ulp_error(np.asarray(out), want, np.float16)[away].max() <= HALF_ULP


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bfloat16_keeps_its_dtype(name):
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.5, 3.0, -0.5, 40.0], np.float32)
    t = ember.astype(ember.asarray(x), ember.bfloat16)
    out = getattr(ember, name)(t)
    assert out.dtype == ember.bfloat16
    exact = np.asarray(ember.astype(t, ember.float32)).astype(np.float64)
    got = np.asarray(ember.astype(out, ember.float32))
    want = reference(FUNCTIONS[name][0], exact)
    np.testing.assert_allclose(got, want, rtol=2.0**-8, atol=0)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [ember.int32, ember.int64])
def test_ints_compute_in_float32(name, dtype):
    x = [-3, -1, 0, 1, 2, 50, 1000]
    out = getattr(ember, name)(ember.asarray(x, dtype=dtype))
    assert out.dtype == ember.float32
    floats = getattr(ember, name)(ember.asarray(np.array(x, np.float32)))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(floats))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bools_compute_in_float32_as_exp_does(name):
    assert ember.exp(ember.asarray([True])).dtype == ember.float32
    out = getattr(ember, name)(ember.asarray([True, False]))
    assert out.dtype == ember.float32
    want = getattr(ember, name)(ember.asarray([1.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want))


def test_logaddexp_promotes_broadcasts_and_takes_scalars():
    a = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    b = np.array([[-1.0], [0.0], [2.5]], np.float32)
    want = np.logaddexp(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ember.logaddexp(ember.asarray(a), ember.asarray(b))),
                               want, rtol=3e-7)
    np.testing.assert_allclose(np.asarray(ember.logaddexp(ember.asarray(a), 0.5)),
                               np.logaddexp(a.astype(np.float64), 0.5), rtol=3e-7)
    np.testing.assert_allclose(np.asarray(ember.logaddexp(1, ember.asarray(a))),
                               np.logaddexp(1.0, a.astype(np.float64)), rtol=3e-7)
    ints = ember.logaddexp(ember.asarray([1, 2], dtype=ember.int32), ember.asarray([3, 0]))
    assert ints.dtype == ember.float32
    np.testing.assert_allclose(np.asarray(ints), np.logaddexp([1.0, 2.0], [3.0, 0.0]),
                               rtol=3e-7)
    half = ember.astype(ember.asarray([1.0]), ember.float16)
    assert ember.logaddexp(half, half).dtype == ember.float16
    assert ember.logaddexp(half, ember.asarray([1.0])).dtype == ember.float32


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_non_tensors_are_refused(name):
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)([0.5])
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)(0.5)


def test_logaddexp_refuses_non_tensors():
    with pytest.raises(TypeError, match="logaddexp"):
        ember.logaddexp(1.0, 2.0)
    with pytest.raises(TypeError, match="logaddexp"):
        ember.logaddexp(ember.asarray([1.0]), [2.0])


def test_lazy_chains_keep_the_values():
    x = np.linspace(-0.9, 0.9, 4 * 33, dtype=np.float32).reshape(4, 33)
    t = ember.asarray(x)
    y = ember.atanh(ember.tanh(t)) + ember.asinh(ember.sinh(t)) - ember.expm1(t * 0.5)
    want = 2 * x.astype(np.float64) - np.expm1(x.astype(np.float64) * 0.5)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-6)
