#!/usr/bin/python3
"""Turns bench/run_plan_db_backends.sh's raw results (the directory given) into Markdown tables:
the plan database on a PostgreSQL server against a SQLite file, with server/file ratios."""
import json, os, statistics, sys

d = sys.argv[1]
lines = lambda name: [json.loads(l) for l in open(os.path.join(d, name)) if l.strip()]
median = lambda rows, key: statistics.median(r[key] for r in rows)
backends = ("sqlite", "postgresql")
print(open(os.path.join(d, "server-version.txt")).read().strip() + ", loopback TCP\n")

# 1. Warm start.
runs = {(b, m): lines(f"{b}-{m}.jsonl") for b in backends for m in ("cold", "warm")}
n = len(runs[("sqlite", "cold")])
print(f"Warm start (ember-bench-warm-start), medians of {n} interleaved rounds:\n")
print("| database | run | first result ms | last result ms | plan_load_ms | explorations | "
      "loaded | published |")
print("|---|---|---|---|---|---|---|---|")
for (b, m), rows in runs.items():
    print(f"| {b} | {m} | {median(rows, 'first_result_ms'):.1f} | {median(rows, 'total_ms'):.1f} | "
          f"{median(rows, 'plan_load_ms'):.1f} | {median(rows, 'explorations'):.0f} | "
          f"{median(rows, 'plans_loaded_from_db'):.0f} | {median(rows, 'plans_published'):.0f} |")
warm = lambda b, key: median(runs[(b, "warm")], key)
print(f"\nServer/file, warm: last result {warm('postgresql', 'total_ms') / warm('sqlite', 'total_ms'):.2f}×, "
      f"first result {warm('postgresql', 'first_result_ms') / warm('sqlite', 'first_result_ms'):.2f}×, "
      f"plan_load_ms {warm('postgresql', 'plan_load_ms') / warm('sqlite', 'plan_load_ms'):.2f}×. "
      f"Warm explorations: {max(r['explorations'] for b in backends for r in runs[(b, 'warm')])} "
      f"(worst run).\n")

# 2. Lookup latency.
# The medians of the repetitions (a single repetition has no aggregates: its one run, then).
entries = json.load(open(os.path.join(d, "lookup.json")))["benchmarks"]
bench = {b["run_name"]: b for b in entries if b.get("run_type") == "iteration"}
bench.update({b["run_name"]: b for b in entries if b.get("aggregate_name") == "median"})
print("| lookup (LoadPlansByFirstOp) | SQLite hit µs | server hit µs | ratio | SQLite miss µs | "
      "server miss µs | ratio |")
print("|---|---|---|---|---|---|---|")
for n in (1000, 10000):
    t = lambda b, hit: bench[f"BM_Lookup/{b}/plans:{n}/hit:{hit}"]["real_time"]
    print(f"| {n} plans | {t('sqlite', 1):.1f} | {t('postgresql', 1):.1f} | "
          f"{t('postgresql', 1) / t('sqlite', 1):.1f}× | {t('sqlite', 0):.1f} | "
          f"{t('postgresql', 0):.1f} | {t('postgresql', 0) / t('sqlite', 0):.1f}× |")

# 3. Publish throughput.
pub = {}
for r in lines("publish.jsonl"):
    pub.setdefault((r["writers"], r["batch"], r["backend"]), []).append(r)
print("\n| writers | plans per Publish | plans | SQLite plans/s | server plans/s | server/file |")
print("|---|---|---|---|---|---|")
for w, b in sorted({(w, b) for w, b, _ in pub}):
    file_rate = median(pub[(w, b, "sqlite")], "plans_per_s")
    server_rate = median(pub[(w, b, "postgresql")], "plans_per_s")
    print(f"| {w} | {b} | {pub[(w, b, 'sqlite')][0]['plans']} | {file_rate:.0f} | "
          f"{server_rate:.0f} | {server_rate / file_rate:.2f}× |")
bad = [r for rows in pub.values() for r in rows if r["stored"] != r["plans"]]
print(f"\nEvery run stored every plan: {'yes' if not bad else f'NO ({len(bad)} runs short)'}.")
