#!/bin/sh
# ember-lab's steady state with fusion on and off (issue 18): for each scenario, the best
# steady_ms_per_step of REPS runs of each, on a fresh scratch database every run; then the same
# transformer block in PyTorch eager (bench/transformer_peer.py, same shapes, same threads).
# One JSON line per figure.
#   bench/run_lab_fusion.sh [build-dir]     (default: build, a Release build)
#   REPS [5]  STEPS_TRANSFORMER [600]  STEPS_MLP [1500]  EMBER_BENCH_THREADS [2]
set -eu
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target ember-lab
lab="$PWD/$build/bin/ember-lab"
reps="${REPS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for spec in "transformer ${STEPS_TRANSFORMER:-600}" "mlp ${STEPS_MLP:-1500}"; do
  set -- $spec
  for fusion in on off; do
    for i in $(seq "$reps"); do
      rm -rf "$work/.ember"
      (cd "$work" && EMBER_FUSION=$fusion "$lab" "$1" --steps "$2" --no-progress --json \
        >"$work/run$i.json")
    done
    /usr/bin/python3 -c '
import glob, json, sys
runs = [json.load(open(f)) for f in glob.glob(sys.argv[3] + "/run*.json")]
print(json.dumps({"scenario": sys.argv[1], "fusion": sys.argv[2],
                  "best_steady_ms": min(r["steady_ms_per_step"] for r in runs)}))' \
      "$1" "$fusion" "$work"
    rm -f "$work"/run*.json
  done
done
# The peer, when Debian's PyTorch is there (installed by bench/run_cpu_fusion.sh).
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  REPS="$reps" EMBER_BENCH_THREADS="${EMBER_BENCH_THREADS:-2}" /usr/bin/python3 bench/transformer_peer.py
else
  echo '{"peer": "torch", "skipped": "python3-torch is not installed"}'
fi
