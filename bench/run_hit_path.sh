#!/bin/sh
# The cache-hit path against its baseline (bench/fusion_overhead_bench.cpp): the minimum
# ns_per_op of RUNS runs of `ember-bench-fusion --benchmark_filter='Build|Hit'`, one line per
# case. The development VM's timings are bimodal from run to run, so one run says little.
#   bench/run_hit_path.sh [build-dir | path to an ember-bench-fusion]   (default: build)
#   RUNS [6]
set -eu
cd "$(dirname "$0")/.."
target="${1:-build}"
if [ -d "$target" ]; then
  cmake --build "$target" --target ember-bench-fusion >/dev/null
  bin="$target/bin/ember-bench-fusion"
else
  bin="$target"
fi
for i in $(seq "${RUNS:-6}"); do
  "$bin" --benchmark_filter='Build|Hit' 2>/dev/null | grep '^BM_'
done | sed -E 's/^(BM_[^ ]*).*ns_per_op=([0-9.]+).*/\1 \2/' |
  awk '{ if (!($1 in m) || $2 < m[$1]) m[$1] = $2 } END { for (k in m) printf "%s %.1f\n", k, m[k] }' |
  sort
