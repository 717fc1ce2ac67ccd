"""The function's IAM permissions and what one AWS call needs of them.

Permission denied is the most common symptom of real serverless faults: a handler whose
rare path calls an action its role does not grant passes every test against an emulator
that allows everything, and fails in production with `AccessDenied`. lambdafuzz knows the
role (the template's `Policies`, `Role` and `Connectors`, or `permissions:` in the config)
and records every call a test makes, so it can answer as IAM would without changing what
the emulator answers.

Plain frozen dataclasses: the config layer builds a `Policy`, the worker turns each call
into the `Permission`s it needs, `model.policy_evaluation` decides each one.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class Effect(enum.StrEnum):
    ALLOW = "Allow"
    DENY = "Deny"


@dataclass(slots=True, frozen=True)
class Statement:
    """One IAM policy statement, as the role would hold it once deployed.

    Action and resource patterns keep IAM's wildcards (`*`, `?`); `conditional` says the
    statement has a `Condition` block, which lambdafuzz does not evaluate (a decision that
    rests on one says so). `source` names where the statement came from, for a reader:
    `Policies[0]: DynamoDBCrudPolicy (TableName: orders)`, `Role MyRole: Policies[1]`."""

    effect: Effect
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] = ()
    conditional: bool = False
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        """The statement in IAM's JSON form (what `permissions:` holds), with its source."""
        out: dict[str, Any] = {"Effect": self.effect.value}
        for key, values in (
            ("Action", self.actions),
            ("NotAction", self.not_actions),
            ("Resource", self.resources),
            ("NotResource", self.not_resources),
        ):
            if values:
                out[key] = list(values)
        if self.conditional:
            out["Condition"] = "not evaluated"
        if self.source:
            out["Sid"] = self.source
        return out


def statement_from_json(data: Mapping[str, Any], source: str = "") -> Statement:
    """An IAM JSON statement -> `Statement`. Raises ValueError naming what is wrong: the
    config layer turns it into a config error."""
    if not isinstance(data, Mapping):
        raise ValueError("a statement is a mapping {Effect, Action, Resource}")
    effect = data.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise ValueError(f"Effect must be Allow or Deny, not {effect!r}")
    lists = {key: _strings(data.get(key), key) for key in _LIST_KEYS}
    if bool(lists["Action"]) == bool(lists["NotAction"]):
        raise ValueError("a statement has exactly one of Action and NotAction")
    if bool(lists["Resource"]) == bool(lists["NotResource"]):
        raise ValueError("a statement has exactly one of Resource and NotResource")
    sid = data.get("Sid")
    return Statement(
        effect=Effect(effect),
        actions=lists["Action"],
        not_actions=lists["NotAction"],
        resources=lists["Resource"],
        not_resources=lists["NotResource"],
        conditional=bool(data.get("Condition")),
        source=source or (str(sid) if sid else ""),
    )


_LIST_KEYS = ("Action", "NotAction", "Resource", "NotResource")


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"{key} must be a string or a list of strings")


@dataclass(slots=True, frozen=True)
class Policy:
    """Everything the function's role is granted, as far as lambdafuzz can know it.

    `unknown` lists grants whose statements cannot be known here (a managed policy that is
    not in lambdafuzz's table, a role defined outside the template): each may allow
    anything, so a call no known statement allows is reported as "not granted by the
    known statements", never as certainly denied."""

    statements: tuple[Statement, ...] = ()
    unknown: tuple[str, ...] = ()

    @classmethod
    def of(cls, statements: Iterable[Statement], unknown: Iterable[str] = ()) -> Policy:
        return cls(tuple(statements), tuple(unknown))


@dataclass(slots=True, frozen=True, order=True)
class Permission:
    """One IAM action on one resource: what one AWS call needs (a call may need several:
    `CopyObject` reads its source and writes its destination). `resource` is an ARN, or
    `*` for actions that take no resource (`sqs:ListQueues`) or whose resource the call
    does not say."""

    action: str  # "s3:GetObject"
    resource: str  # "arn:aws:s3:::uploads/a.csv"


@dataclass(slots=True, frozen=True)
class AwsCall:
    """One AWS API call a test made, with the permissions it needs."""

    operation: str  # botocore's "s3.CopyObject"
    needs: tuple[Permission, ...]


@dataclass(slots=True, frozen=True)
class PermissionUse:
    """What one test's AWS calls needed of the policy: the least-privilege report's data.

    `granted` pairs an action (`s3:GetObject`) with the index in `Policy.statements` of the
    statement that granted it; `undecided` holds the permissions only an unknown grant
    (`Policy.unknown`) might allow."""

    granted: frozenset[tuple[str, int]] = frozenset()
    undecided: frozenset[Permission] = frozenset()
