"""World <-> event consistency and world shapes, unit by unit, on small fixtures: fields
named as resources take the world's names (`world_refs`), records' own ids are item keys
of the world, table keys are composed of objects, batches repeat a record, items hold
the code's fields of other types, resources are empty or (when the code creates them)
missing.  Each draw only with edge values on."""

from __future__ import annotations

import json
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.config.code_configuration import code_configuration
from lambdafuzz.generators.aws.batches import draw_repeat
from lambdafuzz.generators.aws.dynamodb import draw_item, draw_table
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.aws.world_refs import (
    WorldRefs,
    composed_names,
    draw_record_id,
    field_kind,
    fill_names,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import TableSpec
from lambdafuzz.model.world import Bucket, KeySchema, S3Object

REFS = WorldRefs(
    buckets=("in-bucket", "out-bucket"),
    objects=(("in-bucket", "jobs/a.txt"),),
    tables=("orders",),
    queues=("work",),
    topics=("alerts",),
    item_ids=("ORDER#42", "42"),
    key_tails=("42",),
    local=("a.txt",),
)
SEEDS = range(200)


def _choices(seed: int, **options: object) -> Choices:
    return Choices(seed=seed, policy=DrawPolicy(edge_values=True, **options))  # type: ignore[arg-type]


def test_field_names_say_what_they_hold() -> None:
    assert field_kind("input_bucket") == "bucket"
    assert field_kind("BUCKET_NAME") == "bucket"
    assert field_kind("s3Key") == "key"
    assert field_kind("s3_uri") == "s3uri"
    assert field_kind("tableName") == "table"
    assert field_kind("queue_url") == "queue"
    assert field_kind("topicArn") == "topic"
    assert field_kind("orderId") == "id"
    assert field_kind("amount") is None


def test_a_payload_names_the_worlds_bucket_and_its_object_together() -> None:
    payload = {
        "input_bucket": "x",
        "key": 3,
        "queueUrl": "",
        "topic_arn": None,
        "table": "t",
        "order_id": "zz",
        "nested": {"job_bucket": "y"},
    }
    filled = [fill_names(_choices(seed), payload, REFS) for seed in SEEDS]
    named = [f for f in filled if f["input_bucket"] == "in-bucket"]
    assert 0.4 * len(SEEDS) < len(named) < 0.8 * len(SEEDS)
    assert any(f["key"] == "jobs/a.txt" for f in named)
    assert {f["queueUrl"] for f in filled} >= {
        "",
        "https://sqs.us-east-1.amazonaws.com/123456789012/work",
    }
    assert "arn:aws:sns:us-east-1:123456789012:alerts" in {f["topic_arn"] for f in filled}
    assert "orders" in {f["table"] for f in filled}
    assert "42" in {f["order_id"] for f in filled}  # the tail of ORDER#42
    assert "in-bucket" in {f["nested"]["job_bucket"] for f in filled}
    # edge values off: the payload as drawn, nothing drawn
    off = Choices(seed=1)
    assert fill_names(off, payload, REFS) == payload and not off.choices


def test_a_records_own_id_is_now_and_then_an_item_key() -> None:
    ids = [draw_record_id(_choices(seed), REFS) for seed in SEEDS]
    hits = [i for i in ids if i is not None]
    assert 0.05 * len(SEEDS) < len(hits) < 0.3 * len(SEEDS)
    assert set(hits) <= set(REFS.item_ids)
    assert draw_record_id(Choices(seed=1), REFS) is None


def test_batches_repeat_a_record_now_and_then() -> None:
    repeats = [draw_repeat(_choices(seed), 3) for seed in SEEDS]
    assert any(r is not None for r in repeats) and all(r in (None, 0, 1, 2) for r in repeats)
    assert draw_repeat(_choices(1), 0) is None


def test_table_keys_are_composed_of_the_worlds_objects() -> None:
    bucket = Bucket("up", (S3Object("in/a.csv", b"x", "text/csv", "csv"),))
    composed = composed_names([bucket])
    assert composed == ("up/in/a.csv", "s3://up/in/a.csv")
    spec = TableSpec("files", KeySchema("path", "S"), items_min=3, items_max=3)
    keys = {
        item["path"]["S"]
        for seed in SEEDS
        for item in draw_table(_choices(seed), spec, (), composed=composed).items
    }
    assert set(composed) <= keys


def test_items_hold_the_codes_fields_absent_or_of_other_types() -> None:
    schema = KeySchema("pk", "S")
    items = [draw_item(_choices(seed, fields=("total", "status")), schema) for seed in SEEDS]
    types = {next(iter(i["total"])) for i in items if "total" in i}
    assert {"S", "N", "NULL"} <= types
    assert any("total" not in i for i in items)
    numeric_text = [i["total"]["S"] for i in items if "S" in i.get("total", {})]
    assert any(t.lstrip("-").replace(".", "").isdigit() for t in numeric_text)


def test_an_empty_table_is_drawn_about_one_time_in_ten() -> None:
    spec = TableSpec("t", KeySchema("id", "S"), items_min=0, items_max=20)
    empty = sum(not draw_table(_choices(seed), spec).items for seed in range(400))
    assert 0.08 * 400 < empty < 0.2 * 400
    low = TableSpec("t", KeySchema("id", "S"), items_min=1, items_max=20)
    assert all(draw_table(_choices(seed), low).items for seed in range(100))  # min kept


def _app(tmp_path: Path, code: str, config: str) -> Path:
    (tmp_path / "app.py").write_text(code)
    (tmp_path / "lambdafuzz.yaml").write_text(config)
    return tmp_path / "lambdafuzz.yaml"


RESOURCES = """\
resources:
  buckets: [{name: uploads, objects: {min: 0, max: 3, formats: [text]}}]
  tables: [{name: audit, hash_key: {name: id, type: S}, items: {min: 0, max: 3}}]
  queues: [{name: work, messages: {min: 0, max: 3}}]
"""


def test_a_resource_the_code_creates_is_now_and_then_absent(tmp_path: Path) -> None:
    code = "import boto3\n\ndef handler(event, context):\n    boto3.client('dynamodb').create_table(TableName='audit')\n"
    target = load_config(
        _app(tmp_path, code, f"handler: app.handler\ntrigger: {{kind: direct}}\n{RESOURCES}")
    )
    assert target.resources.created_by_code == ("dynamodb",)
    assert code_configuration(tmp_path, ("app",)).creates == ("dynamodb",)
    worlds = [generate_input(_choices(seed), target).world for seed in SEEDS]
    absent = [w for w in worlds if not w.table("audit").exists]
    assert 0.05 * len(SEEDS) < len(absent) < 0.3 * len(SEEDS)
    assert all(w.bucket("uploads").exists and w.queue("work").exists for w in worlds)
    loaded = synthetic_loaded_world(absent[0])
    assert loaded.world is absent[0]


def test_a_resource_the_code_does_not_create_is_always_there(tmp_path: Path) -> None:
    code = "def handler(event, context):\n    return None\n"
    target = load_config(
        _app(tmp_path, code, f"handler: app.handler\ntrigger: {{kind: direct}}\n{RESOURCES}")
    )
    assert target.resources.created_by_code == ()
    worlds = [generate_input(_choices(seed), target).world for seed in SEEDS]
    assert all(w.table("audit").exists for w in worlds)
    empty_buckets = sum(not w.bucket("uploads").objects for w in worlds)
    assert empty_buckets > 0.1 * len(SEEDS)  # min 0: empty about one time in ten or more


def test_an_sqs_record_carries_an_item_key_as_its_message_id(tmp_path: Path) -> None:
    code = "def handler(event, context):\n    return None\n"
    config = (
        "handler: app.handler\ntrigger: {kind: sqs, source: work, records: {min: 1, max: 3}}\n"
        "resources:\n  tables: [{name: seen, hash_key: {name: id, type: S}, items: {min: 2, max: 4}}]\n"
        "  queues: [{name: work, messages: {min: 1, max: 3}}]\n"
    )
    target = load_config(_app(tmp_path, code, config))
    hits = 0
    for seed in SEEDS:
        generated = generate_input(_choices(seed), target)
        keys = {i["id"]["S"] for i in generated.world.table("seen").items}
        event = generated.render_event(synthetic_loaded_world(generated.world))
        hits += any(r["messageId"] in keys for r in event["Records"])
    assert hits > 0.1 * len(SEEDS)


def test_a_direct_payload_names_the_declared_bucket(tmp_path: Path) -> None:
    code = "def handler(event, context):\n    return None\n"
    config = (
        "handler: app.handler\ntrigger: {kind: direct, keys: [input_bucket, key]}\n"
        "resources:\n  buckets: [{name: job-inputs, objects: {min: 1, max: 2, formats: [text]}}]\n"
    )
    target = load_config(_app(tmp_path, code, config))
    named = 0
    for seed in SEEDS:
        generated = generate_input(_choices(seed), target)
        payload = json.loads(generated.event.records[0].payload_json)
        bucket = generated.world.bucket("job-inputs")
        if payload.get("input_bucket") == "job-inputs" and bucket.get(str(payload.get("key"))):
            named += 1
    assert named > 0.15 * len(SEEDS)  # both fields named: ~0.6 * 0.6 of payloads
