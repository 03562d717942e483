#!/usr/bin/env python3
"""Merges ember-bench-gpu's and torch_peer.py's JSON into one markdown report: a table per
timing mode (bandwidth, share of the copy ceiling, fused/unfused, ratio to torch.compile) and
the GPU issue's targets, each marked met / not met / not measured.

    python3 bench/gpu/report.py EMBER.json TORCH.json > report.md

Targets (the GPU issue):
  1. elementwise (seed, chain8, chains5x8), fused, at n >= 2^26: >= 95% of the copy ceiling
     (back-to-back bandwidth: the device's throughput, host overhead amortized);
  2. the same workloads at n = 2^24: ember fused >= 1.2x torch.compile, per call;
  3. softmax and layernorm, at every measured n: ember fused >= 1.2x the better of eager and
     torch.compile, per call;
  4. matmul + bias + gelu, fused: within 3% of the matmul alone (per call);
  5. host time per fused launch on the cache-hit path under 5 us (ember-bench-gpu's
     host_launch: a tiny synced call less a bare launch + sync round trip).
Matmul + bias and matmul + bias + relu also appear with each epilogue variant forced (cuBLASLt's
own epilogue, the generated kernel) beside the engine's measured choice.
Ratios above 1x mean ember is faster.
"""

import json
import sys

ELEMENTWISE = ("seed", "chain8", "chains5x8")
ROWWISE = ("softmax", "softmax_scaled", "layernorm")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"skipped": f"{path}: {e}", "results": []}


def index(doc):
    return {(r["workload"], r["n"], r["variant"]): r for r in doc.get("results", [])}


def log2(n):
    return n.bit_length() - 1 if n and n & (n - 1) == 0 else None


def size_text(n):
    e = log2(n)
    return f"2^{e}" if e is not None else str(n)


def fmt(v, spec=".3f", suffix=""):
    return "—" if v is None else f"{v:{spec}}{suffix}"


def get(r, key):
    return None if r is None else r.get(key)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ember_doc, torch_doc = load(sys.argv[1]), load(sys.argv[2])
    e, t = index(ember_doc), index(torch_doc)
    copy = next((r for r in torch_doc.get("results", []) if r["workload"] == "copy"), None)
    copy_gbps = get(copy, "gbps")
    out = []
    out.append("## GPU benchmark: ember (fused / unfused) against PyTorch\n")
    out.append(f"- ember: {ember_doc.get('device', '—')}, {ember_doc.get('date', '—')}"
               + (f"; **not measured: {ember_doc['skipped']}**" if "skipped" in ember_doc else ""))
    out.append(f"- PyTorch {torch_doc.get('torch', '—')}: {torch_doc.get('device', '—')}"
               + (f"; **not measured: {torch_doc['skipped']}**" if "skipped" in torch_doc else ""))
    out.append(f"- copy ceiling (2^28 f32 device-to-device, read + write): "
               f"{fmt(copy_gbps, '.0f', ' GB/s')}")
    out.append("- GB/s count each input read once and each output written once; per call = "
               "enqueue + sync on the host clock; back to back = N calls, one sync.\n")

    order = ELEMENTWISE + ROWWISE + ("matmul", "matmul_bias", "matmul_bias_relu",
                                     "matmul_bias_gelu")
    keys = sorted({(w, n) for (w, n, _) in list(e) + list(t) if w != "copy"},
                  key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[1]))
    for mode in ("per_call", "back_to_back"):
        out.append(f"### {mode.replace('_', ' ')}\n")
        out.append("| workload | n | ember fused ms | GB/s | of copy | ember unfused ms | "
                   "fused/unfused | torch eager ms | torch.compile ms | ember vs compile | "
                   "ember vs best torch |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for w, n in keys:
            f, u = e.get((w, n, "fused")), e.get((w, n, "unfused"))
            te, tc = t.get((w, n, "eager")), t.get((w, n, "compiled"))
            fm, um = get(f, mode + "_ms"), get(u, mode + "_ms")
            em, cm = get(te, mode + "_ms"), get(tc, mode + "_ms")
            best = min([x for x in (em, cm) if x is not None], default=None)
            gbps = get(f, mode + "_gbps")
            rate = fmt(gbps, ".0f")
            if w.startswith("matmul") and get(f, mode + "_tflops") is not None:
                rate += f" ({f[mode + '_tflops']:.1f} TFLOP/s)"
            if f is not None and fm is None:
                rate = f"not measured ({f.get('skipped') or f.get('error', '')[:60]})"
            if mode == "back_to_back" and f is not None:
                explored = get(f.get("back_to_back_engine"), "explorations")
                if explored:
                    rate += f" (not steady: {explored} explorations)"
            out.append(f"| {w} | {size_text(n)} | {fmt(fm)} | {rate} | "
                       f"{fmt(ratio(gbps, copy_gbps), '.0%')} | {fmt(um)} | "
                       f"{fmt(ratio(um, fm), '.2f', 'x')} | {fmt(em)} | {fmt(cm)} | "
                       f"{fmt(ratio(cm, fm), '.2f', 'x')} | {fmt(ratio(best, fm), '.2f', 'x')} |")
        out.append("")

    variants = sorted({(w, n) for (w, n, var) in e if var in ("fused-cublaslt", "fused-kernel")})
    if variants:
        out.append("### matmul epilogue variants (per call ms / back to back ms)\n")
        out.append("| workload | engine's choice | fused (chosen) | cuBLASLt epilogue | "
                   "cuBLASLt + generated kernel |")
        out.append("|---|---|---|---|---|")
        for w, n in variants:
            cells = []
            for var in ("fused", "fused-cublaslt", "fused-kernel"):
                r = e.get((w, n, var))
                cells.append(f"{fmt(get(r, 'per_call_ms'))} / {fmt(get(r, 'back_to_back_ms'))}")
            choice = get(e.get((w, n, "fused")), "epilogue_choice") or "—"
            out.append(f"| {w} | {choice} | " + " | ".join(cells) + " |")
        out.append("")

    host = ember_doc.get("host_launch")
    if host is not None:
        out.append("### host time per fused launch (cache-hit path)\n")
        if "error" in host:
            out.append(f"not measured: {host['error']}\n")
        else:
            b = host.get("breakdown", {})
            se, qe = host.get("synced_engine", {}), host.get("queued_engine", {})
            out.append(f"- seed on {host.get('n')} elements, synced after each call: "
                       f"{fmt(host.get('synced_us_per_call'), '.2f', ' µs')} per call "
                       f"({se.get('launches')} launches and {se.get('explorations')} explorations "
                       f"in {se.get('calls')} calls); less a bare launch + sync round trip "
                       f"({fmt(b.get('bare_launch_sync_us'), '.2f', ' µs')}), plus its "
                       f"cuLaunchKernel: **{fmt(host.get('us_per_launch'), '.2f', ' µs')} of host "
                       f"time per fused launch**")
            on_path = "" if b.get("plan_trace_on_path", True) else " (not on the path: launch records)"
            out.append(f"- breakdown: PlanTrace + KernelArguments "
                       f"{fmt(b.get('plan_trace_and_arguments_us'), '.2f', ' µs')}{on_path}, "
                       f"cuLaunchKernel {fmt(b.get('cu_launch_kernel_us'), '.2f', ' µs')}, "
                       f"the engine's rest {fmt(b.get('engine_rest_us'), '.2f', ' µs')}")
            out.append(f"- {qe.get('calls')} calls queued, one sync: "
                       f"{fmt(host.get('queued_us_per_call'), '.2f', ' µs')} per call "
                       f"({qe.get('launches')} launches: the search fuses independent calls)\n")

    unfused = ember_doc.get("host_unfused")
    if unfused is not None:
        out.append("### host time per unfused op (fusion off) against PyTorch eager\n")
        if "error" in unfused:
            out.append(f"not measured: {unfused['error']}\n")
        else:
            peer = (torch_doc or {}).get("host_per_op", {})
            out.append("| op (256 elements) | ember queued µs/op | eager queued µs/op | ratio | "
                       "ember synced µs | eager synced µs | record hits / misses |")
            out.append("|---|---|---|---|---|---|---|")
            for op in ("exp", "add"):
                m, p = unfused.get(op, {}), peer.get(op, {})
                eq, pq = m.get("queued_us_per_op"), p.get("queued_us_per_op")
                q = m.get("queued_engine", {})
                out.append(f"| {op} | {fmt(eq, '.2f')} | {fmt(pq, '.2f')} | "
                           f"{fmt(ratio(pq, eq), '.2f', 'x')} | {fmt(m.get('synced_us_per_op'), '.2f')} | "
                           f"{fmt(p.get('synced_us_per_op'), '.2f')} | "
                           f"{q.get('launch_record_hits')} / {q.get('launch_record_misses')} |")
            out.append("")

    out.append("### Targets\n")
    out.append("| target | measured | verdict |")
    out.append("|---|---|---|")

    def verdict(values, ok):
        if not values:
            return "—", "not measured"
        met = all(ok(v) for _, v in values)
        return ", ".join(f"{k} {v:.2f}" for k, v in values), "met" if met else "**not met**"

    vals = []
    for w in ELEMENTWISE:
        for (ww, n, var), r in e.items():
            if ww == w and var == "fused" and n >= (1 << 26) and copy_gbps:
                g = r.get("back_to_back_gbps")
                if g is not None:
                    vals.append((f"{w} {size_text(n)}", g / copy_gbps))
    m, v = verdict(vals, lambda x: x >= 0.95)
    out.append(f"| elementwise ≥ 95% of copy at ≥ 2^26 (fraction of copy) | {m} | {v} |")

    vals = []
    for w in ELEMENTWISE:
        r = ratio(get(t.get((w, 1 << 24, "compiled")), "per_call_ms"),
                  get(e.get((w, 1 << 24, "fused")), "per_call_ms"))
        if r is not None:
            vals.append((w, r))
    m, v = verdict(vals, lambda x: x >= 1.2)
    out.append(f"| elementwise ≥ 1.2× torch.compile per call at 2^24 | {m} | {v} |")

    vals = []
    for w in ROWWISE:
        for (ww, n, var), r in sorted(e.items()):
            if ww != w or var != "fused" or r.get("per_call_ms") is None:
                continue
            peers = [get(t.get((w, n, p)), "per_call_ms") for p in ("eager", "compiled")]
            peers = [p for p in peers if p is not None]
            if peers:
                vals.append((f"{w} {size_text(n)}", min(peers) / r["per_call_ms"]))
    m, v = verdict(vals, lambda x: x >= 1.2)
    out.append(f"| softmax/layernorm ≥ 1.2× the better of eager and compiled (per call) | {m} | {v} |")

    mm = get(e.get(("matmul", MAT_N_KEY, "fused")), "per_call_ms")
    mg = get(e.get(("matmul_bias_gelu", MAT_N_KEY, "fused")), "per_call_ms")
    r = ratio(mg, mm)
    m, v = verdict([("epilogue/alone", r)] if r is not None else [], lambda x: x <= 1.03)
    out.append(f"| matmul + bias + gelu within 3% of matmul alone (time ratio) | {m} | {v} |")
    us = get(host, "us_per_launch") if host is not None else None
    m, v = verdict([("µs per launch", us)] if us is not None else [], lambda x: x < 5.0)
    out.append(f"| host time per fused launch on the cache-hit path < 5 µs | {m} | {v} |")
    out.append("")
    print("\n".join(out))
    return 0


MAT_N_KEY = 8192 * 4096  # the n ember-bench-gpu and torch_peer.py give the matmul rows

if __name__ == "__main__":
    sys.exit(main())
