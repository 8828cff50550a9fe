#!/usr/bin/env python3
"""Speedup at P = 2 of one or more `treelb` binaries, side by side.

usage: python3 docs/benchmarks/2026-11-24-clique2/speedup.py BIN [BIN ...] [--rounds N]
           [--instances DIR] [--only NAME,...]

Runs `BIN clique FILE --threads P --no-progress` for every binary and
P = 1, 2, all alternated (the order reversed every other round, so that a
change in the machine's load hits every run alike), N rounds (default 7),
and prints the whole process's wall time, the fastest of the rounds, and the
speedup P = 1 / P = 2 of each binary. Comparing two builds (say, before and
after a change) in one run is the way to measure on a loaded machine: only
the ratios within one run mean anything there.
"""
import argparse, os, subprocess, sys, time

from run import EASY, INSTANCES, names


def main():
    ap = argparse.ArgumentParser(description="Speedup at P = 2 of one or more treelb binaries, side by side.")
    ap.add_argument("bins", nargs="+", metavar="BIN", help="treelb binaries")
    ap.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    ap.add_argument("--instances", default=INSTANCES, help="the folder of the .clq files")
    ap.add_argument("--only", type=names, default=EASY, help="NAME,... (default: the easy tier)")
    a = ap.parse_args()
    rounds, bins, instances = a.rounds, a.bins, a.instances
    load = os.getloadavg()[0]
    print(f"{rounds} rounds, fastest shown; load average before {load:.1f}")
    print()
    print("| instance | " + " | ".join(f"{b} P=1 ms | P=2 ms | speedup" for b in bins) + " |")
    print("|---|" + "--:|--:|--:|" * len(bins))
    for name in a.only:
        path = os.path.join(instances, name + ".clq")
        runs = [(b, p) for b in bins for p in (1, 2)]
        best = {r: float("inf") for r in runs}
        for k in range(rounds):
            for b, p in (runs if k % 2 == 0 else runs[::-1]):
                t = time.perf_counter()
                out = subprocess.run([b, "clique", path, "--threads", str(p), "--no-progress"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                wall = time.perf_counter() - t
                if out.returncode != 0:
                    sys.exit(f"speedup.py: {b} on {name} failed: {out.stderr.decode()[-300:]}")
                best[(b, p)] = min(best[(b, p)], wall)
        cells = []
        for b in bins:
            one, two = best[(b, 1)], best[(b, 2)]
            cells.append(f"{1e3 * one:.1f} | {1e3 * two:.1f} | {one / two:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print()
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
