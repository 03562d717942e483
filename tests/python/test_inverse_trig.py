"""atan, atan2, asin and acos (Note [Inverse trigonometric compositions], _inverse_trig.py)
against NumPy computed in float64 and rounded: the error in ulp of float32 (np.spacing of the
rounded reference) over 1M values or pairs each, from subnormals to the largest floats, dense
near the reductions' switches, +-1 and 0; the special values and signed zeros (atan2's whole
table); every float16 value (in float16 ulp), bfloat16, ints, bools, Python scalars and
broadcasting in atan2; that nothing is read back to the host; and that the polynomials'
coefficients are the fit the module says they are.

The bounds are measured, with some room: every float32 value gave at most atan 0.745, asin
0.682 and acos 0.920 ulp, and 350M pairs atan2 1.51 ulp (the module's Note)."""

import warnings

import numpy as np
import pytest

import ember
from ember import _inverse_trig

# name: (NumPy reference, bound in float32 ulp)
UNARY = {"atan": (np.arctan, 1.0), "asin": (np.arcsin, 1.0), "acos": (np.arccos, 1.0)}
ATAN2_BOUND = 2.0
HALF_ULP = 0.5 + 1e-3  # float16: one rounding of a float32 result within an ulp


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


def float32(*parts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bit patterns' NaN
        return np.concatenate([np.asarray(p, np.float64).astype(np.float32) for p in parts])


def signs(rng, n):
    return rng.choice([-1.0, 1.0], n)


def values(name):
    rng = np.random.default_rng(48)
    n = 250000
    special = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38, 1e-20, -1e-8, 2.0**-12,
               0.25, 7 / 16, 0.5, -0.5, 11 / 16, 0.9999999, 1.0, -1.0, 1.0000001, 11 / 8, 2.0,
               4.0, -4.0, 1e8, 3.4028235e38, -3.4028235e38, np.inf, -np.inf, np.nan]
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    magnitudes = 10.0 ** rng.uniform(-45, 38.6, n) * signs(rng, n)
    if name == "atan":  # around the switches between the centres 0, 1/2, 1, 2 and inf
        switches = rng.choice([7 / 16, 11 / 16, 11 / 8, 4.0], n) * (1 + rng.normal(0, 1e-3, n))
        return float32(special, bits, magnitudes, switches * signs(rng, n),
                       rng.uniform(-6, 6, n))
    near_one = (1 - 10.0 ** rng.uniform(-8, 0, n)) * signs(rng, n)
    near_half = rng.uniform(0.49, 0.51, n) * signs(rng, n)
    small = 10.0 ** rng.uniform(-45, 0, n) * signs(rng, n)
    return float32(special, bits[:n // 10], rng.uniform(-1, 1, n), near_one, near_half, small)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float32_within_an_ulp_of_numpy(name):
    ref, bound = UNARY[name]
    x = values(name)
    assert x.size >= 1000000
    out = getattr(ember, name)(ember.asarray(x))
    assert out.dtype == ember.float32
    got = np.asarray(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ref(x.astype(np.float64))
    err = ulp_error(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, (f"{name}({x[worst]!r}) = {got[worst]!r}, NumPy "
                                 f"{want[worst]!r}: {err[worst]:.2f} ulp > {bound}")
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def atan2_pairs():
    rng = np.random.default_rng(48)
    n = 200000
    bits = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    magnitudes = 10.0 ** rng.uniform(-45, 38.6, (2, n)) * signs(rng, (2, n))
    normal = rng.normal(size=(2, n))
    ratio = rng.choice([7 / 16, 11 / 16, 11 / 8, 4.0, 1.0], n) * (1 + rng.normal(0, 1e-3, n))
    scale = 10.0 ** rng.uniform(-40, 37, n) * signs(rng, n)  # at the switches, at any size
    at_switches = np.stack([ratio * scale, scale * signs(rng, n)])
    near = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-150, 128, (1, n))  # one scale
    parts = [bits, magnitudes, normal, at_switches, near]
    return float32(*(p[0] for p in parts)), float32(*(p[1] for p in parts))


def test_atan2_within_two_ulp_of_numpy():
    y, x = atan2_pairs()
    assert y.size >= 1000000
    out = ember.atan2(ember.asarray(y), ember.asarray(x))
    assert out.dtype == ember.float32
    got = np.asarray(out)
    want = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    err = ulp_error(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= ATAN2_BOUND, (f"atan2({y[worst]!r}, {x[worst]!r}) = {got[worst]!r}, "
                                       f"NumPy {want[worst]!r}: {err[worst]:.2f} ulp")
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


PI = np.float32(np.pi)
SPECIAL = [  # name, x, exact result (float32)
    ("atan", [0.0, -0.0, 1e-45, -1e-40, 1.0, -1.0, np.inf, -np.inf, 3.4028235e38, np.nan],
     [0.0, -0.0, 1e-45, -1e-40, np.pi / 4, -np.pi / 4, np.pi / 2, -np.pi / 2, np.pi / 2,
      np.nan]),
    ("asin", [0.0, -0.0, 1e-45, -1e-40, 1.0, -1.0, 0.5, 1.0000001, -2.0, np.inf, -np.inf,
              np.nan],
     [0.0, -0.0, 1e-45, -1e-40, np.pi / 2, -np.pi / 2, np.pi / 6, np.nan, np.nan, np.nan,
      np.nan, np.nan]),
    ("acos", [1.0, -1.0, 0.0, -0.0, 0.5, -0.5, 1e-45, 1.0000001, -2.0, np.inf, -np.inf,
              np.nan],
     [0.0, np.pi, np.pi / 2, np.pi / 2, np.pi / 3, 2 * np.pi / 3, np.pi / 2, np.nan, np.nan,
      np.nan, np.nan, np.nan]),
]


@pytest.mark.parametrize("name,x,want", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_values_are_numpys(name, x, want):
    got = np.asarray(getattr(ember, name)(ember.asarray(np.array(x, np.float32))))
    want = np.array(want, np.float64).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    number = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[number]), np.signbit(want[number]))
    with warnings.catch_warnings():  # and NumPy's float64 values, rounded, agree
        warnings.simplefilter("ignore")
        numpy_says = UNARY[name][0](np.array(x, np.float64)).astype(np.float32)
    np.testing.assert_array_equal(numpy_says, want)


def test_atan2_special_value_table():
    """Every pair of signed zeros, subnormals, ones, the largest floats, infinities and NaN:
    NumPy's float64 atan2 rounded, signs included (the standard's table)."""
    v = [0.0, -0.0, 1e-45, -1e-45, 1.0, -1.0, 3.4028235e38, -3.4028235e38, np.inf, -np.inf,
         np.nan]
    y, x = (np.array(g, np.float32).ravel() for g in np.meshgrid(v, v, indexing="ij"))
    got = np.asarray(ember.atan2(ember.asarray(y), ember.asarray(x)))
    want = np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    number = ~np.isnan(want)  # (a NaN's sign is unspecified)
    assert np.array_equal(np.signbit(got[number]), np.signbit(want[number]))
    inf, pi = np.inf, np.pi
    cases = [(0.0, -0.0, PI), (-0.0, -0.0, -PI), (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0),
             (inf, inf, pi / 4), (inf, -inf, 3 * pi / 4), (-inf, -inf, -3 * pi / 4),
             (-inf, inf, -pi / 4), (1.0, 0.0, pi / 2), (1.0, -0.0, pi / 2), (-1.0, -0.0, -pi / 2),
             (0.0, -1.0, PI), (-0.0, -1.0, -PI), (1.0, inf, 0.0), (-1.0, inf, -0.0),
             (1.0, -inf, PI), (-1.0, -inf, -PI), (inf, 1.0, pi / 2), (-inf, -1.0, -pi / 2)]
    for a, b, c in cases:  # (a tuple of signed zeros would hash -0.0 as 0.0: no dict)
        r = ember.atan2(ember.asarray(np.float32([a])), ember.asarray(np.float32([b])))
        r = np.asarray(r)[0]
        assert r == np.float32(c) and np.signbit(r) == np.signbit(np.float32(c)), (a, b)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_every_float16_value_within_half_an_ulp(name):
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    out = getattr(ember, name)(ember.asarray(x))
    assert out.dtype == ember.float16
    got = np.asarray(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = UNARY[name][0](x.astype(np.float64))
    assert ulp_error(got, want, np.float16).max() <= HALF_ULP
    assert np.array_equal(np.isnan(got), np.isnan(want))
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def test_atan2_float16_within_half_an_ulp():
    rng = np.random.default_rng(48)
    bits = rng.integers(0, 2**16, (2, 200000)).astype(np.uint16).view(np.float16)
    out = ember.atan2(ember.asarray(bits[0]), ember.asarray(bits[1]))
    assert out.dtype == ember.float16
    got = np.asarray(out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.arctan2(bits[0].astype(np.float64), bits[1].astype(np.float64))
    assert ulp_error(got, want, np.float16).max() <= HALF_ULP
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


@pytest.mark.parametrize("name", sorted(UNARY) + ["atan2"])
def test_bfloat16_keeps_its_dtype(name):
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0, -0.5, -0.875, -1.0], np.float32)
    t = ember.astype(ember.asarray(x), ember.bfloat16)
    if name == "atan2":
        out, ref = ember.atan2(t, ember.flip(t)), lambda v: np.arctan2(v, v[::-1])
    else:
        out, ref = getattr(ember, name)(t), UNARY[name][0]
    assert out.dtype == ember.bfloat16
    got = np.asarray(ember.astype(out, ember.float32))
    np.testing.assert_allclose(got, ref(x.astype(np.float64)), rtol=2.0**-8, atol=0)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [ember.int32, ember.int64])
def test_ints_compute_in_float32(name, dtype):
    x = [-3, -1, 0, 1, 2, 50, 1000]
    out = getattr(ember, name)(ember.asarray(x, dtype=dtype))
    assert out.dtype == ember.float32
    floats = getattr(ember, name)(ember.asarray(np.array(x, np.float32)))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(floats))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_bools_compute_in_float32(name):
    out = getattr(ember, name)(ember.asarray([True, False]))
    assert out.dtype == ember.float32
    want = getattr(ember, name)(ember.asarray([1.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want))


def test_atan2_promotes_broadcasts_and_takes_scalars():
    y = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    x = np.array([[-1.0], [0.0], [2.5]], np.float32)
    y64, x64 = y.astype(np.float64), x.astype(np.float64)

    def close(got, want):
        assert got.dtype == ember.float32
        assert ulp_error(np.asarray(got), np.asarray(want, np.float64)).max() <= ATAN2_BOUND

    close(ember.atan2(ember.asarray(y), ember.asarray(x)), np.arctan2(y64, x64))
    close(ember.atan2(ember.asarray(y), -0.5), np.arctan2(y64, -0.5))
    close(ember.atan2(2, ember.asarray(x)), np.arctan2(2.0, x64))
    close(ember.atan2(-0.0, ember.asarray(x)), np.arctan2(-0.0, x64))
    ints = ember.atan2(ember.asarray([1, -2, 0], dtype=ember.int32), ember.asarray([-3, 0, -1]))
    close(ints, np.arctan2([1.0, -2.0, 0.0], [-3.0, 0.0, -1.0]))
    close(ember.atan2(ember.asarray([3, -4]), 1.5), np.arctan2([3.0, -4.0], 1.5))
    close(ember.atan2(ember.asarray([True, False]), ember.asarray([False, True])),
          np.arctan2([1.0, 0.0], [0.0, 1.0]))
    half = ember.astype(ember.asarray([1.0, -2.0]), ember.float16)
    assert ember.atan2(half, 1).dtype == ember.float16
    assert ember.atan2(half, ember.asarray([1.0])).dtype == ember.float32


@pytest.mark.parametrize("name", sorted(UNARY))
def test_non_tensors_are_refused(name):
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)([0.5])
    with pytest.raises(TypeError, match=name):
        getattr(ember, name)(0.5)


def test_atan2_refuses_non_tensors():
    with pytest.raises(TypeError, match="atan2"):
        ember.atan2(1.0, 2.0)
    with pytest.raises(TypeError, match="atan2"):
        ember.atan2(ember.asarray([1.0]), [2.0])


def test_nothing_is_read_back(no_host_reads):
    """The four compositions only queue ops."""
    x = ember.asarray(np.float32([[0.3, -0.0, 1.0], [-0.7, 5.0, np.nan]]))
    outs = [ember.atan(x), ember.asin(x), ember.acos(x), ember.atan2(x, ember.flip(x, axis=1)),
            ember.atan2(x, -1.0), ember.atan2(2, ember.astype(x, ember.float16)),
            ember.asin(ember.astype(x, ember.int32))]
    no_host_reads.undo()
    held = np.asarray(x).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wants = [np.arctan(held), np.arcsin(held), np.arccos(held),
                 np.arctan2(held, held[:, ::-1]), np.arctan2(held, -1.0)]
    for out, want in zip(outs, wants):
        assert ulp_error(np.asarray(out), want).max() <= ATAN2_BOUND
    assert np.asarray(outs[5]).dtype == np.float16


def coefficients(f, b, n, nodes=200):
    """The fit of f(t) = t + t z P(z), z = t^2, 0 < t <= b (P's n coefficients, constant
    first): least squares on Chebyshev nodes of z in (0, b^2], weighted for f's relative
    error, in float64; the module's literals are these rounded to float32."""
    k = np.arange(nodes)
    z = b * b * (1 - np.cos((k + 0.5) * np.pi / nodes)) / 2
    t = np.sqrt(z)
    w = z * t / f(t)
    a = z[:, None] ** np.arange(n)
    return np.linalg.lstsq(a * w[:, None], (f(t) - t) / (t * z) * w, rcond=None)[0]


@pytest.mark.parametrize("f,b,literals", [(np.arctan, 7 / 16, _inverse_trig._ATAN),
                                          (np.arcsin, 0.5, _inverse_trig._ASIN)],
                         ids=["atan", "asin"])
def test_coefficients_are_the_documented_fit(f, b, literals):
    c = coefficients(f, b, len(literals))
    np.testing.assert_allclose(np.float32(literals), c.astype(np.float32), rtol=2e-7)
    t = np.linspace(0, b, 100001)[1:]  # and the fit is within 0.03 of 2**-24, relative
    z = t * t
    fit = t + t * z * np.polyval(np.float64(np.float32(literals))[::-1], z)
    assert np.max(np.abs(fit - f(t)) / f(t)) < 0.03 * 2.0**-24


def test_lazy_chains_keep_the_values():
    x = np.linspace(-0.99, 0.99, 4 * 33, dtype=np.float32).reshape(4, 33)
    t = ember.asarray(x)
    y = ember.sin(ember.asin(t)) + ember.cos(ember.acos(t))
    y = y + ember.tan(ember.atan(t)) - ember.atan2(ember.sin(t), ember.cos(t))
    np.testing.assert_allclose(np.asarray(y), 2 * x.astype(np.float64), rtol=1e-5, atol=1e-6)
