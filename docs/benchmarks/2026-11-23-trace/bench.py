#!/usr/bin/env python3
"""Interleaved timing of treelb runs with and without --trace.

usage: bench.py RUNS TREE THREADS VARIANT... [-- EXTRA ARGS]
Each round runs every variant once (the order rotated each round); a variant
is 'BIN' (untraced) or 'BIN+trace' (traced, the trace to /tmp/trace-bench/).
Ratios are to the first variant."""
import json, statistics, subprocess, sys, time, os, resource

runs, tree, threads = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rest = sys.argv[4:]
extra = rest[rest.index("--") + 1:] if "--" in rest else []
variants = rest[:rest.index("--")] if "--" in rest else rest
res = {v: {"wall": [], "proc": [], "cpu": []} for v in variants}
for r in range(runs):
    order = variants[r % len(variants):] + variants[:r % len(variants)]
    for v in order:
        binary, _, mode = v.partition("+")
        cmd = [binary, "uts", "--tree", tree, "--threads", threads, "--json", "--no-progress"] + extra
        if mode == "trace":
            os.makedirs("/tmp/trace-bench", exist_ok=True)
            cmd += ["--trace", f"/tmp/trace-bench/{tree}.csv"]
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True).stdout
        proc = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[v]["cpu"].append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        res[v]["wall"].append(json.loads(out)["wall_secs"])
        res[v]["proc"].append(proc)
base = variants[0]
for v in variants:
    w, p = res[v]["wall"], res[v]["proc"]
    mw, mp = statistics.median(w), statistics.median(p)
    print(f"{v:40s} min run wall {min(w):.4f} s = {min(w)/min(res[base]['wall']):.4f} of base;"
          f" min process {min(p):.4f} s = {min(p)/min(res[base]['proc']):.4f} of base")
    print(f"{v:40s} run wall median {mw:.4f} s (min {min(w):.4f}, max {max(w):.4f}); process median {mp:.4f} s;"
          f" ratio to {os.path.basename(base)}: wall {mw/statistics.median(res[base]['wall']):.4f},"
          f" process {mp/statistics.median(res[base]['proc']):.4f}")
for v in variants[1:]:
    pr = [a / b for a, b in zip(res[v]["wall"], res[base]["wall"])]
    pp = [a / b for a, b in zip(res[v]["proc"], res[base]["proc"])]
    pc = [a / b for a, b in zip(res[v]["cpu"], res[base]["cpu"])]
    print(f"{v:40s} CPU (user+sys) median {statistics.median(res[v]['cpu']):.4f} s vs {statistics.median(res[base]['cpu']):.4f} s; paired CPU ratio median {statistics.median(pc):.4f}")
    print(f"{v:40s} paired ratios to {base}: run wall median {statistics.median(pr):.4f}, process median {statistics.median(pp):.4f} ({len(pr)} rounds)")
print(json.dumps(res))
