#!/bin/sh
# Builds the libFuzzer programs (clang, AddressSanitizer + UndefinedBehaviorSanitizer) in
# build-fuzz/ and runs each fuzz target for MINUTES (default 10), JOBS at a time (default: the
# number of cores), on a working corpus seeded from tests/fuzz/corpus/<target>/.
#   tests/fuzz/run-fuzzers.sh [MINUTES] [TARGET...]      (targets: every *_fuzz.cpp by default)
# Writes build-fuzz/fuzz-runs/<target>/{log,corpus/,crashes/} and prints one line per target:
# executions, executions per second, coverage, corpus size, crashes. Exit 1 when a target
# crashed (its inputs are in crashes/). With MERGE=1, each target's working corpus is merged
# (libFuzzer -merge=1: the inputs that add coverage) into tests/fuzz/corpus/<target>/ and
# its crashers are copied there too, so that the ordinary build replays them in CI
# (ember_fuzz_replay_tests). tests/fuzz/README.md.
set -eu
cd "$(dirname "$0")/../.."
repo="$(pwd)"
minutes="${1:-10}"
[ $# -gt 0 ] && shift
jobs="${JOBS:-$(nproc)}"
build="$repo/build-fuzz"
targets="$*"
if [ -z "$targets" ]; then
  targets="$(ls tests/fuzz/*_fuzz.cpp | sed 's|.*/||; s|_fuzz.cpp$||')"
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DEMBER_FUZZ=ON -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_BENCH=OFF \
  -DEMBER_WITH_CUDA=OFF >/dev/null
cmake --build "$build" --target $(for t in $targets; do printf 'ember-fuzz-%s ' "$t"; done)

runs="$build/fuzz-runs"
seconds=$((minutes * 60))
run_one() {
  t="$1"
  dir="$runs/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/crashes"
  # The sanitizers abort on the first error; leaks are reported at exit (detect_leaks).
  ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/ember-fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$dir/crashes/" "$dir/corpus" \
    "$repo/tests/fuzz/corpus/$t" >"$dir/log" 2>&1 || true
}

# JOBS targets at a time.
running=0
for t in $targets; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait
    running=0
  fi
done
wait

status=0
printf '%-16s %14s %10s %8s %8s %8s\n' target executions exec/s cov corpus crashes
for t in $targets; do
  dir="$runs/$t"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)"
  cov="$(grep -o 'cov: [0-9]*' "$dir/log" | tail -n 1 | sed 's/cov: //')"
  corpus="$(ls "$dir/corpus" | wc -l)"
  crashes="$(ls "$dir/crashes" | wc -l)"
  printf '%-16s %14s %10s %8s %8s %8s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "$corpus" "$crashes"
  [ "$crashes" -gt 0 ] && status=1
  if [ "${MERGE:-0}" = 1 ]; then
    # Adds to the kept corpus the inputs of the run that cover what it does not yet.
    "$build/fuzz/ember-fuzz-$t" -merge=1 "$repo/tests/fuzz/corpus/$t" "$dir/corpus" \
      >>"$dir/log" 2>&1 || true
    for f in "$dir/crashes"/*; do
      [ -e "$f" ] && cp "$f" "$repo/tests/fuzz/corpus/$t/$(basename "$f")"
    done
  fi
done
exit $status
