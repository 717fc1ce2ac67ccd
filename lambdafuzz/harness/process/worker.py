"""The campaign's handle on one worker process: start it, send it tests, read its answers,
and tell what happened when it died, hung or lost its pipe (`Worker`).  The campaign keeps
the corpus and every saved file, so nothing a worker does can lose them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdafuzz.harness.measure.handler_output import read_ring
from lambdafuzz.harness.process.fork_server import (
    campaign_main_hidden,
    fall_back,
    worker_context,
)
from lambdafuzz.harness.process.protocol import (
    KEPT_RECORDING,
    KeptInput,
    TestRequest,
    TestResult,
    WorkerInfo,
    WorkerSpec,
    allowed_s,
    choices_for,
    world_summary_of,
)
from lambdafuzz.harness.process.runtime import worker_main
from lambdafuzz.harness.process.worker_faults import (
    HANG_MARK,
    HANG_SIGNAL,
    MARK,
    Fault,
    fault_path,
    read_fault,
)
from lambdafuzz.harness.process.worker_startup import (
    await_ready,
    describe_exit,
)
from lambdafuzz.harness.sandbox.clean_env import process_environment, worker_environment
from lambdafuzz.harness.sandbox.private_view import user_secrets
from lambdafuzz.harness.sandbox.process_group import (
    end_worker_cgroup,
)
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import Trigger

if TYPE_CHECKING:
    from lambdafuzz.generators.aws.world_generator import GeneratedInput

#: Seconds a new worker may take to import boto3 and moto and start the emulator; the
#: handler's own import then has `Target.import_timeout_s` (see `worker_startup`).
STARTUP_TIMEOUT_S = 120.0
#: How long a hanging worker may take to dump its stacks before it is killed.
HANG_DUMP_WAIT_S = 0.5
#: ... and for its Python-level answer to `HANG_SIGNAL` before asking faulthandler: a
#: busy Python loop answers within a switch interval or so.
HANG_SOFT_WAIT_S = 0.2
#: How long the campaign waits for a kept recording (the worker answers it after tidying
#: up from the test, well under a millisecond) before it regenerates the input instead.
RECORDING_WAIT_S = 5.0


class Worker:
    """The campaign's handle on one worker process; restarts it when it dies or hangs.

    Every request carries an id and only the answer with that id is taken: an answer from
    a forked copy of the worker, or one left over, is dropped (`stray`).  A worker that
    dies or hangs is located by the dump it wrote (`worker_faults`); what its handler
    forked dies with it (parent-death signal), and its temp dir is removed."""

    def __init__(self, spec: WorkerSpec, index: int = 0, *, wait: bool = True) -> None:
        """`wait=False`: the process starts in the background and is waited for when the
        first request comes (a spare worker made ready while the campaign goes on)."""
        self.spec = spec
        self.index = index
        self.restarts = 0
        self.stray = 0  # answers dropped because their id was not the pending one
        self.info: WorkerInfo | None = None
        self._conn: Connection | None = None
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._dir: str | None = None
        self._starting: tuple[Connection, multiprocessing.process.BaseProcess] | None = None
        self._request_id = 0
        # (id, request) sent and not answered yet, oldest (the one running) first
        self._queue: deque[tuple[int, TestRequest]] = deque()
        self.ran: TestRequest | None = None  # the last test it answered (`kept`)
        self.deadline = 0.0  # the running request's
        self._start()
        if wait:
            self._await_ready()

    def _spawn(self) -> None:
        self._start()
        self._await_ready()

    def _start(self) -> None:
        ctx = worker_context()
        parent, child = ctx.Pipe()
        # named here, made by the worker's janitor (see `start_janitor`: a kill of the whole
        # campaign while the worker starts must not leave the dir behind)
        self._dir = os.path.join(tempfile.gettempdir(), f"lambdafuzz-worker-{secrets.token_hex(6)}")
        # what the worker (and a fork server or resource tracker started now) begins with:
        # nothing of the user's, `/proc/<pid>/environ` included (see `clean_env`)
        environment = worker_environment()
        args = (child, self.spec, self._dir, os.getpid(), environment, user_secrets())
        proc = ctx.Process(target=worker_main, args=args, daemon=True)
        try:
            with campaign_main_hidden(), process_environment(environment):
                try:
                    _start_process(ctx, proc)
                except OSError:  # the fork server could not start it: a new interpreter
                    if ctx.get_start_method() != "forkserver":
                        raise
                    fall_back()
                    ctx = worker_context()
                    proc = ctx.Process(target=worker_main, args=args, daemon=True)
                    _start_process(ctx, proc)
        except BaseException:  # Ctrl-C (given back once the start was over) included
            if proc.pid is not None:
                proc.kill()
                proc.join(5)
            self._remove_dir()
            raise
        child.close()
        self._starting = (parent, proc)

    def _await_ready(self) -> None:
        assert self._starting is not None
        parent, proc = self._starting
        self._starting = None
        try:
            info = await_ready(parent, proc, self.spec.target, STARTUP_TIMEOUT_S)
        except BaseException:  # a failed start leaves no process or pipe behind
            if proc.is_alive():
                proc.kill()
            proc.join(5)
            parent.close()
            self._remove_dir()
            raise
        self._conn, self._proc, self.info = parent, proc, info

    @property
    def conn(self) -> Connection:
        assert self._conn is not None
        return self._conn

    @property
    def pending(self) -> TestRequest | None:
        """The request it runs (the oldest not answered), or None."""
        return self._queue[0][1] if self._queue else None

    @property
    def queued(self) -> int:
        """Requests sent and not answered: the one it runs and those behind it."""
        return len(self._queue)

    def submit(self, request: TestRequest) -> None:
        """Send `request`; behind others, it runs when they are answered."""
        if self._starting is not None:  # started in the background
            self._await_ready()
        elif self._conn is None:  # replaced after a death or hang: start lazily
            self._spawn()
        self._request_id += 1
        if not self._queue:
            self.deadline = time.monotonic() + self._allowed_s(request)
        self._queue.append((self._request_id, request))
        try:
            self.conn.send((self._request_id, request))
        except OSError:
            pass  # it died between tests: `collect` reads the end of the pipe and says so

    def _allowed_s(self, request: TestRequest) -> float:
        return allowed_s(self.spec.target, request)

    def collect(self) -> TestResult | None:
        """The result of the running request once the pipe is readable (or the worker
        dead); None when what was there was a stray answer, and the wait goes on."""
        ident, request = self._queue[0]
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                return self._died(request)
            except Exception as exc:  # noqa: BLE001 - bytes that are no message: a handler wrote them
                return self._died(request, f"garbled answer ({type(exc).__name__})")
            if type(message) is tuple and len(message) == 2 and message[0] == ident:
                self._queue.popleft()
                self.ran = request
                if self._queue:  # the next one starts now
                    self.deadline = time.monotonic() + self._allowed_s(self._queue[0][1])
                return message[1]
            self.stray += 1
            if not self.conn.poll(0):
                return None

    def _resend(self) -> None:
        """The requests queued behind one that killed or hung the worker never started:
        they go to its replacement, in order."""
        waiting = [request for _, request in self._queue]
        self._queue.clear()
        for request in waiting:
            self.submit(request)

    def kept(self, request: TestRequest) -> KeptInput | None:
        """What the worker kept of `request`, the last test it answered
        (`TestRequest.want_recording`); None when it cannot give it (another test since, no
        answer within `RECORDING_WAIT_S`, or dead): the caller regenerates the input.  A
        worker that died meanwhile is found by the next test, as when it dies between
        tests."""
        conn = self._conn
        if self.ran is not request or self.pending is not None or conn is None:
            return None
        self._request_id += 1
        ident = self._request_id
        deadline = time.monotonic() + RECORDING_WAIT_S
        try:
            conn.send((ident, KEPT_RECORDING))
            while conn.poll(max(0.0, deadline - time.monotonic())):
                message = conn.recv()
                if type(message) is tuple and len(message) == 2 and message[0] == ident:
                    kept = message[1]
                    return kept if isinstance(kept, KeptInput) else None
                self.stray += 1
        except Exception:  # noqa: BLE001 - a dead worker or bytes that are no message
            return None
        # still formatting a hostile exception's traceback: the next test starts afresh
        # rather than wait for it and be blamed for a hang
        self._replace()
        return None

    def _died(self, request: TestRequest, garbled: str = "") -> TestResult:
        self._queue.popleft()
        proc = self._proc
        assert proc is not None
        proc.join(2)
        if proc.is_alive():  # the pipe is gone but the process is not: stop it
            proc.kill()
            proc.join(5)
        code = proc.exitcode
        fault = self._fault(hang=False)
        log = read_ring(self._dir) if self._dir is not None else ""
        self._replace()
        cause = f"worker died: {describe_exit(code)}" + (f"; {garbled}" if garbled else "")
        result = _lost_result(
            self.spec, request, Status.FAILURE, cause, fault, detail=_exit_detail(code), log=log
        )
        self._resend()
        return result

    def expire(self) -> TestResult:
        """The pending request ran past its deadline: dump its stacks, kill and replace it."""
        _, request = self._queue.popleft()
        fault = self._hang_fault()
        log = read_ring(self._dir) if self._dir is not None else ""  # drained while it hung
        self._replace()
        timeout = self.spec.target.timeout_s
        cause = f"timed out after {timeout:g} s"
        result = _lost_result(self.spec, request, Status.HANG, cause, fault, log=log)
        self._resend()
        return result

    def _fault(self, *, hang: bool) -> Fault | None:
        if self._dir is None:
            return None
        from lambdafuzz.model.target import app_dirs

        main_thread = self.info.main_thread if self.info is not None else 0
        return read_fault(fault_path(self._dir), app_dirs(self.spec.target), main_thread, hang=hang)

    def _hang_fault(self) -> Fault | None:
        """Ask the hanging worker for its handler's stack, then read it: first with
        `HANG_SIGNAL`, answered in Python at the handler's next bytecode (exact, and safe
        while it resumes generators); when that does not come within `HANG_SOFT_WAIT_S`
        (C code holding the GIL), with SIGUSR1, which faulthandler answers even then."""
        proc = self._proc
        if self._dir is None or proc is None or proc.pid is None or not proc.is_alive():
            return self._fault(hang=True)
        path = fault_path(self._dir)
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n{HANG_MARK}\n")
            start = path.stat().st_size
            os.kill(proc.pid, HANG_SIGNAL)
        except OSError:
            return self._fault(hang=True)
        if not _dump_written(path, start, HANG_SOFT_WAIT_S):
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGUSR1)
            _dump_written(path, start, HANG_DUMP_WAIT_S)
        return self._fault(hang=True)

    @property
    def vacant(self) -> bool:
        """Dead or hung and not started again yet: the next request starts a fresh one."""
        return self._conn is None and self._starting is None and self.pending is None

    def recycle(self) -> None:
        """Replace the worker by a fresh one (started when the next request comes)."""
        if self._conn is not None or self._proc is not None:
            self._replace(count=False)

    def _replace(self, *, count: bool = True) -> None:
        proc = self._proc
        if proc is not None and proc.is_alive():
            proc.kill()
            proc.join(5)
        if proc is not None:  # and what it started, before its replacement runs
            end_worker_cgroup(proc.pid)
        if self._conn is not None:
            self._conn.close()
        self._conn = self._proc = None
        self.ran = None
        self._remove_dir()
        if count:
            self.restarts += 1

    def _remove_dir(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def run(self, request: TestRequest) -> TestResult:
        self.submit(request)
        while True:
            remaining = self.deadline - time.monotonic()
            if self.conn.poll(max(0.0, remaining)):
                result = self.collect()
                if result is not None:
                    return result
            else:
                return self.expire()

    def kill(self) -> None:
        """Stop the process at once, from a thread other than the one waiting on it (a
        background re-run's): that wait ends with the pipe, and its thread closes up."""
        starting = self._starting
        for proc in (self._proc, starting[1] if starting is not None else None):
            if proc is not None and proc.is_alive():
                proc.kill()
            if proc is not None:
                end_worker_cgroup(proc.pid)

    def close(self) -> None:
        if self._starting is not None:  # never used: no need to wait for it
            parent, starting = self._starting
            self._starting = None
            starting.kill()
            starting.join(5)
            parent.close()
        if self._conn is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
        proc = self._proc
        if proc is not None:
            # a test still running (a campaign stopped by Ctrl-C mid-test, a replay
            # interrupted) is dropped: nothing waits for its answer, nor for its end
            proc.join(0 if self._queue else 2)
            if proc.is_alive():
                proc.kill()
                proc.join(2)
            end_worker_cgroup(proc.pid)
        self._queue.clear()
        if self._conn is not None:
            self._conn.close()
        self._conn = self._proc = None
        self._remove_dir()


def _exit_detail(code: int | None) -> str:
    """How a dead worker's failure is keyed: `SIGSEGV`, `exit 3`."""
    if code is None:
        return "unknown"
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


def _dump_written(path: Path, start: int, wait_s: float) -> bool:
    """Whether `path` grows past `start` within `wait_s` and then stops growing (10 ms
    without a write: faulthandler writes a dump in many small writes)."""
    deadline = time.monotonic() + wait_s
    size = start
    while time.monotonic() < deadline:
        time.sleep(0.01)
        try:
            now = path.stat().st_size
        except OSError:
            return False
        if now > start and now == size:
            return True
        size = now
    return size > start


def regenerated_input(spec: WorkerSpec, request: TestRequest) -> KeptInput:
    """What a worker keeps of `request` (`WorkerRuntime.kept_input`), made again in this
    process (generation is pure, see `choices_for`): for a test whose worker no longer
    holds it."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = choices_for(spec, request)
    try:
        world = generate_input(choices, spec.target).world
    except Exception:  # noqa: BLE001 - the recording so far is the input, as in the worker
        return KeptInput(choices.recording())
    return KeptInput(choices.recording(), world_summary_of(world))


def _lost_result(
    spec: WorkerSpec,
    request: TestRequest,
    status: Status,
    cause: str,
    fault: Fault | None = None,
    detail: str = "",
    log: str = "",
) -> TestResult:
    """A result for a test whose worker never answered: its input regenerated locally
    (world and event), located by the worker's last dump when there is one, with the output
    its handler wrote until then (the worker's ring)."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = choices_for(spec, request)
    event = None
    try:
        generated = generate_input(choices, spec.target)
        if request.want_event:
            event = offline_event(generated, spec.target.trigger)
    except Exception:  # noqa: BLE001 - the recording so far is still the input
        pass
    kind = "Hang" if status is Status.HANG else "WorkerDied"
    message = cause
    if fault is not None and fault.what and fault.what != HANG_MARK.removeprefix(MARK):
        message = f"{cause} ({fault.what})"
    stack = fault.stack if fault is not None and fault.stack else ""
    info = FailureInfo(
        exception_type=kind,
        message=message,
        traceback=f"{message}\n{stack}" if stack else message,
        location=fault.location if fault is not None else "",
        detail=detail,
        function=fault.function if fault is not None and status is Status.HANG else "",
    )
    return TestResult(status, choices.recording(), {}, failure=info, event=event, log=log)


def offline_event(generated: GeneratedInput, trigger: Trigger | None = None) -> Any:
    """The event of a generated input rendered without an emulator (for a test whose
    worker died): queue message ids and receipt handles are placeholders; with `trigger`,
    only the records its filters deliver (all of them when none would be)."""
    import hashlib
    import uuid

    from lambdafuzz.generators.aws.delivery import delivered_event
    from lambdafuzz.model.world import DeliveredMessage, LoadedWorld

    messages = {
        queue.name: tuple(
            DeliveredMessage(
                message_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{queue.name}/{i}")),
                receipt_handle=f"offline-receipt-{i}",
                md5_of_body=hashlib.md5(m.body.encode()).hexdigest(),  # noqa: S324 - SQS's own
                body=m.body,
                sent_timestamp_ms=0,
                attributes=m.attributes,
            )
            for i, m in enumerate(queue.messages)
        )
        for queue in generated.world.queues
    }
    event = generated.render_event(LoadedWorld(generated.world, messages=messages))
    delivered = delivered_event(event, trigger) if trigger is not None else None
    return event if delivered is None else delivered


def _start_process(ctx: Any, proc: multiprocessing.process.BaseProcess) -> None:
    """Start a worker's process with SIGINT held where it must be (`_sigint_held`).  A new
    interpreter (spawn) is held for its start; from a fork server, only the server's own
    start is (its workers inherit its mask), not the wait for its first answer (1-2 s of
    imports, during which a Ctrl-C must stop the campaign at once)."""
    from multiprocessing import resource_tracker

    # started first and on its own: its start unblocks SIGINT in this thread when done
    resource_tracker.ensure_running()
    if ctx.get_start_method() != "forkserver":
        with _sigint_held():
            proc.start()
        return
    from multiprocessing import forkserver

    with _sigint_held():
        forkserver.ensure_running()
    proc.start()


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Start a worker with SIGINT held.  Blocked in this thread, it is blocked in what the
    start makes (a worker, the fork server on its first start, each a new interpreter for a
    while): Ctrl-C reaches the whole foreground process group, and none of them may print a
    traceback from the middle of its imports; a worker ignores it from `_serve` on, the fork
    server once it has started.  Not lost here: a Ctrl-C that comes meanwhile is recorded
    and given back to the campaign's own handler once the start is over (with SIG_IGN
    instead, a Ctrl-C during the 1-2 s of the fork server's first start was dropped, and
    the campaign ran its whole budget)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: came.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one pending is recorded now
        signal.signal(signal.SIGINT, previous)  # (signal.signal runs pending handlers first)
        if came:
            signal.raise_signal(signal.SIGINT)
