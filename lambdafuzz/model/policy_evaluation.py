"""Deciding one permission against the function's policy, as IAM decides identity policies.

IAM's evaluation logic for a single account's identity policies: an explicit Deny that
matches wins; otherwise any matching Allow allows; otherwise the call is implicitly denied
(`Verdict.NOT_GRANTED`). Matching, as IAM documents it:

* Actions compare case-insensitively with `*` (any run of characters) and `?` (one
  character): `s3:Get*`, `dynamodb:*Item`, `*`. `NotAction` matches every action it does
  not list.
* Resources compare case-sensitively with the same wildcards; `*` crosses `/` and `:`
  (`arn:aws:s3:::b/*` matches `arn:aws:s3:::b/a/b.csv`). `NotResource` matches every
  resource it does not list.

What lambdafuzz cannot know is never turned into a finding (precision over recall):

* `Condition` blocks are not evaluated. A conditional Deny is not applied, a conditional
  Allow counts as allowing; both are listed in `Decision.conditions` and the decision is
  not `certain`. A statement whose resource patterns hold a policy variable
  (`${aws:username}`) is treated the same way, its resources matching everything.
* A permission whose resource is `*` (the call named none, or the action takes none) is
  allowed by any Allow that covers the action, whatever its resources; a Deny applies to it
  only when one of its resource patterns is all stars (it denies everything).
* `Policy.unknown` grants may allow anything: a `NOT_GRANTED` decision is then not certain.

Secrets Manager appends `-` and six random characters to every secret's name in its ARN
(`secret:db-creds-AbCdEf`), and a call usually names the secret without them, so the
permission's resource is the suffix-free `...:secret:db-creds`. The one special case here:
a pattern matches a secret resource if it matches it as it is, or with `-` and any six
letters or digits appended (so `secret:db-creds-??????`, `secret:db-creds-*`,
`secret:db-creds*` and a full ARN with its real suffix all match). `suggest` writes the
`-??????` form.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lambdafuzz.model.permissions import Effect, Permission, Policy, Statement


class Verdict(enum.StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"  # an explicit Deny matches
    NOT_GRANTED = "not granted"  # no Allow matches: IAM's implicit deny


@dataclass(frozen=True, slots=True)
class Decision:
    """What IAM would answer one permission, and what the answer rests on.

    `statement` is the Allow that grants it (an unconditional one when there is one) or the
    Deny that denies it; `conditions` the matching statements lambdafuzz could not evaluate
    (a `Condition`, a policy variable); `unknown` the policy's unknown grants, set on a
    `NOT_GRANTED` decision (any of them may allow it)."""

    permission: Permission
    verdict: Verdict
    statement: Statement | None = None
    conditions: tuple[Statement, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOWED

    @property
    def certain(self) -> bool:
        """Whether IAM would answer the same whatever lambdafuzz could not evaluate: False
        for an Allow that rests on a conditional statement or that a conditional Deny may
        override, and for a `NOT_GRANTED` that an unknown grant may allow."""
        if self.verdict is Verdict.DENIED:
            return True
        if self.verdict is Verdict.NOT_GRANTED:
            return not self.unknown
        return self.statement not in self.conditions and not any(
            s.effect is Effect.DENY for s in self.conditions
        )

    def describe(self) -> str:
        """One line for a reader: `s3:GetObject on arn:aws:s3:::b/k: not granted (...)`."""
        head = f"{self.permission.action} on {self.permission.resource}: {self.verdict}"
        notes = []
        if self.statement is not None and self.statement.source:
            notes.append(f"by {self.statement.source}")
        if self.conditions:
            notes.append(f"{len(self.conditions)} statement(s) not evaluated")
        if self.unknown:
            notes.append(f"unknown grants may allow it: {', '.join(self.unknown)}")
        return f"{head} ({'; '.join(notes)})" if notes else head


def evaluate(policy: Policy, permission: Permission) -> Decision:
    """IAM's answer to `permission` under `policy` (identity policies, one account)."""
    action = permission.action.lower()
    resource = permission.resource
    deny: Statement | None = None
    allow: Statement | None = None
    conditions: list[Statement] = []
    for statement in policy.statements:
        if not _action_matches(statement, action):
            continue
        undecidable = _undecidable(statement)
        if statement.effect is Effect.DENY:
            if not _resource_matches(statement, resource, undecidable):
                continue
            if undecidable:
                conditions.append(statement)
            elif deny is None:
                deny = statement
        elif undecidable or _resource_matches(statement, resource, False):
            if undecidable:
                conditions.append(statement)
            if allow is None or (allow in conditions and not undecidable):
                allow = statement
    if deny is not None:
        return Decision(permission, Verdict.DENIED, deny, tuple(conditions))
    if allow is not None:
        return Decision(permission, Verdict.ALLOWED, allow, tuple(conditions))
    return Decision(permission, Verdict.NOT_GRANTED, None, tuple(conditions), policy.unknown)


def suggest(permission: Permission) -> Statement:
    """The Allow statement a reviewer would add so that `permission` is granted: that one
    action on that resource, widened only where the resource is one of many alike (an S3
    object -> the bucket's objects `b/*`, a DynamoDB index -> the table's indexes
    `table/T/index/*`, a secret -> its ARN with the `-??????` suffix)."""
    return Statement(
        effect=Effect.ALLOW,
        actions=(permission.action,),
        resources=(_suggested_resource(permission.resource),),
    )


def _suggested_resource(resource: str) -> str:
    parts = resource.split(":", 6)
    if len(parts) < 6 or parts[0] != "arn":
        return resource
    service, rest = parts[2], ":".join(parts[5:])
    if service == "s3" and not parts[3] and not parts[4] and "/" in rest:
        return f"{':'.join(parts[:5])}:{rest.split('/', 1)[0]}/*"
    if service == "dynamodb" and "/index/" in rest:
        return resource.rsplit("/index/", 1)[0] + "/index/*"
    if _is_secret(resource) and not resource.endswith("-??????"):
        return resource + "-??????"
    return resource


# -- least privilege ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatementUse:
    """One Allow statement of the policy and what the used permissions needed of it."""

    statement: Statement
    granted: tuple[Permission, ...]  # the used permissions it allows (sorted, distinct)
    unused_actions: tuple[str, ...]  # its plainly named actions (no wildcard) none needed

    @property
    def used(self) -> bool:
        return bool(self.granted)


@dataclass(frozen=True, slots=True)
class LeastPrivilegeUse:
    """Per Allow statement (in policy order), which used permissions it granted."""

    statements: tuple[StatementUse, ...]

    @property
    def unused(self) -> tuple[Statement, ...]:
        """Allow statements no used permission needed."""
        return tuple(use.statement for use in self.statements if not use.used)


def used_and_unused(policy: Policy, permissions_used: Iterable[Permission]) -> LeastPrivilegeUse:
    """Which Allow statements (and plainly named actions in them) the permissions a campaign
    used needed. A permission counts for every Allow that matches it, conditional or not;
    a Deny does not change what an Allow was needed for."""
    used = sorted(set(permissions_used))
    uses = []
    for statement in policy.statements:
        if statement.effect is not Effect.ALLOW:
            continue
        undecidable = _undecidable(statement)
        granted = tuple(
            p
            for p in used
            if _action_matches(statement, p.action.lower())
            and (undecidable or _resource_matches(statement, p.resource, False))
        )
        needed = {p.action.lower() for p in granted}
        unused = tuple(
            a for a in statement.actions if not _has_wildcard(a) and a.lower() not in needed
        )
        uses.append(StatementUse(statement, granted, unused))
    return LeastPrivilegeUse(tuple(uses))


# -- matching -----------------------------------------------------------------------------


def _action_matches(statement: Statement, action: str) -> bool:
    """`action` is lowercase."""
    if statement.actions:
        return any(_matcher(p.lower())(action) for p in statement.actions)
    return not any(_matcher(p.lower())(action) for p in statement.not_actions)


def _resource_matches(statement: Statement, resource: str, undecidable: bool) -> bool:
    if undecidable:  # a policy variable: its resources may be anything
        return True
    if resource == "*":
        if statement.effect is Effect.DENY:
            return any(_all_stars(p) for p in statement.resources)
        return bool(statement.resources) or not any(_all_stars(p) for p in statement.not_resources)
    if statement.resources:
        return any(_pattern_matches(p, resource) for p in statement.resources)
    return not any(_pattern_matches(p, resource) for p in statement.not_resources)


def _pattern_matches(pattern: str, resource: str) -> bool:
    if _matcher(pattern)(resource):
        return True
    return _is_secret(resource) and _matches_with_suffix(pattern, resource)


def _undecidable(statement: Statement) -> bool:
    return statement.conditional or any(
        "${" in p for p in (*statement.resources, *statement.not_resources)
    )


def _all_stars(pattern: str) -> bool:
    return bool(pattern) and not pattern.strip("*")


def _has_wildcard(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern


def _is_secret(resource: str) -> bool:
    parts = resource.split(":", 6)
    return (
        len(parts) == 7
        and parts[0] == "arn"
        and parts[2] == "secretsmanager"
        and (parts[5] == "secret")
    )


@functools.lru_cache(maxsize=4096)
def _matcher(pattern: str) -> Callable[[str], bool]:
    """A predicate for one IAM pattern: string equality without wildcards, else a regex
    (compiled once per pattern; patterns are few and repeat on every call)."""
    if not _has_wildcard(pattern):
        return pattern.__eq__
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(regex, re.DOTALL).fullmatch  # type: ignore[return-value]


_SUFFIX_LENGTH = 6


@functools.lru_cache(maxsize=1024)
def _matches_with_suffix(pattern: str, resource: str) -> bool:
    """Whether `pattern` matches `resource` + "-" + some six letters or digits: Secrets
    Manager's ARN suffix. A glob matched against a text whose last six characters are
    unknown: `?`, `*` or any letter/digit of the pattern matches one of them."""
    text = resource + "-"
    size = len(text) + _SUFFIX_LENGTH

    @functools.cache
    def match(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == size
        c = pattern[i]
        if c == "*":
            return match(i + 1, j) or (j < size and match(i, j + 1))
        if j == size:
            return False
        if j < len(text):
            ok = c == "?" or c == text[j]
        else:
            ok = c == "?" or c.isascii() and c.isalnum()
        return ok and match(i + 1, j + 1)

    return match(0, 0)
