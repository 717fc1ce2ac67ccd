"""All-code coverage (application plus libraries, the SpotOn paper's Table III), measured
after a campaign by replaying its saved inputs under coverage.py — never during fuzzing.

One child process per run directory (`python -m benchmarks.study.allcode --lambda-dir D
--run RUN`) sets up a worker runtime in-process, wraps the handler so coverage.py
(branch=True) measures exactly the handler calls (not generation, emulator reset or
loading, nor import time), replays `corpus/*.json` and `failures/*.json`, and writes
`RUN/allcode.json`: branch arcs covered per category and the arc list itself, so two
strategies can be compared arc by arc.

What counts as a library: everything the handler executes except the AWS SDK, the
emulator and the fuzzer (`INFRASTRUCTURE`), as the paper excluded com.amazonaws and its own
tooling.  Standard-library code counts, whoever calls it, so the stdlib column includes
code the SDK and the emulator run on the handler's behalf (the paper's Java setup counted
dynamically loaded library classes the same way).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RESULT_NAME = "allcode.json"
#: Packages whose code is the AWS SDK, the in-process emulator (with its dependencies)
#: or the fuzzer itself: never counted.
INFRASTRUCTURE = (
    "boto3",
    "botocore",
    "s3transfer",
    "moto",
    "responses",
    "werkzeug",
    "jinja2",
    "markupsafe",
    "xmltodict",
    "requests",
    "urllib3",
    "idna",
    "certifi",
    "charset_normalizer",
    "jmespath",
    "dateutil",
    "cryptography",
    "cffi",
    "yaml",
    "py_partiql_parser",
    "joserfc",
    "pydantic",
    "pydantic_core",
    "click",
    "rich",
    "libcst",
    "coverage",
    "lambdafuzz",
)
CATEGORIES = ("application", "third_party", "stdlib")


def infrastructure_omit() -> list[str]:
    """coverage.py omit patterns for the directories of the infrastructure packages (and of
    this study package; not all of `benchmarks/`, which holds the lambdas)."""
    patterns = [os.path.join(os.path.realpath(Path(__file__).parent), "*")]
    for name in INFRASTRUCTURE:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        for location in spec.submodule_search_locations or []:
            patterns.append(os.path.join(os.path.realpath(location), "*"))
        if spec.origin and not spec.submodule_search_locations:
            patterns.append(os.path.realpath(spec.origin))
    return patterns


def category(path: str, app_dirs: Sequence[str]) -> str:
    real = os.path.realpath(path)
    if any(real == d or real.startswith(d + os.sep) for d in app_dirs):
        return "application"
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return "third_party"
    return "stdlib"


def saved_inputs(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "corpus").glob("*.json")) + sorted(
        (run_dir / "failures").glob("*.json")
    )


# --------------------------------------------------------------------------- child side
def measure_run(lambda_dir: Path, run_dir: Path) -> dict[str, Any]:
    """Replay one run's saved inputs under coverage.py (call in a process of its own)."""
    import coverage

    from benchmarks.study.inprocess import open_runtime
    from lambdafuzz.fuzzer.corpus import load_input
    from lambdafuzz.harness.process.protocol import TestRequest
    from lambdafuzz.model.target import app_dirs

    target, runtime = open_runtime(lambda_dir)
    apps = [os.path.realpath(d) for d in app_dirs(target)]
    cov = coverage.Coverage(
        branch=True, data_file=None, include=["*"], omit=infrastructure_omit(), config_file=False
    )
    handler = runtime.handler

    def measured(event: Any, context: Any) -> Any:
        cov.start()
        try:
            return handler(event, context)
        finally:
            cov.stop()

    runtime.handler = measured
    _pause_during_sdk_calls(cov)
    statuses: dict[str, int] = {}
    mismatches = 0  # replays whose outcome differs from the campaign's: a flaky replay
    for path in saved_inputs(run_dir):
        saved = load_input(path)
        result = runtime.run(TestRequest(saved.sequence.prefix(saved.mode), saved.seed, saved.mode))
        statuses[result.status.name] = statuses.get(result.status.name, 0) + 1
        mismatches += result.status.name != saved.outcome
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "cov.json"
        try:
            cov.json_report(outfile=str(report), ignore_errors=True)
            files = json.loads(report.read_text())["files"]
        except coverage.CoverageException:  # nothing measured at all
            files = {}
    branches = dict.fromkeys(CATEGORIES, 0)
    arcs = []
    for name, data in sorted(files.items()):
        cat = category(name, apps)
        branches[cat] += int(data["summary"].get("covered_branches", 0))
        arcs += [[cat, name, a, b] for a, b in data.get("executed_branches", [])]
    branches["total"] = sum(branches[c] for c in CATEGORIES)
    return {
        "run": str(run_dir),
        "inputs": sum(statuses.values()),
        "statuses": statuses,
        "outcome_mismatches": mismatches,
        "branches": branches,
        "files": {c: sum(1 for n in files if category(n, apps) == c) for c in CATEGORIES},
        "arcs": arcs,
    }


#: SDK entry points a handler calls; coverage pauses while one runs (nested calls count once).
SDK_ENTRY_POINTS = (
    ("botocore.client", "BaseClient", "_make_api_call"),
    ("boto3.session", "Session", "__init__"),
    ("boto3.session", "Session", "client"),
    ("boto3.session", "Session", "resource"),
    ("boto3.resources.action", "ServiceAction", "__call__"),
    ("boto3.resources.action", "BatchAction", "__call__"),
    ("boto3.resources.action", "WaiterAction", "__call__"),
    ("boto3.resources.base", "ServiceResource", "__init__"),
    ("boto3.dynamodb.transform", "DynamoDBHighLevelResource", "__init__"),
    ("botocore.hooks", "BaseEventHooks", "register"),
    ("botocore.hooks", "EventAliaser", "register"),
)
#: Generator entry points (pausing around each step): paginators.
SDK_GENERATORS = (("botocore.paginate", "PageIterator", "__iter__"),)


def _pause_during_sdk_calls(cov: Any) -> None:
    """Stop counting while the handler is inside the AWS SDK (making a client or resource,
    calling an operation, paging) and so inside the in-process emulator behind it: without
    this, the standard-library code they run (regex compilation, enum, configparser,
    inspect, ...) swamps the handler's own library use.  Pausing and resuming in the same
    frame keeps coverage.py's frame stack aligned; coverage.py pauses its collectors the
    same way when measurements nest."""
    import importlib

    depth = [0]

    def enter() -> None:
        depth[0] += 1
        if depth[0] == 1 and cov._started:
            cov._collector.pause()

    def leave() -> None:
        depth[0] -= 1
        if depth[0] == 0 and cov._started:
            cov._collector.resume()

    def paused(original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            enter()
            try:
                return original(*args, **kwargs)
            finally:
                leave()

        return call

    def paused_generator(original: Callable[..., Any]) -> Callable[..., Any]:
        def iterate(*args: Any, **kwargs: Any) -> Any:
            enter()
            try:
                steps = original(*args, **kwargs)
            finally:
                leave()
            while True:
                enter()
                try:
                    item = next(steps)
                except StopIteration:
                    return
                finally:
                    leave()
                yield item

        return iterate

    for table, wrap in ((SDK_ENTRY_POINTS, paused), (SDK_GENERATORS, paused_generator)):
        for module_name, class_name, attribute in table:
            owner = getattr(importlib.import_module(module_name), class_name)
            setattr(owner, attribute, wrap(getattr(owner, attribute)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Replay one run's saved inputs under coverage.py.")
    parser.add_argument("--lambda-dir", type=Path, required=True)
    parser.add_argument("--run", type=Path, required=True, help="a campaign's output directory")
    args = parser.parse_args(argv)
    out = args.run / RESULT_NAME
    from benchmarks.study.inprocess import silence_output

    silence_output(args.run / "allcode.log")
    result = measure_run(args.lambda_dir, args.run)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result))
    os.replace(tmp, out)
    return 0


# --------------------------------------------------------------------------- study side
def is_fresh(run_dir: Path) -> bool:
    """allcode.json exists and is newer than the run's done marker."""
    result, done = run_dir / RESULT_NAME, run_dir / "done"
    return result.exists() and (not done.exists() or result.stat().st_mtime >= done.stat().st_mtime)


def measure_all(
    jobs: Sequence[tuple[Path, Path]],
    *,
    parallel: int,
    on_done: Callable[[Path, str], None] | None = None,
    timeout_s: float = 1800.0,
) -> None:
    """Measure each (lambda_dir, run_dir) that has no fresh allcode.json yet."""
    from benchmarks.study.inprocess import child_env
    from benchmarks.study.layout import REPO

    todo = [(lam, run) for lam, run in jobs if not is_fresh(run)]

    def one(item: tuple[Path, Path]) -> None:
        lam, run = item
        cmd = [
            sys.executable,
            "-m",
            "benchmarks.study.allcode",
            "--lambda-dir",
            str(lam),
            "--run",
            str(run),
        ]
        try:
            proc = subprocess.run(
                cmd,
                cwd=REPO,
                env=child_env(),
                timeout=timeout_s,
                check=False,
                stdin=subprocess.DEVNULL,
            )
            status = (
                "ok"
                if proc.returncode == 0
                else f"failed (exit {proc.returncode}; see {run / 'allcode.log'})"
            )
        except subprocess.TimeoutExpired:
            status = "timed out"
        if on_done is not None:
            on_done(run, status)

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        list(pool.map(one, todo))


def load(run_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((run_dir / RESULT_NAME).read_text())
    except (OSError, ValueError):
        return None


def summarize(
    cells: Mapping[tuple[str, str], Mapping[int, dict[str, Any]]],
    pairs: Sequence[tuple[str, str]],
    method: str,
) -> dict[str, Any]:
    """cells[(lambda, strategy)][rep] = allcode.json content -> the report's section."""
    rows = []
    for (name, strategy), by_rep in sorted(cells.items()):
        if not by_rep:
            continue
        rows.append(
            {
                "lambda": name,
                "strategy": strategy,
                "reps": sorted(by_rep),
                "inputs": sum(r["inputs"] for r in by_rep.values()),
                "outcome_mismatches": sum(r.get("outcome_mismatches", 0) for r in by_rep.values()),
                "branches": {
                    k: round(statistics.fmean(r["branches"][k] for r in by_rep.values()), 2)
                    for k in (*CATEGORIES, "total")
                },
            }
        )
    pair_rows = []
    names = sorted({name for name, _ in cells})
    for name in names:
        for a, b in pairs:
            ra, rb = cells.get((name, a), {}), cells.get((name, b), {})
            reps = sorted(set(ra) & set(rb))
            if not reps:
                continue
            counts = {"common": 0, "only_a": 0, "only_b": 0}
            for rep in reps:
                sa = {tuple(x) for x in ra[rep]["arcs"]}
                sb = {tuple(x) for x in rb[rep]["arcs"]}
                counts["common"] += len(sa & sb)
                counts["only_a"] += len(sa - sb)
                counts["only_b"] += len(sb - sa)
            pair_rows.append(
                {
                    "lambda": name,
                    "a": a,
                    "b": b,
                    "reps": reps,
                    **{k: v / len(reps) for k, v in counts.items()},
                }
            )
    return {"method": method, "cells": rows, "pairs": pair_rows}


if __name__ == "__main__":
    raise SystemExit(main())
