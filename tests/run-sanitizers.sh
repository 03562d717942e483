#!/bin/sh
# Builds and runs the whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (the
# `asan` preset) and under ThreadSanitizer (`tsan`), the re-executed and forked child processes
# included (they are the same binaries, with the same sanitizer options in their environment).
# A sanitizer report fails its test (abort_on_error / halt_on_error, CMakePresets.json).
#   tests/run-sanitizers.sh [asan] [tsan]     (default: both, one after the other)
# JOBS (default: nproc) runs that many tests at once. Results: build-<preset>/Testing/ and the
# summary printed at the end; docs/RELIABILITY.md records the runs.
set -eu
cd "$(dirname "$0")/.."
presets="${*:-asan tsan}"
jobs="${JOBS:-$(nproc)}"
status=0
for preset in $presets; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  if ctest --preset "$preset" -j"$jobs" >"build-$preset/ctest.log" 2>&1; then
    echo "$preset: $(grep 'tests passed' "build-$preset/ctest.log")"
  else
    status=1
    echo "$preset: $(grep 'tests passed' "build-$preset/ctest.log" || echo 'ctest failed')"
    grep -E '\*\*\*(Failed|Exception)|Timeout' "build-$preset/ctest.log" || true
  fi
done
exit $status
