#!/usr/bin/env python3
"""Tables for docs/BENCHMARKS.md from bench/run_shm_workers.sh's output directory."""
import json
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]
groups = defaultdict(list)  # (workers, shm) -> [(run, wall_ms, worker dict)]
with open(f"{out}/workers.jsonl") as f:
    for line in f:
        r = json.loads(line)
        groups[(r["workers"], r["shm"])].append((r["run"], r["wall_ms"], r["worker"]))

print("| workers | shm | all warm: last worker's last result (ms) | all exited (wall ms) | "
      "explorations (sum) | plans from shm / sqlite (sum) | first result (ms, median worker) |")
print("|---|---|---|---|---|---|---|")
base = {}
order = {"off": 0, "nowait": 1, "on": 2}
for (n, shm) in sorted(groups, key=lambda k: (k[0], order[k[1]])):
    rows = groups[(n, shm)]
    by_run = defaultdict(list)
    for run, wall, w in rows:
        by_run[run].append((wall, w))
    walls = [ws[0][0] for ws in by_run.values()]
    lasts = [max(w["total_ms"] for _, w in ws) for ws in by_run.values()]
    explorations = [sum(w["explorations"] for _, w in ws) for ws in by_run.values()]
    shm_plans = [sum(w.get("plans_loaded_from_shm", 0) for _, w in ws) for ws in by_run.values()]
    sql_plans = [sum(w["plans_loaded_from_db"] for _, w in ws) for ws in by_run.values()]
    firsts = [w["first_result_ms"] for _, _, w in rows]
    checksums = {w["checksum"] for _, _, w in rows}
    wall = statistics.median(walls)
    last = statistics.median(lasts)
    if shm == "off":
        base[n] = last
        ratio = ""
    else:
        ratio = f" ({base[n] / last:.2f}x)" if n in base else ""
    print(f"| {n} | {shm} | {last:.1f}{ratio} | {wall:.0f} | {statistics.median(explorations):.0f} | "
          f"{statistics.median(shm_plans):.0f} / {statistics.median(sql_plans):.0f} | "
          f"{statistics.median(firsts):.1f} |" + ("" if len(checksums) == 1 else " checksums differ!"))

with open(f"{out}/tiers.json") as f:
    tiers = json.load(f)
print()
print("| tier | one first op's plans (µs, median) | vs memory |")
print("|---|---|---|")
times = defaultdict(list)  # one repetition reports no aggregates: take the median here
for b in tiers["benchmarks"]:
    if b.get("run_type", "iteration") == "iteration" or b.get("aggregate_name") == "median":
        times[b["run_name"].split("/")[-1]].append(b["real_time"])
med = {name: statistics.median(t) for name, t in times.items()}
for tier in ("memory", "shm", "sqlite", "shm_raw", "sqlite_raw"):
    if tier in med:
        print(f"| {tier} | {med[tier]:.3f} | {med[tier] / med['memory']:.0f}x |")
