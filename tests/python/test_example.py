"""examples/python/mlp.py runs, matches NumPy, and starts warm from the database of its first
run (as README's Python section says)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "mlp.py"


def _run(db):
    env = dict(os.environ, EMBER_PLAN_DB=str(db), EMBER_SHM="off")
    out = subprocess.run([sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return int(re.search(r"explorations\s+(\d+)", out.stdout).group(1)), out.stdout


def test_the_example_runs_cold_then_warm(tmp_path):
    cold, _ = _run(tmp_path / "plans.db")
    warm, text = _run(tmp_path / "plans.db")
    assert cold > 0
    assert warm == 0, text
    assert "plans loaded          db 0" not in text


def test_the_torch_example_exchanges_without_copies():
    """examples/python/torch_interop.py: PyTorch's memory read in place by ember, ember's by
    PyTorch, results equal (on the GPU where both see one, else on the CPU)."""
    pytest.importorskip("torch")
    example = EXAMPLE.with_name("torch_interop.py")
    env = dict(os.environ, EMBER_PLAN_DB="off", EMBER_SHM="off")
    out = subprocess.run([sys.executable, str(example)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"ember read PyTorch's memory in place\s+True", out.stdout), out.stdout
    assert re.search(r"PyTorch read ember's output in place\s+True", out.stdout), out.stdout
