#!/usr/bin/env python3
"""Random polling, this commit against the one before the refactor (70408f3):
the verdicts, computed from the logs of the two measurements.

Usage: rp.py THREADS_LOG MPI_LOG > rp.md

THREADS_LOG: rounds of `treelb-bench --workloads T1L,T3L --engines
seq,treelb --repeat 3` for each commit, alternating (`== base round i`,
`== new round i`, then the markdown rows of engines.md: efficiency at P = 2
is the fifth column, fastest of 3 each).

MPI_LOG: rounds of `docs/benchmarks/2026-11-23-epyc-2core-mpi/bench.py BIN
--repeat 3 --trees T1L,T3L` for each commit, alternating (the rows of its
results.md: the threads runtime's efficiency at P = 2 in the sixth column,
MPI np = 2's in the ninth, both against the sequential baseline, fastest of
3 each).

Targets: efficiency >= 0.97 on T1L (the median of the rounds), and the
ratio new / base of the medians >= 0.97 (no regression beyond the noise).
"""
import statistics
import sys


def parse(path, columns):
    runs = {}  # (who, tree, what) -> [values]
    who = None
    for line in open(path):
        if line.startswith("== "):
            who = line.split()[1]
        elif line.startswith("| T") and who:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            tree = cells[0]
            for what, col in columns.items():
                runs.setdefault((who, tree, what), []).append(float(cells[col]))
    return runs


def main():
    threads = parse(sys.argv[1], {"threads (treelb-bench)": 4})
    mpi = parse(sys.argv[2], {"threads (MPI script)": 5, "MPI np = 2": 8})
    runs = {**threads, **mpi}
    print("| tree | runtime | base: rounds | base median | new: rounds | new median | new / base | target | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (who, tree, what) in sorted(runs):
        if who != "new":
            continue
        base, new = runs[("base", tree, what)], runs[("new", tree, what)]
        mb, mn = statistics.median(base), statistics.median(new)
        ratio = mn / mb
        t1l = tree == "T1L"
        ok = ratio >= 0.97 and (not t1l or mn >= 0.97)
        target = "new ≥ 0.97, ratio ≥ 0.97" if t1l else "ratio ≥ 0.97"
        fmt = lambda v: ", ".join(f"{x:.3f}" for x in v)
        print(f"| {tree} | {what} | {fmt(base)} | {mb:.3f} | {fmt(new)} | {mn:.3f} | {ratio:.3f} | {target} | "
              f"{'met' if ok else 'not met'} |")


if __name__ == "__main__":
    main()
