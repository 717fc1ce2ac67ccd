"""A worker's start, and every way it can go wrong told as one error a user can act on.

A worker starts in two phases.  First it imports boto3 and moto and starts the emulator:
lambdafuzz's own work, bounded by the worker's `STARTUP_TIMEOUT_S`; a failure there is a
`BackendError`.  Then it imports the handler module: the user's code, which may raise, call
`os._exit`, crash the interpreter or hang.  The worker says `("importing", None)` just
before that import, so the campaign knows whose fault a silence or a death is, and waits
for it at most `Target.import_timeout_s` (`import_timeout_s` in lambdafuzz.yaml).  A
watchdog thread in the worker reports a hanging import with the line it is stuck on; when
the import holds the GIL and the watchdog cannot run, the campaign gives up
`IMPORT_GRACE_S` later on its own.  Every handler failure is a `HandlerImportError` naming
the module, its root and what happened (the CLI turns it into exit status 2).
"""

from __future__ import annotations

import linecache
import os
import signal
import sys
import threading
from collections.abc import Iterable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from lambdafuzz.errors import BackendError, HandlerImportError, LambdafuzzError
from lambdafuzz.model.target import Target, app_dirs

#: Seconds the campaign waits beyond `import_timeout_s` for the worker's own report of a
#: hanging import before it stops the worker itself.
IMPORT_GRACE_S = 5.0
#: The end of every hanging-import message: what to do about it.
_SLOW_IMPORT_HINT = (
    "The import should only define the handler; if it is slow on purpose, raise "
    "import_timeout_s in lambdafuzz.yaml (default 30 s)."
)
#: Exit status of a worker whose watchdog stopped a hanging import.
EXIT_IMPORT_TIMEOUT = 75

#: Errors a worker reports from its start, by name; any other (a SafetyError from the
#: environment, a bug) arrives as a BackendError with its message.
ERRORS: dict[str, type[LambdafuzzError]] = {
    "HandlerImportError": HandlerImportError,
    "BackendError": BackendError,
}


def _module(target: Target) -> str:
    return f"handler module {target.handler_module!r} (from {target.root})"


# =========================================================================== worker side
class ImportWatch:
    """Worker side, around the handler's import: announces it to the campaign and, when it
    is still running after `target.import_timeout_s`, reports where it is stuck and ends
    the worker (a context manager; nothing happens when the import finishes in time)."""

    def __init__(self, conn: Connection, target: Target) -> None:
        self.conn = conn
        self.target = target
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._main = threading.get_ident()

    def __enter__(self) -> ImportWatch:
        self.conn.send(("importing", None))
        threading.Thread(target=self._watch, name="lambdafuzz-import-watch", daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:  # a watchdog already reporting holds it until the process ends
            self._done.set()

    def _watch(self) -> None:
        timeout = self.target.import_timeout_s
        if self._done.wait(timeout):
            return
        with self._lock:
            if self._done.is_set():
                return
            frame = sys._current_frames().get(self._main)
            where = frame_location(frame, self.target)
            message = (
                f"{_module(self.target)} did not finish importing within {timeout:g} s"
                f"{f'; it was still running {where}' if where else ''}. {_SLOW_IMPORT_HINT}"
            )
            try:
                self.conn.send(("error", "HandlerImportError", message))
            finally:
                os._exit(EXIT_IMPORT_TIMEOUT)


def import_error_message(exc: LambdafuzzError, target: Target) -> str:
    """The message of a setup error, with the application line an import error came from."""
    message = str(exc)
    cause = exc.__cause__
    if isinstance(exc, HandlerImportError) and cause is not None:
        where = traceback_location(cause.__traceback__, target)
        if where:
            message += f" (raised {where})"
    return message


def traceback_location(tb: TracebackType | None, target: Target) -> str:
    """`at app/handler.py:12 in load: <source line>`: the innermost application frame."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return _innermost(reversed(frames), target)


def frame_location(frame: FrameType | None, target: Target) -> str:
    frames = []
    while frame is not None:
        frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    return _innermost(frames, target)


def _innermost(frames: Iterable[tuple[FrameType, int]], target: Target) -> str:
    """The first of `frames` (innermost first) in the application's code."""
    scopes = [Path(d) for d in app_dirs(target)] or [Path(target.root).resolve()]
    for frame, line in frames:
        filename = frame.f_code.co_filename
        try:
            path = Path(os.path.realpath(filename))
        except (OSError, ValueError):
            continue
        if "site-packages" in path.parts:
            continue
        for scope in scopes:
            if path == scope or scope in path.parents:
                root = Path(target.root).resolve()
                shown = path.relative_to(root).as_posix() if root in path.parents else path.name
                source = linecache.getline(filename, line).strip()
                code = f": {source[:80]}" if source else ""
                return f"at {shown}:{line} in {frame.f_code.co_name}{code}"
    return ""


# =========================================================================== campaign side
def await_ready(
    conn: Connection, proc: BaseProcess, target: Target, startup_timeout_s: float
) -> Any:
    """Wait for a new worker's `("ready", info)` and return the info; a worker that fails,
    dies or hangs in either phase is stopped and becomes the error that says why."""
    importing = False
    timeout = startup_timeout_s
    while True:
        if not conn.poll(timeout):
            if importing:
                raise HandlerImportError(
                    f"{_module(target)} did not finish importing within "
                    f"{target.import_timeout_s:g} s (the worker was stopped). {_SLOW_IMPORT_HINT}"
                )
            raise BackendError(
                f"the worker did not start the AWS emulator within {startup_timeout_s:.0f} s "
                f"(before importing {target.handler_module!r}); is the machine overloaded?"
            )
        try:
            message = conn.recv()
        except (EOFError, OSError):
            proc.join(5)
            died = describe_exit(proc.exitcode)
            if importing:
                raise HandlerImportError(
                    f"{_module(target)} ended the worker process while it was being "
                    f"imported: {died}{_exit_hint(proc.exitcode)}."
                ) from None
            raise BackendError(
                f"the worker exited while starting the AWS emulator ({died})"
            ) from None
        if message[0] == "importing":
            importing, timeout = True, target.import_timeout_s + IMPORT_GRACE_S
        elif message[0] == "error":
            raise ERRORS.get(message[1], BackendError)(message[2])
        else:
            return message[1]


def describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _exit_hint(code: int | None) -> str:
    if code is None:
        return ""
    if code >= 0:
        return " (module code called os._exit, or a C extension exited)"
    if -code in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT):
        return " (the interpreter crashed, e.g. in a C extension the module loads)"
    if -code == signal.SIGKILL:
        return " (out of memory, or killed from outside)"
    return ""


__all__ = [
    "ERRORS",
    "IMPORT_GRACE_S",
    "ImportWatch",
    "await_ready",
    "describe_exit",
    "import_error_message",
]
