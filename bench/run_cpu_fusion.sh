#!/bin/sh
# The CPU fusion benchmark of issue 4: fused vs unfused ember (Google Benchmark, one process)
# and numpy / numexpr / PyTorch on the same workloads, 2 threads each (ember uses one thread
# per core: run it on a 2-core machine to compare like with like), then one table of
# medians and ratios (docs/BENCHMARKS.md records its output).
#   bench/run_cpu_fusion.sh [build-dir]     (default: build, a Release build with EMBER_BUILD_BENCH)
# The peers' packages are installed here, not by the main install (.ci/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
build="${1:-build}"
need=""
for p in python3-numpy python3-numexpr python3-torch; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
fi
cmake --build "$build" --target ember-bench-cpu-fusion
out="$(mktemp -d)"
"$build/bin/ember-bench-cpu-fusion" --benchmark_min_time=0.3 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$out/ember.json"
# Debian's interpreter, where the packages above live (a PATH python3 may be another).
# The sizes of bench/cpu_fusion_bench.cpp's Sizes(): 2^12 and 2^16 show the per-launch cost.
EMBER_BENCH_THREADS=2 /usr/bin/python3 bench/cpu_peers.py 4096 65536 1048576 4194304 16777216 \
  >"$out/peers.jsonl"
/usr/bin/python3 bench/cpu_fusion_table.py "$out/ember.json" "$out/peers.jsonl"
rm -rf "$out"
