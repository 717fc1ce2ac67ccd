"""Workers on the misbehaving handlers of `misbehave/`, summarised in picklable form so a
probe can run them inside `netns_probe.run_in_netns` and hand the outcome to the test."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def spec(module: str, function: str, **changes: Any) -> Any:
    """A WorkerSpec for `misbehave.<module>.<function>`."""
    from lambdafuzz.config import load_config
    from lambdafuzz.harness.process.protocol import WorkerSpec

    target = load_config(HERE / "lambdafuzz.yaml")
    target = dataclasses.replace(
        target, handler_module=f"misbehave.{module}", handler_function=function
    )
    return WorkerSpec(target=target, **changes)


def request(seed: int) -> Any:
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.protocol import TestRequest

    return TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED)


def summary(result: Any) -> dict[str, Any]:
    failure = result.failure
    return {
        "status": result.status.name,
        "type": failure.exception_type if failure is not None else "",
        "message": failure.message if failure is not None else "",
        "value": result.return_value,
    }


def probe_worker(
    module: str,
    function: str,
    runs: int,
    pause_s: float = 0.0,
    env: dict[str, str] | None = None,
    **changes: Any,
) -> dict[str, Any]:
    """Start a worker on `misbehave.<module>.<function>` (with `env` in the campaign's
    environment, `changes` to its WorkerSpec) and run `runs` tests: each test's outcome,
    the isolation it reported, and whether its private host directory outlived it."""
    from lambdafuzz.errors import LambdafuzzError
    from lambdafuzz.harness.process.worker import Worker

    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        worker = Worker(spec(module, function, **changes))
    except LambdafuzzError as exc:
        return {"setup_error": f"{type(exc).__name__}: {exc}"}
    finally:  # the worker copied the environment when it started
        os.environ.clear()
        os.environ.update(saved)
    info = worker.info
    try:
        results = []
        for seed in range(runs):
            results.append(summary(worker.run(request(seed))))
            time.sleep(pause_s)
    finally:
        worker.close()
    isolation = info.isolation
    host_dir = isolation.host_dir if isolation is not None else None
    return {
        "results": results,
        "isolation": isolation.to_json() if isolation is not None else None,
        "describe": isolation.describe() if isolation is not None else "",
        "import_violations": list(info.import_violations),
        "host_dir_left": bool(host_dir and os.path.exists(host_dir)),
    }
