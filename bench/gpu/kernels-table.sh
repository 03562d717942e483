#!/usr/bin/env bash
# The kernels' table of the roofline issue (docs/BENCHMARKS.md, "issue 46"): the elementwise
# chains and the row workloads, fused, at every size from 2^20 to 2^28, per call and back to
# back, beside PyTorch eager and torch.compile on the same card, in one device call of under
# ten minutes. The GPU suite's bench part (device-suite.sh) with the matmuls, the unfused pass
# and the host-time measurement left out, so that the budgets reach every size:
#
#   bash bench/gpu/kernels-table.sh     (on the GPU machine; carry build-gpu/bundle.tar.xz)
#
# Writes $OUT/results.md (report.py's table: bandwidth, share of the copy ceiling, ratio to the
# better torch) with ember-bench.json, torch-peer.json and bench.log beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
workloads="${KERNELS_TABLE_ONLY:-seed,chain8,chains5x8,softmax,softmax_scaled,layernorm}"
export SUITE_PARTS=bench SUITE_DEADLINE_S="${SUITE_DEADLINE_S:-560}"
export BENCH_S="${BENCH_S:-200}" PEER_S="${PEER_S:-320}"
export EMBER_BENCH_GPU_BUDGET_S="${EMBER_BENCH_GPU_BUDGET_S:-190}"
export TORCH_PEER_BUDGET_S="${TORCH_PEER_BUDGET_S:-310}"
export EMBER_BENCH_GPU_SIZES="${KERNELS_TABLE_SIZES:-20,22,24,26,28}"
export TORCH_PEER_SIZES="$EMBER_BENCH_GPU_SIZES"
export EMBER_BENCH_GPU_ONLY="$workloads" TORCH_PEER_ONLY="$workloads"
export EMBER_BENCH_GPU_MATMUL=0 TORCH_PEER_MATMUL=0
export EMBER_BENCH_GPU_UNFUSED=0 EMBER_BENCH_GPU_HOST=0
exec bash bench/gpu/device-suite.sh run
