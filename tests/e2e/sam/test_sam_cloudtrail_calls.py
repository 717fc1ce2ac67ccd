"""A CloudTrail rule naming its calls (`detail.eventSource` and `detail.eventName`) gets
records whose `requestParameters` follow the call's request in botocore's model: the
wrapped layout where the code names the input shape, lowerCamel members at the top level
otherwise; and campaigns of handlers reading those parameters unchecked find nothing
(their rules take succeeded calls only, `errorCode: [{exists: false}]`: a failed call's
record may have none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lambdafuzz.config.api_call_shapes import call_parameters, lower_camel
from lambdafuzz.config.sam import load_template_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.events import draw_event_plan, render_event
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.world import LoadedWorld, World

APP = Path(__file__).parent / "apps" / "cloudtrail_calls"
TEMPLATE = APP / "template.yaml"
SEEDS = range(80)


def _pattern(source: str, name: str) -> str:
    return json.dumps(
        {
            "detail-type": ["AWS API Call via CloudTrail"],
            "detail": {"eventSource": [source], "eventName": [name]},
        }
    )


def _parameters(function: str, dictionary: tuple[str, ...] = ()) -> list:
    target = load_template_target(TEMPLATE, function)
    world = World()
    found = []
    for seed in SEEDS:
        choices = Choices(seed=seed, policy=DrawPolicy(dictionary=dictionary))
        event = render_event(draw_event_plan(choices, target, world), LoadedWorld(world))
        found.append(event["detail"]["requestParameters"])
    return found


def test_the_wrapped_layout_where_the_code_names_the_input_shape():
    for parameters in _parameters("CidrFunction", ("AdvertiseByoipCidrRequest", "Cidr")):
        assert list(parameters) == ["AdvertiseByoipCidrRequest"]
        request = parameters["AdvertiseByoipCidrRequest"]
        assert isinstance(request["Cidr"], str)  # required, a string
        assert set(request) <= {"Cidr", "Asn", "DryRun", "NetworkBorderGroup"}


def test_the_top_level_layout_otherwise():
    seen_optional = 0
    for parameters in _parameters("UploadFunction"):
        assert isinstance(parameters["bucketName"], str), parameters  # S3's `Bucket`
        assert isinstance(parameters["key"], str), parameters
        assert "body" not in parameters  # a streamed body is not logged
        seen_optional += "contentType" in parameters
    assert 0 < seen_optional < len(SEEDS)  # optional members sometimes


def test_calls_botocore_does_not_know_keep_generic_parameters():
    assert call_parameters([_pattern("ec2.amazonaws.com", "NoSuchCall")]) == ()
    assert call_parameters([_pattern("nosuchservice.amazonaws.com", "PutObject")]) == ()
    assert call_parameters([json.dumps({"source": ["aws.ec2"]})]) == ()


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Cidr", "cidr"), ("ACL", "acl"), ("SSECustomerKey", "sseCustomerKey"), ("DryRun", "dryRun")],
)
def test_member_names_are_lower_camel_at_the_top_level(name, expected):
    assert lower_camel(name) == expected


@pytest.mark.parametrize("function", ["CidrFunction", "UploadFunction"])
def test_a_campaign_reading_request_parameters_finds_nothing(tmp_path, function):
    target = load_template_target(TEMPLATE, function)
    engine = build_engine(target, out_dir=tmp_path, seed=5, max_execs=150)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    failures = [e for e in events if isinstance(e, NewFailure)]
    assert failures == [], f"seed 5, {function}: {failures[:1]}"
