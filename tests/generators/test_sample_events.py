"""The seed path: a sample event reproduced exactly from its recording, mutated by leaf."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from lambdafuzz.fuzzer.mutation import RandomMutator
from lambdafuzz.generators.aws.events import SamplePlan, render_event
from lambdafuzz.generators.aws.sample_events import sample_prefix
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.model.target import (
    BucketSpec,
    FrozenMap,
    ObjectsSpec,
    Resources,
    SampleEvent,
    TableSpec,
    Target,
    Trigger,
    TriggerKind,
)
from lambdafuzz.model.world import KeySchema, LoadedWorld

ORDER = {
    "orderId": "ORD-1",
    "placedAt": "2024-05-14T09:31:07Z",
    "lines": [{"sku": "KB-1", "quantity": 2, "unitPrice": 89.9}],
    "express": True,
    "note": None,
    "meta": '{"source": "web", "attempt": 1}',
    "unicode": "Grüße 日本",
}
S3_SAMPLE = {
    "Records": [
        {
            "eventVersion": "2.1",
            "eventSource": "aws:s3",
            "awsRegion": "eu-west-1",
            "eventName": "ObjectCreated:Put",
            "s3": {
                "bucket": {"name": "example-bucket", "arn": "arn:aws:s3:::example-bucket"},
                "object": {"key": "incoming/report+2024.csv", "size": 1024, "eTag": "0123abcd"},
            },
        }
    ]
}
STREAM_SAMPLE = {
    "Records": [
        {
            "eventID": "1",
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "dynamodb": {
                "Keys": {"pk": {"S": "user#42"}},
                "NewImage": {"pk": {"S": "user#42"}, "name": {"S": "Ada"}, "age": {"N": "36"}},
                "StreamViewType": "NEW_IMAGE",
            },
        }
    ]
}


def target(kind: TriggerKind, sample: object, source: str | None = None, **extra) -> Target:
    return Target(
        config_path=Path("lambdafuzz.yaml"),
        handler_module="app",
        handler_function="handler",
        root=Path("."),
        app_packages=("app",),
        trigger=Trigger(kind, source),
        env=FrozenMap(),
        samples=(SampleEvent("sample", json.dumps(sample)),),
        **extra,
    )


def seeded(t: Target, seed: int = 0):
    choices = Choices(sample_prefix(t, 0), seed=seed)
    generated = generate_input(choices, t)
    return generated, choices.recording()


def event_of(generated) -> dict:
    return render_event(generated.event, LoadedWorld(generated.world))


def test_a_seed_reproduces_the_sample_byte_for_byte_and_its_recording_replays_it():
    t = target(TriggerKind.DIRECT, ORDER)
    generated, recording = seeded(t)
    assert json.dumps(event_of(generated)) == json.dumps(ORDER)
    for mode in ReplayMode:  # the saved recording alone replays it, in either mode
        again = generate_input(Choices(recording.prefix(mode), seed=99, mode=mode), t)
        assert json.dumps(event_of(again)) == json.dumps(ORDER)


def test_mutating_a_seed_changes_leaves_and_keeps_the_shape():
    t = target(TriggerKind.DIRECT, ORDER)
    _, recording = seeded(t)
    rng = random.Random(0)
    mutator = RandomMutator(ReplayMode.EXECUTION_INDEXED)
    changed = set()
    for n in range(60):
        child = mutator.mutate(recording, rng).prefix
        event = event_of(
            generate_input(Choices(child, seed=n, mode=ReplayMode.EXECUTION_INDEXED), t)
        )
        assert set(event) == set(ORDER)  # keys are the deployment's contract
        assert isinstance(event["lines"], list) and isinstance(event["express"], bool)
        json.loads(event["meta"])  # an embedded JSON document stays JSON
        changed.update(k for k in ORDER if event[k] != ORDER[k])
    assert {"orderId", "placedAt", "lines", "express", "meta"} <= changed


def test_fresh_inputs_keep_the_normal_generator_when_samples_exist():
    t = target(TriggerKind.S3, S3_SAMPLE, "uploads", resources=_uploads())
    for seed in range(20):
        generated = generate_input(Choices([], seed=seed), t)
        assert not isinstance(generated.event.records[0], SamplePlan)


def _uploads() -> Resources:
    return Resources(buckets=(BucketSpec("uploads", ObjectsSpec(1, 2, ("csv",))),))


def test_an_s3_sample_names_the_triggers_bucket_and_its_object_exists():
    t = target(TriggerKind.S3, S3_SAMPLE, "uploads", resources=_uploads())
    generated, _ = seeded(t)
    record = event_of(generated)["Records"][0]
    assert record["s3"]["bucket"] == {"name": "uploads", "arn": "arn:aws:s3:::uploads"}
    assert record["s3"]["object"]["key"] == "incoming/report+2024.csv"  # as the sample says
    assert record["eventSource"] == "aws:s3" and record["awsRegion"] == "eu-west-1"
    bucket = generated.world.buckets[0]
    stored = bucket.get("incoming/report 2024.csv")  # the decoded key
    assert stored is not None and stored.data


def test_a_dynamodb_stream_samples_new_image_is_in_the_table():
    key = KeySchema("pk", "S")
    t = target(
        TriggerKind.DYNAMODB_STREAM,
        STREAM_SAMPLE,
        "users",
        resources=Resources(tables=(TableSpec("users", key, 0, 2, "NEW_IMAGE"),)),
    )
    generated, _ = seeded(t)
    assert json.dumps(event_of(generated)) == json.dumps(STREAM_SAMPLE)
    items = generated.world.tables[0].items
    assert STREAM_SAMPLE["Records"][0]["dynamodb"]["NewImage"] in items


def test_odd_json_values_are_kept_as_they_are():
    odd = {"nan": float("nan"), "big": 10**30, "neg": -2.5, "empty": [], "nested": [[1, "x"]]}
    t = target(TriggerKind.DIRECT, odd)
    generated, recording = seeded(t)
    assert json.dumps(event_of(generated)) == json.dumps(odd)
    again = generate_input(Choices(recording.values(), seed=3), t)
    assert json.dumps(event_of(again)) == json.dumps(odd)


def test_a_key_the_handler_only_looks_for_may_be_dropped_the_others_stay():
    trigger = Trigger(TriggerKind.DIRECT, None, event_keys=("orderId", "note?"))
    t = replace(target(TriggerKind.DIRECT, ORDER), trigger=trigger)
    _, recording = seeded(t)
    mutator = RandomMutator(ReplayMode.LINEAR)
    rng = random.Random(1)
    seen = set()
    for n in range(80):
        child = mutator.mutate(recording, rng).prefix
        event = event_of(generate_input(Choices(child, seed=n), t))
        seen.add("note" in event)
        assert set(event) - {"note"} == set(ORDER) - {"note"}
    assert seen == {True, False}
