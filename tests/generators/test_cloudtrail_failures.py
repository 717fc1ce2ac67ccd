"""CloudTrail records as AWS writes them, on small fixtures written here (issue 42): failed
calls (`errorCode`, `errorMessage`, null parameters for a denied call, a null response)
now and then when the rule does not filter on `errorCode`, as the rule says when it
does; an assumed role's principal with its session after a colon; request fields naming
a resource of the call's service name one of the world only some of the time."""

from __future__ import annotations

from collections import Counter
from typing import Any

from lambdafuzz.generators.aws.cloudtrail import DENIED, draw_cloudtrail_detail, draw_error
from lambdafuzz.generators.aws.world_refs import WorldRefs, field_kind, fill_names
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.event_pattern import matches

SEEDS = range(300)
PATTERN: dict[str, Any] = {
    "source": ["aws.secretsmanager"],
    "detail-type": ["AWS API Call via CloudTrail"],
    "detail": {"eventSource": ["secretsmanager.amazonaws.com"], "eventName": ["PutSecretValue"]},
}
REFS = WorldRefs(secrets=("team/api-token",), tables=("ledger",))


def _details(pattern: dict[str, Any], *, edge: bool = True, refs: WorldRefs | None = None):
    return [
        draw_cloudtrail_detail(
            Choices(seed=seed, policy=DrawPolicy(edge_values=edge)),
            pattern,
            region="us-east-1",
            account="123456789012",
            refs=refs,
        )
        for seed in SEEDS
    ]


def test_failed_calls_are_drawn_now_and_then() -> None:
    details = _details(PATTERN)
    failed = [d for d in details if "errorCode" in d]
    assert 0.07 * len(SEEDS) < len(failed) < 0.3 * len(SEEDS), len(failed)
    assert all(d["responseElements"] is None and d["errorMessage"] for d in failed)
    denied = [d for d in failed if d["errorCode"] in DENIED]
    assert denied and all(d["requestParameters"] is None for d in denied)
    assert any(isinstance(d["requestParameters"], dict) for d in failed)  # a validation error
    # the calls a pattern names succeed otherwise: their parameters are there
    assert all(isinstance(d["requestParameters"], dict) for d in details if "errorCode" not in d)
    # edge values off: as before, every call succeeded
    assert not any("errorCode" in d for d in _details(PATTERN, edge=False))


def test_a_rule_naming_the_error_code_is_honoured() -> None:
    succeeded = {**PATTERN, "detail": {**PATTERN["detail"], "errorCode": [{"exists": False}]}}
    assert not any("errorCode" in d for d in _details(succeeded))
    denied = {**PATTERN, "detail": {**PATTERN["detail"], "errorCode": ["AccessDenied"]}}
    for detail in _details(denied, edge=False):  # a rule that wants failures gets them
        assert detail["errorCode"] == "AccessDenied" and detail["requestParameters"] is None
        event = {"source": "aws.secretsmanager", "detail-type": "AWS API Call via CloudTrail"}
        assert matches(denied, {**event, "detail": detail})
    other = [{"anything-but": ["AccessDenied"]}]
    codes = Counter(
        draw_error(Choices(seed=s, policy=DrawPolicy(edge_values=True)), other) for s in SEEDS
    )
    assert None not in codes and "AccessDenied" not in codes  # anything-but: a code is present


def test_an_assumed_roles_principal_names_its_session() -> None:
    identities = [d["userIdentity"] for d in _details(PATTERN)]
    kinds = {i["type"]: i for i in identities}
    role = kinds["AssumedRole"]
    head, session = role["principalId"].split(":")
    assert head.startswith("AROA") and role["arn"].endswith("/" + session)
    assert kinds["Root"]["principalId"] == "123456789012"
    assert ":" not in kinds["IAMUser"]["principalId"]


def test_a_calls_resource_is_only_sometimes_one_of_the_world() -> None:
    assert field_kind("name", "secretsmanager") == "secret"
    assert field_kind("secretId") == "secret" and field_kind("secretString") is None
    assert field_kind("name", "dynamodb") == "table" and field_kind("name") is None
    assert field_kind("id", "secretsmanager") == "id"  # a bare id: an item's, not the secret
    request = {"name": "x", "secretId": "y", "description": "z"}
    filled = [
        fill_names(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True)),
            request,
            REFS,
            service="secretsmanager",
        )
        for seed in SEEDS
    ]
    named = sum(f["name"] == "team/api-token" for f in filled)
    assert 0.4 * len(SEEDS) < named < 0.8 * len(SEEDS), named  # gone the rest of the time
    assert any(f["secretId"] == "team/api-token" for f in filled)
    # in the record drawn for the rule: its request's `name` (free JSON, given the field)
    details = [
        draw_cloudtrail_detail(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True, fields=("name",))),
            PATTERN,
            region="us-east-1",
            account="123456789012",
            refs=REFS,
        )
        for seed in SEEDS
    ]
    names = [(d["requestParameters"] or {}).get("name", None) for d in details]
    world = sum(n == "team/api-token" for n in names)
    assert world > 0.1 * len(SEEDS), world
    assert sum(n is not None and n != "team/api-token" for n in names) > 0.1 * len(SEEDS)
