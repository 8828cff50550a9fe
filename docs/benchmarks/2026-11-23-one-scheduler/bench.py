#!/usr/bin/env python3
"""All 13 strategies on the threads runtime and on MPI, side by side in one run,
and random polling against the commit before the one-scheduler refactor.

Usage: bench.py NEW [--base BASE] [--repeat N] [--trees T1L,T3L] [--out DIR]

NEW (and BASE, the binary of the commit to compare random polling with) are
treelb binaries built with `--features mpi`. In one run:

1. for every tree, `treelb compare TREE --strategies all -p 2` (threads, P = 2)
   and `mpirun -np 2 treelb compare TREE --runtime mpi` (MPI, np = 2): every
   strategy N times, the median reported, efficiency against the sequential
   baseline measured by the same command (fastest of N), messages counted by
   the runs;
2. random polling on every tree, NEW and BASE interleaved N times, on both
   runtimes (`treelb uts --tree TREE --threads 2`, `mpirun -np 2 treelb uts
   --tree TREE --runtime mpi`), with the sequential time of step 1: the
   efficiency of each and their ratio.

Wall times are those the runs measure themselves (from the start of the PEs
to termination). The verdicts of results.md are computed from the numbers:
the target is efficiency >= 0.97 for random polling on T1L on both runtimes,
and no regression beyond the noise (the ratio new/base of the median
efficiencies >= 0.97).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root"]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("--base")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trees", default="T1L,T3L")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    trees = a.trees.split(",")
    r = str(a.repeat)
    data = {"machine": cpu_model(), "cores": os.cpu_count(), "repeat": a.repeat, "compare": {}, "rp": {}}
    for tree in trees:
        print(f"compare {tree} (threads)", file=sys.stderr)
        threads = json.loads(run([a.new, "compare", tree, "--strategies", "all", "-p", "2", "--repeat", r, "--json"]))
        print(f"compare {tree} (mpi)", file=sys.stderr)
        mpi = json.loads(run(MPIRUN + ["-np", "2", a.new, "compare", tree, "--runtime", "mpi", "--repeat", r,
                                       "--json"]))
        data["compare"][tree] = {"threads": threads, "mpi": mpi}
    if a.base:
        for tree in trees:
            seq = min(data["compare"][tree]["threads"]["seq_secs"], data["compare"][tree]["mpi"]["seq_secs"])
            walls = {(who, rt): [] for who in ("base", "new") for rt in ("threads", "mpi")}
            for i in range(a.repeat):
                print(f"random polling {tree} round {i + 1}", file=sys.stderr)
                for who, binary in (("base", a.base), ("new", a.new)):
                    t = json.loads(run([binary, "uts", "--tree", tree, "--threads", "2", "--json", "--no-progress"]))
                    walls[(who, "threads")].append(t["wall_secs"])
                    m = json.loads(run(MPIRUN + ["-np", "2", binary, "uts", "--tree", tree, "--runtime", "mpi",
                                                 "--json", "--no-progress"]))
                    walls[(who, "mpi")].append(m["wall_secs"])
            data["rp"][tree] = {
                "seq_secs": seq,
                "walls": {f"{who}/{rt}": w for (who, rt), w in walls.items()},
            }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(markdown(data, trees))
    print(markdown(data, trees))


def markdown(data, trees):
    out = [f"Machine: {data['machine']}, {data['cores']} cores; median of {data['repeat']} runs per strategy; "
           "efficiency = T_seq / (P · T_P), P = 2 (2 threads; 2 MPI ranks).\n"]
    out.append("| strategy | " + " | ".join(
        f"{t} threads | {t} MPI | {t} messages (threads / MPI)" for t in trees) + " |")
    out.append("|---|" + "---|---|---|" * len(trees))
    first = data["compare"][trees[0]]["threads"]["rows"]
    for i, row in enumerate(first):
        cells = [row["strategy"]]
        for t in trees:
            th = data["compare"][t]["threads"]["rows"][i]
            mp = data["compare"][t]["mpi"]["rows"][i]
            assert th["strategy"] == mp["strategy"] == row["strategy"]
            cells += [f"{th['efficiency']:.3f}", f"{mp['efficiency']:.3f}", f"{th['messages']} / {mp['messages']}"]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for t in trees:
        out.append(f"Sequential {t}: {data['compare'][t]['threads']['seq_secs']:.3f} s (threads run), "
                   f"{data['compare'][t]['mpi']['seq_secs']:.3f} s (rank 0 of the MPI run).")
    if data["rp"]:
        out.append("\nRandom polling, this commit (new) against the base commit, interleaved; efficiency of the "
                   "median wall time against the sequential time above (the faster of the two measurements):\n")
        out.append("| tree | runtime | base | new | new / base | target | verdict |")
        out.append("|---|---|---|---|---|---|---|")
        for t in trees:
            rp = data["rp"][t]
            for rt in ("threads", "mpi"):
                eff = {who: rp["seq_secs"] / (2 * statistics.median(rp["walls"][f"{who}/{rt}"]))
                       for who in ("base", "new")}
                ratio = eff["new"] / eff["base"]
                target = ">= 0.97 and ratio >= 0.97" if t == "T1L" else "ratio >= 0.97"
                ok = ratio >= 0.97 and (t != "T1L" or eff["new"] >= 0.97)
                out.append(f"| {t} | {rt} | {eff['base']:.3f} | {eff['new']:.3f} | {ratio:.3f} | {target} | "
                           f"{'met' if ok else 'NOT met'} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
