"""Resident memory of a process as Linux reports it, for the benchmarks.

`/proc/<pid>/status`: `VmRSS` (resident now) and `VmHWM` (its peak). Not getrusage's
ru_maxrss for a spawned child: Linux keeps that across `exec`, so the child reports at least
the RSS of the parent it was forked from.
"""

from __future__ import annotations

from pathlib import Path


def resident_mb(pid: int | str = "self") -> tuple[float, float]:
    """(VmRSS, VmHWM) of process `pid` (default: this one), in MB."""
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(value.split()[0]) / 1024.0
    return values["VmRSS"], values["VmHWM"]
