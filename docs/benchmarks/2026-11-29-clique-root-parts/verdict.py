#!/usr/bin/env python3
"""The verdict of a table printed by run.sh: per instance, the root split by
parts against the split by colour classes (P = 1, where both ran), and
treelb at P = 1 and P = 2 against CliSAT's first listed ordering; then the
counts of the issue's goals (P = 1 within 1x, P = 2 within 0.55x).

    python3 verdict.py results.md
"""
import re
import sys


def seconds(cell):
    """The wall seconds of a cell ("1.23 (456)", "TO", "—"), None if none."""
    m = re.match(r"\s*([0-9.]+)", cell)
    return float(m.group(1)) if m else None


def main(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not re.match(r"[A-Za-z]", cells[0]) or cells[0] == "instance":
            continue
        rows.append(cells)
    p1_met = p2_met = decided = 0
    for name, omega, parts, classes, p2, clisat, *_ in rows:
        t1, t0, t2, tc = seconds(parts), seconds(classes), seconds(p2), seconds(clisat)
        notes = []
        if t1 is not None and t0 is not None and t0 > 0:
            notes.append(f"parts/classes {t1 / t0:.2f}x")
        if tc is not None and tc > 0:
            decided += 1
            if t1 is not None:
                notes.append(f"P=1/CliSAT {t1 / tc:.2f}x")
                p1_met += t1 <= tc
            if t2 is not None:
                notes.append(f"P=2/CliSAT {t2 / tc:.2f}x")
                p2_met += t2 <= 0.55 * tc
        print(f"{name}: " + ("; ".join(notes) if notes else "no ratio (a run did not finish)"))
    print(f"P=1 within 1x of CliSAT: {p1_met} of {decided}; P=2 within 0.55x: {p2_met} of {decided}")


if __name__ == "__main__":
    main(sys.argv[1])
