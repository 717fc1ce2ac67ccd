"""Event filters in SAM/CloudFormation templates: FilterCriteria, EventBridge patterns and
S3 key rules become what the fuzzer enforces; what it cannot enforce is a warning."""

from __future__ import annotations

import json

from test_sam import write_app

from lambdafuzz.config.sam import load_template
from lambdafuzz.model.target import TriggerKind
from tests.fixtures.sam import template_text


def _filters(imported) -> list[dict]:
    return [json.loads(text) for text in imported.target.trigger.filters]


def test_sqs_dynamodb_and_kinesis_filter_criteria_become_trigger_filters(tmp_path):
    template = write_app(tmp_path, template_text("filters", "filter_criteria_sqs_dynamodb_kinesis"))
    sqs = load_template(template, "Fn")
    assert _filters(sqs) == [{"body": {"type": ["order"]}}, {"body": [{"prefix": "PING"}]}]
    assert not sqs.unsupported
    stream = load_template(template, "Streamed")
    assert stream.target.trigger.kind is TriggerKind.DYNAMODB_STREAM
    assert _filters(stream) == [{"eventName": ["INSERT"]}]
    kinesis = load_template(template, "Clicks")
    assert _filters(kinesis) == [{"data": {"kind": ["click"]}}]


def test_an_event_source_mapping_brings_its_filter_criteria(tmp_path):
    template = write_app(tmp_path, template_text("filters", "event_source_mapping_filter_criteria"))
    assert _filters(load_template(template)) == [{"body": {"total": [{"numeric": [">", 100]}]}}]


def test_a_custom_eventbridge_pattern_generates_custom_events_not_bucket_ones(tmp_path):
    template = write_app(tmp_path, template_text("filters", "custom_eventbridge_pattern"))
    imported = load_template(template)
    trigger = imported.target.trigger
    assert (trigger.kind, trigger.source) == (TriggerKind.EVENTBRIDGE, None)
    assert imported.target.resources.bucket("uploads").objects is None  # not an event source
    assert _filters(imported)[0]["source"] == ["com.shop.orders"]


def test_an_s3_eventbridge_pattern_keeps_the_bucket_and_resolves_its_ref(tmp_path):
    template = write_app(tmp_path, template_text("filters", "s3_eventbridge_pattern"))
    imported = load_template(template)
    assert imported.target.trigger.source == "photo-uploads"
    assert _filters(imported)[0]["detail"]["bucket"] == {"name": ["photo-uploads"]}
    objects = imported.target.resources.bucket("photo-uploads").objects
    assert objects is not None and objects.prefixes == ("raw/",)  # the keys the rule passes


def test_s3_key_rules_become_prefixes_and_suffixes_without_a_warning(tmp_path):
    template = write_app(tmp_path, template_text("filters", "s3_key_rules"))
    imported = load_template(template)
    objects = imported.target.resources.bucket("photos").objects
    assert objects is not None
    assert (objects.prefixes, objects.suffixes, objects.formats) == (
        ("uploads/",),
        (".JPG",),
        ("jpeg",),
    )
    assert not imported.unsupported
    assert imported.target.trigger.s3_events == ("s3:ObjectCreated:*",)


def test_an_s3_events_list_becomes_the_triggers_event_types(tmp_path):
    """The event types decide whether removals are generated (edge values)."""
    template = write_app(tmp_path, template_text("filters", "s3_events_list"))
    trigger = load_template(template).target.trigger
    assert trigger.s3_events == ("s3:ObjectCreated:Put", "s3:ObjectRemoved:*")


def test_filters_lambdafuzz_cannot_enforce_are_warnings_naming_the_construct(tmp_path):
    template = write_app(tmp_path, template_text("filters", "unenforceable_filter_criteria"))
    imported = load_template(template)
    notes = imported.unsupported
    assert _filters(imported) == [{"awsRegion": ["us-east-1"]}, {"body": {"kind": ["ok"]}}]
    assert len(notes) == 4, notes
    assert "Events.E.FilterCriteria.Filters[0].Pattern: body.kind.0.begins-with" in notes[0]
    assert "an operator: one of prefix" in notes[0]
    assert notes[1].startswith("Events.E.FilterCriteria.Filters[1].Pattern: not JSON")
    assert "field 'type' is not one of body" in notes[2]
    assert "Filters[3].Pattern" in notes[3] and "cannot be resolved" in notes[3]


def test_an_sns_filter_policy_is_listed_as_not_enforced(tmp_path):
    template = write_app(tmp_path, template_text("filters", "sns_filter_policy"))
    imported = load_template(template)
    assert imported.target.trigger.filters == ()
    assert any(n.startswith("Events.E.FilterPolicy: SNS") for n in imported.unsupported)
