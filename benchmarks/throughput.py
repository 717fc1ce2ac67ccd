"""Throughput of the fuzz loop per benchmark lambda, and where its wall time goes (`make bench`).

    .venv/bin/python benchmarks/throughput.py [--lambdas a,b] [--execs 300] [--json FILE]
        [--workers-lambda gradebook] [--workers-execs 3000] [--workers-rounds 3]
        [--workers-warm-execs N]

For each lambda, side by side in one run:

* a short `zest` campaign (1 worker, `--execs`): executions per second, and the shares of
  its wall time spent in generation, emulator reset+load, the handler, branch coverage and
  everything else ("bookkeeping": the pipe round trip, the engine's decisions, saving
  inputs, the stability re-run of each new input);
* the coverage share comes from an in-process child that runs the same fresh inputs with
  the collector on and off (`study/handler_timing.py`) and is applied to the campaign's
  handler time;
* the upper bound: the same handler called directly in a loop on one pre-loaded world (no
  reset, no generation, no coverage), and the campaign's rate as a share of it; for
  handlers that change their world (unzip deletes its archive) also the loop with the
  world reloaded before each call, outside the timed interval.

Then one lambda with `--workers 1` and `--workers 2`, `--workers-execs` each, alternated over
`--workers-rounds` rounds: the parallel speed-up, the median of the rounds' ratios.  The
budget is longer than the table's: a 200-execution campaign lasts about a second, and the
start of each worker and of the fresh workers that re-run new failures fills most of it.
A campaign of two workers is not deterministic, and which inputs it keeps moves its cost
per test (gradebook's two-worker campaigns ran 315-558 execs/s at one commit):
`--workers-warm-execs N` starts both from the corpus of a one-worker campaign of N
executions (seed + 1), where gradebook has nothing left to cover.  Each round also reads
the CPU time per test of both campaigns' processes from `/proc` (`cpu_use.py`: workers,
campaign process, other) and the rate this machine's cores allow two workers at their CPU
time per test: the ratio to the one-worker rate that bound gives is as far as two workers
can go here, whatever the scheduling.
Numbers depend on the machine and on whatever else runs on it; the table header says
which machine and how loaded it was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cpu_use import CpuUse  # noqa: E402
from benchmarks.study import machine  # noqa: E402
from benchmarks.study.inprocess import child_env, finished_campaign  # noqa: E402
from benchmarks.study.layout import LAMBDAS_DIR, REPO, all_lambdas  # noqa: E402
from benchmarks.study.tables import markdown_table  # noqa: E402


def campaign(
    lambda_name: str,
    *,
    execs: int,
    workers: int,
    seed: int,
    out_dir: Path,
    seed_corpora: tuple[Path, ...] = (),
    cpu: CpuUse | None = None,
) -> dict[str, Any]:
    """One zest campaign in this process (its workers are child processes): final stats.
    `cpu` counts from the campaign's first test on (its workers' start is not in its rate)."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine

    target = load_config(LAMBDAS_DIR / lambda_name)
    engine = build_engine(
        target,
        out_dir=out_dir,
        strategy="zest",
        seed=seed,
        max_execs=execs,
        workers=workers,
        seed_corpora=seed_corpora,
    )
    t0 = time.perf_counter()
    stats = finished_campaign(engine, cpu.restart if cpu else None).stats.to_json()
    stats["wall_with_startup_s"] = round(time.perf_counter() - t0, 3)
    return stats


def handler_timing(
    lambda_name: str, *, inputs: int, calls: int, seconds: float, tmp: Path, corpus: Path
) -> dict[str, Any]:
    out = tmp / f"timing-{lambda_name}.json"
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.study.handler_timing",
        "--lambda-dir",
        str(LAMBDAS_DIR / lambda_name),
        "--out",
        str(out),
        "--inputs",
        str(inputs),
        "--calls",
        str(calls),
        "--seconds",
        str(seconds),
        "--corpus",
        str(corpus),
    ]
    proc = subprocess.run(cmd, cwd=REPO, env=child_env(), check=False, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        log = out.with_suffix(".log")
        tail = log.read_text()[-2000:] if log.exists() else ""
        raise RuntimeError(
            f"handler timing of {lambda_name} failed (exit {proc.returncode}):\n{tail}"
        )
    return json.loads(out.read_text())


def breakdown(stats: dict[str, Any], timing: dict[str, Any]) -> dict[str, float]:
    """Shares of campaign wall time; coverage = campaign handler time x measured share."""
    wall = max(float(stats["elapsed_s"]), 1e-9)
    gen = float(stats["time_in_generation_s"])
    load = float(stats["time_in_reset_load_s"])
    handler_total = float(stats["time_in_handler_s"])
    share = timing["coverage"]["coverage_share_of_handler"]
    cov_share = min(max(share or 0.0, 0.0), 1.0)
    coverage = handler_total * cov_share
    return {
        "generation": gen / wall,
        "reset_load": load / wall,
        "handler": (handler_total - coverage) / wall,
        "coverage": coverage / wall,
        "bookkeeping": max(0.0, wall - gen - load - handler_total) / wall,
    }


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


HEADERS = [
    "lambda",
    "execs/s",
    "generation",
    "reset+load",
    "handler",
    "coverage",
    "bookkeeping",
    "coverage on-off / on (raw)",
    "startup s",
    "direct calls/s",
    "campaign/direct",
    "direct errors",
    "direct calls/s, world reloaded",
]


def table(records: list[dict[str, Any]]) -> str:
    """The Markdown table of per-lambda records (as written to --json)."""
    rows = []
    for record in records:
        stats, timing, shares = record["campaign"], record["timing"], record["shares"]
        direct = timing["direct"]
        ceiling = direct.get("calls_per_sec")
        rate = float(stats["execs_per_sec"])
        rows.append(
            [
                record["lambda"],
                f"{rate:.1f}",
                *(
                    pct(shares[k])
                    for k in ("generation", "reset_load", "handler", "coverage", "bookkeeping")
                ),
                _signed(timing["coverage"]["coverage_share_of_handler"]),
                f"{float(stats['wall_with_startup_s']) - float(stats['elapsed_s']):.1f}",
                f"{ceiling:.1f}" if ceiling else "–",
                f"{rate / ceiling:.2f}" if ceiling else "–",
                f"{direct.get('errors', 0)}/{direct.get('calls', 0)}",
                _rate((direct.get("reloaded") or {}).get("calls_per_sec")),
            ]
        )
    return markdown_table(HEADERS, rows)


def _rate(value: float | None) -> str:
    return "–" if not value else f"{value:.1f}"


def workers_line(workers: dict[str, Any]) -> str:
    rounds = workers.get("rounds") or [workers]  # a --json from before rounds
    each = "; ".join(
        f"{r['execs_per_sec_1']:.1f} execs/s with 1 worker, {r['execs_per_sec_2']:.1f} with 2 "
        f"(x{r['ratio']:.2f})"
        for r in rounds
    )
    warm = workers.get("warm_execs")
    start = f" (from a {warm}-execution campaign's corpus)" if warm else ""
    bounds = [r["cpu_bound_ratio"] for r in rounds if r.get("cpu_bound_ratio")]
    allowed = f"; the cores allow median x{statistics.median(bounds):.2f}" if bounds else ""
    return f"{workers['lambda']}{start}: {each}; median x{workers['ratio']:.2f}{allowed}"


def cpu_line(measured: dict[str, Any]) -> str:
    """Where a round's CPU went, and the ratio this machine's cores allow two workers."""
    parts = {
        n: ", ".join(f"{k} {v:.2f}" for k, v in measured.get(f"cpu_ms_per_test_{n}", {}).items())
        for n in (1, 2)
    }
    return (
        f"CPU ms a test with 1: {parts[1]}; with 2: {parts[2]}; the cores allow "
        f"{measured['cpu_bound_execs_per_sec_2']:.1f} execs/s (x{measured['cpu_bound_ratio']:.2f})"
    )


def workers_rounds(
    name: str, *, execs: int, rounds: int, seed: int, tmp: Path, warm_execs: int = 0
) -> dict[str, Any]:
    """One and two local workers on `name`, alternated; the median ratio of the rounds.
    `warm_execs`: both start from the corpus of a one-worker campaign that long."""
    seeds: tuple[Path, ...] = ()
    if warm_execs:
        campaign(name, execs=warm_execs, workers=1, seed=seed, out_dir=tmp / "w-warm")
        seeds, seed = (tmp / "w-warm" / "corpus",), seed + 1
    measured = []
    for i in range(rounds):
        with CpuUse() as alone:
            one = campaign(
                name, execs=execs, workers=1, seed=seed, out_dir=tmp / f"w1-{i}",
                seed_corpora=seeds, cpu=alone,
            )  # fmt: skip
        with CpuUse() as use:
            two = campaign(
                name, execs=execs, workers=2, seed=seed, out_dir=tmp / f"w2-{i}",
                seed_corpora=seeds, cpu=use,
            )  # fmt: skip
        rate_1, rate_2 = one["execs_per_sec"], two["execs_per_sec"]
        ratio = round(rate_2 / rate_1, 3) if rate_1 else 0.0
        bound = use.share.bound(two["execs"])
        measured.append(
            {
                "execs_per_sec_1": rate_1,
                "execs_per_sec_2": rate_2,
                "ratio": ratio,
                "cpu_ms_per_test_1": alone.share.per_test_ms(one["execs"]),
                "cpu_ms_per_test_2": use.share.per_test_ms(two["execs"]),
                "cpu_bound_execs_per_sec_2": round(bound, 1),
                "cpu_bound_ratio": round(bound / rate_1, 3) if rate_1 else 0.0,
            }
        )
        print(
            f"  {name}: 1 worker {rate_1:.1f}, 2 workers {rate_2:.1f} execs/s; "
            f"{cpu_line(measured[-1])}",
            flush=True,
        )
    return {
        "lambda": name,
        "execs": execs,
        "warm_execs": warm_execs,
        "rounds": measured,
        "ratio": statistics.median(r["ratio"] for r in measured),
    }


def _signed(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:+.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Throughput per benchmark lambda (make bench).")
    parser.add_argument("--lambdas", default="all", help="comma-separated names, or 'all'")
    parser.add_argument("--execs", type=int, default=200, help="executions per campaign")
    parser.add_argument(
        "--inputs", type=int, default=40, help="inputs for the coverage on/off timing"
    )
    parser.add_argument("--calls", type=int, default=300, help="direct handler calls at most")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="direct handler loop time at most"
    )
    parser.add_argument(
        "--workers-lambda", default="gradebook", help="lambda for the 1 vs 2 workers run ('' skips)"
    )
    parser.add_argument("--workers-execs", type=int, default=3000)
    parser.add_argument("--workers-rounds", type=int, default=3)
    parser.add_argument(
        "--workers-warm-execs",
        type=int,
        default=0,
        help="start the 1 vs 2 workers campaigns from the corpus of a one-worker campaign "
        "this long (seed + 1)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write all measurements here")
    parser.add_argument(
        "--from-json",
        type=Path,
        default=None,
        help="print the table of an earlier --json, measure nothing",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        document = json.loads(args.from_json.read_text())
        info = document["machine"]
        print(
            f"measured {document['date']}: {info['nproc']} cores, {info['cpu']}, "
            f"Python {info['python']}, load average {info['load_start']} -> "
            f"{info.get('load_end', '?')}"
        )
        print(table(document["lambdas"]))
        if document.get("workers"):
            print()
            print(workers_line(document["workers"]))
        return 0
    names = all_lambdas() if args.lambdas == "all" else [n for n in args.lambdas.split(",") if n]
    info = machine.describe()
    started = machine.now()
    print(
        f"lambdafuzz throughput, {started}: {info['nproc']} cores, {info['cpu']}, Python {info['python']}, "
        f"load average {info['load_start']}; zest, {args.execs} executions per campaign, 1 worker",
        flush=True,
    )
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="lambdafuzz-bench-") as tmp_name:
        tmp = Path(tmp_name)
        for name in names:
            stats = campaign(name, execs=args.execs, workers=1, seed=args.seed, out_dir=tmp / name)
            timing = handler_timing(
                name,
                inputs=args.inputs,
                calls=args.calls,
                seconds=args.seconds,
                tmp=tmp,
                corpus=tmp / name / "corpus",
            )
            shares = breakdown(stats, timing)
            rate = float(stats["execs_per_sec"])
            records.append({"lambda": name, "campaign": stats, "timing": timing, "shares": shares})
            print(f"  {name}: {rate:.1f} execs/s", flush=True)
        workers = None
        if args.workers_lambda:
            workers = workers_rounds(
                args.workers_lambda,
                execs=args.workers_execs,
                rounds=args.workers_rounds,
                seed=args.seed,
                tmp=tmp,
                warm_execs=args.workers_warm_execs,
            )
    print()
    print(table(records))
    if workers:
        print()
        print(workers_line(workers))
    print(f"\nload average at the end: {machine.load_average()}")
    if args.json:
        info["load_end"] = machine.load_average()
        document = {
            "date": started,
            "machine": info,
            "args": vars(args) | {"json": str(args.json)},
            "lambdas": records,
            "workers": workers,
        }
        args.json.write_text(json.dumps(document, indent=1, default=str))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
