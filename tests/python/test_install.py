"""`cmake --install` puts the package under <prefix>/lib/python, importable from there alone
(CTest passes the build directory; run by hand, the test needs EMBER_BUILD_DIR)."""

import os
import subprocess
import sys

import pytest

BUILD = os.environ.get("EMBER_BUILD_DIR")


@pytest.mark.skipif(BUILD is None, reason="EMBER_BUILD_DIR is not set (CTest sets it)")
def test_the_installed_package_imports_and_runs(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=300)
    package = prefix / "lib" / "python"
    env = dict(os.environ, PYTHONPATH=str(package), EMBER_PLAN_DB="off")
    out = subprocess.run([sys.executable, "-c", "import ember; print(ember.__file__); "
                          "print(ember.sum(ember.arange(5) * 2).tolist())"],
                         env=env, check=True, capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    where, value = out.stdout.split()
    assert where.startswith(str(package))
    assert value == "20"
