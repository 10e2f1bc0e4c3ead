"""How many threads a model's forward passes get: the CPU cores actually free, unless the operator says.

A CPU runtime (torch's OpenMP pool, llama.cpp's threadpool) that starts one thread per core while another process
keeps a core busy does not get a core less: its threads wait for each other at every layer's barrier while one of
them queues behind the other process, and they spin while they wait. An eval ran 6–10× slower with
``--threads 2`` than with one thread on a 2-core machine where another job was running (issue 32). So the default
is the cores this process may run on (its affinity, within its cgroup's CPU quota) less what other processes keep
busy, measured over a short interval when the model is loaded; at least 1. An explicit ``--threads`` still wins.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

# Measured once per backend, when its model is loaded; long enough to see a steady neighbour, short beside a load.
SAMPLE_S = 0.5


def free_cores(cpus: int, busy: float) -> int:
    """The cores left of ``cpus`` when other processes keep ``busy`` cores' worth of them running: rounded to the
    nearest core (a neighbour using 0.7 of a core takes it; one using 0.3 leaves it), at least 1, at most
    ``cpus``."""
    cpus = max(1, cpus)
    return max(1, min(cpus, math.floor(cpus - max(0.0, busy) + 0.5)))


def threads_for(threads: int, *, cpus: int | None = None, busy: float | None = None) -> int:
    """``threads`` when the operator gave one (> 0), else the free cores (``cpus`` and ``busy`` measured when not
    given)."""
    if threads > 0:
        return threads
    cpus = usable_cpus() if cpus is None else cpus
    return free_cores(cpus, busy_elsewhere() if busy is None else busy)


def usable_cpus() -> int:
    """The cores this process may run on: its CPU affinity, capped by its cgroup's quota (``cpu.max``)."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = _cgroup_quota()
    return max(1, min(count, math.ceil(quota)) if quota else count)


def _cgroup_quota(path: Path = Path("/sys/fs/cgroup/cpu.max")) -> float | None:
    try:
        limit, period = path.read_text(encoding="ascii").split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        return None


def busy_elsewhere(interval: float = SAMPLE_S) -> float:
    """How many cores' worth other processes kept running over ``interval`` seconds: the machine's busy time
    (``/proc/stat``) less this process's own (``/proc/self/stat``). Where /proc cannot be read, the 1-minute load
    average (which counts this process too) stands in."""
    try:
        machine, own = _busy_ticks(), _own_ticks()
        started = time.monotonic()
        time.sleep(interval)
        machine_after, own_after = _busy_ticks(), _own_ticks()
        elapsed = time.monotonic() - started
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except OSError:
            return 0.0
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return max(0.0, ((machine_after - machine) - (own_after - own)) / ticks / max(elapsed, 1e-3))


def _busy_ticks() -> int:
    """All CPUs' busy ticks since boot: user, nice, system, irq, softirq, steal (not idle, not iowait)."""
    fields = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[1:9])
    return user + nice + system + irq + softirq + steal


def _own_ticks() -> int:
    """This process's user and system ticks (all its threads)."""
    text = Path("/proc/self/stat").read_text(encoding="ascii")
    fields = text[text.rindex(")") + 2:].split()  # after the command name, which may hold spaces
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
