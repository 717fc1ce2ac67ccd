"""Public SAM applications fuzzed as a user would, every saved finding judged (issue 38).

    python benchmarks/public_apps.py [--apps a,b] [--mirrors DIR] [--scratch DIR]
                                     [--execs 300] [--seed 0] [--timeout 900]
                                     [--no-run] [--json FILE]

Each app of `public_apps/manifest.json` (repository, commit, template, function, trigger,
the flags a user would pass) is extracted from a local snapshot of its repository (a git
directory under `--mirrors`, as `<owner>+<name>/repo` or `<owner>+<name>`) into
`--scratch/apps/<id>/` with `git archive`, then fuzzed with

    lambdafuzz fuzz <template> --function F --execs 300 --seed 0 --out <scratch>/out/<id>

one campaign at a time.  The out dir's `failures/` and `handled/` records are matched
against `public_apps/judgements.json` (a verdict `real` or `artefact`, the distinct bug
each belongs to, one line of evidence); a finding with no judgement is listed as
UNJUDGED.  A finding's key is its `bug` field when the record has one, else the exception
type + the innermost application frame's file, function and source line text (never the
line number), so judgements survive unrelated edits.  `--no-run` reads the out dirs of an
earlier run, to re-judge without fuzzing again.

No third-party code is kept in this repository: the apps live in the scratch folder only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "public_apps" / "manifest.json"
JUDGEMENTS = HERE / "public_apps" / "judgements.json"
#: The deployment oracles' folders (`model.oracle.OracleKind`), judged like failures.
ORACLES = ("permissions", "idempotency", "batch")
FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>.+)$')


@dataclass(slots=True)
class Finding:
    kind: str  # "failure", "handled", or a deployment oracle's folder ("permissions", ...)
    file: str
    key: str
    derived_key: str
    signature: str
    hits: int
    verdict: str = "UNJUDGED"
    bug: str = ""
    evidence: str = ""


@dataclass(slots=True)
class AppResult:
    id: str
    trigger: str
    exit_code: int | None
    seconds: float
    error: str = ""
    findings: list[Finding] = field(default_factory=list)

    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "failure"]

    def oracle(self) -> list[Finding]:
        """The deployment oracles' findings (permissions/, idempotency/, batch/)."""
        return [f for f in self.findings if f.kind in ORACLES]


def mirror_of(mirrors: Path, repository: str) -> Path:
    base = mirrors / repository.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise SystemExit(
        f"no snapshot of {repository} under {mirrors} (expected {base}/repo, a git directory)"
    )


def extract(git_dir: Path, commit: str, app_path: str, into: Path) -> None:
    """`git archive` the app's folder into INTO; blobs the snapshot lacks are skipped."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    archive = into / ".app.tar"
    with archive.open("wb") as out:
        done = subprocess.run(
            ["git", "--git-dir", str(git_dir), "archive", commit, "--", app_path],
            stdout=out,
            stderr=subprocess.PIPE,
        )
    if done.returncode == 0:
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")
        archive.unlink()
        return
    archive.unlink()
    # A snapshot lacks files of 4 MiB and more: archive refuses, so copy blob by blob.
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", commit, "--", app_path],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for row in listing.splitlines():
        meta, _, path = row.partition("\t")
        mode, kind, sha = meta.split()
        if kind != "blob" or mode == "120000":
            continue
        blob = subprocess.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "blob", sha], capture_output=True
        )
        if blob.returncode != 0:
            print(f"  skipped {path}: not in the snapshot", file=sys.stderr)
            continue
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)


def derived_key(record: dict, app_root: Path) -> str:
    """Exception type | file | function | source line of the innermost application frame."""
    exception = record.get("exception_type") or record.get("status") or "?"
    lines = (record.get("traceback") or "").splitlines()
    root = str(app_root.resolve())
    frame = None
    for index, line in enumerate(lines):
        match = FRAME.match(line)
        if match and match["file"].startswith(root + os.sep):
            source = lines[index + 1].strip() if index + 1 < len(lines) else ""
            frame = (os.path.relpath(match["file"], root), match["function"], source)
    if frame is None:
        return f"{exception} | {record.get('location') or '?'}"
    return f"{exception} | {frame[0]} | {frame[1]} | {frame[2]}"


def bug_key(record: dict) -> str:
    bug = record.get("bug")
    if not bug:
        return ""
    return bug if isinstance(bug, str) else json.dumps(bug, sort_keys=True)


def read_findings(out_dir: Path, app_root: Path) -> list[Finding]:
    found = []
    folders = (("failure", "failures"), ("handled", "handled"), *((k, k) for k in ORACLES))
    for kind, folder in folders:
        for path in sorted((out_dir / folder).glob("*.json")):
            if path.name.endswith(".min.json"):
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
            record = data.get("failure") or data.get("handled") or data
            derived = derived_key(record, app_root)
            key = bug_key(record) or derived
            if kind in ORACLES:  # keyed apart from failures: kind, what (the action), where
                derived = f"{kind}: {record.get('detail') or ''} | {derived}"
                key = derived
            found.append(
                Finding(
                    kind=kind,
                    file=path.name,
                    key=key,
                    derived_key=derived,
                    signature=record.get("signature", ""),
                    hits=int(record.get("hits") or 0),
                )
            )
    return found


def judge(findings: list[Finding], judgements: dict) -> None:
    for finding in findings:
        entry = judgements.get(finding.key) or judgements.get(finding.derived_key)
        if entry is None:
            continue
        finding.verdict = entry["verdict"]
        finding.bug = entry["bug"]
        finding.evidence = entry["evidence"]


def lambdafuzz_command(commit: str, scratch: Path) -> tuple[list[str], dict, str]:
    """The command to run, its environment and the revision it is (`<sha>` or `worktree`)."""
    project = HERE.parent
    if commit == "worktree":
        return [str(Path(sys.executable).parent / "lambdafuzz")], dict(os.environ), "worktree"
    sha = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "--short", commit],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    source = scratch / f"lambdafuzz-{sha}"
    if not (source / "lambdafuzz" / "__main__.py").is_file():
        source.mkdir(parents=True, exist_ok=True)
        tar = subprocess.run(
            ["git", "-C", str(project), "archive", sha, "lambdafuzz"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=tar, check=True)
    env = dict(os.environ, PYTHONPATH=str(source))
    return [sys.executable, "-m", "lambdafuzz"], env, sha


def run_app(app: dict, args: argparse.Namespace, git_dir: Path) -> AppResult:
    app_root = args.scratch / "apps" / app["id"]
    out_dir = args.scratch / "out" / app["id"]
    started = time.monotonic()
    exit_code: int | None = None
    error = ""
    if not args.no_run:
        extract(git_dir, app["commit"], app["app_path"], app_root)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        command = [
            *(["nice", "-n", str(args.nice)] if args.nice else []),
            *args.command,
            "fuzz",
            str(app_root / app["template"]),
            "--function",
            app["function"],
            "--execs",
            str(args.execs),
            "--seed",
            str(args.seed),
            "--out",
            str(out_dir),
            *app.get("flags", []),
        ]
        log = args.scratch / "logs" / f"{app['id']}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("w") as sink:
            try:
                exit_code = subprocess.run(
                    command,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    timeout=args.timeout,
                    env=args.env,
                ).returncode
            except subprocess.TimeoutExpired:
                error = f"timed out after {args.timeout} s"
        if exit_code not in (0, 1, None):
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            error = " / ".join(tail)[:300]
    findings = read_findings(out_dir, app_root) if out_dir.is_dir() else []
    return AppResult(
        id=app["id"],
        trigger=app["trigger"],
        exit_code=exit_code,
        seconds=round(time.monotonic() - started, 1),
        error=error,
        findings=findings,
    )


def totals(results: list[AppResult]) -> dict:
    failures = [f for r in results for f in r.failures()]
    bugs = {(r.id, f.bug) for r in results for f in r.failures() if f.bug}
    real_bugs = {(r.id, f.bug) for r in results for f in r.failures() if f.verdict == "real"}
    counts = Counter(f.verdict for f in failures)
    return {
        "findings": len(failures),
        "distinct_bugs": len(bugs),
        "real_bugs": len(real_bugs),
        "findings_per_bug": round(len(failures) / len(bugs), 2) if bugs else None,
        "real_findings_per_real_bug": (
            round(counts["real"] / len(real_bugs), 2) if real_bugs else None
        ),
        "real": counts["real"],
        "artefact": counts["artefact"],
        "unjudged": counts["UNJUDGED"],
        "handled": sum(1 for r in results for f in r.findings if f.kind == "handled"),
        "oracle": {
            kind: dict(Counter(f.verdict for r in results for f in r.findings if f.kind == kind))
            for kind in ORACLES
        },
    }


def _oracle_cell(result: AppResult, kind: str) -> str:
    """`2 (1 real, 1 artefact)`: one oracle's findings of one app and their verdicts."""
    found = [f for f in result.findings if f.kind == kind]
    if not found:
        return "0"
    verdicts = Counter(f.verdict for f in found)
    return f"{len(found)} (" + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) + ")"


def print_table(results: list[AppResult]) -> None:
    print(
        "| app | trigger | exit | failures (files) | distinct bugs | real | artefact "
        "| unjudged | handled | permissions | batch | idempotency |"
    )
    print("| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |")
    for r in results:
        failures = r.failures()
        verdicts = Counter(f.verdict for f in failures)
        bugs = {f.bug for f in failures if f.bug}
        handled = sum(1 for f in r.findings if f.kind == "handled")
        exit_text = "timeout" if r.error.startswith("timed out") else str(r.exit_code)
        exit_text = "-" if r.exit_code is None and not r.error else exit_text
        print(
            f"| {r.id} | {r.trigger} | {exit_text} | {len(failures)} | {len(bugs)} "
            f"| {verdicts['real']} | {verdicts['artefact']} | {verdicts['UNJUDGED']} "
            f"| {handled} | " + " | ".join(_oracle_cell(r, kind) for kind in ORACLES) + " |"
        )
    t = totals(results)
    print(
        f"\nTotals: {t['findings']} findings, {t['distinct_bugs']} distinct bugs "
        f"({t['real_bugs']} real), findings per distinct bug {t['findings_per_bug']} "
        f"(real findings per real bug {t['real_findings_per_real_bug']}), "
        f"{t['real']} real / {t['artefact']} artefact / {t['unjudged']} unjudged files; "
        f"{t['handled']} handled."
    )
    for r in results:
        if r.error:
            print(f"  {r.id}: {r.error}")
    for kind, verdicts in t["oracle"].items():
        shown = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) or "none"
        print(f"{kind} findings: {shown}")
    artefacts = [
        (r.id, f) for r in results for f in (*r.failures(), *r.oracle()) if f.verdict == "artefact"
    ]
    if artefacts:
        print("\nArtefacts:")
        for app_id, f in artefacts:
            print(f"  {app_id}: [{f.bug}] {f.key}\n      {f.evidence}")
    unjudged = [(r.id, f) for r in results for f in r.findings if f.verdict == "UNJUDGED"]
    if unjudged:
        print("\nUNJUDGED:")
        for app_id, f in unjudged:
            print(f"  {app_id} ({f.kind}): {f.key}\n      {f.file}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--apps", default="", help="comma-separated app ids (default: all)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--judgements", type=Path, default=JUDGEMENTS)
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=Path(os.environ.get("LAMBDAFUZZ_MIRRORS", "/work/.mirror")),
        help="folder of repository snapshots, <owner>+<name>/repo git directories",
    )
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/public_apps"))
    parser.add_argument(
        "--commit",
        default="HEAD",
        help="the lambdafuzz revision to fuzz with: its lambdafuzz/ is archived into the "
        "scratch folder and run with this Python (`worktree`: the installed, edited one)",
    )
    parser.add_argument("--execs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0, help="per app, in seconds")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the campaigns")
    parser.add_argument("--no-run", action="store_true", help="read earlier out dirs only")
    parser.add_argument("--json", type=Path, help="write the raw data here")
    args = parser.parse_args(argv)
    args.scratch = args.scratch.resolve()

    apps = json.loads(args.manifest.read_text())["apps"]
    wanted = [a for a in args.apps.split(",") if a]
    unknown = set(wanted) - {a["id"] for a in apps}
    if unknown:
        parser.error(f"unknown app ids: {sorted(unknown)}")
    if wanted:
        apps = [a for a in apps if a["id"] in wanted]
    judgements = json.loads(args.judgements.read_text()) if args.judgements.exists() else {}

    args.command, args.env, args.revision = lambdafuzz_command(args.commit, args.scratch)
    print(f"lambdafuzz at {args.revision}", file=sys.stderr)
    results = []
    for app in apps:
        git_dir = None if args.no_run else mirror_of(args.mirrors, app["repository"])
        print(f"{app['id']}: {app['function']} in {app['template']}", file=sys.stderr)
        result = run_app(app, args, git_dir)
        judge(result.findings, judgements.get("apps", {}).get(app["id"], {}))
        print(
            f"  exit {result.exit_code}, {len(result.failures())} failures, "
            f"{result.seconds} s {result.error}",
            file=sys.stderr,
        )
        results.append(result)

    print_table(results)
    if args.json:
        data = {
            "lambdafuzz": args.revision,
            "execs": args.execs,
            "seed": args.seed,
            "apps": [asdict(r) for r in results],
            "totals": totals(results),
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
