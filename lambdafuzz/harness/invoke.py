"""Calling a handler as Lambda would: import it, build a context, classify what happened.

Everything here runs inside a worker process (see `worker.py`); nothing here decides what
is interesting, it only reports what one invocation did.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lambdafuzz.errors import HandlerImportError
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.target import OutcomeRules

HandlerT = Callable[[Any, Any], Any]


# ------------------------------------------------------------------------ importing


def import_handler(module: str, function: str, root: Path) -> HandlerT:
    """Import `module` from `root` and return its `function`, with errors users can act on."""
    root_str = str(root)
    if root_str not in sys.path:
        sys.path.insert(0, root_str)
    try:
        mod = importlib.import_module(module)
    except BaseException as exc:  # noqa: BLE001 - a handler's import may raise anything
        where = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        raise HandlerImportError(
            f"cannot import handler module {module!r} from {root_str}: {where}"
        ) from exc
    fn = getattr(mod, function, None)
    if not callable(fn):
        names = [n for n in dir(mod) if callable(getattr(mod, n, None)) and not n.startswith("_")]
        close = difflib.get_close_matches(function, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise HandlerImportError(f"module {module!r} has no function {function!r}{hint}")
    return fn


# ------------------------------------------------------------------------ context
class LambdaContext:
    """The context object AWS passes as the handler's second argument."""

    def __init__(
        self,
        function_name: str,
        *,
        timeout_s: float,
        memory_mb: int,
        request_id: str,
        region: str = "us-east-1",
        account_id: str = "123456789012",
    ) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{region}:{account_id}:function:{function_name}"
        self.memory_limit_in_mb = memory_mb
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = f"2026/01/01/[$LATEST]{request_id.replace('-', '')}"
        self.identity = None
        self.client_context = None
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def request_id_for(seed: int) -> str:
    """A request id that depends only on the input, so replays are identical."""
    return str(uuid.UUID(int=seed & ((1 << 128) - 1), version=4))


# ------------------------------------------------------------------------ outcomes
def returned_status(value: Any, status_from: str) -> int | None:
    """The HTTP-like status a handler returned, if any."""
    if status_from == "return":
        return value if type(value) is int else None
    if isinstance(value, Mapping):
        status = value.get(status_from)
        if type(status) is int:
            return status
        if isinstance(status, str) and status.isdigit():
            return int(status)
    return None


def classify_return(value: Any, rules: OutcomeRules) -> tuple[Status, FailureInfo | None]:
    status = returned_status(value, rules.status_from)
    if status is None:
        return Status.VALID, None
    if status in rules.invalid_status_codes:
        return Status.INVALID, None
    if status in rules.failure_status_codes:
        info = FailureInfo(
            exception_type=f"Status{status}",
            message=f"handler returned {rules.status_from}={status}",
            traceback="",
            location="",
        )
        return Status.FAILURE, info
    return Status.VALID, None


def _matches(exc: BaseException, names: Sequence[str]) -> bool:
    for cls in type(exc).__mro__:
        if cls.__name__ in names or f"{cls.__module__}.{cls.__qualname__}" in names:
            return True
    return False


def classify_exception(
    exc: BaseException, rules: OutcomeRules, app_dirs: Sequence[str]
) -> tuple[Status, FailureInfo | None]:
    from lambdafuzz.harness.safety import sandbox_violation

    violation = sandbox_violation(exc)
    if violation is not None:
        info = failure_info(exc, app_dirs)
        return Status.FAILURE, FailureInfo(
            exception_type="lambdafuzz.SandboxViolation",
            message=str(violation),
            traceback=info.traceback,
            location=info.location,
            cause=info.exception_type,
        )
    if _matches(exc, rules.invalid_exceptions) and not _matches(exc, rules.failure_exceptions):
        return Status.INVALID, None
    return Status.FAILURE, failure_info(exc, app_dirs)


def failure_info(exc: BaseException, app_dirs: Sequence[str]) -> FailureInfo:
    tb_text = "".join(traceback.format_exception(exc))
    location = innermost_app_frame(exc, app_dirs)
    cause_exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    cause = type(cause_exc).__name__ if cause_exc is not None else ""
    return FailureInfo(
        exception_type=_type_name(exc),
        message=str(exc)[:2000],
        traceback=tb_text[-20_000:],
        location=location,
        cause=cause,
    )


def _type_name(exc: BaseException) -> str:
    cls = type(exc)
    if cls.__module__ in ("builtins", "__main__"):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def innermost_app_frame(exc: BaseException, app_dirs: Sequence[str]) -> str:
    """`relative/file.py:line` of the deepest traceback frame inside the application."""
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        filename = os.path.realpath(tb.tb_frame.f_code.co_filename)
        for root in app_dirs:
            if filename.startswith(root + os.sep) or filename == root:
                rel = os.path.relpath(filename, os.path.dirname(root))
                found = f"{rel}:{tb.tb_lineno}"
                break
        tb = tb.tb_next
    return found
