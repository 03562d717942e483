#!/usr/bin/python3
"""ember-lab's transformer block (tools/lab/scenario_transformer.cpp) in PyTorch eager, for the
fused/unfused/peer comparison of bench/run_lab_fusion.sh (issue 18).

Same shapes (seq 64, width 64, 4 heads, ff 256), same thread count (EMBER_BENCH_THREADS, default
2), and a step measured as ember-lab measures it: the fresh [seq, width] input goes in from host
memory, the block runs, the result comes back to host memory. Two forms:
  as_written  the ops ember-lab queues, one for one (layer norm and softmax by hand, gelu via erf:
              bench/gpu/torch_first_result.py's block);
  idiomatic   PyTorch's own layer_norm, softmax and gelu (its fused kernels).
Prints one JSON line per form: the best steady_ms_per_step of REPS runs of STEPS steps each,
computed as ember-lab computes it (the median step time after the first step: StepClock,
tools/lab/scenarios.cpp).
"""
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu"))
import torch_first_result  # noqa: E402

SEQ, WIDTH, HEADS = 64, 64, 4
HEAD_WIDTH, FF = WIDTH // HEADS, 4 * WIDTH
EPS = 1e-5


def parameters(rng):
    sw, sf = 1 / math.sqrt(WIDTH), 1 / math.sqrt(FF)
    u = lambda shape, lo, hi: torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))
    return {
        "ln1_g": u((1, WIDTH), 0.8, 1.2), "ln1_b": u((1, WIDTH), -0.1, 0.1),
        "wq": u((WIDTH, WIDTH), -sw, sw), "wk": u((WIDTH, WIDTH), -sw, sw),
        "wv": u((WIDTH, WIDTH), -sw, sw), "wo": u((WIDTH, WIDTH), -sw, sw),
        "ln2_g": u((1, WIDTH), 0.8, 1.2), "ln2_b": u((1, WIDTH), -0.1, 0.1),
        "w1": u((WIDTH, FF), -sw, sw), "b1": u((1, FF), -sw, sw),
        "w2": u((FF, WIDTH), -sf, sf), "b2": u((1, WIDTH), -sf, sf),
    }


def split_heads(t):
    return t.reshape(SEQ, HEADS, HEAD_WIDTH).transpose(0, 1)


def as_written(p, x):
    # The GPU suite's torch block (bench/gpu/torch_first_result.py) is the same block, op for op.
    return torch_first_result.transformer(p, x, SEQ, WIDTH, HEADS)


def idiomatic(p, x):
    h = F.layer_norm(x, (WIDTH,), p["ln1_g"][0], p["ln1_b"][0], EPS)
    q, k, v = split_heads(h @ p["wq"]), split_heads(h @ p["wk"]), split_heads(h @ p["wv"])
    prob = torch.softmax((q @ k.transpose(1, 2)) * (1 / math.sqrt(HEAD_WIDTH)), dim=-1)
    x1 = x + (prob @ v).transpose(0, 1).reshape(SEQ, WIDTH) @ p["wo"]
    u = F.layer_norm(x1, (WIDTH,), p["ln2_g"][0], p["ln2_b"][0], EPS) @ p["w1"] + p["b1"]
    return x1 + (F.gelu(u) @ p["w2"] + p["b2"])


def steady_ms(forward, p, rng, steps):
    times = []
    with torch.no_grad():
        for _ in range(steps):
            x = rng.uniform(-1, 1, (SEQ, WIDTH)).astype(np.float32)
            t0 = time.perf_counter()
            forward(p, torch.from_numpy(x)).numpy()
            times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times[1:]))


def main():
    torch.set_num_threads(int(os.environ.get("EMBER_BENCH_THREADS", "2")))
    steps = int(os.environ.get("STEPS_TRANSFORMER", "600"))
    reps = int(os.environ.get("REPS", "5"))
    rng = np.random.default_rng(1)
    p = parameters(rng)
    with torch.no_grad():
        x = torch.from_numpy(rng.uniform(-1, 1, (SEQ, WIDTH)).astype(np.float32))
        gap = (as_written(p, x) - idiomatic(p, x)).abs().max().item()
    assert gap < 1e-4, f"the two forms disagree by {gap}"
    for name, forward in (("as_written", as_written), ("idiomatic", idiomatic)):
        best = min(steady_ms(forward, p, rng, steps) for _ in range(reps))
        print(json.dumps({"scenario": "transformer", "peer": "torch_eager_" + name,
                          "torch": torch.__version__, "threads": torch.get_num_threads(),
                          "best_steady_ms": round(best, 4)}), flush=True)


if __name__ == "__main__":
    main()
