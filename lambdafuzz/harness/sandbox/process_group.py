"""What a handler starts dies with its test, and nothing keeps a killed campaign's processes.

A handler may fork, and what it forks may fork again, clear its parent-death signal and
`setsid()` away: nothing the worker's process group, session or parent-death signal covers
holds it.  Two mechanisms, the stronger where the machine allows it:

* **a cgroup v2 per worker** (`Containment.CGROUP`): before isolation and before the
  handler is imported, the worker makes `<cgroup2 mount>/<its cgroup>/lambdafuzz-<campaign
  pid>-<worker pid>` (`make_cgroup`), forks its janitor (which stays outside it) and moves
  itself in (`contain`): everything it starts from then on is in that cgroup, however it
  forks, `setsid()`s or re-parents, and is killed as one by the kernel (`cgroup.kill`).
  After every test the worker kills what `cgroup.procs` lists but itself and its own
  helpers (`Descendants.sweep`: one read, ~3 us when there is nothing to kill); when the
  worker dies, however (a crash, a hang the campaign kills, a replacement, the campaign
  killed), its janitor, which waits for the worker's exit on a pidfd, kills the cgroup,
  waits until it is empty and removes it (`end_cgroup`); the campaign's handle kills it
  too when it stops or replaces a worker (`end_worker_cgroup`), so a replacement starts
  with the old worker's processes gone.  The cgroup's name carries the campaign's pid, so
  a campaign's leftovers can be told from another's.
* otherwise (cgroup v2 not mounted or not writable: not root and no delegation, a kernel
  without `cgroup.kill`), the worker as **child subreaper** (`Containment.SUBREAPER`): an
  orphan of anything it started re-parents to it instead of to the host's init, so after
  every test every descendant the worker has but its own helpers (the janitor) is found
  under it (`/proc/<pid>/task/*/children`, walked down) and killed, and the worker's
  children reaped: ~70 us a test (scratch timing, 1,000 sweeps, 4 threads, nothing to
  kill, on 2 shared busy cores).  Not contained then: a descendant that cleared its
  parent-death signal and is still running when its worker dies mid-test is orphaned to
  the host.  (A PID namespace per worker would hold it, but a process that entered one
  with `unshare(CLONE_NEWPID)` can start no thread, and the worker runs threads.)

The worker is a subreaper in both cases, so the processes it kills are its own to reap.
The isolation line says which is in force and, for the subreaper, why no cgroup.

For the campaign's end, whatever way it ends (`kill -9` included), the chain is: the fork
server ends when the campaign has (its pipe's end: `forget_fork_server` makes the workers
let go of their copies of that pipe, which kept the server, and so the workers watching
it, alive), the worker has a parent-death signal on the server (or on the campaign, for a
spawned worker), the janitor follows the worker (and kills the worker's cgroup), and
multiprocessing's resource tracker ends once none of them holds its pipe.  All of these
are the kernel's doing, so a handler stuck in a loop does not hold them up.
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from lambdafuzz.harness.sandbox.descriptors import high_fd

_PR_SET_CHILD_SUBREAPER = 36
_real_kill = os.kill  # the untraced one (the worker traces `os.kill`, see worker_faults)


class Containment(enum.StrEnum):
    """What holds the processes a handler starts."""

    CGROUP = "cgroup"  # a cgroup v2 per worker, killed as one
    SUBREAPER = "subreaper"  # orphans re-parent to the worker, which kills them
    NONE = "none"  # not Linux: only what the worker's parent-death signal covers


@dataclass(slots=True)
class Descendants:
    """The worker's hold on what its handler starts (worker side, one per worker)."""

    containment: Containment
    reason: str  # what is not held, in words
    helpers: set[int] = field(default_factory=set)  # children of the worker's own
    cgroup: str = ""  # the worker's cgroup (`Containment.CGROUP`)
    procs: int = -1  # its `cgroup.procs`, open

    def describe(self) -> str:
        """A clause of the isolation line."""
        if self.containment is Containment.CGROUP:
            return "handler processes killed after each test and with their worker (cgroup v2)"
        if self.containment is Containment.SUBREAPER:
            return (
                "handler processes killed after each test (worker as subreaper; "
                f"not when their worker dies mid-test: {self.reason})"
            )
        return f"handler processes not held ({self.reason})"

    def sweep(self) -> None:
        """After a test: kill every process the handler started and reap the worker's own
        (again until none is left: one forked while the tree was walked is found then)."""
        if self.procs >= 0 and self._sweep_cgroup():
            return
        while _reap(self.helpers):
            pass

    def _sweep_cgroup(self) -> bool:
        """`sweep` by the cgroup's list (False: it cannot be read, walk /proc instead)."""
        me, killed = os.getpid(), set()
        while True:
            try:
                listed = os.pread(self.procs, 1 << 16, 0).split()
            except OSError:  # the handler closed it (a high number, but all the same)
                self.procs = -1
                return False
            found = {int(p) for p in listed} - killed - self.helpers - {me}
            if not found:
                break
            for pid in found:
                with contextlib.suppress(OSError):
                    _real_kill(pid, signal.SIGKILL)
            killed |= found
        for pid in killed:  # those that are the worker's children (the others: ECHILD)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
        while True:  # orphans re-parented here and children that ended on their own
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            self.helpers.discard(pid)
        return True


def contain(helpers: set[int] | None = None, cgroup: str = "", no_cgroup: str = "") -> Descendants:
    """Worker side, before `isolate_worker` (which drops the capabilities): from now on
    what this process starts is in `cgroup` (made by `make_cgroup`, "" when none could be
    made, `no_cgroup` saying why), and orphans of what it starts re-parent to it (see the
    module docstring).  `helpers`: children of the worker that are its own (the janitor,
    forked before, so outside the cgroup), never killed."""
    helpers = set(helpers or ())
    if not sys.platform.startswith("linux"):
        return Descendants(Containment.NONE, f"not Linux ({sys.platform})", helpers=helpers)
    procs = -1
    if cgroup:
        try:
            write_file(os.path.join(cgroup, "cgroup.procs"), str(os.getpid()))
            procs = high_fd(os.open(os.path.join(cgroup, "cgroup.procs"), os.O_RDONLY))
        except OSError as exc:
            no_cgroup = f"could not enter a cgroup: {exc.strerror or exc}"
            with contextlib.suppress(OSError):
                write_file(os.path.join(os.path.dirname(cgroup), "cgroup.procs"), str(os.getpid()))
                os.rmdir(cgroup)
            cgroup = ""
    prctl = _prctl()
    reaper = prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    if not reaper and not cgroup:
        return Descendants(
            Containment.NONE, "prctl(PR_SET_CHILD_SUBREAPER) failed", helpers=helpers
        )
    if cgroup:
        return Descendants(Containment.CGROUP, "", helpers=helpers, cgroup=cgroup, procs=procs)
    return Descendants(Containment.SUBREAPER, no_cgroup or "no cgroup", helpers=helpers)


#: The prefix of a worker's cgroup: `lambdafuzz-<campaign pid>-<worker pid>`.
CGROUP_PREFIX = "lambdafuzz-"
#: How long the janitor waits for a killed cgroup to empty before removing it.
CGROUP_EMPTY_WAIT_S = 5.0


def cgroup_parent() -> tuple[str, str]:
    """(the folder of this process's cgroup v2, "") or ("", why there is none)."""
    if not sys.platform.startswith("linux"):
        return "", f"not Linux ({sys.platform})"
    mount = root = ""
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            fields, _, fs = line.partition(" - ")
            if fs.split(" ", 1)[0] == "cgroup2":
                parts = fields.split()
                root, mount = _unescape(parts[3]), _unescape(parts[4])
                break
    if not mount:
        return "", "no cgroup v2 hierarchy mounted"
    current = ""
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("0::"):
                current = line[3:].strip()
    if not current.startswith("/"):
        return "", "this process is in no cgroup v2"
    if root != "/" and (current == root or current.startswith(root + "/")):
        current = current[len(root) :]  # a mount of a sub-tree (a container's)
    folder = os.path.join(mount, current.lstrip("/"))
    if not os.path.isdir(folder):
        return "", f"this process's cgroup is not under {mount}"
    return folder, ""


def make_cgroup(campaign_pid: int) -> tuple[str, str]:
    """Worker side, first thing: (the worker's own cgroup, made now, "") or ("", why
    none could be made).  Made under the worker's current cgroup, the campaign's."""
    parent, reason = cgroup_parent()
    if not parent:
        return "", reason
    if not campaign_pid:
        return "", "no campaign to name it after"
    path = os.path.join(parent, f"{CGROUP_PREFIX}{campaign_pid}-{os.getpid()}")
    try:
        os.mkdir(path, 0o755)
    except OSError as exc:
        return "", f"cgroup v2 not writable here ({exc.strerror or exc})"
    if not os.path.exists(os.path.join(path, "cgroup.kill")):
        with contextlib.suppress(OSError):
            os.rmdir(path)
        return "", "the kernel has no cgroup.kill (Linux < 5.14)"
    return path, ""


def end_cgroup(path: str, wait_s: float = CGROUP_EMPTY_WAIT_S) -> bool:
    """Kill every process in the cgroup at `path`, wait (at most `wait_s`) until it is
    empty and remove it; whether it is gone (True also when it never was)."""
    if not os.path.isdir(path):
        return True
    with contextlib.suppress(OSError):
        write_file(os.path.join(path, "cgroup.kill"), "1")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.rmdir(path)  # refused (EBUSY) while a process is in it
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)


@cache
def _campaign_cgroup_parent() -> str:
    return cgroup_parent()[0]


def worker_cgroup(campaign_pid: int, worker_pid: int) -> str:
    """Campaign side: where the worker `worker_pid` made its cgroup ("": no cgroup v2)."""
    parent = _campaign_cgroup_parent()
    return os.path.join(parent, f"{CGROUP_PREFIX}{campaign_pid}-{worker_pid}") if parent else ""


def end_worker_cgroup(worker_pid: int | None) -> None:
    """Campaign side, when it stops or replaces a worker: kill what the worker's cgroup
    holds at once (its janitor, which removes the cgroup, would do it a moment later)."""
    if worker_pid is None:
        return
    path = worker_cgroup(os.getpid(), worker_pid)
    if path:
        with contextlib.suppress(OSError):
            write_file(os.path.join(path, "cgroup.kill"), "1")


def write_file(path: str, text: str) -> None:
    """`text` written to a kernel file (`cgroup.procs`, `uid_map`) in one write, unbuffered."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _unescape(field_: str) -> str:
    """A path from /proc/self/mountinfo (space, tab, newline and backslash are octal)."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field_ = field_.replace(code, char)
    return field_


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
        # bytes: a text codec may need an import, which fails while the handler's working
        # directory is removed (the sweep runs before `_restore_cwd`)
        with contextlib.suppress(OSError, ValueError), open(path, "rb") as fh:
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
