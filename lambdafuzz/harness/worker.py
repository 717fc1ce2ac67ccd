"""Tests run in persistent worker processes; the campaign process only decides.

A handler under fuzzing may hang, call `os._exit`, exhaust memory or crash the
interpreter.  Each worker is a spawned process that owns one emulator, one coverage
collector and the imported handler, and runs test after test; it is replaced only when it
dies or hangs, so isolation costs one pipe round trip per test.  The campaign keeps the
corpus and every saved file, so nothing a worker does can lose them.

The worker regenerates the input from `(prefix, seed)`: generation is pure, so when a
worker dies mid-test the campaign regenerates the same input locally to save it.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.generators.core import (
    Choices,
    ChoiceSequence,
    PrefixT,
    ReplayMode,
    UnsatisfiedAssumption,
)
from lambdafuzz.harness.worker_startup import ImportWatch, await_ready, import_error_message
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import Target
from lambdafuzz.model.world import Bucket, Queue, Table, Topic, World

ArmT = Any  # a stable, picklable branch-arm key (harness.arm_catalog.ArmKey)
CoverageT = Mapping[ArmT, int]  # arm -> AFL hit-count bucket

#: Seconds a new worker may take to import boto3 and moto and start the emulator; the
#: handler's own import then has `Target.import_timeout_s` (see `worker_startup`).
STARTUP_TIMEOUT_S = 120.0
#: Grace on top of the configured timeout before a test counts as a hang.
HANG_GRACE_S = 0.5


@dataclass(slots=True, frozen=True)
class WorkerSpec:
    """Everything a worker needs to set itself up; picklable."""

    target: Target
    backend: str = "moto"
    endpoint: str | None = None
    dictionary: tuple[str, ...] = ()
    dictionary_p: float = 0.0
    memory_limit_mb: int | None = None  # address-space headroom above the worker's baseline
    handler_log: str | None = None  # where handler stdout/stderr go (default: /dev/null)
    # the arm total of the campaign's catalog, so workers need not scan the same source
    # again; None: the worker scans it (replays, which hold no catalog)
    app_arms_total: int | None = None


@dataclass(slots=True, frozen=True)
class TestRequest:
    __test__ = False  # not a pytest class
    prefix: PrefixT
    seed: int
    mode: ReplayMode = ReplayMode.EXECUTION_INDEXED
    want_event: bool = True  # events are small; saved inputs show the real one


@dataclass(slots=True, frozen=True)
class Timings:
    generate_s: float = 0.0
    reset_load_s: float = 0.0
    handler_s: float = 0.0


@dataclass(slots=True, frozen=True)
class TestResult:
    __test__ = False  # not a pytest class
    status: Status
    recording: ChoiceSequence
    coverage: CoverageT
    failure: FailureInfo | None = None
    invalid_reason: str = ""
    generator_error: str = ""
    event: Any = None
    timings: Timings = field(default_factory=Timings)
    return_value: str = ""


@dataclass(slots=True, frozen=True)
class WorkerInfo:
    """What a ready worker reports once."""

    pid: int
    app_arms_total: int
    import_coverage: CoverageT


def choices_for(spec: WorkerSpec, request: TestRequest) -> Choices:
    """The choice source of one test: the same in the worker and when the campaign
    regenerates a lost input, which is what makes that regeneration exact."""
    return Choices(
        request.prefix,
        seed=request.seed,
        mode=request.mode,
        dictionary=spec.dictionary,
        dictionary_p=spec.dictionary_p,
    )


# =========================================================================== worker side
class WorkerRuntime:
    """The state of one worker process: env, emulator, collector, handler."""

    def __init__(
        self,
        spec: WorkerSpec,
        watch_import: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ) -> None:
        from lambdafuzz.harness.backends import make_backend
        from lambdafuzz.harness.coverage import BranchCollector
        from lambdafuzz.harness.invoke import import_handler
        from lambdafuzz.harness.safety import sandbox_env
        from lambdafuzz.model.target import app_dirs, resolve_env

        self.spec = spec
        target = spec.target
        _replace_environ(sandbox_env({}))
        self.backend = make_backend(spec.backend, spec.endpoint)
        self.backend.start()
        loaded = self.backend.load(resources_only(target))
        _replace_environ(sandbox_env({**self.backend.client_env(), **resolve_env(target, loaded)}))
        self.app_dirs = app_dirs(target)
        self.collector = BranchCollector(self.app_dirs)
        self.collector.start()
        self.collector.begin()
        try:
            with watch_import():  # the campaign learns the import started; a hang is reported
                self.handler = import_handler(
                    target.handler_module, target.handler_function, target.root
                )
        finally:
            self.import_coverage = dict(self.collector.end().hits)
        if spec.memory_limit_mb:
            _limit_address_space(spec.memory_limit_mb)
        total = spec.app_arms_total
        self.info = WorkerInfo(
            pid=os.getpid(),
            app_arms_total=total if total is not None else self.collector.total_arms(),
            import_coverage=self.import_coverage,
        )

    def run(self, request: TestRequest) -> TestResult:
        from lambdafuzz.generators.aws.events import render_event
        from lambdafuzz.generators.aws.world_generator import generate_input
        from lambdafuzz.harness.invoke import (
            LambdaContext,
            classify_exception,
            classify_return,
            request_id_for,
        )
        from lambdafuzz.harness.safety import armed

        spec = self.spec
        target = spec.target
        t0 = time.perf_counter()
        choices = choices_for(spec, request)
        try:
            generated = generate_input(choices, target)
        except UnsatisfiedAssumption as exc:
            return TestResult(Status.INVALID, choices.recording(), {}, invalid_reason=str(exc))
        except Exception as exc:  # noqa: BLE001 - a generator bug must not kill the campaign
            return TestResult(
                Status.INVALID,
                choices.recording(),
                {},
                generator_error=f"{type(exc).__name__}: {exc}",
            )
        t1 = time.perf_counter()
        try:
            self.backend.reset()
            # only the trigger queue's messages are in flight (as Lambda's poller leaves them)
            loaded = self.backend.load(
                generated.world, receive=tuple(generated.event.received_messages())
            )
            event = render_event(generated.event, loaded)
        except Exception as exc:  # noqa: BLE001 - a world the emulator refuses is our bug, not the handler's
            return TestResult(
                Status.INVALID,
                choices.recording(),
                {},
                generator_error=f"loading the world failed: {type(exc).__name__}: {exc}",
            )
        t2 = time.perf_counter()
        context = LambdaContext(
            target.handler_function,
            timeout_s=target.timeout_s,
            memory_mb=target.memory_mb,
            request_id=request_id_for(request.seed),
        )
        collector = self.collector
        failure: FailureInfo | None = None
        return_value = ""
        collector.begin()
        try:
            with armed() as guard:
                value = self.handler(event, context)
            status, failure = classify_return(value, target.outcomes)
            return_value = _short_repr(value)
            if guard.violations:  # the handler swallowed the refusal; still a violation
                status, failure = classify_exception(
                    guard.violations[0], target.outcomes, self.app_dirs
                )
        except BaseException as exc:  # noqa: BLE001 - SystemExit included: the handler's, not ours
            status, failure = classify_exception(exc, target.outcomes, self.app_dirs)
        coverage = dict(collector.end().hits)
        t3 = time.perf_counter()
        return TestResult(
            status=status,
            recording=choices.recording(),
            coverage=coverage,
            failure=failure,
            event=event if request.want_event else None,
            timings=Timings(t1 - t0, t2 - t1, t3 - t2),
            return_value=return_value,
        )


def resources_only(target: Target) -> World:
    """The target's buckets, tables, queues and topics with nothing in them: loaded once at
    worker start so that env references (`${queues.jobs.url}`) resolve before the import."""
    r = target.resources
    return World(
        buckets=tuple(Bucket(b.name) for b in r.buckets),
        tables=tuple(Table(t.name, t.key_schema, stream=t.stream) for t in r.tables),
        queues=tuple(Queue(q.name, fifo=q.fifo) for q in r.queues),
        topics=tuple(Topic(t.name) for t in r.topics),
    )


def _replace_environ(env: Mapping[str, str]) -> None:
    os.environ.clear()
    os.environ.update(env)


def _short_repr(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _limit_address_space(headroom_mb: int) -> None:
    """Cap virtual memory at the current size plus `headroom_mb`, so a runaway handler
    gets a MemoryError (or dies) instead of taking the machine down."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[0])
    current = pages * os.sysconf("SC_PAGE_SIZE")
    limit = current + headroom_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _redirect_output(path: str | None) -> None:
    target = path or os.devnull
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def worker_main(conn: Connection, spec: WorkerSpec) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the campaign decides when to stop
    _redirect_output(spec.handler_log)
    try:
        runtime = WorkerRuntime(spec, lambda: ImportWatch(conn, spec.target))
    except LambdafuzzError as exc:
        conn.send(("error", type(exc).__name__, import_error_message(exc, spec.target)))
        return
    except BaseException as exc:  # noqa: BLE001
        conn.send(("error", "BackendError", f"worker setup failed: {type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", runtime.info))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        conn.send(runtime.run(request))


# =========================================================================== campaign side


class Worker:
    """The campaign's handle on one worker process; restarts it when it dies or hangs."""

    def __init__(self, spec: WorkerSpec, index: int = 0) -> None:
        self.spec = spec
        self.index = index
        self.restarts = 0
        self.info: WorkerInfo | None = None
        self._conn: Connection | None = None
        self._proc: multiprocessing.process.BaseProcess | None = None
        self.pending: TestRequest | None = None
        self.deadline = 0.0
        self._spawn()

    def _spawn(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker_main, args=(child, self.spec), daemon=True)
        proc.start()
        child.close()
        try:
            info = await_ready(parent, proc, self.spec.target, STARTUP_TIMEOUT_S)
        except BaseException:  # a failed start leaves no process or pipe behind
            if proc.is_alive():
                proc.kill()
            proc.join(5)
            parent.close()
            raise
        self._conn, self._proc, self.info = parent, proc, info

    @property
    def conn(self) -> Connection:
        assert self._conn is not None
        return self._conn

    def submit(self, request: TestRequest) -> None:
        if self._conn is None:  # replaced after a death or hang: start lazily
            self._spawn()
        self.pending = request
        self.deadline = time.monotonic() + self.spec.target.timeout_s + HANG_GRACE_S
        self.conn.send(request)

    def collect(self) -> TestResult:
        """The result of the pending request, which must be ready (or the worker dead)."""
        request = self.pending
        assert request is not None
        self.pending = None
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            assert self._proc is not None
            self._proc.join(2)
            cause = _describe_exit(self._proc.exitcode)
            self._replace()
            return _lost_result(self.spec, request, Status.FAILURE, f"worker died: {cause}")

    def expire(self) -> TestResult:
        """The pending request ran past its deadline: kill and replace the worker."""
        request = self.pending
        assert request is not None
        self.pending = None
        self._replace()
        timeout = self.spec.target.timeout_s
        return _lost_result(self.spec, request, Status.HANG, f"timed out after {timeout:g} s")

    def _replace(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._conn = self._proc = None
        self.restarts += 1

    def run(self, request: TestRequest) -> TestResult:
        self.submit(request)
        remaining = self.deadline - time.monotonic()
        if self.conn.poll(max(0.0, remaining)):
            return self.collect()
        return self.expire()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
        if self._proc is not None:
            self._proc.join(2)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(2)


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _lost_result(spec: WorkerSpec, request: TestRequest, status: Status, cause: str) -> TestResult:
    """A result for a test whose worker never answered: regenerate its input locally."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = choices_for(spec, request)
    try:
        generate_input(choices, spec.target)
    except Exception:  # noqa: BLE001 - the recording so far is still the input
        pass
    kind = "Hang" if status is Status.HANG else "WorkerDied"
    info = FailureInfo(exception_type=kind, message=cause, traceback=cause, location="")
    return TestResult(status, choices.recording(), {}, failure=info)


class WorkerPool:
    """N workers kept busy from one stream of requests."""

    def __init__(self, spec: WorkerSpec, size: int = 1) -> None:
        self.spec = spec
        self.workers: list[Worker] = []
        try:
            for i in range(max(1, size)):
                self.workers.append(Worker(spec, i))
        except BaseException:
            self.close()
            raise

    @property
    def info(self) -> WorkerInfo:
        info = self.workers[0].info
        assert info is not None
        return info

    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self.workers)

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        """Run requests as workers free up; yield (request, result) in completion order.

        With one worker this is strictly sequential: the next request is pulled only after
        the previous result was consumed, so a campaign is deterministic."""
        source = iter(requests)
        exhausted = False
        idle = list(self.workers)
        busy: list[Worker] = []
        while True:
            while idle and not exhausted:
                try:
                    request = next(source)
                except StopIteration:
                    exhausted = True
                    break
                worker = idle.pop()
                worker.submit(request)
                busy.append(worker)
            if not busy:
                return
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = wait([w.conn for w in busy], timeout)
            now = time.monotonic()
            for worker in list(busy):
                if worker.conn in ready:
                    request = worker.pending
                    result = worker.collect()
                elif worker.deadline <= now:
                    request = worker.pending
                    result = worker.expire()
                else:
                    continue
                busy.remove(worker)
                idle.append(worker)
                assert request is not None
                yield request, result

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
