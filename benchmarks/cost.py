"""The cost objective, measured (`make bench` runs it with a small budget).

    .venv/bin/python benchmarks/cost.py [--execs 2000] [--max-seconds S]
        [--overhead-execs 300] [--apps a,b] [--lambdas a,b] [--rounds 1] [--paired N]
        [--json FILE]

Two tables, side by side in one run:

* **Planted cost problems** (`tests/e2e/cost/apps/`: quadratic work in the CSV rows, one
  DynamoDB call per line, a backtracking regex on the key, a zip unpacked member by member,
  photos decoded at full size): for each, a campaign with `--objective cost` and a coverage
  campaign, same seed, budgets and executions, side by side (`--max-seconds` stops the
  cost campaign early, its inputs being the slow ones; the coverage campaign then runs as
  many executions as it did). The coverage campaign runs as
  `--objective mixed --cost-share 0`: the coverage schedule (the cost queue is never
  scheduled, so it runs the inputs `--objective coverage` runs) with every test measured,
  so its maxima are over all its executions and it saves a cost finding when one of its
  inputs passes a budget. The table gives the measure the planted problem is about, the
  execution at which each campaign saved that measure's first finding, and each
  campaign's maximum of the measure (the larger of its confirmed maximum and its worst
  finding).
* **Overhead** on the benchmark lambdas: executions per second of `--objective coverage`
  and of `--objective mixed --cost-share 0` (every measure taken, the same inputs run, the
  cost queue never scheduled), alternating per round, and the difference.  Whole campaigns
  of a few seconds differ by 5-50% from round to round on a shared machine, more than the
  measures cost, so `--paired N` also runs N generated inputs through two workers side by
  side, one measuring and one not, alternating which goes first for each input: both see
  the same load within milliseconds, and the ratio of their summed times is the meters'
  per-test cost, given with its 95% bootstrap interval (the inputs resampled with their
  pairs); the campaigns' confirming re-runs (`re-runs per campaign`, capped at 1% of the
  executions + 3) add to it.

Numbers depend on the machine and on whatever else runs on it; the header says which.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.study import machine  # noqa: E402
from benchmarks.study.layout import LAMBDAS_DIR, REPO, all_lambdas  # noqa: E402
from benchmarks.study.tables import markdown_table  # noqa: E402

APPS_DIR = REPO / "tests" / "e2e" / "cost" / "apps"
#: app -> (measure it is about, the budgets that make it a finding)
PLANTED: dict[str, tuple[str, dict[str, Any]]] = {
    "csv_dedupe": ("duration", {}),
    "csv_items": ("aws_calls", {"max_aws_calls": 50}),
    # the default 50% of its 3 s timeout: before grown values (`core.Grown`) neither
    # campaign passed 1.5 s in 2000 executions (cost 1258 ms, coverage 1120)
    "key_router": ("duration", {}),
    "zip_fanout": ("aws_calls", {"max_aws_calls": 50}),
    "album_proof": ("memory", {"max_memory_mb": 16.0}),
}


def run(config: Path, out: Path, **options: Any) -> tuple[Any, float, dict[str, int]]:
    """One campaign in this process (its worker is a child process): (engine, wall s, the
    execution at which each measure's first cost finding was saved)."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import NewCostFinding

    engine = build_engine(load_config(config), out_dir=out, **options)
    first: dict[str, int] = {}
    t0 = time.perf_counter()
    for event in engine.run():
        if isinstance(event, NewCostFinding):
            first.setdefault(event.finding.measure.value, event.finding.first_exec)
    return engine, time.perf_counter() - t0, first


def planted(
    apps: list[str], execs: int, seed: int, tmp: Path, max_seconds: float | None = None
) -> list[dict[str, Any]]:
    from lambdafuzz.fuzzer.cost import CostBudgets

    records = []
    for app in apps:
        measure, budgets = PLANTED[app]
        config = APPS_DIR / app
        runs: dict[str, Any] = {}
        for kind, options in (
            ("cost", {"objective": "cost", "max_execs": execs, "max_seconds": max_seconds}),
            # the same executions as the cost campaign ran (fewer than `execs` when
            # `max_seconds` stopped it: its inputs are the slow ones)
            ("coverage", {"objective": "mixed", "cost_share": 0.0}),
        ):
            if kind == "coverage":
                options["max_execs"] = runs["cost"]["execs"]
            engine, wall, first = run(
                config, tmp / f"{app}-{kind}", seed=seed, **options, **budgets
            )
            finding = engine.costs.findings.get(_measure(measure))
            maxima = engine.costs.feedback.maxima() if engine.costs.feedback else {}
            runs[kind] = {
                "found_at_exec": first.get(measure),
                "worst_value": finding.value if finding else None,
                "worst_at_exec": finding.first_exec if finding else None,
                # a noisy maximum counts once a re-run confirms it, and re-runs are capped
                # under `mixed`; a finding is confirmed on its own (median of 3 runs)
                "max": max(maxima.get(measure) or 0.0, finding.value if finding else 0.0),
                "hit_count_max": maxima.get("hit_count"),
                "execs": engine.tally.execs,
                "wall_s": round(wall, 1),
                "execs_per_s": round(engine.tally.execs / wall, 2),
            }
            budget = CostBudgets.of(engine.options).limit(_measure(measure))
        records.append({"app": app, "measure": measure, "budget": budget, **runs})
        print(f"  {app}: {records[-1]}", file=sys.stderr, flush=True)
    return records


def _measure(name: str) -> Any:
    from lambdafuzz.model.cost import Measure

    return Measure(name)


def overhead(lambdas: list[str], execs: int, rounds: int, seed: int, tmp: Path) -> list[dict]:
    records = []
    for name in lambdas:
        rates: dict[str, list[float]] = {"coverage": [], "cost-measured": []}
        reruns: list[int] = []  # confirming re-runs of the measured campaigns
        for r in range(rounds):
            order = ("coverage", "cost-measured") if r % 2 == 0 else ("cost-measured", "coverage")
            for kind in order:
                options: dict[str, Any] = {"objective": "coverage"}
                if kind == "cost-measured":
                    options = {"objective": "mixed", "cost_share": 0.0}
                out = tmp / f"{name}-{kind}-{r}"
                engine, _, _ = run(LAMBDAS_DIR / name, out, seed=seed, max_execs=execs, **options)
                rates[kind].append(engine.stats().execs_per_sec)
                if kind == "cost-measured":
                    reruns.append(engine.costs.reruns)
        base = statistics.median(rates["coverage"])
        measured = statistics.median(rates["cost-measured"])
        records.append(
            {
                "lambda": name,
                "coverage_execs_per_s": base,
                "cost_measured_execs_per_s": measured,
                "overhead_pct": round(100.0 * (base - measured) / base, 1) if base else None,
                "spread_pct": {k: _spread(v) for k, v in rates.items()},
                "reruns": reruns,
                "rounds": rates,  # execs/s of every campaign: the spread is the noise
            }
        )
        print(f"  {name}: {records[-1]}", file=sys.stderr, flush=True)
    return records


def paired(lambdas: list[str], tests: int, seed: int) -> list[dict]:
    """Per lambda: `tests` generated inputs, each run in a plain worker and in a measuring
    one (which first alternates), timed around the round trip; the overhead is the ratio of
    the sums (and of the medians) minus one."""
    from lambdafuzz.config import load_config
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.pool import WorkerPool
    from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec

    records = []
    for name in lambdas:
        target = load_config(LAMBDAS_DIR / name)
        pools = {
            measured: WorkerPool(WorkerSpec(target=target, cost=measured), 1)
            for measured in (False, True)
        }
        times: dict[bool, list[float]] = {False: [], True: []}
        try:
            for i in range(tests):
                request = TestRequest((), seed * 1_000_003 + i, ReplayMode.LINEAR)
                order = (False, True) if i % 2 == 0 else (True, False)
                for measured in order:
                    started = time.perf_counter()
                    for _ in pools[measured].imap([request]):
                        pass
                    times[measured].append(time.perf_counter() - started)
        finally:
            for pool in pools.values():
                pool.close()
        plain, measured = sum(times[False]), sum(times[True])
        low, high = _bootstrap_interval(times[False], times[True], seed)
        records.append(
            {
                "lambda": name,
                "tests": tests,
                "plain_ms_per_test": round(1000.0 * plain / tests, 3),
                "measured_ms_per_test": round(1000.0 * measured / tests, 3),
                "overhead_pct": round(100.0 * (measured - plain) / plain, 2),
                "overhead_95_pct": [low, high],
                "median_overhead_pct": round(
                    100.0 * (statistics.median(times[True]) / statistics.median(times[False]) - 1),
                    2,
                ),
            }
        )
        print(f"  paired {name}: {records[-1]}", file=sys.stderr, flush=True)
    return records


#: Resamples of the paired inputs for the overhead's confidence interval.
BOOTSTRAP_ROUNDS = 2000


def _bootstrap_interval(
    plain: list[float], measured: list[float], seed: int
) -> tuple[float, float]:
    """The 95% interval of the overhead by sums (percent), resampling the inputs with their
    pairs: how far one run's number may be from the meters' true cost."""
    rng = random.Random(seed)
    n = len(plain)
    ratios = []
    for _ in range(BOOTSTRAP_ROUNDS):
        picks = [rng.randrange(n) for _ in range(n)]
        p = sum(plain[i] for i in picks)
        ratios.append(100.0 * (sum(measured[i] for i in picks) - p) / p)
    ratios.sort()
    return (
        round(ratios[int(0.025 * BOOTSTRAP_ROUNDS)], 2),
        round(ratios[int(0.975 * BOOTSTRAP_ROUNDS) - 1], 2),
    )


def _spread(rates: list[float]) -> float | None:
    """(max - min) / median of one campaign's rounds, in percent: the noise."""
    if not rates:
        return None
    return round(100.0 * (max(rates) - min(rates)) / statistics.median(rates), 1)


def _found(at: int | None) -> str:
    return "not found" if at is None else str(at)


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execs", type=int, default=2000, help="per planted campaign")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="per planted campaign: stop it then even before --execs (the table says how far)",
    )
    parser.add_argument("--overhead-execs", type=int, default=300, help="per overhead campaign")
    parser.add_argument("--apps", default=",".join(PLANTED))
    parser.add_argument("--lambdas", default=",".join(all_lambdas()))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--paired", type=int, default=0, help="inputs per lambda for the paired overhead table"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    info = machine.describe()
    print(f"machine: {info}  ({machine.now()})", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="lambdafuzz-cost-bench-") as tmp:
        apps = [a for a in args.apps.split(",") if a]
        lambdas = [n for n in args.lambdas.split(",") if n]
        found = planted(apps, args.execs, args.seed, Path(tmp), args.max_seconds) if apps else []
        costs = overhead(lambdas, args.overhead_execs, args.rounds, args.seed, Path(tmp))
        pairs = paired(lambdas, args.paired, args.seed) if args.paired else []
    cap = f" or {args.max_seconds:g} s" if args.max_seconds else ""
    print(f"\n## Planted cost problems ({args.execs} executions each{cap}, seed {args.seed})\n")
    print(
        markdown_table(
            (
                "app",
                "measure",
                "budget",
                "executions (cost / coverage)",
                "cost: finding at exec",
                "coverage: finding at exec",
                "cost: max",
                "coverage: max",
                "cost: hottest arm",
                "coverage: hottest arm",
            ),
            [
                (
                    r["app"],
                    r["measure"],
                    _num(r["budget"], 0),
                    f"{r['cost']['execs']} / {r['coverage']['execs']}",
                    *(_found(r[kind]["found_at_exec"]) for kind in ("cost", "coverage")),
                    *(_num(r[kind]["max"]) for kind in ("cost", "coverage")),
                    *(_num(r[kind]["hit_count_max"], 0) for kind in ("cost", "coverage")),
                )
                for r in found
            ],
            "llrrrrrrrr",
        )
    )
    print(
        f"\n## Overhead of the cost measures ({args.overhead_execs} executions, "
        f"{args.rounds} round(s), median)\n"
    )
    print(
        markdown_table(
            (
                "lambda",
                "coverage execs/s",
                "coverage + cost measures execs/s",
                "overhead",
                "spread (coverage / measured)",
                "re-runs per campaign",
            ),
            [
                (
                    r["lambda"],
                    _num(r["coverage_execs_per_s"]),
                    _num(r["cost_measured_execs_per_s"]),
                    f"{_num(r['overhead_pct'])}%",
                    "{}% / {}%".format(*(_num(r["spread_pct"][k]) for k in r["spread_pct"])),
                    ", ".join(str(n) for n in r["reruns"]),
                )
                for r in costs
            ],
            "lrrrrl",
        )
    )
    if pairs:
        print(
            f"\n## Overhead per test, paired ({args.paired} inputs per lambda, a plain and a "
            "measuring worker side by side)\n"
        )
        print(
            markdown_table(
                (
                    "lambda",
                    "plain ms/test",
                    "measured ms/test",
                    "overhead (sums)",
                    "95% interval (sums)",
                    "overhead (medians)",
                ),
                [
                    (
                        r["lambda"],
                        _num(r["plain_ms_per_test"], 2),
                        _num(r["measured_ms_per_test"], 2),
                        f"{_num(r['overhead_pct'])}%",
                        "{}% to {}%".format(*(_num(v) for v in r["overhead_95_pct"])),
                        f"{_num(r['median_overhead_pct'])}%",
                    )
                    for r in pairs
                ],
                "lrrrrr",
            )
        )
    print(
        f"\nmachine: {info['cpu']}, {info['nproc']} cores, load {info['load_start']} -> "
        f"{machine.load_average()}"
    )
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"machine": info, "planted": found, "overhead": costs, "paired": pairs},
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
