"""The permission oracle in the worker: every AWS call the handler makes, checked as IAM would.

One botocore `before-parameter-build` handler, registered among botocore's built-in handlers
before any session exists (as `cost_meter` does), sees each call's operation and the
parameters the caller passed, on both AWS paths. The call's IAM permissions
(`harness.iam_actions`) are decided against the function's policy, resolved once against the
loaded world (`model.target.resolve_policy`); the emulator still answers every call, so a
campaign goes on to find what lies behind a denied one.

A call no statement allows becomes an `OracleFinding` located at the application line that
made it, with what production would answer and the statement that would allow it. A call
that only unknown grants might allow (a managed policy lambdafuzz has no document for) is
*undecided*, not a finding: the report lists it. Calls the handler's import makes are
checked too and reported with the first test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from lambdafuzz.harness.invoke import app_caller, app_stack_text
from lambdafuzz.harness.oracle.iam_actions import permissions_of
from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.permissions import Permission, PermissionUse, Policy
from lambdafuzz.model.policy_evaluation import Decision, Verdict, evaluate, suggest

#: What production answers a call its role does not allow.
ACCESS_DENIED = "AccessDenied"
#: Decisions kept per worker: a permission names the object or item it acts on, so a
#: campaign's calls name ever new ones; past this many the cache starts again.
MAX_DECISIONS = 4096


@dataclass(slots=True)
class _Seen:
    """One test's calls so far."""

    findings: list[OracleFinding] = field(default_factory=list)
    keys: set[tuple[str, str, str]] = field(default_factory=set)  # one finding per key
    granted: set[tuple[str, int]] = field(default_factory=set)
    undecided: set[Permission] = field(default_factory=set)


class PermissionCheck:
    """Decides every AWS call made between `begin()` and `end()` (and during the import)."""

    def __init__(self, app_dirs: Sequence[str], region: str, account: str) -> None:
        self.app_dirs = tuple(app_dirs)
        self.region = region
        self.account = account
        self.policy: Policy | None = None
        self._active = False
        self._seen = _Seen()
        self._decisions: dict[Permission, Decision] = {}
        self._stacks: dict[tuple[str, str, str], str] = {}  # formatted once per finding key

    def install(self) -> None:
        """Hook botocore: before any boto3/botocore session is created."""
        from botocore import handlers

        entry = ("before-parameter-build", self._on_call)
        if entry not in handlers.BUILTIN_HANDLERS:
            handlers.BUILTIN_HANDLERS.append(entry)

    def use(self, policy: Policy) -> None:
        """The function's policy, its references resolved against the loaded world."""
        self.policy = policy
        self._decisions.clear()

    def begin(self) -> None:
        """Check the calls from here on; what was seen since the last `end()` (the
        import's calls, before the first test) stays with this test."""
        self._active = True

    def pause(self) -> None:
        """Stop checking until the next `begin()` (the handler returned)."""
        self._active = False

    def end(self) -> tuple[tuple[OracleFinding, ...], PermissionUse]:
        """Stop checking; the test's findings and what its calls used."""
        self._active = False
        seen, self._seen = self._seen, _Seen()
        use = PermissionUse(frozenset(seen.granted), frozenset(seen.undecided))
        return tuple(seen.findings), use

    def _on_call(self, params: Any = None, model: Any = None, **_: Any) -> None:
        """botocore's `before-parameter-build`: `params` are the caller's parameters."""
        if not self._active or model is None or self.policy is None:
            return
        self._active = False  # what this handler itself triggers is not the handler's call
        try:
            service = model.service_model.service_name
            needs = permissions_of(
                service,
                model.name,
                params if isinstance(params, Mapping) else {},
                self.region,
                self.account,
            )
            for permission in needs:
                self._decide(f"{service}.{model.name}", permission)
        finally:
            self._active = True

    def _decide(self, operation: str, permission: Permission) -> None:
        decision = self._decisions.get(permission)
        if decision is None:
            if len(self._decisions) >= MAX_DECISIONS:  # object keys vary with every test
                self._decisions.clear()
            decision = self._decisions[permission] = evaluate(self.policy, permission)
        seen = self._seen
        if decision.verdict is Verdict.ALLOWED:
            if decision.statement is not None:
                index = _index(self.policy, decision.statement)
                seen.granted.add((permission.action, index))
            return
        if decision.verdict is Verdict.NOT_GRANTED and not decision.certain:
            seen.undecided.add(permission)
            return
        permission = decision.permission
        allow = suggest(permission)
        pattern = allow.resources[0] if allow.resources else permission.resource
        frame, location = self._caller()
        key = (permission.action, pattern, location)
        if key not in seen.keys:  # a loop making the same call: one finding a test
            seen.keys.add(key)
            seen.findings.append(self._finding(operation, decision, allow, frame, key))

    def _finding(
        self,
        operation: str,
        decision: Decision,
        allow: Any,
        frame: FrameType | None,
        key: tuple[str, str, str],
    ) -> OracleFinding:
        permission = decision.permission
        _, pattern, location = key
        stack = self._stacks.get(key)
        if stack is None:
            stack = self._stacks[key] = app_stack_text(frame, self.app_dirs)
        if decision.verdict is Verdict.DENIED:
            why = f"denied by the statement {_source(decision)}"
        else:
            why = "no statement of the function's role allows it"
        message = f"{operation} needs {permission.action} on {permission.resource}: {why}"
        info = FailureInfo(
            exception_type=ACCESS_DENIED,
            message=message,
            traceback=stack,
            location=location,
            detail=permission.action,
            shape=pattern,
        )
        evidence = _evidence(decision, allow)
        return OracleFinding(OracleKind.PERMISSIONS, info, evidence)

    def _caller(self) -> tuple[Any, str]:
        """The innermost application frame making the call, and its `app/h.py:12`; the
        innermost frame outside botocore and boto3 when no application frame is on the
        stack (a library of the handler's making the call)."""
        start = sys._getframe(1)
        frame, location = app_caller(start, self.app_dirs)
        if frame is not None:
            return frame, location
        while start is not None:
            name = start.f_code.co_filename
            if name != __file__ and "botocore" not in name and "boto3" not in name:
                return start, f"{name}:{start.f_lineno} in {start.f_code.co_name}"
            start = start.f_back
        return None, ""


def _index(policy: Policy | None, statement: Any) -> int:
    try:
        return policy.statements.index(statement) if policy is not None else -1
    except ValueError:
        return -1


def _source(decision: Decision) -> str:
    statement = decision.statement
    if statement is None:
        return "(unnamed)"
    return statement.source or json.dumps(statement.to_json())


def _evidence(decision: Decision, allow: Any) -> str:
    """What a reader acts on: production's answer, and the statement that would allow it."""
    lines = [
        f"In production: {ACCESS_DENIED} ({decision.permission.action} on "
        f"{decision.permission.resource}).",
    ]
    if decision.verdict is Verdict.DENIED:
        lines.append(f"Denied by: {_source(decision)}")
    else:
        lines.append("A statement that would allow it:")
        lines.append(json.dumps({k: v for k, v in allow.to_json().items() if k != "Sid"}))
    if decision.conditions:
        names = ", ".join(s.source or "unnamed" for s in decision.conditions)
        lines.append(f"Conditions not evaluated: {names}")
    return "\n".join(lines)
