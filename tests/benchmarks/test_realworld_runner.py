"""benchmarks/realworld.py on a set made here: a 10-line handler in a tiny git repository,
its manifest entry and inputs; `--confirm` runs them under moto, and a hand-written out
dir is scored (found / missed, executions to first find, unmatched findings judged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.sam import template_text

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import realworld  # noqa: E402
from realworld_apps import KnownBug  # noqa: E402
from realworld_confirm import judge  # noqa: E402

HANDLER = """\
import os


def main(event, context):
    order = event["order"]  # the event's order
    try:
        qty = int(order.get("qty", "1"))
    except ValueError:
        qty = 1
    return {"table": os.environ["TABLE"], "qty": qty, "name": context.function_name}
"""

FAILURE_CODE = 'order = event["order"]'
HANDLED_CODE = 'qty = int(order.get("qty", "1"))'


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _bug(name: str, kind: str, exception: str, code: str) -> dict:
    return {
        "id": f"tiny/{name}",
        "class": "event-shape",
        "kind": kind,
        "where": {"file": "handler.py", "function": "main", "code": code, "exception": exception},
        "description": "test",
        "input": f"inputs/tiny/{name}.json",
    }


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    work = tmp_path / "work"
    (work / "shop" / "app").mkdir(parents=True)
    (work / "shop" / "app" / "handler.py").write_text(HANDLER)
    (work / "shop" / "template.yaml").write_text(template_text("realworld_runner", "tiny_shop"))
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("commit", "-q", "-m", "shop", cwd=work)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=work, capture_output=True, text=True, check=True
    ).stdout.strip()
    mirrors = tmp_path / "mirrors"
    _git("clone", "-q", "--bare", str(work), str(mirrors / "someone+shop" / "repo"), cwd=tmp_path)

    data = tmp_path / "set"
    (data / "manifest").mkdir(parents=True)
    (data / "inputs" / "tiny").mkdir(parents=True)
    entry = {
        "id": "tiny",
        "repository": "someone/shop",
        "commit": commit,
        "app_path": "shop",
        "files": ["shop/app/handler.py"],
        "handler": "handler.main",
        "trigger": "direct",
        "template": "shop/template.yaml",
        "function": "OrderFunction",
        "flags": [],
        "bugs": [
            _bug("no-order", "failure", "KeyError", FAILURE_CODE),
            _bug("qty-text", "handled", "ValueError", HANDLED_CODE),
        ],
    }
    (data / "manifest" / "tiny.json").write_text(json.dumps(entry))
    s3 = {"inbox": {"a/b.txt": {"text": "hi", "content_type": "text/plain"}}}
    table = {"hash_key": ["pk", "S"], "items": [{"pk": "ORDER#1", "total": 2.5}]}
    inputs = {
        "no-order": {"env": {"TABLE": "orders"}, "world": {"s3": s3}, "event": {}},
        "qty-text": {
            "env": {"TABLE": "orders"},
            "world": {"dynamodb": {"orders": table}, "sqs": {"q": [{"a": 1}]}, "sns": ["t"]},
            "event": {"order": {"qty": "x"}},
        },
    }
    for name, payload in inputs.items():
        (data / "inputs" / "tiny" / f"{name}.json").write_text(json.dumps(payload))
    return {"mirrors": mirrors, "data": data, "scratch": tmp_path / "scratch"}


def _args(world: dict[str, Path], *more: str) -> list[str]:
    return [
        "--manifest-dir",
        str(world["data"] / "manifest"),
        "--mirrors",
        str(world["mirrors"]),
        "--scratch",
        str(world["scratch"]),
        *more,
    ]


def test_confirm_runs_each_input_under_moto(world: dict[str, Path], capsys) -> None:
    assert realworld.main(_args(world, "--confirm")) == 0
    out = capsys.readouterr().out
    assert "CONFIRMED      tiny/no-order: raised builtins.KeyError at handler.py in main" in out
    assert "CONFIRMED      tiny/qty-text: handled builtins.ValueError at handler.py" in out
    assert "2 of 2 bugs confirmed" in out
    assert (world["scratch"] / "apps" / "tiny" / "shop" / "app" / "handler.py").is_file()


def test_judge_says_what_happened_instead() -> None:
    bug = KnownBug.from_json(_bug("x", "failure", "KeyError", FAILURE_CODE))
    frame = {"file": "handler.py", "function": "main", "code": FAILURE_CODE}
    raised = {"exception": "builtins.KeyError", "error_code": "", "message": "", "frame": frame}
    assert judge(bug, {"outcome": "raised", "raised": raised})[0]
    wrong = dict(raised, exception="builtins.ValueError")
    confirmed, what = judge(bug, {"outcome": "raised", "raised": wrong})
    assert not confirmed and "ValueError at handler.py in main" in what
    assert judge(bug, {"outcome": "returned", "returned": "{}"}) == (False, "returned {}")
    # an AWS error code stands for the class name (lambdafuzz names botocore's classes)
    aws = KnownBug.from_json(_bug("y", "failure", "NoSuchKey", FAILURE_CODE))
    client = dict(raised, exception="botocore.exceptions.ClientError", error_code="NoSuchKey")
    assert judge(aws, {"outcome": "raised", "raised": client})[0]


def _record(exception: str, line: int, code: str, first: list[int]) -> dict:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/x/lambdafuzz/harness/process/worker.py", line 552, in _run\n'
        "    value = self.handler(event, context)\n"
        f'  File "/tmp/lf/base/app/handler.py", line {line}, in main\n'
        f"    {code}\n"
        f"{exception}: boom\n"
    )
    variants = [{"record": {"first_exec": n, "first_time_s": n / 10, "hits": 1}} for n in first]
    return {
        "failure": {
            "bug": f"{exception} at handler.py in main: {code.split('  #')[0]}",
            "exception_type": exception,
            "location": f"handler.py:{line}",
            "traceback": traceback,
            "first_exec": first[0],
            "hits": len(first),
            "variants": variants,
        }
    }


def test_scoring_counts_found_missed_and_unmatched(world: dict[str, Path], capsys) -> None:
    out = world["scratch"] / "out" / "worktree" / "frontier-s1-300e" / "tiny"
    (out / "failures").mkdir(parents=True)
    (out / "handled").mkdir()
    failure = _record("KeyError", 5, FAILURE_CODE + "  # the event's order", [9, 4])
    (out / "failures" / "KeyError-a.json").write_text(json.dumps(failure))
    other = _record("TypeError", 10, 'return {"table": os.environ["TABLE"]}', [12])
    (out / "failures" / "TypeError-b.json").write_text(json.dumps(other))
    # the handled bug's exception, but as a failure: its kind differs, so it is not found
    (out / "failures" / "ValueError-c.json").write_text(
        json.dumps(_record("ValueError", 7, HANDLED_CODE, [3]))
    )
    stats = {"execs": 300, "execs_per_sec": 150.0, "elapsed_s": 2.0}
    (out / "stats.json").write_text(json.dumps(stats))
    judgements = {
        "handlers": {
            "tiny": {
                'TypeError at handler.py in main: return {"table": os.environ["TABLE"]}': {
                    "verdict": "real",
                    "bug": "table-env",
                    "evidence": "test",
                }
            }
        }
    }
    (world["data"] / "judgements.json").write_text(json.dumps(judgements))
    raw = world["scratch"] / "raw.json"
    code = realworld.main(_args(world, "--no-run", "--execs", "300", "--json", str(raw)))
    assert code == 0
    data = json.loads(raw.read_text())
    bugs = {b["bug"]: b for b in data["campaigns"][0]["score"]["bugs"]}
    assert bugs["tiny/no-order"]["found"] and bugs["tiny/no-order"]["first_exec"] == 4
    assert not bugs["tiny/qty-text"]["found"]
    assert data["totals"]["frontier-s1"] == {
        "found": 1,
        "known": 2,
        "percent": 50.0,
        "unmatched": 2,
    }
    report = capsys.readouterr().out
    assert "| tiny/no-order | event-shape | failure | 4 |" in report
    assert "| tiny/qty-text | event-shape | handled | - |" in report
    assert "- real [table-env] tiny (failure)" in report
    assert "- UNJUDGED tiny (failure): `ValueError at handler.py in main" in report
    assert "| tiny | 150.0 |" in report
