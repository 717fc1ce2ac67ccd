"""Workers as Ray actors: one campaign's tests spread over the nodes of a Ray cluster.

The campaign (engine, corpus, failures, reports) stays one process, exactly as with local
workers; only where a test runs changes.  Each actor hosts a one-worker `WorkerPool` on
its node, so a test runs there the way it runs locally: in a spawned worker process with
its own emulator and coverage collector, inside the isolation that node grants
(`isolate_worker`), with the same hang deadline, crash dump and janitor.  The actor itself
never imports the handler; it only relays `TestRequest`s and `TestResult`s.

What crosses the network per test: the request (the choice prefix the engine mutated and
a seed, about 1 KB) to the actor, and its result (the coverage map, the event, the
failure if any: about 2 KB) back; a failure's traceback only the first time its worker
meets its signature (`TRACEBACKS_PER_SITE`), the choices a test read never: the campaign
regenerates the few inputs it keeps (`kept`).  The corpus never leaves the campaign:
every request carries its whole input, so a worker sees a new corpus entry as soon as the
engine picks it as a parent, as local workers do.

The handler's code reaches the nodes through the job's runtime environment (`connect`: the
directory holding every campaign's code root as `working_dir`, lambdafuzz itself as a
`py_modules` entry), never through a shared disk: the actor rebases the target's paths onto
where Ray unpacked them, and the campaign maps them back in failure reports.

Tests travel in batches (`BATCH`, `BATCH_S`), `IN_FLIGHT` of them an actor, and the
actor's worker holds two tests at once (`PIPELINE_DEPTH`).  An actor (or its node) that
dies is replaced; its in-flight batches run once more on the replacement and, if lost
too, their tests are counted in `lost` (never as handler failures).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lambdafuzz.errors import BackendError, LambdafuzzError
from lambdafuzz.harness.process.pool import PIPELINE_DEPTH, WorkerPool
from lambdafuzz.harness.process.protocol import (
    TestRequest,
    TestResult,
    WorkerInfo,
    WorkerSpec,
    allowed_s,
)
from lambdafuzz.harness.process.worker import STARTUP_TIMEOUT_S
from lambdafuzz.harness.sandbox.isolation import RayIsolation
from lambdafuzz.model.target import Target

#: Never shipped to the nodes with the code.
EXCLUDED = ("__pycache__", "*.pyc", ".git", ".venv", "out", ".pytest_cache")
#: The directory `connect` shipped as the job's working_dir (None: not connected).
_shipped: Path | None = None
RAY_MISSING = "--ray needs Ray installed: pip install 'lambdafuzz[ray]'"

#: The raylet's setting of its workers' niceness (Ray's default: 15).
WORKER_NICENESS = "RAY_worker_niceness"
#: Ray's switch between a cluster-reachable node address and the loopback one (it is
#: meant for macOS and Windows, where Ray defaults to loopback; "0" there means loopback).
RAY_CLUSTER_ADDRESSES = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: A local cluster's temp dir holds Unix sockets whose paths must fit in 107 bytes; Ray
#: appends about 60 characters (session_<date>_<pid>/sockets/plasma_store) to it.
MAX_TEMP_DIR_CHARS = 45
#: Seconds an actor may take to be placed and to start its worker on top of the worker's
#: own start: Ray sets up the runtime environment (downloads and unpacks the code) first.
PLACEMENT_TIMEOUT_S = 120.0
#: The object store of a local cluster lambdafuzz starts.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024
#: Times a lost test is run: once, and once more on a replacement actor.
ATTEMPTS = 2
#: Most tests sent to an actor in one call: a call's round trip (0.9 ms on one machine, a
#: network's on a cluster) and the campaign's reading of results are paid once a batch.
#: On this 2-core machine (gradebook, 2 actors, 1,500 executions, answers without
#: recordings, `scratch` runs alternated with one local worker): batches of 4 ran 180.0
#: and 187.0 execs/s, of 16 255.2 and 252.2, of 32 205.3 and 201.3 (one local worker:
#: 171.7 and 185.6).  The campaign's own CPU a test fell from 1.02 to 0.56 ms with 16.
#: Up to `IN_FLIGHT` batches an actor are in flight, so a new corpus entry reaches
#: children at most that many tests later, as with AFL's parallel instances that sync far
#: less often.
BATCH = 16
#: Batches an actor holds at once: it runs the next as soon as one ends, while the
#: campaign reads the results and sends another (with one, its worker waited for that
#: round trip every batch: the campaign's wake-up, the next batch's children and Ray's
#: call, and a network's latency on a cluster).  gradebook, 2 actors, 3,000 executions
#: from one seed corpus, alternated (`scratch`): the workers were busy 0.73 of the
#: campaign's time in 4 of 4 campaigns with one, 0.77-0.80 in 4 of 4 with two.
IN_FLIGHT = 2
#: Seconds of tests a batch holds at most (`batch_size`): a slow handler's tests go one or
#: a few at a time, so the end of a `--time` budget waits for two batches of at most this
#: long, not for 32 slow tests, and a lost actor takes fewer tests with it
BATCH_S = 0.1


def batch_size(test_s: float) -> int:
    """Tests in the next batch when a test takes `test_s` seconds in a worker (0: not
    known yet, one test)."""
    if test_s <= 0.0:
        return 1
    return max(1, min(BATCH, int(BATCH_S / test_s)))


def import_ray() -> Any:
    """Ray, or a clear `BackendError` when the extra is not installed."""
    try:
        import ray
    except ImportError as exc:
        raise BackendError(RAY_MISSING) from exc
    return ray


def loopback_only() -> None:
    """Make a local cluster this process starts talk over 127.0.0.1 only.

    On Linux Ray gives a node the address of the machine's outgoing interface, and every
    driver, raylet and worker then connects to that address (seen here: 192.0.2.2), even
    when `127.0.0.1` is asked for (`resolve_ip_for_localhost` maps it back).  Ray's own
    loopback mode, the default on macOS and Windows, is chosen by an environment variable
    read once at import: set for the daemons and workers this process starts, and applied
    to the constant this process read already.  A user's explicit setting is kept."""
    os.environ.setdefault(RAY_CLUSTER_ADDRESSES, "0")
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = ray_constants.env_bool(RAY_CLUSTER_ADDRESSES, True)


def connect(
    address: str | None, temp_dir: Path, code_roots: Sequence[Path], actors: int = 1
) -> str:
    """Join the cluster at `address` (`auto`, `host:port`, `ray://host:port`), or with
    None start (or join) a local one whose sessions and logs go under `temp_dir`, with a
    CPU for each of the `actors` the campaigns will start even beyond the machine's cores
    (as `--workers N` starts N processes whatever the core count).  The job's runtime
    environment ships the directory holding every one of `code_roots` (the functions'
    code) and lambdafuzz to each node.  Returns the cluster's address."""
    ray = import_ray()
    if ray.is_initialized():
        raise BackendError("--ray: this process is connected to a Ray cluster already")
    shipped = Path(os.path.commonpath([str(Path(r).resolve()) for r in code_roots]))
    package = Path(__file__).resolve().parents[1]
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,  # the workers' output is captured per test already
        "configure_logging": False,
        "runtime_env": {
            "working_dir": str(shipped),
            "py_modules": [str(package)],
            "excludes": list(EXCLUDED),
        },
    }
    if address is None:
        # Ray starts its workers at nice 15: beside anything else busy on the machine (a
        # test suite, another campaign) the actors got almost no CPU and every test timed
        # out.  gradebook, 2 actors, 2 cores running two other campaigns: 11 executions
        # in 7 minutes, nearly all hangs, at 15; 60 in 44 s, none, at 0.  The raylet this
        # starts reads it from the environment; a user's own setting is kept.
        os.environ.setdefault(WORKER_NICENESS, "0")
        loopback_only()
        kwargs["_temp_dir"] = str(local_temp_dir(temp_dir))
        # requests and results are KBs: the default store (30% of RAM) reserves far more
        kwargs["object_store_memory"] = LOCAL_OBJECT_STORE_BYTES
        kwargs["num_cpus"] = max(os.cpu_count() or 1, actors)
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise BackendError(f"cannot join the Ray cluster at {address or 'local'}: {exc}") from exc
    global _shipped
    _shipped = shipped
    try:
        return str(ray.get_runtime_context().gcs_address)
    except Exception:  # noqa: BLE001 - a Ray Client connection knows only its own address
        return str(address)


def local_temp_dir(wanted: Path) -> Path:
    """`wanted` when its path is short enough for Ray's sockets; else a short directory
    under the system temp dir, named in a file inside `wanted` so it can be found."""
    wanted = wanted.resolve()
    wanted.mkdir(parents=True, exist_ok=True)
    if len(str(wanted)) <= MAX_TEMP_DIR_CHARS:
        return wanted
    import tempfile

    from lambdafuzz.atomic_files import write_text_atomic

    short = Path(tempfile.mkdtemp(prefix="lf-ray-"))
    # replaced, never written through: a symlink planted there leads nowhere
    write_text_atomic(wanted / "temp-dir.txt", f"{short}\n", real_parent=True)
    return short


def disconnect() -> None:
    global _shipped
    ray = import_ray()
    if ray.is_initialized():
        ray.shutdown()
    _shipped = None


def shipped_root(target: Target) -> str:
    """The target's code root relative to the directory `connect` shipped, '/'-separated."""
    if _shipped is None:
        raise BackendError("--ray: not connected to a Ray cluster (lambdafuzz connects it)")
    root = Path(target.root).resolve()
    if not root.is_relative_to(_shipped):
        raise BackendError(f"--ray: {root} is not under the shipped code directory {_shipped}")
    for layer in target.layers:
        if not Path(layer).resolve().is_relative_to(root):
            raise BackendError(
                f"--ray ships the function's code root {root} to the cluster; its layer "
                f"{layer} lies outside it: move the layer under the code root"
            )
    return root.relative_to(_shipped).as_posix()


def rebase(target: Target, root: Path) -> Target:
    """`target` with its code root (and the layers under it) moved to `root`."""
    old = Path(target.root).resolve()
    layers = tuple(root / Path(layer).resolve().relative_to(old) for layer in target.layers)
    return replace(target, root=root, layers=layers)


# =========================================================================== actor side
class WorkerHost:
    """The body of a worker actor: a one-worker `WorkerPool` on the actor's node."""

    def __init__(self, spec: WorkerSpec, relative_root: str) -> None:
        # Ray unpacked the shipped directory into the working directory
        self.root = str(Path.cwd() / relative_root)
        self.spec = replace(spec, target=rebase(spec.target, Path(self.root)))
        self.last: TestRequest | None = None
        # a handler that cannot be imported is the campaign's error to report, as it would
        # be with a local worker, not a crashed actor
        self.error: LambdafuzzError | None = None
        # the actor is threaded (a re-run runs beside the tests): tests and recycling its
        # worker take turns; a re-run uses spares only
        self._turn = threading.Lock()
        try:
            self.pool = WorkerPool(self.spec, 1, depth=PIPELINE_DEPTH)
        except LambdafuzzError as exc:
            self.error = exc
        else:
            self.pool.warm_spare()  # the first new failure's re-run need not wait for it

    def hello(self) -> tuple[WorkerInfo | None, str, str, LambdafuzzError | None]:
        """The worker's info, where the code is on this node, the node's Ray id, and the
        error that kept the worker from starting, if one did."""
        import ray

        node = ray.get_runtime_context().get_node_id()
        if self.error is not None:
            return None, self.root, node, self.error
        return self.pool.info, self.root, node, None

    def run(self, requests: list[TestRequest]) -> tuple[list[TestResult], int, int]:
        """The results, in order, and the worker's restarts and stray answers so far."""
        if self.error is not None:  # a replacement whose worker could not start
            raise self.error
        with self._turn:
            self.last = requests[-1]
            # one worker answers its requests in the order they were sent
            results = [result for _, result in self.pool.imap(requests)]
            return results, self.pool.restarts, self.pool.stray

    def rerun(self, request: TestRequest) -> TestResult:
        """`request` in a fresh worker (a spare), beside the tests the actor goes on
        running: by then it runs the campaign's next batch already."""
        return self.pool.rerun_later(request).result()

    def recycle(self) -> None:
        with self._turn:
            if self.last is not None:
                self.pool.recycle(self.last)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        if self.error is None:
            self.pool.close()


# =========================================================================== campaign side
@dataclass(slots=True)
class _Batch:
    """Tests sent to an actor in one call, and the call's result to come."""

    ref: Any
    requests: list[TestRequest]
    attempt: int  # 1, or 2 on a replacement actor
    deadline: float  # past it the actor counts as lost (its worker times each test itself)


@dataclass(slots=True)
class _Slot:
    """One actor of the pool and what runs on it."""

    actor: Any
    root: str = ""
    restarts: int = 0  # its worker's, as last reported
    stray: int = 0
    batches: list[_Batch] = field(default_factory=list)  # in flight, oldest first


class RayWorkerPool:
    """The `Pool` protocol over Ray actors (one per worker) spread over the cluster."""

    lost = 0  # tests whose actor was lost twice: counted, never run

    def __init__(self, spec: WorkerSpec, size: int = 1) -> None:
        self.ray = ray = import_ray()
        if not ray.is_initialized():
            raise BackendError("--ray: not connected to a Ray cluster")
        self.spec = spec
        self.root = str(Path(spec.target.root).resolve())
        self._actor_class = ray.remote(WorkerHost).options(
            num_cpus=1,
            max_restarts=0,  # replaced by the pool, which knows the test it was running
            scheduling_strategy="SPREAD",
            # its `IN_FLIGHT` batches queued (run in turn, `WorkerHost._turn`) and a
            # failure's re-run beside them (`rerun_later`)
            max_concurrency=IN_FLIGHT + 1,
        )
        self._relative_root = shipped_root(spec.target)
        self.replaced = 0  # actors lost and replaced
        self.retried = 0  # tests run again after their actor was lost
        self._restarts_gone = 0  # worker restarts of actors that are gone
        self._stray_gone = 0
        self._last: tuple[TestRequest, _Slot] | None = None
        self._test_s = 0.0  # a test's time in a worker, moving average (`batch_size`)
        self._reran_on: dict[int, _Slot] = {}  # id(request) -> its slot, re-run pending
        self.slots: list[_Slot] = []
        try:
            self.slots = [
                _Slot(self._actor_class.remote(spec, self._relative_root))
                for _ in range(max(1, size))
            ]
            hellos = ray.get(
                [s.actor.hello.remote() for s in self.slots],
                timeout=PLACEMENT_TIMEOUT_S + STARTUP_TIMEOUT_S,
            )
        except BaseException as exc:
            self.close()
            raise _setup_error(ray, exc) from None
        for _, _, _, error in hellos:
            if error is not None:
                self.close()
                raise error
        nodes = set()
        for slot, (_, root, node, _) in zip(self.slots, hellos, strict=True):
            slot.root = root
            nodes.add(node)
        first: WorkerInfo = hellos[0][0]
        isolation = RayIsolation(tuple(h[0].isolation for h in hellos), len(nodes))
        self._info = replace(first, isolation=isolation)

    @property
    def info(self) -> WorkerInfo:
        return self._info

    @property
    def restarts(self) -> int:
        return self._restarts_gone + sum(s.restarts for s in self.slots) + self.replaced

    @property
    def stray(self) -> int:
        return self._stray_gone + sum(s.stray for s in self.slots)

    #: its actors keep their tests' recordings (`kept` answers None: they run a batch
    #: ahead, so the campaign regenerates what it keeps)
    keeps_recordings = True

    def warm_spare(self) -> None:
        """Nothing: each actor starts its own spare for the re-runs it is given."""

    def run_again(self, request: TestRequest) -> TestResult:
        """`rerun`: the worker that ran `request` runs another batch by now."""
        return self.rerun(request)

    # ------------------------------------------------------------------ running
    def _submit(self, slot: _Slot, requests: list[TestRequest], attempt: int = 1) -> None:
        """Queue a batch on the slot's actor, which runs it after the ones it holds."""
        # the worker enforces each test's own deadline; this one catches a lost actor or
        # node that Ray has not noticed yet (and a replacement still being placed)
        if slot.batches:
            start = slot.batches[-1].deadline
        else:
            start = (
                time.monotonic()
                + STARTUP_TIMEOUT_S
                + (PLACEMENT_TIMEOUT_S if not slot.root else 0.0)
            )
        deadline = start + sum(allowed_s(self.spec.target, r) for r in requests)
        slot.batches.append(_Batch(slot.actor.run.remote(requests), requests, attempt, deadline))

    def _replace(self, slot: _Slot) -> None:
        """Kill the slot's actor (if Ray has not) and start another, placed anywhere."""
        self._restarts_gone += slot.restarts
        self._stray_gone += slot.stray
        try:
            self.ray.kill(slot.actor, no_restart=True)
        except Exception:  # noqa: BLE001 - already dead
            pass
        slot.actor = self._actor_class.remote(self.spec, self._relative_root)
        slot.root, slot.restarts, slot.stray = "", 0, 0
        self.replaced += 1

    def _finish(self, slot: _Slot, batch: _Batch) -> list[TestResult] | None:
        """The batch's results, or None when its actor was lost (see `_lost`)."""
        ray = self.ray
        try:
            results, restarts, stray = ray.get(batch.ref)
        except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError):
            return self._lost(slot)
        except ray.exceptions.RayTaskError as exc:  # the host itself failed: our bug
            raise BackendError(f"a Ray worker actor failed: {exc}") from None
        slot.batches.remove(batch)
        slot.restarts, slot.stray = restarts, stray
        if not slot.root:
            slot.root = ray.get(slot.actor.hello.remote())[1]
        for result in results:
            timings = result.timings
            took = timings.generate_s + timings.reset_load_s + timings.handler_s
            self._test_s = took if not self._test_s else 0.9 * self._test_s + 0.1 * took
        return [self._mapped(slot, result) for result in results]

    def _lost(self, slot: _Slot) -> None:
        """The slot's actor is gone (or past its deadline): replace it, and send the
        batches it held once more to the replacement (one it answered just before it was
        lost, and the campaign had not read yet, runs again too); a batch lost the second
        time is counted in `lost`."""
        held, slot.batches = slot.batches, []
        self._replace(slot)
        for batch in held:
            if batch.attempt < ATTEMPTS:
                self.retried += len(batch.requests)
                self._submit(slot, batch.requests, batch.attempt + 1)
            else:
                self.lost += len(batch.requests)
        return None

    def _mapped(self, slot: _Slot, result: TestResult) -> TestResult:
        """Failure text names the campaign's copy of the code, not the node's."""
        info = result.failure
        if info is None or not slot.root or slot.root == self.root:
            return result

        def local(text: str) -> str:
            return text.replace(slot.root, self.root)

        info = replace(
            info,
            message=local(info.message),
            traceback=local(info.traceback),
            location=local(info.location),
        )
        return replace(result, failure=info)

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        """Run requests as actors free up; yield (request, result) in completion order.
        A request whose actor is lost twice yields nothing (see `lost`)."""
        ray = self.ray
        source = iter(requests)
        exhausted = False

        def refill() -> None:
            # every actor's first batch before any actor's second
            nonlocal exhausted
            for depth in range(IN_FLIGHT):
                for slot in self.slots:
                    if exhausted or len(slot.batches) > depth:
                        continue
                    batch = []
                    for _ in range(batch_size(self._test_s)):
                        try:
                            batch.append(next(source))
                        except StopIteration:
                            exhausted = True
                            break
                    if batch:
                        self._submit(slot, batch)

        while True:
            refill()
            flying = [(slot, batch) for slot in self.slots for batch in slot.batches]
            if not flying:
                return
            timeout = max(0.0, min(b.deadline for _, b in flying) - time.monotonic())
            ready, _ = ray.wait([b.ref for _, b in flying], num_returns=1, timeout=timeout)
            ready_ids = {r.hex() for r in ready}
            now = time.monotonic()
            for slot, batch in flying:
                if batch not in slot.batches:
                    continue  # sent again after its actor was lost, this round
                if batch.ref.hex() in ready_ids:
                    results = self._finish(slot, batch)
                elif batch.deadline <= now:
                    results = self._lost(slot)
                else:
                    continue
                if results is None:
                    continue
                # the actor runs its other batch meanwhile, and gets its next one before
                # the campaign reads these results (see `IN_FLIGHT`)
                refill()
                for request, result in zip(batch.requests, results, strict=True):
                    self._last = (request, slot)
                    yield request, result

    def kept(self, request: TestRequest) -> None:
        """Nothing: by the time the campaign reads a batch's results, the actor's worker
        runs the next batch, and its kept input is another test's.  The campaign then
        regenerates the input it keeps (generation makes it exact), and a failure new to
        its worker came with its traceback already (`TRACEBACKS_PER_SITE`).  Having
        `kept` at all is what lets the campaign send requests without recordings: with
        every recording and traceback sent back, gradebook's Ray campaigns ran 0.74x one
        local worker; without, 1.01-1.05x (1,500 executions, batches of 4, alternated)."""
        return None

    def rerun(self, request: TestRequest) -> TestResult:
        """Run `request` again in a fresh worker on the actor that ran it (its own spare);
        an actor lost meanwhile: on a replacement."""
        last = self._last
        slot = last[1] if last is not None else self.slots[0]
        for _ in range(ATTEMPTS):
            try:
                result = self.ray.get(slot.actor.rerun.remote(request))
                return self._mapped(slot, result)
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.ObjectLostError):
                self._replace(slot)
        raise BackendError("--ray: the actor re-running a failure was lost twice")

    def rerun_later(self, request: TestRequest) -> _RayRerun:
        """`rerun`, answered in the background: the actor that ran `request` re-runs it
        in one of its spares while the campaign (and that actor) go on."""
        last = self._last
        slot = last[1] if last is not None else self.slots[0]
        self._reran_on[id(request)] = slot
        return _RayRerun(self, slot, slot.actor, request, slot.actor.rerun.remote(request))

    def recycle(self, request: TestRequest) -> None:
        """Replace the worker of the actor that ran `request` (its one worker ran it)."""
        slot = self._reran_on.pop(id(request), None)
        last = self._last
        if slot is None and last is not None and last[0] is request:
            slot = last[1]
        if slot is not None:
            try:
                self.ray.get(slot.actor.recycle.remote())
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.ObjectLostError):
                self._replace(slot)

    def forget(self, request: TestRequest) -> None:
        """`request`'s background re-run is settled."""
        self._reran_on.pop(id(request), None)

    def close(self) -> None:
        ray = self.ray
        closing = []
        for slot in self.slots:
            try:
                closing.append(slot.actor.close.remote())
            except Exception:  # noqa: BLE001
                pass
        if closing:
            try:
                ray.wait(closing, num_returns=len(closing), timeout=10)
            except Exception:  # noqa: BLE001 - a lost actor has nothing to close
                pass
        for slot in self.slots:
            try:
                ray.kill(slot.actor, no_restart=True)
            except Exception:  # noqa: BLE001
                pass


class _RayRerun:
    """A background re-run on an actor, answered as a `concurrent.futures.Future` is
    (`done`, `result`); an actor lost meanwhile re-runs it on a replacement, waited for."""

    def __init__(
        self, pool: RayWorkerPool, slot: _Slot, actor: Any, request: TestRequest, ref: Any
    ) -> None:
        self.pool, self.slot, self.actor, self.request, self.ref = pool, slot, actor, request, ref

    def done(self) -> bool:
        ready, _ = self.pool.ray.wait([self.ref], num_returns=1, timeout=0)
        return bool(ready)

    def result(self) -> TestResult:
        pool, ray = self.pool, self.pool.ray
        try:
            return pool._mapped(self.slot, ray.get(self.ref))
        except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError):
            if self.slot.actor is self.actor:  # not replaced yet by the tests' loss
                pool._replace(self.slot)
            return pool.rerun(self.request)


def _setup_error(ray: Any, exc: BaseException) -> BaseException:
    """The error the campaign reports when the actors could not start their workers."""
    if isinstance(exc, ray.exceptions.RayTaskError):
        cause = exc.cause if getattr(exc, "cause", None) is not None else exc
        if isinstance(cause, Exception) and type(cause).__module__.startswith("lambdafuzz"):
            return cause
        return BackendError(f"a Ray worker actor could not start: {cause}")
    if isinstance(exc, ray.exceptions.GetTimeoutError):
        return BackendError(
            "--ray: the worker actors were not placed and started in time (does the cluster "
            "have a free CPU per --workers?)"
        )
    return exc
