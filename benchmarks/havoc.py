"""The havoc effect per replay mode on the benchmark lambdas: mutation distance, zero
mutations, validity preservation and coverage at the same budget (BENCHMARKS.md, "The havoc
effect and the default replay mode").

    .venv/bin/python benchmarks/havoc.py                      # 8 lambdas x linear, ei x 10 seeds
    .venv/bin/python benchmarks/havoc.py --lambdas gradebook --reps 2 --execs 200 --out /tmp/hv
    .venv/bin/python benchmarks/havoc.py --report-only        # re-analyse finished runs

Each run is a seeded campaign (`--strategy`, default spoton so that children are both
random and type-targeted) in its own process, `python -m benchmarks.study.havoc run ...`,
whose every child is regenerated afterwards and compared with its parent
(`benchmarks/study/havoc.py`).  Finished runs are kept (rerun the same command to
resume); then OUT/results.json, OUT/report.md and OUT/plots/figure{6-linear,6-ei,7,8}.png.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.study import machine  # noqa: E402
from benchmarks.study.havoc import (  # noqa: E402
    MODES,
    RESULT_NAME,
    aggregate,
    plot_all,
    read_plot,
    render,
    run_key,
)
from benchmarks.study.inprocess import child_env  # noqa: E402
from benchmarks.study.layout import LAMBDAS_DIR, REPO, STRATEGIES, all_lambdas  # noqa: E402

DEFAULT_OUT = REPO / "benchmarks" / "results" / "havoc"
DEFAULT_EXECS = 1000
DEFAULT_REPS = 10


@dataclass(slots=True, frozen=True)
class Run:
    lambda_name: str
    mode: str
    rep: int
    seed: int

    def out_dir(self, out: Path) -> Path:
        return out / "raw" / self.lambda_name / self.mode / f"rep{self.rep}"

    def label(self) -> str:
        return f"{self.lambda_name}/{self.mode}/rep{self.rep}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Mutation distance, zero mutations and validity per replay mode.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--lambdas", default="all", help="comma-separated names, or 'all'")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: linear, ei")
    parser.add_argument("--reps", type=int, default=DEFAULT_REPS, help="seeds per lambda and mode")
    parser.add_argument("--seed-base", type=int, default=0, help="seed of repetition i: base + i")
    parser.add_argument("--execs", type=int, default=DEFAULT_EXECS, help="executions per campaign")
    parser.add_argument("--strategy", default="spoton", choices=STRATEGIES)
    parser.add_argument(
        "--sample", type=int, default=0, help="children measured per campaign (0: every child)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="campaigns at a time")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results directory")
    parser.add_argument("--campaign-timeout", type=float, default=3600.0)
    parser.add_argument("--report-only", action="store_true", help="analyse finished runs only")
    args = parser.parse_args(argv)
    args.lambdas = (
        all_lambdas() if args.lambdas == "all" else [n for n in args.lambdas.split(",") if n]
    )
    args.modes = [m for m in args.modes.split(",") if m]
    if unknown := [m for m in args.modes if m not in MODES]:
        parser.error(f"unknown modes {unknown}; expected some of {list(MODES)}")
    if missing := [n for n in args.lambdas if n not in all_lambdas()]:
        parser.error(f"unknown lambdas {missing}; expected some of {all_lambdas()}")
    if args.reps < 1 or args.execs < 1:
        parser.error("--reps and --execs must be at least 1")
    return args


def plan(args: argparse.Namespace) -> list[Run]:
    """Repetition-major, so an interrupted study has every cell partly filled."""
    return [
        Run(name, mode, rep, args.seed_base + rep)
        for rep in range(args.reps)
        for name in args.lambdas
        for mode in args.modes
    ]


def key_of(run: Run, args: argparse.Namespace) -> dict[str, Any]:
    return run_key(run.lambda_name, run.mode, run.seed, args.execs, args.strategy, args.sample)


def load_done(run: Run, args: argparse.Namespace) -> dict[str, Any] | None:
    """The run's document when a finished run of exactly this key is there, with its
    campaign's coverage over time (`plot`)."""
    out = run.out_dir(args.out)
    try:
        document = json.loads((out / RESULT_NAME).read_text())
    except (OSError, ValueError):
        return None
    if document.get("run") != key_of(run, args):
        return None
    document["plot"] = read_plot(out / "campaign")
    return document


def command(run: Run, args: argparse.Namespace) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchmarks.study.havoc",
        "run",
        "--lambda-dir",
        str(LAMBDAS_DIR / run.lambda_name),
        "--mode",
        run.mode,
        "--seed",
        str(run.seed),
        "--execs",
        str(args.execs),
        "--strategy",
        args.strategy,
        "--sample",
        str(args.sample),
        "--out",
        str(run.out_dir(args.out)),
    ]


def execute(run: Run, args: argparse.Namespace) -> tuple[Run, str, float]:
    """Run one campaign from scratch (a half-finished one is removed first)."""
    out = run.out_dir(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    started = time.monotonic()
    with open(out / "run.log", "wb") as log:
        try:
            proc = subprocess.run(
                command(run, args),
                cwd=REPO,
                env=child_env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=args.campaign_timeout,
                check=False,
            )
            status = "done" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        except subprocess.TimeoutExpired:
            status = "failed (timeout)"
    return run, status, time.monotonic() - started


def measured_meta(path: Path, now: dict[str, Any]) -> dict[str, Any]:
    """When only the report is rewritten: the date, command, machine and wall time of the
    run that measured (from the earlier results.json), and when the report was redone."""
    try:
        earlier = json.loads(path.read_text())["meta"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    kept = {k: earlier[k] for k in ("date", "command", "machine", "wall_s") if k in earlier}
    return kept | {"reported": now["date"]} if kept else {}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out = args.out.resolve()
    runs = plan(args)
    info = machine.describe()
    started = time.monotonic()
    print(
        f"havoc: {len(args.lambdas)} lambdas x {len(args.modes)} modes x {args.reps} seeds = "
        f"{len(runs)} campaigns of {args.execs} executions ({args.strategy}), "
        f"{args.jobs} at a time -> {args.out}",
        flush=True,
    )
    print("one run: " + shlex.join(command(runs[0], args)), flush=True)
    todo = [r for r in runs if load_done(r, args) is None]
    if todo and not args.report_only:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(execute, r, args) for r in todo]
            for done, future in enumerate(as_completed(futures), 1):
                run, status, wall = future.result()
                print(f"[{done}/{len(todo)}] {run.label()}: {status} in {wall:.1f} s", flush=True)
    documents = [d for d in (load_done(r, args) for r in runs) if d is not None]
    if not documents:
        print("no finished runs to report", file=sys.stderr)
        return 1
    missing = len(runs) - len(documents)
    if missing:
        print(f"reporting {len(documents)} finished runs; {missing} not finished", flush=True)
    info["load_end"] = machine.load_average()
    results = aggregate(documents)
    results["meta"] = {
        "date": machine.now(),
        "command": shlex.join(
            ["python", "benchmarks/havoc.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "strategy": args.strategy,
        "execs": args.execs,
        "reps": args.reps,
        "seed_base": args.seed_base,
        "sample": args.sample,
        "jobs": args.jobs,
        "machine": info,
        "wall_s": round(time.monotonic() - started, 1),
        "finished_runs": len(documents),
        "unfinished_runs": missing,
        "campaign_s": round(sum(d["timing"]["campaign_s"] for d in documents), 1),
        "measure_s": round(sum(d["timing"]["measure_s"] for d in documents), 1),
    }
    if args.report_only or not todo:  # nothing ran now: say when and how the runs were made
        results["meta"] |= measured_meta(args.out / "results.json", results["meta"])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plots = plot_all(documents, args.out / "plots")
    (args.out / "report.md").write_text(render(results))
    print(f"wrote {args.out / 'report.md'}, results.json and {len(plots)} plots", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
