"""Resources only API Gateway service integrations write hold what those integrations
write: a Kinesis stream an API method puts `$input.json('$')` on carries JSON objects, a
table an `UpdateItem ... SET #a = :a` integration writes has `a` in every item and stream
image; another possible writer (a function with a write policy or the name, a raw-body
integration) leaves generation as it was."""

from __future__ import annotations

import base64
import json
import logging
import shutil
from pathlib import Path

import pytest

from lambdafuzz.config.integrations import IntegrationUse, service_integrations
from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.sam_template import Resolver, read_template
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import BODY_JSON_OBJECT
from tests.fixtures.sam import template_text

APP = Path(__file__).parent / "apps" / "integrations"
TEMPLATE = APP / "template.yaml"
SEEDS = range(60)
ATTRIBUTES = (("datetime", "S"), ("message", "S"), ("votes", "N"))
STREAM_NOTE = (
    "Kinesis stream clicks: written only by API Gateway integrations that send JSON "
    "(Resources.ClickMethod): its records are JSON objects"
)

#: Another writer appended to the template (its fixture's name): each keeps the mechanism off.
OTHER_WRITERS = {
    "a function with write policies": "writer_with_write_policies",
    "a function naming them in its environment": "writer_naming_them_in_its_environment",
    "a role granting every stream and table": "role_granting_every_stream_and_table",
    "integrations of unread shape": "integrations_of_unread_shape",
}


def test_integrations_are_read_from_methods_and_openapi_definitions():
    template = read_template(TEMPLATE)
    found = {(i.where, i.action): i for i in service_integrations(template, Resolver(template))}
    click = found["Resources.ClickMethod", "PutRecord"]
    assert (click.resource, click.use, click.json_data) == (
        "ClickStream",
        IntegrationUse.WRITE,
        True,
    )
    put = found["Resources.MessageApi.DefinitionBody.paths./messages/{id}.put", "UpdateItem"]
    # SET #dt = :dt, #msg = :msg ADD votes :one: names resolved, types of the values
    assert (put.resource, put.attributes) == ("MessageTable", ATTRIBUTES)
    get = found["Resources.MessageApi.DefinitionBody.paths./messages/{id}.get", "GetItem"]
    assert (get.resource, get.use) == ("MessageTable", IntegrationUse.READ)


def test_a_stream_only_json_integrations_write_has_json_object_records(caplog):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        target = load_template_target(TEMPLATE, "ClickConsumer")
    assert target.trigger.body == BODY_JSON_OBJECT
    notes = [r.getMessage() for r in caplog.records if "[sam-integrations]" in r.getMessage()]
    assert f"note [sam-integrations]: ClickConsumer: {STREAM_NOTE}" in notes
    assert len([n for n in notes if "Kinesis" in n]) == 1  # said once
    for seed in SEEDS:
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record in event["Records"]:
            document = json.loads(base64.b64decode(record["kinesis"]["data"]))
            assert isinstance(document, dict), f"seed {seed}: {document!r}"


def test_a_table_only_an_update_integration_writes_holds_its_attributes():
    imported = load_template(TEMPLATE, "MessageConsumer")
    (table,) = imported.target.resources.tables
    assert table.attributes == ATTRIBUTES
    assert imported.config["resources"]["tables"][0]["attributes"] == [
        {"name": n, "type": t} for n, t in ATTRIBUTES
    ]
    assert any("DynamoDB table messages: " in n and "votes (N)" in n for n in imported.notes)
    assert imported.target.trigger.body is None  # a stream trigger: no payload format
    images = 0
    for seed in SEEDS:
        generated = generate_input(Choices(seed=seed), imported.target)
        (world_table,) = generated.world.tables
        for item in world_table.items:
            assert {n: next(iter(item[n])) for n, _ in ATTRIBUTES} == dict(ATTRIBUTES)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record in event["Records"]:
            for part in ("NewImage", "OldImage"):
                image = record["dynamodb"].get(part)
                if image is not None:
                    images += 1
                    assert {n: next(iter(image[n])) for n, _ in ATTRIBUTES} == dict(ATTRIBUTES), (
                        f"seed {seed}: {part} {image}"
                    )
    assert images > len(SEEDS)  # INSERT, MODIFY and REMOVE images were all checked


def _campaign_failures(tmp_path: Path, function: str) -> list[NewFailure]:
    target = load_template_target(TEMPLATE, function)
    engine = build_engine(target, out_dir=tmp_path, seed=5, max_execs=200)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return [e for e in events if isinstance(e, NewFailure)]


def test_a_consumer_that_trusts_json_records_never_fails(tmp_path):
    failures = _campaign_failures(tmp_path, "ClickConsumer")
    # JSONDecodeError, UnicodeDecodeError, AttributeError (a JSON array) were all inputs
    # no deployment of this template sends
    assert failures == [], [f.record.signature for f in failures]


def test_a_consumer_that_trusts_the_written_attributes_never_fails(tmp_path):
    failures = _campaign_failures(tmp_path, "MessageConsumer")
    assert failures == [], [f.record.signature for f in failures]  # no KeyError on an image


@pytest.mark.parametrize("writer", list(OTHER_WRITERS))
def test_another_possible_writer_keeps_generation_as_it_was(tmp_path, writer, caplog):
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    template = app / "template.yaml"
    template.write_text(TEMPLATE.read_text() + template_text("integrations", OTHER_WRITERS[writer]))
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        clicks = load_template_target(template, "ClickConsumer")
    assert clicks.trigger.body is None  # the default mix: JSON, other text, raw bytes
    assert not [r for r in caplog.records if "[sam-integrations]" in r.getMessage()]
    messages = load_template(template, "MessageConsumer")
    assert messages.target.resources.tables[0].attributes == ()
    assert messages.notes == ()
    assert "attributes" not in messages.config["resources"]["tables"][0]


def _config(trigger: dict, tables: list | None = None) -> dict:
    config = {"handler": "consumers.on_clicks", "root": "src", "trigger": trigger}
    if tables is not None:
        config["resources"] = {"tables": tables}
    return config


def test_a_config_sets_json_object_payloads_and_table_attributes():
    target = target_from_dict(
        _config(
            {"kind": "kinesis", "source": "clicks", "body": "json-object"},
            [
                {
                    "name": "messages",
                    "hash_key": {"name": "id", "type": "S"},
                    "attributes": [{"name": "datetime", "type": "S"}, {"name": "n", "type": "N"}],
                }
            ],
        ),
        TEMPLATE,
    )
    assert target.trigger.body == BODY_JSON_OBJECT
    assert target.resources.tables[0].attributes == (("datetime", "S"), ("n", "N"))


@pytest.mark.parametrize(
    ("trigger", "tables", "expected"),
    [
        ({"kind": "sqs", "source": "q", "body": "json-object"}, None, "json-object is for"),
        (
            {"kind": "kinesis"},
            [
                {
                    "name": "messages",
                    "hash_key": {"name": "id", "type": "S"},
                    "attributes": [{"name": "id", "type": "S"}],
                }
            ],
            "a non-key attribute listed once",
        ),
        (
            {"kind": "kinesis"},
            [
                {
                    "name": "messages",
                    "hash_key": {"name": "id", "type": "S"},
                    "attributes": [{"name": "a", "type": "X"}],
                }
            ],
            "a DynamoDB attribute type",
        ),
    ],
)
def test_a_config_json_object_body_and_attributes_are_validated(trigger, tables, expected):
    config = _config(trigger, tables)
    if trigger["kind"] == "sqs":
        config["resources"] = {"queues": [{"name": "q"}]}
    with pytest.raises(ConfigError) as caught:
        target_from_dict(config, TEMPLATE)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("uri", "request_text", "expected"),
    [
        (  # a literal table name; an Item's top-level attributes, typed
            "arn:aws:apigateway:us-east-1:dynamodb:action/PutItem",
            '\'{"TableName": "orders", "Item": {"id": {"S": "$context.requestId"}, '
            '"total": {"N": "$input.path(\'\'$.total\'\')"}, "meta": {"M": {"a": {"S": "x"}}}}}\'',
            ("Orders", (("id", "S"), ("total", "N"), ("meta", "M")), False),
        ),
        (  # a name placeholder called #set; REMOVE takes one away; a nested path is no attribute
            '!Join ["", ["arn:aws:apigateway:", !Ref "AWS::Region", ":dynamodb:action/UpdateItem"]]',
            '!Sub \'{"TableName": "${Orders}", "UpdateExpression": "SET #set = :s, a.b = :s, '
            'n = n + :one REMOVE gone, #set2", "ExpressionAttributeNames": {"#set": "state", '
            '"#set2": "old"}, "ExpressionAttributeValues": {":s": {"S": "x"}, ":one": {"N": "1"}}}\'',
            ("Orders", (("state", "S"), ("n", "N")), False),
        ),
        (  # what is set depends on the request: nothing is known to be always there
            "arn:aws:apigateway:us-east-1:dynamodb:action/UpdateItem",
            '!Sub \'{"TableName": "${Orders}", #if($input.path("$.a") != "")"UpdateExpression": '
            '"SET a = :a", #end "ExpressionAttributeValues": {":a": {"S": "x"}}}\'',
            ("Orders", (), False),
        ),
        (  # the raw body: not known to be JSON
            "!Sub arn:aws:apigateway:${AWS::Region}:kinesis:action/PutRecord",
            '!Sub \'{"StreamName": "${Feed}", "Data": "$util.base64Encode($input.body)", '
            '"PartitionKey": "k"}\'',
            ("Feed", (), False),
        ),
        (
            "!Sub arn:aws:apigateway:${AWS::Region}:kinesis:action/PutRecord",
            '!Sub \'{"StreamName": "${Feed}", "Data": "$util.base64Encode($input.json(\'\'$.order\'\'))", '
            '"PartitionKey": "k"}\'',
            ("Feed", (), True),
        ),
    ],
)
def test_request_templates_are_read_as_text(tmp_path, uri, request_text, expected):
    path = tmp_path / "template.yaml"
    path.write_text(template_text("integrations", "one_method", uri=uri, request=request_text))
    template = read_template(path)
    (found,) = service_integrations(template, Resolver(template))
    assert (found.resource, found.attributes, found.json_data) == expected
    assert found.use is IntegrationUse.WRITE
