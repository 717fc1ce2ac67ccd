"""Running the study's campaigns: one `lambdafuzz fuzz` process each, several at a time.

Each campaign runs in its own process (and the engine starts its one worker process), so a
handler that misbehaves, or a leak, stays inside one run.  A run counts as finished only
when its `done` marker says so: the marker is written after the process exited normally
(status 0 or 1, "failures found") and `stats.json` shows the whole budget spent.  Anything
else in a run directory is a leftover of an interrupted run and is removed before it is
redone, because the engine would otherwise *resume* from it and the run would no longer
replay from its seed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from benchmarks.study.layout import REPO, Budget, RunSpec

DONE_MARKER = "done"
LOG_NAME = "run.log"
#: A time budget counts as spent at this share: the engine stops on its first check past it.
SECONDS_SLACK = 0.98


@dataclass(slots=True, frozen=True)
class RunOutcome:
    """What happened to one run in this invocation."""

    spec: RunSpec
    status: str  # "done" (ran now), "cached" (finished earlier), "failed"
    wall_s: float = 0.0
    message: str = ""


def command(spec: RunSpec, budget: Budget, results: Path) -> list[str]:
    """The exact command line of one campaign (also printed in reports)."""
    return [
        sys.executable,
        "-m",
        "lambdafuzz",
        "fuzz",
        str(spec.lambda_dir),
        "--strategy",
        spec.strategy,
        "--seed",
        str(spec.seed),
        *budget.cli_args(),
        "--out",
        str(spec.out_dir(results)),
        "--workers",
        "1",
        "--quiet",
    ]


def budget_spent(stats: dict, budget: Budget) -> bool:
    """Whether a campaign's final stats show the whole budget used (not an early stop)."""
    if budget.execs is not None:
        return int(stats.get("execs", 0)) >= budget.execs
    assert budget.seconds is not None
    return float(stats.get("elapsed_s", 0.0)) >= SECONDS_SLACK * budget.seconds


def is_done(spec: RunSpec, budget: Budget, results: Path) -> bool:
    """A finished run of exactly this spec and budget exists."""
    out = spec.out_dir(results)
    try:
        marker = json.loads((out / DONE_MARKER).read_text())
        stats = json.loads((out / "stats.json").read_text())
    except (OSError, ValueError):
        return False
    if Budget.from_json(marker.get("budget", {})) != budget or marker.get("seed") != spec.seed:
        return False
    return budget_spent(stats, budget) and stats.get("strategy") == spec.strategy


class Runner:
    """Runs a list of campaigns with up to `jobs` at once; skips finished ones."""

    def __init__(
        self,
        results: Path,
        budget: Budget,
        *,
        jobs: int,
        timeout_s: float | None = None,
        on_outcome: Callable[[RunOutcome, int, int], None] | None = None,
    ) -> None:
        self.results = results
        self.budget = budget
        self.jobs = max(1, jobs)
        self.timeout_s = timeout_s
        self.on_outcome = on_outcome
        self._stop = threading.Event()

    def run(self, specs: Sequence[RunSpec]) -> list[RunOutcome]:
        outcomes: list[RunOutcome] = []
        todo = []
        for spec in specs:
            if is_done(spec, self.budget, self.results):
                outcomes.append(RunOutcome(spec, "cached"))
            else:
                todo.append(spec)
        total = len(specs)
        for outcome in outcomes:
            self._report(outcome, len(outcomes), total)
        finished = len(outcomes)
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = [pool.submit(self._run_one, spec) for spec in todo]
            try:
                for future in as_completed(futures):
                    outcome = future.result()
                    outcomes.append(outcome)
                    finished += 1
                    self._report(outcome, finished, total)
            except KeyboardInterrupt:
                # Children got the same SIGINT and stop early; none of them is marked done.
                self._stop.set()
                for future in futures:
                    future.cancel()
                raise
        return outcomes

    def _report(self, outcome: RunOutcome, finished: int, total: int) -> None:
        if self.on_outcome is not None:
            self.on_outcome(outcome, finished, total)

    def _run_one(self, spec: RunSpec) -> RunOutcome:
        if self._stop.is_set():
            return RunOutcome(spec, "failed", message="study interrupted")
        out = spec.out_dir(self.results)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        cmd = command(spec, self.budget, self.results)
        env = dict(os.environ, PYTHONHASHSEED="0")
        start = time.monotonic()
        with open(out / LOG_NAME, "w") as log:
            log.write(" ".join(cmd) + "\n")
            log.flush()
            try:
                proc = subprocess.run(
                    cmd,
                    cwd=REPO,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=self.timeout_s,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return RunOutcome(spec, "failed", time.monotonic() - start, "timed out")
        wall = time.monotonic() - start
        if self._stop.is_set():
            return RunOutcome(spec, "failed", wall, "study interrupted")
        if proc.returncode not in (0, 1):
            return RunOutcome(
                spec, "failed", wall, f"exit status {proc.returncode}; see {out / LOG_NAME}"
            )
        try:
            stats = json.loads((out / "stats.json").read_text())
        except (OSError, ValueError) as exc:
            return RunOutcome(spec, "failed", wall, f"no stats.json: {exc}")
        if not budget_spent(stats, self.budget):
            return RunOutcome(spec, "failed", wall, "stopped before the budget was spent")
        marker = {
            "budget": self.budget.to_json(),
            "seed": spec.seed,
            "strategy": spec.strategy,
            "lambda": spec.lambda_name,
            "exit_status": proc.returncode,
            "wall_s": round(wall, 2),
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (out / DONE_MARKER).write_text(json.dumps(marker, indent=1) + "\n")
        return RunOutcome(spec, "done", wall)
