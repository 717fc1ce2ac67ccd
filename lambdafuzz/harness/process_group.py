"""What a handler starts dies with its test, and nothing keeps a killed campaign's processes.

A handler may fork, and what it forks may fork again, clear its parent-death signal and
`setsid()` away: nothing the worker's process group, session or parent-death signal covers
holds it.  The worker (`contain`, before isolation) becomes a **child subreaper**
(`Containment.SUBREAPER`): an orphan of anything it started re-parents to it instead of to
the host's init, so after every test (`Descendants.sweep`) every descendant the worker has
but its own helpers (the janitor) is found under it (`/proc/<pid>/task/*/children`, walked
down) and killed, and the worker's children reaped: ~70 us a test (scratch timing, 1,000
sweeps, 4 threads, nothing to kill, on 2 shared busy cores).

For the campaign's end, whatever way it ends (`kill -9` included), the chain is: the fork
server ends when the campaign has (its pipe's end: `forget_fork_server` makes the workers
let go of their copies of that pipe, which kept the server, and so the workers watching
it, alive), the worker has a parent-death signal on the server (or on the campaign, for a
spawned worker), the janitor follows the worker, and multiprocessing's resource tracker
ends once none of them holds its pipe.  All of these are the kernel's doing, so a handler
stuck in a loop does not hold them up.

Not contained (yet): a descendant that cleared its parent-death signal and is still running
when its worker dies mid-test (a crash, a hang the campaign kills, the campaign killed) is
orphaned to the host.  A PID namespace per worker would hold it, but a process that entered
one with `unshare(CLONE_NEWPID)` can start no thread (the kernel refuses CLONE_THREAD once
its children's namespace differs from its own), and the worker runs threads; the worker
itself would have to be forked inside the namespace, behind a process that relays the
campaign's signals and its exit status.  A cgroup v2 per worker, killed by the janitor
(`cgroup.kill`), is the other way.
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

_PR_SET_CHILD_SUBREAPER = 36
_real_kill = os.kill  # the untraced one (the worker traces `os.kill`, see worker_faults)


class Containment(enum.StrEnum):
    """What holds the processes a handler starts."""

    SUBREAPER = "subreaper"  # orphans re-parent to the worker, which kills them
    NONE = "none"  # not Linux: only what the worker's parent-death signal covers


@dataclass(slots=True)
class Descendants:
    """The worker's hold on what its handler starts (worker side, one per worker)."""

    containment: Containment
    reason: str  # what is not held, in words
    helpers: set[int] = field(default_factory=set)  # children of the worker's own

    def describe(self) -> str:
        """A clause of the isolation line."""
        if self.containment is Containment.SUBREAPER:
            return "handler processes killed after each test (worker as subreaper)"
        return f"handler processes not held ({self.reason})"

    def sweep(self) -> None:
        """After a test: kill every process the handler started and reap the worker's own
        (again until none is left: one forked while the tree was walked is found then)."""
        while _reap(self.helpers):
            pass


def contain(helpers: set[int] | None = None) -> Descendants:
    """Worker side, before `isolate_worker` (which drops the capabilities): from now on
    orphans of what this process starts re-parent to it (see the module docstring).
    `helpers`: children of the worker that are its own (the janitor), never killed."""
    helpers = set(helpers or ())
    if not sys.platform.startswith("linux"):
        return Descendants(Containment.NONE, f"not Linux ({sys.platform})", helpers=helpers)
    prctl = _prctl()
    if prctl is None or prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return Descendants(
            Containment.NONE, "prctl(PR_SET_CHILD_SUBREAPER) failed", helpers=helpers
        )
    return Descendants(Containment.SUBREAPER, "", helpers=helpers)


def forget_fork_server() -> None:
    """Worker side, first thing in a worker the fork server started: close the worker's
    copy of the pipe whose end tells the server that the campaign is gone (multiprocessing
    hands it to every forked process; held by the workers, it kept the server, and so the
    workers watching it, alive after a `kill -9` of the campaign)."""
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver

        server = forkserver._forkserver
        fd = server._forkserver_alive_fd
        if fd is not None:
            server._forkserver_alive_fd = None
            os.close(fd)


def _prctl() -> Any:
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        path = f"/proc/{pid}/task/{task}/children"
        with contextlib.suppress(OSError, ValueError), open(path, encoding="ascii") as fh:
            found.extend(int(p) for p in fh.read().split())
    return found


def _reap(helpers: set[int]) -> bool:
    """Kill and reap the worker's children that are not `helpers`, and kill their
    descendants with them; whether there were any."""
    found = [child for child in _children(os.getpid()) if child not in helpers]
    tree, frontier = list(found), list(found)
    while frontier:  # the whole tree first, so nothing below re-parents and escapes the walk
        frontier = [grand for child in frontier for grand in _children(child)]
        tree.extend(frontier)
    for pid in tree:
        with contextlib.suppress(OSError):
            _real_kill(pid, signal.SIGKILL)
    for child in found:
        with contextlib.suppress(OSError):
            os.waitpid(child, 0)
    return bool(found)
