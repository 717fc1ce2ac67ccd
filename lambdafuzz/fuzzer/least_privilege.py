"""The least-privilege report: what the function's role grants, and what the tests used.

The permission oracle decides every AWS call of every test (`harness.permission_check`);
what each test's calls were granted by comes back as `PermissionUse`. Summed over a
campaign, that says which statements (and which plainly named actions in them) no test
needed: grants a reviewer may remove, as far as the campaign reached. A grant unused
after a short campaign is a question, not a verdict; the report says how many tests ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.model.permissions import Effect, Permission, PermissionUse, Policy

#: Undecided permissions listed in the report at most (the count says how many in all).
MAX_UNDECIDED = 50
#: Actions the function's role grants for Lambda itself, not for the handler's code: the
#: runtime writes the logs and traces, the event source mapping polls the queue or stream
#: and deletes what was processed. No test makes these calls; they are not unused.
LAMBDA_ACTIONS = (
    "logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents",
    "xray:PutTraceSegments", "xray:PutTelemetryRecords",
    "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes",
    "kinesis:GetRecords", "kinesis:GetShardIterator", "kinesis:DescribeStream",
    "kinesis:DescribeStreamSummary", "kinesis:ListShards", "kinesis:ListStreams",
    "kinesis:SubscribeToShard",
    "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:DescribeStream",
    "dynamodb:ListStreams",
)  # fmt: skip


@dataclass(slots=True)
class LeastPrivilege:
    """Sums `PermissionUse` over a campaign's tests."""

    policy: Policy
    tests: int = 0
    granted: Counter[tuple[str, int]] = field(default_factory=Counter)
    undecided: set[Permission] = field(default_factory=set)

    def add(self, use: PermissionUse) -> None:
        self.tests += 1
        self.granted.update(use.granted)
        self.undecided.update(use.undecided)

    def resume(self, report: Mapping[str, Any]) -> bool:
        """Count on from an earlier campaign's `permissions.json` in the same out dir; False
        (nothing taken) when its statements are not this policy's (the template changed)."""
        entries = report.get("statements")
        sources = [s.source for s in self.policy.statements]
        if (
            not isinstance(entries, list)
            or [e.get("source") if isinstance(e, dict) else None for e in entries] != sources
        ):
            return False
        for index, entry in enumerate(entries):
            used = entry.get("used")
            for action, tests in used.items() if isinstance(used, dict) else ():
                if isinstance(action, str) and isinstance(tests, int) and tests > 0:
                    self.granted[(action, index)] += tests
        for item in report.get("undecided") or ():
            if isinstance(item, dict):
                action, resource = item.get("action"), item.get("resource")
                if isinstance(action, str) and isinstance(resource, str):
                    self.undecided.add(Permission(action, resource))
        tests = report.get("tests")
        self.tests += tests if isinstance(tests, int) and tests > 0 else 0
        return True

    def report(self) -> dict[str, Any]:
        """`permissions.json`: per statement, the actions used and the tests that used
        them, whether anything used it, and the plainly named actions nobody used."""
        statements = []
        used_by: dict[int, dict[str, int]] = {}
        for (action, index), tests in self.granted.items():
            used_by.setdefault(index, {})[action] = tests
        for index, statement in enumerate(self.policy.statements):
            used = dict(sorted(used_by.get(index, {}).items()))
            named = [a for a in statement.actions if "*" not in a and "?" not in a]
            for_lambda = [a for a in named if a.lower() in _FOR_LAMBDA]
            entry: dict[str, Any] = {
                "source": statement.source,
                "statement": {k: v for k, v in statement.to_json().items() if k != "Sid"},
                "used": used,
            }
            if for_lambda:
                entry["used_by_lambda"] = for_lambda
            if statement.effect is Effect.ALLOW:
                taken = {a.lower() for a in used} | _FOR_LAMBDA
                # a statement no test used, unless all it grants is what Lambda uses itself
                entry["unused"] = not used and not (named and len(for_lambda) == len(named))
                entry["unused_actions"] = [a for a in named if a.lower() not in taken]
            statements.append(entry)
        undecided = sorted(self.undecided)
        return {
            "tests": self.tests,
            "statements": statements,
            "unknown_grants": list(self.policy.unknown),
            "undecided": [
                {"action": p.action, "resource": p.resource} for p in undecided[:MAX_UNDECIDED]
            ],
            "undecided_count": len(undecided),
        }


_FOR_LAMBDA = frozenset(a.lower() for a in LAMBDA_ACTIONS)


def report_lines(report: dict[str, Any]) -> list[str]:
    """The report in a few lines for the campaign's summary."""
    statements = [s for s in report.get("statements", []) if "unused" in s]
    used = [s for s in statements if not s.get("unused")]
    lines = [
        f"{len(used)} of {len(statements)} Allow statements used by {report.get('tests', 0)} tests"
    ]
    for entry in statements:
        if entry.get("unused"):
            lines.append(f"unused: {entry.get('source') or entry.get('statement')}")
        elif entry.get("unused_actions"):
            actions = ", ".join(entry["unused_actions"])
            lines.append(f"unused actions of {entry.get('source') or 'a statement'}: {actions}")
    if report.get("undecided_count"):
        lines.append(
            f"{report['undecided_count']} permissions only unknown grants might allow "
            f"({', '.join(report.get('unknown_grants') or [])}): not decided"
        )
    return lines
