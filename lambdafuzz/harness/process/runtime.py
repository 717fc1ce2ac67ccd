"""The worker process's side: the in-worker test pipeline (`WorkerRuntime`: reset the
emulator, load the world, invoke the handler under coverage, measure, classify) and the
loop that serves the campaign's requests (`worker_main`).

A handler under fuzzing may hang, call `os._exit`, exhaust memory or crash the
interpreter: each worker is a spawned process that owns one emulator, one coverage
collector and the imported handler, and runs test after test; it is replaced only when it
dies or hangs, so isolation costs one pipe round trip per test.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.generators.aws.config_values import placeholder_parameter, placeholder_secret
from lambdafuzz.generators.core import (
    ChoiceSequence,
    UnsatisfiedAssumption,
)
from lambdafuzz.harness.measure.handler_output import HandlerOutput
from lambdafuzz.harness.process.fork_server import (
    adopt_environment,
    watched_parent,
)
from lambdafuzz.harness.process.protocol import (
    KEPT_RECORDING,
    KeptInput,
    TestRequest,
    TestResult,
    Timings,
    WorkerInfo,
    WorkerSpec,
    choices_for,
    input_digest,
    world_summary_of,
)
from lambdafuzz.harness.process.worker_faults import (
    EXIT_ORPHANED,
    EXIT_PIPE_LOST,
    FaultGuard,
    exit_now,
    start_janitor,
)
from lambdafuzz.harness.process.worker_startup import (
    ImportWatch,
    import_error_message,
)
from lambdafuzz.harness.sandbox.descriptors import high_fd
from lambdafuzz.harness.sandbox.isolation import IsolationState, isolate_worker
from lambdafuzz.harness.sandbox.process_group import (
    contain,
    forget_fork_server,
    make_cgroup,
)
from lambdafuzz.model.batch_delivery import BATCH_KINDS, lambda_json
from lambdafuzz.model.emulation import AwsPath, BackendKind
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.redelivery import redelivers
from lambdafuzz.model.target import Target, app_dirs
from lambdafuzz.model.world import Bucket, Queue, Table, Topic, World

#: Failure signatures of one site (type, location, cause) a worker answers with their
#: traceback formatted, the first time it meets each: the campaign keeps the traceback of
#: a failure new to it, and by the time it reads the answer a worker holding two requests
#: runs the next, so it could not format it on request (`kept_input`).  Repeats, and a
#: site's signatures past this many (a message that differs every time: the campaign keys
#: at most 10 shapes of a site), come without: 0.53 ms a failing test on gradebook.
TRACEBACKS_PER_SITE = 11


class WorkerRuntime:
    """The state of one worker process: env, emulator, collector, handler."""

    def __init__(
        self,
        spec: WorkerSpec,
        watch_import: Callable[[], AbstractContextManager[Any]] = nullcontext,
        *,
        isolation: IsolationState | None = None,
        output: HandlerOutput | None = None,
    ) -> None:
        """`isolation`: what `isolate_worker()` set up in this process; None for a runtime
        in a process that is not a worker (private dirs and the audit guard only).
        `output`: the worker's capture of handler output (None: not captured)."""
        from lambdafuzz.harness.emulator.backends import make_backend
        from lambdafuzz.harness.invoke import import_handler
        from lambdafuzz.harness.measure.coverage import BranchCollector
        from lambdafuzz.harness.measure.traceback_speedups import speed_up_tracebacks
        from lambdafuzz.harness.sandbox.isolation import unisolated
        from lambdafuzz.harness.sandbox.safety import (
            arm,
            next_record,
            refuse_native_code,
            sandbox_env,
        )
        from lambdafuzz.model.target import app_dirs, resolve_env, resolve_policy

        self.spec = spec
        self.output = output
        target = spec.target
        self.isolation = iso = isolation if isolation is not None else unisolated()
        _replace_environ(sandbox_env({}, home=iso.home, tmpdir=iso.tmp_dir))
        self.meter = None
        if spec.cost:  # hooks botocore before the emulator or the handler make a session
            from lambdafuzz.harness.measure.cost_meter import CostMeter

            self.meter = CostMeter()
            self.meter.install()
        self.permissions = None
        if spec.permissions and target.permissions is not None:  # hooks botocore, as above
            from lambdafuzz.harness.oracle.permission_check import PermissionCheck

            self.permissions = PermissionCheck(app_dirs(target), "", "")
            self.permissions.install()
        self.redelivery = None
        if spec.idempotency and redelivers(target.trigger):  # hooks botocore, as above
            from lambdafuzz.harness.oracle.redelivery import Redelivery

            self.redelivery = Redelivery(target)
            self.redelivery.install()
        self.backend = make_backend(spec.backend, spec.endpoint)
        self.backend.start()
        if (
            spec.aws_path == AwsPath.FAST and spec.backend == BackendKind.MOTO
        ):  # before the handler's import
            from lambdafuzz.harness.emulator.fast_aws import install_fast_path

            install_fast_path()
        loaded = self.backend.load(resources_only(target))
        if self.permissions is not None:
            self.permissions.region = loaded.world.region
            self.permissions.account = loaded.world.account_id
            self.permissions.use(resolve_policy(target, loaded))
        extra = {**self.backend.client_env(), **resolve_env(target, loaded)}
        # restored exactly before every test (`_fresh_sandbox`)
        self.env = sandbox_env(extra, home=iso.home, tmpdir=iso.tmp_dir)
        _replace_environ(self.env)
        self._env_data = dict(_environ_data())
        self.app_dirs = app_dirs(target)
        self.collector = BranchCollector(
            self.app_dirs, exact_counts=spec.cost, handled=spec.handled
        )
        self.collector.start()
        if spec.memory_limit_mb:  # hard and soft, before the handler's code runs
            _limit_address_space(spec.memory_limit_mb)
        if output is not None:  # the runtime's root log handler, before the import
            output.install_logging()
        speed_up_tracebacks()  # what the handler logs of the exceptions it catches
        # From here to the worker's exit: no network but loopback, no processes (ctypes
        # too, once the import is done), whichever thread asks.
        import_guard = arm()
        self.collector.begin()
        if self.permissions is not None:  # the import's calls count for the first test
            self.permissions.begin()
        try:
            with watch_import():  # the campaign learns the import started; a hang is reported
                self.handler = import_handler(
                    target.handler_module, target.handler_function, target.root, target.layers
                )
        finally:
            self.import_coverage = dict(self.collector.end().hits)
            if self.permissions is not None:
                self.permissions.pause()
        # restored before every test (`_fresh_sandbox`): where the handler's import left it
        self._cwd = _current_dir() or os.path.abspath(target.root)
        self._cwd_fd = _open_dir(self._cwd)
        refuse_native_code()
        self._guard = next_record()  # violations count for the test during which they happen
        self._tidied = False  # sandbox and emulator already fresh for the next test (`tidy`)
        # the last test's recording and world when its answer went without them
        self._kept: tuple[ChoiceSequence, World | None] | None = None
        self._world: World | None = None  # what the test running now generated
        self._failed: BaseException | None = None  # its failure, traceback not formatted
        self._formatted: set[str] = set()  # signatures answered with their traceback
        self._formatted_at: dict[str, int] = {}  # failure site -> its signatures formatted
        self._threads_at_ready = threading.active_count()  # the worker's own (`ready`)
        self._batch = spec.batch and target.trigger.kind in BATCH_KINDS
        total = spec.app_arms_total
        self.info = WorkerInfo(
            pid=os.getpid(),
            app_arms_total=total if total is not None else self.collector.total_arms(),
            import_coverage=self.import_coverage,
            isolation=iso,
            import_violations=tuple(str(v) for v in import_guard.violations),
        )

    def _fresh_sandbox(self) -> None:
        """Before every test: the sandbox environment exactly as at start (a handler that
        deleted the fake credentials or set AWS_PROFILE affects no later test), the
        working directory the import left (`_restore_cwd`; one getcwd a test, ~1 us), the
        private temp dir and HOME empty.

        Cost: ~23 us a test when the handler left nothing behind (os.environ compared as
        one dict, ~2 us, instead of rewritten, ~180 us; one open + scandir per directory),
        ~0.35-0.5 ms when it left files and changed the environment.  benchmarks/
        throughput.py (zest, 400 executions, 1 worker; 2 cores shared with other jobs, load
        1.3-3.5), 7 alternating rounds without and with this reset, medians: gradebook
        21.5 -> 21.0 execs/s, s3_thumbnail 121.3 -> 116.8 execs/s, inside the rounds' own
        spread (s3_thumbnail 68-170 execs/s)."""
        from lambdafuzz.harness.sandbox.isolation import fresh_dirs

        if _environ_data() != self._env_data:
            _replace_environ(self.env)
        if _current_dir() != self._cwd:  # one getcwd a test (~1 us)
            self._restore_cwd()
        tempfile.tempdir = self.isolation.tmp_dir
        fresh_dirs(self.isolation)

    def _restore_cwd(self) -> None:
        """Back to the working directory the import left (an earlier test changed it, or
        removed the directory it moved to), through a descriptor of it: by its path, a
        directory under a mount the worker covered (a host /tmp under the private one)
        would not be found.  When that directory itself was removed, it is made again
        (empty), else the private temp dir is used; either is said in the log of the test
        that follows (written to the handler's stderr capture)."""
        if self._cwd_fd is not None:
            with contextlib.suppress(OSError):  # closed by the handler: by its path below
                os.fchdir(self._cwd_fd)
            if _current_dir() == self._cwd:
                return
        try:
            os.chdir(self._cwd)
            note = ""
        except OSError as exc:
            try:
                os.makedirs(self._cwd, 0o755, exist_ok=True)
                os.chdir(self._cwd)
                note = f"{self._cwd} was removed by a test ({exc.strerror}): made it again, empty"
            except OSError:
                fallback = self.isolation.tmp_dir or tempfile.gettempdir()
                with contextlib.suppress(OSError):
                    os.chdir(fallback)
                note = f"{self._cwd} was removed by a test and cannot be made again: {fallback}"
                self._cwd = _current_dir() or fallback
        if self._cwd_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._cwd_fd)
        self._cwd_fd = _open_dir(self._cwd)
        if note:
            with contextlib.suppress(OSError):
                os.write(2, f"lambdafuzz: working directory {note}\n".encode())

    def ready(self) -> None:
        """The worker's own threads are all running: any more are the handler's."""
        self._threads_at_ready = threading.active_count()

    def tidy(self) -> None:
        """After a test's answer is sent, while the campaign reads it and picks the next
        test: make the sandbox fresh and empty the emulator, which `run` would do first
        otherwise.  With one worker the two processes take turns, so this takes them off
        the worker's turn: ~0.9 ms of gradebook's (reset 0.68-0.75 ms, sandbox 0.18-0.21
        ms) and ~0.5 ms of survey_upload's machinery a test (timed inside the worker,
        400-600 executions).  What fails here is done again, and reported, by `run`.
        After a test that loaded nothing (a zero mutation, an input refused before loading)
        all is still fresh from the last time: nothing to do (`run` checks for threads)."""
        if self._tidied:
            return
        try:
            self._fresh_sandbox()
            self.backend.reset()
        except Exception:  # noqa: BLE001 - `run` does it again and says what failed
            self._tidied = False
        else:
            self._tidied = True

    def run(self, request: TestRequest) -> TestResult:
        """One test; its recording kept here instead when the request does not want it."""
        self._world = self._kept = self._failed = None
        result = self._run(request)
        failure = result.failure
        if failure is not None and not failure.traceback and self._first_time(failure):
            from lambdafuzz.harness.invoke import traceback_text

            assert self._failed is not None
            failure = replace(failure, traceback=traceback_text(self._failed, self.app_dirs))
            result = replace(result, failure=failure)
        if result.recording is None:
            return result
        result = replace(result, input_size=result.recording.size)
        if request.want_recording:
            return result
        self._kept = (result.recording, self._world)
        return replace(result, recording=None)

    def _first_time(self, failure: FailureInfo) -> bool:
        """Whether this worker meets `failure`'s signature for the first time, within its
        site's `TRACEBACKS_PER_SITE` (an exception it formatted: `_failed` is set)."""
        if self._failed is None or failure.signature in self._formatted:
            return False
        site = failure.site
        count = self._formatted_at.get(site, 0)
        if count >= TRACEBACKS_PER_SITE:
            return False
        self._formatted_at[site] = count + 1
        self._formatted.add(failure.signature)
        return True

    def kept_input(self) -> KeptInput | None:
        """The last test's recording and world summary (`TestRequest.want_recording`);
        summarised only now: the campaign asks for the few inputs it keeps."""
        if self._kept is None:
            return None
        from lambdafuzz.harness.invoke import traceback_text

        recording, world = self._kept
        failed = self._failed
        text = traceback_text(failed, self.app_dirs) if failed is not None else ""
        return KeptInput(recording, world_summary_of(world), text)

    def _run(self, request: TestRequest) -> TestResult:
        from lambdafuzz.generators.aws.delivery import FILTERED_OUT, delivered_event
        from lambdafuzz.generators.aws.events import render_event
        from lambdafuzz.generators.aws.world_generator import generate_input
        from lambdafuzz.harness.invoke import (
            LambdaContext,
            classify_exception,
            classify_return,
            request_id_for,
        )
        from lambdafuzz.harness.sandbox.safety import next_record

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
        self._world = generated.world
        digest = input_digest(generated)
        t1 = time.perf_counter()
        if request.parent_digest == digest:  # a zero mutation: the parent's own input
            return TestResult(
                Status.VALID,
                ChoiceSequence(()),
                {},
                identical=True,
                timings=Timings(t1 - t0),
                input_digest=digest,
            )
        # fresh from `tidy`, unless a thread the handler left running may have written since
        fresh = self._tidied and threading.active_count() <= self._threads_at_ready
        self._tidied = False
        if not fresh:
            self._fresh_sandbox()
        try:
            if not fresh:
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
        delivered = delivered_event(event, target.trigger)
        if delivered is None:  # Lambda would not invoke the handler: invalid, not a failure
            return TestResult(
                Status.INVALID,
                choices.recording(),
                {},
                invalid_reason=FILTERED_OUT,
                event=event if request.want_event else None,
                timings=Timings(t1 - t0, t2 - t1),
                input_digest=digest,
            )
        event = delivered
        context = LambdaContext(
            target.handler_function,
            timeout_s=target.timeout_s,
            memory_mb=target.memory_mb,
            request_id=request_id_for(request.seed),
        )
        collector = self.collector
        failure: FailureInfo | None = None
        return_value = ""
        response = None
        guard = self._guard  # armed since before the import; also what threads did since
        output = self.output
        if output is not None:
            output.begin(context.aws_request_id)
        redelivery = self.redelivery if request.deliveries > 1 else None
        if redelivery is not None:  # delivered twice: the second once the first returned
            redelivery.begin(event)
        meter = self.meter
        collector.begin()
        if meter is not None:
            meter.begin()
        permissions = self.permissions
        if permissions is not None:
            permissions.begin()
        escaped: BaseException | None = None
        failed: BaseException | None = None
        # the traceback is formatted here only when the answer carries the recording: else
        # for the few failures the campaign keeps, when it asks (`kept_input`)
        formatted = request.want_recording
        try:
            try:
                value = self.handler(event, context)
            finally:
                if meter is not None:
                    meter.stop()
                if permissions is not None:
                    permissions.pause()
            status, failure = classify_return(value, target.outcomes)
            return_value = _short_repr(value)
            if self._batch:
                response = lambda_json(value)
            if redelivery is not None and status is Status.VALID and not guard.violations:
                checks = (permissions,) if permissions is not None else ()
                again = redelivery.again(
                    self.handler, context, value, checks, collector, self._fresh_sandbox
                )
                status, failure = classify_return(again, target.outcomes)
            if guard.violations:  # the handler swallowed the refusal; still a violation
                failed = guard.violations[0]
                status, failure = classify_exception(
                    failed, target.outcomes, self.app_dirs, formatted=formatted
                )
        except BaseException as exc:  # noqa: BLE001 - SystemExit included: the handler's, not ours
            escaped = failed = exc
            status, failure = classify_exception(
                exc, target.outcomes, self.app_dirs, formatted=formatted
            )
        gap = None
        if failure is not None and failed is not None and escaped is not None:
            from lambdafuzz.harness.emulator.blame import emulator_gap, unemulated_gap

            # raised by the emulator or lambdafuzz, or explained only by a service lambdafuzz
            # does not emulate: not the application's bug
            gap = emulator_gap(failed, self.app_dirs) or unemulated_gap(
                failure, target, self.isolation.mounts
            )
            if gap is not None:
                status, failure, failed = Status.INVALID, None, None
        if failure is not None and not formatted:
            self._failed = failed  # its frames live until the next test
        branch_hits = collector.end()
        handled = collector.handled.take(escaped) if collector.handled is not None else ()
        escaped = None  # its traceback holds the handler's frames
        coverage = dict(branch_hits.hits)
        cost = None if meter is None else meter.measures(collector.max_hits)
        findings, permission_use = permissions.end() if permissions is not None else ((), None)
        if redelivery is not None:
            findings = (*findings, *redelivery.end())
        log = ""
        if output is not None:
            output.end()
            if status >= Status.FAILURE or request.want_log or handled:
                log = output.text()
        self._guard = next_record()
        inconsistency = ""
        if status >= Status.FAILURE and target.trigger.missing_objects:
            from lambdafuzz.generators.aws.consistency import describe, missing_objects

            inconsistency = describe(missing_objects(event, generated.world))
        t3 = time.perf_counter()
        return TestResult(
            status=status,
            recording=choices.recording(),
            coverage=coverage,
            failure=failure,
            event=event if request.want_event else None,
            timings=Timings(t1 - t0, t2 - t1, t3 - t2),
            return_value=return_value,
            log=log,
            world_inconsistency=inconsistency,
            input_digest=digest,
            cost=cost,
            hit_counts=branch_hits.counts or {},
            handled=handled,
            findings=findings,
            permission_use=permission_use,
            response=response,
            invalid_reason=f"emulator gap: {gap.key}" if gap is not None else "",
            emulator_gap=gap,
        )


def resources_only(target: Target) -> World:
    """The target's buckets, tables, queues and topics with nothing in them, and its
    secrets and parameters with a placeholder where a value is drawn: loaded once at worker
    start so that env references (`${queues.jobs.url}`) resolve before the import, and a
    module that reads its configuration when imported finds it."""
    r = target.resources
    return World(
        buckets=tuple(Bucket(b.name) for b in r.buckets),
        tables=tuple(
            Table(t.name, t.key_schema, stream=t.stream, indexes=t.indexes) for t in r.tables
        ),
        queues=tuple(Queue(q.name, fifo=q.fifo) for q in r.queues),
        topics=tuple(Topic(t.name) for t in r.topics),
        secrets=tuple(placeholder_secret(s) for s in r.secrets),
        parameters=tuple(placeholder_parameter(p) for p in r.parameters),
    )


def _replace_environ(env: Mapping[str, str]) -> None:
    os.environ.clear()
    os.environ.update(env)


def _current_dir() -> str | None:
    """The working directory, None when it was removed."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _open_dir(path: str) -> int | None:
    """A descriptor of directory `path`, out of reach of a handler closing low ones."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    return high_fd(fd)


def _environ_data() -> Mapping[Any, Any]:
    """os.environ as CPython stores it (a plain dict: comparing it costs ~2 us); copy it
    to keep it."""
    data = getattr(os.environ, "_data", None)
    return data if isinstance(data, dict) else dict(os.environ)


def _short_repr(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


#: glibc `mallopt`'s parameter for how many malloc arenas threads may have, and how many
#: the worker's threads share under the address-space cap: each thread's own arena
#: reserves 64 MiB of address space it may never use, so a 256 MiB headroom held 7 threads
#: of a handler that leaves one running per invocation (23 with 2 arenas; measured in a
#: process capped as the worker is). A handler's threads then failed to start as if it had
#: run out of memory, and the more often it was invoked, the sooner.
_M_ARENA_MAX = -8
_ARENAS = 2


def _limit_address_space(headroom_mb: int) -> None:
    """Cap virtual memory at the current size plus `headroom_mb`, so a runaway handler
    gets a MemoryError (or dies) instead of taking the machine down; threads share a few
    malloc arenas, so that what the cap counts is memory the handler asked for."""
    _share_malloc_arenas()
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[0])
    current = pages * os.sysconf("SC_PAGE_SIZE")
    limit = current + headroom_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    # Soft and hard: a lowered hard limit is for good (raising it needs CAP_SYS_RESOURCE,
    # which an isolated worker has dropped), and the guard refuses `resource.setrlimit`.
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _share_malloc_arenas() -> None:
    """At most `_ARENAS` malloc arenas (glibc; elsewhere nothing to do). Before the
    worker refuses native code."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, _ARENAS)
    except (OSError, AttributeError, ImportError):
        pass


def worker_main(
    conn: Connection,
    spec: WorkerSpec,
    worker_dir: str = "",
    parent_pid: int = 0,
    environment: dict[str, str] | None = None,
    hidden: tuple[str, ...] = (),
) -> None:
    """Entry point of a worker process.  `worker_dir` is its temp dir (the campaign names
    and removes it, the janitor makes it), `parent_pid` the campaign it must not outlive
    (see `worker_faults`), `environment` what it kept of the campaign's at the start (see
    `clean_env`), `hidden` the user's paths it must not see (`private_view`).

    Requests arrive as `(request id, TestRequest)` and results leave as `(request id,
    TestResult)`, so the campaign can drop an answer that is not the one it waits for."""
    forget_fork_server()  # before anything is forked: nothing may keep the server alive
    adopt_environment(environment)
    _serve(conn, spec, worker_dir, parent_pid, hidden)
    _end_without_teardown()


def _end_without_teardown() -> None:
    """End a worker that stopped serving without the interpreter's teardown of boto3, moto
    and the handler's modules, which the campaign waits for (`Worker.close` joins it): that
    teardown took 0.7-1.5 s per worker (gradebook, 2 busy cores: close 1.5 s -> 0.05 s,
    scratch timing of 5 tests then close).  What a normal exit does that matters still
    happens: stdio is flushed and the atexit handlers (the sandbox's dirs) run."""
    import atexit
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    atexit._run_exitfuncs()
    exit_now(0)


def file_system_folders(spec: WorkerSpec, worker_dir: str) -> tuple[tuple[str, str], ...]:
    """(host folder, mount path) of each of the target's file systems, the folders made
    (in the campaign's out dir, or the worker's temp dir): never outside them."""
    base = spec.file_systems_dir or (os.path.join(worker_dir, "efs") if worker_dir else "")
    found = []
    for mount in spec.target.file_systems if base else ():
        folder = os.path.join(base, mount.name)
        with contextlib.suppress(OSError):  # unmade: isolation says it was not mounted
            os.makedirs(folder, 0o755, exist_ok=True)
        found.append((folder, mount.path))
    return tuple(found)


def _serve(
    conn: Connection, spec: WorkerSpec, worker_dir: str, parent_pid: int, hidden: tuple[str, ...]
) -> None:
    """The worker's life until the campaign stops it (see `worker_main`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the campaign decides when to stop
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held until now (`_sigint_held`)
    watched = watched_parent(parent_pid)
    if watched is None:  # the campaign ended before this worker started
        exit_now(EXIT_ORPHANED)
    # the worker's own cgroup, where the janitor can kill it (`process_group`)
    cgroup, no_cgroup = make_cgroup(parent_pid) if worker_dir else ("", "no janitor")
    # removes worker_dir if the campaign cannot (and the cgroup, once the worker is gone);
    # forked first, so it stays outside the cgroup
    janitor = start_janitor(worker_dir, parent_pid, cgroup)
    if cgroup and not janitor:  # nobody would remove it after a kill -9
        with contextlib.suppress(OSError):
            os.rmdir(cgroup)
        cgroup, no_cgroup = "", "no janitor to remove a cgroup"
    # from here on, whatever the worker starts dies with each test and with the worker
    descendants = contain({janitor} - {0}, cgroup, no_cgroup)
    # handler stdout/stderr into the per-test capture (its thread starts after isolation)
    output = HandlerOutput.install(worker_dir, spec.handler_log)
    # First, while single-threaded and before boto3, moto or the handler are imported: the
    # namespaces, private /tmp and HOME (isolation.py); `worker_dir` (under the host's /tmp)
    # stays reachable at `isolation.worker_dir`.
    isolation = isolate_worker(
        backend=spec.backend,
        endpoint=spec.endpoint,
        keep_visible=(
            str(spec.target.root),
            *(str(layer) for layer in spec.target.layers),
            *app_dirs(spec.target),
        ),
        worker_dir=worker_dir,
        mounts=file_system_folders(spec, worker_dir),
        hidden=hidden,
    )
    isolation = replace(isolation, descendants=descendants.describe())
    guard = FaultGuard.install(isolation.worker_dir, watched)
    guard.descendants = descendants
    output.start()
    guard.before_fatal = output.salvage
    conn = guard.protect(conn)
    try:
        runtime = WorkerRuntime(
            spec, lambda: ImportWatch(conn, spec.target), isolation=isolation, output=output
        )
    except LambdafuzzError as exc:
        conn.send(("error", type(exc).__name__, import_error_message(exc, spec.target)))
        return
    except BaseException as exc:  # noqa: BLE001
        conn.send(("error", "BackendError", f"worker setup failed: {type(exc).__name__}: {exc}"))
        return
    guard.watch_parent()
    runtime.ready()
    conn.send(("ready", replace(runtime.info, main_thread=threading.get_ident())))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        request_id, request = message
        if request == KEPT_RECORDING:  # asked after the answer of the test it belongs to
            try:
                conn.send((request_id, runtime.kept_input()))
            except OSError as exc:
                guard.note(f"the worker lost its pipe to the campaign ({exc})")
                exit_now(EXIT_PIPE_LOST)
            continue
        try:
            result = runtime.run(request)
        except BaseException as exc:  # noqa: BLE001 - our bug or a handler that broke us
            guard.after_test()
            guard.note(f"the worker failed: {type(exc).__name__}", exc)
            exit_now(1)
        guard.after_test()  # a forked copy of the worker ends here, before it can answer
        try:
            conn.send((request_id, result))
        except OSError as exc:  # the handler closed the pipe
            guard.note(f"the worker lost its pipe to the campaign ({exc})")
            exit_now(EXIT_PIPE_LOST)
        try:
            runtime.tidy()
        except BaseException as exc:  # noqa: BLE001 - a handler's thread that broke the emulator
            guard.note(f"the worker failed: {type(exc).__name__}", exc)
            exit_now(1)
