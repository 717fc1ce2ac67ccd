"""What a template import says it leaves out: the properties of modelled resources it does
not carry (one line per resource), the unemulated resources the function refers to (one
line each), and the rest of the template counted in one line."""

from __future__ import annotations

import logging
from pathlib import Path

from lambdafuzz.config.function_references import named_ids, referenced_ids
from lambdafuzz.config.resource_properties import dropped_properties
from lambdafuzz.config.sam import load_template, load_template_target

TEMPLATE = Path(__file__).parent / "apps" / "noisy_stack" / "template.yaml"
NOT_MODELLED = "properties not modelled (the emulated resource behaves as if they were absent)"


def test_dropped_properties_are_named_once_per_resource():
    notes = load_template(TEMPLATE).unsupported
    dropped = [n for n in notes if NOT_MODELLED in n]
    assert dropped == [
        f"Resources.OrdersTable: AWS::DynamoDB::Table {NOT_MODELLED}: BillingMode, "
        "TimeToLiveSpecification, PointInTimeRecoverySpecification",
        f"Resources.JobsQueue: AWS::SQS::Queue {NOT_MODELLED}: VisibilityTimeout, RedrivePolicy",
        f"Resources.ArchiveBucket: AWS::S3::Bucket {NOT_MODELLED}: VersioningConfiguration",
        f"Resources.Settings: AWS::SSM::Parameter {NOT_MODELLED}: Tier",
    ]  # DeadLetters has no properties: nothing to say


def test_properties_the_import_reads_are_not_listed():
    table = {"TableName": "t", "KeySchema": [], "AttributeDefinitions": [], "Tags": []}
    assert dropped_properties("AWS::DynamoDB::Table", table) == ("Tags",)
    assert dropped_properties("AWS::SQS::Queue", {"QueueName": "q", "FifoQueue": True}) == ()
    assert dropped_properties("AWS::CloudWatch::Alarm", {"Threshold": 1}) == ()  # not modelled


def test_only_referenced_resources_are_reported_as_not_emulated():
    notes = load_template(TEMPLATE).unsupported
    emulated = [n for n in notes if "not emulated" in n]
    assert emulated == [
        "Resources.Workflow: type AWS::StepFunctions::StateMachine is not emulated",  # env
        "Resources.Bus: type AWS::Events::EventBus is not emulated",  # policies
        "Resources.AuditStream: type AWS::KinesisFirehose::DeliveryStream is not emulated",  # code
        "3 other resources of the template are not emulated (not referenced by the function)",
    ]


def test_each_note_is_one_warning_line(caplog):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        load_template_target(TEMPLATE)
    lines = [r.getMessage() for r in caplog.records]
    assert sum("ErrorsAlarm" in line or "Dashboard" in line for line in lines) == 0
    assert sum("3 other resources" in line for line in lines) == 1
    assert sum("Resources.OrdersTable:" in line for line in lines) == 1
    assert all(line.startswith("warning [sam-unsupported]: OrdersFunction: ") for line in lines)


def test_references_through_every_intrinsic():
    props = {
        "Environment": {"Variables": {"A": {"Ref": "One"}, "B": {"Fn::GetAtt": ["Two", "Arn"]}}},
        "Policies": [{"Statement": {"Resource": {"Fn::Sub": "arn:${Three.Arn}/${AWS::Region}"}}}],
        "InlineCode": {"Fn::Sub": ["x = '${Four}' + '${Var}'", {"Var": {"Ref": "Five"}}]},
        "Events": {"E": {"Properties": {"Stream": {"Fn::GetAtt": "Six.Arn"}}}},
    }
    resources = {n: {} for n in ("One", "Two", "Three", "Four", "Five", "Six", "Seven")}
    assert set(named_ids(props)) >= {"One", "Two", "Three", "Four", "Five", "Six"}
    assert referenced_ids(props, resources) == frozenset(resources) - {"Seven"}
    by_text = referenced_ids({}, {"Seven": {}, "Seventeen": {}}, ["uses Seven here"])
    assert by_text == {"Seven"}  # a whole word, not a prefix of another id
