"""EventBridge rules on CloudTrail's "AWS API Call via CloudTrail" events get a CloudTrail
record as `detail`: every field AWS writes, `requestParameters` an object (null rarely,
and never for the calls a pattern names), the pattern's constraints kept; and a campaign
of a handler reading a guarded request parameter finds nothing (its rule takes succeeded
calls only: a failed call's record may have no parameters, `test_cloudtrail_failures`)."""

from __future__ import annotations

import json
from pathlib import Path

from lambdafuzz.config.sam import load_template_target
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.model.event_pattern import matches
from tests.fixtures.template_runs import drawn_events, line_of, reached_without_a_bug

APP = Path(__file__).parent / "apps" / "cloudtrail"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "audit.py"
SEEDS = range(200)
RECORD_FIELDS = {
    "eventVersion",
    "userIdentity",
    "eventTime",
    "eventSource",
    "eventName",
    "awsRegion",
    "sourceIPAddress",
    "userAgent",
    "requestParameters",
    "responseElements",
    "requestID",
    "eventID",
    "eventType",
    "readOnly",
    "recipientAccountId",
}


def _events(target) -> list[dict]:
    return drawn_events(target, SEEDS)


def test_details_are_cloudtrail_records():
    target = load_template_target(TEMPLATE, "IdentityAuditFunction")
    (pattern,) = (json.loads(f) for f in target.trigger.filters)
    events = _events(target)
    for event in events:
        assert matches(pattern, event)  # the pattern still decides what it constrains
        assert (event["source"], event["detail-type"]) == ("aws.iam", "AWS API Call via CloudTrail")
        detail = event["detail"]
        assert set(detail) >= RECORD_FIELDS, RECORD_FIELDS - set(detail)
        assert detail["eventSource"] == "iam.amazonaws.com"
        assert detail["eventType"] == "AwsApiCall" and isinstance(detail["readOnly"], bool)
        assert set(detail["userIdentity"]) >= {"type", "principalId", "arn", "accountId"}
        assert detail["recipientAccountId"] == detail["userIdentity"]["accountId"] == "123456789012"
        assert detail["requestParameters"] is None or isinstance(detail["requestParameters"], dict)
        assert detail["responseElements"] is None or isinstance(detail["responseElements"], dict)
    objects = sum(isinstance(e["detail"]["requestParameters"], dict) for e in events)
    # NULL_PARAMETERS_P = 5%: over 200 draws, fewer than 90% objects is a regression
    assert objects >= 0.9 * len(events), objects
    assert objects < len(events)  # and CloudTrail's nulls do occur


def test_the_calls_a_pattern_names_always_have_parameters():
    target = load_template_target(TEMPLATE, "PolicyAuditFunction")
    names = set()
    for event in _events(target):
        detail = event["detail"]
        assert event["source"] == "aws.s3" and detail["eventSource"] == "s3.amazonaws.com"
        assert isinstance(detail["requestParameters"], dict)
        names.add(detail["eventName"])
    assert names == {"PutBucketPolicy", "DeleteBucketPolicy"}


def test_a_pattern_on_a_request_parameter_is_kept():
    pattern = {
        "detail-type": ["AWS API Call via CloudTrail"],
        "detail": {"requestParameters": {"bucketName": [{"prefix": "logs-"}]}},
    }
    config = {
        "handler": "audit.identity_call",
        "root": "src",
        "trigger": {"kind": "eventbridge", "filters": [pattern]},
    }
    target = target_from_dict(config, TEMPLATE)
    for event in _events(target)[:50]:
        assert matches(pattern, event)
        assert event["detail"]["requestParameters"]["bucketName"].startswith("logs-")
        assert "eventID" in event["detail"]


def test_other_patterns_keep_their_free_details():
    config = {
        "handler": "audit.identity_call",
        "root": "src",
        "trigger": {"kind": "eventbridge", "filters": [{"detail-type": ["Order Placed"]}]},
    }
    target = target_from_dict(config, TEMPLATE)
    details = [e["detail"] for e in _events(target)[:50]]
    assert not any(set(d) >= RECORD_FIELDS for d in details)


def test_a_campaign_reading_a_guarded_parameter_finds_nothing(tmp_path):
    target = load_template_target(TEMPLATE, "PolicyAuditFunction")
    reached = reached_without_a_bug(target, tmp_path, seed=5, execs=150)
    guarded = line_of(HANDLER, 'bucket = parameters["bucketName"]')
    assert guarded in reached, f"seed 5: {sorted(reached)}"
