"""The bug benchmark: fuzz every app of `benchmarks/bugbench/` and count its planted bug.

For each app, strategy and seed, `python -m lambdafuzz fuzz` runs one campaign into
`<results>/runs/<app>/<strategy>-s<seed>/` (one campaign at a time; run the script under
`nice`).  The out dir is then read, not imported: `failures/*.json` and `handled/*.json` are
saved inputs whose `failure` record holds the exception type, message, location (`file:line`)
and `first_exec`; a finding is the app's planted bug when `expect.yaml` recognises it
(`benchmarks/bugbench/spec.py`).  Per strategy the report gives the bugs found in each seed,
the share of all planted bugs found, and the executions to the first find; per app, which
strategies found it in how many seeds.  Strategies the installed lambdafuzz does not know are
listed as skipped with the reason, so the same command works before and after a strategy
lands.  The markdown table goes to stdout and to `<results>/<name>.md`, every run's record to
`<results>/<name>.json`.

`--stop-on-find` stops a campaign (SIGINT, as Ctrl-C does) as soon as its out dir holds the
planted bug: whether and when a campaign finds the bug do not depend on what it would have
done afterwards, and campaigns that find it early cost seconds instead of minutes (the
other findings then count only what was saved until then).

    nice -n 10 .venv/bin/python benchmarks/bugbench.py --execs 3000 --seeds 0-4 \\
        --strategies frontier,spoton,zest-strings,zest,random --stop-on-find
    .venv/bin/python benchmarks/bugbench.py --apps sqs_nan_score,img_rgba_jpeg --execs 500
    .venv/bin/python benchmarks/bugbench.py --merge benchmarks/results/bugbench/a.json \\
        benchmarks/results/bugbench/b.json --name side-by-side
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.bugbench.spec import BenchApp, all_apps  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "bugbench"
DEFAULT_STRATEGIES = "frontier,spoton,zest"
#: A campaign that runs longer than this is stopped and recorded as an error.
CAMPAIGN_TIMEOUT_S = 3600
#: With --stop-on-find, how often the out dir is looked at, and how long a campaign stopped
#: by SIGINT may take to write its files before it is killed.
POLL_S = 0.5
STOP_GRACE_S = 60


@dataclass
class Finding:
    folder: str  # failures | handled
    exception_type: str
    message: str
    location: str
    first_exec: int | None


@dataclass
class Run:
    app: str
    bug: str
    kind: str
    strategy: str
    seed: int
    execs: int
    exit_code: int  # -1: not known (a campaign timed out, or its record was re-read)
    seconds: float
    found: bool = False
    first_exec: int | None = None
    other_findings: list[str] = field(default_factory=list)
    error: str = ""
    stopped_on_find: bool = False


# ------------------------------------------------------------------------- strategies
def known_strategies() -> tuple[set[str], str]:
    """The strategy names the installed lambdafuzz accepts (read from its enum by value, so
    a strategy that does not exist yet is simply absent), or an empty set and why."""
    code = (
        "from lambdafuzz.fuzzer.options import Strategy; print(' '.join(s.value for s in Strategy))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return set(), f"cannot read lambdafuzz's strategies: {done.stderr.strip()[-300:]}"
    return set(done.stdout.split()), ""


# ------------------------------------------------------------------------- one campaign
def campaign_dirs(out: Path) -> list[Path]:
    """The campaign folders under `out` (a SAM template's campaign is in `out/<Function>/`)."""
    return sorted(p.parent for p in out.rglob("campaign.json"))


def read_findings(out: Path) -> list[Finding]:
    """Every failure and handled finding saved under `out`, from the saved JSON as is."""
    found = []
    for campaign in campaign_dirs(out):
        for folder in ("failures", "handled"):
            for path in sorted((campaign / folder).glob("*.json")):
                if path.name.endswith(".min.json"):
                    continue
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                top = data.get("failure") or {}
                # a bug's file: each of its variants (signatures) is a finding to match
                variants = [v.get("record") or {} for v in top.get("variants") or ()]
                for info in [v for v in variants if isinstance(v, dict)] or [top]:
                    first = info.get("first_exec")
                    found.append(
                        Finding(
                            folder,
                            str(info.get("exception_type") or ""),
                            str(info.get("message") or ""),
                            str(info.get("location") or ""),
                            int(first) if isinstance(first, int) else None,
                        )
                    )
    return found


def found_bug(app: BenchApp, out: Path) -> bool:
    """Whether the out dir already holds the app's planted bug."""
    return any(
        f.folder == app.bug.folder and app.bug.matches(f.exception_type, f.message, f.location)
        for f in read_findings(out)
    )


def run_campaign(
    command: list[str], app: BenchApp, out: Path, stop_on_find: bool
) -> tuple[int, str, bool]:
    """(exit code, stderr tail, stopped because the bug was found); TimeoutExpired past
    CAMPAIGN_TIMEOUT_S."""
    if not stop_on_find:
        done = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=CAMPAIGN_TIMEOUT_S
        )
        return done.returncode, (done.stderr.strip() or done.stdout.strip())[-400:], False
    deadline = time.monotonic() + CAMPAIGN_TIMEOUT_S
    with subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as process:
        stopped = False
        while process.poll() is None:
            if time.monotonic() > deadline:
                process.kill()
                raise subprocess.TimeoutExpired(command, CAMPAIGN_TIMEOUT_S)
            if not stopped and found_bug(app, out):
                process.send_signal(signal.SIGINT)
                stopped = True
                try:
                    process.wait(STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                break
            time.sleep(POLL_S)
        stderr = process.stderr.read() if process.stderr else ""
        return process.wait(), stderr.strip()[-400:], stopped


def fuzz_once(
    app: BenchApp,
    strategy: str,
    seed: int,
    execs: int,
    runs_dir: Path,
    *,
    stop_on_find: bool = False,
) -> Run:
    out = runs_dir / app.name / f"{strategy}-s{seed}"
    if out.exists():
        shutil.rmtree(out)  # a benchmark run starts fresh (a second run would resume)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "lambdafuzz", "fuzz", str(app.fuzz_path)]
    command += ["--execs", str(execs), "--seed", str(seed), "--strategy", strategy]
    command += ["--out", str(out), "--quiet"]
    started = time.monotonic()
    run = Run(app.name, app.bug.id, app.bug.kind, strategy, seed, execs, -1, 0.0)
    try:
        code, stderr, run.stopped_on_find = run_campaign(command, app, out, stop_on_find)
    except subprocess.TimeoutExpired:
        run.seconds = time.monotonic() - started
        run.error = f"campaign ran past {CAMPAIGN_TIMEOUT_S} s"
        return run
    run.seconds = round(time.monotonic() - started, 1)
    run.exit_code = code
    if code not in (0, 1) and not run.stopped_on_find:
        run.error = stderr
        return run
    evaluate(app, out, run)
    return run


def evaluate(app: BenchApp, out: Path, run: Run) -> None:
    """Fill `run`'s `found`, `first_exec` and `other_findings` from the out dir."""
    for finding in read_findings(out):
        folder_ok = finding.folder == app.bug.folder
        if folder_ok and app.bug.matches(finding.exception_type, finding.message, finding.location):
            run.found = True
            if finding.first_exec is not None:
                run.first_exec = min(run.first_exec or finding.first_exec, finding.first_exec)
        else:
            where = finding.location or "returned"
            other = f"{finding.folder}: {finding.exception_type} at {where}"
            if other not in run.other_findings:  # variants of one bug: counted once
                run.other_findings.append(other)


def reread(app: BenchApp, strategy: str, seed: int, runs_dir: Path) -> Run | None:
    """The run of an earlier invocation, from its out dir alone (`--report-only`); None when
    it never finished (no stats.json)."""
    out = runs_dir / app.name / f"{strategy}-s{seed}"
    stats = [c / "stats.json" for c in campaign_dirs(out) if (c / "stats.json").is_file()]
    if not stats:
        return None
    data = json.loads(stats[0].read_text(encoding="utf-8"))
    run = Run(
        app.name, app.bug.id, app.bug.kind, strategy, seed, int(data.get("execs", 0)), -1, 0.0
    )
    run.seconds = float(data.get("elapsed_s", 0.0))
    evaluate(app, out, run)
    return run


# ------------------------------------------------------------------------- report
def _median(values: list[int]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


def render(
    runs: list[Run],
    apps: list[BenchApp],
    strategies: list[str],
    skipped: dict[str, str],
    seeds: list[int],
    execs: int,
) -> str:
    total = len(apps)
    lines = [
        f"# Bug benchmark: {total} apps, {execs} executions, seeds {','.join(map(str, seeds))}",
        "",
        "| strategy | found per seed | share found | median execs to first find | other findings |",
        "| --- | --- | --- | --- | --- |",
    ]
    footnote = (
        "Other findings: saved failures and handled findings that are not the app's planted "
        "bug (summed over the strategy's campaigns)."
    )
    for strategy in strategies:
        if strategy in skipped:
            lines.append(f"| {strategy} | skipped: {skipped[strategy]} | - | - | - |")
            continue
        mine = [r for r in runs if r.strategy == strategy]
        per_seed = [sum(r.found for r in mine if r.seed == s) for s in seeds]
        firsts = [r.first_exec for r in mine if r.found and r.first_exec is not None]
        share = sum(per_seed) / (total * len(seeds)) if seeds and total else 0.0
        others = sum(len(r.other_findings) for r in mine)
        errors = sum(bool(r.error) for r in mine)
        cells = ", ".join(f"{n}/{total}" for n in per_seed)
        note = f"{others}" + (f" ({errors} campaign errors)" if errors else "")
        lines.append(f"| {strategy} | {cells} | {share:.1%} | {_median(firsts)} | {note} |")
    ran = [s for s in strategies if s not in skipped]
    lines += [
        "",
        footnote,
        "",
        "Per app: seeds that found the bug / seeds run, (median executions to first find)",
        "",
    ]
    lines.append("| app | kind | class | " + " | ".join(ran) + " |")
    lines.append("| --- | --- | --- | " + " | ".join("---" for _ in ran) + " |")
    for app in apps:
        cells = []
        for strategy in ran:
            mine = [r for r in runs if r.app == app.name and r.strategy == strategy]
            hits = [r for r in mine if r.found]
            firsts = [r.first_exec for r in hits if r.first_exec is not None]
            cell = f"{len(hits)}/{len(mine)}"
            if firsts:
                cell += f" ({_median(firsts)})"
            if any(r.error for r in mine):
                cell += " err"
            cells.append(cell)
        lines.append(
            f"| {app.name} | {app.bug.kind} | {app.bug.bug_class} | " + " | ".join(cells) + " |"
        )
    errors = [r for r in runs if r.error]
    if errors:
        lines += ["", "Campaign errors:", ""]
        lines += [f"* {r.app} {r.strategy} seed {r.seed}: {r.error}" for r in errors]
    return "\n".join(lines) + "\n"


def merge(records: list[Path], results: Path, name: str) -> int:
    """Render the runs of several earlier records as one report: strategies in the order
    they first appear, apps in the benchmark's order, seeds and executions as recorded (a
    mismatch is an error: the table would compare different budgets)."""
    by_key: dict[tuple[str, str, int], Run] = {}
    strategies: list[str] = []
    skipped: dict[str, str] = {}
    budgets: set[tuple[int, tuple[int, ...]]] = set()
    for record in records:
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            runs = [Run(**r) for r in data["runs"]]
            budgets.add((int(data["execs"]), tuple(data["seeds"])))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"bugbench: cannot read {record}: {exc}", file=sys.stderr)
            return 2
        for run in runs:
            by_key[(run.app, run.strategy, run.seed)] = run
        for strategy in data.get("strategies", []):
            if strategy not in strategies:
                strategies.append(strategy)
        skipped.update(data.get("skipped", {}))
    if len(budgets) != 1:
        print(
            f"bugbench: the records differ in (executions, seeds): {sorted(budgets)}",
            file=sys.stderr,
        )
        return 2
    ((execs, seeds),) = budgets
    runs = list(by_key.values())
    recorded = {r.app for r in runs}
    apps = [a for a in all_apps() if a.name in recorded]
    skipped = {s: why for s, why in skipped.items() if not any(r.strategy == s for r in runs)}
    report = render(runs, apps, strategies, skipped, list(seeds), execs)
    sources = ", ".join(f"`{r.name}`" for r in records)
    report += f"\nMerged from {sources}.\n"
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{name}.md").write_text(report, encoding="utf-8")
    record = {
        "execs": execs,
        "seeds": list(seeds),
        "strategies": strategies,
        "skipped": skipped,
        "merged_from": [r.name for r in records],
        "runs": [asdict(r) for r in runs],
    }
    (results / f"{name}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    print(report)
    return 0


# ------------------------------------------------------------------------- command line
def parse_seeds(text: str) -> list[int]:
    """`0-4` or `0,2,3`."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        seeds += list(range(int(first), int(last) + 1)) if dash else [int(first)]
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--execs", type=int, default=1000, help="executions per campaign")
    parser.add_argument("--seeds", default="0", help="e.g. 0-4 or 0,1")
    parser.add_argument("--strategies", default=DEFAULT_STRATEGIES, help="comma-separated")
    parser.add_argument("--apps", default="", help="comma-separated app folders (default: all)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where reports go")
    parser.add_argument("--name", default="", help="report file name (default: from the options)")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: rebuild the report from the out dirs an earlier run left",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the finished campaigns of an earlier run (at least --execs) instead of rerunning",
    )
    parser.add_argument(
        "--stop-on-find",
        action="store_true",
        help="stop each campaign as soon as it has found its app's planted bug",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="RECORD",
        help="run nothing: one side-by-side report from the .json records of earlier runs "
        "(a later record's run of the same app, strategy and seed replaces an earlier one's)",
    )
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge, args.results, args.name or "bugbench-merged")

    apps = all_apps()
    if args.apps:
        wanted = [a.strip() for a in args.apps.split(",") if a.strip()]
        unknown = sorted(set(wanted) - {a.name for a in apps})
        if unknown:
            parser.error(f"unknown apps {unknown}; apps: {', '.join(a.name for a in apps)}")
        apps = [a for a in apps if a.name in wanted]
    seeds = parse_seeds(args.seeds)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    known, why = known_strategies()
    skipped = {
        s: (why or "not a strategy of the installed lambdafuzz")
        for s in strategies
        if s not in known
    }
    results: Path = args.results
    name = args.name or f"bugbench-{args.execs}x{len(seeds)}-{'_'.join(strategies)}"
    runs: list[Run] = []
    for strategy in strategies:
        if strategy in skipped:
            print(f"skipped {strategy}: {skipped[strategy]}", file=sys.stderr)
    # app by app, so a run stopped early still compares every strategy on the apps it did
    for app in apps:
        for strategy in (s for s in strategies if s not in skipped):
            for seed in seeds:
                earlier = None
                if args.report_only or args.reuse:
                    earlier = reread(app, strategy, seed, results / "runs")
                    short = earlier is not None and earlier.execs < args.execs
                    if short and not earlier.found and not args.report_only:
                        earlier = None  # a shorter campaign counts only if it found the bug
                if earlier is not None or args.report_only:
                    runs += [earlier] if earlier is not None else []
                    continue
                run = fuzz_once(
                    app,
                    strategy,
                    seed,
                    args.execs,
                    results / "runs",
                    stop_on_find=args.stop_on_find,
                )
                runs.append(run)
                status = (
                    "found"
                    if run.found
                    else ("ERROR " + run.error[:120] if run.error else "missed")
                )
                first = f" at exec {run.first_exec}" if run.first_exec is not None else ""
                print(
                    f"{strategy:>12} s{seed} {app.name:<24} {status}{first} ({run.seconds:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    report = render(runs, apps, strategies, skipped, seeds, args.execs)
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{name}.md").write_text(report, encoding="utf-8")
    record = {
        "execs": args.execs,
        "seeds": seeds,
        "strategies": strategies,
        "skipped": skipped,
        "runs": [asdict(r) for r in runs],
    }
    (results / f"{name}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
