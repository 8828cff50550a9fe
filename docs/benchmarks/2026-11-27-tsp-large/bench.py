"""Runs `treelb tsp` on the TSPLIB files of 198 to 532 cities with published
optima and prints the Markdown table of the README. Called by run.sh."""

import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
INSTANCES = REPO.parent / "shared" / "instances" / "tsp"
# name, published optimum (../shared/instances/README.md).
FILES = [
    ("d198", 15780),
    ("kroA200", 29368),
    ("pr226", 80369),
    ("gil262", 2378),
    ("pr264", 49135),
    ("a280", 2579),
    ("pr299", 48191),
    ("lin318", 42029),
    ("rd400", 15281),
    ("pr439", 107217),
    ("att532", 27686),
]


def distance(path):
    """The number of cities and the distance function of a TSPLIB file
    (EUC_2D or ATT, the two kinds in FILES)."""
    coords, section, kind = {}, False, None
    for line in path.read_text().splitlines():
        t = line.replace(":", " ").split()
        if not t:
            continue
        if t[0] == "NODE_COORD_SECTION":
            section = True
        elif t[0] == "EOF":
            break
        elif section:
            coords[int(t[0])] = (float(t[1]), float(t[2]))
        elif t[0] == "EDGE_WEIGHT_TYPE":
            kind = t[1]
    assert kind in ("EUC_2D", "ATT"), f"{path}: {kind}"

    def d(a, b):
        (x1, y1), (x2, y2) = coords[a], coords[b]
        if kind == "EUC_2D":
            return int(math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2) + 0.5)
        r = math.sqrt(((x1 - x2) ** 2 + (y1 - y2) ** 2) / 10.0)
        t = int(r + 0.5)
        return t + 1 if t < r else t

    return len(coords), d


def run(binary, name, optimum, p, limit, out):
    file = INSTANCES / f"{name}.tsp"
    cmd = [binary, "tsp", str(file), "-p", str(p), "--json", "--no-progress",
           "--expect", str(optimum), "--time-limit", f"{limit}s"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    (out / f"{name}-p{p}.json").write_text(proc.stdout)
    report = json.loads(proc.stdout)
    a = report["answer"]
    n, d = distance(file)
    tour = a["tour"]
    assert sorted(tour) == list(range(1, n + 1)), f"{name}: not a permutation"
    length = sum(d(tour[k], tour[(k + 1) % n]) for k in range(n))
    assert length == a["length"], f"{name}: the tour measures {length}, not {a['length']}"
    return {
        "n": n, "found": length, "proven": a["proven_optimal"] and not report["interrupted"],
        "nodes": a["branched"] + a["pruned"], "wall": wall, "cpu": cpu, "bound": a["bound"],
        "initial": a.get("initial_tour"), "root_cuts": a.get("root_cuts"),
        "root_bound": a.get("root_bound"),
    }


def gap(optimum, bound):
    return f"{100 * (optimum - bound) / optimum:.3f} %"


def main():
    binary, names = sys.argv[1], sys.argv[2:]
    limit = int(os.environ.get("LIMIT", "1800"))
    p = int(os.environ.get("P", "2"))
    out = Path(os.environ.get("OUT", "/tmp/treelb-tsp-large"))
    out.mkdir(parents=True, exist_ok=True)
    files = [f for f in FILES if not names or f[0] in names]
    print(f"load average before: {os.getloadavg()[0]:.1f} (machine with {os.cpu_count()} cores); "
          f"P = {p}, limit {limit} s per file")
    print()
    print("| instance | n | optimum | initial tour | Held–Karp | root bound | root gap "
          "| proven | nodes | wall (s) | CPU (s) | nodes per CPU s | bound reached |")
    print("|---|--:|--:|--:|--:|--:|--:|:-:|--:|--:|--:|--:|--:|")
    for name, optimum in files:
        r = run(binary, name, optimum, p, limit, out)
        ok = r["found"] == optimum and r["proven"]
        c = r["root_cuts"] or {}
        hk = math.ceil(c["held_karp"] - 1e-6) if "held_karp" in c else None
        root = math.ceil(r["root_bound"] - 1e-6) if r["root_bound"] is not None else None
        reached = "—" if ok else f"{math.ceil(r['bound'] - 1e-6)} ({gap(optimum, math.ceil(r['bound'] - 1e-6))})"
        print(f"| {name} | {r['n']} | {optimum} | {r['initial']} | {hk if hk is not None else '—'} "
              f"| {root if root is not None else '—'} | {gap(optimum, root) if root is not None else '—'} "
              f"| {'yes' if ok else 'no'} | {r['nodes']} | {r['wall']:.1f} | {r['cpu']:.1f} "
              f"| {r['nodes'] / max(r['cpu'], 1e-9):.0f} | {reached} |", flush=True)
    print()
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
