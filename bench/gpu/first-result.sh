#!/usr/bin/env bash
# Issue 16's benchmark on the GPU machine: time to first result and total time of ember-lab's
# transformer block and MLP, cold (fresh database) then warm (same database, new process), and
# torch.compile cold (fresh TORCHINDUCTOR_CACHE_DIR) then warm (the same directory), eager for
# reference; one run each, in this order, in one call. Writes $OUT/first-result.jsonl (one JSON
# object per run) and first-result.log. Needs build-gpu/bundle (bench/gpu/device-suite.sh build).
#   STEPS [8]   steps per run
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle="$PWD/build-gpu/bundle"
out="${OUT:-/tmp/first-result}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps="${STEPS:-8}"
scratch="$(mktemp -d)"
jsonl="$out/first-result.jsonl"
: >"$jsonl"
for scenario in transformer mlp; do
  db="$scratch/$scenario.db"
  for phase in cold warm; do
    start=$(date +%s%N)
    "$bundle/bin/ember-lab" "$scenario" --device cuda --db "$db" --steps "$steps" --json \
      --no-progress >"$scratch/run.json" 2>>"$out/first-result.log"
    end=$(date +%s%N)
    python3 - "$scenario" "$phase" "$(( (end - start) / 1000000 ))" "$scratch/run.json" \
      >>"$jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[4]))
keep = ["explorations", "cache_hits", "kernels_compiled", "compile_ms",
        "kernels_loaded_from_db", "kernels_loaded_from_shm", "kernels_rebuilt",
        "engine_start_ms", "plan_load_ms", "time_to_first_result_ms", "total_ms",
        "steady_ms_per_step", "max_rel_error"]
row = {"who": "ember", "scenario": sys.argv[1], "phase": sys.argv[2],
       "process_ms": float(sys.argv[3])}
row.update({k: r.get(k) for k in keep})
print(json.dumps(row))
PY
  done
  cache="$scratch/inductor-$scenario"
  for phase in cold warm; do
    TORCHINDUCTOR_CACHE_DIR="$cache" timeout 300 python3 bench/gpu/torch_first_result.py \
      "$scenario" compile "$steps" 2>>"$out/first-result.log" |
      python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(who='torch.compile', phase='$phase'); print(json.dumps(r))" \
      >>"$jsonl"
  done
  timeout 120 python3 bench/gpu/torch_first_result.py "$scenario" eager "$steps" \
    2>>"$out/first-result.log" |
    python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(who='torch eager', phase='-'); print(json.dumps(r))" \
    >>"$jsonl"
done
cat "$jsonl"
rm -rf "$scratch"
