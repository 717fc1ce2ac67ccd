"""What a campaign asks of its workers (`Pool`), and the local pool of worker processes
that does it (`WorkerPool`); `ray_pool.RayWorkerPool` does it with Ray actors."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from multiprocessing.connection import wait
from typing import Protocol

from lambdafuzz.harness.process.protocol import (
    KeptInput,
    TestRequest,
    TestResult,
    WorkerInfo,
    WorkerSpec,
)
from lambdafuzz.harness.process.worker import Worker


class Rerun(Protocol):
    """A re-run answered in the background (`Pool.rerun_later`): a `Future`'s two methods."""

    def done(self) -> bool: ...

    def result(self) -> TestResult: ...


class Pool(Protocol):
    """What a campaign asks of its workers, whichever runs them (`WorkerPool` here,
    `ray_pool.RayWorkerPool` on a cluster, a test's double).  A pool that cannot do
    something says so in its answer (None), never by lacking the method."""

    @property
    def info(self) -> WorkerInfo:
        """What its workers reported when ready (arms, import coverage, isolation)."""
        ...

    @property
    def restarts(self) -> int:
        """Workers started again after dying or hanging."""
        ...

    @property
    def stray(self) -> int:
        """Answers dropped because they were not the one waited for."""
        ...

    @property
    def lost(self) -> int:
        """Tests never run because their worker was lost (Ray: an actor lost twice)."""
        ...

    @property
    def keeps_recordings(self) -> bool:
        """Whether its workers keep each test's recording until asked (`kept`), so requests
        need not carry them back; a pool that does not sends every recording."""
        ...

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        """Run requests as workers free up; (request, result) in completion order."""
        ...

    def kept(self, request: TestRequest) -> KeptInput | None:
        """What the worker that just answered `request` kept of it; None when it cannot
        say (the campaign then regenerates the input)."""
        ...

    def rerun(self, request: TestRequest) -> TestResult | None:
        """`request` run again in a fresh worker (None: this pool cannot re-run)."""
        ...

    def rerun_later(self, request: TestRequest) -> Rerun | None:
        """`rerun` answered in the background (None: only `rerun` can, and waits)."""
        ...

    def run_again(self, request: TestRequest) -> TestResult | None:
        """`request` once more, for another sample of a noisy measure: in the worker that
        just ran it where that is possible, else as `rerun`."""
        ...

    def recycle(self, request: TestRequest) -> None:
        """Replace the worker that ran `request` (its state is suspect)."""
        ...

    def forget(self, request: TestRequest) -> None:
        """`request`'s background re-run is settled."""
        ...

    def warm_spare(self) -> None:
        """Start the first re-run's fresh worker in the background, where there is one."""
        ...

    def close(self) -> None: ...


#: Builds a campaign's pool from the workers' spec and their number.
PoolFactoryT = Callable[[WorkerSpec, int], Pool]


#: Requests a worker of a pool of several holds at once (`WorkerPool.depth`): the one it
#: runs and the next, sent before the campaign has read the last answer, so the worker
#: starts it at once instead of waiting for the campaign to wake up, read the answer and
#: make the next child.  A lone worker holds one (the next child then depends on every
#: answer before it: a seeded campaign is deterministic).  gradebook's tests relayed by a
#: bare `WorkerPool.imap` loop, as a Ray actor relays them (1,500 tests a run, alternated,
#: `scratch`): 3.17-4.45 ms a test holding one (median of 4 runs 3.3), 2.73-3.47 holding
#: two (median of 5 runs 2.84); 2 local workers' busy share 0.80-0.81 -> 0.82-0.85.
PIPELINE_DEPTH = 2


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
    """N workers kept busy from one stream of requests (a `Pool`)."""

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

    #: a local worker lost is started again and its test answered as its death: none lost
    lost = 0
    keeps_recordings = True

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
