"""DynamoDB stream records that agree with the table in the world.

The world holds the table *after* the changes the event reports: an INSERT or MODIFY names
an item that is in the table (its NewImage), a MODIFY's OldImage is that item's key with
other attributes, and a REMOVE's OldImage is an item no longer there.  Which images a
record carries follows the table's StreamViewType.  A stream filter (`trigger.filters`)
steers the draws: the event names it admits, items whose NewImage it admits (the table's
items are steered by it when the world is drawn, `steer_table`), OldImages it admits.
With edge values on, a MODIFY's OldImage is now and then its NewImage with one attribute
missing or of another type (`edge_old_image`), and holds the names the code reads as the
table's items do (`dynamodb.draw_code_fields`: absent, of another type, the code's
constants), so both images carry the shapes the code may not expect.  Label: `event.dynamodb-stream`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.dynamodb import (
    TYPES,
    draw_always,
    draw_binary,
    draw_code_fields,
    draw_extras,
    draw_item,
    draw_number,
    draw_string_value,
    draw_typed_value,
    draw_value,
    item_key,
    key_only,
)
from lambdafuzz.generators.aws.filter_steering import (
    PatternT,
    choose_pattern,
    draw_admitted,
    pattern_part,
)
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.model.event_pattern import MISSING, OR_KEY, leaf_matches, matches
from lambdafuzz.model.world import AttributeValueT, ItemT, KeySchema, LoadedWorld, Table

EVENT_NAMES: Final = ("INSERT", "MODIFY", "REMOVE")
#: The parts of a stream filter that describe the table's items.
_ITEM_PARTS: Final = ("NewImage", "Keys")
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
    # the eventID in place of the derived one: an item key of the world (`world_refs`)
    event_id: str | None = None


@generator(labels.DYNAMODB_STREAM_EVENT)
def draw_stream_record(
    choices: Choices,
    table: Table,
    *,
    local: Sequence[str],
    removed: set[tuple[str, ...]],
    time_ms: int,
    position: int,
    pattern: PatternT | None = None,
) -> StreamRecordPlan:
    """One change to `table`; `removed` holds the keys REMOVE records used (and the table's
    keys), so a removed item is never one that is still there.  `pattern`: the filter the
    record is drawn to pass."""
    schema = table.key_schema
    always = [n for n, _ in table.attributes]
    weights = _admitted_weights(pattern, bool(table.items))
    name = choices.draw_weighted(EVENT_NAMES, weights, site="event-name")
    new_image: ItemT | None = None
    old_image: ItemT | None = None
    old_rule = pattern_part(pattern, "dynamodb", "OldImage")
    if name == "REMOVE":
        old_image = draw_item(
            choices, schema, local, removed, attributes=table.attributes, site="removed"
        )
        keys_rule = pattern_part(pattern, "dynamodb", "Keys")
        old_image = steer_keys(choices, keys_rule, old_image, schema, removed, local)
        if isinstance(old_rule, Mapping):
            old_image = steer_image(choices, old_rule, old_image, _key_names(schema), local)
        keys = key_only(old_image, schema)
    else:
        new_image = choices.draw_choice(_admitted_items(table, pattern), site="item")
        keys = key_only(new_image, schema)
        if name == "MODIFY":
            with choices.scope(labels.DYNAMODB_ITEM, site="old-image"):
                # the names the code reads, absent or of other types, as the table's
                # items hold them (`draw_code_fields`): `new["n"] - old["n"]` meets a string
                old_image = {**keys, **draw_code_fields(choices, keys, local, reserved=always)}
                extras = draw_extras(choices, schema, local, reserved=[*always, *old_image])
                old_image.update(extras)
                old_image.update(draw_always(choices, table.attributes, old_image, local))
                if choices.edge_values:
                    kept = {*keys, *always}  # what every version of an item holds
                    old_image = edge_old_image(choices, new_image, old_image, kept, local)
                if isinstance(old_rule, Mapping):
                    old_image = steer_image(choices, old_rule, old_image, set(keys), local)
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


def edge_old_image(
    choices: Choices,
    new_image: ItemT,
    old_image: ItemT,
    reserved: set[str],
    local: Sequence[str],
) -> ItemT:
    """A MODIFY's OldImage as handlers that diff the images meet it, at the edge rates:
    the NewImage with one non-key attribute missing (ABSENT) or held with another type
    (CONFUSED); otherwise `old_image` as drawn."""
    cls = edge_values.image_edge(choices)
    names = sorted(set(new_image) - reserved)
    if cls is None or not names:
        return old_image
    with choices.scope(cls.label):
        name = choices.draw_choice(names, site="attribute")
        image = dict(new_image)
        if cls is edge_values.EdgeClass.ABSENT:
            del image[name]
            return image
        held = next(iter(new_image[name]))
        others = [t for t in TYPES if t != held]
        kind = choices.draw_choice(others, site="type")
        image[name] = draw_typed_value(choices, kind, local)
        return image


def _admitted_weights(pattern: PatternT | None, has_items: bool) -> tuple[float, ...]:
    """INSERT/MODIFY/REMOVE weights: the names a filter admits, by its `eventName` rule
    and by the images it asks for (a REMOVE has no NewImage, an INSERT no OldImage); all
    when it admits none of them (the matcher then drops the record, as Lambda would)."""
    weights = (0.5, 0.3, 0.2) if has_items else (0.0, 0.0, 1.0)
    rule = pattern_part(pattern, "eventName")
    images = pattern_part(pattern, "dynamodb")
    images = images if isinstance(images, Mapping) else {}
    admitted = []
    for name, weight in zip(EVENT_NAMES, weights, strict=True):
        refused = (
            (isinstance(rule, list) and not leaf_matches(rule, name))
            or (name == "REMOVE" and isinstance(images.get("NewImage"), Mapping))
            or (name == "INSERT" and isinstance(images.get("OldImage"), Mapping))
        )
        admitted.append(0.0 if refused else weight)
    return tuple(admitted) if sum(admitted) > 0 else weights


def _admitted_items(table: Table, pattern: PatternT | None) -> Sequence[ItemT]:
    """The items whose NewImage and Keys the pattern admits (all when none is)."""
    change = pattern_part(pattern, "dynamodb")
    if not isinstance(change, Mapping):
        return table.items
    wanted = {k: v for k, v in change.items() if k in ("NewImage", "Keys")}
    if not wanted:
        return table.items
    schema = table.key_schema
    found = [
        item
        for item in table.items
        if matches(wanted, {"NewImage": item, "Keys": key_only(item, schema)})
    ]
    return found or table.items


def _key_names(schema: KeySchema) -> set[str]:
    return {n for n in (schema.hash_name, schema.range_name) if n}


def steer_table(
    choices: Choices, table: Table, patterns: Sequence[PatternT], local: Sequence[str]
) -> Table:
    """The stream table with its items' non-key attributes steered by the filters'
    `dynamodb.NewImage` patterns (each item by one of those that have one), so INSERT and
    MODIFY records find items the filter admits."""
    changes = [pattern_part(p, "dynamodb") for p in patterns]
    changes = [
        c
        for c in changes
        if isinstance(c, Mapping) and any(isinstance(c.get(k), Mapping) for k in _ITEM_PARTS)
    ]
    if not changes:
        return table
    schema = table.key_schema
    reserved = _key_names(schema)
    taken = {item_key(item, schema) for item in table.items}
    items = []
    for item in table.items:
        with choices.scope(labels.DYNAMODB_ITEM, site="filtered-item"):
            change = choose_pattern(choices, changes)
            assert change is not None
            item = steer_keys(choices, change.get("Keys"), item, schema, taken, local)
            rule = change.get("NewImage")
            if isinstance(rule, Mapping):
                item = steer_image(choices, rule, item, reserved, local)
        items.append(item)
    return replace(table, items=tuple(items))


def steer_keys(
    choices: Choices,
    rule: Any,
    item: ItemT,
    schema: KeySchema,
    taken: set[tuple[str, ...]],
    local: Sequence[str],
) -> ItemT:
    """`item` with its key attributes steered by a filter's `Keys` pattern, unless the
    steered key is one `taken` already holds (keys stay unique; the matcher then drops
    what does not pass); `taken` is updated."""
    if not isinstance(rule, Mapping):
        return item
    keys = steer_image(choices, rule, key_only(item, schema), set(), local)
    if set(keys) != _key_names(schema) or any(len(v) != 1 for v in keys.values()):
        return item
    types = {schema.hash_name: schema.hash_type, schema.range_name: schema.range_type}
    if any(next(iter(v)) != types[name] for name, v in keys.items()):
        return item  # a rule on another type than the key's: not steerable
    old, new = item_key(item, schema), item_key(keys, schema)
    if new != old and new in taken:
        return item
    taken.discard(old)
    taken.add(new)
    return {**item, **keys}


def steer_image(
    choices: Choices,
    rule: PatternT,
    item: Mapping[str, AttributeValueT],
    reserved: set[str],
    local: Sequence[str],
) -> ItemT:
    """A copy of `item` (DynamoDB JSON) whose attributes hold typed values `rule` admits;
    key attributes (`reserved`) are left alone (steering them could break the key's
    uniqueness: the matcher still enforces what they must be)."""
    result: ItemT = dict(item)
    for name, attribute_rule in rule.items():
        if name == OR_KEY:
            index = choices.draw_integer(0, len(attribute_rule) - 1, site="alternative")
            result = steer_image(choices, attribute_rule[index], result, reserved, local)
            continue
        if name in reserved:
            continue
        current = result.get(name, MISSING)
        if isinstance(attribute_rule, list):  # on the attribute itself: exists
            fresh_value = functools.partial(draw_value, choices, local)
            value = draw_admitted(choices, attribute_rule, current, fresh_value, site=name)
            if value is MISSING:
                result.pop(name, None)
            elif isinstance(value, Mapping) and len(value) == 1:
                result[name] = dict(value)
            continue
        if not isinstance(attribute_rule, Mapping) or len(attribute_rule) != 1:
            continue
        ((tag, inner),) = attribute_rule.items()
        held = current.get(tag, MISSING) if isinstance(current, Mapping) else MISSING
        if tag == "M" and isinstance(inner, Mapping):
            nested = held if isinstance(held, Mapping) else {}
            result[name] = {"M": steer_image(choices, inner, nested, set(), local)}
            continue
        if not isinstance(inner, list):
            continue
        fresh = functools.partial(_fresh_scalar, choices, tag, local)
        value = draw_admitted(choices, inner, held, fresh, site=name)
        if value is MISSING:
            result.pop(name, None)
            continue
        typed = _typed(tag, value)
        if typed is not None:
            result[name] = typed
    return result


def _fresh_scalar(choices: Choices, tag: str, local: Sequence[str]) -> Any:
    if tag == "S":
        return draw_string_value(choices, local)
    if tag == "N":
        return draw_number(choices, local)
    if tag == "B":
        return draw_binary(choices, local)
    if tag == "BOOL":
        return choices.draw_boolean(site="bool")
    return True


def _typed(tag: str, value: Any) -> AttributeValueT | None:
    """`{tag: value}` when `value` can be that attribute type's wire value (a number rule
    on an `N` attribute cannot: the stream writes numbers as strings, which numeric
    matching never admits)."""
    if tag in ("S", "B", "N") and isinstance(value, str):
        if tag == "N":
            try:
                float(value)
            except ValueError:
                return None
        return {tag: value}
    if tag in ("BOOL", "NULL") and isinstance(value, bool):
        return {tag: value}
    return None


def draw_stream_records(
    choices: Choices,
    table: Table,
    count: int,
    local: Sequence[str],
    patterns: Sequence[PatternT] = (),
) -> tuple[StreamRecordPlan, ...]:
    """`count` changes in time order, each drawn to pass one of `patterns` (if any)."""
    removed = {item_key(item, table.key_schema) for item in table.items}
    time_ms = ids.draw_time_ms(choices)
    records = []
    for position in range(count):
        if position:
            time_ms += choices.draw_geometric(500.0, max_value=60_000, site="gap")
        pattern = choose_pattern(choices, patterns)
        record = draw_stream_record(
            choices,
            table,
            local=local,
            removed=removed,
            time_ms=time_ms,
            position=position,
            pattern=pattern,
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
        "eventID": plan.event_id or ids.hex_id(plan.seed, "event", 32, upper=False),
        "eventName": plan.event_name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": loaded.world.region,
        "dynamodb": change,
        "eventSourceARN": loaded.stream_arn(plan.table),
    }
