"""cumulative_sum and searchsorted (engine/python/ember/_scans.py) against NumPy: every ember
dtype, 1-D and 3-D tensors, every axis (negative ones too), include_initial, dtype=, ints to
int64's wrapping, float specials, ties, both sides, NaN's place at the end, sorter, promotion
and the refusals.

cumulative_sum is a Hillis-Steele scan, so its float sums add in another order than NumPy's
sequential ones: floats are compared with NumPy's float64 sums of the same inputs, within
ceil(log2 n) + 1 roundings of the dtype times the running sum of magnitudes (the scan's bound,
as a tree of that depth: measured in float32 at 2e-7 of it, up to 4M entries). Ints are exact."""

import math

import numpy as np
import pytest

import ember
from conftest import DTYPES, check, data, floats

FLOATS = ["float32", "float16", "bfloat16"]
EMBER_FLOAT = {"float32": ember.float32, "float16": ember.float16, "bfloat16": ember.bfloat16}
UNIT = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}  # unit roundoff


def reference(x, axis, include_initial, dtype=None):
    """NumPy's cumsum with the standard's include_initial (NumPy 1.24 has no cumulative_sum)."""
    axis = 0 if axis is None else axis
    out = np.cumsum(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = np.concatenate([np.zeros(shape, out.dtype), out], axis=axis)
    return out


def within_scan_bound(got, held, axis, include_initial, name):
    """got (ember) against NumPy's float64 sums of `held`, the values the tensor holds."""
    n = held.shape[0 if axis is None else axis]
    want = reference(held, axis, include_initial)
    magnitude = reference(np.abs(held), axis, include_initial)
    bound = (math.ceil(math.log2(n)) + 1) * UNIT[name] * magnitude
    values = np.asarray(got).astype(np.float64)
    assert values.shape == want.shape
    assert (np.abs(values - want) <= bound).all(), np.abs(values - want).max()


# --- cumulative_sum -------------------------------------------------------------------------
SCANS = [((1,), None), ((7,), None), ((8,), 0), ((9,), -1), ((1000,), None), ((2, 1, 3), 1),
         ((3, 5, 7), 0), ((3, 5, 7), 1), ((3, 5, 7), 2), ((3, 5, 7), -1), ((4, 33, 2), -2),
         ((2, 3, 64), -3)]


@pytest.mark.parametrize("shape,axis", SCANS, ids=str)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_], ids=lambda d: d.__name__)
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_of_ints_is_exact(shape, axis, dtype, include_initial, rng):
    x = data(rng, shape, dtype)
    out = ember.cumulative_sum(ember.asarray(x), axis=axis, include_initial=include_initial)
    assert out.dtype == ember.int64  # sum's dtype: the default int
    check(out, reference(x, axis, include_initial, np.int64))


@pytest.mark.parametrize("shape,axis", SCANS, ids=str)
@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_of_floats_within_the_scan_bound(shape, axis, name, include_initial,
                                                        rng):
    t, held = floats(rng.standard_normal(shape), name)
    out = ember.cumulative_sum(t, axis=axis, include_initial=include_initial)
    assert out.dtype == EMBER_FLOAT[name]
    within_scan_bound(out, held, axis, include_initial, name)


@pytest.mark.parametrize("n", [1000, 100_000])
def test_cumulative_sum_float32_of_positive_values(n, rng):
    """Positive terms: relative error of each prefix sum within the bound (the sum of the
    magnitudes is the sum itself)."""
    x = rng.uniform(0, 1, n).astype(np.float32)
    got = np.asarray(ember.cumulative_sum(ember.asarray(x))).astype(np.float64)
    want = np.cumsum(x.astype(np.float64))
    assert (np.abs(got - want) / want).max() <= (math.ceil(math.log2(n)) + 1) * 2.0**-24


def test_cumulative_sum_int64_wraps_as_numpy():
    x = np.array([2**62, 2**62, 2**62, -5, 2**63 - 1, 7, -(2**63), 3], np.int64)
    check(ember.cumulative_sum(ember.asarray(x)), np.cumsum(x))


@pytest.mark.parametrize("values,want", [
    ([1.0, np.inf, 2.0], [1.0, np.inf, np.inf]),
    ([1.0, np.inf, 2.0, -np.inf, 3.0], [1.0, np.inf, np.inf, np.nan, np.nan]),
    ([-np.inf, -1.0, -np.inf], [-np.inf, -np.inf, -np.inf]),
    ([1.0, np.nan, 2.0, 3.0], [1.0, np.nan, np.nan, np.nan]),
    ([np.nan, 1.0], [np.nan, np.nan]),
    ([-0.0], [-0.0]), ([-0.0, -0.0, -0.0], [-0.0, -0.0, -0.0]), ([-0.0, 0.0], [-0.0, 0.0])],
    ids=str)
@pytest.mark.parametrize("name", FLOATS)
def test_cumulative_sum_special_values(values, want, name):
    t, _ = floats(values, name)
    got = np.asarray(ember.cumulative_sum(t)).astype(np.float64)
    np.testing.assert_array_equal(got, want)
    number = ~np.isnan(got)  # a computed NaN's sign is unspecified
    assert np.array_equal(np.signbit(got[number]), np.signbit(np.asarray(want)[number]))
    with np.errstate(invalid="ignore"):  # inf - inf
        np.testing.assert_array_equal(got, np.cumsum(np.asarray(values, np.float32)))


@pytest.mark.parametrize("src,dtype,np_dtype", [
    (np.int32, ember.int32, np.int32), (np.int64, ember.int32, np.int32),
    (np.bool_, ember.int32, np.int32), (np.int32, ember.float32, np.float64),
    (np.float32, ember.int64, np.int64), (np.float32, ember.int32, np.int32),
    (np.float32, ember.float32, np.float64)], ids=str)
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_dtype(src, dtype, np_dtype, include_initial, rng):
    """x is cast to `dtype` first (floats to ints truncate, as NumPy's astype), then summed."""
    x = data(rng, (3, 40), src)
    if src is np.float32:
        x = x * 10
    out = ember.cumulative_sum(ember.asarray(x), axis=1, dtype=dtype,
                               include_initial=include_initial)
    assert out.dtype == dtype
    cast = x.astype(np.int32 if dtype == ember.int32 else np.int64) if dtype.kind == "i" else x
    want = reference(cast.astype(np_dtype), 1, include_initial)
    check(out, want, rtol=0, atol=(7 * 2.0**-24 * np.abs(want).max()) if dtype.kind == "f" else 0)


@pytest.mark.parametrize("src", [np.float32, np.int32, np.bool_], ids=lambda d: d.__name__)
def test_cumulative_sum_to_bool_is_numpys(src, rng):
    """dtype=bool: whether any entry so far is nonzero (NumPy's add on bools is or)."""
    x = data(rng, (4, 9), src)
    x[:, :2] = 0
    out = ember.cumulative_sum(ember.asarray(x), axis=-1, dtype=ember.bool)
    assert out.dtype == ember.bool
    check(out, np.cumsum(x, axis=-1, dtype=np.bool_))
    out = ember.cumulative_sum(ember.asarray(x), axis=0, dtype=ember.bool, include_initial=True)
    check(out, reference(x, 0, True, np.bool_))


def test_cumulative_sum_to_float16():
    x = np.linspace(-2, 3, 50).astype(np.float32)
    out = ember.cumulative_sum(ember.asarray(x), dtype=ember.float16)
    assert out.dtype == ember.float16
    within_scan_bound(out, x.astype(np.float16).astype(np.float64), None, False, "float16")


def test_cumulative_sum_refusals():
    t = ember.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="ember: cumulative_sum: axis=None with a 2-D tensor"):
        ember.cumulative_sum(t)
    with pytest.raises(ValueError, match="ember: cumulative_sum: a 0-d tensor"):
        ember.cumulative_sum(ember.asarray(np.float32(1.0)))
    with pytest.raises(IndexError, match="ember: cumulative_sum: axis 2 is out of range"):
        ember.cumulative_sum(t, axis=2)
    with pytest.raises(IndexError, match="ember: cumulative_sum: axis -3 is out of range"):
        ember.cumulative_sum(t, axis=-3)
    with pytest.raises(TypeError, match="ember: cumulative_sum: axis 1.0 is not an int"):
        ember.cumulative_sum(t, axis=1.0)
    with pytest.raises(TypeError, match="ember: cumulative_sum: expected an ember.Tensor"):
        ember.cumulative_sum(np.ones(3))
    with pytest.raises(TypeError, match="not an ember dtype"):
        ember.cumulative_sum(t, axis=0, dtype=np.float32)


# --- searchsorted ---------------------------------------------------------------------------
QUERIES = [(), (5,), (3, 4), (2, 3, 4)]


@pytest.mark.parametrize("shape", QUERIES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_is_numpys(shape, dtype, side, rng):
    x1 = np.sort(data(rng, (17,), dtype))  # ints from [-9, 9] and bools: ties
    x2 = data(rng, shape, dtype)
    if dtype is np.float32 and x2.ndim:
        x2.flat[::2] = rng.choice(x1, x2.flat[::2].size)  # ties with x1
    out = ember.searchsorted(ember.asarray(x1), ember.asarray(x2), side=side)
    assert out.dtype == ember.int64
    check(out, np.searchsorted(x1, x2, side=side))


NAN_ORDER_X1 = [-np.inf, -1.0, -0.0, 0.0, 2.0, 2.0, np.inf, np.nan, np.nan]
NAN_ORDER_X2 = [np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0, 3.0, -5.0, 1e30]


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_sorts_last(name, side):
    a, ha = floats(NAN_ORDER_X1, name)
    v, hv = floats(NAN_ORDER_X2, name)
    check(ember.searchsorted(a, v, side=side), np.searchsorted(ha, hv, side=side))
    check(ember.searchsorted(a, ember.reshape(v, (3, 3)), side=side),
          np.searchsorted(ha, hv.reshape(3, 3), side=side))


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_float_dtypes(name, side, rng):
    a, ha = floats(np.sort(rng.standard_normal(40)), name)
    v, hv = floats(np.concatenate([rng.standard_normal(30), ha[::3]]), name)
    check(ember.searchsorted(a, v, side=side), np.searchsorted(ha, hv, side=side))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("index", [np.int64, np.int32], ids=lambda d: d.__name__)
def test_searchsorted_with_sorter(dtype, side, index, rng):
    x1 = data(rng, (23,), dtype)
    if dtype is np.float32:
        x1[[3, 11]] = np.nan
        x1[5] = x1[7]
    sorter = np.argsort(x1, kind="stable")
    x2 = data(rng, (4, 6), dtype)
    if dtype is np.float32:
        x2[0, :3] = [np.nan, x1[5], np.inf]
    out = ember.searchsorted(ember.asarray(x1), ember.asarray(x2), side=side,
                             sorter=ember.asarray(sorter.astype(index)))
    check(out, np.searchsorted(x1, x2, side=side, sorter=sorter))


@pytest.mark.parametrize("d1,d2", [(np.int32, np.float32), (np.float32, np.int64),
                                   (np.int32, np.int64), (np.bool_, np.int32),
                                   (np.float32, np.bool_)], ids=str)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_promotes(d1, d2, side, rng):
    x1 = np.sort(data(rng, (15,), d1))
    x2 = data(rng, (3, 5), d2)
    if d2 is np.float32:
        x2 = np.round(x2 * 8) / 2  # halves: ties and values between x1's ints
    out = ember.searchsorted(ember.asarray(x1), ember.asarray(x2), side=side)
    assert out.dtype == ember.int64
    check(out, np.searchsorted(x1.astype(np.float64), x2.astype(np.float64), side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_single_entry(side):
    x1 = np.float32([1.0])
    x2 = np.float32([0.0, 1.0, 2.0])
    check(ember.searchsorted(ember.asarray(x1), ember.asarray(x2), side=side),
          np.searchsorted(x1, x2, side=side))


def test_searchsorted_refusals():
    a = ember.asarray(np.float32([1.0, 2.0, 3.0]))
    v = ember.asarray(np.float32([2.0]))
    with pytest.raises(ValueError, match="ember: searchsorted: side 'middle'; expected 'left'"):
        ember.searchsorted(a, v, side="middle")
    with pytest.raises(ValueError, match="ember: searchsorted: side 'LEFT'"):
        ember.searchsorted(a, v, side="LEFT")
    with pytest.raises(ValueError, match="ember: searchsorted: x1 is a 2-D tensor; expected 1-D"):
        ember.searchsorted(ember.reshape(ember.asarray(np.float32([1.0, 2.0])), (1, 2)), v)
    with pytest.raises(ValueError, match="ember: searchsorted: x1 is a 0-D tensor; expected 1-D"):
        ember.searchsorted(ember.asarray(np.float32(1.0)), v)
    with pytest.raises(TypeError, match="ember: searchsorted: expected an ember.Tensor"):
        ember.searchsorted(np.float32([1.0, 2.0]), v)
    with pytest.raises(TypeError, match="ember: searchsorted: expected an ember.Tensor"):
        ember.searchsorted(a, 2.0)
    with pytest.raises(TypeError, match="ember: searchsorted: expected an ember.Tensor"):
        ember.searchsorted(a, v, sorter=[0, 1, 2])
    with pytest.raises(TypeError, match="ember: searchsorted: sorter is a float32 tensor"):
        ember.searchsorted(a, v, sorter=ember.asarray(np.float32([0, 1, 2])))
    with pytest.raises(ValueError, match="ember: searchsorted: sorter of shape \\(2,\\)"):
        ember.searchsorted(a, v, sorter=ember.asarray(np.int64([0, 1])))
    with pytest.raises(ValueError, match="ember: searchsorted: sorter of shape \\(1, 3\\)"):
        ember.searchsorted(a, v, sorter=ember.asarray(np.int64([[0, 1, 2]])))


def test_new_functions_read_nothing_back(no_host_reads):
    """The four compositions only queue ops: none reads a value back on the host."""
    x = ember.asarray(np.float32([[3.0, -0.0, 1.0], [2.0, 5.0, np.nan]]))
    a = ember.asarray(np.float32([0.0, 1.0, 2.0, 2.0, np.nan]))
    outs = [ember.cumulative_sum(ember.copysign(x, -1.0), axis=1, include_initial=True),
            ember.cumulative_sum(ember.astype(x, ember.int32), axis=0, dtype=ember.bool),
            ember.searchsorted(a, x, side="right"),
            ember.searchsorted(a, x, sorter=ember.asarray(np.int64([4, 3, 2, 1, 0]))),
            ember.signbit(x), ember.copysign(3, ember.asarray(np.int32([-1, 2])))]
    no_host_reads.undo()
    held = np.asarray(x)
    check(outs[0], reference(-np.abs(held.astype(np.float64)), 1, True))
    check(outs[2], np.searchsorted(np.asarray(a), held, side="right"))
    check(outs[4], np.signbit(held) & ~np.isnan(held))
