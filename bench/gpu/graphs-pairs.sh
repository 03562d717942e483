#!/usr/bin/env bash
# Issue 44's paired measurement on the GPU machine: warm runs of ember-lab's transformer and MLP
# and of the GPT-style model (ember-bench-gpt), CUDA graphs on and off (EMBER_GRAPHS) alternated
# ROUNDS times on one plan database per model (a first run fills it: plans, kernels, graph
# recipes), one line per run: steady ms per step (median), the first steps (GPT), and the graph
# counters (replays, the launches they stood for of all launches, fallbacks, node updates,
# captures, recipes loaded). The host is noisy: compare pairs, not single runs. Needs
# build-gpu/bundle.
#   STEPS [300]  steps per run     ROUNDS [3]  on/off pairs per model
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle="$PWD/build-gpu/bundle"
# A device call carries the bundle packed (device-suite.sh build).
bash bench/gpu/unpack-bundle.sh
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps="${STEPS:-300}"
rounds="${ROUNDS:-3}"
scratch="$(mktemp -d)"
cd "$scratch"
for s in transformer mlp; do
  "$bundle/bin/ember-lab" "$s" --device cuda --db "$scratch/$s.db" --steps 20 --json \
    --no-progress >/dev/null 2>&1
  for ((i = 0; i < rounds; ++i)); do
    for g in on off; do
      EMBER_GRAPHS=$g "$bundle/bin/ember-lab" "$s" --device cuda --db "$scratch/$s.db" \
        --steps "$steps" --json --no-progress 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin)
print('$s $g', r['steady_ms_per_step'], 'replays', r['graph_replays'], 'launches',
      r['graph_replayed_launches'], 'of', r['launches'], 'early', r['graph_fallback_ended_early'],
      'div', r['graph_fallback_diverged'], 'upd', r['graph_node_updates'], 'cap',
      r['graph_captures'], 'rec', r['graph_recipes_loaded'], 'win', r.get('graph_windows'),
      'ends mm', r.get('graph_ends_matmul'), 'wait', r.get('graph_ends_host_wait'), 'other',
      r.get('graph_ends_other_work'), 'full', r.get('graph_ends_full'), 'done',
      r.get('graph_ends_complete'))"
    done
  done
done
EMBER_PLAN_DB="$scratch/gpt.db" "$bundle/bin/ember-bench-gpt" --device cuda --steps 20 --json \
  >/dev/null 2>&1
for ((i = 0; i < rounds; ++i)); do
  for g in on off; do
    EMBER_PLAN_DB="$scratch/gpt.db" EMBER_GRAPHS=$g "$bundle/bin/ember-bench-gpt" --device cuda \
      --steps "$steps" --json 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin)
print('gpt $g', r['steady_ms_per_step'], 'first', [round(x, 3) for x in r['first_steps_ms']],
      'replays', r['graph_replays'], 'launches', r['graph_replayed_launches'], 'of', r['launches'],
      'fb', r['graph_fallbacks'], 'upd', r['graph_node_updates'], 'rec', r['graph_recipes_loaded'],
      'win', r.get('graph_windows'), 'ends mm', r.get('graph_ends_matmul'), 'wait',
      r.get('graph_ends_host_wait'), 'other', r.get('graph_ends_other_work'), 'done',
      r.get('graph_ends_complete'))"
  done
done
rm -rf "$scratch"
