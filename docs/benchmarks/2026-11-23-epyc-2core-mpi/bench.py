#!/usr/bin/env python3
"""treelb MPI vs treelb threads vs the sequential baseline, side by side in one run.

Usage: bench.py TREELB [--repeat N] [--trees T1,T3,T1L,T3L] [--out DIR]

TREELB is a treelb binary built with `--features mpi`. For every tree:
the sequential baseline, the threads runtime at P = 1 and P = 2
(`treelb bench`), and the MPI runtime at np = 1 and np = 2 (`mpirun -np N
treelb uts --tree T --runtime mpi --json`); fastest of N runs each. Wall
times are those the runs measure themselves (from the start of the PEs to
termination; MPI start-up and MPI_Init excluded, as thread start-up is for
the threads runtime).
"""
import argparse
import json
import os
import platform
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("treelb")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trees", default="T1,T3,T1L,T3L")
    ap.add_argument("--out")
    a = ap.parse_args()
    trees = a.trees.split(",")
    # The benchmark harness: seq and treelb at P = 1 and 2, each run in its
    # own process, answers checked (exit code 1 on a mismatch).
    bench = json.loads(run([a.treelb, "bench", "--workloads", ",".join(trees), "--engines", "seq,treelb",
                            "-p", "1,2", "--repeat", str(a.repeat), "--json", "--no-write", "--no-progress"]))
    rows = []
    for w in bench["workloads"]:
        tree = w["workload"]
        by = {(x["engine"], x["threads"]): x for x in w["rows"]}
        r = {"nodes": by[("seq", 1)]["nodes"], "seq_secs": by[("seq", 1)]["wall_secs"],
             "p1_secs": by[("treelb", 1)]["wall_secs"], "par_secs": by[("treelb", 2)]["wall_secs"]}
        mpi = {}
        for np in (1, 2):
            best = None
            for _ in range(a.repeat):
                out = run(["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(np), a.treelb, "uts",
                           "--tree", tree, "--runtime", "mpi", "--json", "--no-progress"])
                rep = json.loads(out)
                assert rep["work_units"] == r["nodes"], (tree, np, rep["work_units"], r["nodes"])
                best = rep["wall_secs"] if best is None else min(best, rep["wall_secs"])
            mpi[np] = best
        seq = r["seq_secs"]
        rows.append({
            "tree": tree, "nodes": r["nodes"], "seq_secs": seq,
            "threads_p1_secs": r["p1_secs"], "threads_p2_secs": r["par_secs"],
            "mpi_np1_secs": mpi[1], "mpi_np2_secs": mpi[2],
        })
        print(f"{tree}: seq {seq:.3f}s threads {r['p1_secs']:.3f}/{r['par_secs']:.3f}s "
              f"mpi {mpi[1]:.3f}/{mpi[2]:.3f}s", file=sys.stderr)
    mops = lambda n, t: n / t / 1e6
    lines = ["| tree | nodes | seq nodes/s | threads P=1 | threads P=2 | eff. vs seq | MPI np=1 | MPI np=2 "
             "| eff. vs seq | eff. vs np=1 | MPI np=2 ÷ threads P=2 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n = r["nodes"]
        lines.append(
            f"| {r['tree']} | {n:,} | {mops(n, r['seq_secs']):.1f} M | {mops(n, r['threads_p1_secs']):.1f} M "
            f"| {mops(n, r['threads_p2_secs']):.1f} M | {r['seq_secs'] / (2 * r['threads_p2_secs']):.2f} "
            f"| {mops(n, r['mpi_np1_secs']):.1f} M | {mops(n, r['mpi_np2_secs']):.1f} M "
            f"| {r['seq_secs'] / (2 * r['mpi_np2_secs']):.2f} | {r['mpi_np1_secs'] / (2 * r['mpi_np2_secs']):.2f} "
            f"| {r['threads_p2_secs'] / r['mpi_np2_secs']:.2f} |")
    table = "\n".join(lines)
    print(table)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        meta = {"command": " ".join(sys.argv), "machine": bench["machine"]["cpu_model"],
                "cores": bench["machine"]["cores"],
                "python": platform.python_version(), "repeat": a.repeat, "rows": rows}
        with open(os.path.join(a.out, "results.json"), "w") as f:
            json.dump(meta, f, indent=1)
        with open(os.path.join(a.out, "results.md"), "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
