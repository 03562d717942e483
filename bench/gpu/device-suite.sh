#!/usr/bin/env bash
# The GPU suite on the lent GPU machine (docs/BENCHMARKS.md, "The GPU suite"), in two halves:
#
#   bash bench/gpu/device-suite.sh build   here (the CPU machine): a Release build in build-gpu/
#       (Ninja, EMBER_WITH_CUDA=ON, tests on) of the GPU test binary, ember-lab, ember-plans,
#       ember-bench-gpu, ember-bench-gpt and ember-floor-probe, and build-gpu/bundle/: those
#       binaries, stripped, and every shared library they need that the GPU machine's image
#       (Ubuntu 24.04 with CUDA) may lack. The C and C++ runtimes stay out (the image's are
#       newer than this machine's, and compatible) and so do the CUDA driver, NVRTC and
#       cuBLAS(Lt): the machine has its own. The bundle is packed as build-gpu/bundle.tar.xz,
#       which is what a device call carries (carry=["build-gpu/bundle.tar.xz"]).
#       SUITE_BUILD_DIR=build compiles in the ./test.sh tree instead (same configuration).
#   bash bench/gpu/device-suite.sh run     there, from the repository root, with
#       build-gpu/bundle.tar.xz carried (bench/gpu/unpack-bundle.sh unpacks it): nvidia-smi -L,
#       the GPU tests (gtest XML and logs), ember-bench-gpu, torch_peer.py, report.py; writes
#       $OUT/results.md and at most 7 other files to $OUT.
#       Each step has a time limit and the whole run stays under ~8 minutes (SUITE_DEADLINE_S).
#
# Environment for `run` (defaults in brackets):
#   SUITE_PARTS [tests,diff,bench]  which parts run (a second call can run the rest)
#   SUITE_DEADLINE_S [480]   the whole run; each step gets at most what is left of it
#   TESTS_S [200]            the GPU tests other than the random programs
#   DIFF_S [150]             the random programs (EMBER_GPU_DIFF_PROGRAMS [40] here: the
#                            test's own default of 300 no longer fits the limit on an H100)
#   EMBER_BENCH_GPU_SIZES, TORCH_PEER_SIZES [24,26,28,20,22], *_BUDGET_S [70], *_REPEATS [15]
#   EMBER_BENCH_GPU_MATMUL, TORCH_PEER_MATMUL [1], TORCH_PEER_COMPILE [1]
#   BENCH_S [130], PEER_S [130]   the limits of ember-bench-gpu and torch_peer.py (each also
#                            within what is left of SUITE_DEADLINE_S)
# Run here without a GPU, every GPU part skips and says why; results.md is still written.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"
build="$repo/build-gpu"
bundle="$build/bundle"
# `build` may compile in another tree configured the same way (SUITE_BUILD_DIR=build: the
# Release tree ./test.sh builds, where CUDA was found at configure time), so a session that
# has built it does not compile everything again; the packed bundle still goes to build-gpu/.
compile="${SUITE_BUILD_DIR:-$build}"
[[ "$compile" = /* ]] || compile="$repo/$compile"
binaries=(tests/ember_gpu_tests tests/ember_cuda_runtime_tests tests/ember_codegen_tests
  bin/ember-lab bin/ember-plans bin/ember-bench-gpu bin/ember-bench-gpt bin/ember-floor-probe)

build_suite() {
  set -e
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$repo" -B "$compile" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_WITH_CUDA=ON \
    -DEMBER_BUILD_TESTS=ON "${launcher[@]}"
  cmake --build "$compile" -j"${JOBS:-2}" --target ember_gpu_tests ember_cuda_runtime_tests \
    ember_codegen_tests ember-lab ember-plans ember-bench-gpu ember-bench-gpt ember-floor-probe
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib"
  # The tree the bundle was built from (the GPU machine's copy of the tree has no history).
  git -C "$repo" describe --always --dirty >"$bundle/COMMIT" 2>/dev/null || echo unknown >"$bundle/COMMIT"
  for b in "${binaries[@]}"; do
    cp "$compile/$b" "$bundle/bin/"
    strip "$bundle/bin/$(basename "$b")"
  done
  # Shared libraries: everything ldd resolves except the C/C++ runtimes and the CUDA stack.
  local skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s|libcuda\.so|libnvrtc|libcublas|libcudart)'
  for b in "$bundle"/bin/*; do
    ldd "$b" | awk '$3 ~ /^\// { print $1, $3 }'
  done | sort -u | while read -r name path; do
    if [[ "$name" =~ $skip ]]; then continue; fi
    cp -L "$path" "$bundle/lib/$name"
    strip --strip-unneeded "$bundle/lib/$name" 2>/dev/null || true
  done
  echo "device-suite: bundle $(du -sh "$bundle" | cut -f1) in $bundle:"
  ls -l "$bundle/bin" "$bundle/lib" | sed 's/^/  /'
  local missing
  missing="$(for b in "$bundle"/bin/*; do LD_LIBRARY_PATH="$bundle/lib" ldd "$b"; done |
    grep 'not found' | grep -Ev 'lib(cuda|nvrtc|cublas|cudart)' | sort -u || true)"
  if [[ -n "$missing" ]]; then
    echo "device-suite: unresolved libraries:" >&2
    echo "$missing" >&2
    exit 1
  fi
  # What travels is the bundle packed with xz (the device call carries at most 64 MiB, and the
  # bundle itself has outgrown that since OpenBLAS joined it); `run` unpacks it.
  tar cJf "$build/bundle.tar.xz" -C "$build" bundle
  local kib
  kib="$(du -sk "$build/bundle.tar.xz" | cut -f1)"
  echo "device-suite: carry build-gpu/bundle.tar.xz ($((kib / 1024)) MiB packed)"
  if ((kib > 60 * 1024)); then
    echo "device-suite: the packed bundle is $((kib / 1024)) MiB, over the 60 MiB it may take" >&2
    exit 1
  fi
}

run_suite() {
  local out="${OUT:-$repo/out}"
  mkdir -p "$out"
  local start=$SECONDS deadline="${SUITE_DEADLINE_S:-480}"
  # The time a step may take: its own limit, or what is left of the deadline (less a reserve
  # for the report), whichever is smaller; at least 10 s.
  limit() {
    local left=$((deadline - (SECONDS - start) - 20))
    local want="$1"
    ((left < want)) && want=$left
    ((want < 10)) && want=10
    echo "$want"
  }
  bash "$repo/bench/gpu/unpack-bundle.sh"
  if [[ ! -x "$bundle/bin/ember_gpu_tests" ]]; then
    echo "device-suite: $bundle/bin/ember_gpu_tests is missing: run 'build' first and carry build-gpu/bundle.tar.xz" >&2
    exit 2
  fi
  export LD_LIBRARY_PATH="$bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export EMBER_LAB_BINARY="$bundle/bin/ember-lab"
  export EMBER_CODEGEN_GOLDEN_DIR="$repo/tests/codegen/golden"
  export PYTHONUNBUFFERED=1
  local work
  work="$(mktemp -d)"
  # Expanded now: `work` is local and gone when the EXIT trap runs.
  trap "rm -rf '$work'" EXIT
  cd "$work"  # the engine's and the tests' files go here, not into the repository

  {
    echo "# GPU suite results"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit: $(cat "$bundle/COMMIT" 2>/dev/null || echo unknown)"
    echo "- host: $(uname -srm), $(nproc) cores"
    echo "- GPUs (nvidia-smi -L):"
    echo
    echo '```'
    if command -v nvidia-smi >/dev/null; then nvidia-smi -L 2>&1; else echo "nvidia-smi: not on this machine"; fi
    echo '```'
    echo
  } >"$work/head.md"
  cat "$work/head.md"

  local parts=",${SUITE_PARTS:-tests,diff,bench},"
  touch "$work/diff.log"
  if [[ "$parts" == *,tests,* ]]; then
    echo "device-suite: GPU tests (limit $(limit "${TESTS_S:-200}") s)"
    # The runtime layer's and the generator's own suites first: short, and they say whether
    # the driver, NVRTC and cuBLASLt work at all on this machine.
    # Their XML stays in $work (at most 8 files come back) but counts in results.md: a failure
    # there is a failure of the suite.
    for suite in ember_cuda_runtime_tests ember_codegen_tests; do
      timeout --kill-after=10 60 "$bundle/bin/$suite" --gtest_brief=1 \
        --gtest_output="xml:$work/$suite.xml" >>"$out/tests.log" 2>&1
      echo "device-suite: $suite exit status $?" >>"$out/tests.log"
    done
    timeout --kill-after=10 "$(limit "${TESTS_S:-200}")" "$bundle/bin/ember_gpu_tests" \
      --gtest_filter='-DifferentialGpu.*' --gtest_output="xml:$out/gtest-main.xml" \
      >>"$out/tests.log" 2>&1
    echo "device-suite: exit status $?" >>"$out/tests.log"
  fi
  if [[ "$parts" == *,diff,* ]]; then
    echo "device-suite: random programs (limit $(limit "${DIFF_S:-150}") s)"
    EMBER_GPU_DIFF_PROGRAMS="${EMBER_GPU_DIFF_PROGRAMS:-40}" \
      timeout --kill-after=10 "$(limit "${DIFF_S:-150}")" "$bundle/bin/ember_gpu_tests" \
      --gtest_filter='DifferentialGpu.*' --gtest_output="xml:$out/gtest-diff.xml" \
      >"$work/diff.log" 2>&1
    echo "device-suite: exit status $?" >>"$work/diff.log"
    cat "$work/diff.log" >>"$out/tests.log"
  fi
  [[ -f "$out/tests.log" ]] && tail -n 4 "$out/tests.log"

  if [[ "$parts" == *,bench,* ]]; then
    echo "device-suite: ember-bench-gpu"
    EMBER_BENCH_GPU_BUDGET_S="${EMBER_BENCH_GPU_BUDGET_S:-70}" \
      timeout --kill-after=10 "$(limit "${BENCH_S:-130}")" "$bundle/bin/ember-bench-gpu" \
      "$out/ember-bench.json" >"$out/bench.log" 2>&1
    echo "device-suite: ember-bench-gpu exit status $?" >>"$out/bench.log"
    echo "device-suite: torch_peer.py"
    TORCH_PEER_BUDGET_S="${TORCH_PEER_BUDGET_S:-70}" \
      timeout --kill-after=10 "$(limit "${PEER_S:-130}")" python3 "$repo/bench/gpu/torch_peer.py" \
      "$out/torch-peer.json" >>"$out/bench.log" 2>&1
    echo "device-suite: torch_peer.py exit status $?" >>"$out/bench.log"
  fi

  {
    cat "$work/head.md"
    local runs=()
    if [[ "$parts" == *,tests,* ]]; then
      runs+=("runtime tests=$work/ember_cuda_runtime_tests.xml")
      runs+=("codegen tests=$work/ember_codegen_tests.xml")
      runs+=("tests=$out/gtest-main.xml:$out/tests.log")
    fi
    [[ "$parts" == *,diff,* ]] && runs+=("random programs=$out/gtest-diff.xml:$work/diff.log")
    if ((${#runs[@]})); then
      python3 "$repo/bench/gpu/tests_summary.py" "${runs[@]}"
      grep -h '^\[differential-gpu\]' "$work/diff.log" | sed 's/^/    /'
      echo
    fi
    if [[ "$parts" == *,bench,* ]]; then
      python3 "$repo/bench/gpu/report.py" "$out/ember-bench.json" "$out/torch-peer.json"
    fi
    echo "Logs: tests.log (gtest output), bench.log (ember-bench-gpu and torch_peer.py);" \
      "raw figures: ember-bench.json, torch-peer.json. Whole run: $((SECONDS - start)) s."
  } >"$out/results.md"
  echo
  cat "$out/results.md"
  # The device machine returns at most 8 files.
  local count
  count="$(find "$out" -type f | wc -l)"
  if ((count > 8)); then echo "device-suite: $count files in $out, more than 8 come back" >&2; fi
}

case "${1:-}" in
  build) build_suite ;;
  run) run_suite ;;
  *)
    echo "usage: bash bench/gpu/device-suite.sh build|run" >&2
    exit 2
    ;;
esac
