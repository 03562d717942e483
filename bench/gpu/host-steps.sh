#!/usr/bin/env bash
# Issue 41's step benchmark on the GPU machine: the steady step time of ember-lab's transformer
# block and MLP on CUDA (warm plan database: a first run fills it, the measured runs read it),
# fused with launch records and graphs (the defaults), fused without graphs (EMBER_GRAPHS=off,
# issue 44), without records either (EMBER_LAUNCH_RECORDS=0: every launch planned, the
# behaviour before issue 41) and unfused, against PyTorch eager,
# torch.compile (default and reduce-overhead) and a hand-captured torch.cuda.CUDAGraph of the
# same step (bench/gpu/torch_first_result.py), same shapes, one call. Writes
# $OUT/host-steps.jsonl (one JSON object per run) and host-steps.log. Needs build-gpu/bundle.
#   STEPS [200]   steps per run
#   TORCH [1]     0: ember's runs only (the peers measured in another call on the same card)
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle="$PWD/build-gpu/bundle"
# A device call carries the bundle packed (device-suite.sh build).
bash bench/gpu/unpack-bundle.sh
out="${OUT:-/tmp/host-steps}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps="${STEPS:-200}"
torch_modes="eager compile reduce-overhead graph"
[[ "${TORCH:-1}" == 1 ]] || torch_modes=""
scratch="$(mktemp -d)"
jsonl="$out/host-steps.jsonl"
: >"$jsonl"
ember_run() {  # scenario variant env...
  local scenario="$1" variant="$2"
  shift 2
  env "$@" "$bundle/bin/ember-lab" "$scenario" --device cuda --db "$scratch/$scenario.db" \
    --steps "$steps" --json --no-progress >"$scratch/run.json" 2>>"$out/host-steps.log" || return
  python3 - "$scenario" "$variant" "$scratch/run.json" >>"$jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[3]))
keep = ["explorations", "cache_hits", "launches", "kernels_compiled", "launch_record_hits",
        "launch_record_misses", "graph_captures", "graph_replays", "graph_replayed_launches",
        "graph_node_updates", "graph_fallback_diverged", "graph_fallback_ended_early",
        "graph_recipes_loaded", "time_to_first_result_ms", "steady_ms_per_step", "max_rel_error"]
row = {"who": "ember", "scenario": sys.argv[1], "variant": sys.argv[2]}
row.update({k: r.get(k) for k in keep})
print(json.dumps(row))
PY
}
for scenario in mlp transformer; do
  ember_run "$scenario" fill >/dev/null  # fills the database: the runs below are warm
  ember_run "$scenario" fused
  ember_run "$scenario" fused-no-graphs EMBER_GRAPHS=off
  ember_run "$scenario" fused-no-records EMBER_LAUNCH_RECORDS=0 EMBER_GRAPHS=off
  ember_run "$scenario" unfused EMBER_FUSION=off
  for mode in $torch_modes; do
    TORCHINDUCTOR_CACHE_DIR="$scratch/inductor" timeout 200 python3 \
      bench/gpu/torch_first_result.py "$scenario" "$mode" "$steps" 2>>"$out/host-steps.log" |
      python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print(json.dumps({'who': 'torch', 'scenario': '$scenario', 'variant': '$mode', 'steady_ms_per_step': r['steady_ms_per_step']}))" \
        >>"$jsonl"
  done
done
cat "$jsonl"
rm -rf "$scratch"
