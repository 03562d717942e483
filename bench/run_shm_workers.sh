#!/bin/sh
# The shared-memory tier's benchmarks (issue 6; docs/BENCHMARKS.md records the output):
#   1. N = 1, 2, 4, 8 workers (ember-bench-warm-start: 200 distinct segments each) start
#      together on a fresh database, with the tier on, on without waiting for siblings' claims
#      (nowait), and off, $RUNS times each; the wall time
#      until the last worker has its last result, and every worker's explorations, plans by
#      tier and time to first result;
#   2. BM_TierLookup: one first op's plans from memory, the shared segment and SQLite.
# Then the Markdown tables (bench/shm_workers_table.py).
#   bench/run_shm_workers.sh [build-dir]   (default: build, a Release build with EMBER_BUILD_BENCH)
# Databases live in a mktemp -d directory, removed at exit with their segments.
set -eu
cd "$(dirname "$0")/.."
repo="$(pwd)"
build="$(cd "${1:-build}" && pwd)"
runs="${RUNS:-5}"
# EMBER_BENCH_NO_BUILD=1: use the binaries as they are (a machine without the toolchain).
if [ "${EMBER_BENCH_NO_BUILD:-0}" != 1 ]; then
  cmake --build "$build" -j2 --target ember-bench-warm-start ember-bench-plan-db
fi
out="$(mktemp -d)"
warm_start="$build/bin/ember-bench-warm-start"
db="$out/plans.db"
cleanup() {
  EMBER_PLAN_DB="$db" "$warm_start" --remove-shm >/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
cd "$out"
export TMPDIR="$out"

for run in $(seq "$runs"); do
  for n in 1 2 4 8; do
    for shm in on nowait off; do
      EMBER_PLAN_DB="$db" "$warm_start" --remove-shm >/dev/null
      rm -f "$db" "$db-wal" "$db-shm"
      start=$(date +%s%N)
      for i in $(seq "$n"); do
        # nowait: the tier without single flight ([store] shm_wait_ms = 0).
        EMBER_PLAN_DB="$db" EMBER_SHM="$([ "$shm" = off ] && echo off || echo on)" \
          EMBER_SHM_WAIT_MS="$([ "$shm" = nowait ] && echo 0 || echo 1000)" \
          EMBER_WORKLOAD=workers "$warm_start" >"worker-$i.json" &
      done
      wait
      end=$(date +%s%N)
      for i in $(seq "$n"); do
        printf '{"run": %s, "workers": %s, "shm": "%s", "wall_ms": %s, "worker": %s}\n' \
          "$run" "$n" "$shm" "$(( (end - start) / 1000 ))e-3" "$(cat "worker-$i.json")" \
          >>workers.jsonl
      done
    done
  done
done

"$build/bin/ember-bench-plan-db" --benchmark_filter=BM_TierLookup --benchmark_min_time=0.2 \
  --benchmark_repetitions="$runs" --benchmark_report_aggregates_only=true \
  --benchmark_format=json >tiers.json

python3 "$repo/bench/shm_workers_table.py" "$out"
# EMBER_BENCH_KEEP=DIR: keep the raw measurements there.
if [ -n "${EMBER_BENCH_KEEP:-}" ]; then cp "$out/workers.jsonl" "$out/tiers.json" "$EMBER_BENCH_KEEP"; fi
