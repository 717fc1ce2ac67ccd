"""The real-world set: handlers nobody here wrote, their known bugs confirmed, fuzzed and
scored (issue 42).

    python benchmarks/realworld.py --confirm [--handlers a,b]
    python benchmarks/realworld.py [--handlers a,b] [--strategies frontier,zest,spoton]
                                   [--seeds 1,2,3] [--execs 3000 | --time 120]
                                   [--commit REV|worktree] [--jobs 1] [--nice 10]
                                   [--timeout S] [--json FILE] [--no-run]

`benchmarks/realworld/manifest/<id>.json` describes each handler (repository, commit, the
folder extracted, its template and function or its config, its known bugs with the
hand-made input of each); `benchmarks/realworld/README.md` gives the format.  Each
handler's folder is extracted from its repository's snapshot (a git directory under
`--mirrors`, `<owner>+<name>/repo` or `<owner>+<name>`) into `--scratch/apps/<id>/` with
`git archive` (`realworld_apps.py`).

`--confirm` runs every known bug's input against its handler under moto, one fresh process
each (`realworld_confirm.py`, `realworld_invoke.py`), and prints CONFIRMED or NOT CONFIRMED
with what happened instead; it exits 1 when any bug is not confirmed.

Without it, every handler x strategy x seed is one campaign,

    lambdafuzz fuzz <template|config> [--function F] --strategy S --seed N --execs E
                    --out <scratch>/out/<revision>/<S>-s<N>-<budget>/<id> [flags]

(`--jobs` at a time), run by the revision `--commit` names (its lambdafuzz/ archived into
the scratch folder and run with this Python, as `public_apps.py` does; `worktree`, the
default, runs the edited tree).  The out dirs' `failures/` and `handled/` are scored
(`realworld_score.py`): a known bug is found when a finding of its kind has its exception
and its frame; findings matching none are looked up in `realworld/judgements.json`.
`--no-run` scores the out dirs of an earlier run.  The report is markdown on stdout;
`--json` writes everything raw.

No third-party code is kept in this repository: the apps live in the scratch folder only.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import realworld_apps  # noqa: E402
import realworld_campaigns  # noqa: E402
from realworld_confirm import confirm_bug  # noqa: E402

DATA = HERE / "realworld"


def confirm(args: argparse.Namespace, handlers: list[realworld_apps.Handler]) -> int:
    failed = 0
    total = 0
    for handler in handlers:
        try:
            app_dir = realworld_apps.extract_app(handler, args.mirrors, args.scratch)
            code = realworld_apps.locate_code(handler, app_dir, args.data_dir)
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - reported per handler
            for bug in handler.bugs:
                print(f"NOT CONFIRMED  {bug.id}: handler not set up: {exc}")
            failed += len(handler.bugs)
            total += len(handler.bugs)
            continue
        for bug in handler.bugs:
            total += 1
            result = confirm_bug(handler, bug, code, app_dir, args.data_dir)
            if result.confirmed:
                print(f"CONFIRMED      {bug.id}: {result.what}")
            else:
                failed += 1
                print(f"NOT CONFIRMED  {bug.id}: expected {bug.kind} {bug.where()}")
                print(f"               got {result.what}")
            sys.stdout.flush()
    print(f"\n{total - failed} of {total} bugs confirmed in {len(handlers)} handlers")
    return 1 if failed else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--confirm", action="store_true", help="run the hand-made inputs")
    parser.add_argument("--handlers", default="", help="comma-separated ids (default: all)")
    parser.add_argument("--manifest-dir", type=Path, default=DATA / "manifest")
    parser.add_argument(
        "--judgements", type=Path, help="default: judgements.json beside the manifest dir"
    )
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=Path(os.environ.get("LAMBDAFUZZ_MIRRORS", "/work/.mirror")),
        help="folder of repository snapshots, <owner>+<name>/repo git directories",
    )
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path("/var/tmp/realworld"),
        help="apps and out dirs; outside /tmp, so that each worker gets a private /tmp "
        "(code under /tmp would vanish behind it, and handlers writing fixed /tmp paths "
        "would collide across parallel campaigns)",
    )
    parser.add_argument("--strategies", default="frontier")
    parser.add_argument("--seeds", default="1")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--execs", type=int, help="per campaign (default 3000)")
    budget.add_argument("--time", type=float, help="seconds per campaign")
    parser.add_argument(
        "--commit",
        default="worktree",
        help="the lambdafuzz revision to fuzz with (`worktree`: the edited tree)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="campaigns in parallel")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the campaigns")
    parser.add_argument(
        "--timeout", type=float, help="per campaign, seconds (default: budget-based)"
    )
    parser.add_argument("--no-run", action="store_true", help="score earlier out dirs only")
    parser.add_argument("--json", type=Path, help="write the raw data here")
    args = parser.parse_args(argv)
    args.scratch = args.scratch.resolve()
    args.manifest_dir = args.manifest_dir.resolve()
    args.data_dir = args.manifest_dir.parent
    if args.judgements is None:
        args.judgements = args.data_dir / "judgements.json"
    if args.execs is None and args.time is None:
        args.execs = 3000
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = [h for h in args.handlers.split(",") if h]
    handlers = realworld_apps.load_handlers(args.manifest_dir, wanted)
    if args.confirm:
        return confirm(args, handlers)
    return realworld_campaigns.run_and_score(args, handlers)


if __name__ == "__main__":
    sys.exit(main())
