"""CPU time per test of each part of a campaign, read from `/proc`, and the rate it bounds.

A campaign of several workers on this machine's cores can run no faster than the cores
divided by the CPU time all its processes spend per test: the workers', the campaign
process's, and (on Ray) the actors' relays and Ray's own daemons.  `CpuUse` samples the
CPU time of this process and every process descended from it while a campaign runs
(every `INTERVAL_S`; a process that ends between two samples keeps its last one), and
sorts it into those parts by process name, so a benchmark can print where the cores went
and the rate that bound allows beside the rate it measured.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

INTERVAL_S = 0.2
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(slots=True)
class CpuShare:
    """CPU seconds of one campaign, by part."""

    parts: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.parts.values())

    def per_test_ms(self, tests: int) -> dict[str, float]:
        return {name: round(1e3 * s / max(1, tests), 3) for name, s in self.parts.items()}

    def bound(self, tests: int, cores: int | None = None) -> float:
        """The executions per second `cores` could give at this CPU time per test."""
        cores = cores or len(os.sched_getaffinity(0))
        return cores * tests / self.total if self.total else 0.0


def part_of(name: str, cmdline: str, pid: int) -> str:
    """Which part of a campaign a process is."""
    if pid == os.getpid():
        return "campaign"
    if name.startswith("ray::WorkerHost"):
        return "actors"
    if "multiprocessing.forkserver" in cmdline:
        return "workers"  # the workers, their fork server and fresh re-run workers
    if name.startswith("ray::") or "ray" in cmdline.split("/")[-1] or "/ray/" in cmdline:
        return "ray"
    return "other"


def _descendants() -> Iterator[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found, frontier = {os.getpid()}, {os.getpid()}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return iter(found)


def _sample(pid: int) -> tuple[str, str, float] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_text(errors="replace").replace("\0", " ")
    except OSError:
        return None
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2 :].split()
    return name, cmdline, (int(fields[11]) + int(fields[12])) / _TICKS


class CpuUse:
    """`with CpuUse() as use: ...`, then `use.share`: the CPU time spent inside the block."""

    def __init__(self) -> None:
        self._start: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="cpu-use", daemon=True)
        self.sampling_s = 0.0
        self._own = 0.0  # the sampling thread's own CPU time, taken off the campaign's
        self.share = CpuShare()

    def _snapshot(self) -> None:
        with self._lock:  # the sampling thread's and `restart`'s
            self._snapshot_locked()

    def _snapshot_locked(self) -> None:
        for pid in _descendants():
            sample = _sample(pid)
            if sample is None:
                continue
            name, cmdline, seconds = sample
            # named anew each time (a Ray worker starts idle and becomes an actor), but not
            # from the empty command line of a process that is ending
            part = part_of(name, cmdline, pid)
            known = self._last.get(pid)
            if known is not None and (part == "other" or not cmdline.strip()):
                part = known[0]
            self._last[pid] = (part, seconds)

    def _run(self) -> None:
        start = time.thread_time()
        while not self._stop.wait(INTERVAL_S):
            self._snapshot()
        self._own = time.thread_time() - start

    def __enter__(self) -> CpuUse:
        self.restart()
        self._thread.start()
        return self

    def restart(self) -> None:
        """Count from now on (a campaign's rate starts once its workers are up)."""
        with self._lock:
            self._snapshot_locked()
            self._start = {pid: seconds for pid, (_, seconds) in self._last.items()}

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._snapshot()
        parts: dict[str, float] = {}
        for pid, (part, seconds) in self._last.items():
            parts[part] = parts.get(part, 0.0) + seconds - self._start.get(pid, 0.0)
        if "campaign" in parts:
            parts["campaign"] = max(0.0, parts["campaign"] - self._own)
        self.share = CpuShare({k: round(v, 3) for k, v in sorted(parts.items()) if v > 0})
        self.sampling_s = round(self._own, 3)
