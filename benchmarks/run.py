"""The SpotOn/Zest comparison on the bundled lambdas (`make bench-study`).

    .venv/bin/python benchmarks/run.py                       # the default study
    .venv/bin/python benchmarks/run.py --lambdas gradebook,unzip --strategies zest,spoton \\
        --reps 5 --execs 500 --out /tmp/study
    .venv/bin/python benchmarks/run.py --report-only         # re-analyse finished runs

Runs lambdas x strategies x repetitions (seed = repetition index + --seed-base), each
campaign in its own process with one worker, up to --jobs at a time; finished runs are
kept and not redone (rerun the same command to resume).  Then replays the corpora of the
first --allcode-reps repetitions under coverage.py for all-code coverage, and writes
OUT/results.json, OUT/report.md and OUT/plots/<lambda>.png.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.study import allcode, machine  # noqa: E402
from benchmarks.study.campaigns import Runner, RunOutcome, command, is_done  # noqa: E402
from benchmarks.study.layout import (  # noqa: E402
    DEFAULT_RESULTS,
    STRATEGIES,
    Budget,
    RunSpec,
    all_lambdas,
    plan,
)
from benchmarks.study.loading import RunData, load_run  # noqa: E402
from benchmarks.study.plots import plot_lambda  # noqa: E402
from benchmarks.study.report import render  # noqa: E402
from benchmarks.study.results import PAIRS, build_results, group  # noqa: E402

#: Executions per campaign by default: 8 lambdas x 3 strategies x 10 repetitions should fit in
#: about an hour on 2 cores at the rates measured then (benchmarks/history/ports-study.md,
#: "Budget").
DEFAULT_EXECS = 400
DEFAULT_STRATEGIES = ("zest", "zest-strings", "spoton")
DEFAULT_REPS = 10

NOTES = [
    "The budget is a number of executions, so a rerun on any machine repeats the same "
    "executions; seconds and executions per second depend on the machine and its load.",
    "Each campaign re-runs every newly saved input once (the engine's stability check); "
    "those re-runs are not counted as executions but do take wall time.",
    "Branch arms are the engine's own: both arms of every conditional jump in application "
    "bytecode (sys.monitoring BRANCH events), including comprehension loops and arms covered "
    "while the handler module was imported (first execution 0).",
    "`random` makes every input fresh from the generators (no feedback); `zest-strings` is "
    "zest plus the static analysis' constant strings (the paper's ZestStrOpt); `spoton` adds "
    "type-targeted mutation on top.",
]
ALLCODE_METHOD = (
    "Measured after the campaigns by replaying each run's saved inputs (corpus/ and failures/) "
    "in one process under coverage.py (branch=True), counting only while the handler runs and "
    "pausing while the handler is inside the AWS SDK (making a session, client or resource, "
    "registering event hooks, calling an operation, paging), so the SDK, the in-process "
    "emulator behind it and the fuzzer (boto3, botocore, s3transfer, moto and its "
    "dependencies, lambdafuzz) are not counted; the standard library and other third-party "
    "packages (Pillow) the handler itself uses are. 'replayed differently' counts inputs "
    "whose replayed outcome differed from the campaign's (should be 0). Counts "
    "are coverage.py branch arcs (line to line), not the engine's bytecode arms, so the "
    "'app' column differs from the tables above."
)


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Show defaults, except the None/False ones that only mean 'not given'."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False):
            return action.help
        return super()._get_help_string(action)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Run the SpotOn/Zest study on the benchmark lambdas and report it.",
        formatter_class=_Help,
    )
    parser.add_argument("--lambdas", default="all", help="comma-separated lambda names, or 'all'")
    parser.add_argument(
        "--strategies",
        default=",".join(DEFAULT_STRATEGIES),
        help=f"comma-separated, from {', '.join(STRATEGIES)}",
    )
    parser.add_argument(
        "--reps", type=int, default=DEFAULT_REPS, help="repetitions per lambda and strategy"
    )
    parser.add_argument(
        "--seed-base", type=int, default=0, help="seed of repetition i is seed-base + i"
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--execs",
        type=int,
        default=None,
        help=f"executions per campaign ({DEFAULT_EXECS} unless --seconds is given)",
    )
    budget.add_argument(
        "--seconds", type=float, default=None, help="seconds per campaign instead of executions"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="campaigns at a time")
    parser.add_argument("--out", type=Path, default=DEFAULT_RESULTS, help="results directory")
    parser.add_argument(
        "--allcode-reps",
        type=int,
        default=1,
        help="replay the corpora of this many first repetitions for all-code coverage (0: skip)",
    )
    parser.add_argument(
        "--campaign-timeout", type=float, default=3600.0, help="seconds before a campaign is killed"
    )
    parser.add_argument(
        "--report-only", action="store_true", help="analyse finished runs, run nothing"
    )
    args = parser.parse_args(argv)
    if args.execs is None and args.seconds is None:
        args.execs = DEFAULT_EXECS
    args.lambdas = (
        all_lambdas() if args.lambdas == "all" else [n for n in args.lambdas.split(",") if n]
    )
    args.strategies = [s for s in args.strategies.split(",") if s]
    unknown = [s for s in args.strategies if s not in STRATEGIES]
    missing = [n for n in args.lambdas if n not in all_lambdas()]
    if unknown:
        parser.error(f"unknown strategies {unknown}; expected some of {list(STRATEGIES)}")
    if missing:
        parser.error(f"unknown lambdas {missing}; expected some of {all_lambdas()}")
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    return args


def _progress(outcome: RunOutcome, finished: int, total: int) -> None:
    if outcome.status == "cached":
        return
    text = f"[{finished}/{total}] {outcome.spec.label()}: {outcome.status}"
    if outcome.wall_s:
        text += f" in {outcome.wall_s:.1f} s"
    if outcome.message:
        text += f" ({outcome.message})"
    print(text, flush=True)


def load_finished(
    specs: list[RunSpec], budget: Budget, out: Path
) -> tuple[list[RunData], list[RunSpec]]:
    runs, missing = [], []
    for spec in specs:
        if is_done(spec, budget, out):
            runs.append(load_run(spec, spec.out_dir(out)))
        else:
            missing.append(spec)
    return runs, missing


def measure_allcode(runs: list[RunData], reps: int, jobs: int, out: Path) -> dict | None:
    chosen = [r for r in runs if r.spec.rep < reps]
    if not chosen:
        return None
    print(f"all-code coverage: replaying {len(chosen)} corpora under coverage.py", flush=True)

    def done(run_dir: Path, status: str) -> None:
        if status != "ok":
            print(f"  all-code {run_dir}: {status}", flush=True)

    allcode.measure_all(
        [(r.spec.lambda_dir, r.spec.out_dir(out)) for r in chosen], parallel=jobs, on_done=done
    )
    cells: dict[tuple[str, str], dict[int, dict]] = {}
    for r in chosen:
        data = allcode.load(r.spec.out_dir(out))
        if data is not None:
            cells.setdefault((r.spec.lambda_name, r.spec.strategy), {})[r.spec.rep] = data
    method = (
        ALLCODE_METHOD + f" Repetitions replayed: the first {reps} of each lambda and strategy."
    )
    return allcode.summarize(cells, PAIRS, method)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    budget = Budget(execs=args.execs) if args.seconds is None else Budget(seconds=args.seconds)
    out: Path = args.out.resolve()
    specs = plan(args.lambdas, args.strategies, args.reps, seed_base=args.seed_base)
    info = machine.describe()
    started = time.monotonic()
    print(
        f"study: {len(args.lambdas)} lambdas x {len(args.strategies)} strategies x {args.reps} reps = "
        f"{len(specs)} campaigns of {budget.describe()}, {args.jobs} at a time -> {out}",
        flush=True,
    )
    print("one campaign: " + shlex.join(command(specs[0], budget, out)), flush=True)
    if not args.report_only:
        outcomes = Runner(
            out, budget, jobs=args.jobs, timeout_s=args.campaign_timeout, on_outcome=_progress
        ).run(specs)
        failed = [o for o in outcomes if o.status == "failed"]
        if failed:
            print(f"{len(failed)} campaigns failed; rerun to retry them", flush=True)
    runs, missing = load_finished(specs, budget, out)
    if not runs:
        print("no finished runs to report", file=sys.stderr)
        return 1
    if missing:
        print(f"reporting {len(runs)} finished runs; {len(missing)} not finished", flush=True)
    allcode_summary = (
        measure_allcode(runs, args.allcode_reps, args.jobs, out) if args.allcode_reps > 0 else None
    )
    info["load_end"] = machine.load_average()
    meta = {
        "date": machine.now(),
        "command": shlex.join(
            ["python", "benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "budget": budget.describe(),
        "budget_json": budget.to_json(),
        "lambdas": args.lambdas,
        "strategies": args.strategies,
        "reps": args.reps,
        "seed_base": args.seed_base,
        "jobs": args.jobs,
        "machine": info,
        "wall_s": round(time.monotonic() - started, 1),
        "finished_runs": len(runs),
        "unfinished_runs": [s.label() for s in missing],
        "notes": NOTES,
    }
    results = build_results(runs, meta=meta, allcode=allcode_summary)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    for name, by_strategy in group(runs).items():
        plot_lambda(
            name,
            by_strategy,
            out / "plots" / f"{name}.png",
            branches_total=results["lambdas"][name]["branches_total"],
        )
    (out / "report.md").write_text(render(results))
    print(
        f"wrote {out / 'report.md'}, {out / 'results.json'} and {len(group(runs))} plots",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
