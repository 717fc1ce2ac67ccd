"""Ctrl-C: every command stops within a second, with exit status 130 and one line.

`install` puts one SIGINT handler in place for the whole command, before anything slow
(config loading, the analysis, the workers' start, a resume's re-run of corpus/, a replay
stuck in a loop).  What a Ctrl-C does depends on what runs:

* while a campaign runs its tests (`graceful`): the campaign is asked to stop after the
  tests in flight, as its budget ending would (stats.json, the failures found and the
  summary written, "stopped by SIGINT"); if it has not stopped `GRACE_S` later (a test
  stuck in a loop, a re-run's worker starting), the stop turns into the next case;
* at any other moment, or at a second Ctrl-C: `Interrupted` is raised in the main thread.
  It is no `Exception` (nothing catches it by mistake) nor a `KeyboardInterrupt` (click
  would print "Aborted!" and exit 1): it unwinds through every `finally` - the workers and
  their fork server are killed, the out dir's files already written stay (each is written
  whole, `atomic_files`), stats.json is written, the lock released - and `main` prints
  `lambdafuzz: interrupted` and exits 130;
* a Ctrl-C while that unwinding runs: the process exits at once, still with 130 (the
  workers follow their parent's death; a lock left behind is taken over by the next
  campaign).

Third-party code may mangle `Interrupted` on its way up (libcst's position tracking raises
a KeyError from its `finally`, 1 run in ~20 at 1 s): once a Ctrl-C came, `main` exits 130
whatever ends the command, and a campaign does not start its tests.

Only the main thread takes signals; the harness holds SIGINT while it starts a process
(`harness.worker._sigint_held`) and gives it back once the start is over, so none is lost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from lambdafuzz.cli.exit_codes import ExitCode

#: Seconds a campaign asked to stop gets to end on its own before it is interrupted (a
#: stop after the tests in flight takes 5-50 ms on gradebook; a hung test, its timeout).
GRACE_S = 0.5
MESSAGE = "lambdafuzz: interrupted"


class Interrupted(BaseException):  # noqa: N818 - named after what happened, as KeyboardInterrupt
    """A Ctrl-C that stops the command where it is."""


class _State:
    def __init__(self) -> None:
        self.received = False  # a SIGINT came: the command ends with 130
        self.aborting = False  # `Interrupted` was raised: the next one exits at once
        self.stop: Callable[[], None] | None = None  # asks the running campaign to stop
        self.stopping = False  # it was asked


_state = _State()


def received() -> bool:
    """Whether a Ctrl-C came during this command."""
    return _state.received


def install() -> None:
    """The handler, for the whole command (the process's main thread only)."""
    global _state
    _state = _State()
    signal.signal(signal.SIGINT, _on_sigint)


def installed() -> bool:
    return signal.getsignal(signal.SIGINT) is _on_sigint


def _on_sigint(_signum: int, _frame: Any) -> None:
    state = _state
    state.received = True
    if state.aborting:  # a Ctrl-C while stopping: at once
        sys.stderr.write(f"\n{MESSAGE}\n")
        sys.stderr.flush()
        os._exit(int(ExitCode.INTERRUPTED))
    if state.stop is not None and not state.stopping:
        state.stopping = True
        state.stop()
        timer = threading.Timer(GRACE_S, _stop_now)
        timer.daemon = True
        timer.start()
        return
    state.aborting = True
    raise Interrupted


def _stop_now() -> None:
    """The grace is over and the campaign still runs: a Ctrl-C of our own, delivered to the
    main thread (a real signal: it ends the wait the main thread may be blocked in)."""
    state = _state
    if state.stop is not None and not state.aborting:
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


@contextlib.contextmanager
def graceful(stop: Callable[[], None]) -> Iterator[None]:
    """While the block runs, a first Ctrl-C calls `stop` (then `Interrupted` after
    `GRACE_S`, or at a second Ctrl-C).  Outside `main` (a command invoked in-process, as
    click's test runner does) the handler is put in place for the block only."""
    previous = None
    if not installed() and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, _on_sigint)
        _state.received = _state.aborting = _state.stopping = False
    _state.stop = stop
    try:
        if _state.received:  # an earlier one was swallowed on its way (a library's `except`)
            _state.aborting = True
            raise Interrupted
        yield
    finally:
        _state.stop = None
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def finish() -> None:
    """The command has decided its exit status: a Ctrl-C from here on is ignored.  The
    interpreter's finalization puts SIGINT back to its default action before it exits, and
    a Ctrl-C in that window killed a campaign that was exiting 2 on a setup error with
    -SIGINT instead (a loaded machine widens the window; an ignored signal is left alone)."""
    with contextlib.suppress(ValueError):  # not the main thread: nothing to do
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def exit_interrupted() -> None:
    """The one line and exit status of an interrupted command; the workers' fork server
    is ended first, were it still starting."""
    from lambdafuzz.harness.process.fork_server import stop_server

    stop_server()
    sys.stderr.write(f"{MESSAGE}\n")
    sys.stderr.flush()
    raise SystemExit(int(ExitCode.INTERRUPTED))
