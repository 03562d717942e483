#!/usr/bin/python3
"""Turns bench/run_plan_db.sh's raw results (the directory given) into Markdown tables."""
import json, os, statistics, sys

d = sys.argv[1]
lines = lambda name: [json.loads(l) for l in open(os.path.join(d, name)) if l.strip()]
median = lambda rows, key: statistics.median(r[key] for r in rows)

# 1. Warm start: the engine's timings (medians of the interleaved runs) and hyperfine's.
modes = {m: lines(m + ".jsonl") for m in ("cold", "warm", "off")}
wall = {r["command"]: r for r in json.load(open(os.path.join(d, "hyperfine.json")))["results"]}
print(f"Warm start, 200 segments (+5 input uploads), medians of {len(modes['cold'])} runs "
      f"(process: hyperfine, {len(wall['cold']['times'])} runs):\n")
print("| mode | first result ms | last result ms | durable ms | process ms | explorations | "
      "cache hits | loaded | published | plan_load_ms |")
print("|---|---|---|---|---|---|---|---|---|---|")
for m, rows in modes.items():
    print(f"| {m} | {median(rows, 'first_result_ms'):.1f} | {median(rows, 'total_ms'):.1f} | "
          f"{median(rows, 'durable_ms'):.1f} | {wall[m]['median'] * 1e3:.1f} | "
          f"{median(rows, 'explorations'):.0f} | {median(rows, 'cache_hits'):.0f} | "
          f"{median(rows, 'plans_loaded_from_db'):.0f} | {median(rows, 'plans_published'):.0f} | "
          f"{median(rows, 'plan_load_ms'):.2f} (max {max(r['plan_load_ms'] for r in rows):.2f}) |")
ratio = lambda a, b, key: median(modes[a], key) / median(modes[b], key)
print(f"\nRatios (last result): warm/cold {ratio('warm', 'cold', 'total_ms'):.2f}×, "
      f"warm/off {ratio('warm', 'off', 'total_ms'):.2f}×, cold/off {ratio('cold', 'off', 'total_ms'):.2f}×; "
      f"first result: warm/cold {ratio('warm', 'cold', 'first_result_ms'):.2f}×, "
      f"warm/off {ratio('warm', 'off', 'first_result_ms'):.2f}×; process: warm/cold "
      f"{wall['warm']['median'] / wall['cold']['median']:.2f}×, "
      f"warm/off {wall['warm']['median'] / wall['off']['median']:.2f}×.")
worst = max(r["plan_load_ms"] for r in modes["warm"])
explored = max(r["explorations"] for r in modes["warm"])
met = worst < 20 and explored == 0
print(f"Target (warm: < 20 ms loading + validating, 0 explorations): "
      f"{'met' if met else 'NOT met'} (worst warm run: {worst:.2f} ms, {explored} explorations).\n")

# 2. Google Benchmark: medians.
bench = {b["run_name"]: b for b in json.load(open(os.path.join(d, "micro.json")))["benchmarks"]
         if b.get("aggregate_name") == "median"}
print("| lookup (LoadPlansByFirstOp) | hit µs | miss µs |")
print("|---|---|---|")
for n in (1000, 10000):
    t = lambda hit: bench[f"BM_Lookup/sqlite/plans:{n}/hit:{hit}"]["real_time"]
    print(f"| {n} plans | {t(1):.1f} | {t(0):.1f} |")
print("\n| plan | ops | ops blob B | plan blob B | bytes | decode+validate µs |")
print("|---|---|---|---|---|---|")
for w in ("seed", "softmax", "layernorm"):
    b = bench[f"BM_DecodeValidate/{w}"]
    print(f"| {w} | {b['ops']:.0f} | {b['ops_bytes']:.0f} | {b['plan_bytes']:.0f} | "
          f"{b['bytes']:.0f} | {b['real_time']:.1f} |")

# 3. Publish throughput: medians of the runs per (writers, batch).
pub = {}
for r in lines("publish.jsonl"):
    pub.setdefault((r["writers"], r["batch"]), []).append(r)
print("\n| writers | plans per Publish | plans | seconds | plans/s | vs 1 writer |")
print("|---|---|---|---|---|---|")
for (w, b), rows in sorted(pub.items()):
    rate = median(rows, "plans_per_s")
    print(f"| {w} | {b} | {rows[0]['plans']} | {median(rows, 'seconds'):.3f} | {rate:.0f} | "
          f"{rate / median(pub[(1, b)], 'plans_per_s'):.2f}× |")
