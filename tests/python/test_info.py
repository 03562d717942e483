"""__array_namespace_info__ (the standard's 2023.12 inspection namespace): capabilities, the
devices ember can use, its dtypes by kind and its defaults."""

import pytest

import ember


def test_capabilities_and_default_device():
    info = ember.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True}
    assert info.default_device() == "cpu"


def test_devices_are_the_ones_device_accepts():
    devices = ember.__array_namespace_info__().devices()
    assert devices[0] == "cpu"
    for d in devices:
        assert ember.zeros((2,), device=d).device == d
    gpus = [d for d in devices if d != "cpu"]
    assert gpus == [f"cuda:{i}" for i in range(len(gpus))]
    if not gpus:
        with pytest.raises(RuntimeError):
            ember.zeros((2,), device="cuda:0")


def test_dtypes_by_kind():
    info = ember.__array_namespace_info__()
    assert info.dtypes() == {"float32": ember.float32, "float16": ember.float16,
                             "bfloat16": ember.bfloat16, "int32": ember.int32,
                             "int64": ember.int64, "bool": ember.bool}
    assert set(info.dtypes(kind="real floating")) == {"float32", "float16", "bfloat16"}
    assert set(info.dtypes(kind="integral")) == {"int32", "int64"}
    assert set(info.dtypes(kind=("bool", ember.int32))) == {"bool", "int32"}
    assert info.dtypes(kind="complex floating") == {}
    assert info.dtypes(kind="unsigned integer") == {}
    assert info.dtypes(device="cpu") == info.dtypes()
    with pytest.raises(ValueError):
        info.dtypes(kind="decimal")


def test_default_dtypes():
    defaults = ember.__array_namespace_info__().default_dtypes(device="cpu")
    assert defaults == {"real floating": ember.float32, "complex floating": None,
                        "integral": ember.int64, "indexing": ember.int64}
    assert ember.asarray(1.5).dtype == defaults["real floating"]
    assert ember.asarray(1).dtype == defaults["integral"]
    with pytest.raises(ValueError):
        ember.__array_namespace_info__().default_dtypes(device="tpu")
