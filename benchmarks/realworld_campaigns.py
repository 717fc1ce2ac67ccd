"""The real-world set's campaigns: run them, score them, print the report (issue 42).

One campaign per handler x strategy x seed, `--jobs` at a time, each

    lambdafuzz fuzz <template|config> [--function F] --strategy S --seed N
                    --execs E | --time T --out <scratch>/out/<revision>/<S>-s<N>-<budget>/<id>

with the handler's `flags`, its log in `<scratch>/logs/...`.  A handler with a `config`
gets it copied to `<app>/<config_dir>/lambdafuzz.yaml` first.  Then every out dir is scored
(`realworld_score.py`) and `realworld_report.py` prints the tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import public_apps
import realworld_report
from realworld_apps import Handler, extract_app, install_config
from realworld_score import Score, score


@dataclass(slots=True)
class Campaign:
    handler: str
    strategy: str
    seed: int
    budget: str  # "3000e" or "120s"
    out_dir: Path
    exit_code: int | None = None
    seconds: float = 0.0
    error: str = ""
    score: Score | None = field(default=None, repr=False)

    @property
    def column(self) -> str:
        return f"{self.strategy}-s{self.seed}"


def budget_label(args: argparse.Namespace) -> str:
    return f"{args.time:g}s" if args.time is not None else f"{args.execs}e"


def plan(args: argparse.Namespace, handlers: list[Handler]) -> list[Campaign]:
    strategies = [s for s in args.strategies.split(",") if s]
    seeds = [int(s) for s in args.seeds.split(",") if s]
    budget = budget_label(args)
    base = args.scratch / "out" / args.revision
    return [
        Campaign(h.id, strategy, seed, budget, base / f"{strategy}-s{seed}-{budget}" / h.id)
        for strategy in strategies
        for seed in seeds
        for h in handlers
    ]


def command(args: argparse.Namespace, handler: Handler, app_dir: Path, c: Campaign) -> list[str]:
    config = app_dir / handler.config_dir / "lambdafuzz.yaml" if handler.config else None
    target = config or app_dir / handler.template
    budget = ["--time", f"{args.time:g}"] if args.time is not None else ["--execs", str(args.execs)]
    return [
        *(["nice", "-n", str(args.nice)] if args.nice else []),
        *args.command,
        "fuzz",
        str(target),
        *(["--function", handler.function] if handler.template and not config else []),
        "--strategy",
        c.strategy,
        "--seed",
        str(c.seed),
        *budget,
        "--out",
        str(c.out_dir),
        *handler.flags,
    ]


def run_campaign(args: argparse.Namespace, handler: Handler, app_dir: Path, c: Campaign) -> None:
    if c.out_dir.exists():
        shutil.rmtree(c.out_dir)
    c.out_dir.parent.mkdir(parents=True, exist_ok=True)
    log = args.scratch / "logs" / args.revision / f"{c.column}-{c.budget}" / f"{c.handler}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log.open("w") as sink:
        try:
            c.exit_code = subprocess.run(
                command(args, handler, app_dir, c),
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                timeout=args.timeout,
                env=args.env,
            ).returncode
        except subprocess.TimeoutExpired:
            c.error = f"timed out after {args.timeout:g} s"
    c.seconds = round(time.monotonic() - started, 1)
    if c.exit_code not in (0, 1, None):
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        c.error = " / ".join(tail)[:300]
    print(
        f"  {c.handler} {c.column}: exit {c.exit_code}, {c.seconds} s {c.error}",
        file=sys.stderr,
        flush=True,
    )


def run_all(args: argparse.Namespace, handlers: list[Handler], campaigns: list[Campaign]) -> None:
    by_id = {h.id: h for h in handlers}
    apps: dict[str, Path] = {}
    for handler in handlers:
        try:
            app_dir = extract_app(handler, args.mirrors, args.scratch)
            install_config(handler, app_dir, args.data_dir)
            apps[handler.id] = app_dir
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - reported per handler
            print(f"  {handler.id}: not extracted: {exc}", file=sys.stderr)
    todo = [c for c in campaigns if c.handler in apps]
    for c in campaigns:
        if c.handler not in apps:
            c.error = "not extracted"
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for future in [
            pool.submit(run_campaign, args, by_id[c.handler], apps[c.handler], c) for c in todo
        ]:
            future.result()


def run_and_score(args: argparse.Namespace, handlers: list[Handler]) -> int:
    args.command, args.env, args.revision = public_apps.lambdafuzz_command(
        args.commit, args.scratch
    )
    if args.timeout is None:
        args.timeout = args.time * 2 + 300 if args.time is not None else 600 + args.execs
    campaigns = plan(args, handlers)
    print(f"lambdafuzz at {args.revision}, {len(campaigns)} campaigns", file=sys.stderr)
    if not args.no_run:
        run_all(args, handlers, campaigns)
    judgements = json.loads(args.judgements.read_text()) if args.judgements.is_file() else {}
    by_id = {h.id: h for h in handlers}
    for c in campaigns:
        c.score = score(by_id[c.handler], c.out_dir, judgements)
    realworld_report.print_report(handlers, campaigns)
    if args.json:
        data = {
            "lambdafuzz": args.revision,
            "budget": budget_label(args),
            "strategies": args.strategies.split(","),
            "seeds": args.seeds.split(","),
            "campaigns": [asdict(c) | {"out_dir": str(c.out_dir)} for c in campaigns],
            "totals": realworld_report.totals(handlers, campaigns),
        }
        args.json.write_text(json.dumps(data, indent=2, default=str) + "\n")
    return 0
