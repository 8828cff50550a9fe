#!/usr/bin/env python3
"""Re-runs the fine-grain benchmark in one command and writes results.md.

    python3 docs/benchmarks/2026-11-24-fine-grain/run.py [--repeat 3] [--quick]
        [--uts-seq PATH] [--nqueens-peer NAME=PATH ...] [--peer-nodes NAME:N:NODES ...]
        [--workloads W,...] [--out DIR]

Builds `crates/apps/examples/fine_grain.rs` (release), then runs every
measurement in its own process, the engines of one workload alternating
within each round, and keeps the fastest of `--repeat` rounds, by wall time
and by CPU time (user + system of the child, from getrusage). Peers are
optional: `--uts-seq` the reference's `uts-seq`, `--nqueens-peer` any
program run as `PATH N` that prints the number of solutions last; where a
peer visits other nodes than treelb's tree (symmetry), `--peer-nodes` gives
its count (see README.md for how the peers were built and counted).

The verdicts in results.md are computed from the numbers of this run.
"""

import argparse
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from others import LOADED_SHARE, OthersMeter  # noqa: E402  (docs/benchmarks/others.py)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

UTS_FLAGS = {
    "T1L": "-t 1 -a 3 -d 13 -b 4 -r 29",
    "T3L": "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",
}
KNAPSACK = "knapsack:strongly-correlated:90:1000:4"
# The scalar counting kernel beside the fastest one the processor has
# (`kernel`): the BMI1 + POPCNT compilation on x86-64, else the portable one.
SCALAR = "kernel-bmi" if platform.machine().lower() in ("x86_64", "amd64") else "kernel-portable"
# Workload -> engines (alternated within a round).
FULL = {
    "nqueens:15": ["kernel", SCALAR, "seq", "treelb-1", "treelb-2", "seq-node", "treelb-node-1"],
    "nqueens:16": ["kernel", SCALAR, "seq", "treelb-1", "treelb-2"],
    "nqueens:15:mirror": ["kernel", "seq", "treelb-1", "treelb-2"],
    "nqueens:16:mirror": ["kernel", "seq", "treelb-1", "treelb-2"],
    "T1L": ["seq", "treelb-1", "treelb-2"],
    "T3L": ["seq", "treelb-1", "treelb-2"],
    "clique:brock200_1": ["seq", "treelb-1", "treelb-2"],
    KNAPSACK: ["seq", "treelb-1", "treelb-2"],
}
QUICK = {
    "nqueens:12": ["kernel", SCALAR, "seq", "treelb-1", "treelb-2", "seq-node", "treelb-node-1"],
    "nqueens:12:mirror": ["kernel", "seq"],
    "T1": ["seq", "treelb-1", "treelb-2"],
}
P1_WORKLOADS = ["nqueens:15", "nqueens:16", "nqueens:16:mirror", "T1L", "T3L", "clique:brock200_1", KNAPSACK]
P2_WORKLOADS = ["nqueens:16", "nqueens:16:mirror", "clique:brock200_1", KNAPSACK]


def timed(cmd):
    """Runs cmd; returns (stdout, wall seconds, child CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        sys.exit(f"run.py: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    return out.stdout, wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small workloads: a smoke test")
    ap.add_argument("--uts-seq", help="the UTS reference's uts-seq binary")
    ap.add_argument("--nqueens-peer", action="append", default=[],
                    help="NAME=PATH of a public N-Queens solver, run as `PATH N`")
    ap.add_argument("--peer-nodes", action="append", default=[],
                    help="NAME:N:NODES, the nodes a peer visits at N where it counts other nodes than "
                         "treelb (default: treelb's count)")
    ap.add_argument("--workloads", help="only these workloads of the plan, separated by commas")
    ap.add_argument("--out", default=str(HERE))
    args = ap.parse_args()

    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "treelb-apps", "--example", "fine_grain"],
                   cwd=ROOT, check=True)
    # A copy, so that builds during the run do not change the program measured.
    exe = os.path.join(tempfile.mkdtemp(prefix="fine-grain-"), "fine_grain")
    shutil.copy2(target / "release" / "examples" / "fine_grain", exe)
    plan = QUICK if args.quick else FULL
    if args.workloads:
        wanted = args.workloads.split(",")
        unknown = [w for w in wanted if w not in plan]
        if unknown:
            sys.exit(f"run.py: --workloads: {', '.join(unknown)} not in the plan ({', '.join(plan)})")
        plan = {w: e for w, e in plan.items() if w in wanted}
    peers = []
    for spec in args.nqueens_peer:
        name, _, path = spec.partition("=")
        peers.append((name, path))
    peer_nodes = {}
    for spec in args.peer_nodes:
        name, n, nodes = spec.split(":")
        peer_nodes[(name, n)] = int(nodes)

    load_before = os.getloadavg()
    meter = OthersMeter()
    # rows[(workload, engine)] = list of (wall, cpu, nodes, answer)
    rows = {}
    for workload, engines in plan.items():
        runs = list(engines)
        if workload in UTS_FLAGS and args.uts_seq:
            runs.append("uts-seq")
        if workload.startswith("nqueens:") and not workload.endswith(":mirror"):
            runs += [f"peer:{name}" for name, _ in peers]
        for r in range(args.repeat):
            for engine in runs:
                if engine == "uts-seq":
                    out, wall, cpu = timed([args.uts_seq] + UTS_FLAGS[workload].split())
                    nodes = int(re.search(r"Tree size = (\d+)", out).group(1))
                    answer = "reference"
                elif engine.startswith("peer:"):
                    name, path = next(p for p in peers if p[0] == engine[5:])
                    n = workload.split(":")[1]
                    out, wall, cpu = timed([path, n])
                    nodes = peer_nodes.get((name, n))
                    answer = re.findall(r"\d+", out)[-1]
                else:
                    out, _, cpu = timed([exe, engine, workload])
                    _, _, wall, nodes, answer = out.split()
                    wall, nodes = float(wall), int(nodes)
                rows.setdefault((workload, engine), []).append((wall, cpu, nodes, answer))
                print(f"{workload:40} {engine:16} round {r + 1}: wall {wall:8.3f} s  cpu {cpu:8.3f} s",
                      flush=True)
    load_after = os.getloadavg()
    # The share of the cores other processes took while the runs ran.
    others = meter.share()
    quiet = others < LOADED_SHARE if others is not None else load_before[0] <= 1.5 and load_after[0] <= 1.5

    def best(w, e, i):
        runs = rows.get((w, e))
        return min(x[i] for x in runs) if runs else None

    lines = []
    say = lines.append
    say("# Fine grain: results of `run.py`\n")
    say(f"Command: `python3 docs/benchmarks/2026-11-24-fine-grain/run.py {' '.join(sys.argv[1:])}`; "
        f"{args.repeat} rounds, engines alternating within each round, fastest of the rounds. "
        f"Load average (1, 5, 15 min) before: {load_before[0]:.1f} {load_before[1]:.1f} "
        f"{load_before[2]:.1f}, after: {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} "
        f"on {os.cpu_count()} cores" +
        ("" if others is None else f"; other processes took {100 * others:.1f} % of the cores during the runs") +
        (" — **the machine was loaded** by other work: wall times, and above all P = 2, are "
         "inflated and noisy; CPU times and instruction counts are the reliable figures."
         if not quiet else " (otherwise idle).") + "\n")
    say("| workload | engine | wall s | CPU s | nodes | ns/node (CPU) | answer |")
    say("|---|---|---|---|---|---|---|")
    for (w, e), runs in rows.items():
        wall, cpu = best(w, e, 0), best(w, e, 1)
        nodes = runs[0][2]
        per = f"{cpu * 1e9 / nodes:.2f}" if nodes else "–"
        say(f"| {w} | {e} | {wall:.3f} | {cpu:.3f} | {nodes if nodes else '–'} | {per} | {runs[0][3]} |")
    answers = {}
    for (w, e), runs in rows.items():
        if not e.startswith("peer") and e != "uts-seq":
            answers.setdefault(w, set()).update(x[3] for x in runs)
    for w, a in answers.items():
        if len(a) != 1:
            sys.exit(f"run.py: {w}: the engines disagree: {sorted(a)}")

    def verdict(ok):
        return "**met**" if ok else "**not met**"

    say("\n## Verdicts\n")
    say("P = 1 cost = T(treelb-1) / T(seq) − 1, fastest of the rounds (wall and CPU); "
        "for N-Queens also against the kernel alone (the best sequential program here). Goal ≤ 1 %.\n")
    say("| workload | P = 1 cost, wall | P = 1 cost, CPU | vs kernel, wall | verdict (wall) |")
    say("|---|---|---|---|---|")
    for w in (P1_WORKLOADS if not args.quick else list(plan)):
        if (w, "seq") not in rows or (w, "treelb-1") not in rows:
            continue
        cw = best(w, "treelb-1", 0) / best(w, "seq", 0) - 1
        cc = best(w, "treelb-1", 1) / best(w, "seq", 1) - 1
        kw = (f"{(best(w, 'treelb-1', 0) / best(w, 'kernel', 0) - 1) * 100:+.1f} %"
              if (w, "kernel") in rows else "–")
        say(f"| {w} | {cw * 100:+.1f} % | {cc * 100:+.1f} % | {kw} | {verdict(cw <= 0.01)} |")
    say("\nEfficiency at P = 2 = T(seq) / (2 · T(treelb-2)), wall time. Goal ≥ 0.97. "
        "Beside it, CPU(seq) / CPU(treelb-2): the work and overhead of both PEs, idle spinning "
        "included, which a loaded machine does not distort as much (it cannot see a PE that "
        "waits without spinning).\n")
    say("| workload | efficiency P = 2 (wall) | CPU(seq) / CPU(treelb-2) | verdict (wall) |")
    say("|---|---|---|---|")
    for w in (P2_WORKLOADS if not args.quick else list(plan)):
        if (w, "seq") not in rows or (w, "treelb-2") not in rows:
            continue
        eff = best(w, "seq", 0) / (2 * best(w, "treelb-2", 0))
        cpu_eff = best(w, "seq", 1) / best(w, "treelb-2", 1)
        say(f"| {w} | {eff:.3f} | {cpu_eff:.3f} | {verdict(eff >= 0.97)} |")
    say("\nSequential cost per node: CPU time of `seq` (N-Queens also the kernel alone, the "
        f"fastest the processor has, and `{SCALAR}`, the scalar one) over "
        "the nodes of the whole tree. With `:mirror` N-Queens searches half of the mirror "
        "symmetry and counts it twice, so this is time per node of the whole tree, not per "
        "node visited (about half as many). Peers: time over the whole tree's nodes, and in "
        "parentheses over the nodes the peer visits where `--peer-nodes` gives them. "
        "Goals: UTS ≤ 50 ns, N-Queens ≤ 4 ns.\n")
    say("| workload | engine | ns/node | peer | peer ns/node | verdict |")
    say("|---|---|---|---|---|---|")
    for w in plan:
        goal = 50 if w in UTS_FLAGS or w in ("T1", "T3") else 4 if w.startswith("nqueens") else None
        if goal is None:
            continue
        ours = [e for e in ("seq", "kernel", SCALAR) if (w, e) in rows]
        base = w.removesuffix(":mirror")
        peer_names = [e for (ww, e) in rows if ww == base and (e == "uts-seq" or e.startswith("peer:"))]
        for e in ours:
            tree_nodes = rows[(w, e)][0][2]
            ns = best(w, e, 1) * 1e9 / tree_nodes
            peer_cells = []
            for p in peer_names:
                visited = rows[(base, p)][0][2]
                cell = f"{best(base, p, 1) * 1e9 / tree_nodes:.2f}"
                if visited and visited != tree_nodes:
                    cell += f" ({best(base, p, 1) * 1e9 / visited:.2f})"
                peer_cells.append((p, cell))
            pc = "; ".join(p for p, _ in peer_cells) or "–"
            pn = "; ".join(c for _, c in peer_cells) or "–"
            say(f"| {w} | {e} | {ns:.2f} | {pc} | {pn} | {verdict(ns <= goal)} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text("\n".join(lines) + "\n")
    with open(out / "raw.csv", "w") as f:
        f.write("workload,engine,round,wall_s,cpu_s,nodes,answer\n")
        for (w, e), runs in rows.items():
            for i, (wall, cpu, nodes, answer) in enumerate(runs):
                f.write(f"{w},{e},{i + 1},{wall:.6f},{cpu:.6f},{nodes or ''},{answer}\n")
    print("\n".join(lines))
    print(f"run.py: wrote {out / 'results.md'} and raw.csv", file=sys.stderr)


if __name__ == "__main__":
    main()
