#!/usr/bin/env python3
"""Computes the side-by-side verdict from the table that
`../2026-11-27-clique-side-by-side/run.sh` prints.

    python3 verdict.py results.md

Against CliSAT's better ordering on every instance: treelb at P = 1 within
1x of its time, and at P = 2 within 0.55x (the goals); against Glasgow and
cliquer: which is faster at P = 1. A run that was stopped ("TO") counts as
slower than any finished run; two stopped runs decide nothing. The limits
are read from the table's first line.
"""

import math
import re
import sys

P1_GOAL = 1.0
P2_GOAL = 0.55
# Below this many seconds, a time is mostly the process's start.
START = 0.15


def seconds(cell):
    """The wall time at the start of a cell, or inf for a stopped run."""
    cell = cell.strip()
    if cell.startswith("TO") or cell in ("", "—"):
        return math.inf
    return float(cell.split()[0])


def inner(cell):
    """What a cell holds in brackets (nodes or steps), or '?'."""
    m = re.search(r"\(([^;)]*)", cell)
    return m.group(1).strip() if m else "?"


def fmt(x):
    return "TO" if math.isinf(x) else f"{x:.2f}"


def ratio(a, b):
    if math.isinf(a) and math.isinf(b):
        return None
    if math.isinf(b):
        return 0.0
    if math.isinf(a):
        return math.inf
    return a / b if b > 0 else math.inf


def shown(r):
    """A ratio to CliSAT's time as the table prints it."""
    if r is None:
        return "—"
    if r == 0:
        return "ahead (CliSAT TO)"
    if math.isinf(r):
        return "behind (treelb TO)"
    return f"{r:.2f}"


def main(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    head = lines[0]
    limit = re.search(r"LIMIT=(\d+)s", head).group(1)
    peer = re.search(r"PEER_LIMIT=(\d+)s", head)
    peer = peer.group(1) if peer else limit
    rows = []
    for line in lines:
        if not line.startswith("| ") or line.startswith("| instance"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(cells)

    print(f"Limits: {limit} s for treelb and CliSAT, {peer} s for Glasgow and cliquer.")
    print()
    print("| instance | treelb P=1 s | P=2 s | CliSAT best s | P=1 / CliSAT | P=2 / CliSAT | nodes / steps |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    met1 = met2 = decided = 0
    misses = []
    undecided = []
    small = []
    for name, _omega, t1c, t2c, o1c, o2c, *_ in rows:
        t1, t2 = seconds(t1c), seconds(t2c)
        o1, o2 = seconds(o1c), seconds(o2c)
        best, bestc = (o1, o1c) if o1 <= o2 else (o2, o2c)
        r1, r2 = ratio(t1, best), ratio(t2, best)
        if r1 is None:
            undecided.append(name)
            print(f"| {name} | TO | {fmt(t2)} | TO | — | — | — |")
            continue
        decided += 1
        nodes, steps = inner(t1c), inner(bestc)
        try:
            ns = f"{int(nodes) / int(steps):.0f}×" if int(steps) > 1 else f"— ({steps} steps)"
        except ValueError:
            ns = "—"
        ok1 = r1 <= P1_GOAL
        ok2 = r2 is not None and r2 <= P2_GOAL
        met1 += ok1
        met2 += ok2
        if not ok1:
            misses.append(name)
        if max(t1, best) < START:
            small.append(name + ("" if ok1 else " (a miss)"))
        print(f"| {name} | {fmt(t1)} | {fmt(t2)} | {fmt(best)} | {shown(r1)} | {shown(r2)} | {ns} |")
    print()
    print(f"- treelb P = 1 ≤ {P1_GOAL}× CliSAT's better ordering: {met1} of {decided} decided instances.")
    print(f"- Both under {START} s (mostly the process's start): {', '.join(small) or 'none'}.")
    print(f"- treelb P = 2 ≤ {P2_GOAL}× CliSAT's better ordering: {met2} of {decided}.")
    print(f"- P = 1 misses: {', '.join(misses) or 'none'}.")
    print(f"- Undecided (both stopped at {limit} s): {', '.join(undecided) or 'none'}.")

    for col, label in ((6, "Glasgow"), (7, "cliquer")):
        faster = slower = undec = 0
        slow = []
        for cells in rows:
            name, t1 = cells[0], seconds(cells[2])
            if len(cells) <= col or cells[col] == "—":
                continue
            p = seconds(cells[col])
            if math.isinf(p) and t1 > float(peer):
                undec += 1
            elif t1 <= p:
                faster += 1
            else:
                slower += 1
                slow.append(f"{name} ({fmt(t1)} against {fmt(p)} s)")
        print(f"- {label}: treelb P = 1 as fast or faster on {faster}, slower on {slower}"
              f"{': ' + ', '.join(slow) if slow else ''}; undecided on {undec}"
              f" ({label} stopped at {peer} s, treelb longer).")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results.md")
