"""IAM's evaluation of identity policies, as `model.policy_evaluation` reproduces it."""

from __future__ import annotations

import pytest

from lambdafuzz.model.permissions import Effect, Permission, Policy, Statement
from lambdafuzz.model.policy_evaluation import (
    Decision,
    Verdict,
    evaluate,
    suggest,
    used_and_unused,
)

BUCKET = "arn:aws:s3:::uploads"
OBJECT = "arn:aws:s3:::uploads/in/a.csv"
TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/orders"
INDEX = TABLE + "/index/byDate"
SECRET = "arn:aws:secretsmanager:us-east-1:123456789012:secret:db-creds"


def allow(*actions: str, resources: tuple[str, ...] = ("*",), **kw: object) -> Statement:
    return Statement(Effect.ALLOW, actions=actions, resources=resources, **kw)  # type: ignore[arg-type]


def deny(*actions: str, resources: tuple[str, ...] = ("*",), **kw: object) -> Statement:
    return Statement(Effect.DENY, actions=actions, resources=resources, **kw)  # type: ignore[arg-type]


def verdict(statements: list[Statement], action: str, resource: str) -> Verdict:
    return evaluate(Policy.of(statements), Permission(action, resource)).verdict


# -- actions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "action", "expected"),
    [
        ("s3:GetObject", "s3:GetObject", True),
        ("s3:getobject", "S3:GETOBJECT", True),  # case-insensitive both ways
        ("s3:Get*", "s3:GetObject", True),
        ("s3:Get*", "s3:PutObject", False),
        ("*", "dynamodb:PutItem", True),
        ("dynamodb:*Item", "dynamodb:PutItem", True),
        ("dynamodb:*Item", "dynamodb:Query", False),
        ("s3:GetObject?", "s3:GetObject", False),
        ("s3:GetObject?", "s3:GetObjectX", True),
        ("s3:*", "s3express:CreateSession", False),  # the prefix is not a wildcard
        ("sqs:SendMessage", "sqs:SendMessageBatch", False),  # whole-string match
    ],
)
def test_action_wildcards(pattern: str, action: str, expected: bool) -> None:
    got = verdict([allow(pattern)], action, "*")
    assert got is (Verdict.ALLOWED if expected else Verdict.NOT_GRANTED)


def test_not_action_matches_every_action_it_does_not_list() -> None:
    statement = Statement(Effect.ALLOW, not_actions=("s3:Delete*",), resources=("*",))
    assert verdict([statement], "s3:GetObject", OBJECT) is Verdict.ALLOWED
    assert verdict([statement], "s3:DeleteObject", OBJECT) is Verdict.NOT_GRANTED
    assert verdict([statement], "S3:DELETEOBJECT", OBJECT) is Verdict.NOT_GRANTED


# -- resources ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "resource", "expected"),
    [
        (OBJECT, OBJECT, True),
        ("arn:aws:s3:::uploads/*", OBJECT, True),  # `*` crosses `/`
        ("arn:aws:s3:::uploads/*", BUCKET, False),
        ("arn:aws:s3:::Uploads/*", OBJECT, False),  # case-sensitive
        ("arn:aws:s3:::upload?/in/a.csv", OBJECT, True),
        ("arn:aws:s3:::upload?/in/a.csv", "arn:aws:s3:::upload/in/a.csv", False),
        ("arn:aws:dynamodb:*:*:table/orders", TABLE, True),  # `*` within `:` fields
        ("arn:aws:dynamodb:*", INDEX, True),  # `*` crosses `:` and `/`
        (TABLE, INDEX, False),  # a table's ARN does not cover its indexes
        (TABLE + "/index/*", INDEX, True),
        ("arn:aws:s3:::uploads/in/a.cs.", OBJECT, False),  # `.` is no wildcard
        ("*", OBJECT, True),
    ],
)
def test_resource_wildcards(pattern: str, resource: str, expected: bool) -> None:
    got = verdict([allow("s3:GetObject", resources=(pattern,))], "s3:GetObject", resource)
    assert got is (Verdict.ALLOWED if expected else Verdict.NOT_GRANTED)


def test_not_resource_matches_every_resource_it_does_not_list() -> None:
    statement = Statement(Effect.ALLOW, actions=("s3:*",), not_resources=("arn:aws:s3:::secret*",))
    assert verdict([statement], "s3:GetObject", OBJECT) is Verdict.ALLOWED
    assert verdict([statement], "s3:GetObject", "arn:aws:s3:::secrets/k") is Verdict.NOT_GRANTED


def test_deny_with_not_resource_denies_everything_else() -> None:
    statements = [
        allow("s3:*"),
        Statement(Effect.DENY, actions=("s3:*",), not_resources=("arn:aws:s3:::uploads/*",)),
    ]
    assert verdict(statements, "s3:GetObject", OBJECT) is Verdict.ALLOWED
    assert verdict(statements, "s3:GetObject", "arn:aws:s3:::other/k") is Verdict.DENIED


# -- Deny, Allow, implicit deny -----------------------------------------------------------


def test_explicit_deny_wins_over_any_allow_in_any_order() -> None:
    for statements in (
        [allow("s3:*"), deny("s3:DeleteObject")],
        [deny("s3:DeleteObject"), allow("s3:*")],
    ):
        decision = evaluate(Policy.of(statements), Permission("s3:DeleteObject", OBJECT))
        assert decision.verdict is Verdict.DENIED
        assert decision.statement == deny("s3:DeleteObject")
        assert decision.certain


def test_allow_names_the_granting_statement() -> None:
    grant = allow("s3:GetObject", resources=("arn:aws:s3:::uploads/*",), source="Policies[0]")
    decision = evaluate(Policy.of([allow("sqs:*"), grant]), Permission("s3:GetObject", OBJECT))
    assert decision.verdict is Verdict.ALLOWED
    assert decision.statement == grant
    assert decision.certain
    assert decision.allowed


def test_no_statement_is_implicit_deny() -> None:
    decision = evaluate(Policy(), Permission("s3:GetObject", OBJECT))
    assert decision == Decision(Permission("s3:GetObject", OBJECT), Verdict.NOT_GRANTED)
    assert decision.certain
    assert not decision.allowed


def test_deny_of_another_resource_does_not_apply() -> None:
    statements = [allow("s3:*"), deny("s3:*", resources=("arn:aws:s3:::other/*",))]
    assert verdict(statements, "s3:GetObject", OBJECT) is Verdict.ALLOWED


# -- conditions and policy variables -------------------------------------------------------


def test_conditional_allow_counts_but_is_uncertain() -> None:
    conditional = allow("s3:GetObject", conditional=True)
    decision = evaluate(Policy.of([conditional]), Permission("s3:GetObject", OBJECT))
    assert decision.verdict is Verdict.ALLOWED
    assert decision.conditions == (conditional,)
    assert not decision.certain


def test_unconditional_allow_preferred_over_a_conditional_one() -> None:
    conditional = allow("s3:GetObject", conditional=True)
    plain = allow("s3:*")
    decision = evaluate(Policy.of([conditional, plain]), Permission("s3:GetObject", OBJECT))
    assert decision.statement == plain
    assert decision.conditions == (conditional,)
    assert decision.certain  # the plain Allow grants it whatever the condition says


def test_conditional_deny_is_listed_not_applied() -> None:
    conditional = deny("s3:GetObject", conditional=True)
    decision = evaluate(Policy.of([allow("s3:*"), conditional]), Permission("s3:GetObject", OBJECT))
    assert decision.verdict is Verdict.ALLOWED
    assert decision.conditions == (conditional,)
    assert not decision.certain  # the condition may deny it


def test_conditional_deny_of_another_action_is_not_listed() -> None:
    conditional = deny("s3:PutObject", conditional=True)
    decision = evaluate(Policy.of([allow("s3:*"), conditional]), Permission("s3:GetObject", OBJECT))
    assert decision.conditions == ()
    assert decision.certain


def test_unconditional_deny_beats_conditional_statements() -> None:
    statements = [allow("s3:*", conditional=True), deny("s3:*")]
    decision = evaluate(Policy.of(statements), Permission("s3:GetObject", OBJECT))
    assert decision.verdict is Verdict.DENIED
    assert decision.certain


def test_policy_variable_statement_treated_as_conditional() -> None:
    home = "arn:aws:s3:::uploads/${aws:username}/*"
    variable_allow = allow("s3:GetObject", resources=(home,))
    decision = evaluate(Policy.of([variable_allow]), Permission("s3:GetObject", OBJECT))
    assert decision.verdict is Verdict.ALLOWED  # its resource may be any
    assert not decision.certain
    variable_deny = deny("s3:GetObject", resources=(home,))
    decision = evaluate(
        Policy.of([allow("s3:*"), variable_deny]), Permission("s3:GetObject", OBJECT)
    )
    assert decision.verdict is Verdict.ALLOWED  # not applied
    assert decision.conditions == (variable_deny,)


# -- unknown resources and unknown grants --------------------------------------------------


def test_unknown_resource_allowed_by_any_statement_covering_the_action() -> None:
    scoped = allow("sqs:*", resources=("arn:aws:sqs:us-east-1:123456789012:jobs",))
    assert verdict([scoped], "sqs:ListQueues", "*") is Verdict.ALLOWED
    assert verdict([scoped], "sns:Publish", "*") is Verdict.NOT_GRANTED
    not_resource = Statement(Effect.ALLOW, actions=("sqs:*",), not_resources=("arn:x",))
    assert verdict([not_resource], "sqs:ListQueues", "*") is Verdict.ALLOWED
    excludes_all = Statement(Effect.ALLOW, actions=("sqs:*",), not_resources=("*",))
    assert verdict([excludes_all], "sqs:ListQueues", "*") is Verdict.NOT_GRANTED


def test_unknown_resource_denied_only_by_a_deny_of_everything() -> None:
    scoped_deny = deny("sqs:*", resources=("arn:aws:sqs:us-east-1:123456789012:jobs",))
    assert verdict([allow("sqs:*"), scoped_deny], "sqs:ListQueues", "*") is Verdict.ALLOWED
    assert verdict([allow("sqs:*"), deny("sqs:*")], "sqs:ListQueues", "*") is Verdict.DENIED
    assert (
        verdict([allow("sqs:*"), deny("sqs:*", resources=("**",))], "sqs:ListQueues", "*")
        is Verdict.DENIED
    )


def test_unknown_grants_make_not_granted_uncertain() -> None:
    policy = Policy.of([allow("s3:GetObject")], unknown=["arn:aws:iam::aws:policy/Custom"])
    missing = evaluate(policy, Permission("sqs:SendMessage", "*"))
    assert missing.verdict is Verdict.NOT_GRANTED
    assert missing.unknown == ("arn:aws:iam::aws:policy/Custom",)
    assert not missing.certain
    granted = evaluate(policy, Permission("s3:GetObject", OBJECT))
    assert granted.certain and granted.unknown == ()
    denied = evaluate(Policy.of([deny("s3:*")], unknown=["X"]), Permission("s3:GetObject", OBJECT))
    assert denied.verdict is Verdict.DENIED and denied.certain


# -- Secrets Manager's suffix ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (SECRET + "-??????", True),
        (SECRET + "-*", True),
        (SECRET + "*", True),
        (SECRET, True),
        (SECRET + "-AbCdEf", True),  # the full ARN with its real suffix
        ("arn:aws:secretsmanager:*:*:secret:db-*", True),
        (SECRET + "-?????", False),  # five characters: not the suffix
        (SECRET + "-???????", False),
        (SECRET + "-AbC/Ef", False),  # the suffix is letters and digits
        (SECRET + "x-??????", False),  # another secret
        ("arn:aws:secretsmanager:us-east-1:123456789012:secret:db-??????", False),
    ],
)
def test_secret_patterns_match_with_the_random_suffix(pattern: str, expected: bool) -> None:
    statement = allow("secretsmanager:GetSecretValue", resources=(pattern,))
    got = verdict([statement], "secretsmanager:GetSecretValue", SECRET)
    assert got is (Verdict.ALLOWED if expected else Verdict.NOT_GRANTED)


def test_suffix_rule_is_for_secrets_only() -> None:
    statement = allow("ssm:GetParameter", resources=("arn:aws:ssm:*:*:parameter/db-??????",))
    assert verdict([statement], "ssm:GetParameter", "arn:aws:ssm:r:1:parameter/db") is (
        Verdict.NOT_GRANTED
    )


# -- suggest ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource", "suggested"),
    [
        (OBJECT, "arn:aws:s3:::uploads/*"),
        (BUCKET, BUCKET),
        (INDEX, TABLE + "/index/*"),
        (TABLE, TABLE),
        (SECRET, SECRET + "-??????"),
        ("arn:aws:lambda:us-east-1:123456789012:function:f:prod", None),
        ("arn:aws:sqs:us-east-1:123456789012:jobs", None),
        ("*", "*"),
    ],
)
def test_suggest_least_privilege(resource: str, suggested: str | None) -> None:
    permission = Permission("svc:Action", resource)
    statement = suggest(permission)
    assert statement.effect is Effect.ALLOW
    assert statement.actions == ("svc:Action",)
    assert statement.resources == (suggested or resource,)
    assert not statement.conditional


@pytest.mark.parametrize("resource", [OBJECT, BUCKET, INDEX, TABLE, SECRET, "*"])
def test_suggested_statement_allows_the_permission(resource: str) -> None:
    permission = Permission("s3:GetObject", resource)
    decision = evaluate(Policy.of([suggest(permission)]), permission)
    assert decision.verdict is Verdict.ALLOWED and decision.certain


def test_describe_says_what_was_decided() -> None:
    policy = Policy.of([deny("s3:*", source="Policies[1]")], unknown=())
    text = evaluate(policy, Permission("s3:GetObject", OBJECT)).describe()
    assert text == f"s3:GetObject on {OBJECT}: denied (by Policies[1])"
    text = evaluate(Policy(unknown=("Managed",)), Permission("sqs:ListQueues", "*")).describe()
    assert text == "sqs:ListQueues on *: not granted (unknown grants may allow it: Managed)"


# -- least privilege ----------------------------------------------------------------------


def test_used_and_unused() -> None:
    reads = allow("s3:GetObject", "s3:ListBucket", resources=(BUCKET, BUCKET + "/*"))
    writes = allow("dynamodb:PutItem", "dynamodb:Get*", resources=(TABLE,))
    sqs = allow("sqs:SendMessage", resources=("*",))
    guard = deny("s3:DeleteObject")
    used = [
        Permission("s3:GetObject", OBJECT),
        Permission("s3:GetObject", OBJECT),  # counted once
        Permission("dynamodb:GetItem", TABLE),
        Permission("lambda:InvokeFunction", "arn:aws:lambda:r:1:function:f"),  # no grant
    ]
    report = used_and_unused(Policy.of([reads, guard, writes, sqs]), used)
    assert [use.statement for use in report.statements] == [reads, writes, sqs]
    first, second, third = report.statements
    assert first.granted == (Permission("s3:GetObject", OBJECT),)
    assert first.unused_actions == ("s3:ListBucket",)
    assert second.granted == (Permission("dynamodb:GetItem", TABLE),)
    assert second.unused_actions == ("dynamodb:PutItem",)  # `Get*` is no plain name
    assert not third.used and third.unused_actions == ("sqs:SendMessage",)
    assert report.unused == (sqs,)


def test_used_and_unused_resource_scoping() -> None:
    other = allow("s3:GetObject", resources=("arn:aws:s3:::other/*",))
    report = used_and_unused(Policy.of([other]), [Permission("s3:GetObject", OBJECT)])
    assert report.unused == (other,)
    assert report.statements[0].unused_actions == ("s3:GetObject",)
    report = used_and_unused(Policy.of([other]), [Permission("s3:GetObject", "*")])
    assert report.unused == ()  # an unknown resource counts for any statement of the action
