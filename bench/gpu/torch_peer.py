#!/usr/bin/env python3
"""PyTorch on the workloads of ember-bench-gpu (bench/gpu/ember_bench_gpu.cpp), eager and
torch.compile, timed the same way, plus the device-to-device copy ceiling; writes JSON that
bench/gpu/report.py merges with ember's.

    python3 bench/gpu/torch_peer.py OUT.json
    TORCH_PEER_SIZES=24,26,28,20,22   exponents of the f32 element counts, in the order they run
                                      (as EMBER_BENCH_GPU_SIZES; matmuls run first)
    TORCH_PEER_REPEATS=15             timed calls per case (median)
    TORCH_PEER_BUDGET_S=150           wall-time budget; cases past it are skipped and say so
    TORCH_PEER_MATMUL=0               leaves the matmul cases out
    TORCH_PEER_COMPILE=0              eager only (torch.compile takes seconds per shape)
    TORCH_PEER_ONLY=softmax,layernorm only these workloads (as EMBER_BENCH_GPU_ONLY)

Timing, as ember's (a user's view, host overhead included):
    per_call      time.perf_counter() around one call and torch.cuda.synchronize(); median;
    back_to_back  N calls then one synchronize, total / N; median of 3 rounds.
Inputs rotate over several sets so that L2 does not hold them between calls; outputs of a
back-to-back round stay alive until its synchronize (as ember's must). Matmul runs in full f32
(TF32 off), the precision ember's f32 matmul promises.

Copy ceiling: dst.copy_(src) of 2^28 f32, bytes read + written, timed with CUDA events over 20
copies after warm-up (the median of 5 rounds).
"""

import datetime
import json
import math
import os
import statistics
import sys
import time

ROW = 4096
MAT_M, MAT_K, MAT_N = 8192, 4096, 4096
L2_BYTES = 60e6


def env_list(name, default):
    text = os.environ.get(name) or default
    return [int(x) for x in text.split(",") if x]


def seed(a, b, c):
    return (a * b + c * 2).exp()


def chain8(x):
    x = x * 0.5
    x = x + 1.0
    x = x.exp()
    x = x - 0.25
    x = x.tanh()
    x = x * 3.0
    x = x.sin()
    return x.abs()


def chains5x8(*xs):
    return tuple(chain8(x) for x in xs)


def softmax(x):
    # Written with the ops a user of ember writes; torch.softmax is the library's own kernel.
    m = x.amax(dim=-1, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(dim=-1, keepdim=True)


def softmax_scaled(x):
    return softmax(x * 0.125)


def layernorm(x, gamma, beta):
    mu = x.mean(dim=-1, keepdim=True)
    d = x - mu
    var = (d * d).mean(dim=-1, keepdim=True)
    return d / (var + 1e-5).sqrt() * gamma + beta


def matmul(a, b, bias):
    return a @ b


def matmul_bias_gelu(a, b, bias):
    import torch

    y = a @ b + bias
    return 0.5 * y * (1 + torch.erf(y * 0.7071067811865476))


def workloads(exponents, with_matmul):
    """(name, n, bytes, flops, make_inputs(torch), fn)"""
    out = []
    if with_matmul:
        nbytes = 4.0 * (MAT_M * MAT_K + MAT_K * MAT_N + MAT_N + MAT_M * MAT_N)
        flops = 2.0 * MAT_M * MAT_N * MAT_K

        def mat_inputs(t):
            s = 1.0 / math.sqrt(MAT_K)
            return [t.rand(MAT_M, MAT_K, device="cuda") * 2 - 1,
                    (t.rand(MAT_K, MAT_N, device="cuda") * 2 - 1) * s,
                    (t.rand(MAT_N, device="cuda") * 2 - 1) * 0.1]

        out.append(("matmul", MAT_M * MAT_N, nbytes - 4.0 * MAT_N, flops, mat_inputs, matmul))
        out.append(("matmul_bias_gelu", MAT_M * MAT_N, nbytes, flops, mat_inputs, matmul_bias_gelu))
    for e in exponents:
        n = 1 << e
        b = 4.0 * n
        rows = max(1, n // ROW)
        out.append(("seed", n, 4 * b, 0, lambda t, n=n: [t.rand(n, device="cuda") * 2 - 1 for _ in range(3)], seed))
        out.append(("chain8", n, 2 * b, 0, lambda t, n=n: [t.rand(n, device="cuda") * 2 - 1], chain8))
        out.append(("chains5x8", n, 10 * b, 0, lambda t, n=n: [t.rand(n, device="cuda") * 2 - 1 for _ in range(5)], chains5x8))
        out.append(("softmax", rows * ROW, 8.0 * rows * ROW, 0,
                    lambda t, r=rows: [t.rand(r, ROW, device="cuda") * 8 - 4], softmax))
        out.append(("softmax_scaled", rows * ROW, 8.0 * rows * ROW, 0,
                    lambda t, r=rows: [t.rand(r, ROW, device="cuda") * 8 - 4], softmax_scaled))
        out.append(("layernorm", rows * ROW, 8.0 * rows * ROW + 8 * ROW, 0,
                    lambda t, r=rows: [t.rand(r, ROW, device="cuda") * 6 - 3,
                                       t.rand(ROW, device="cuda") + 0.5,
                                       t.rand(ROW, device="cuda") * 2 - 1], layernorm))
    return out


def time_case(torch, fn, inputs_sets, repeats, nbytes):
    sets = len(inputs_sets)
    for i in range(3):  # warm-up (compiles on the first call)
        fn(*inputs_sets[i % sets])
    torch.cuda.synchronize()
    per_call = []
    for i in range(repeats):
        t0 = time.perf_counter()
        out = fn(*inputs_sets[i % sets])
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - t0) * 1e3)
        del out
    out_bytes = max(1.0, nbytes / 2)
    calls = int(min(50, max(3, 16e9 / out_bytes)))
    b2b = []
    for _ in range(3):
        outs = []
        t0 = time.perf_counter()
        for i in range(calls):
            outs.append(fn(*inputs_sets[i % sets]))
        torch.cuda.synchronize()
        b2b.append((time.perf_counter() - t0) * 1e3 / calls)
        del outs
    return statistics.median(per_call), min(per_call), statistics.median(b2b), calls


def copy_ceiling(torch):
    n = 1 << 28
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(20):
            dst.copy_(src)
        end.record()
        torch.cuda.synchronize()
        rounds.append(start.elapsed_time(end) / 20)
    ms = statistics.median(rounds)
    nbytes = 2 * 4.0 * n
    return {"workload": "copy", "n": n, "variant": "copy", "bytes": nbytes, "ms": ms,
            "gbps": nbytes / (ms * 1e6)}


def host_per_op(torch):
    """PyTorch eager's host time per op on 256 elements, as ember-bench-gpu's host_unfused
    measures ember's: N ops queued then one sync (per op), and one op synced (median)."""
    x = torch.rand(256, device="cuda") * 2 - 1
    y = torch.rand(256, device="cuda") * 2 - 1
    out = {"n": 256}
    for name, op in (("exp", lambda: torch.exp(x)), ("add", lambda: x + y)):
        for _ in range(20):
            op()
        torch.cuda.synchronize()
        calls = 2000
        outs = []
        t0 = time.perf_counter()
        for _ in range(calls):
            outs.append(op())
        torch.cuda.synchronize()
        queued = (time.perf_counter() - t0) * 1e6 / calls
        del outs
        synced = []
        for _ in range(200):
            t0 = time.perf_counter()
            op()
            torch.cuda.synchronize()
            synced.append((time.perf_counter() - t0) * 1e6)
        out[name] = {"queued_us_per_op": queued, "synced_us_per_op": statistics.median(synced)}
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    doc = {"tool": "torch", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "results": []}

    def write():
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)

    try:
        import torch
    except ImportError as e:
        doc["skipped"] = f"PyTorch is not importable: {e}"
        print("torch_peer:", doc["skipped"])
        write()
        return 0
    if not torch.cuda.is_available():
        doc["skipped"] = "torch.cuda.is_available() is False (no GPU)"
        print("torch_peer: not measured:", doc["skipped"])
        write()
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    doc["device"] = torch.cuda.get_device_name(0)
    doc["torch"] = torch.__version__
    start = time.time()
    budget = float(os.environ.get("TORCH_PEER_BUDGET_S", "150"))
    repeats = int(os.environ.get("TORCH_PEER_REPEATS", "15"))
    exponents = env_list("TORCH_PEER_SIZES", "24,26,28,20,22")
    with_matmul = os.environ.get("TORCH_PEER_MATMUL", "1") != "0"
    variants = ["eager"] + (["compiled"] if os.environ.get("TORCH_PEER_COMPILE", "1") != "0" else [])

    doc["host_per_op"] = host_per_op(torch)
    h = doc["host_per_op"]
    print(f"host per eager op: exp {h['exp']['queued_us_per_op']:.2f} us queued "
          f"({h['exp']['synced_us_per_op']:.2f} synced), add {h['add']['queued_us_per_op']:.2f} us queued")
    write()
    doc["results"].append(copy_ceiling(torch))
    c = doc["results"][-1]
    print(f"{'copy':<18} {c['n']:>11} {'copy':<9} {c['ms']:>10.4f} ms {c['gbps']:>9.1f} GB/s")
    write()
    print(f"{'workload':<18} {'n':>11} {'variant':<9} {'per call ms':>12} {'GB/s':>9} {'b2b ms':>10} {'GB/s':>9}")
    torch.manual_seed(0)
    only = [w for w in os.environ.get("TORCH_PEER_ONLY", "").split(",") if w]
    for name, n, nbytes, flops, make_inputs, fn in workloads(exponents, with_matmul):
        if only and name not in only:
            continue
        sets = int(min(16, max(2, math.ceil(4 * L2_BYTES / max(1.0, nbytes)))))
        inputs = [make_inputs(torch) for _ in range(sets)]
        for variant in variants:
            r = {"workload": name, "n": n, "variant": variant, "bytes": nbytes}
            if flops:
                r["flops"] = flops
            if time.time() - start > budget:
                r["skipped"] = "time budget (TORCH_PEER_BUDGET_S) spent"
            else:
                try:
                    f = fn if variant == "eager" else torch.compile(fn, dynamic=False)
                    pc, pc_min, b2b, calls = time_case(torch, f, inputs, repeats, nbytes)
                    r.update({"per_call_ms": pc, "per_call_min_ms": pc_min, "back_to_back_ms": b2b,
                              "back_to_back_calls": calls, "input_sets": sets})
                    for mode in ("per_call", "back_to_back"):
                        ms = r[mode + "_ms"]
                        r[mode + "_gbps"] = nbytes / (ms * 1e6)
                        if flops:
                            r[mode + "_tflops"] = flops / (ms * 1e9)
                except Exception as e:  # a failed compile is a result too
                    r["error"] = f"{type(e).__name__}: {e}"[:500]
            doc["results"].append(r)
            write()
            if "per_call_ms" in r:
                print(f"{name:<18} {n:>11} {variant:<9} {r['per_call_ms']:>12.4f} {r['per_call_gbps']:>9.1f} "
                      f"{r['back_to_back_ms']:>10.4f} {r['back_to_back_gbps']:>9.1f}", flush=True)
            else:
                print(f"{name:<18} {n:>11} {variant:<9} {r.get('skipped', r.get('error'))}", flush=True)
        del inputs
        torch.cuda.empty_cache()
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
