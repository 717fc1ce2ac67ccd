"""Worlds and event plans: replay, key schemas, consistency between world and event, labels."""

from __future__ import annotations

import base64
import hashlib
import urllib.parse
from collections import Counter
from decimal import Decimal

import pytest

from lambdafuzz import labels
from lambdafuzz.generators.aws.consistency import describe, missing_objects, named_objects
from lambdafuzz.generators.aws.dynamodb import TYPES, item_key
from lambdafuzz.generators.aws.events import md5_of_message_attributes
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Changed, Choices, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy

RESOURCES = """\
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 3, formats: [text, csv, json], prefixes: ["in/", "in/sub dir/"]}
    - name: thumbnails
  tables:
    - name: by-string
      hash_key: {name: id, type: S}
      items: {min: 1, max: 5}
    - name: by-number
      hash_key: {name: n, type: N}
      range_key: {name: ts, type: S}
      items: {min: 0, max: 5}
      stream: NEW_AND_OLD_IMAGES
    - name: by-binary
      hash_key: {name: b, type: B}
      range_key: {name: r, type: B}
      items: {min: 0, max: 3}
  queues:
    - {name: jobs, messages: {min: 0, max: 3}}
    - {name: ordered.fifo, messages: {min: 1, max: 3}}
  topics: [{name: alerts}]
"""


#: Lighter worlds for the tests that generate hundreds (files cost ~1 ms each).
BUCKET_ONLY = """\
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 2, formats: [json, text], prefixes: ["in/", "in/sub dir/"]}
"""
TABLES = """\
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 2, formats: [json]}
  tables:
    - name: by-string
      hash_key: {name: id, type: S}
      items: {min: 1, max: 5}
    - name: by-number
      hash_key: {name: n, type: N}
      range_key: {name: ts, type: S}
      items: {min: 0, max: 5}
      stream: NEW_AND_OLD_IMAGES
    - name: by-binary
      hash_key: {name: b, type: B}
      range_key: {name: r, type: B}
      items: {min: 0, max: 3}
"""


def config(trigger: str, resources: str = RESOURCES) -> str:
    return f"handler: app.handler\ntrigger: {trigger}\n{resources}"


def generate(target, seed, prefix=(), mode=ReplayMode.LINEAR):
    choices = Choices(prefix, seed=seed, mode=mode, policy=DrawPolicy(dictionary=target.dictionary))
    return generate_input(choices, target), choices


@pytest.mark.parametrize("mode", list(ReplayMode))
@pytest.mark.parametrize(
    "trigger",
    [
        "s3",
        "{kind: sqs, body: s3-event}",
        "dynamodb-stream",
        "apigateway-v2",
        "{kind: sns, body: csv}",
    ],
)
def test_same_sequence_same_world_and_event(make_target, trigger, mode):
    target = make_target(config(trigger))
    for seed in range(8):
        generated, choices = generate(target, seed)
        recording = choices.recording()
        again, replay = generate(target, seed + 10_000, recording.prefix(mode), mode)
        assert again.world == generated.world, f"seed={seed} mode={mode}"
        assert again.event == generated.event, f"seed={seed} mode={mode}"
        assert replay.misaligned_at is None, f"seed={seed}"
        assert replay.recording() == recording


def test_items_obey_key_schemas_and_keys_are_unique(make_target):
    target = make_target(config("s3", TABLES))
    seen_types: Counter[str] = Counter()
    for seed in range(100):
        world = generate(target, seed)[0].world
        for table in world.tables:
            schema = table.key_schema
            keys = [item_key(item, schema) for item in table.items]
            assert len(keys) == len(set(keys)), f"seed={seed} table={table.name}"
            for item in table.items:
                for name, kind in (
                    (schema.hash_name, schema.hash_type),
                    (schema.range_name, schema.range_type),
                ):
                    if name is None:
                        continue
                    ((tag, value),) = item[name].items()
                    assert tag == kind, f"seed={seed} {table.name}.{name}"
                    if kind == "N":
                        assert Decimal(value).is_finite()
                    elif kind == "B":
                        assert base64.b64decode(value, validate=True)
                    else:
                        assert value
                for name, value in item.items():
                    if name not in (schema.hash_name, schema.range_name):
                        seen_types.update(list(value))
    assert set(TYPES) <= set(seen_types), seen_types  # every DynamoDB type shows up


def test_table_keys_reuse_object_names(make_target):
    target = make_target(config("s3", TABLES))
    hits = 0
    for seed in range(200):
        world = generate(target, seed)[0].world
        names = set()
        for obj in world.bucket("uploads").objects:
            base = obj.key.rsplit("/", 1)[-1]
            names |= {obj.key, base, base.rsplit(".", 1)[0]}
        hits += any(item["id"]["S"] in names for item in world.table("by-string").items)
    assert 20 <= hits <= 150, hits  # about 30% of keys reuse a world string


def test_s3_event_keys_decode_to_world_objects(make_target):
    trigger = "{kind: s3, records: {min: 1, max: 3}, missing_objects: true}"
    target = make_target(config(trigger, BUCKET_ONLY))
    records = missing = encoded = 0
    for seed in range(400):
        generated, _ = generate(target, seed)
        bucket = generated.world.bucket("uploads")
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record, plan in zip(event["Records"], generated.event.records, strict=True):
            records += 1
            raw = record["s3"]["object"]["key"]
            key = urllib.parse.unquote_plus(raw)
            encoded += raw != key
            assert record["s3"]["bucket"]["name"] == "uploads"
            obj = bucket.get(key)
            if plan.missing:
                missing += 1
                assert obj is None, f"seed={seed}: a missing-object record names {key!r}"
            else:
                assert obj is not None, f"seed={seed}: {key!r} is not in the bucket"
                assert record["s3"]["object"]["size"] == len(obj.data)
                assert record["s3"]["object"]["eTag"] == obj.etag
    assert encoded > 20  # keys with spaces etc. really are encoded ("sub dir/", wide stems)
    assert 0 < missing < 0.06 * records, (missing, records)  # about 2%


EMPTY_ALLOWED = """\
resources:
  buckets:
    - name: uploads
      objects: {min: 0, max: 2, formats: [json]}
"""


@pytest.mark.parametrize(
    "trigger",
    [
        "{kind: s3, records: {min: 1, max: 3}}",
        "{kind: eventbridge, source: uploads}",
        "{kind: sqs, source: jobs, body: s3-event}",
        "{kind: sns, source: alerts, body: eventbridge-s3}",
    ],
)
def test_by_default_every_s3_notification_names_an_object_of_the_world(make_target, trigger):
    """Off by default: no notification names a missing object, even in a bucket whose
    `objects.min` is 0 (the notified bucket then holds one at least) and in children whose
    mutations flip the draw that would make one."""
    resources = EMPTY_ALLOWED + "  queues: [{name: jobs}]\n  topics: [{name: alerts}]\n"
    target = make_target(config(trigger, resources))
    assert target.trigger.missing_objects is False
    named = 0
    for seed in range(150):
        generated, choices = generate(target, seed)
        child, _ = generate(target, seed + 1000, [Changed(v) for v in choices.recording().values()])
        for input_ in (generated, child):
            event = input_.render_event(synthetic_loaded_world(input_.world))
            named += len(list(named_objects(event)))
            assert missing_objects(event, input_.world) == (), seed
    assert named >= 200  # the notifications were found and judged (some are s3:TestEvent)


def test_missing_objects_on_names_some_and_labels_them(make_target):
    target = make_target(
        config(
            "{kind: sqs, source: jobs, body: s3-event, missing_objects: true}",
            BUCKET_ONLY + "  queues: [{name: jobs}]\n",
        )
    )
    found = []
    for seed in range(300):
        generated, _ = generate(target, seed)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        found += missing_objects(event, generated.world)
    assert 2 <= len(found) <= 40, found  # about 2% of the notifications
    assert all(name.startswith("s3://uploads/") for name in found)
    label = describe(tuple(found[:5]))
    assert label.startswith("world inconsistency: the event names s3://uploads/")
    assert "and 2 more" in label and describe(()) == ""


def test_sqs_event_carries_the_loaded_messages(make_target):
    target = make_target(config("{kind: sqs, source: ordered.fifo, records: {min: 1, max: 3}}"))
    for seed in range(60):
        generated, _ = generate(target, seed)
        queue = generated.world.queue("ordered.fifo")
        assert len(queue.messages) >= 1
        loaded = synthetic_loaded_world(generated.world)
        event = generated.render_event(loaded)
        delivered = loaded.messages["ordered.fifo"]
        assert 1 <= len(event["Records"]) <= min(3, len(queue.messages))
        for i, record in enumerate(event["Records"]):
            # the emulator's id, or an item key of the world (`QueueMessage.message_id`)
            own = queue.messages[i].message_id
            assert record["messageId"] == (own or delivered[i].message_id)
            assert record["receiptHandle"] == delivered[i].receipt_handle
            assert record["body"] == queue.messages[i].body
            assert record["md5OfBody"] == hashlib.md5(record["body"].encode()).hexdigest()
            assert record["attributes"]["MessageGroupId"] == queue.messages[i].group_id
        dedup = [m.deduplication_id for m in queue.messages]
        assert len(set(dedup)) == len(dedup) and None not in dedup


def test_md5_of_message_attributes_matches_sqs():
    # Value computed by SQS (and moto) for {"a": String "b"}.
    assert md5_of_message_attributes([("a", "b")]) == _reference_md5([("a", "b")])


def _reference_md5(attributes):
    data = b""
    for name, value in sorted(attributes):
        for part in (name.encode(), b"String"):
            data += len(part).to_bytes(4, "big") + part
        data += b"\x01" + len(value.encode()).to_bytes(4, "big") + value.encode()
    return hashlib.md5(data).hexdigest()


def test_stream_records_agree_with_the_table(make_target):
    target = make_target(config("{kind: dynamodb-stream, records: {min: 1, max: 4}}", TABLES))
    names: Counter[str] = Counter()
    for seed in range(100):
        generated, _ = generate(target, seed)
        table = generated.world.table("by-number")
        keys = {item_key(item, table.key_schema) for item in table.items}
        assert len(table.items) >= 1
        for plan in generated.event.records:
            names[plan.event_name] += 1
            if plan.event_name == "REMOVE":
                assert item_key(plan.old_image, table.key_schema) not in keys, f"seed={seed}"
            else:
                assert plan.new_image in table.items, f"seed={seed}"
                if plan.event_name == "MODIFY":
                    assert item_key(plan.old_image, table.key_schema) == item_key(
                        plan.new_image, table.key_schema
                    )
    assert set(names) == {"INSERT", "MODIFY", "REMOVE"}, names


def _labels_of(choices, label):
    return [c.labels for c in choices.choices if label in c.labels]


def test_labels_on_world_and_event_draws(make_target):
    target = make_target(config("s3"))
    generated, choices = generate(target, 3)
    recording = choices.recording()
    for stack in _labels_of(choices, labels.S3_OBJECT_KEY):
        assert (
            stack[:3] == (labels.WORLD, labels.S3_BUCKET, labels.S3_OBJECT) or labels.EVENT in stack
        )
    for stack in _labels_of(choices, labels.FILE):
        assert labels.S3_OBJECT in stack or labels.SQS_MESSAGE in stack
    for stack in _labels_of(choices, labels.DYNAMODB_KEY):
        assert labels.DYNAMODB_ITEM in stack
    for stack in _labels_of(choices, labels.DYNAMODB_ATTRIBUTE):
        assert labels.DYNAMODB_ITEM in stack
    for stack in _labels_of(choices, labels.SQS_MESSAGE):
        assert stack[0] == labels.WORLD
    for stack in _labels_of(choices, labels.EVENT):
        assert labels.WORLD not in stack and labels.S3_EVENT in stack
    counts = recording.label_counts()
    for label in (labels.WORLD, labels.S3_BUCKET, labels.S3_OBJECT, labels.S3_OBJECT_KEY,
                  labels.FILE, labels.DYNAMODB_ITEM, labels.DYNAMODB_KEY, labels.SQS_MESSAGE,
                  labels.EVENT, labels.S3_EVENT):  # fmt: skip
        assert counts.get(label, 0) > 0, label
    assert len(recording.indices_with_label(labels.WORLD)) + len(
        recording.indices_with_label(labels.EVENT)
    ) == len(recording)  # every draw belongs to the world or the event


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        (
            "apigateway",
            {labels.APIGATEWAY_EVENT, labels.HTTP_PATH, labels.HTTP_HEADERS, labels.HTTP_QUERY},
        ),
        ("apigateway-v2", {labels.APIGATEWAY_V2_EVENT, labels.HTTP_HEADERS}),
        ("{kind: sns, body: csv}", {labels.SNS_EVENT, labels.SNS_MESSAGE, labels.CSV_FILE}),
        ("dynamodb-stream", {labels.DYNAMODB_STREAM_EVENT}),
        ("eventbridge", {labels.EVENTBRIDGE_EVENT, labels.S3_EVENT}),
    ],
)
def test_event_kind_labels(make_target, trigger, expected):
    target = make_target(config(trigger))
    found: set[str] = set()
    for seed in range(10):
        _, choices = generate(target, seed)
        for c in choices.choices:
            if labels.EVENT in c.labels:
                found.update(c.labels)
    assert expected <= found, expected - found


def test_http_body_label_covers_the_body(make_target):
    target = make_target(config("{kind: apigateway, body: json}"))
    for seed in range(40):
        generated, choices = generate(target, seed)
        (request,) = generated.event.records
        if request.body is not None:
            body_draws = [c for c in choices.choices if labels.HTTP_BODY in c.labels]
            assert any(labels.JSON_DOCUMENT in c.labels for c in body_draws), f"seed={seed}"
            return
    pytest.fail("no request with a body in 40 seeds")
