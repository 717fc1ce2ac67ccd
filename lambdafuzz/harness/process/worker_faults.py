"""A worker's faults: what a worker that dies, hangs or loses its campaign leaves behind.

Worker side, `FaultGuard.install` as the worker starts (it starts no thread, so namespaces
can still be entered after it), and `FaultGuard.watch_parent` once the worker is ready:

* it never outlives the campaign: `PR_SET_PDEATHSIG` (SIGKILL) on Linux, set again when
  the worker is ready (dropping capabilities clears it), plus a watchdog thread that ends
  the worker once its parent is gone (a campaign killed with -9; also after the handler
  called `setsid()`, which takes it out of the campaign's process group);
* what the handler forks dies with it: a forked child gets the same parent-death signal
  (so a worker killed by the campaign takes its children along), and children still
  running after their test are killed then (the worker stays in the campaign's process
  group and session, so a handler's `setsid()` works as it would in Lambda);
* `faulthandler` writes to `faults.txt` in the worker's own temp dir (named and removed
  by the campaign, made by the janitor): the stack of a crash (SIGSEGV, SIGABRT, ...), of
  SIGTERM, and of SIGUSR1; `os._exit` and a fatal signal a handler sends itself dump the
  calling stack first (SIGUSR1 and SIGUSR2 sent to itself end it, as they would end the
  Lambda runtime); every `threading.Thread` gets a signal stack of its own, so a thread
  that overflows its C stack is dumped too (`_alt_stack_per_thread`);
* a hanging worker is asked for its stack first with `HANG_SIGNAL` (SIGUSR2), which a
  Python-level handler answers at the next bytecode the handler runs, with the frames as
  they are (`_dump_hang`); only when that does not come (C code holding the GIL, such as a
  regex backtracking) with SIGUSR1. faulthandler reads the frames from a signal handler
  while the interpreter may be changing them: resuming a generator in a busy loop, it
  crashed the dump ("File ???, line 0 in Fatal Python error: Segmentation fault") in 2-4
  of 15 hangs, which left the hang without a location;
* its pipe and that file sit on high descriptor numbers, stdin/stdout/stderr are put back
  after every test, a forked copy of the worker that returns from the handler ends before
  it can answer, and children the handler forked are killed after its test.

`start_janitor`, first thing in the worker: a tiny forked process, in a session of its own,
that makes the worker's temp dir and removes it once the worker is gone however it ended
(also when the whole campaign was killed, which leaves no one else to do it).

Campaign side, `read_fault`: the last dump of a dead or hung worker and the innermost
application frame in it, which is where its failure is located.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from lambdafuzz.harness.invoke import app_relative, shown_path
from lambdafuzz.harness.sandbox.descriptors import high_fd
from lambdafuzz.harness.sandbox.janitor import janitor
from lambdafuzz.model.outcome import frame_location

if TYPE_CHECKING:
    from lambdafuzz.harness.sandbox.process_group import Descendants

#: The dump file in a worker's temp dir.
FAULT_FILE = "faults.txt"
#: Starts every dump block the worker or the campaign writes itself.
MARK = "lambdafuzz-dump: "
#: The block the campaign starts before it asks a hanging worker for its stacks.
HANG_MARK = f"{MARK}hang"
#: The signal a hanging worker answers with its main thread's Python stack (`_dump_hang`).
HANG_SIGNAL = signal.SIGUSR2
#: Appended to a generator's (or generator expression's, coroutine's) frame in that dump: a
#: busy loop that resumes a generator is caught in it or in its caller by chance, so a hang
#: is located by the innermost frame that is neither (`_innermost_app_frame`).
GENERATOR_TAG = " (generator)"
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR
#: How often the watchdog looks for the campaign.
PARENT_POLL_S = 0.5
#: Exit status of a worker that lost its campaign, or its pipe (the handler closed it).
EXIT_ORPHANED = 70
EXIT_PIPE_LOST = 71
_PR_SET_PDEATHSIG = 1
#: Signals whose default action does not end (or stop) a process.
_HARMLESS = {
    getattr(signal, name)
    for name in ("SIGCHLD", "SIGCONT", "SIGURG", "SIGWINCH")
    if hasattr(signal, name)
}

_real_exit = os._exit  # the untraced ones, whatever a handler does to `os` later
_real_kill = os.kill


# =========================================================================== worker side
class FaultGuard:
    """The worker's side of fault handling; one per worker process."""

    def __init__(self, worker_dir: str, parent_pid: int) -> None:
        self.pid = os.getpid()
        self.worker_dir = worker_dir
        self.parent_pid = parent_pid
        self.fault_path = os.path.join(worker_dir, FAULT_FILE) if worker_dir else ""
        self.fault_fd = -1
        self.forked = False
        self.dumped = False  # a traced exit/kill wrote a dump that was not fatal after all
        # called after the dump of a traced exit or fatal self-signal (the handler output
        # drained into its ring, see `handler_output`)
        self.before_fatal: Callable[[], None] | None = None
        self._stdio: list[int] = []
        self._prctl: Callable[..., int] | None = None
        # what the handler starts, killed after every test (`process_group.Descendants`)
        self.descendants: Descendants | None = None

    @classmethod
    def install(cls, worker_dir: str, parent_pid: int) -> FaultGuard:
        guard = cls(worker_dir, parent_pid)
        guard._set_pdeathsig()
        guard._keep_stdio()
        if guard.fault_path:
            fd = os.open(guard.fault_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            guard.fault_fd = high_fd(fd)
            faulthandler.enable(file=guard.fault_fd, all_threads=True)
            for signum in (signal.SIGUSR1, signal.SIGTERM):
                # SIGUSR1 only dumps; SIGTERM dumps, then ends the worker as it would have
                faulthandler.register(
                    signum, file=guard.fault_fd, all_threads=True, chain=signum != signal.SIGUSR1
                )
            with contextlib.suppress(ValueError, OSError):  # not the main thread: SIGUSR1 only
                signal.signal(HANG_SIGNAL, guard._dump_hang)
            guard._trace_exits()
            _alt_stack_per_thread()
        os.register_at_fork(after_in_parent=guard._note_fork, after_in_child=guard._forked_child)
        return guard

    # ------------------------------------------------------------------ parent death
    def watch_parent(self) -> None:
        """Once the worker is set up: the parent-death signal again (a change of
        credentials or capabilities during setup clears it) and the watchdog thread."""
        self._set_pdeathsig()
        if self.parent_pid:
            threading.Thread(
                target=_watch_parent, args=(self.parent_pid,), name="lambdafuzz-parent", daemon=True
            ).start()

    def _set_pdeathsig(self) -> None:
        # libc's prctl is looked up once, at install: later the sandbox refuses ctypes loading
        if self._prctl is None and sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                import ctypes

                self._prctl = ctypes.CDLL(None, use_errno=True).prctl
        if self._prctl is not None:
            with contextlib.suppress(Exception):
                self._prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if self.parent_pid and os.getppid() != self.parent_pid:  # gone before prctl
            _real_exit(EXIT_ORPHANED)

    # ------------------------------------------------------------------ descriptors
    def protect(self, conn: Connection) -> Connection:
        """`conn` moved to a high descriptor, out of reach of a handler closing low ones."""
        fd = high_fd(os.dup(conn.fileno()))
        conn.close()
        return Connection(fd)

    def _keep_stdio(self) -> None:
        for fd in (0, 1, 2):
            try:
                self._stdio.append(high_fd(os.dup(fd)))
            except OSError:
                self._stdio.append(-1)

    def after_test(self) -> None:
        """Between tests: a forked copy of the worker ends here; what the handler forked is
        killed; stdin/stdout/stderr are restored; a non-fatal traced dump is dropped."""
        if os.getpid() != self.pid:  # the handler forked and its child returned
            _real_exit(0)
        if self.descendants is not None:
            self.forked = False
            self.descendants.sweep()
        elif self.forked:
            self.forked = False
            _kill_children()
        for fd, saved in enumerate(self._stdio):
            if saved >= 0:
                with contextlib.suppress(OSError):
                    os.dup2(saved, fd)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            stream = getattr(sys, name)
            if stream is None or getattr(stream, "closed", False):
                with contextlib.suppress(OSError, ValueError):
                    # line-buffered, as the runtime's streams (see `handler_output`)
                    setattr(sys, name, open(fd, "w", closefd=False, buffering=1))  # noqa: SIM115
        if self.dumped:
            self.dumped = False
            with contextlib.suppress(OSError):
                os.ftruncate(self.fault_fd, 0)

    def _note_fork(self) -> None:
        self.forked = True

    def _forked_child(self) -> None:
        """In a process the handler forked: die with the process that forked it."""
        parent = os.getppid()
        if self._prctl is not None:
            with contextlib.suppress(Exception):
                self._prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # its parent is gone already
            _real_exit(EXIT_ORPHANED)

    # ------------------------------------------------------------------ dumps
    def note(self, what: str, exc: BaseException | None = None) -> None:
        """Write a block of our own to the dump file (by path: its descriptor may be gone):
        `what`, and the stack of `exc` innermost first, as faulthandler writes stacks."""
        if not self.fault_path:
            return
        lines = [f"{MARK}{what}", "Stack (most recent call first):"]
        if exc is not None:
            for frame in reversed(traceback.extract_tb(exc.__traceback__)):
                lines.append(f'  File "{frame.filename}", line {frame.lineno} in {frame.name}')
        with contextlib.suppress(OSError), open(self.fault_path, "a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")

    def _dump_hang(self, signum: int, frame: FrameType | None) -> None:
        """`HANG_SIGNAL`: the main thread's stack from `frame` (where it is running now), in
        faulthandler's format and one write, generator frames tagged (`GENERATOR_TAG`)."""
        lines = [f"Current thread 0x{threading.get_ident():016x} (most recent call first):"]
        with contextlib.suppress(Exception):
            while frame is not None and len(lines) <= 100:
                code = frame.f_code
                tag = GENERATOR_TAG if code.co_flags & _GENERATOR_FLAGS else ""
                line = frame.f_lineno or 0
                lines.append(f'  File "{code.co_filename}", line {line} in {code.co_name}{tag}')
                frame = frame.f_back
            os.write(self.fault_fd, ("\n".join(lines) + "\n").encode("utf-8", "replace"))

    def _dump(self, what: str) -> None:
        """The calling thread's stack, before the traced call ends the process."""
        with contextlib.suppress(Exception):
            os.write(self.fault_fd, f"{MARK}{what}\n".encode())
            faulthandler.dump_traceback(file=self.fault_fd, all_threads=False)
            self.dumped = True
        if self.before_fatal is not None:
            with contextlib.suppress(Exception):
                self.before_fatal()

    def _trace_exits(self) -> None:
        """`os._exit` and fatal signals sent to the worker itself dump the stack first: the
        process ends without a Python traceback, and its failure is located by this.

        A signal to the whole process group (`kill(0, ...)`, `kill(-1, ...)`, `killpg(0,
        ...)`) goes to the worker alone: the group is the campaign's, and in Lambda the
        runtime's group is the runtime."""
        import posix

        guard = self
        real_kill, real_killpg = os.kill, os.killpg
        real_raise, real_pthread_kill = signal.raise_signal, signal.pthread_kill

        def _exit(status: int) -> None:
            guard._dump(f"os._exit({status})")
            _real_exit(status)

        def fatal(sig: int) -> bool:
            """Whether `sig` sent to the worker itself ends it, as it would end the Lambda
            runtime: the signals the worker answers (SIGUSR1, `HANG_SIGNAL`) are given
            back their default action first, unless the handler set one of its own."""
            with contextlib.suppress(ValueError, TypeError, OSError):
                if sig == signal.SIGUSR1 and signal.getsignal(sig) in (signal.SIG_DFL, None):
                    faulthandler.unregister(signal.SIGUSR1)
                    return True
                if sig == HANG_SIGNAL and signal.getsignal(sig) == guard._dump_hang:
                    signal.signal(sig, signal.SIG_DFL)
                    return True
            return _fatal(sig)

        def kill(pid: int, sig: int) -> None:
            if _targets_self(pid):
                if fatal(sig):
                    shown = "getpid()" if pid == os.getpid() else pid
                    guard._dump(f"os.kill({shown}, {_signal_name(sig)})")
                pid = os.getpid()
            real_kill(pid, sig)

        def killpg(pgid: int, sig: int) -> None:
            if pgid in (0, os.getpgrp()):
                if fatal(sig):
                    guard._dump(f"os.killpg({pgid}, {_signal_name(sig)})")
                real_kill(os.getpid(), sig)
                return
            real_killpg(pgid, sig)

        def raise_signal(sig: int) -> None:
            if fatal(sig):
                guard._dump(f"signal.raise_signal({_signal_name(sig)})")
            real_raise(sig)

        def pthread_kill(thread_id: int, sig: int) -> None:
            if fatal(sig):
                guard._dump(f"signal.pthread_kill({_signal_name(sig)})")
            real_pthread_kill(thread_id, sig)

        os._exit = posix._exit = _exit
        os.kill = posix.kill = kill
        os.killpg = posix.killpg = killpg
        signal.raise_signal = raise_signal
        signal.pthread_kill = pthread_kill


#: Each thread's own signal stack (`_alt_stack_per_thread`): faulthandler's dump of 100
#: frames takes a few KB; glibc's SIGSTKSZ is 8 KB.
_ALT_STACK_SIZE = 64 * 1024
_SS_DISABLE = 2


def _alt_stack_per_thread() -> None:
    """Give every `threading.Thread` a signal stack of its own, so a thread that overflows
    its C stack is dumped (and its failure located) instead of dying silently.

    faulthandler runs its SIGSEGV handler on an alternate signal stack, but `sigaltstack`
    is per thread and faulthandler sets one for the thread that enabled it only: a thread
    whose stack overflowed has no stack left for the handler, and the kernel kills the
    worker without a dump.  libc's `sigaltstack` is looked up here, before the sandbox
    refuses ctypes; a thread started with `_thread.start_new_thread` or from C gets none."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        sigaltstack = ctypes.CDLL(None, use_errno=True).sigaltstack
    except (OSError, AttributeError):
        return

    class _StackT(ctypes.Structure):
        _fields_ = [
            ("ss_sp", ctypes.c_void_p),
            ("ss_flags", ctypes.c_int),
            ("ss_size", ctypes.c_size_t),
        ]

    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def _bootstrap_inner(self: threading.Thread) -> None:
        memory = (ctypes.c_char * _ALT_STACK_SIZE)()  # lives as long as the thread runs
        stack = _StackT(ctypes.addressof(memory), 0, _ALT_STACK_SIZE)
        installed = sigaltstack(ctypes.byref(stack), None) == 0
        try:
            bootstrap(self)
        finally:
            if installed:  # before `memory` is freed
                sigaltstack(ctypes.byref(_StackT(None, _SS_DISABLE, 0)), None)

    threading.Thread._bootstrap_inner = _bootstrap_inner  # type: ignore[attr-defined]


def start_janitor(worker_dir: str, campaign_pid: int, cgroup: str = "") -> int:
    """Fork a process that creates `worker_dir`, then removes it once both this worker and
    its campaign are gone (while the campaign lives, it reads the dump in there and removes
    the dir itself; the janitor is for a campaign that was killed, which leaves no one else).

    The campaign only names the dir; the janitor makes it, after leaving the campaign's
    session, so a kill of the campaign's whole process group at any moment of a worker's
    start leaves nothing behind: before the janitor's `setsid()` there is no dir, after it
    there is a janitor that outlives the kill.  (The campaign making the dir left one behind
    whenever the kill came during the ~0.1 s the worker took to start.)

    Call it before anything else in the worker: while it is single-threaded and still sees
    the host's file system (a private /tmp would hide the dir).  The janitor keeps two
    descriptors: its end of a pipe whose other end only the worker (and what the worker
    forks) holds, where end of file means the worker is gone, and a pidfd of the campaign,
    readable once the campaign has exited.  Where no janitor can be forked, the worker makes
    the dir itself.  Returns the janitor's pid (0: none), a child the worker never kills.
    `cgroup`: the worker's own (`process_group.make_cgroup`), which the janitor, forked
    before the worker enters it, kills and removes once the worker has exited."""
    if not worker_dir:
        return 0
    if not campaign_pid or not hasattr(os, "fork"):
        os.makedirs(worker_dir, 0o700, exist_ok=True)
        return 0
    read_end, write_end = os.pipe()
    made_read, made_write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (read_end, write_end, made_read, made_write):
            os.close(fd)
        os.makedirs(worker_dir, 0o700, exist_ok=True)
        return 0
    if pid == 0:  # the janitor
        try:
            os.close(made_read)
            janitor(worker_dir, campaign_pid, read_end, made_write, cgroup)
        finally:
            _real_exit(0)
    os.close(read_end)
    os.close(made_write)
    made = os.read(made_read, 1)  # the janitor made the dir (or could not: EOF)
    os.close(made_read)
    if made != b"+":
        os.makedirs(worker_dir, 0o700, exist_ok=True)
    # held by the worker (and what it forks) on a high number that a handler closing
    # descriptors does not guess; close-on-exec
    high_fd(write_end)
    return pid


def exit_now(status: int) -> None:
    """End the worker at once (the untraced `os._exit`)."""
    _real_exit(status)


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent_pid:
            _real_exit(EXIT_ORPHANED)


def _targets_self(pid: int) -> bool:
    if pid in (0, -1, os.getpid()):
        return True
    return pid < 0 and -pid == os.getpgrp()


def _fatal(sig: int) -> bool:
    try:
        number = int(sig)
        if number == 0 or number in _HARMLESS:
            return False
        return signal.getsignal(number) in (signal.SIG_DFL, None)
    except (ValueError, TypeError, OSError):
        return False


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _kill_children() -> None:
    """Kill and reap the worker's child processes (what a handler forked and left)."""
    me = os.getpid()
    try:
        tasks = os.listdir(f"/proc/{me}/task")
    except OSError:
        return
    for task in tasks:
        try:
            with open(f"/proc/{me}/task/{task}/children", encoding="ascii") as fh:
                children = [int(p) for p in fh.read().split()]
        except (OSError, ValueError):
            continue
        for child in children:
            with contextlib.suppress(OSError):
                _real_kill(child, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(child, 0)


# =========================================================================== campaign side
@dataclass(slots=True, frozen=True)
class Fault:
    """What the last dump of a worker says."""

    what: str  # first line of the block: "Fatal Python error: Segmentation fault", "os._exit(3)"
    # innermost application frame, "app/handler.py:12"; without one in any thread, the
    # innermost frame of the chosen thread, "botocore/x.py:9 in f"; "" without frames
    location: str
    stack: str  # the chosen thread's stack, as dumped
    function: str = ""  # the function of `location` when it is an application frame


_FRAME = re.compile(r'^\s+File "(?P<file>.*)", line (?P<line>\d+),? in (?P<func>.*)$')
_THREAD = re.compile(r"^(?P<current>Current thread|Thread) (?P<id>0x[0-9a-fA-F]+)")
_STACK = "Stack (most recent call first):"
_BLOCK_START = re.compile(r"^(Fatal Python error: |Timeout \(|" + re.escape(MARK) + ")")


def fault_path(worker_dir: str | Path) -> Path:
    return Path(worker_dir) / FAULT_FILE


def read_fault(
    path: str | Path, app_dirs: Sequence[str], main_thread: int = 0, *, hang: bool = False
) -> Fault | None:
    """The last dump in `path`, or None when there is none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(4 << 20)
    except OSError:
        return None
    return parse_fault(text, app_dirs, main_thread, hang=hang)


def parse_fault(
    text: str, app_dirs: Sequence[str], main_thread: int = 0, *, hang: bool = False
) -> Fault | None:
    """The last dump block of `text` and the thread that matters in it: for a hang the
    worker's main thread (the one running the handler), otherwise the thread that crashed
    or called `os._exit` ("Current thread", "Stack"), else the main thread."""
    blocks = _blocks(text.splitlines())
    if not blocks:
        return None
    what, sections = blocks[-1]
    if not sections:
        return Fault(what, "", "")

    def by_main() -> list[str] | None:
        for header, lines in sections:
            match = _THREAD.match(header)
            if match and main_thread and int(match.group("id"), 16) == main_thread:
                return [header, *lines]
        return None

    def by_current() -> list[str] | None:
        for header, lines in sections:
            if header.startswith(("Current thread", _STACK)):
                return [header, *lines]
        return None

    order = (by_main, by_current) if hang else (by_current, by_main)
    first = order[0]() or order[1]() or [sections[0][0], *sections[0][1]]
    # a thread without application frames (a crash in a thread running library code)
    # is located by another thread's, the main thread first
    candidates = [first, *(c for c in (order[1](), order[0]()) if c is not None)]
    candidates += [[header, *lines] for header, lines in sections]
    for chosen in candidates:
        location, function = _innermost_app_frame(chosen[1:], app_dirs, steady=hang)
        if location:
            return Fault(what, location, "\n".join(chosen), function)
    return Fault(what, _innermost_frame(first[1:], app_dirs), "\n".join(first))


def _innermost_app_frame(
    lines: list[str], app_dirs: Sequence[str], *, steady: bool = False
) -> tuple[str, str]:
    """("app/handler.py:12", its function), or ("", "") without an application frame.
    `steady` (a hang): the innermost application frame that is not a generator's nor
    `<genexpr>`, `<lambda>` and the like, when there is one: a busy loop that resumes a
    generator is caught in either by chance, and its caller is where it loops."""
    found: list[tuple[str, str]] = []
    for line in lines:
        match = _FRAME.match(line)
        if match:
            rel = app_relative(match.group("file"), app_dirs)
            if rel is not None:
                func = match.group("func").strip()
                found.append((f"{rel}:{match.group('line')}", func))
                if not steady or not _passing(func):
                    break
    if not found:
        return "", ""
    location, func = found[-1] if steady and not _passing(found[-1][1]) else found[0]
    return location, func.removesuffix(GENERATOR_TAG)


def _passing(func: str) -> bool:
    """A frame a hang passes through (see `_innermost_app_frame`)."""
    return func.endswith(GENERATOR_TAG) or func.startswith("<")


def _innermost_frame(lines: list[str], app_dirs: Sequence[str]) -> str:
    """The first (innermost: dumps list the most recent call first) frame of any code."""
    for line in lines:
        match = _FRAME.match(line)
        if match:
            file = shown_path(match.group("file"), app_dirs)
            return frame_location(file, int(match.group("line")), match.group("func").strip())
    return ""


def _blocks(lines: list[str]) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """Dump blocks as (first line, [(thread header, frame lines)])."""
    blocks: list[tuple[str, list[tuple[str, list[str]]]]] = []
    for line in lines:
        if _BLOCK_START.match(line):
            blocks.append((line.removeprefix(MARK), []))
            continue
        thread = _THREAD.match(line)
        if thread or line.startswith(_STACK):
            if not blocks or (thread and _seen_thread(blocks[-1][1], thread.group("id"))):
                blocks.append(("", []))  # a dump without a header line of its own
            blocks[-1][1].append((line.rstrip(":").rstrip(), []))
            continue
        if blocks and blocks[-1][1] and line.strip():
            blocks[-1][1][-1][1].append(line)
    return blocks


def _seen_thread(sections: list[tuple[str, list[str]]], thread_id: str) -> bool:
    return any(thread_id in header for header, _ in sections)
