#!/bin/sh
# The CPU fusion benchmark of issue 4: fused vs unfused ember (Google Benchmark, one process)
# and numpy / numexpr / PyTorch on the same workloads, 2 threads each (ember uses one thread
# per core: run it on a 2-core machine to compare like with like), then one table of
# medians and ratios (docs/BENCHMARKS.md records its output).
#   bench/run_cpu_fusion.sh [build-dir]     (default: build, a Release build with EMBER_BUILD_BENCH)
# The peers' packages are installed here, not by the main install (.ci/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
build="${1:-build}"
need=""
for p in python3-numpy python3-numexpr python3-torch; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
fi
cmake --build "$build" --target ember-bench-cpu-fusion
out="$(mktemp -d)"
"$build/bin/ember-bench-cpu-fusion" --benchmark_min_time=0.3 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$out/ember.json"
# Debian's interpreter, where the packages above live (a PATH python3 may be another).
EMBER_BENCH_THREADS=2 /usr/bin/python3 bench/cpu_peers.py >"$out/peers.jsonl"
/usr/bin/python3 - "$out/ember.json" "$out/peers.jsonl" <<'PY'
import json, sys
ember = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]  # BM_Seed/n:1048576/fused:1/real_time
    parts = dict(p.split(":") for p in name.split("/")[1:] if ":" in p)
    workload = name.split("/")[0][3:].lower()
    key = (workload, int(parts["n"]))
    ember.setdefault(key, {})["fused" if parts["fused"] == "1" else "unfused"] = b["real_time"]
peers = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    peers.setdefault((r["workload"], r["n"]), {})[r["peer"]] = r["ms"]
print("| workload | n | fused ms | unfused ms | numpy | numexpr | torch | fused/unfused speedup | best peer / fused |")
print("|---|---|---|---|---|---|---|---|---|")
for key in sorted(ember, key=lambda k: (k[0], k[1])):
    e, p = ember[key], peers.get(key, {})
    best = min(p.values()) if p else float("nan")
    fmt = lambda v: f"{v:.2f}" if isinstance(v, float) else "–"
    print(f"| {key[0]} | 2^{key[1].bit_length() - 1} | {fmt(e.get('fused'))} | {fmt(e.get('unfused'))} | "
          f"{fmt(p.get('numpy'))} | {fmt(p.get('numexpr'))} | {fmt(p.get('torch'))} | "
          f"{e['unfused'] / e['fused']:.2f}× | {best / e['fused']:.2f}× |")
PY
rm -rf "$out"
