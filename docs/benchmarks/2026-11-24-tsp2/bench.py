"""Runs `treelb tsp` on the TSPLIB instances with published optima at P = 1
and P = 2 and prints the Markdown tables of the README: the root bounds
(Held-Karp alone and with the root's cuts) and the runs. Called by run.sh."""

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
# name, published optimum, the goal's limit in seconds at P = 2 ("minutes":
# 10 for the 200-node tier). Concorde proves every one of the files up to
# 150 nodes at its root (one search node).
TIERS = [
    ("pr76", 108159, 30),
    ("eil76", 538, 30),
    ("rat99", 1211, 30),
    ("kroA100", 21282, 30),
    ("lin105", 14379, 30),
    ("ch130", 6110, 30),
    ("kroA150", 26524, 30),
    ("d198", 15780, 600),
    ("kroA200", 29368, 600),
    ("pr226", 80369, 600),
]


def euc2d(path):
    """The EUC_2D distance function of a TSPLIB file (all of TIERS are)."""
    coords, section = {}, False
    for line in path.read_text().splitlines():
        t = line.split()
        if not t:
            continue
        if t[0].startswith("NODE_COORD_SECTION"):
            section = True
        elif t[0] == "EOF":
            break
        elif section:
            coords[int(t[0])] = (float(t[1]), float(t[2]))
        elif t[0].rstrip(":") == "EDGE_WEIGHT_TYPE" or "EDGE_WEIGHT_TYPE" in line:
            assert "EUC_2D" in line, f"{path}: not EUC_2D"

    def d(a, b):
        (x1, y1), (x2, y2) = coords[a], coords[b]
        return int(math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2) + 0.5)

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
    n, d = euc2d(file)
    tour = a["tour"]
    assert sorted(tour) == list(range(1, n + 1)), f"{name}: not a permutation"
    length = sum(d(tour[k], tour[(k + 1) % n]) for k in range(n))
    assert length == a["length"], f"{name}: the tour measures {length}, not {a['length']}"
    return {
        "n": n, "found": length, "proven": a["proven_optimal"] and not report["interrupted"],
        "nodes": a["branched"] + a["pruned"], "wall": wall, "cpu": cpu, "bound": a["bound"],
        "exit": proc.returncode, "root_cuts": a.get("root_cuts"), "root_bound": a.get("root_bound"),
    }


def main():
    binary, names = sys.argv[1], sys.argv[2:]
    limit = int(os.environ.get("LIMIT", "1800"))
    out = Path(os.environ.get("OUT", "/tmp/treelb-tsp2-bench"))
    out.mkdir(parents=True, exist_ok=True)
    tiers = [t for t in TIERS if not names or t[0] in names]
    print(f"load average before: {os.getloadavg()[0]:.1f} (machine with {os.cpu_count()} cores)")
    print()
    print("| instance | n | optimum | found | proven | nodes P=1 | time P=1 (s) | CPU P=1 (s) "
          "| nodes P=2 | time P=2 (s) | CPU P=2 (s) | speedup | goal at P=2 | verdict |")
    print("|---|--:|--:|--:|:-:|--:|--:|--:|--:|--:|--:|--:|:-:|:-:|")
    only_p2 = os.environ.get("ONLY_P2") == "1"
    roots = []
    for name, optimum, goal in tiers:
        r1 = None if only_p2 else run(binary, name, optimum, 1, limit, out)
        r2 = run(binary, name, optimum, 2, limit, out)
        ok = r2["found"] == optimum and r2["proven"]
        ok = ok and (r1 is None or (r1["found"] == optimum and r1["proven"]))
        if ok:
            verdict = "met" if r2["wall"] <= goal else "proven, over the goal"
        else:
            verdict = f"not proven in {limit} s (bound {r2['bound']})"
        goal_text = f"≤ {goal} s" if goal < 60 else f"≤ {goal // 60} min"
        p1 = "| — | — | — " if r1 is None else f"| {r1['nodes']} | {r1['wall']:.2f} | {r1['cpu']:.2f} "
        speedup = "—" if r1 is None else f"{r1['wall'] / r2['wall']:.2f}"
        print(f"| {name} | {r2['n']} | {optimum} | {r2['found']} | {'yes' if ok else 'no'} "
              f"{p1}| {r2['nodes']} | {r2['wall']:.2f} | {r2['cpu']:.2f} "
              f"| {speedup} | {goal_text} | {verdict} |", flush=True)
        roots.append((name, optimum, r2))
    print()
    print("| instance | optimum | Held-Karp bound | gap | bound with cuts | gap | combs | subtour ineq. |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for name, optimum, r in roots:
        c = r["root_cuts"]
        if c is None:
            print(f"| {name} | {optimum} | — | — | {r['root_bound']} | — | 0 | 0 |")
            continue
        hk, cb = math.ceil(c["held_karp"] - 1e-6), math.ceil(c["bound"] - 1e-6)
        print(f"| {name} | {optimum} | {hk} | {100 * (optimum - hk) / optimum:.2f} % "
              f"| {cb} | {100 * (optimum - cb) / optimum:.2f} % | {c['combs']} | {c.get('subtours', 0)} |")
    print()
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
