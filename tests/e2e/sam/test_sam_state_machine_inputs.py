"""A first task's `$` is the state machine's execution input, which its triggers decide:
which states receive that input, the inputs read from the template (SAM `Events`,
`AWS::Events::Rule` targets, `InputPath`), the payloads drawn from them and a campaign of
a handler that reads the S3 event its state machine's rule admits."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.config.state_machines import execution_input_states
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.task_inputs import selected
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.world import LoadedWorld
from tests.fixtures.template_runs import drawn_events

APP = Path(__file__).parent / "apps" / "state_machine_inputs"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "uploads.py"
SEEDS = range(60)


def _payloads(function: str) -> list[dict]:
    target = load_template_target(TEMPLATE, function)
    return drawn_events(target, SEEDS)


def test_the_start_state_and_unchanged_passes_receive_the_execution_input():
    document = {
        "StartAt": "Route",
        "States": {
            "Route": {
                "Type": "Choice",
                "Choices": [{"Variable": "$.a", "IsPresent": True, "Next": "Wait"}],
                "Default": "Shaped",
            },
            "Wait": {"Type": "Wait", "Seconds": 1, "Next": "First"},
            "First": {"Type": "Task", "Resource": "x", "Next": "Later"},
            "Shaped": {"Type": "Pass", "Result": {"a": 1}, "Next": "AfterShaped"},
            "AfterShaped": {"Type": "Task", "Resource": "x", "End": True},
            "Later": {"Type": "Task", "Resource": "x", "End": True},
        },
    }
    # a task's output, or a Pass state's Result, is not the execution input
    assert execution_input_states(document) == {"Route", "Wait", "First", "Shaped"}


def test_a_later_state_receives_no_known_input():
    document = {
        "StartAt": "A",
        "States": {"A": {"Type": "Task", "Next": "B"}, "B": {"Type": "Task", "End": True}},
    }
    assert execution_input_states(document) == {"A"}
    assert execution_input_states({"States": {}}) == frozenset()  # no StartAt


def test_the_first_task_reads_the_rule_event():
    imported = load_template(TEMPLATE, "ScanFunction")
    assert imported.config["trigger"]["inputs"] == [
        [
            {
                "kind": "eventbridge",
                "paths": [],
                "patterns": [
                    {
                        "detail": {"bucket": {"name": ["my-bucket"]}},
                        "detail-type": ["Object Created"],
                        "source": ["aws.s3"],
                    }
                ],
            }
        ]
    ]
    for payload in _payloads("ScanFunction"):
        assert set(payload) == {"data", "token"}
        data = payload["data"]
        assert (data["source"], data["detail-type"]) == ("aws.s3", "Object Created")
        assert data["detail"]["bucket"]["name"] == "my-bucket"
        assert isinstance(data["detail"]["object"]["key"], str)


def test_a_later_task_keeps_arbitrary_json():
    imported = load_template(TEMPLATE, "ReportFunction")
    assert "inputs" not in imported.config["trigger"]
    kinds = {type(p["data"]).__name__ for p in _payloads("ReportFunction")}
    assert "dict" in kinds and not any(
        isinstance(p["data"], dict) and p["data"].get("source") == "aws.s3"
        for p in _payloads("ReportFunction")
    )


def test_several_triggers_are_drawn_among_and_input_path_applies():
    scheduled = detail = 0
    for payload in _payloads("SweepFunction"):
        started = payload["started"]
        assert isinstance(started, dict)
        if started.get("detail-type") == "Scheduled Event":
            scheduled += 1
            assert started["resources"] == [
                "arn:aws:events:us-east-1:123456789012:rule/NightlyRule"
            ]
            assert payload["when"] == started["time"]  # `$.time` of the same event
        else:
            detail += 1
            assert "source" not in started or started.get("source") != "custom.orders"
    assert scheduled >= 10 and detail >= 10, (scheduled, detail)


@pytest.mark.parametrize(
    ("path", "expected"),
    [("$", {"a": [1, {"b": 2}]}), ("$.a[1].b", 2), ("$['a'][0]", 1), ("$.c", None)],
)
def test_input_paths_select(path, expected):
    found = selected({"a": [1, {"b": 2}]}, path)
    assert (found if path != "$.c" else None) == expected
    if path == "$.c":
        assert found is not None  # the missing marker, not a value


def test_a_config_inputs_setting_needs_one_list_per_payload():
    config = {
        "handler": "uploads.scan",
        "root": "src",
        "trigger": {"kind": "direct", "payloads": [{"d.$": "$"}], "inputs": [[], []]},
    }
    with pytest.raises(ConfigError) as caught:
        target_from_dict(config, TEMPLATE)
    assert "one list of inputs per payload" in str(caught.value)


def test_a_scan_campaign_finds_nothing(tmp_path):
    target = load_template_target(TEMPLATE, "ScanFunction")
    engine = build_engine(target, out_dir=tmp_path, seed=3, max_execs=150)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    failures = [e for e in events if isinstance(e, NewFailure)]
    assert failures == [], f"seed 3: {failures[:1]}"  # no KeyError on the S3 event's fields


def test_the_bucket_whose_events_start_the_machine_holds_the_object_they_name(tmp_path):
    """A bucket of the template whose S3 "Object Created" events are a task's input is an
    event source: its objects are in the world, and the event names one of them (a handler
    reading the object finds it, as it would after a real upload)."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "uploads.py").write_text(HANDLER.read_text())
    text = TEMPLATE.read_text().replace("name: [my-bucket]", "name: [!Ref Inbox]")
    text = text.replace("Resources:\n", "Resources:\n  Inbox:\n    Type: AWS::S3::Bucket\n\n", 1)
    (tmp_path / "template.yaml").write_text(text)
    target = load_template_target(tmp_path / "template.yaml", "ScanFunction")
    (bucket,) = target.resources.buckets
    assert bucket.objects is not None and bucket.objects.min >= 1
    for seed in range(30):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(LoadedWorld(generated.world))
        detail = event["data"]["detail"]
        (held,) = [b for b in generated.world.buckets if b.name == detail["bucket"]["name"]]
        assert detail["object"]["key"] in {o.key for o in held.objects}, seed
