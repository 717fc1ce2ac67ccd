"""A worker answers without the test's recording unless asked for it, and keeps it (with
its world) until its next test: the campaign fetches the few it keeps, with the world's
summary, or regenerates one it cannot fetch."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.world_summary import summarize_recording
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker, regenerated_input

PLANTED = Path(__file__).parents[2] / "fuzzer" / "planted"


@pytest.fixture(scope="module")
def worker():
    made = Worker(WorkerSpec(target=load_target(PLANTED)))
    yield made
    made.close()


def _request(seed: int, *, want: bool) -> TestRequest:
    return TestRequest((), seed, ReplayMode.LINEAR, want_recording=want)


def test_the_answer_comes_without_the_recording_and_the_worker_gives_it_back(worker):
    full = worker.run(_request(11, want=True))
    assert full.recording is not None and len(full.recording) > 0
    request = _request(11, want=False)
    short = worker.run(request)
    assert short.recording is None
    assert (short.status, short.coverage, short.input_digest) == (
        full.status,
        full.coverage,
        full.input_digest,
    )
    kept = worker.kept(request)
    assert kept is not None and kept.recording == full.recording
    # the world the worker generated, summarised as the campaign would from the recording
    assert kept.world is not None and kept.world["buckets"]
    assert kept.world == summarize_recording(full.recording, load_target(PLANTED))
    assert worker.kept(request) == kept  # asked twice: still kept


def test_only_the_last_test_s_recording_is_kept(worker):
    first, second = _request(21, want=False), _request(22, want=False)
    worker.run(first)
    worker.run(second)
    assert worker.kept(first) is None  # another test ran since
    assert worker.kept(second) is not None
    # a test that sent its recording leaves nothing kept
    worker.run(_request(23, want=True))
    assert worker.kept(second) is None


def test_a_regenerated_input_equals_the_kept_one(worker):
    spec = WorkerSpec(target=load_target(PLANTED))
    for seed in (31, 32, 33):
        request = _request(seed, want=False)
        worker.run(request)
        assert regenerated_input(spec, request) == worker.kept(request)


def test_a_worker_that_died_after_its_answer_gives_none_and_the_next_test_goes_on():
    target = load_target(PLANTED)
    worker = Worker(WorkerSpec(target=target))
    try:
        request = _request(41, want=False)
        worker.run(request)
        worker.kill()
        assert worker.kept(request) is None
        worker.run(_request(42, want=True))  # found dead by this test, which starts another
        result = worker.run(_request(43, want=True))
        assert result.recording is not None and worker.restarts == 1
    finally:
        worker.close()


GRADEBOOK = Path(__file__).parents[3] / "benchmarks" / "lambdas" / "gradebook"


def test_a_failure_s_traceback_comes_the_first_time_and_is_formatted_when_asked_for():
    """gradebook fails on most inputs: the answer keys the failure as before; the first
    time the worker meets a signature it carries the traceback (a worker holding two
    requests has moved on when the campaign reads it), a repeat comes with none, and the
    worker formats the same traceback when the campaign asks."""
    worker = Worker(WorkerSpec(target=load_target(GRADEBOOK)))
    try:
        compared, met = 0, set()
        for seed in range(12):
            full = worker.run(_request(seed, want=True))
            if full.failure is None:
                continue
            first = worker.run(_request(seed, want=False))
            assert first.failure is not None and first.recording is None
            assert first.failure.signature == full.failure.signature
            assert first.failure.message == full.failure.message
            new = first.failure.signature not in met
            assert first.failure.traceback == (full.failure.traceback if new else "")
            met.add(first.failure.signature)
            request = _request(seed, want=False)
            repeat = worker.run(request)  # the same signature again
            assert repeat.failure is not None and repeat.failure.traceback == ""
            kept = worker.kept(request)
            assert kept is not None and kept.traceback == full.failure.traceback
            assert "Traceback (most recent call last)" in kept.traceback
            compared += 1
        assert compared >= 5
    finally:
        worker.close()


def test_a_worker_still_formatting_a_traceback_is_replaced_and_the_next_test_runs(monkeypatch):
    """Formatting a hostile exception's traceback outlasts the wait: the campaign goes on
    without it, and the next test runs in a fresh worker instead of being blamed for the
    stuck one."""
    import lambdafuzz.harness.process.worker as worker_module

    monkeypatch.setattr(worker_module, "RECORDING_WAIT_S", 0.5)
    worker = Worker(WorkerSpec(target=load_target(Path(__file__).parent / "slow_traceback")))
    try:
        request = _request(51, want=False)
        failed = worker.run(request)
        assert failed.failure is not None and failed.failure.exception_type.endswith("SlowNotes")
        assert failed.timings.handler_s < 1.0  # nothing was formatted during the test
        assert worker.kept(request) is None and worker.restarts == 1
        after = worker.run(_request(52, want=False))
        assert after.failure is not None and after.failure.exception_type.endswith("SlowNotes")
    finally:
        worker.close()


def test_a_ray_actor_sends_a_failure_new_to_its_worker_with_its_traceback():
    """An actor's worker holds two tests at once, so nothing it kept can be asked for: a
    failure whose signature the worker has not met comes with its traceback, a repeated
    one's answer stays short, and no answer carries its recording (the campaign
    regenerates the few inputs it keeps)."""
    from lambdafuzz.harness.process.ray_pool import WorkerHost

    spec = WorkerSpec(target=load_target(GRADEBOOK))
    host = WorkerHost(spec, str(GRADEBOOK))  # no Ray needed: the actor's body in-process
    try:
        assert host.pool.depth == 2
        requests = [_request(seed, want=False) for seed in range(16)]
        results, _, _ = host.run(requests)
    finally:
        host.close()
    new, repeated = 0, 0
    seen: set[str] = set()
    for result in results:
        assert result.recording is None
        failure = result.failure
        if failure is None:
            continue
        if failure.signature in seen:
            repeated += 1
            assert failure.traceback == ""
            continue
        seen.add(failure.signature)
        new += 1
        assert failure.traceback.startswith("Traceback (most recent call last)")
    assert new >= 2 and repeated >= 1


def test_a_worker_formats_a_bounded_number_of_shapes_per_failure_site():
    """A site whose every message differs (values masking does not recognise) is not a
    traceback per test: the campaign keys such shapes together past ten, and a worker stops
    formatting them past `TRACEBACKS_PER_SITE`; another site's first still is."""
    from dataclasses import replace
    from types import SimpleNamespace

    from lambdafuzz.harness.process.runtime import TRACEBACKS_PER_SITE, WorkerRuntime
    from lambdafuzz.model.outcome import FailureInfo

    runtime = SimpleNamespace(_failed=ValueError("x"), _formatted=set(), _formatted_at={})
    base = FailureInfo(exception_type="ValueError", message="x", traceback="", location="app.py:3")
    first = [
        WorkerRuntime._first_time(runtime, replace(base, shape=f"shape {i}"))
        for i in range(3 * TRACEBACKS_PER_SITE)
    ]
    assert first == [True] * TRACEBACKS_PER_SITE + [False] * (2 * TRACEBACKS_PER_SITE)
    assert not WorkerRuntime._first_time(runtime, replace(base, shape="shape 0"))  # a repeat
    assert WorkerRuntime._first_time(runtime, replace(base, location="other.py:9"))
    runtime._failed = None  # a failure no exception made (an outcome rule): nothing to format
    assert not WorkerRuntime._first_time(runtime, replace(base, location="third.py:1"))
