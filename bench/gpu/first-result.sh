#!/usr/bin/env bash
# Issue 16's benchmark on the GPU machine, with issue 43's floor beside it: time to first result
# and total time, cold (fresh database), warm (same database, new process) and warm-db (the same
# with this host's shared segment removed first: everything from SQLite), of ember-lab's
# transformer block and MLP and of ember-bench-gpt's small GPT, and their torch peers:
# torch.compile cold (fresh TORCHINDUCTOR_CACHE_DIR) then warm (the same directory), eager for
# reference (torch_first_result.py, torch_gpt.py); one run each, in this order, in one call.
#
# Every run is counted from exec: the script reads the clock (date +%s%N) just before it starts
# the program, each program reports the system clock at the top of its main (main_unix_ns), and
# the difference (exec_to_main_ms) is added to the program's own times (*_from_exec_ms). The
# floor, ember-floor-probe (driver, context, one empty kernel; nothing of ember), runs 3 times
# before the first run and 3 times after the last, so that "floor + N ms" comes from one call.
#
# Writes $OUT/first-result.jsonl (one JSON object per run, bench/gpu/first_result_rows.py says
# what is in it), first-result.md (the summary: each first result from exec and above the
# median floor) and first-result.log. Needs build-gpu/bundle (bench/gpu/device-suite.sh build).
#   STEPS [8]                         steps per run
#   SCENARIOS [transformer mlp gpt]   the workloads, in this order
#   TORCH [1]                         0: ember and the floor only, no torch peers
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
repo="$PWD"
bundle="$repo/build-gpu/bundle"
# A device call carries the bundle packed (device-suite.sh build).
bash "$repo/bench/gpu/unpack-bundle.sh"
out="${OUT:-/tmp/first-result}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps="${STEPS:-8}"
read -r -a scenarios <<<"${SCENARIOS:-transformer mlp gpt}"
torch="${TORCH:-1}"
for scenario in "${scenarios[@]}"; do
  case "$scenario" in
    transformer | mlp | gpt) ;;
    *)
      echo "first-result: unknown scenario '$scenario' in SCENARIOS (transformer, mlp, gpt)" >&2
      exit 2
      ;;
  esac
done
for b in ember-lab ember-bench-gpt ember-floor-probe ember-plans; do
  if [[ ! -x "$bundle/bin/$b" ]]; then
    echo "first-result: $bundle/bin/$b is missing: run 'bash bench/gpu/device-suite.sh build'" \
      "and carry build-gpu/bundle.tar.xz" >&2
    exit 2
  fi
done
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
jsonl="$out/first-result.jsonl"
log="$out/first-result.log"
: >"$jsonl"
: >"$log"

# run WHO SCENARIO PHASE [VAR=VALUE...] timeout LIMIT PROGRAM ARGS...: runs the program through
# env, its stdout to a scratch file, and appends its row. The clock is read right before the
# exec. Every run, the floor's too, goes through the same env and timeout, so that their cost
# is the same in every exec -> main.
run() {
  local who="$1" scenario="$2" phase="$3"
  shift 3
  echo "first-result: $who $scenario $phase" >>"$log"
  local t0 t1 status
  t0=$(date +%s%N)
  env "$@" >"$scratch/run.json" 2>>"$log"
  status=$?
  t1=$(date +%s%N)
  python3 "$repo/bench/gpu/first_result_rows.py" row "$who" "$scenario" "$phase" "$t0" "$t1" \
    "$status" "$scratch/run.json" >>"$jsonl"
}

floor() {  # PHASE: three probes
  for _ in 1 2 3; do
    run floor - "$1" timeout 60 "$bundle/bin/ember-floor-probe"
  done
}

floor before
for scenario in "${scenarios[@]}"; do
  db="$scratch/$scenario.db"
  cache="$scratch/inductor-$scenario"
  for phase in cold warm warm-db; do
    # warm: what the cold run left in this host's shared segment and the database; warm-db:
    # the segment removed first (a reboot, another host), so plans and kernels come from SQLite.
    if [[ "$phase" == warm-db ]]; then
      "$bundle/bin/ember-plans" --db "$db" shm rm >>"$log" 2>&1
    fi
    if [[ "$scenario" == gpt ]]; then
      run ember gpt "$phase" EMBER_PLAN_DB="$db" timeout 300 "$bundle/bin/ember-bench-gpt" \
        --device cuda --steps "$steps" --json
    else
      run ember "$scenario" "$phase" timeout 300 "$bundle/bin/ember-lab" "$scenario" \
        --device cuda --db "$db" --steps "$steps" --json --no-progress
    fi
  done
  [[ "$torch" == 0 ]] && continue
  if [[ "$scenario" == gpt ]]; then
    peer=("$repo/bench/gpu/torch_gpt.py")
  else
    peer=("$repo/bench/gpu/torch_first_result.py" "$scenario")
  fi
  for phase in cold warm; do
    run torch.compile "$scenario" "$phase" TORCHINDUCTOR_CACHE_DIR="$cache" timeout 300 \
      python3 "${peer[@]}" compile "$steps"
  done
  run "torch eager" "$scenario" - timeout 120 python3 "${peer[@]}" eager "$steps"
done
floor after

python3 "$repo/bench/gpu/first_result_rows.py" summary "$jsonl" >"$out/first-result.md"
cat "$jsonl"
echo
cat "$out/first-result.md"
