"""FIFO queue records and the world (issue 42), on small fixtures written here: a FIFO
queue's records carry `MessageGroupId` and `MessageDeduplicationId`, each now and then an
item key of the world's tables (a handler keeping state per group finds the group's
item); only keys SQS accepts as such ids, deduplication ids stay unique in a queue."""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.generators.aws.queues import unique_dedup
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.aws.world_refs import WorldRefs, draw_fifo_id
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.harness.emulator.world_checks import check_queue

SEEDS = range(200)
CONFIG = """\
handler: app.handler
trigger: {kind: sqs, source: tickets.fifo, records: {min: 1, max: 3}}
resources:
  tables: [{name: lanes, hash_key: {name: lane, type: S}, items: {min: 2, max: 4}}]
  queues: [{name: tickets.fifo, messages: {min: 1, max: 3}}]
"""


def test_a_fifo_id_is_now_and_then_an_item_key_sqs_accepts() -> None:
    refs = WorldRefs(item_ids=("lane-7", "has space", "x" * 129, "ünï"))
    drawn = [
        draw_fifo_id(Choices(seed=s, policy=DrawPolicy(edge_values=True)), refs, site="g")
        for s in SEEDS
    ]
    hits = [d for d in drawn if d is not None]
    assert 0.05 * len(SEEDS) < len(hits) < 0.3 * len(SEEDS)
    assert set(hits) == {"lane-7"}
    assert draw_fifo_id(Choices(seed=1), refs, site="g") is None  # edge values off
    assert (
        draw_fifo_id(Choices(seed=1, policy=DrawPolicy(edge_values=True)), WorldRefs(), site="g")
        is None
    )


def test_deduplication_ids_stay_unique() -> None:
    assert unique_dedup("lane-7", 2, {"message-0"}) == "lane-7"
    assert unique_dedup("lane-7", 2, {"lane-7"}) == "message-2"
    assert unique_dedup("lane-7", 2, {"lane-7", "message-2"}) == "message-2-1"
    assert unique_dedup(None, 2, {"x"}) is None


def test_fifo_records_carry_the_worlds_group_ids(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def handler(event, context):\n    return None\n")
    (tmp_path / "lambdafuzz.yaml").write_text(CONFIG)
    target = load_config(tmp_path / "lambdafuzz.yaml")
    groups = dedups = records = 0
    for seed in SEEDS:
        generated = generate_input(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), target)
        check_queue(generated.world.queue("tickets.fifo"))  # no duplicate dropped
        keys = {i["lane"]["S"] for i in generated.world.table("lanes").items}
        event = generated.render_event(synthetic_loaded_world(generated.world))
        for record in event["Records"]:
            records += 1
            attributes = record["attributes"]
            groups += attributes["MessageGroupId"] in keys
            dedups += attributes["MessageDeduplicationId"] in keys
    assert groups > 0.05 * records and dedups > 0.05 * records, (groups, dedups, records)
