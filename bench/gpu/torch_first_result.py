"""torch's time to first result for ember-lab's transformer block and MLP, on the same shapes.

One process per run, as ember-lab's cold and warm runs are one process each:
    python3 torch_first_result.py transformer|mlp eager|compile|reduce-overhead|graph STEPS
prints one JSON line: main_unix_ns (the system clock at process start, from which
bench/gpu/first-result.sh counts exec -> script), import_ms (import torch), start_ms (CUDA
context and inputs ready, from process start), first_result_ms (from process start to the first
step's result on the host), total_ms, steady_ms_per_step (the median of the last steps).
`compile` uses torch.compile with its default mode; with TORCHINDUCTOR_CACHE_DIR pointing at the
same directory, a second process is torch's warm start (its FX graph and Triton caches).
`reduce-overhead` is torch.compile's CUDA-graph mode; `graph` captures one eager step by hand
in a torch.cuda.CUDAGraph (three warm-up steps on a side stream first) and replays it per step
after copying the step's inputs into the captured ones: the host cost of a step at its floor, the
peer of ember's step time (issue 41). The block: pre-norm, layernorm, 4-head
attention with softmax, erf GELU, seq 64, width 64, ff 256 (tools/lab/scenario_transformer.cpp);
the MLP: 32x64 -> tanh 128 -> 32, MSE loss, hand-written backward, SGD (scenario_mlp.cpp).
"""
import json
import math
import sys
import time

T0 = time.perf_counter()
MAIN_UNIX_NS = time.time_ns()
import torch  # noqa: E402

T_IMPORT = time.perf_counter()


def ms(t):
    return (t - T0) * 1000.0


def layernorm(x, g, b):
    mean = x.mean(-1, keepdim=True)
    c = x - mean
    var = (c * c).mean(-1, keepdim=True)
    return c / torch.sqrt(var + 1e-5) * g + b


def transformer(p, x, seq=64, width=64, heads=4):
    hw = width // heads
    h = layernorm(x, p["ln1_g"], p["ln1_b"])
    q = (h @ p["wq"]).reshape(seq, heads, hw).transpose(0, 1)
    k = (h @ p["wk"]).reshape(seq, heads, hw).transpose(0, 1)
    v = (h @ p["wv"]).reshape(seq, heads, hw).transpose(0, 1)
    s = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(hw))
    e = torch.exp(s - s.amax(-1, keepdim=True))
    prob = e / e.sum(-1, keepdim=True)
    merged = (prob @ v).transpose(0, 1).reshape(seq, width)
    x1 = x + merged @ p["wo"]
    u = layernorm(x1, p["ln2_g"], p["ln2_b"]) @ p["w1"] + p["b1"]
    gelu = u * 0.5 * (1.0 + torch.erf(u * (1.0 / math.sqrt(2.0))))
    return x1 + gelu @ p["w2"] + p["b2"]


def mlp(p, x, t, lr=0.05):
    h = torch.tanh(x @ p["w1"] + p["b1"])
    diff = h @ p["w2"] + p["b2"] - t
    loss = (diff * diff).mean()
    dy = diff * (2.0 / diff.numel())
    dw2 = h.t() @ dy
    db2 = dy.sum(0)
    dz = (dy @ p["w2"].t()) * (1.0 - h * h)
    dw1 = x.t() @ dz
    db1 = dz.sum(0)
    return loss, p["w1"] - lr * dw1, p["b1"] - lr * db1, p["w2"] - lr * dw2, p["b2"] - lr * db2


def compiled(fn, mode):
    if mode == "compile":
        return torch.compile(fn)
    if mode == "reduce-overhead":
        return torch.compile(fn, mode="reduce-overhead")
    return fn


def captured(body):
    """body captured in a CUDA graph after three warm-up calls; returns (replay, output)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = body()
    return graph.replay, out


def main():
    scenario, mode, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dev = torch.device("cuda")
    gen = torch.Generator(device="cpu").manual_seed(1)

    def rnd(*shape):
        return (torch.rand(*shape, generator=gen) * 2 - 1).to(dev)

    if scenario == "transformer":
        w, ff = 64, 256
        p = {"ln1_g": rnd(w), "ln1_b": rnd(w), "wq": rnd(w, w), "wk": rnd(w, w), "wv": rnd(w, w),
             "wo": rnd(w, w), "ln2_g": rnd(w), "ln2_b": rnd(w), "w1": rnd(w, ff), "b1": rnd(ff),
             "w2": rnd(ff, w), "b2": rnd(w)}
        fn = compiled(transformer, mode)
        inputs = [rnd(64, w) for _ in range(steps)]

        def step(i):
            return fn(p, inputs[i])

        if mode == "graph":
            static_x = inputs[0].clone()
            replay, out = captured(lambda: transformer(p, static_x))

            def step(i):  # noqa: F811
                static_x.copy_(inputs[i])
                replay()
                return out
    else:
        p = {"w1": rnd(64, 128), "b1": rnd(128), "w2": rnd(128, 32), "b2": rnd(32)}
        fn = compiled(mlp, mode)
        batches = [(rnd(32, 64), rnd(32, 32)) for _ in range(steps)]

        def step(i):
            loss, p["w1"], p["b1"], p["w2"], p["b2"] = fn(p, *batches[i])
            return loss

        if mode == "reduce-overhead":
            # The updated weights outlive the step and feed the next one: a CUDA-graph output is
            # overwritten by the next replay, so each is cloned (PyTorch's documented rule for
            # cudagraph trees), and each step is marked as a new one.
            def step(i):  # noqa: F811
                torch.compiler.cudagraph_mark_step_begin()
                loss, w1, b1, w2, b2 = fn(p, *batches[i])
                p["w1"], p["b1"], p["w2"], p["b2"] = w1.clone(), b1.clone(), w2.clone(), b2.clone()
                return loss.clone()

        if mode == "graph":
            sx, st = batches[0][0].clone(), batches[0][1].clone()

            def body():
                loss, w1, b1, w2, b2 = mlp(p, sx, st)
                for k, v in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
                    p[k].copy_(v)  # the SGD step in place, inside the graph
                return loss

            replay, out = captured(body)

            def step(i):  # noqa: F811
                sx.copy_(batches[i][0])
                st.copy_(batches[i][1])
                replay()
                return out

    torch.cuda.synchronize()
    t_start = time.perf_counter()
    first = step(0).cpu()
    t_first = time.perf_counter()
    times = []
    for i in range(1, steps):
        s = time.perf_counter()
        step(i).cpu()
        times.append((time.perf_counter() - s) * 1000.0)
    t_end = time.perf_counter()
    times.sort()
    tail = times[len(times) // 2:] if times else [0.0]
    print(json.dumps({"scenario": scenario, "mode": mode, "steps": steps,
                      "main_unix_ns": MAIN_UNIX_NS, "import_ms": ms(T_IMPORT),
                      "start_ms": ms(t_start), "first_result_ms": ms(t_first),
                      "total_ms": ms(t_end),
                      "steady_ms_per_step": tail[len(tail) // 2],
                      "first_value": float(first.flatten()[0])}))


if __name__ == "__main__":
    main()
