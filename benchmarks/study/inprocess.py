"""A worker's runtime in this very process, for measurements that need to reach inside a
test (coverage.py around the handler, timing with the collector on and off).

`WorkerRuntime` replaces `os.environ` with the sandbox environment, so call this only in a
process of its own (the study starts one per measurement with `python -m ...`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


def open_runtime(lambda_dir: Path) -> tuple[Any, Any]:
    """(target, runtime) for the lambda whose lambdafuzz.yaml is in `lambda_dir`."""
    from lambdafuzz.config import load_config
    from lambdafuzz.harness.process.protocol import WorkerSpec
    from lambdafuzz.harness.process.runtime import WorkerRuntime

    target = load_config(lambda_dir)
    # no dictionary: saved inputs replay from their recorded values; no memory cap: this
    # process also runs coverage.py, which needs headroom the cap does not plan for
    spec = WorkerSpec(target=target, memory_limit_mb=None)
    return target, WorkerRuntime(spec)


def silence_output(log_path: Path | None) -> None:
    """Send this process's stdout/stderr (handler logging included) to a log file or nowhere."""
    target = str(log_path) if log_path is not None else os.devnull
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def child_env() -> dict[str, str]:
    """Environment for a `python -m benchmarks.study...` child: the repository importable."""
    from benchmarks.study.layout import REPO

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def finished_campaign(engine: Any, on_started: Callable[[], None] | None = None) -> Any:
    """Run a campaign's engine in this process to its end: its `CampaignFinished` event.
    `on_started` is called when its workers are up and its first test is about to run
    (where its `execs_per_sec` starts counting)."""
    from lambdafuzz.fuzzer.events import CampaignFinished, CampaignStarted

    finished = None
    for event in engine.run():
        if isinstance(event, CampaignStarted) and on_started is not None:
            on_started()
        if isinstance(event, CampaignFinished):
            finished = event
    assert finished is not None, "the campaign ended without its CampaignFinished event"
    return finished
