"""Workers survive handlers that hang, exit, or exhaust memory; the campaign goes on."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from lambdafuzz.model.outcome import Status

HERE = Path(__file__).parent / "isolation"


def spec_for(function: str, **changes) -> WorkerSpec:
    target = dataclasses.replace(load_config(HERE / "lambdafuzz.yaml"), handler_function=function)
    return WorkerSpec(target=target, **changes)


def _line(code: str) -> str:
    """`misbehave/handler.py:N` of the line holding `code`."""
    lines = (HERE / "misbehave" / "handler.py").read_text().splitlines()
    return f"misbehave/handler.py:{next(i for i, x in enumerate(lines, 1) if code in x)}"


def request(seed: int = 1) -> TestRequest:
    return TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED)


@pytest.fixture
def closing():
    workers = []
    yield workers.append
    for w in workers:
        w.close()


def test_hang_is_reported_within_timeout_and_next_test_runs(closing):
    worker = Worker(spec_for("sleeps_forever"))
    closing(worker)
    start = time.monotonic()
    result = worker.run(request())
    elapsed = time.monotonic() - start
    assert result.status is Status.HANG
    assert elapsed < 1 + 1.0, elapsed  # timeout_s + 1 s
    assert "timed out" in result.failure.message
    assert len(result.recording) > 0  # the input was regenerated locally, so it can be saved
    assert result.event is not None  # ... and its event rendered
    # the stack was dumped before the kill: the hang is located at the sleeping line, and
    # keyed by its function (a loop is caught on any of its lines)
    assert result.failure.location == _line("time.sleep(1)")
    assert result.failure.signature == "Hang at misbehave/handler.py in sleeps_forever"
    assert result.failure.where == _line("time.sleep(1)")
    assert worker.restarts == 1
    again = worker.run(request(2))
    assert again.status is Status.HANG  # a fresh worker ran the next test


def test_os_exit_is_a_failure_with_its_cause(closing):
    worker = Worker(spec_for("exits_hard"))
    closing(worker)
    result = worker.run(request())
    assert result.status is Status.FAILURE
    assert result.failure.exception_type == "WorkerDied"
    assert "exit status 3" in result.failure.message
    assert result.failure.signature == f"WorkerDied exit 3 at {_line('os._exit(3)')}"
    assert worker.restarts == 1


def test_sys_exit_is_caught_inside_the_worker(closing):
    worker = Worker(spec_for("calls_sys_exit"))
    closing(worker)
    result = worker.run(request())
    assert result.status is Status.FAILURE
    assert result.failure.exception_type == "SystemExit"
    assert result.failure.signature == f"SystemExit 4 at {_line('sys.exit(4)')}"
    assert worker.restarts == 0


def test_unbounded_allocation_is_stopped_by_the_memory_limit(closing):
    worker = Worker(spec_for("allocates_forever", memory_limit_mb=256))
    closing(worker)
    result = worker.run(request())
    assert result.status is Status.FAILURE
    assert result.failure.exception_type in ("MemoryError", "WorkerDied")
    follow_up = worker.run(request(3))
    assert follow_up.status is Status.FAILURE  # the worker (or its replacement) still runs tests


def test_well_behaved_handler_returns_valid_with_coverage(closing):
    worker = Worker(spec_for("returns_ok"))
    closing(worker)
    result = worker.run(request())
    assert result.status is Status.VALID
    assert "'statusCode': 200" in result.return_value
    assert worker.info.app_arms_total > 0


@pytest.mark.parametrize(
    ("function", "expected"),
    [("reaches_internet", "8.8.8.8"), ("uses_profile", "'production'")],
)
def test_sandbox_violations_are_failures_and_the_run_goes_on(closing, function, expected):
    worker = Worker(spec_for(function))
    closing(worker)
    result = worker.run(request())
    assert result.status is Status.FAILURE
    assert result.failure.exception_type == "lambdafuzz.SandboxViolation"
    assert expected in result.failure.message
    assert worker.restarts == 0
    assert worker.run(request(2)).status is Status.FAILURE  # the same worker runs the next test


def _sigint_ignored_in(pid: int) -> bool:
    import signal

    status = Path(f"/proc/{pid}/status").read_text()
    mask = next(line for line in status.splitlines() if line.startswith("SigIgn:")).split()[1]
    return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def _sigint_blocked_in(pid: int) -> bool:
    import signal

    status = Path(f"/proc/{pid}/status").read_text()
    mask = next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1]
    return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def test_processes_started_for_workers_hold_sigint_from_their_first_instruction():
    # Ctrl-C reaches the whole foreground process group: the campaign stops its workers,
    # and a worker must never print a KeyboardInterrupt traceback mid-import.  A new
    # interpreter keeps an inherited signal mask, so the control shows what is inherited;
    # a Ctrl-C to the campaign meanwhile is given back to its handler afterwards.
    import signal
    import subprocess
    import sys

    from lambdafuzz.harness.process.worker import _sigint_held

    # a test run started in the background by a non-interactive shell ignores SIGINT
    # itself, and the control would inherit that: handle it, as a terminal's session does
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    before = signal.getsignal(signal.SIGINT)
    code = ["-c", "import time; time.sleep(30)"]
    given_back = False
    try:
        with _sigint_held():
            started = subprocess.Popen([sys.executable, *code])
            signal.raise_signal(signal.SIGINT)  # held: no KeyboardInterrupt in the start
    except KeyboardInterrupt:
        given_back = True
    control = subprocess.Popen([sys.executable, *code])
    try:
        time.sleep(0.5)
        assert given_back
        assert _sigint_blocked_in(started.pid)
        assert not _sigint_blocked_in(control.pid)
    finally:
        started.kill()
        control.kill()
        started.wait()
        control.wait()
        after = signal.signal(signal.SIGINT, inherited)
    assert after is before  # the campaign keeps its own handler


def test_a_running_worker_ignores_sigint(closing):
    worker = Worker(spec_for("returns_ok"))
    closing(worker)
    assert worker.run(request()).status is Status.VALID
    assert _sigint_ignored_in(worker._proc.pid)
