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

import contextlib
import hashlib
import multiprocessing
import os
import pickle
import resource
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.generators.aws.config_values import placeholder_parameter, placeholder_secret
from lambdafuzz.generators.core import (
    Choice,
    Choices,
    ChoiceSequence,
    PrefixT,
    ReplayMode,
    UnsatisfiedAssumption,
)
from lambdafuzz.harness.measure.handled import HandledException
from lambdafuzz.harness.measure.handler_output import HandlerOutput, read_ring
from lambdafuzz.harness.process.fork_server import (
    adopt_environment,
    campaign_main_hidden,
    fall_back,
    watched_parent,
    worker_context,
)
from lambdafuzz.harness.process.worker_faults import (
    EXIT_ORPHANED,
    EXIT_PIPE_LOST,
    HANG_MARK,
    HANG_SIGNAL,
    MARK,
    Fault,
    FaultGuard,
    exit_now,
    fault_path,
    read_fault,
    start_janitor,
)
from lambdafuzz.harness.process.worker_startup import (
    ImportWatch,
    await_ready,
    describe_exit,
    import_error_message,
)
from lambdafuzz.harness.sandbox.clean_env import process_environment, worker_environment
from lambdafuzz.harness.sandbox.descriptors import high_fd
from lambdafuzz.harness.sandbox.isolation import IsolationState, isolate_worker
from lambdafuzz.harness.sandbox.private_view import user_secrets
from lambdafuzz.harness.sandbox.process_group import (
    contain,
    end_worker_cgroup,
    forget_fork_server,
    make_cgroup,
)
from lambdafuzz.model.batch_delivery import BATCH_KINDS, lambda_json
from lambdafuzz.model.cost import CostMeasures
from lambdafuzz.model.oracle import OracleFinding
from lambdafuzz.model.outcome import EmulatorGap, FailureInfo, Status
from lambdafuzz.model.permissions import PermissionUse
from lambdafuzz.model.redelivery import redelivers
from lambdafuzz.model.target import Target, Trigger, app_dirs
from lambdafuzz.model.world import Bucket, Queue, Table, Topic, World

ArmT = Any  # a stable, picklable branch-arm key (harness.arm_catalog.ArmKey)
CoverageT = Mapping[ArmT, int]  # arm -> AFL hit-count bucket

#: Seconds a new worker may take to import boto3 and moto and start the emulator; the
#: handler's own import then has `Target.import_timeout_s` (see `worker_startup`).
STARTUP_TIMEOUT_S = 120.0
#: Grace on top of the configured timeout before a test counts as a hang.
HANG_GRACE_S = 0.5
#: How long a hanging worker may take to dump its stacks before it is killed.
HANG_DUMP_WAIT_S = 0.5
#: ... and for its Python-level answer to `HANG_SIGNAL` before asking faulthandler: a
#: busy Python loop answers within a switch interval or so.
HANG_SOFT_WAIT_S = 0.2
#: How long the campaign waits for a kept recording (the worker answers it after tidying
#: up from the test, well under a millisecond) before it regenerates the input instead.
RECORDING_WAIT_S = 5.0
#: What the campaign sends for the recording its worker kept of the test it ran last
#: (`TestRequest.want_recording`).  The worker's pickling of every recording cost
#: gradebook 0.20 ms (median; mean 0.33) and survey_upload 0.32 ms (mean 0.40) a test,
#: pickles of 10 and 26 KB (median; 25 and 40 KB mean, up to 440 KB) where the rest of a
#: result is 1.2-1.8 KB and 0.04 ms (zest, seed 0, 600 executions, in-process, timed
#: around `pickle.dumps`); the campaign asks for the few it keeps, ~0.1 ms a round trip.
KEPT_RECORDING = "kept-recording"
#: Requests a worker of a pool of several holds at once (`WorkerPool.depth`): the one it
#: runs and the next, sent before the campaign has read the last answer, so the worker
#: starts it at once instead of waiting for the campaign to wake up, read the answer and
#: make the next child.  A lone worker holds one (the next child then depends on every
#: answer before it: a seeded campaign is deterministic).  gradebook's tests relayed by a
#: bare `WorkerPool.imap` loop, as a Ray actor relays them (1,500 tests a run, alternated,
#: `scratch`): 3.17-4.45 ms a test holding one (median of 4 runs 3.3), 2.73-3.47 holding
#: two (median of 5 runs 2.84); 2 local workers' busy share 0.80-0.81 -> 0.82-0.85.
PIPELINE_DEPTH = 2
#: Failure signatures of one site (type, location, cause) a worker answers with their
#: traceback formatted, the first time it meets each: the campaign keeps the traceback of
#: a failure new to it, and by the time it reads the answer a worker holding two requests
#: runs the next, so it could not format it on request (`kept_input`).  Repeats, and a
#: site's signatures past this many (a message that differs every time: the campaign keys
#: at most 10 shapes of a site), come without: 0.53 ms a failing test on gradebook.
TRACEBACKS_PER_SITE = 11


@dataclass(slots=True, frozen=True)
class WorkerSpec:
    """Everything a worker needs to set itself up; picklable."""

    target: Target
    backend: str = "moto"
    endpoint: str | None = None
    # "fast": with in-process moto, hot AWS operations answered in botocore's before-call
    # and clients reused (`harness.fast_aws`); "moto": botocore's full path for every call
    aws_path: str = "fast"
    dictionary: tuple[str, ...] = ()
    dictionary_p: float = 0.0
    # the code's numbers for integer/float draws, its field names and the edge-value flag (`Choices`): part
    # of how a recording replays, so every process generating for a campaign gets its own
    numbers: tuple[int | float, ...] = ()
    fields: tuple[str, ...] = ()
    key_values: tuple[tuple[str, str], ...] = ()
    edge_values: bool = False
    memory_limit_mb: int | None = None  # address-space headroom above the worker's baseline
    # a file that also gets all handler output (it is captured per test either way, see
    # `handler_output`); None: only the capture
    handler_log: str | None = None
    # the arm total of the campaign's catalog, so workers need not scan the same source
    # again; None: the worker scans it (replays, which hold no catalog)
    app_arms_total: int | None = None
    # measure every test's cost (`model.cost.CostMeasures`: duration, AWS calls, bytes
    # sent, peak memory) and count branch arms exactly: the cost objective's feedback
    cost: bool = False
    # record exceptions the application catches (`harness.handled`): the handled findings
    handled: bool = True
    # check every AWS call against the function's IAM policy (`harness.permission_check`;
    # only when the target has one): the permission oracle
    permissions: bool = True
    # keep the handler's response as Lambda reads it (`TestResult.response`) for an SQS,
    # Kinesis or DynamoDB-stream trigger: the batch oracle reads its batchItemFailures
    batch: bool = True
    # record what each delivery of a test delivered twice changed (`harness.redelivery`;
    # only for a trigger AWS may deliver twice): the idempotency oracle
    idempotency: bool = True
    # where the function's file systems (`Target.file_systems`) live on the host: one
    # folder per mount, `<dir>/<name>`, the same for every worker of the campaign (`OUT/
    # efs`); "": in the worker's own temp dir (a replay's, gone with the worker)
    file_systems_dir: str = ""


@dataclass(slots=True, frozen=True)
class TestRequest:
    __test__ = False  # not a pytest class
    prefix: PrefixT
    seed: int
    mode: ReplayMode = ReplayMode.EXECUTION_INDEXED
    want_event: bool = True  # events are small; saved inputs show the real one
    # the handler's output even when the test does not fail (failures always carry it)
    want_log: bool = False
    # a child's: `input_digest` of its parent's generated input.  A child that generates
    # exactly that input (a zero mutation: the same values read, or other values that make
    # the same world and event) is answered `identical` without loading the world or
    # running the handler
    parent_digest: bytes | None = None
    # False: the answer comes without its recording, which the worker keeps until its next
    # test (`Worker.kept` asks for it).  The campaign needs the recordings of the few
    # tests it keeps, and pickling every one (8-440 KB) cost the worker 0.2-0.4 ms a test
    # (see `KEPT_RECORDING`); with it the worker gives the world's summary and the
    # failure's traceback, which the answer leaves empty (`KeptInput`)
    want_recording: bool = True
    # `Choices.size_scale`: how large fresh sizes are drawn (the campaign's size schedule);
    # a recording replays exactly at any scale
    size_scale: float = 1.0
    # 2: the event is delivered again once the handler returned, as AWS's at-least-once
    # delivery may (`harness.redelivery`; `model.redelivery.deliveries_for` says which)
    deliveries: int = 1


@dataclass(slots=True, frozen=True)
class KeptInput:
    """What the campaign fetches of a test it keeps whose answer went without it: the
    recording, the summary of the world the worker generated from it (None when the
    generation stopped before a world), so the campaign need not generate it again, and the
    traceback of its failure, which the answer left empty."""

    recording: ChoiceSequence
    world: dict[str, Any] | None = None
    # the failure's traceback, formatted when asked for (`TestRequest.want_recording`)
    traceback: str = ""


@dataclass(slots=True, frozen=True)
class Timings:
    generate_s: float = 0.0
    reset_load_s: float = 0.0
    handler_s: float = 0.0


@dataclass(slots=True, frozen=True)
class TestResult:
    __test__ = False  # not a pytest class
    status: Status
    # None: kept in the worker (`TestRequest.want_recording`)
    recording: ChoiceSequence | None
    coverage: CoverageT
    failure: FailureInfo | None = None
    invalid_reason: str = ""
    generator_error: str = ""
    event: Any = None
    timings: Timings = field(default_factory=Timings)
    return_value: str = ""
    log: str = ""  # what the handler printed and logged (failures and `want_log` only)
    # the child generated exactly its parent's input (`TestRequest.parent_digest`): nothing
    # was loaded or run, and `status`, `coverage` and `recording` (empty) mean nothing
    identical: bool = False
    # `input_digest` of what this test generated (b"" when generation stopped early): the
    # parent digest of its children, should it be saved
    input_digest: bytes = b""
    # a failure on an event that names an S3 object the world does not hold (only with
    # `trigger.missing_objects`): the label `consistency.describe` gives it, else ""
    world_inconsistency: str = ""
    # what the handler call cost (`WorkerSpec.cost` only, else None), and the exact counts
    # of the application arms it took more than once
    cost: CostMeasures | None = None
    hit_counts: CoverageT = field(default_factory=dict)
    # exceptions the application caught during the handler call (`harness.handled`),
    # one per signature; they do not change `status`
    handled: tuple[HandledException, ...] = ()
    # what the deployment oracles found (`model.oracle`): calls the role would not allow
    findings: tuple[OracleFinding, ...] = ()
    # what the test's AWS calls needed of the function's policy (permission oracle on only)
    permission_use: PermissionUse | None = None
    # the handler's return value as Lambda's runtime serializes it (JSON-decoded; a string
    # saying why when it cannot be serialized), for the batch triggers only (`WorkerSpec.batch`)
    response: Any = None
    # the summary of the world this test generated, when the worker gave it (`KeptInput`)
    world_summary: dict[str, Any] | None = None
    # how much input it read (`ChoiceSequence.size`), also when its recording is kept in the
    # worker: a bug's variant keeps its smallest input
    input_size: int = 0
    # an exception raised inside the emulator or lambdafuzz (`harness.blame`): the test is
    # INVALID, not a failure of the application
    emulator_gap: EmulatorGap | None = None


@dataclass(slots=True, frozen=True)
class WorkerInfo:
    """What a ready worker reports once."""

    pid: int
    app_arms_total: int
    import_coverage: CoverageT
    isolation: IsolationState | None = None  # what keeps this worker off the network
    import_violations: tuple[str, ...] = ()  # sandbox violations the handler's import swallowed
    main_thread: int = 0  # the thread running the handler, as fault dumps name it


def choices_for(spec: WorkerSpec, request: TestRequest) -> Choices:
    """The choice source of one test: the same in the worker and when the campaign
    regenerates a lost input, which is what makes that regeneration exact."""
    return Choices(
        request.prefix,
        seed=request.seed,
        mode=request.mode,
        dictionary=spec.dictionary,
        dictionary_p=spec.dictionary_p,
        numbers=spec.numbers,
        fields=spec.fields,
        key_values=spec.key_values,
        edge_values=spec.edge_values,
        size_scale=request.size_scale,
    )


def values_digest(choices: Iterable[Choice]) -> bytes:
    """A digest of the values a generation read, the same in every process (the study
    checks with it that it regenerates what a worker read): values are ints, floats, bools,
    bytes and strs, whose repr is exact and tells their types apart.  ~0.05 ms for the
    benchmark lambdas' median input (0.4 ms for the largest, ~1,100 draws)."""
    text = repr([c.value for c in choices])
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def input_digest(generated: Any) -> bytes:
    """A digest of a generated input (its world and event plan), the same in every worker:
    the pickle of frozen dataclasses of tuples, bytes, strings, numbers and dicts built in a
    fixed order (checked across processes with different hash seeds).  Two inputs with equal
    digests are the same test, whichever values made them: a child equal to its parent this
    way is a zero mutation.  ~55-62 us for the benchmark lambdas' median input (50 inputs
    each, pickled 0.9-2.5 KB); the values digest it replaces cost ~50 us and missed the
    children that read other values into the same input (0.3-3.3% of children)."""
    data = pickle.dumps(generated, protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.blake2b(data, digest_size=16).digest()


# =========================================================================== worker side
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
        if spec.aws_path == "fast" and spec.backend == "moto":  # before the handler's import
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
        return KeptInput(recording, _summary(world), text)

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


def allowed_s(target: Target, request: TestRequest) -> float:
    """How long `request` may run before it is a hang: the function's timeout for each
    delivery, and the grace the worker needs to answer."""
    return target.timeout_s * max(1, request.deliveries) + HANG_GRACE_S


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


# =========================================================================== campaign side


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
    return KeptInput(choices.recording(), _summary(world))


def _summary(world: World | None) -> dict[str, Any] | None:
    """`summarize_world`, or None (no world, or summarising it failed: the campaign then
    summarises the input from its recording itself)."""
    from lambdafuzz.model.world_summary import summarize_world

    if world is None:
        return None
    try:
        return summarize_world(world)
    except Exception:  # noqa: BLE001
        return None


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


def offline_event(generated: Any, trigger: Trigger | None = None) -> Any:
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


def _run_once(worker: Worker, request: TestRequest) -> TestResult:
    """`request` in `worker`, which is closed after it (a re-run's spare)."""
    try:
        return worker.run(_whole(request))
    finally:
        worker.close()


def _whole(request: TestRequest) -> TestRequest:
    """A re-run's request: its answer carries the recording and the failure's traceback
    (the worker that ran it may be closed, or run another test, before anyone asks)."""
    return request if request.want_recording else replace(request, want_recording=True)


class WorkerPool:
    """N workers kept busy from one stream of requests."""

    def __init__(self, spec: WorkerSpec, size: int = 1, *, depth: int | None = None) -> None:
        """`depth`: requests each worker holds at once (default: `PIPELINE_DEPTH` with
        several workers, one for a lone worker, whose campaign is then deterministic)."""
        self.spec = spec
        self.depth = depth if depth is not None else (1 if size <= 1 else PIPELINE_DEPTH)
        self.workers: list[Worker] = []
        self._last: tuple[TestRequest, Worker] | None = None  # the last result's worker
        self._spare: Worker | None = None  # a fresh worker for the next re-run
        # re-runs in the background (`rerun_later`): one thread waits on their spares
        self._later: ThreadPoolExecutor | None = None
        self._in_flight: set[Worker] = set()  # spares running a background re-run
        self._ran_by: dict[int, Worker] = {}  # id(request) -> its worker, re-run pending
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

        Each worker holds up to `depth` requests.  With a depth of one the next request is
        pulled only after the previous result was consumed, so a lone worker's campaign is
        deterministic."""
        source = iter(requests)
        exhausted = False
        while True:
            # every worker's first request before any worker's second
            for level in range(self.depth):
                for worker in self.workers:
                    if exhausted or worker.queued > level:
                        continue
                    try:
                        request = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    worker.submit(request)
            busy = [w for w in self.workers if w.queued]
            if not busy:
                return
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = wait([w.conn for w in busy], timeout)
            now = time.monotonic()
            for worker in busy:
                request = worker.pending
                result = worker.collect() if worker.conn in ready else None
                if result is None and worker.deadline <= now:
                    result = worker.expire()
                if result is None:
                    continue  # still running (what it sent was a stray answer)
                assert request is not None
                self._last = (request, worker)
                yield request, result

    def kept(self, request: TestRequest) -> KeptInput | None:
        """What the worker that answered `request` last kept of it (see `Worker.kept`);
        None when there is none to ask."""
        last = self._last
        if last is None or last[0] is not request:
            return None
        return last[1].kept(request)

    def rerun(self, request: TestRequest) -> TestResult:
        """Run `request` again in a fresh worker, one that has run no other test, so
        nothing an earlier test left behind can make the input fail again.

        When the input killed its worker (or hung it), the replacement that starts anyway
        is that fresh worker.  Otherwise it is a spare, started in the background after the
        previous re-run started (or by `warm_spare`; without either the re-run waits for
        one to start); it runs this one input and is discarded, and the worker that ran the
        input first goes on."""
        last = self._last
        if last is not None and last[0] is request and last[1].vacant:
            return last[1].run(_whole(request))
        return _run_once(self._take_spare(), request)

    def _take_spare(self) -> Worker:
        """The spare for a re-run (started now if there is none), and the next one started
        in the background at once: new failures come in bursts.  Both start in the
        caller's thread (the campaign's main thread, where `_sigint_held` applies), a
        background re-run only waits on them."""
        spare = self._spare or Worker(self.spec, -1, wait=False)
        self._spare = Worker(self.spec, -1, wait=False)
        return spare

    def rerun_later(self, request: TestRequest) -> Future[TestResult]:
        """`rerun`, answered in the background while the campaign goes on: a re-run waits
        for its spare's start and its first test (what a fresh worker's first test loads),
        100-500 ms each on gradebook, 3-5 re-runs in a campaign's first 300 executions;
        a hang's re-run waits for the whole timeout.  Always in a spare: a worker the input
        killed or hung starts again for the campaign's next test."""
        last = self._last
        if last is not None and last[0] is request:
            self._ran_by[id(request)] = last[1]
        if self._later is None:
            self._later = ThreadPoolExecutor(1, thread_name_prefix="lambdafuzz-rerun")
        spare = self._take_spare()
        self._in_flight.add(spare)
        future = self._later.submit(_run_once, spare, request)
        future.add_done_callback(lambda _: self._in_flight.discard(spare))
        return future

    def warm_spare(self) -> None:
        """Start the first re-run's fresh worker now, in the background: a campaign's first
        new failures come within its first executions, and each re-run waited for a whole
        worker start (gradebook, 300 executions: 3 re-runs waited 2.9 s of 5.5 s)."""
        if self._spare is None:
            self._spare = Worker(self.spec, -1, wait=False)

    def run_again(self, request: TestRequest) -> TestResult:
        """Run `request` once more in the worker that just ran it (another sample of a
        noisy cost measure: no fresh worker needed); in a fresh one when that worker is
        gone or busy."""
        last = self._last
        if last is not None and last[0] is request and last[1].pending is None:
            return last[1].run(request)  # a dead one is started again first
        return self.rerun(request)

    def recycle(self, request: TestRequest) -> None:
        """Replace the worker that ran `request` by a fresh one (the input failed there and
        not in a fresh worker: that worker's state is suspect)."""
        last = self._last
        worker = self._ran_by.pop(id(request), None)
        if worker is None and last is not None and last[0] is request:
            worker = last[1]
        if worker is not None and worker.pending is None:
            worker.recycle()

    def forget(self, request: TestRequest) -> None:
        """`request`'s background re-run is settled: its worker need not be remembered."""
        self._ran_by.pop(id(request), None)

    @property
    def stray(self) -> int:
        return sum(w.stray for w in self.workers)

    def close(self) -> None:
        if self._later is not None:  # re-runs not waited for: their spares are killed
            for spare in list(self._in_flight):
                spare.kill()
            self._later.shutdown(wait=True, cancel_futures=True)
            self._later = None
        for worker in self.workers:
            worker.close()
        if self._spare is not None:
            self._spare.close()
            self._spare = None
