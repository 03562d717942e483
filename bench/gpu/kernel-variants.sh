#!/usr/bin/env bash
# Code-generation variants timed in one device call (Note [Kernel variants],
# codegen/kernel_variants.h): ember-bench-gpu once per variant, each in its own process with the
# plan database off, then one table of per-call and back-to-back medians per variant.
#
#   bash bench/gpu/kernel-variants.sh OUT_DIR      (on the GPU machine, build-gpu/bundle unpacked)
#   KERNEL_VARIANTS="- minblocks=8 rownocap vpt=2"  the variants ("-": the planner's own)
#   VARIANT_WORKLOADS=softmax,softmax_scaled,layernorm   (EMBER_BENCH_GPU_ONLY)
#   VARIANT_SIZES=24,26,28     VARIANT_REPEATS=10     VARIANT_BUDGET_S=25 (per variant)
#   VARIANTS_DEADLINE_S=300    no variant starts after this many seconds
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${1:?usage: kernel-variants.sh OUT_DIR}"
mkdir -p "$out"
bin="build-gpu/bundle/bin"
bash bench/gpu/unpack-bundle.sh  # what a device call carries (device-suite.sh)
export LD_LIBRARY_PATH="$PWD/build-gpu/bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
budget="${VARIANT_BUDGET_S:-25}"
for v in ${KERNEL_VARIANTS:--,minblocks=8 rownocap vpt=2 vpt=8}; do
  if ((SECONDS > ${VARIANTS_DEADLINE_S:-300})); then
    echo "kernel-variants: deadline reached before '$v'" >&2
    break
  fi
  name="${v//[^A-Za-z0-9=,]/}"
  name="${name:-planner}"
  words="${v#-}"
  words="${words#,}"
  EMBER_KERNEL_VARIANTS="$words" EMBER_PLAN_DB=off \
    EMBER_BENCH_GPU_ONLY="${VARIANT_WORKLOADS:-softmax,softmax_scaled,layernorm}" \
    EMBER_BENCH_GPU_SIZES="${VARIANT_SIZES:-24,26,28}" EMBER_BENCH_GPU_MATMUL=0 \
    EMBER_BENCH_GPU_HOST=0 EMBER_BENCH_GPU_UNFUSED=0 \
    EMBER_BENCH_GPU_REPEATS="${VARIANT_REPEATS:-10}" EMBER_BENCH_GPU_BUDGET_S="$budget" \
    timeout --kill-after=5 $((budget + 15)) "$bin/ember-bench-gpu" "$out/variant-$name.json" \
    >"$out/variant-$name.log" 2>&1
  echo "== variant ${words:-none}: exit status $?"
  grep -E '^[a-z_0-9]+ +[0-9]+ fused' "$out/variant-$name.log"
done | tee "$out/variants.txt"
