#!/usr/bin/env bash
# Issue 41's host-path measurements on the GPU machine, in one call (docs/BENCHMARKS.md):
#   1. ember-bench-gpu's host parts only (host_launch: a fused launch on the cache-hit path;
#      host_unfused: one unfused op), with launch records (the default) and without
#      (EMBER_LAUNCH_RECORDS=0: every launch planned, the behaviour before records);
#   2. PyTorch eager's host time per op on the same card (torch_peer.py's host_per_op);
#   3. the small-model steps: ember-lab's MLP and transformer (host-steps.sh) and the GPT-style
#      model (ember-bench-gpt against torch_gpt.py: eager, torch.compile default and
#      reduce-overhead, a hand-captured CUDA graph), ember fused with graphs and records (the
#      defaults), without graphs (issue 44), without records either, and unfused.
# Writes $OUT/host-path.jsonl (one JSON object per measurement) and host-path.log. Needs
# build-gpu/bundle with ember-bench-gpu, ember-lab and ember-bench-gpt.
#   STEPS [200]   steps per model run
#   TORCH [1]     0: ember's runs only
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle="$PWD/build-gpu/bundle"
# A device call carries the bundle packed (device-suite.sh build).
bash bench/gpu/unpack-bundle.sh
out="${OUT:-/tmp/host-path}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EMBER_PLAN_DB="${EMBER_PLAN_DB:-off}"
steps="${STEPS:-200}"
torch_modes="eager compile reduce-overhead graph"
[[ "${TORCH:-1}" == 1 ]] || torch_modes=""
scratch="$(mktemp -d)"
jsonl="$out/host-path.jsonl"
log="$out/host-path.log"
: >"$jsonl"
nvidia-smi -L >>"$log" 2>&1

# 1. Host time per launch, records on and off. EMBER_BENCH_GPU_ONLY names no workload: the
# host parts alone run.
# Graphs on (the default) and off (issue 44): 2,000 queued calls are windows of 64 launches.
for config in "4096 on" "4096 off" "0 off"; do
  read -r records graphs <<<"$config"
  EMBER_LAUNCH_RECORDS=$records EMBER_GRAPHS=$graphs EMBER_BENCH_GPU_ONLY=none \
    EMBER_BENCH_GPU_MATMUL=0 timeout 120 "$bundle/bin/ember-bench-gpu" "$scratch/ember.json" \
    >>"$log" 2>&1
  python3 - "$records" "$graphs" "$scratch/ember.json" >>"$jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[3]))
print(json.dumps({"what": "ember_host", "launch_records": int(sys.argv[1]), "graphs": sys.argv[2],
                  "host_launch": d.get("host_launch"), "host_unfused": d.get("host_unfused")}))
PY
done

# 2. PyTorch eager per op (and the copy ceiling, which torch_peer.py always measures).
[[ -z "$torch_modes" ]] || TORCH_PEER_SIZES=0 TORCH_PEER_MATMUL=0 TORCH_PEER_COMPILE=0 timeout 120 \
  python3 bench/gpu/torch_peer.py "$scratch/torch.json" >>"$log" 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'what': 'torch_host', 'host_per_op': d.get('host_per_op'), 'skipped': d.get('skipped')}))" \
  "$scratch/torch.json" >>"$jsonl"

# 3. Small-model steps.
OUT="$scratch/steps" STEPS="$steps" timeout 420 bash bench/gpu/host-steps.sh >>"$log" 2>&1
cat "$scratch/steps/host-steps.jsonl" >>"$jsonl" 2>/dev/null
# The GPT-style model on a plan database of its own: the fill run stores plans, kernels and graph
# recipes, so every run after it is a warm process (its first steps show when replays begin).
export EMBER_PLAN_DB="$scratch/gpt.db"
for variant in fill fused fused-no-graphs fused-no-records unfused; do
  case "$variant" in
    fill | fused) env=() ;;
    fused-no-graphs) env=(EMBER_GRAPHS=off) ;;
    fused-no-records) env=(EMBER_LAUNCH_RECORDS=0 EMBER_GRAPHS=off) ;;
    unfused) env=(EMBER_FUSION=off) ;;
  esac
  env "${env[@]}" timeout 120 "$bundle/bin/ember-bench-gpt" --device cuda --steps "$steps" \
    --json 2>>"$log" |
    python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(what='gpt', who='ember', variant='$variant'); print(json.dumps(r))" \
      >>"$jsonl"
done
for mode in $torch_modes; do
  TORCHINDUCTOR_CACHE_DIR="$scratch/inductor" timeout 200 python3 bench/gpu/torch_gpt.py \
    "$mode" "$steps" --device cuda 2>>"$log" |
    python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(what='gpt', who='torch', variant='$mode'); print(json.dumps(r))" \
      >>"$jsonl"
done
cat "$jsonl"
rm -rf "$scratch"
