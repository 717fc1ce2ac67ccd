"""`trigger.report_batch_item_failures`: from lambdafuzz.yaml (sqs, kinesis and
dynamodb-stream triggers only) and from a template's `FunctionResponseTypes` (SAM events
and plain event source mappings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam import template_text

TRIGGERS = {
    "sqs": ("{kind: sqs, source: jobs", "queues: [{name: jobs}]"),
    "kinesis": ("{kind: kinesis, source: clicks", "{}"),
    "dynamodb-stream": (
        "{kind: dynamodb-stream, source: accounts",
        "tables: [{name: accounts, hash_key: {name: id, type: S}, stream: NEW_IMAGE}]",
    ),
    "sns": ("{kind: sns, source: alerts", "topics: [{name: alerts}]"),
    "s3": ("{kind: s3, source: uploads", "buckets: [{name: uploads, objects: {min: 1, max: 1}}]"),
}


def write_config(directory: Path, kind: str, setting: str) -> Path:
    trigger, resources = TRIGGERS[kind]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text("def handler(event, context):\n    return None\n")
    path = directory / "lambdafuzz.yaml"
    body = f"resources:\n  {resources}\n" if resources != "{}" else ""
    path.write_text(f"handler: app.handler\ntrigger: {trigger}{setting}}}\n{body}")
    return path


@pytest.mark.parametrize("kind", ["sqs", "kinesis", "dynamodb-stream"])
def test_the_yaml_setting_for_a_batch_trigger(tmp_path, kind):
    on = load_config(write_config(tmp_path / "on", kind, ", report_batch_item_failures: true"))
    assert on.trigger.kind is TriggerKind(kind) and on.trigger.report_batch_item_failures
    off = load_config(write_config(tmp_path / "off", kind, ""))
    assert off.trigger.report_batch_item_failures is False  # the default: Lambda's too
    said = load_config(write_config(tmp_path / "said", kind, ", report_batch_item_failures: false"))
    assert said.trigger.report_batch_item_failures is False


@pytest.mark.parametrize("kind", ["sns", "s3"])
def test_the_yaml_setting_for_another_trigger_is_a_config_error(tmp_path, kind):
    path = write_config(tmp_path, kind, ", report_batch_item_failures: true")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: trigger.report_batch_item_failures is True")
    assert "only for an sqs, kinesis or dynamodb-stream trigger" in message
    assert "\n" not in message
    # false says nothing Lambda would not do anyway: accepted
    fine = load_config(write_config(tmp_path / "off", kind, ", report_batch_item_failures: false"))
    assert fine.trigger.report_batch_item_failures is False


def test_the_sam_property_name_in_yaml_points_to_the_setting(tmp_path):
    path = write_config(tmp_path, "sqs", ", FunctionResponseTypes: [ReportBatchItemFailures]")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "unknown key trigger.FunctionResponseTypes" in str(info.value)
    assert "report_batch_item_failures" in str(info.value)


# ----------------------------------------------------------------------------- templates
EVENTS = {
    "SQS": "Queue: !GetAtt Jobs.Arn",
    "Kinesis": "{Stream: !GetAtt Clicks.Arn, StartingPosition: LATEST}",
    "DynamoDB": "{Stream: !GetAtt Accounts.StreamArn, StartingPosition: LATEST}",
}
KINDS = {"SQS": "sqs", "Kinesis": "kinesis", "DynamoDB": "dynamodb-stream"}


def write_template(tmp_path: Path, text: str) -> Path:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "app.py").write_text("def handler(event, context):\n    return None\n")
    path = tmp_path / "template.yaml"
    path.write_text(text)
    return path


def event_template(event_type: str, responses: str | None) -> str:
    props = EVENTS[event_type]
    if responses is not None:
        inner = props.strip("{}") if props.startswith("{") else props
        props = "{" + inner + f", FunctionResponseTypes: {responses}" + "}"
    elif not props.startswith("{"):
        props = "{" + props + "}"
    return template_text("batch_setting", "batch_event", event_type=event_type, properties=props)


@pytest.mark.parametrize("event_type", ["SQS", "Kinesis", "DynamoDB"])
def test_a_sam_event_s_function_response_types(tmp_path, event_type):
    on = load_template(
        write_template(tmp_path / "on", event_template(event_type, "[ReportBatchItemFailures]"))
    )
    assert on.target.trigger.kind is TriggerKind(KINDS[event_type])
    assert on.target.trigger.report_batch_item_failures
    assert on.config["trigger"]["report_batch_item_failures"] is True  # what `init` writes
    off = load_template(write_template(tmp_path / "off", event_template(event_type, None)))
    assert off.target.trigger.report_batch_item_failures is False
    assert "report_batch_item_failures" not in off.config["trigger"]
    empty = load_template(write_template(tmp_path / "empty", event_template(event_type, "[]")))
    assert empty.target.trigger.report_batch_item_failures is False


def test_function_response_types_lambdafuzz_cannot_read_are_noted_and_off(tmp_path):
    text = event_template("SQS", "!If [Reporting, [ReportBatchItemFailures], []]")
    text = text.replace("Resources:\n", "Conditions:\n  Reporting: !Equals [a, a]\nResources:\n", 1)
    imported = load_template(write_template(tmp_path, text))
    assert imported.target.trigger.report_batch_item_failures is False
    assert any(
        u.startswith("Events.Batch.FunctionResponseTypes:") and "assumed off" in u
        for u in imported.unsupported
    ), imported.unsupported


def test_an_event_source_mapping_s_function_response_types(tmp_path):
    text = template_text("batch_setting", "event_source_mapping_response_types")
    imported = load_template(write_template(tmp_path, text))
    assert imported.target.trigger.kind is TriggerKind.SQS
    assert imported.target.trigger.report_batch_item_failures
