"""Event filters (`trigger.filters`, `objects.suffixes`): generated events pass them,
records they refuse are dropped before the handler runs, an event of which nothing is
left is never invoked (an invalid input), and a bad pattern is one clear ConfigError."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest

from lambdafuzz.generators.aws.delivery import (
    FILTERED_OUT,
    delivered_event,
    delivered_share,
    filter_view,
)
from lambdafuzz.generators.aws.filter_steering import patterns_of
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode, StopTest
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from lambdafuzz.labels import EVENT_FILTER_VALUE
from lambdafuzz.model.outcome import Status
from lambdafuzz.model.target import Target, Trigger, TriggerKind

SQS = """\
handler: app.handler
trigger:
  kind: sqs
  source: orders
  records: {min: 1, max: 4}
  filters:
    - body: {type: [order], total: [{numeric: [">", 0, "<", 50]}], region: [{prefix: eu-}]}
    - body: {type: [{anything-but: [order, refund]}], ip: [{cidr: 10.1.0.0/24}]}
resources: {queues: [{name: orders}]}
"""
SQS_TEXT = """\
handler: app.handler
trigger:
  kind: sqs
  source: pings
  filters: [{body: [{prefix: "PING "}, {equals-ignore-case: heartbeat}]}]
resources: {queues: [{name: pings}]}
"""
DYNAMODB = """\
handler: app.handler
trigger:
  kind: dynamodb-stream
  source: accounts
  records: {min: 1, max: 3}
  filters:
    - eventName: [INSERT, MODIFY]
      dynamodb:
        NewImage:
          status: {S: [{anything-but: [CLOSED]}]}
          plan: {S: [gold, silver]}
          deleted: [{exists: false}]
    - eventName: [REMOVE]
      dynamodb: {OldImage: {reason: {S: [{wildcard: "user-*"}]}}}
resources:
  tables:
    - {name: accounts, hash_key: {name: id, type: S}, stream: NEW_AND_OLD_IMAGES}
"""
DYNAMODB_KEYS = """\
handler: app.handler
trigger:
  kind: dynamodb-stream
  source: flags
  records: {min: 1, max: 3}
  filters:
    - dynamodb: {Keys: {id: {S: [rbac-is-set]}}, NewImage: {enabled: {BOOL: [true]}}}
resources:
  tables:
    - {name: flags, hash_key: {name: id, type: S}, items: {min: 2, max: 4}, stream: NEW_IMAGE}
"""
KINESIS = """\
handler: app.handler
trigger:
  kind: kinesis
  source: clicks
  records: {min: 1, max: 4}
  filters:
    - data: {kind: [click], page: [{suffix: .html}], at: [{exists: true}]}
      partitionKey: [{prefix: user-}]
"""
EVENTBRIDGE = """\
handler: app.handler
trigger:
  kind: eventbridge
  filters:
    - source: [com.shop.orders]
      detail-type: [OrderPlaced, {prefix: "Order "}]
      detail:
        amount: [{numeric: [">=", 10, "<=", 20]}]
        channel: [{equals-ignore-case: web}]
        $or: [{coupon: [{exists: true}]}, {vip: [true]}]
resources:
  buckets: [{name: unrelated, objects: {min: 1, max: 1}}]
"""


def _shares(target: Target, n: int = 150) -> tuple[float, list[Choices]]:
    """The mean share of records the filters pass over `n` seeded inputs, and the choices."""
    patterns = patterns_of(target.trigger.filters)
    total = 0.0
    drawn = []
    for seed in range(n):
        choices = Choices(seed=seed)
        try:
            generated = generate_input(choices, target)
        except StopTest:
            continue
        event = generated.render_event(synthetic_loaded_world(generated.world))
        total += delivered_share(patterns, target.trigger.kind, event)
        drawn.append(choices)
    return total / n, drawn


@pytest.mark.parametrize("config", [SQS, SQS_TEXT, DYNAMODB, DYNAMODB_KEYS, KINESIS, EVENTBRIDGE])
def test_generated_events_mostly_pass_their_filters(make_target, config):
    target = make_target(config)
    share, _ = _shares(target)
    assert share >= 0.9, share


@pytest.mark.parametrize("config", [SQS, DYNAMODB, KINESIS, EVENTBRIDGE])
def test_steered_values_are_draws_mutation_can_move(make_target, config):
    """Where a rule admits more than one value, the value is a labelled draw."""
    _, drawn = _shares(make_target(config), n=20)
    assert all(c.recording().indices_with_label(EVENT_FILTER_VALUE) for c in drawn)


def test_custom_eventbridge_events_need_no_bucket(make_target):
    target = make_target(EVENTBRIDGE)
    assert target.trigger.source is None  # the pattern asks for com.shop.orders, not aws.s3
    generated = generate_input(Choices(seed=3), target)
    event = generated.render_event(synthetic_loaded_world(generated.world))
    assert event["source"] == "com.shop.orders"
    assert 10 <= event["detail"]["amount"] <= 20


def test_s3_key_prefixes_and_suffixes_shape_every_object_and_notification(make_target):
    target = make_target(
        "handler: app.handler\n"
        "trigger: {kind: s3, source: photos, records: {min: 1, max: 3}, missing_objects: true}\n"
        "resources:\n"
        "  buckets:\n"
        "    - name: photos\n"
        "      objects: {min: 1, max: 4, formats: [jpeg], prefixes: [uploads/],"
        " suffixes: [.jpeg, .JPG]}\n"
    )
    missing = 0
    for seed in range(200):
        generated = generate_input(Choices(seed=seed), target)
        keys = {o.key for o in generated.world.bucket("photos").objects}
        named = {r.key for r in generated.event.records}
        for key in keys | named:  # objects, and keys of objects deleted before the event
            assert key.startswith("uploads/") and key.endswith((".jpeg", ".JPG")), key
        assert {r.key for r in generated.event.records if not r.missing} <= keys
        missing += sum(r.missing for r in generated.event.records)
    assert missing  # the 2% of notifications naming an object no longer there


def _sqs_event(*bodies: str) -> dict:
    return {"Records": [{"messageId": str(i), "body": b} for i, b in enumerate(bodies)]}


def _trigger(kind: TriggerKind, *patterns: dict) -> Trigger:
    return Trigger(kind, "x", filters=tuple(json.dumps(p) for p in patterns))


def test_records_the_filter_refuses_are_dropped_from_the_batch():
    trigger = _trigger(TriggerKind.SQS, {"body": {"type": ["order"]}})
    event = _sqs_event('{"type": "order"}', "type=order", '{"type": "refund"}', '["order"]')
    delivered = delivered_event(event, trigger)
    assert delivered is not None
    assert [r["messageId"] for r in delivered["Records"]] == ["0"]
    assert len(event["Records"]) == 4  # the rendered event itself is left as it was
    assert delivered_event(_sqs_event("type=order"), trigger) is None


def test_each_kind_is_matched_on_what_lambda_matches():
    kinesis = {
        "Records": [
            {"kinesis": {"partitionKey": "p", "data": base64.b64encode(d).decode()}}
            for d in (b'{"kind": "click"}', b"kind=click", b"\xff\xfe")
        ]
    }
    trigger = _trigger(TriggerKind.KINESIS, {"data": {"kind": ["click"]}})
    assert len(delivered_event(kinesis, trigger)["Records"]) == 1
    view = filter_view(TriggerKind.KINESIS, kinesis["Records"][1])
    assert view == {"partitionKey": "p", "data": "kind=click"}
    stream = {"Records": [{"eventName": n, "dynamodb": {}} for n in ("INSERT", "REMOVE")]}
    trigger = _trigger(TriggerKind.DYNAMODB_STREAM, {"eventName": ["REMOVE"]})
    assert [r["eventName"] for r in delivered_event(stream, trigger)["Records"]] == ["REMOVE"]
    bridge = {"source": "a", "detail": {"n": 1}}
    assert delivered_event(bridge, _trigger(TriggerKind.EVENTBRIDGE, {"source": ["b"]})) is None
    assert delivered_event(bridge, _trigger(TriggerKind.EVENTBRIDGE, {"source": ["a"]})) is bridge


def test_an_all_filtered_batch_is_not_invoked_and_counts_as_invalid(make_target):
    """A filter no generated record passes (the message id is the emulator's): the
    handler, which fails whenever it runs, is never run, and the test is invalid."""
    target = make_target(
        "handler: app.handler\n"
        "trigger: {kind: sqs, source: jobs, filters: [{messageId: [never-an-id]}]}\n"
        "resources: {queues: [{name: jobs}]}\n"
    )
    (target.root / "app.py").write_text("def handler(event, context):\n    raise RuntimeError\n")
    worker = Worker(WorkerSpec(target=target))
    try:
        results = [
            worker.run(TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED, want_event=True))
            for seed in range(3)
        ]
    finally:
        worker.close()
    for result in results:
        assert result.status is Status.INVALID and result.failure is None
        assert result.invalid_reason == FILTERED_OUT
        assert result.event["Records"]  # what was generated, for inspection


ConfigErrorT = Callable[[str], str]


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        (
            "{kind: s3, source: bkt, filters: [{s3: {object: {key: [{prefix: a}]}}}]}",
            "filters only for sqs, dynamodb-stream, kinesis, eventbridge; for an S3 "
            "notification's key filter use resources.buckets[].objects.prefixes and .suffixes",
        ),
        (
            "{kind: sqs, source: q, filters: [{body: {n: [{numeric: [over, 1]}]}}]}",
            "trigger.filters[0].body.n[0].numeric is ['over', 1]; expected a list [op, number]",
        ),
        (
            "{kind: sqs, source: q, filters: [{body: {n: [{begins-with: x}]}}]}",
            "trigger.filters[0].body.n[0].begins-with is 'x'; expected an operator: one of prefix",
        ),
        (
            "{kind: sqs, source: q, filters: [{bdy: {type: [order]}}]}",
            "trigger.filters[0].bdy is {'type': ['order']}; expected a field of an SQS record "
            "(filter the message with `body`): one of body,",
        ),
        ("{kind: sqs, source: q, filters: [{body: {type: order}}]}", 'write ["order"]'),
        ("{kind: sqs, source: q, filters: [{}]}", "trigger.filters[0] is {}; expected a non-empty"),
    ],
)
def test_bad_filters_are_one_clear_config_error(tmp_path, trigger, expected):
    from tests.fixtures.config_files import error_for

    text = (
        f"handler: app.handler\ntrigger: {trigger}\n"
        "resources: {queues: [{name: q}], buckets: [{name: bkt, objects: {min: 1}}]}\n"
    )
    message = error_for(tmp_path, text)
    assert expected in message, message


def test_a_misspelt_field_gets_a_suggestion(tmp_path):
    from tests.fixtures.config_files import error_for

    text = (
        "handler: app.handler\n"
        "trigger: {kind: eventbridge, filters: [{detail_type: [OrderPlaced]}]}\n"
    )
    assert "Did you mean 'detail-type'?" in error_for(tmp_path, text)
