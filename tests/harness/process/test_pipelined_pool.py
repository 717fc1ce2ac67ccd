"""A worker that holds two requests at once (`WorkerPool.depth`): every request is answered
once, as it is answered run alone, even when the one before it killed or hung the worker
(the queued one never started there: it goes to the replacement)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.pool import WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from lambdafuzz.model.outcome import Status

HERE = Path(__file__).parent / "pipelined"
pytestmark = pytest.mark.timeout(120)


def _spec() -> WorkerSpec:
    return WorkerSpec(target=load_config(HERE / "lambdafuzz.yaml"), memory_limit_mb=256)


def _requests(count: int) -> list[TestRequest]:
    return [TestRequest((), seed, ReplayMode.LINEAR) for seed in range(count)]


def _outcome(result) -> tuple:
    """What must not depend on how the request reached its worker."""
    failure = result.failure
    value = result.return_value if result.status is Status.VALID else ""
    return (result.status, failure.signature if failure else "", "'pid'" in value)


@pytest.fixture(scope="module")
def alone():
    """Each request run by itself in a worker that holds one at a time."""
    worker = Worker(_spec())
    try:
        yield [(request, worker.run(request)) for request in _requests(14)]
    finally:
        worker.close()


def test_the_stream_holds_answers_exits_and_hangs(alone):
    statuses = [result.status for _, result in alone]
    assert Status.VALID in statuses and Status.HANG in statuses
    assert any("worker died" in (r.failure.message if r.failure else "") for _, r in alone)


def test_a_pipelined_worker_answers_each_request_as_it_is_answered_alone(alone):
    pool = WorkerPool(_spec(), 1, depth=2)
    try:
        requests = [request for request, _ in alone]
        answered = list(pool.imap(TestRequest(r.prefix, r.seed, r.mode) for r in requests))
    finally:
        pool.close()
    assert [request.seed for request, _ in answered] == [r.seed for r in requests]  # in order
    assert [_outcome(result) for _, result in answered] == [_outcome(r) for _, r in alone]
    # every exit and hang cost a worker; nothing queued behind one was lost or blamed
    lost = sum(1 for _, r in alone if r.status is not Status.VALID)
    assert pool.restarts == lost


def test_two_workers_hold_two_requests_each_and_answer_each_as_alone(alone):
    pool = WorkerPool(_spec(), 2)
    try:
        assert pool.depth == 2
        requests = [request for request, _ in alone]
        answered = list(pool.imap(TestRequest(r.prefix, r.seed, r.mode) for r in requests))
    finally:
        pool.close()
    by_seed = {request.seed: _outcome(result) for request, result in answered}
    assert len(answered) == len(by_seed) == len(alone)  # each answered once
    assert by_seed == {request.seed: _outcome(result) for request, result in alone}


def test_a_lone_worker_holds_one_request():
    pool = WorkerPool(_spec(), 1)
    try:
        assert pool.depth == 1
    finally:
        pool.close()
