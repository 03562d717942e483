#!/usr/bin/python3
"""Joins ember-bench-cpu-fusion's JSON and cpu_peers.py's lines into one Markdown table."""
import json, sys
ember = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]  # BM_Seed/n:1048576/fused:1/real_time
    parts = dict(p.split(":") for p in name.split("/")[1:] if ":" in p)
    workload = name.split("/")[0][3:].lower()
    key = (workload, int(parts["n"]))
    to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ms")]
    ember.setdefault(key, {})["fused" if parts["fused"] == "1" else "unfused"] = b["real_time"] * to_ms
peers = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    peers.setdefault((r["workload"], r["n"]), {})[r["peer"]] = r["ms"]
print("| workload | n | fused ms | unfused ms | numpy | numexpr | torch | fused/unfused speedup | best peer / fused |")
print("|---|---|---|---|---|---|---|---|---|")
for key in sorted(ember, key=lambda k: (k[0], k[1])):
    e, p = ember[key], peers.get(key, {})
    best = min(p.values()) if p else float("nan")
    fmt = lambda v: (f"{v:.2f}" if v >= 1 else f"{v:.3f}") if isinstance(v, float) else "–"
    print(f"| {key[0]} | 2^{key[1].bit_length() - 1} | {fmt(e.get('fused'))} | {fmt(e.get('unfused'))} | "
          f"{fmt(p.get('numpy'))} | {fmt(p.get('numexpr'))} | {fmt(p.get('torch'))} | "
          f"{e['unfused'] / e['fused']:.2f}× | {best / e['fused']:.2f}× |")
