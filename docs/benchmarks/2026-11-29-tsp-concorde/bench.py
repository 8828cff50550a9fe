"""Runs `treelb tsp` and Concorde on the TSPLIB files of 76 to 532 cities
with published optima and prints the Markdown table of the README. Called
by run.sh."""

import importlib.util
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The treelb side, the tour check, the instance folder and the files of 198
# to 532 cities with their optima are those of the 300-city benchmark.
_spec = importlib.util.spec_from_file_location("tsp_large", HERE.parent / "2026-11-27-tsp-large" / "bench.py")
tsp_large = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tsp_large)
INSTANCES = tsp_large.INSTANCES
# name, published optimum (../shared/instances/README.md): the files below
# 198 cities, then those of the 300-city benchmark.
FILES = [
    ("eil76", 538),
    ("pr76", 108159),
    ("rat99", 1211),
    ("kroA100", 21282),
    ("lin105", 14379),
    ("ch130", 6110),
    ("kroA150", 26524),
] + tsp_large.FILES


def timed(cmd, cwd, limit):
    """Runs `cmd` in `cwd` with a wall-clock limit: (stdout and stderr,
    wall seconds, CPU seconds, whether it ran past the limit)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=limit)
        out, over = proc.stdout + proc.stderr, False
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        over = True
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall, cpu, over


def last_bound(log):
    """The last lower bound Concorde printed (its root's, with -B)."""
    found = re.findall(r"(?:Final lower bound|Bound:)\s*(-?[0-9.]+)", log)
    return float(found[-1]) if found else None


def concorde(binary, name, optimum, limit, out):
    """Concorde as shipped (`-s 99`), then its root alone without local
    cuts and with fast cuts only."""
    file = INSTANCES / f"{name}.tsp"
    n, d = tsp_large.distance(file)
    r = {}
    with tempfile.TemporaryDirectory(prefix=f"concorde-{name}-") as work:
        log, wall, cpu, over = timed([binary, "-s", "99", str(file)], work, limit)
        (out / f"{name}-concorde.log").write_text(log)
        solved = re.search(r"Optimal Solution:\s*([0-9.]+)", log)
        nodes = re.search(r"Number of bbnodes:\s*(\d+)", log)
        root = re.search(r"Final lower bound\s*([0-9.]+)", log)
        r.update(wall=wall, cpu=cpu, proven=bool(solved) and not over,
                 nodes=int(nodes.group(1)) if nodes else None,
                 root=float(root.group(1)) if root else None)
        if r["proven"]:
            value = round(float(solved.group(1)))
            sol = sorted(Path(work).glob("*.sol"))
            assert sol, f"{name}: Concorde wrote no tour"
            t = [int(v) + 1 for v in sol[0].read_text().split()[1:]]
            assert sorted(t) == list(range(1, n + 1)), f"{name}: Concorde's tour is not a permutation"
            length = sum(d(t[k], t[(k + 1) % n]) for k in range(n))
            assert length == value == optimum, f"{name}: Concorde's tour measures {length}, it says {value}"
    for key, flags in (("no_local", ["-B", "-C", "0"]), ("fast", ["-B", "-V"])):
        with tempfile.TemporaryDirectory(prefix=f"concorde-{name}-") as work:
            log, _, _, over = timed([binary, "-s", "99", *flags, str(file)], work, limit)
            (out / f"{name}-concorde{''.join(flags)}.log").write_text(log)
            r[key] = None if over else last_bound(log)
    return r


def gap(optimum, bound):
    if bound is None:
        return "—"
    return f"{100 * (optimum - math.ceil(bound - 1e-6)) / optimum:.3f} %"


def main():
    treelb, binary, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    limit = int(os.environ.get("LIMIT", "300"))
    p = int(os.environ.get("P", "2"))
    out = Path(os.environ.get("OUT", "/tmp/treelb-tsp-concorde"))
    out.mkdir(parents=True, exist_ok=True)
    files = [f for f in FILES if not names or f[0] in names]
    unknown = set(names) - {f[0] for f in FILES}
    if unknown:
        sys.exit(f"unknown files: {', '.join(sorted(unknown))}")
    if treelb != "none" and shutil.which(treelb) is None and not Path(treelb).exists():
        sys.exit(f"no treelb binary at {treelb}")
    if shutil.which(binary) is None and not Path(binary).is_file():
        sys.exit(f"no Concorde binary at {binary}")
    print(f"load average before: {os.getloadavg()[0]:.1f} (machine with {os.cpu_count()} cores); "
          f"treelb at P = {p}, Concorde on one core; limit {limit} s per run")
    print()
    print("| instance | n | optimum | root gap treelb | root gap Concorde: fast cuts / no local cuts / as shipped "
          "| nodes treelb | nodes Concorde | treelb wall s (CPU s) | Concorde wall s (CPU s) | CPU ratio |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    rows = []
    for name, optimum in files:
        t = None
        if treelb != "none":
            t = tsp_large.run(treelb, name, optimum, p, limit, out)
            t["ok"] = t["found"] == optimum and t["proven"]
        c = concorde(binary, name, optimum, limit, out)
        rows.append((name, optimum, t, c))
        n = tsp_large.distance(INSTANCES / f"{name}.tsp")[0]
        if t:
            tgap = gap(optimum, t["root_bound"])
            tnodes = f"{t['nodes']:,}" + ("" if t["ok"] else " (not proven)")
            ttime = f"{t['wall']:.1f} ({t['cpu']:.1f})"
            ratio = f"{t['cpu'] / max(c['cpu'], 1e-3):.0f}×" if t["ok"] and c["proven"] else "—"
        else:
            tgap = tnodes = ttime = ratio = "—"
        cnodes = f"{c['nodes']:,}" if c["proven"] else "not proven"
        cgaps = " / ".join(gap(optimum, c[k]) for k in ("fast", "no_local", "root"))
        print(f"| {name} | {n} | {optimum} | {tgap} | {cgaps} | {tnodes} | {cnodes} | {ttime} "
              f"| {c['wall']:.2f} ({c['cpu']:.2f}) | {ratio} |", flush=True)
    print()
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    print()
    verdict(rows, limit)


def verdict(rows, limit):
    """The verdict, from the numbers above."""
    both = [r for r in rows if r[2] and r[2]["ok"] and r[3]["proven"]]
    only_c = [r[0] for r in rows if r[2] and not r[2]["ok"] and r[3]["proven"]]
    only_t = [r[0] for r in rows if r[2] and r[2]["ok"] and not r[3]["proven"]]
    c_all = [r[0] for r in rows if r[3]["proven"]]
    print(f"Concorde proves {len(c_all)} of {len(rows)} files within {limit} s.")
    if any(r[2] for r in rows):
        print(f"treelb proves {sum(1 for r in rows if r[2] and r[2]['ok'])} of {len(rows)}; "
              f"only Concorde: {', '.join(only_c) or 'none'}; only treelb: {', '.join(only_t) or 'none'}.")
    if both:
        ratios = sorted(r[2]["cpu"] / max(r[3]["cpu"], 1e-3) for r in both)
        faster = [r[0] for r in both if r[2]["cpu"] <= r[3]["cpu"]]
        print(f"Where both prove it, treelb's CPU time is {ratios[0]:.1f}× to {ratios[-1]:.0f}× "
              f"Concorde's (median {ratios[len(ratios) // 2]:.0f}×); treelb uses no more CPU than "
              f"Concorde on: {', '.join(faster) or 'none'}.")
    wider = [r[0] for r in rows if r[2] and r[2]["root_bound"] is not None and r[3]["no_local"] is not None
             and math.ceil(r[2]["root_bound"] - 1e-6) < math.ceil(r[3]["no_local"] - 1e-6)]
    print(f"treelb's root bound is below Concorde's root without local cuts on {len(wider)} of "
          f"{sum(1 for r in rows if r[2])} files: {', '.join(wider) or 'none'}.")


if __name__ == "__main__":
    main()
