"""The engine under Python: stats, sync and flush_plans, the plan database shared by a second
process, threads (each its own stream, the GIL released while ember computes), and errors."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ember
from conftest import check


def test_stats_has_the_cpp_fields():
    s = ember.stats()
    for field in ["explorations", "cache_hits", "plans", "fused_executions",
                  "unfused_operations", "launches", "plans_loaded_from_db", "plans_published",
                  "cache_hits_from_db", "cache_hits_from_shm", "kernels_compiled", "compile_ms",
                  "plan_load_ms"]:
        assert field in s, field
    assert "no_candidate" in s["misses"] and "total" in s["misses"]
    assert "captures" in s["graphs"] and "engine_ms" in s["start"]


def test_ops_are_lazy_and_fuse():
    a = ember.asarray(np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8))
    before = ember.stats()
    y = ember.exp(a * a + a * 2.0)
    queued = ember.stats()
    assert queued["fused_executions"] == before["fused_executions"]  # nothing ran yet
    ember.sync()
    after = ember.stats()
    assert after["fused_executions"] == before["fused_executions"] + 1
    x = np.asarray(a, dtype=np.float64)
    check(y, np.exp(x * x + x * 2.0), rtol=1e-5)
    ember.flush_plans()  # no database in this process: returns at once


def test_recent_misses_explain():
    ember.sin(ember.asarray(np.ones((3, 5), np.float32))).tolist()
    assert all(isinstance(line, str) for line in ember.recent_misses())


_PROGRAM = textwrap.dedent("""
    import json, numpy as np, ember
    a = ember.asarray(np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64))
    b = ember.asarray(np.linspace(0, 2, 4096, dtype=np.float32).reshape(64, 64))
    for _ in range(3):
        y = ember.exp(a * b + a * 2.0)
        z = ember.sum(ember.tanh(y @ b), axis=1)
        np.asarray(z)
    ember.flush_plans()
    print(json.dumps(ember.stats()))
""")


def _run(db, extra_env=None):
    env = dict(os.environ, EMBER_PLAN_DB=str(db), EMBER_SHM="off", **(extra_env or {}))
    out = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, check=True,
                         capture_output=True, text=True, timeout=120)
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_on_the_same_database_explores_nothing(tmp_path):
    db = tmp_path / "plans.db"
    cold = _run(db)
    assert cold["explorations"] > 0
    assert cold["plans_published"] > 0
    assert db.exists()
    warm = _run(db)
    assert warm["explorations"] == 0
    assert warm["plans_loaded_from_db"] > 0
    assert warm["cache_hits_from_db"] > 0
    # EMBER_PLAN_DB=off: memory only, so a third process explores again.
    off = _run("off")
    assert off["explorations"] > 0 and off["plans_loaded_from_db"] == 0


def test_threads_have_streams_of_their_own(rng):
    inputs = [rng.standard_normal((32, 32)).astype(np.float32) for _ in range(6)]
    results, errors = [None] * len(inputs), []

    def work(i):
        try:
            t = ember.asarray(inputs[i])
            for _ in range(20):
                t = ember.tanh(t @ t * 0.1 + 0.5)
            results[i] = np.array(t)
        except Exception as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for x, got in zip(inputs, results):
        want = x.astype(np.float64)
        for _ in range(20):
            want = np.tanh(want @ want * 0.1 + 0.5)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_tensor_made_on_one_thread_is_used_on_another():
    made = {}
    th = threading.Thread(target=lambda: made.update(t=ember.asarray([1.0, 2.0]) * 3.0))
    th.start()
    th.join()
    check(made["t"] + 1.0, np.array([4.0, 7.0]))


def test_errors_map_to_python_exceptions_with_the_cpp_message():
    a = ember.asarray(np.ones((2, 3), np.float32))
    b = ember.asarray(np.ones((4, 3), np.float32))
    with pytest.raises(ValueError, match=r"ember: Add: shapes \[2,3\] and \[4,3\] do not "
                                         "broadcast"):
        a + b
    with pytest.raises(TypeError, match=r"ember: Add: got \[1\] bool; expected a float or int"):
        ember.asarray([True]) + ember.asarray([True])
    with pytest.raises(TypeError, match="expected a bool tensor"):
        ember.where(ember.asarray([1]), a, a)
    with pytest.raises(TypeError, match="not an ember dtype"):
        ember.zeros((2,), dtype="float32")
    with pytest.raises(ValueError, match="dim"):
        ember.zeros((2, 0))
    with pytest.raises(ValueError, match="no empty tensors"):
        ember.asarray(np.ones((0, 3)))
    with pytest.raises(TypeError, match="cannot make a tensor"):
        ember.asarray([object()])
    with pytest.raises(ValueError, match="do not broadcast"):
        ember.where(ember.asarray([True, False]), a, 0.0)
    with pytest.raises(TypeError, match="Python scalar"):
        a + "x"
    with pytest.raises(ValueError, match="fit"):
        ember.full((2,), 3e9, dtype=ember.int32)


def test_a_rejected_call_queues_nothing():
    a = ember.asarray(np.ones((2, 3), np.float32))
    ember.sync()
    before = ember.stats()
    for _ in range(3):
        with pytest.raises(ValueError):
            a @ a
    ember.sync()
    after = ember.stats()
    assert after["unfused_operations"] == before["unfused_operations"]
    assert after["fused_executions"] == before["fused_executions"]
