"""DynamoDB stream records that agree with the table in the world.

The world holds the table *after* the changes the event reports: an INSERT or MODIFY names
an item that is in the table (its NewImage), a MODIFY's OldImage is that item's key with
other attributes, and a REMOVE's OldImage is an item no longer there.  Which images a
record carries follows the table's StreamViewType.  Label: `event.dynamodb-stream`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.dynamodb import draw_extras, draw_item, item_key, key_only
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.model.world import ItemT, LoadedWorld, Table

EVENT_NAMES: Final = ("INSERT", "MODIFY", "REMOVE")
_NEW_VIEWS: Final = frozenset({"NEW_IMAGE", "NEW_AND_OLD_IMAGES"})
_OLD_VIEWS: Final = frozenset({"OLD_IMAGE", "NEW_AND_OLD_IMAGES"})


@dataclass(slots=True, frozen=True)
class StreamRecordPlan:
    table: str
    event_name: str  # INSERT | MODIFY | REMOVE
    keys: ItemT
    new_image: ItemT | None  # the item after the change (INSERT, MODIFY)
    old_image: ItemT | None  # the item before the change (MODIFY, REMOVE)
    view_type: str
    time_ms: int
    sequence_number: str
    seed: bytes


@generator(labels.DYNAMODB_STREAM_EVENT)
def draw_stream_record(
    choices: Choices,
    table: Table,
    *,
    local: Sequence[str],
    removed: set[tuple[str, ...]],
    time_ms: int,
    position: int,
) -> StreamRecordPlan:
    """One change to `table`; `removed` holds the keys REMOVE records used (and the table's
    keys), so a removed item is never one that is still there."""
    schema = table.key_schema
    weights = (0.5, 0.3, 0.2) if table.items else (0.0, 0.0, 1.0)
    name = choices.draw_weighted(EVENT_NAMES, weights, site="event-name")
    new_image: ItemT | None = None
    old_image: ItemT | None = None
    if name == "REMOVE":
        old_image = draw_item(choices, schema, local, removed, site="removed")
        keys = key_only(old_image, schema)
    else:
        new_image = choices.draw_choice(table.items, site="item")
        keys = key_only(new_image, schema)
        if name == "MODIFY":
            with choices.scope(labels.DYNAMODB_ITEM, site="old-image"):
                old_image = {**keys, **draw_extras(choices, schema, local)}
    seed = ids.draw_seed(choices)
    sequence = str(10**20 + time_ms * 1000 + position)
    return StreamRecordPlan(
        table.name,
        name,
        keys,
        new_image,
        old_image,
        table.stream or "NEW_AND_OLD_IMAGES",
        time_ms,
        sequence,
        seed,
    )


def draw_stream_records(
    choices: Choices, table: Table, count: int, local: Sequence[str]
) -> tuple[StreamRecordPlan, ...]:
    """`count` changes in time order."""
    removed = {item_key(item, table.key_schema) for item in table.items}
    time_ms = ids.draw_time_ms(choices)
    records = []
    for position in range(count):
        if position:
            time_ms += choices.draw_geometric(500.0, max_value=60_000, site="gap")
        record = draw_stream_record(
            choices,
            table,
            local=local,
            removed=removed,
            time_ms=time_ms,
            position=position,
            site="record",
        )
        records.append(record)
    return tuple(records)


def render_stream_record(plan: StreamRecordPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """One element of a DynamoDB stream event's `Records`."""
    change: dict[str, Any] = {
        "ApproximateCreationDateTime": plan.time_ms // 1000,
        "Keys": plan.keys,
    }
    if plan.new_image is not None and plan.view_type in _NEW_VIEWS:
        change["NewImage"] = plan.new_image
    if plan.old_image is not None and plan.view_type in _OLD_VIEWS:
        change["OldImage"] = plan.old_image
    size = len(json.dumps({k: v for k, v in change.items() if k != "ApproximateCreationDateTime"}))
    change.update(
        SequenceNumber=plan.sequence_number, SizeBytes=size, StreamViewType=plan.view_type
    )
    return {
        "eventID": ids.hex_id(plan.seed, "event", 32, upper=False),
        "eventName": plan.event_name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": loaded.world.region,
        "dynamodb": change,
        "eventSourceARN": loaded.stream_arn(plan.table),
    }
