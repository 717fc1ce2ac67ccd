"""The least-privilege report (`fuzzer.least_privilege`): what each Allow statement's grants
were used for over a campaign's tests, which statements and plainly named actions no test
used, what Lambda itself uses (logs, the queue or stream poller: never unused), Deny
statements listed but never counted, undecided permissions, and the summary's lines."""

from __future__ import annotations

from lambdafuzz.fuzzer.least_privilege import (
    LAMBDA_ACTIONS,
    MAX_UNDECIDED,
    LeastPrivilege,
    report_lines,
)
from lambdafuzz.model.permissions import Effect, Permission, PermissionUse, Policy, Statement

BASIC = Statement(
    Effect.ALLOW,
    ("logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"),
    resources=("*",),
    source="managed AWSLambdaBasicExecutionRole",
)
READ = Statement(
    Effect.ALLOW,
    ("s3:GetObject", "s3:ListBucket"),
    resources=("arn:aws:s3:::uploads", "arn:aws:s3:::uploads/*"),
    source="Policies[0] S3ReadPolicy (BucketName: uploads)",
)
TABLE = Statement(
    Effect.ALLOW,
    ("dynamodb:*",),
    resources=("arn:aws:dynamodb:us-east-1:123456789012:table/orders",),
    source="Policies[1] inline",
)
QUEUE = Statement(  # an SQS event source's policy, plus what the handler sends itself
    Effect.ALLOW,
    ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:SendMessage"),
    resources=("arn:aws:sqs:us-east-1:123456789012:orders",),
    source="Policies[2] SQSPollerPolicy (QueueName: orders)",
)
NO_DELETE = Statement(Effect.DENY, ("s3:DeleteObject",), resources=("*",), source="Policies[3]")
POLICY = Policy.of((BASIC, READ, TABLE, QUEUE, NO_DELETE))


def _report(*uses: PermissionUse, policy: Policy = POLICY) -> dict:
    book = LeastPrivilege(policy)
    for use in uses:
        book.add(use)
    return book.report()


def _by_source(report: dict) -> dict[str, dict]:
    return {entry["source"]: entry for entry in report["statements"]}


def test_used_actions_count_the_tests_that_used_them_per_statement():
    report = _report(
        PermissionUse(frozenset({("s3:GetObject", 1)})),
        PermissionUse(frozenset({("s3:GetObject", 1), ("dynamodb:PutItem", 2)})),
        PermissionUse(),
    )
    assert report["tests"] == 3
    entries = _by_source(report)
    read = entries[READ.source]
    assert read["used"] == {"s3:GetObject": 2}
    assert read["unused"] is False
    assert read["unused_actions"] == ["s3:ListBucket"]
    assert read["statement"] == {
        "Effect": "Allow",
        "Action": ["s3:GetObject", "s3:ListBucket"],
        "Resource": ["arn:aws:s3:::uploads", "arn:aws:s3:::uploads/*"],
    }  # IAM's form, without the Sid the source would fill in
    table = entries[TABLE.source]
    assert table["used"] == {"dynamodb:PutItem": 1}
    assert table["unused_actions"] == []  # a wildcard names no action to remove


def test_a_statement_no_test_used_is_unused_with_every_named_action():
    entries = _by_source(_report(PermissionUse(frozenset({("s3:GetObject", 1)}))))
    assert entries[TABLE.source]["used"] == {}
    assert entries[TABLE.source]["unused"] is True
    # the queue statement: Lambda polls and deletes, but nothing sent a message
    queue = entries[QUEUE.source]
    assert queue["unused"] is True
    assert queue["used_by_lambda"] == [
        "sqs:ReceiveMessage",
        "sqs:DeleteMessage",
        "sqs:GetQueueAttributes",
    ]
    assert queue["unused_actions"] == ["sqs:SendMessage"]


def test_what_lambda_uses_itself_is_never_unused():
    entries = _by_source(_report(PermissionUse()))
    basic = entries[BASIC.source]
    assert basic["used"] == {}
    assert basic["unused"] is False and basic["unused_actions"] == []
    assert basic["used_by_lambda"] == list(BASIC.actions)
    assert set(basic["used_by_lambda"]) <= set(LAMBDA_ACTIONS)
    # a statement of the poller's actions only (the SQS event source's managed policy)
    poller = Statement(Effect.ALLOW, ("sqs:receivemessage", "SQS:DeleteMessage"), resources=("*",))
    (entry,) = _report(PermissionUse(), policy=Policy.of((poller,)))["statements"]
    assert entry["unused"] is False  # compared case-insensitively, as IAM compares actions
    assert entry["used_by_lambda"] == ["sqs:receivemessage", "SQS:DeleteMessage"]


def test_an_action_used_in_another_case_is_not_listed_unused():
    statement = Statement(Effect.ALLOW, ("S3:GETOBJECT", "s3:PutObject"), resources=("*",))
    (entry,) = _report(
        PermissionUse(frozenset({("s3:GetObject", 0)})), policy=Policy.of((statement,))
    )["statements"]
    assert entry["unused_actions"] == ["s3:PutObject"]


def test_a_deny_statement_is_listed_but_neither_used_nor_unused():
    entries = _by_source(_report(PermissionUse()))
    deny = entries[NO_DELETE.source]
    assert deny["statement"]["Effect"] == "Deny"
    assert "unused" not in deny and "unused_actions" not in deny


def test_undecided_permissions_are_listed_sorted_and_capped():
    many = frozenset(
        Permission("s3:GetObject", f"arn:aws:s3:::b/{i:03}") for i in range(MAX_UNDECIDED + 5)
    )
    policy = Policy.of((READ,), unknown=("managed MyTeamPolicy",))
    report = _report(PermissionUse(undecided=many), PermissionUse(undecided=many), policy=policy)
    assert report["undecided_count"] == MAX_UNDECIDED + 5  # counted once each
    assert len(report["undecided"]) == MAX_UNDECIDED
    assert report["undecided"][0] == {"action": "s3:GetObject", "resource": "arn:aws:s3:::b/000"}
    assert report["unknown_grants"] == ["managed MyTeamPolicy"]


# ---------------------------------------------------------------- the summary's lines
def test_report_lines_count_the_allow_statements_used_and_name_what_was_not():
    report = _report(PermissionUse(frozenset({("s3:GetObject", 1)})))
    assert report_lines(report) == [
        "2 of 4 Allow statements used by 1 tests",  # BASIC (Lambda's) and READ; not the Deny
        f"unused actions of {READ.source}: s3:ListBucket",
        f"unused: {TABLE.source}",
        f"unused: {QUEUE.source}",
    ]


def test_report_lines_of_a_statement_without_a_source_show_the_statement():
    statement = Statement(Effect.ALLOW, ("sns:Publish",), resources=("*",))
    lines = report_lines(_report(PermissionUse(), policy=Policy.of((statement,))))
    assert lines == [
        "0 of 1 Allow statements used by 1 tests",
        "unused: {'Effect': 'Allow', 'Action': ['sns:Publish'], 'Resource': ['*']}",
    ]
    both = Statement(Effect.ALLOW, ("sns:Publish", "sns:Subscribe"), resources=("*",))
    used = PermissionUse(frozenset({("sns:Publish", 0)}))
    lines = report_lines(_report(used, policy=Policy.of((both,))))
    assert lines[1] == "unused actions of a statement: sns:Subscribe"


def test_report_lines_say_what_only_unknown_grants_might_allow():
    policy = Policy.of((BASIC,), unknown=("managed A", "Role Ext"))
    undecided = frozenset({Permission("sqs:SendMessage", "arn:aws:sqs:us-east-1:1:q")})
    lines = report_lines(_report(PermissionUse(undecided=undecided), policy=policy))
    assert lines == [
        "1 of 1 Allow statements used by 1 tests",
        "1 permissions only unknown grants might allow (managed A, Role Ext): not decided",
    ]


def test_report_lines_of_a_report_with_nothing_in_it():
    assert report_lines({}) == ["0 of 0 Allow statements used by 0 tests"]


def test_a_resumed_campaign_counts_on_from_the_earlier_report():
    earlier = _report(
        PermissionUse(
            frozenset({("s3:GetObject", 1)}), frozenset({Permission("kms:Decrypt", "*")})
        ),
        PermissionUse(frozenset({("s3:GetObject", 1)})),
    )
    book = LeastPrivilege(POLICY)
    assert book.resume(earlier)
    book.add(PermissionUse(frozenset({("dynamodb:PutItem", 2)})))
    report = book.report()
    assert report["tests"] == 3
    entries = _by_source(report)
    assert entries[READ.source]["used"] == {"s3:GetObject": 2}  # the earlier run's use stays
    assert entries[TABLE.source]["used"] == {"dynamodb:PutItem": 1}
    assert report["undecided"] == [{"action": "kms:Decrypt", "resource": "*"}]


def test_a_report_of_another_policy_is_not_resumed():
    earlier = _report(PermissionUse(frozenset({("s3:GetObject", 1)})))
    book = LeastPrivilege(Policy.of((READ, BASIC)))  # the template's statements changed
    assert not book.resume(earlier)
    assert book.report()["tests"] == 0
    assert not book.resume({"statements": "not a list"})
