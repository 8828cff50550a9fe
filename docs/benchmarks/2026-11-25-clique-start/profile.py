#!/usr/bin/env python3
"""Where the time of a short clique run goes at P = 1 and P = 2.

usage: python3 docs/benchmarks/2026-11-25-clique-start/profile.py BIN
           [--runs N] [--instances DIR] [--only NAME,...]

Runs `BIN clique FILE --no-progress --json` N times (default 20) in each
of three modes, alternated: `--threads 1`, `--threads 2`, and `--threads
2 --pin`. Prints two tables:

1. The fastest process of each mode (wall time of the whole process, as a
   user sees it), the search's own time in it (`answer.phases.search_secs`),
   and the rest (process start, parsing, ordering, report). The rest is
   serial, so a speedup at P = 2 cannot exceed T1 / (rest + search / 2):
   the bound column. Beside it the speedup measured, and the speedup of the
   search alone (fastest search at P = 1 over fastest at P = 2).
2. The efficiency each run reports (busy time / (2 × wall time) of the
   search) as quartiles, unpinned and pinned, and how many runs fell below
   0.8: the spread that the operating system's placement of the two worker
   threads adds, which pinning removes.
"""
import argparse, json, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-11-24-clique2"))
from run import INSTANCES, names  # noqa: E402

SHORT = ["p_hat300-1", "C125.9", "p_hat700-1", "brock200_4", "MANN_a27"]
MODES = [("P=1", ["--threads", "1"]), ("P=2", ["--threads", "2"]), ("P=2 --pin", ["--threads", "2", "--pin"])]


def one(binary, path, extra):
    cmd = [binary, "clique", path, "--no-progress", "--json"] + extra
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"profile.py: {' '.join(cmd)} failed: {out.stderr.decode()[-300:]}")
    j = json.loads(out.stdout)
    return wall, j["answer"]["phases"]["search_secs"], j["efficiency_estimate"]


def quartiles(xs):
    xs = sorted(xs)
    return [xs[round(q * (len(xs) - 1))] for q in (0.0, 0.25, 0.5, 0.75, 1.0)]


def main():
    ap = argparse.ArgumentParser(description="Where the time of a short clique run goes at P = 1 and P = 2.")
    ap.add_argument("binary", help="the treelb binary")
    ap.add_argument("--runs", type=int, default=20, help="runs per mode (default 20)")
    ap.add_argument("--instances", default=INSTANCES, help="the folder of the .clq files")
    ap.add_argument("--only", type=names, default=SHORT, help="NAME,... (default: the short runs)")
    a = ap.parse_args()
    binary, runs, instances, only = a.binary, a.runs, a.instances, a.only
    print(f"{runs} runs per mode, alternated; load average before {os.getloadavg()[0]:.1f}")
    results = {}
    for name in only:
        path = os.path.join(instances, name + ".clq")
        seen = {m: [] for m, _ in MODES}
        for k in range(runs):
            for mode, extra in (MODES if k % 2 == 0 else MODES[::-1]):
                seen[mode].append(one(binary, path, extra))
        results[name] = seen
    print()
    print("| instance | P=1 process ms | its search ms | rest ms | bound on the speedup | P=2 process ms "
          "| speedup | search alone: speedup |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for name, seen in results.items():
        one_w, one_s, _ = min(seen["P=1"])
        two_w = min(w for w, _, _ in seen["P=2"])
        one_search = min(s for _, s, _ in seen["P=1"])
        two_search = min(s for _, s, _ in seen["P=2"])
        rest = one_w - one_s
        bound = one_w / (rest + one_s / 2)
        print(f"| {name} | {1e3 * one_w:.1f} | {1e3 * one_s:.1f} | {1e3 * rest:.1f} | {bound:.2f} "
              f"| {1e3 * two_w:.1f} | {one_w / two_w:.2f} | {one_search / two_search:.2f} |")
    print()
    print("| instance | mode | efficiency: min | 25 % | median | 75 % | max | runs below 0.8 |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")
    for name, seen in results.items():
        for mode in ("P=2", "P=2 --pin"):
            effs = [e for _, _, e in seen[mode]]
            q = " | ".join(f"{x:.3f}" for x in quartiles(effs))
            low = sum(1 for x in effs if x < 0.8)
            print(f"| {name} | {mode} | {q} | {low} of {runs} |")
    print()
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
