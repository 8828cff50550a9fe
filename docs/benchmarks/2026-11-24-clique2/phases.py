#!/usr/bin/env python3
"""Where the time of `treelb clique` goes, phase by phase, at P = 1 and P = 2.

usage: python3 docs/benchmarks/2026-11-24-clique2/phases.py [--rounds N] [--bin PATH]
           [--instances DIR] [--only NAME,...] [--out FILE]

Runs `treelb clique FILE --threads P --json --no-progress` for P = 1 and 2,
alternated, N rounds (default 7) on each instance, and prints a Markdown
table: the whole process's wall time (fastest of the rounds), the phases of
the run's JSON report (`answer.phases`: parse, degeneracy order, bitset
graph, greedy clique — the set-up before the PEs start — and the search, each
the fastest of the rounds), the nodes, and the speedup of the whole process.
Builds the release binary unless --bin names one. With --out the table is
also written to FILE. On a loaded machine only the ratios within one run
mean anything.
"""
import argparse, json, os, subprocess, sys, time

from run import EASY, INSTANCES, ROOT, build_treelb, names
PHASES = ["parse", "order", "matrix", "greedy", "search"]


def run(binary, path, p):
    cmd = [binary, "clique", path, "--threads", str(p), "--json", "--no-progress"]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"phases.py: `{' '.join(cmd)}` failed with exit code {out.returncode}: "
                 f"{out.stderr.decode()[-400:]}")
    d = json.loads(out.stdout)
    a = d["answer"]
    r = {"wall": wall, "nodes": a["branched"], "omega": a["omega"]}
    r.update({k: a["phases"][k + "_secs"] for k in PHASES})
    return r


def main():
    ap = argparse.ArgumentParser(description="Where the time of `treelb clique` goes, phase by phase.")
    ap.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    ap.add_argument("--bin", help="a treelb binary (default: build one)")
    ap.add_argument("--instances", default=INSTANCES, help="the folder of the .clq files")
    ap.add_argument("--only", type=names, default=EASY, help="NAME,... (default: the easy tier)")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    rounds, binary, instances, only, out = a.rounds, a.bin, a.instances, a.only, a.out
    if binary is None:
        binary = build_treelb()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()[0]
    rows = []
    for name in only:
        path = os.path.join(instances, name + ".clq")
        res = {1: [], 2: []}
        for r in range(rounds):
            for p in ((1, 2) if r % 2 == 0 else (2, 1)):
                res[p].append(run(binary, path, p))
        best = {p: {k: min(x[k] for x in res[p]) for k in ["wall"] + PHASES} for p in (1, 2)}
        nodes = {p: sorted({x["nodes"] for x in res[p]}) for p in (1, 2)}
        for p in (1, 2):
            b = best[p]
            ms = lambda k: f"{1e3 * b[k]:.1f}"
            span = nodes[p][0] if len(nodes[p]) == 1 else f"{nodes[p][0]}–{nodes[p][-1]}"
            speedup = f"{best[1]['wall'] / best[2]['wall']:.2f}" if p == 2 else ""
            rows.append(f"| {name} | {p} | {ms('wall')} | {ms('parse')} | {ms('order')} | {ms('matrix')} | "
                        f"{ms('greedy')} | {ms('search')} | {span} | {speedup} |")
    table = [f"Commit {commit}, {rounds} rounds, P = 1 and 2 alternated, fastest shown (each column on its "
             f"own); load average before {load:.1f}, after {os.getloadavg()[0]:.1f}.", "",
             "| instance | P | process ms | parse | order | graph | greedy | search | nodes | speedup |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"] + rows
    print("\n".join(table))
    if out:
        with open(out, "w") as f:
            f.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
