"""Confirm the real-world set's known bugs with their hand-made inputs (issue 42).

For each bug, `confirm_bug` runs `realworld_invoke.py` in a fresh process (this Python, cwd
the handler's code root, 60 s at most) with fake AWS credentials, the region of the input
(default us-east-1), no AWS profile or endpoint of the caller's environment, and the
input's `env` over the template's or config's plain environment.  The bug is CONFIRMED
when its exception (last dotted component, or a ClientError's code) is raised at its file,
function and line text: escaping the handler for `kind: failure`, caught in the app's code
for `kind: handled`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from realworld_apps import Code, Handler, KnownBug

HERE = Path(__file__).resolve().parent
INVOKE = HERE / "realworld_invoke.py"
TIMEOUT_S = 60.0
#: Variables of the caller's environment that could point boto3 at a real account.
DROPPED_PREFIXES = ("AWS_", "BOTO_", "MOTO_")
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


@dataclass(slots=True)
class Confirmation:
    handler: str
    bug: str
    confirmed: bool
    what: str  # what happened, one line
    result: dict[str, Any] | None = None


def environment(code: Code, payload: dict[str, Any]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(DROPPED_PREFIXES) and k not in ("PYTHONPATH", "PYTHONSTARTUP")
    }
    region = str(payload.get("region") or "us-east-1")
    env.update(FAKE_AWS)
    env.update(
        AWS_DEFAULT_REGION=region,
        AWS_REGION=region,
        AWS_LAMBDA_FUNCTION_NAME=code.function_name,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE="128",
        AWS_LAMBDA_FUNCTION_VERSION="$LATEST",
        LAMBDA_TASK_ROOT=str(code.root),
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(code.env)
    env.update({str(k): str(v) for k, v in (payload.get("env") or {}).items()})
    return env


def describe(raised: dict[str, Any] | None) -> str:
    if not raised:
        return "?"
    frame = raised.get("frame")
    code = f" [{raised['error_code']}]" if raised.get("error_code") else ""
    where = (
        f" at {frame['file']} in {frame['function']}: {frame['code']}"
        if frame
        else " outside the app's code"
    )
    return f"{raised['exception']}{code}{where} ({raised.get('message', '')[:120]})"


def _matches(bug: KnownBug, raised: dict[str, Any] | None) -> bool:
    if not raised or not raised.get("frame"):
        return False
    frame = raised["frame"]
    return bug.matches(
        raised["exception"],
        raised.get("error_code", ""),
        frame["file"],
        frame["function"],
        frame["code"],
    )


def judge(bug: KnownBug, result: dict[str, Any]) -> tuple[bool, str]:
    outcome = result["outcome"]
    raised = result.get("raised")
    if bug.kind == "handled":
        handled = result.get("handled") or []
        if any(_matches(bug, h) for h in handled):
            return True, f"handled {describe(next(h for h in handled if _matches(bug, h)))}"
        seen = "; ".join(describe(h) for h in handled[:4]) or "no exception caught in app code"
        tail = f"; then {outcome} {describe(raised)}" if raised else f"; then {outcome}"
        return False, f"handled: {seen}{tail}"
    if outcome == "raised" and _matches(bug, raised):
        return True, f"raised {describe(raised)}"
    if outcome == "returned":
        return False, f"returned {result.get('returned', '')[:160]}"
    return False, f"{outcome} {describe(raised)}"


def run_input(code: Code, app_dir: Path, input_path: Path) -> dict[str, Any]:
    """The outcome of one input (a `realworld_invoke.Result` as JSON, or an error)."""
    payload = json.loads(input_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="realworld-") as tmp:
        spec_path, result_path = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        spec = {
            "handler": code.handler,
            "sys_path": [str(p) for p in code.sys_path],
            "app_dir": str(app_dir),
            "input": str(input_path.resolve()),
            "function_name": code.function_name,
        }
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, str(INVOKE), str(spec_path), str(result_path)],
                cwd=code.root,
                env=environment(code, payload),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "raised": None, "detail": f"over {TIMEOUT_S:.0f} s"}
        if not result_path.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return {
                "outcome": f"died (exit {done.returncode})",
                "raised": None,
                "detail": " / ".join(tail)[:300],
            }
        return json.loads(result_path.read_text(encoding="utf-8"))


def confirm_bug(
    handler: Handler, bug: KnownBug, code: Code, app_dir: Path, data_dir: Path
) -> Confirmation:
    input_path = data_dir / bug.input
    if not bug.input or not input_path.is_file():
        return Confirmation(handler.id, bug.id, False, f"no input file {bug.input!r}")
    try:
        result = run_input(code, app_dir, input_path)
    except (OSError, json.JSONDecodeError) as exc:
        return Confirmation(handler.id, bug.id, False, f"input unreadable: {exc}")
    if "detail" in result:
        return Confirmation(handler.id, bug.id, False, f"{result['outcome']}: {result['detail']}")
    confirmed, what = judge(bug, result)
    return Confirmation(handler.id, bug.id, confirmed, what, result)
