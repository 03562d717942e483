"""bench/gpu/first-result.sh's rows and summary (issue 43: every first result beside the floor).

    python3 first_result_rows.py row WHO SCENARIO PHASE EXEC_NS END_NS STATUS FILE
        one JSON row from a program's JSON output (FILE): EXEC_NS is `date +%s%N` taken by the
        script just before it started the program, END_NS the same after it exited, STATUS its
        exit status. WHO is floor (ember-floor-probe), ember (ember-lab, ember-bench-gpt) or
        torch... (torch_first_result.py, torch_gpt.py).
    python3 first_result_rows.py summary JSONL
        the markdown summary of the rows: each first result from exec, and above the floor.

Every program reports main_unix_ns, the system clock at the top of its main (or script), and
its times from there; exec_to_main_ms = (main_unix_ns - EXEC_NS) / 1e6 is what the process
paid before that: exec, the dynamic loader, static constructors, the Python interpreter. Adding
it gives the times from exec (*_from_exec_ms). The floor is ember-floor-probe's
kernel_from_exec_ms: driver, context and one empty kernel, nothing of ember or torch.
"""
import json
import statistics
import sys

EMBER_KEEP = ["device", "steps", "explorations", "cache_hits", "kernels_compiled", "compile_ms",
              "kernels_loaded_from_db", "kernels_loaded_from_shm", "kernels_rebuilt",
              "engine_start_ms", "plan_load_ms", "time_to_first_result_ms", "first_step_ms",
              "total_ms", "steady_ms_per_step", "max_rel_error", "first_loss", "last_loss"]
TORCH_KEEP = ["mode", "steps", "import_ms", "start_ms", "first_result_ms", "first_step_ms",
              "total_ms", "steady_ms_per_step", "first_value", "first_loss", "last_loss"]
FLOOR_KEEP = ["device", "driver_loaded_ms", "cu_init_ms", "context_ms", "module_ms", "kernel_ms"]


def read_json(path):
    """The program's JSON object: the whole output (ember-lab's is indented), else its last
    line (a peer that printed something before it)."""
    text = open(path, errors="replace").read()
    try:
        return json.loads(text)
    except ValueError:
        lines = text.strip().splitlines()
        return json.loads(lines[-1]) if lines else None


def from_exec(row, r, key, name):
    if row.get("exec_to_main_ms") is not None and isinstance(r.get(key), (int, float)):
        row[name] = row["exec_to_main_ms"] + r[key]


def make_row(who, scenario, phase, exec_ns, end_ns, status, path):
    row = {"who": who, "scenario": scenario, "phase": phase,
           "process_ms": (int(end_ns) - int(exec_ns)) / 1e6}
    if int(status) != 0:
        row["exit_status"] = int(status)
    try:
        r = read_json(path)
    except ValueError:
        r = None
    if not isinstance(r, dict):
        row["error"] = f"no JSON result (exit status {status}; see first-result.log)"
        return row
    row["exec_unix_ns"] = int(exec_ns)
    row["main_unix_ns"] = r.get("main_unix_ns")
    row["exec_to_main_ms"] = ((r["main_unix_ns"] - int(exec_ns)) / 1e6
                              if isinstance(r.get("main_unix_ns"), int) else None)
    if who == "floor":
        row.update({k: r.get(k) for k in FLOOR_KEEP})
        from_exec(row, r, "context_ms", "context_from_exec_ms")
        from_exec(row, r, "kernel_ms", "kernel_from_exec_ms")
    elif who == "ember":
        row.update({k: r[k] for k in EMBER_KEEP if k in r})
        from_exec(row, r, "engine_start_ms", "engine_start_from_exec_ms")
        from_exec(row, r, "time_to_first_result_ms", "first_result_from_exec_ms")
        # The engine's start breakdown, whatever it holds (start_* keys, at the top or in the
        # scenario's details).
        details = r.get("details") if isinstance(r.get("details"), dict) else {}
        start = {k: v for src in (r, details) for k, v in src.items() if k.startswith("start_")}
        if start:
            row["start"] = start
    else:
        row.update({k: r[k] for k in TORCH_KEEP if k in r})
        from_exec(row, r, "start_ms", "start_from_exec_ms")
        from_exec(row, r, "first_result_ms", "first_result_from_exec_ms")
    return row


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def summary(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    floors = [r for r in rows if r["who"] == "floor" and r.get("kernel_from_exec_ms") is not None]
    print("## First result from exec, above the floor\n")
    floor = None
    if floors:
        floor = statistics.median(r["kernel_from_exec_ms"] for r in floors)
        by_phase = {p: ", ".join(fmt(r["kernel_from_exec_ms"]) for r in floors if r["phase"] == p)
                    for p in ("before", "after")}
        print(f"Floor (ember-floor-probe on {floors[0].get('device')}, {len(floors)} runs): "
              f"kernel from exec, median **{fmt(floor)} ms** (before: {by_phase['before']}; "
              f"after: {by_phase['after']}); context from exec, median "
              f"{fmt(statistics.median(r['context_from_exec_ms'] for r in floors))} ms; "
              f"exec -> main, median "
              f"{fmt(statistics.median(r['exec_to_main_ms'] for r in floors))} ms.\n")
    else:
        print("Floor: not measured (ember-floor-probe failed: see first-result.log).\n")
    print("| who | scenario | phase | exec -> main ms | start from exec ms "
          "| first result from exec ms | above floor ms | steady ms/step | kernels compiled / "
          "loaded |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["who"] == "floor":
            continue
        first = r.get("first_result_from_exec_ms")
        above = first - floor if first is not None and floor is not None else None
        start = r.get("engine_start_from_exec_ms", r.get("start_from_exec_ms"))
        kernels = "-"
        if "kernels_compiled" in r:
            loaded = sum(r.get(k) or 0
                         for k in ("kernels_loaded_from_db", "kernels_loaded_from_shm"))
            kernels = f"{r['kernels_compiled']} / {loaded}"
        cells = [r["who"], r["scenario"], r["phase"], fmt(r.get("exec_to_main_ms")), fmt(start),
                 fmt(first), fmt(above), fmt(r.get("steady_ms_per_step"), 2), kernels]
        if "error" in r:
            cells[3:] = [r["error"]] + [""] * 5
        print("| " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) == 9 and sys.argv[1] == "row":
        print(json.dumps(make_row(*sys.argv[2:])))
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
