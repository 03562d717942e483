#!/bin/sh
# The plan database benchmarks of issue 5, in one run (docs/BENCHMARKS.md records the output):
#   1. warm start: ember-bench-warm-start cold (fresh database), warm (the same file, a new
#      process) and memory-only (EMBER_PLAN_DB=off), interleaved, $RUNS times each, for the
#      engine's own timings; then hyperfine for the whole process's wall time;
#   2. ember-bench-plan-db: lookup latency, decode+validate time and bytes per plan;
#   3. publish throughput: 1 and 4 forked writer processes, batches of 1 and 32 plans;
# then one set of Markdown tables (bench/plan_db_table.py).
#   bench/run_plan_db.sh [build-dir]     (default: build, a Release build with EMBER_BUILD_BENCH)
# Every database lives in a mktemp -d directory, also the working directory of the runs, so
# that no ./.ember/ appears anywhere else; it is removed at exit.
set -eu
cd "$(dirname "$0")/.."
repo="$(pwd)"
build="$(cd "${1:-build}" && pwd)"
runs="${RUNS:-5}"
if ! command -v hyperfine >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine
fi
cmake --build "$build" -j2 --target ember-bench-warm-start ember-bench-plan-db
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$out"
export TMPDIR="$out"
# SQLite alone: with the shared-memory tier a warm process would read the segment the cold one
# filled (bench/run_shm_workers.sh measures that tier).
export EMBER_SHM=off
warm_start="$build/bin/ember-bench-warm-start"
db="$out/plans.db"

for i in $(seq "$runs"); do
  rm -f "$db" "$db-wal" "$db-shm"
  EMBER_PLAN_DB="$db" "$warm_start" >>cold.jsonl
  EMBER_PLAN_DB="$db" "$warm_start" >>warm.jsonl
  EMBER_PLAN_DB=off "$warm_start" >>off.jsonl
done

# Whole processes (start-up and exit included). The warm command reads the file the last cold
# run left.
hyperfine -N --style basic --warmup 1 --runs $((runs * 2)) --export-json hyperfine.json \
  -n cold --prepare "rm -f $db $db-wal $db-shm" "env EMBER_PLAN_DB=$db $warm_start" \
  -n warm --prepare "true" "env EMBER_PLAN_DB=$db $warm_start" \
  -n off --prepare "true" "env EMBER_PLAN_DB=off $warm_start" >/dev/null

"$build/bin/ember-bench-plan-db" --benchmark_min_time=0.2 --benchmark_repetitions="$runs" \
  --benchmark_report_aggregates_only=true --benchmark_format=json >micro.json

for writers in 1 4; do
  for batch in 1 32; do
    for i in $(seq 3); do
      "$build/bin/ember-bench-plan-db" --publish="$writers,2000,$batch" >>publish.jsonl
    done
  done
done

/usr/bin/python3 "$repo/bench/plan_db_table.py" "$out"
