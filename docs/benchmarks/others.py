"""How much of the machine other processes took while a benchmark ran.

The benchmark scripts beside this file (extreme-p, fine-grain) import it.
The load average cannot tell: it remembers the minutes before a run and
counts the run's own processes. This is the processors' busy time from
/proc/stat less the CPU time of the script's own children, over the cores
and the span, as `treelb_bench::host::OthersMeter` does in Rust.
"""

import os
import resource
import time

# Above this share of the cores taken by other processes, a run is reported
# as made on a loaded machine (`treelb_bench::host::LOADED_SHARE`).
LOADED_SHARE = 0.05


def busy_seconds():
    """The processors' busy time so far, in seconds (None off Linux)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    """User and system time of this process's waited-for children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class OthersMeter:
    """Started when created; `share()` is the fraction of all cores that
    processes other than this script's children took since (None off
    Linux)."""

    def __init__(self):
        self.busy, self.ours, self.t = busy_seconds(), children_cpu(), time.monotonic()

    def share(self):
        now = busy_seconds()
        if self.busy is None or now is None:
            return None
        span = max(time.monotonic() - self.t, 1e-9)
        other = max(0.0, now - self.busy - (children_cpu() - self.ours))
        return other / (span * (os.cpu_count() or 1))
