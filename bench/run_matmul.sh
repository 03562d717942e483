#!/bin/sh
# The CPU matmul against numpy (issue 18): ember-bench-ops' BM_Matmul_Ember (n = 256 .. 2048)
# and bench/matmul_peer.py on the same thread count, one after the other on one machine; prints
# both as JSON lines (docs/BENCHMARKS.md records the ratios).
#   bench/run_matmul.sh [build-dir]     (default: build, a Release build with EMBER_BUILD_BENCH)
set -eu
cd "$(dirname "$0")/.."
build="${1:-build}"
dpkg -s python3-numpy >/dev/null 2>&1 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy
}
cmake --build "$build" --target ember-bench-ops
threads="${EMBER_BENCH_THREADS:-$(nproc)}"
"$build/bin/ember-bench-ops" --benchmark_filter='BM_Matmul_Ember' --benchmark_min_time=0.5 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=json |
  /usr/bin/python3 -c '
import json, sys
for b in json.load(sys.stdin)["benchmarks"]:
    if b.get("aggregate_name") == "median":
        n = int(b["run_name"].split("/")[1])
        ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        print(json.dumps({"who": "ember", "n": n, "ms": ms, "gflops": 2 * n ** 3 / ms / 1e6}))'
EMBER_BENCH_THREADS="$threads" /usr/bin/python3 bench/matmul_peer.py | sed 's/^{/{"who": "numpy", /'
