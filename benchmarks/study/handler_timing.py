"""In-process timings of one lambda for `benchmarks/throughput.py` (run as a child process:
`python -m benchmarks.study.handler_timing --lambda-dir D --out FILE`).

Two measurements a campaign's own stats cannot give:

* the cost of branch coverage: the same inputs run through `WorkerRuntime.run` with the
  collector started and stopped, alternating per input so drift hits both alike; the
  handler interval (which also holds `collector.begin()/end()`) is compared;
* the upper bound: the handler called directly in a loop on one pre-loaded world (the
  backend reset and loaded once, no generation, no coverage, no reset between calls).
  Handlers that change their world (unzip deletes the archive, contracts inserts the item)
  take a different path from the second call on; the error count says when that raises,
  and a second loop reloads the world before every call, outside the timed interval.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

WARMUP = 3


def _fresh_requests(count: int, seed: int) -> list[Any]:
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.protocol import TestRequest

    rng = random.Random(seed)
    return [
        TestRequest({}, rng.getrandbits(63), ReplayMode.EXECUTION_INDEXED) for _ in range(count)
    ]


def _corpus_requests(corpus: Path | None) -> list[tuple[Any, Any]]:
    """(request, saved input) of a campaign's corpus, VALID inputs with the most arms first."""
    if corpus is None or not corpus.is_dir():
        return []
    from lambdafuzz.fuzzer.corpus import iter_inputs
    from lambdafuzz.harness.process.protocol import TestRequest

    saved = [s for s in iter_inputs(corpus) if not isinstance(s, Exception)]
    saved.sort(key=lambda s: (s.outcome != "VALID", -int(s.extra.get("arms", 0)), s.name))
    return [(TestRequest(s.sequence.prefix(s.mode), s.seed, s.mode), s) for s in saved]


def coverage_cost(runtime: Any, requests: list[Any], rounds: int = 3) -> dict[str, Any]:
    """Generation, reset+load and handler time per input with coverage on and off.

    Every input runs `rounds` times each way, on and off alternating; per input the
    fastest run each way counts (the minimum is what load from other processes cannot
    inflate), summed over the inputs."""
    collector = runtime.collector
    best: dict[str, list[float]] = {
        k: [] for k in ("generation_s", "reset_load_s", "handler_cov_s", "handler_nocov_s")
    }
    statuses: dict[str, int] = {}
    first_valid = None
    for request in requests:
        on: list[Any] = []
        off: list[float] = []
        for i in range(2 * rounds):
            covered = i % 2 == 0
            if covered:
                collector.start()
            else:
                collector.stop()
            result = runtime.run(request)
            if covered:
                on.append(result)
            else:
                off.append(result.timings.handler_s)
        collector.start()
        first = on[0]
        statuses[first.status.name] = statuses.get(first.status.name, 0) + 1
        if first_valid is None and first.status.name == "VALID":
            first_valid = (request, first)
        best["generation_s"].append(min(r.timings.generate_s for r in on))
        best["reset_load_s"].append(min(r.timings.reset_load_s for r in on))
        best["handler_cov_s"].append(min(r.timings.handler_s for r in on))
        best["handler_nocov_s"].append(min(off))
    sums = {k: sum(v) for k, v in best.items()}
    cov_on, cov_off = sums["handler_cov_s"], sums["handler_nocov_s"]
    return {
        "inputs": len(requests),
        "rounds": rounds,
        "statuses": statuses,
        **{k: round(v, 4) for k, v in sums.items()},
        "coverage_share_of_handler": round((cov_on - cov_off) / cov_on, 4) if cov_on > 0 else None,
        "_first_valid": first_valid,
    }


def direct_loop(
    runtime: Any, request: Any, recording: Any, *, calls: int, seconds: float, reload: bool = False
) -> dict[str, Any]:
    """Call the handler again and again on one loaded world: the ceiling for this handler.

    With `reload`, the backend is reset and the same world loaded again before every call,
    outside the timed interval: the ceiling for handlers that change their world."""
    from lambdafuzz.generators.aws.events import render_event
    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.generators.core import Choices
    from lambdafuzz.harness.invoke import LambdaContext, request_id_for

    target = runtime.spec.target
    choices = Choices(recording.prefix(request.mode), seed=request.seed, mode=request.mode)
    generated = generate_input(choices, target)
    runtime.backend.reset()
    loaded = runtime.backend.load(generated.world)
    event = render_event(generated.event, loaded)
    context = LambdaContext(
        target.handler_function,
        timeout_s=target.timeout_s,
        memory_mb=target.memory_mb,
        request_id=request_id_for(request.seed),
    )
    handler = runtime.handler
    runtime.collector.stop()
    errors = 0
    first_error = ""
    spent = 0.0
    done = 0
    while done < calls and spent < seconds:
        if reload and done:
            runtime.backend.reset()
            runtime.backend.load(generated.world)
        t0 = time.perf_counter()
        try:
            handler(event, context)
        except Exception as exc:  # noqa: BLE001 - counted; the loop measures speed only
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"[:200]
        spent += time.perf_counter() - t0
        done += 1
    runtime.collector.start()
    return {
        "calls": done,
        "handler_s": round(spent, 4),
        "calls_per_sec": round(done / spent, 2) if spent > 0 else None,
        "errors": errors,
        "first_error": first_error,
    }


def measure(
    lambda_dir: Path,
    *,
    inputs: int,
    seed: int,
    calls: int,
    seconds: float,
    corpus: Path | None = None,
    rounds: int = 3,
) -> dict[str, Any]:
    """Coverage cost over the campaign's corpus topped up with fresh inputs; the direct
    loop on the corpus' best VALID input (else the first VALID fresh one)."""
    from benchmarks.study.inprocess import open_runtime

    t0 = time.perf_counter()
    _target, runtime = open_runtime(lambda_dir)
    setup_s = time.perf_counter() - t0
    saved = _corpus_requests(corpus)
    requests = [r for r, _ in saved][:inputs]
    requests += _fresh_requests(inputs - len(requests), seed)
    for request in _fresh_requests(WARMUP, seed + 1):
        runtime.run(request)
    cost = coverage_cost(runtime, requests, rounds)
    first_valid = cost.pop("_first_valid")
    if saved and saved[0][1].outcome == "VALID":
        request, chosen = saved[0]
        recording, source = chosen.sequence, f"corpus {chosen.name}"
    elif first_valid is not None:
        request, result = first_valid
        recording, source = result.recording, "first VALID fresh input"
    else:
        request, recording, source = None, None, ""
    if request is None:
        direct = {"calls": 0, "calls_per_sec": None, "errors": 0, "first_error": "no VALID input"}
    else:
        direct = direct_loop(runtime, request, recording, calls=calls, seconds=seconds)
        direct["input"] = source
        direct["reloaded"] = direct_loop(
            runtime, request, recording, calls=calls, seconds=seconds, reload=True
        )
    return {
        "lambda": lambda_dir.name,
        "setup_s": round(setup_s, 3),
        "coverage": cost,
        "direct": direct,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lambda-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--inputs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument(
        "--corpus", type=Path, default=None, help="a campaign's corpus/ to draw inputs from"
    )
    args = parser.parse_args(argv)
    from benchmarks.study.inprocess import silence_output

    silence_output(args.out.with_suffix(".log"))
    result = measure(
        args.lambda_dir,
        inputs=args.inputs,
        seed=args.seed,
        calls=args.calls,
        seconds=args.seconds,
        corpus=args.corpus,
    )
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=1))
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
