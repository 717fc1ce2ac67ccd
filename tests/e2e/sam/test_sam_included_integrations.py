"""API Gateway integrations in an included OpenAPI file, and integrations whose target
the caller names: the file is read (its `Fn::Sub` / `Fn::GetAtt` resolved as in the
template), and a target taken from the request is what the credentials role may write.
What cannot be bounded (a grant on `*`, an unresolved resource, a file in S3) leaves
generation as it was."""

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
from lambdafuzz.config.written_shapes import written_shapes
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.target import BODY_JSON_OBJECT
from tests.fixtures.sam import template_text

APP = Path(__file__).parent / "apps" / "integrations_included"
TEMPLATE = APP / "template.yaml"
SEEDS = range(40)
ATTRIBUTES = (("choice", "S"), ("lastVoteAt", "S"), ("votes", "N"))
GRANT = """\
            Resource: !Sub
              - "${varStreamArn}*"
              - varStreamArn: !GetAtt EventStream.Arn
"""


def _notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "[sam-integrations]" in r.getMessage()]


def _app(tmp_path: Path, old: str = "", new: str = "", extra: str = "") -> Path:
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    template = app / "template.yaml"
    text = TEMPLATE.read_text()
    assert old in text
    template.write_text(text.replace(old, new) + extra)
    return template


def test_an_included_definition_is_read_with_its_intrinsics():
    template = read_template(TEMPLATE)
    found = {(i.where, i.action): i for i in service_integrations(template, Resolver(template))}
    update = found["./restapi/api.yaml paths./polls/{pollId}/votes.post", "UpdateItem"]
    # `Fn::Sub` with a variable map inside the file names the table
    assert (update.resource, update.use, update.attributes) == (
        "VoteTable",
        IntegrationUse.WRITE,
        ATTRIBUTES,
    )
    put = found["./restapi/api.yaml paths./streams/{streamName}/events.post", "PutRecord"]
    # the stream is the caller's: the role allows PutRecord on EventStream only
    assert (put.resource, put.json_data) == ("EventStream", True)


def test_a_table_an_included_update_writes_has_its_attributes_in_every_image(caplog):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        target = load_template_target(TEMPLATE, "VoteConsumer")
    (table,) = target.resources.tables
    assert table.attributes == ATTRIBUTES
    (note,) = [n for n in _notes(caplog) if "DynamoDB table votes" in n]
    assert "./restapi/api.yaml paths./polls/{pollId}/votes.post" in note
    assert "choice (S), lastVoteAt (S), votes (N)" in note
    images = 0
    for seed in SEEDS:
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record in event["Records"]:
            for part in ("NewImage", "OldImage"):
                image = record["dynamodb"].get(part)
                if image is not None:
                    images += 1
                    held = {n: next(iter(image[n])) for n, _ in ATTRIBUTES if n in image}
                    assert held == dict(ATTRIBUTES), f"seed {seed}: {part} {image}"
    assert images > len(SEEDS)


def test_a_stream_the_caller_names_within_the_role_has_json_object_records(caplog):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        target = load_template_target(TEMPLATE, "EventConsumer")
    assert target.trigger.body == BODY_JSON_OBJECT
    assert any("Kinesis stream poll-events: written only by" in n for n in _notes(caplog))
    for seed in SEEDS:
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record in event["Records"]:
            document = json.loads(base64.b64decode(record["kinesis"]["data"]))
            assert isinstance(document, dict), f"seed {seed}: {document!r}"


@pytest.mark.parametrize(
    ("new", "extra"),
    [
        ('            Resource: "*"\n', ""),  # the caller may name any stream
        (  # one grant lambdafuzz cannot resolve
            "            Resource:\n"
            '              - !Sub ["${varStreamArn}*", {varStreamArn: !GetAtt EventStream.Arn}]\n'
            "              - !ImportValue shared-stream-arn\n",
            "",
        ),
        (  # a second stream of the template, which a function also writes
            "            Resource:\n              - !GetAtt EventStream.Arn\n"
            "              - !GetAtt AuditStream.Arn\n",
            template_text("integrations", "second_stream_writer"),
        ),
    ],
    ids=["star", "unresolved", "second-stream"],
)
def test_a_role_that_cannot_be_bounded_keeps_generation_as_it_was(tmp_path, new, extra):
    template = _app(tmp_path, GRANT, new, extra)
    shapes = written_shapes(read_template(template), Resolver(read_template(template)))
    if extra:  # the role allows both: each holds what the integration writes unless
        # something else writes it too
        assert shapes["EventStream"].json_records
        assert "AuditStream" not in shapes
    else:
        assert "EventStream" not in shapes
        assert load_template_target(template, "EventConsumer").trigger.body is None
    assert shapes["VoteTable"].attributes == ATTRIBUTES  # the table's writers are fixed


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("s3://bucket/api.yaml", "AWS::Include of 's3://bucket/api.yaml' is not a local file"),
        ("./restapi/missing.yaml", "./restapi/missing.yaml cannot be read"),
    ],
)
def test_an_unread_definition_is_one_note_and_applies_nothing(tmp_path, caplog, location, expected):
    template = _app(tmp_path, "./restapi/api.yaml", location)
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.config.sam"):
        imported = load_template(template, "VoteConsumer")
        target = load_template_target(template, "EventConsumer")
    assert imported.target.resources.tables[0].attributes == ()
    assert target.trigger.body is None
    (note,) = imported.notes
    assert note.startswith(f"Resources.VoteApi.DefinitionBody: {expected}")
    assert "no stream or table takes the shape" in note
    assert len([n for n in _notes(caplog) if "EventConsumer" in n]) == 1


_WRITES = """\
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
"""
_METHOD = """\
  {name}:
    Type: AWS::ApiGateway::Method
    Properties:
      HttpMethod: POST
      Integration:
        Type: AWS
        Uri: arn:aws:apigateway:us-east-1:dynamodb:action/{action}
        RequestTemplates:
          application/json: !Sub '{{"TableName": "${{Orders}}", {body}}}'
"""
PUT = '"Item": {"id": {"S": "x"}, "state": {"S": "new"}, "total": {"N": "1"}}'
SET = '"UpdateExpression": "SET #s = :s ADD hits :one", "ExpressionAttributeNames": {"#s": "state"}, "ExpressionAttributeValues": {":s": {"S": "x"}, ":one": {"N": "1"}}'
REMOVE = '"UpdateExpression": "REMOVE total"'
COUNT = '"UpdateExpression": "ADD hits :one", "ExpressionAttributeValues": {":one": {"N": "1"}}'
DELETE = '"Key": {"id": {"S": "x"}}'


@pytest.mark.parametrize(
    ("writes", "expected"),
    [
        ([("PutItem", PUT), ("UpdateItem", SET)], (("state", "S"),)),
        (
            [("PutItem", PUT), ("DeleteItem", DELETE)],
            (("id", "S"), ("state", "S"), ("total", "N")),
        ),
        # an update on a missing key creates the item with its key and what it sets only
        ([("PutItem", PUT), ("UpdateItem", REMOVE)], ()),
        ([("UpdateItem", SET), ("UpdateItem", COUNT)], (("hits", "N"),)),
    ],
    ids=["put-and-set", "delete-creates-nothing", "remove-only-creates", "counter-creates"],
)
def test_always_present_attributes_are_those_every_creating_write_sets(tmp_path, writes, expected):
    text = _WRITES + "".join(
        _METHOD.format(name=f"M{i}", action=action, body=body)
        for i, (action, body) in enumerate(writes)
    )
    path = tmp_path / "template.yaml"
    path.write_text(text)
    template = read_template(path)
    assert written_shapes(template, Resolver(template))["Orders"].attributes == expected


def test_a_consumer_trusting_the_included_updates_never_fails(tmp_path):
    target = load_template_target(TEMPLATE, "VoteConsumer")
    engine = build_engine(target, out_dir=tmp_path, seed=11, max_execs=150)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    failures = [e for e in events if isinstance(e, NewFailure)]
    assert failures == [], [f.record.signature for f in failures]  # no KeyError on an image
