"""examples/python/mlp.py runs, matches NumPy, and starts warm from the database of its first
run (as README's Python section says)."""

import os
import pathlib
import re
import subprocess
import sys

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
