"""Stream and broker payloads: JSON objects at the intended rate (fresh and mutated), other
text and raw bytes now and then, a named format's own bytes, base64 only in the event."""

from __future__ import annotations

import base64
import json
import math
import random
from pathlib import Path

import pytest

from lambdafuzz.fuzzer.mutation import RandomMutator
from lambdafuzz.generators.aws.payloads import PAYLOAD_SHARES, draw_payload
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.harness.process.worker import offline_event
from lambdafuzz.model.target import FrozenMap, Target, Trigger, TriggerKind

JSON_RATE = PAYLOAD_SHARES["json"] / 100
KINDS = (
    TriggerKind.KINESIS,
    TriggerKind.MSK,
    TriggerKind.KAFKA,
    TriggerKind.ACTIVEMQ,
    TriggerKind.RABBITMQ,
)


def target(kind: TriggerKind, body: str | None = None) -> Target:
    return Target(
        config_path=Path("lambdafuzz.yaml"),
        handler_module="app",
        handler_function="handler",
        root=Path("."),
        app_packages=("app",),
        trigger=Trigger(kind, "source", body=body, records_min=1, records_max=3),
        env=FrozenMap(),
    )


def payloads(event: dict) -> list[bytes]:
    """Every record's payload of a rendered event, base64-decoded."""
    if "Records" in event:
        texts = [r["kinesis"]["data"] for r in event["Records"]]
    elif "records" in event:
        texts = [r["value"] for batch in event["records"].values() for r in batch]
    elif "rmqMessagesByQueue" in event:
        texts = [m["data"] for batch in event["rmqMessagesByQueue"].values() for m in batch]
    else:
        texts = [m["data"] for m in event["messages"]]
    return [base64.b64decode(text, validate=True) for text in texts]


def is_json_object(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except ValueError:
        return False


def tolerance(rate: float, n: int) -> float:
    """Four standard deviations of a share of `n` draws at `rate`."""
    return 4 * math.sqrt(rate * (1 - rate) / n)


@pytest.mark.parametrize("kind", KINDS, ids=str)
@pytest.mark.parametrize("edge_values", [False, True], ids=["edge-off", "edge-on"])
def test_fresh_payloads_are_json_objects_at_the_intended_rate(kind, edge_values):
    t = target(kind)
    found: list[bytes] = []
    for seed in range(400):
        generated = generate_input(
            Choices([], seed=seed, policy=DrawPolicy(edge_values=edge_values)), t
        )
        found.extend(payloads(offline_event(generated)))
    share = sum(map(is_json_object, found)) / len(found)
    assert abs(share - JSON_RATE) <= tolerance(JSON_RATE, len(found)), (kind, share, len(found))


def test_mutants_keep_the_json_rate():
    """A mutated kind draw lands on each kind as often as a fresh one (a uniform index):
    mutants of a Kinesis campaign stay mostly JSON."""
    t = target(TriggerKind.KINESIS)
    rng = random.Random(5)
    mutator = RandomMutator(ReplayMode.EXECUTION_INDEXED)
    found: list[bytes] = []
    for seed in range(40):
        choices = Choices([], seed=seed, policy=DrawPolicy(edge_values=True))
        generate_input(choices, t)
        recording = choices.recording()
        for n in range(10):
            child = mutator.mutate(recording, rng).prefix
            replayed = Choices(
                child,
                seed=n,
                mode=ReplayMode.EXECUTION_INDEXED,
                policy=DrawPolicy(edge_values=True),
            )
            found.extend(payloads(offline_event(generate_input(replayed, t))))
    share = sum(map(is_json_object, found)) / len(found)
    # mutants of JSON parents are JSON a bit more often than fresh draws; never far less
    assert share >= JSON_RATE - tolerance(JSON_RATE, len(found)), (share, len(found))


def test_other_text_and_raw_bytes_come_now_and_then():
    kinds = {"json": 0, "text": 0, "bytes": 0}
    n = 3000
    for seed in range(n):
        choices = Choices([], seed=seed)
        data = draw_payload(choices, None, (), region="us-east-1", account="123456789012")
        recorded = choices.recording().values()[0]  # the kind's index, one per hundredth
        kind = "json" if recorded < 88 else "text" if recorded < 95 else "bytes"
        kinds[kind] += 1
        assert is_json_object(data) == (kind == "json"), (seed, data[:40])
    for kind, count in kinds.items():
        rate = PAYLOAD_SHARES[kind] / 100
        assert abs(count / n - rate) <= tolerance(rate, n), (kind, count)


def test_a_named_format_is_the_files_own_bytes_and_base64_only_in_the_event():
    for seed in range(5):
        generated = generate_input(Choices([], seed=seed), target(TriggerKind.KINESIS, "png"))
        for data in payloads(offline_event(generated)):
            assert data.startswith(b"\x89PNG"), data[:16]  # not base64 of them
