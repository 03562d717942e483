#!/usr/bin/python3
"""The CPU fusion benchmark's workloads on numpy, numexpr and PyTorch (2 threads each).

Same data rule and shapes as bench/cpu_fusion_bench.cpp; prints one JSON object per line:
{"workload": ..., "n": ..., "peer": ..., "ms": median milliseconds}. Run by
bench/run_cpu_fusion.sh, which installs the Debian packages this needs.
"""
import json
import os
import sys

THREADS = int(os.environ.get("EMBER_BENCH_THREADS", "2"))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(THREADS))
os.environ.setdefault("NUMEXPR_MAX_THREADS", str(THREADS))

import numpy as np  # noqa: E402

from peer_timing import median_ms  # noqa: E402

try:
    import numexpr as ne  # noqa: E402
    ne.set_num_threads(THREADS)
except ImportError:
    ne = None
try:
    import torch  # noqa: E402
    torch.set_num_threads(THREADS)
except ImportError:
    torch = None

ROW = 1024


def data(n, scale):
    return (scale * (np.arange(n) % 101) / 101.0).astype(np.float32)


def workloads(n):
    a, b, c = data(n, 1), data(n, 2), data(n, 0.5)
    x = data(n, 1)
    sx = data(n, 4).reshape(n // ROW, ROW)
    lx, lr = data(n, 2).reshape(n // ROW, ROW), data(n, 1).reshape(n // ROW, ROW)
    f32 = np.float32

    def np_softmax():
        y = sx * f32(0.125)
        e = np.exp(y - y.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def np_layernorm():
        h = lx + lr
        xc = h - h.mean(axis=1, keepdims=True)
        return xc / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + f32(1e-5))

    out = {
        "seed": {"numpy": lambda: np.exp(a * b + c * f32(2))},
        "chain8": {"numpy": lambda: np.abs(np.sin(np.tanh(np.exp(x * f32(0.5) + f32(1))
                                                           - f32(0.25)) * f32(3)))},
        "softmax": {"numpy": np_softmax},
        "layernorm": {"numpy": np_layernorm},
    }
    if ne is not None:
        # numexpr looks names up in the calling frame; closures need them passed.
        out["seed"]["numexpr"] = lambda: ne.evaluate("exp(a * b + c * 2)",
                                                     local_dict={"a": a, "b": b, "c": c})
        out["chain8"]["numexpr"] = lambda: ne.evaluate(
            "abs(sin(tanh(exp(x * 0.5 + 1) - 0.25) * 3))", local_dict={"x": x})

        def ne_softmax():
            y = ne.evaluate("sx * 0.125", local_dict={"sx": sx})
            m = y.max(axis=1, keepdims=True)
            e = ne.evaluate("exp(y - m)", local_dict={"y": y, "m": m})
            s = e.sum(axis=1, keepdims=True)
            return ne.evaluate("e / s", local_dict={"e": e, "s": s})

        def ne_layernorm():
            h = ne.evaluate("lx + lr", local_dict={"lx": lx, "lr": lr})
            mu = h.mean(axis=1, keepdims=True)
            xc = ne.evaluate("h - mu", local_dict={"h": h, "mu": mu})
            var = ne.evaluate("xc * xc", local_dict={"xc": xc}).mean(axis=1, keepdims=True)
            return ne.evaluate("xc / sqrt(var + 1e-5)", local_dict={"xc": xc, "var": var})

        out["softmax"]["numexpr"] = ne_softmax
        out["layernorm"]["numexpr"] = ne_layernorm
    if torch is not None:
        ta, tb, tc, tx = (torch.from_numpy(v) for v in (a, b, c, x))
        tsx, tlx, tlr = (torch.from_numpy(v) for v in (sx, lx, lr))
        out["seed"]["torch"] = lambda: torch.exp(ta * tb + tc * 2)
        out["chain8"]["torch"] = lambda: torch.abs(torch.sin(torch.tanh(
            torch.exp(tx * 0.5 + 1) - 0.25) * 3))
        out["softmax"]["torch"] = lambda: torch.softmax(tsx * 0.125, dim=1)
        out["layernorm"]["torch"] = lambda: torch.nn.functional.layer_norm(
            tlx + tlr, (ROW,), eps=1e-5)
    return out


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1 << 20, 1 << 22, 1 << 24]
    for n in sizes:
        for workload, peers in workloads(n).items():
            for peer, fn in peers.items():
                print(json.dumps({"workload": workload, "n": n, "peer": peer,
                                  "ms": round(median_ms(fn), 4)}), flush=True)


if __name__ == "__main__":
    main()
