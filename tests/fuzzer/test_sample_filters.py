"""Sample events inside the deployment's filters: an S3 key outside the notification's key
filter is repaired, an event the filters refuse is skipped, one warning per sample, and a
seed's mutants stay inside the filters."""

from __future__ import annotations

import json
import logging
import random
import textwrap
from pathlib import Path
from urllib.parse import unquote_plus

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.fuzzer.mutation import RandomMutator
from lambdafuzz.generators.aws.delivery import delivered_event
from lambdafuzz.generators.aws.events import render_event
from lambdafuzz.generators.aws.sample_events import sample_prefix
from lambdafuzz.generators.aws.sample_filters import fit_key, fit_sample, mismatch
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.harness.process.worker import offline_event
from lambdafuzz.model.event_pattern import load_pattern, matches_any
from lambdafuzz.model.target import (
    FrozenMap,
    ObjectsSpec,
    QueueSpec,
    Resources,
    SampleEvent,
    Target,
    Trigger,
    TriggerKind,
)
from lambdafuzz.model.world import LoadedWorld
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return 1\n"


def s3_event(*keys: str) -> dict:
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "bucket": {"name": "sample-bucket", "arn": "arn:aws:s3:::sample-bucket"},
                    "object": {"key": key, "size": 120, "eTag": "9f0c"},
                },
            }
            for key in keys
        ]
    }


def sqs_event(*bodies: dict) -> dict:
    return {
        "Records": [
            {
                "messageId": f"m-{i}",
                "receiptHandle": f"r-{i}",
                "body": json.dumps(body),
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "00",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:orders",
                "awsRegion": "us-east-1",
            }
            for i, body in enumerate(bodies)
        ]
    }


def bridge_event(detail_type: str, detail: dict) -> dict:
    return {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "detail-type": detail_type,
        "source": "shop.orders",
        "account": "123456789012",
        "time": "2024-05-14T09:31:07Z",
        "region": "us-east-1",
        "resources": [],
        "detail": detail,
    }


def project(tmp_path: Path, config: str, events: dict[str, dict]) -> Path:
    (tmp_path / "app.py").write_text(HANDLER)
    folder = tmp_path / "events"
    folder.mkdir()
    for name, event in events.items():
        (folder / f"{name}.json").write_text(json.dumps(event, indent=2))
    path = tmp_path / "lambdafuzz.yaml"
    path.write_text(textwrap.dedent(config))
    return path


def sample_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "[sample-event]" in r.getMessage()]


S3_CONFIG = """\
handler: app.handler
trigger: {kind: s3, source: uploads}
seeds: [events/]
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 2, formats: [csv], prefixes: ["in/"], suffixes: [".csv"]}
"""


# --------------------------------------------------------------------------- S3 key filter
def test_an_s3_sample_outside_the_suffix_filter_is_repaired_with_one_warning(tmp_path, caplog):
    config = project(
        tmp_path,
        S3_CONFIG,
        {
            "text": s3_event("in/x.txt"),
            "both": s3_event("report 1.txt"),
            "ok": s3_event("in/a.csv"),
        },
    )
    with caplog.at_level(logging.WARNING):
        target = load_config(config)
    samples = {s.name: json.loads(s.payload_json) for s in target.samples}
    keys = {name: [r["s3"]["object"]["key"] for r in e["Records"]] for name, e in samples.items()}
    assert keys == {"both": ["in/report+1.csv"], "ok": ["in/a.csv"], "text": ["in/x.csv"]}
    warnings = sample_warnings(caplog)
    assert len(warnings) == 2, warnings  # one per repaired sample, none for the fitting one
    text = next(w for w in warnings if "text.json" in w)
    assert "repaired" in text and "'in/x.txt'" in text and "suffix '.csv'" in text
    assert "seeded as 'in/x.csv'" in text
    # the seed names the repaired key, and the world holds that object
    index = [s.name for s in target.samples].index("text")
    generated = generate_input(Choices(sample_prefix(target, index), seed=0), target)
    event = render_event(generated.event, LoadedWorld(generated.world))
    assert event["Records"][0]["s3"]["object"]["key"] == "in/x.csv"
    assert generated.world.buckets[0].get("in/x.csv") is not None


def test_fit_key_puts_the_prefix_in_front_and_replaces_the_extension():
    shape = ObjectsSpec(1, 1, ("any",), prefixes=("up.loads/",), suffixes=(".csv", ".tsv"))
    assert fit_key("up.loads/a.tsv", shape) == "up.loads/a.tsv"  # fits: unchanged
    assert fit_key("x.txt", shape) == "up.loads/x.csv"
    assert fit_key("/deep/x.tar.gz", shape) == "up.loads/deep/x.tar.csv"
    assert fit_key("noext", shape) == "up.loads/noext.csv"
    assert fit_key("", shape) == "up.loads/.csv"  # the prefix's own dot is not an extension
    assert fit_key("dir.v2/name", ObjectsSpec(1, 1, ("any",), suffixes=(".csv",))) == (
        "dir.v2/name.csv"
    )


# --------------------------------------------------------------------------- SQS FilterCriteria
def test_an_sqs_sample_the_filter_criteria_refuse_is_skipped_with_the_reason(tmp_path, caplog):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(HANDLER)
    events = tmp_path / "events"
    events.mkdir()
    samples = {
        "refund": sqs_event({"type": "refund", "amount": 5}),
        "mixed": sqs_event({"type": "order", "amount": 0}, {"type": "order", "amount": 3}),
        "order": sqs_event({"type": "order", "amount": 12}),
    }
    for name, event in samples.items():
        (events / f"{name}.json").write_text(json.dumps(event))
    (tmp_path / "template.yaml").write_text(template_text("sample_filters", "sqs_filter_criteria"))
    with caplog.at_level(logging.WARNING):
        target = load_template(tmp_path / "template.yaml").target
    kept = {s.name: json.loads(s.payload_json) for s in target.samples}
    assert sorted(kept) == ["mixed", "order"]
    assert kept["order"] == samples["order"]  # inside the filter: as it is
    assert [json.loads(r["body"])["amount"] for r in kept["mixed"]["Records"]] == [3]
    warnings = sample_warnings(caplog)
    assert len(warnings) == 2, warnings
    refund = next(w for w in warnings if "refund.json" in w)
    assert "skipped" in refund and 'body.type is "refund"' in refund and '["order"]' in refund
    mixed = next(w for w in warnings if "mixed.json" in w)
    assert "repaired" in mixed and "1 of 2 records" in mixed and "body.amount is 0" in mixed


# --------------------------------------------------------------------------- EventBridge pattern
BRIDGE_CONFIG = """\
handler: app.handler
trigger:
  kind: eventbridge
  filters: [{source: [shop.orders], detail-type: [OrderPlaced], detail: {total: [{numeric: [">=", 1]}]}}]
seeds: [events/]
"""


def test_an_eventbridge_sample_the_rules_pattern_refuses_is_skipped(tmp_path, caplog):
    config = project(
        tmp_path,
        BRIDGE_CONFIG,
        {
            "cancelled": bridge_event("OrderCancelled", {"total": 10}),
            "free": bridge_event("OrderPlaced", {"total": 0}),
            "placed": bridge_event("OrderPlaced", {"total": 25, "sku": "KB-1"}),
        },
    )
    with caplog.at_level(logging.WARNING):
        target = load_config(config)
    assert [s.name for s in target.samples] == ["placed"]
    warnings = sample_warnings(caplog)
    assert len(warnings) == 2, warnings
    assert any("cancelled.json" in w and 'detail-type is "OrderCancelled"' in w for w in warnings)
    assert any("free.json" in w and "detail.total is 0" in w for w in warnings)


def test_mismatch_names_the_field_and_says_none_when_the_pattern_matches():
    pattern = load_pattern('{"detail": {"state": ["open"], "tags": {"k": ["a"]}}}')
    assert mismatch(pattern, {"detail": {"state": "open", "tags": [{"k": "a"}]}}) is None
    assert mismatch(pattern, {"detail": {"state": "open"}}) == (
        'detail.tags.k is absent, the filter wants ["a"]'
    )
    assert mismatch(pattern, {"detail": {"state": "open", "tags": [{"k": "b"}]}}) == (
        'no element of detail.tags matches {"k": ["a"]}'
    )


# --------------------------------------------------------------------------- mutants
def _mutants(target, count: int, seed: int):
    """`count` seeded mutants of the target's first sample's seed, rendered."""
    choices = Choices(sample_prefix(target, 0), seed=0)
    generate_input(choices, target)
    recording = choices.recording()
    rng = random.Random(seed)
    mutator = RandomMutator(ReplayMode.EXECUTION_INDEXED)
    for n in range(count):
        child = mutator.mutate(recording, rng).prefix
        generated = generate_input(
            Choices(child, seed=n, mode=ReplayMode.EXECUTION_INDEXED), target
        )
        yield generated, offline_event(generated)  # queue messages get placeholder ids


def test_mutants_of_an_s3_seed_keep_their_keys_inside_the_key_filter(tmp_path):
    config = project(tmp_path, S3_CONFIG, {"ok": s3_event("in/report.csv")})
    target = load_config(config)
    changed = 0
    for generated, event in _mutants(target, 200, seed=7):
        for record in event["Records"]:
            key = unquote_plus(record["s3"]["object"]["key"])
            assert key.startswith("in/") and key.endswith(".csv"), key
            assert generated.world.buckets[0].get(key) is not None, key
            changed += key != "in/report.csv"
    assert changed >= 10, f"seed 7: only {changed} mutated keys; the test checks too little"


def test_mutants_of_an_sqs_seed_deliver_only_records_inside_the_filter():
    pattern = '{"body":{"type":["order"],"amount":[{"numeric":[">",0]}]}}'
    trigger = Trigger(TriggerKind.SQS, "orders", filters=(pattern,))
    fit = fit_sample(sqs_event({"type": "order", "amount": 12}), trigger, Resources())
    assert not fit.problem and not fit.dropped
    target = Target(
        config_path=Path("lambdafuzz.yaml"),
        handler_module="app",
        handler_function="handler",
        root=Path("."),
        app_packages=("app",),
        trigger=trigger,
        env=FrozenMap(),
        resources=Resources(queues=(QueueSpec("orders"),)),
        samples=(SampleEvent("order", json.dumps(fit.payload)),),
    )
    patterns = [load_pattern(pattern)]
    delivered = refused = 0
    for _, event in _mutants(target, 200, seed=3):
        kept = delivered_event(event, trigger)
        if kept is None:
            refused += 1  # not invoked, as Lambda would not
            continue
        delivered += 1
        for record in kept["Records"]:
            body = json.loads(record["body"])
            assert matches_any(patterns, {**record, "body": body}), body
    assert delivered >= 100 and refused >= 1, (delivered, refused)
