#!/usr/bin/env bash
# Nsight Compute profiles of the kernels that stay short of the roofline (docs/BENCHMARKS.md,
# "issue 46"): ember-bench-gpu runs each workload at one size under ncu, which reads the
# hardware counters of the fused kernels of the per-call and back-to-back passes (the random
# input generators and cuBLAS are left out), one text report per workload.
#
#   bash bench/gpu/profile-rows.sh OUT_DIR   (on the GPU machine; carry build-gpu/bundle.tar.xz)
#   PROFILE_WORKLOADS=softmax,layernorm,chain8   PROFILE_SIZE=26 (2^26 elements)
#   PROFILE_LAUNCHES=6   kernels profiled per workload, after PROFILE_SKIP=2 (the first call's)
#   PROFILE_S=150        the limit of each workload's run
# ncu needs --clock-control none on the lent machines (their METHOD.md: leave the clocks alone).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${1:?usage: profile-rows.sh OUT_DIR}"
mkdir -p "$out"
bash bench/gpu/unpack-bundle.sh
export LD_LIBRARY_PATH="$PWD/build-gpu/bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ncu_bin="$(command -v ncu || true)"
if [[ -z "$ncu_bin" ]]; then
  echo "profile-rows: ncu is not on this machine's PATH" | tee "$out/profile-rows.txt"
  exit 0
fi
IFS=, read -r -a workloads <<<"${PROFILE_WORKLOADS:-softmax,layernorm,chain8}"
for w in "${workloads[@]}"; do
  EMBER_PLAN_DB=off EMBER_BENCH_GPU_ONLY="$w" EMBER_BENCH_GPU_SIZES="${PROFILE_SIZE:-26}" \
    EMBER_BENCH_GPU_MATMUL=0 EMBER_BENCH_GPU_UNFUSED=0 EMBER_BENCH_GPU_HOST=0 \
    EMBER_BENCH_GPU_REPEATS=3 EMBER_BENCH_GPU_BUDGET_S=60 \
    timeout --kill-after=5 "${PROFILE_S:-150}" "$ncu_bin" --clock-control none \
    --kernel-name-base mangled -k 'regex:^(?!ember_random|_Z)' \
    --launch-skip "${PROFILE_SKIP:-2}" --launch-count "${PROFILE_LAUNCHES:-6}" \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis \
    build-gpu/bundle/bin/ember-bench-gpu "$out/profile-$w.json" >"$out/ncu-$w.txt" 2>&1
  echo "== $w: exit status $? ($(grep -c '^  [a-z_]*ember' "$out/ncu-$w.txt") kernels)"
done | tee "$out/profile-rows.txt"
