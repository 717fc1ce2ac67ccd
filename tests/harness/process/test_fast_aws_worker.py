"""`WorkerSpec.aws_path` reaches the worker: "fast" reuses clients and answers in
`before-call`, "moto" does neither, and the handler's outcome is the same."""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker

APP = Path(__file__).parent / "aws_path_app"


def run(aws_path: str) -> tuple[str, object, str]:
    worker = Worker(WorkerSpec(target=load_config(APP / "lambdafuzz.yaml"), aws_path=aws_path))
    try:
        result = worker.run(TestRequest({}, 7, ReplayMode.EXECUTION_INDEXED, want_log=True))
    finally:
        worker.close()
    return result.status.value, result.failure, result.log


def test_the_worker_takes_the_path_the_spec_names() -> None:
    fast_status, fast_failure, fast_log = run("fast")
    moto_status, moto_failure, moto_log = run("moto")
    assert "same client: True" in fast_log
    assert "same client: False" in moto_log
    assert (fast_status, fast_failure) == (moto_status, moto_failure)
