"""One fuzzing input for a target: a `World` and the `EventPlan` of its trigger.

The world comes first (buckets, then tables, queues, topics, secrets and parameters), the
event after it, so the event can only name what exists.  Strings the world generated
(object keys and stems) are handed on as a *local dictionary*: table keys and API paths
reuse them, so a lookup of an uploaded object's name in a table can hit; a table's hash
key is now and then an object named as `bucket/key` (`world_refs.composed_names`); the
event's fields and ids reuse the world's names and item keys (`world_refs`).  A bucket
whose `objects` range starts at 0 is empty `EMPTY_P` of the time (never the notified one),
and a declared resource of a service the code creates resources of itself
(`Resources.created_by_code`) is now and then not there yet (`ABSENT_P`; never the
trigger's source); these with edge values on (`frontier`).  Every resource draws under a call site named
after it (`bucket:uploads`, `table:grades`), so in execution-indexed replay a change to one
resource leaves the draws of the others where they were.

Labels: the world's draws under `lambdafuzz.World`, the event's under `lambdafuzz.Event`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws.config_values import draw_parameter, draw_secret
from lambdafuzz.generators.aws.dynamodb import draw_table
from lambdafuzz.generators.aws.events import EventPlan, draw_event_plan, render_event
from lambdafuzz.generators.aws.filter_steering import patterns_of
from lambdafuzz.generators.aws.model_bodies import model_for
from lambdafuzz.generators.aws.queues import draw_queue
from lambdafuzz.generators.aws.s3 import draw_bucket, key_strings
from lambdafuzz.generators.aws.s3_notifications import missing_chance
from lambdafuzz.generators.aws.sample_events import draw_sample_choice, draw_sample_event
from lambdafuzz.generators.aws.streams import steer_table
from lambdafuzz.generators.aws.world_refs import composed_names, world_refs
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.model.target import (
    BODY_EVENTBRIDGE_S3,
    BODY_S3_EVENT,
    Envelope,
    ObjectsSpec,
    Target,
    TriggerKind,
)
from lambdafuzz.model.world import Bucket, LoadedWorld, Queue, Table, Topic, World

_DEFAULTS = World()
#: A bucket whose `objects` range starts at 0 is empty this often.
EMPTY_P: Final = 0.1
#: A resource the code creates itself is not there yet this often.
ABSENT_P: Final = 0.15


@dataclass(slots=True, frozen=True)
class GeneratedInput:
    """What one choice sequence generates: the AWS state, and the event to send into it."""

    world: World
    event: EventPlan

    def render_event(self, loaded: LoadedWorld) -> dict[str, Any]:
        """The event dict, once a backend has loaded `world` and reported `loaded`."""
        return render_event(self.event, loaded)


def generate_input(choices: Choices, target: Target) -> GeneratedInput:
    """The world of `target`'s resources, then its trigger's event: generated, or one of
    the target's sample events walked (a seed and its children; `sample_events.py`)."""
    sample = draw_sample_choice(choices, target)
    world = draw_world(choices, target)
    if sample is not None:
        world, plan = draw_sample_event(choices, target, world, sample)
        return GeneratedInput(world, plan)
    local = world_strings(world, choices.key_values)
    refs = world_refs(
        world,
        local,
        item_strings(world, choices.key_values),
        key_tails(world.tables, choices.key_values),
    )
    event = draw_event_plan(choices, target, world, local, refs)
    return GeneratedInput(world, event)


@generator(labels.WORLD)
def draw_world(choices: Choices, target: Target) -> World:
    trigger = target.trigger
    resources = target.resources
    region, account = _DEFAULTS.region, _DEFAULTS.account_id
    notified = _notified_bucket(target)
    patterns = patterns_of(trigger.filters)
    creates = resources.created_by_code
    buckets = []
    for spec in resources.buckets:
        if "s3" in creates and _absent(choices, target, spec.name, notified):
            buckets.append(Bucket(spec.name, exists=False))
        elif _empty(choices, spec.objects, spec.name, notified):
            buckets.append(Bucket(spec.name))
        else:
            bucket = draw_bucket(
                choices, spec, min_objects=int(spec.name == notified), site=f"bucket:{spec.name}"
            )
            buckets.append(bucket)
    local = key_strings(buckets)
    composed = composed_names(buckets)
    tables = []
    for spec in resources.tables:
        if "dynamodb" in creates and _absent(choices, target, spec.name, notified):
            tables.append(Table(spec.name, spec.key_schema, stream=spec.stream, exists=False))
            continue
        low = high = 0
        is_source = trigger.kind is TriggerKind.DYNAMODB_STREAM and trigger.source == spec.name
        if is_source:
            low, high = trigger.records_min, trigger.records_max  # changes need items
        table = draw_table(
            choices,
            spec,
            local,
            min_items=low,
            max_items=high,
            composed=composed,
            site=f"table:{spec.name}",
        )
        if is_source and patterns:
            with choices.scope(labels.DYNAMODB_ITEM, site=f"table:{spec.name}:filter"):
                table = steer_table(choices, table, patterns, local)
        tables.append(table)
    so_far = World(tuple(buckets), tuple(tables), region=region, account_id=account)
    refs = world_refs(
        so_far,
        world_strings(so_far, choices.key_values),
        item_strings(so_far, choices.key_values),
        key_tails(tables, choices.key_values),
    )
    queues = []
    for spec in resources.queues:
        if "sqs" in creates and _absent(choices, target, spec.name, notified):
            queues.append(Queue(spec.name, fifo=spec.fifo, exists=False))
            continue
        is_source = trigger.kind is TriggerKind.SQS and trigger.source == spec.name
        queue = draw_queue(
            choices,
            spec,
            body=trigger.body if is_source else None,
            buckets=buckets,
            region=region,
            account=account,
            min_messages=trigger.records_min if is_source else 0,
            max_messages=trigger.records_max if is_source else 0,
            missing_p=missing_chance(trigger.missing_objects) if is_source else 0.0,
            patterns=patterns if is_source else (),
            model=model_for(trigger, Envelope.SQS, Envelope.SNS_SQS) if is_source else None,
            refs=refs,
            site=f"queue:{spec.name}",
        )
        queues.append(queue)
    topics = tuple(
        Topic(spec.name, exists=not _absent(choices, target, spec.name, notified))
        if "sns" in creates
        else Topic(spec.name)
        for spec in resources.topics
    )
    secrets = tuple(
        draw_secret(choices, spec, site=f"secret:{spec.name}") for spec in resources.secrets
    )
    parameters = tuple(
        draw_parameter(choices, spec, site=f"parameter:{spec.name}")
        for spec in resources.parameters
    )
    return World(
        tuple(buckets), tuple(tables), tuple(queues), topics, region, account, secrets, parameters
    )


def _absent(choices: Choices, target: Target, name: str, notified: str | None) -> bool:
    """Whether a resource of a service the code creates is not there yet (never the
    trigger's source, nor the bucket its notifications name)."""
    if not choices.edge_values or name in (target.trigger.source, notified):
        return False
    return choices.draw_boolean(ABSENT_P, site=f"absent:{name}")


def _empty(choices: Choices, objects: ObjectsSpec | None, name: str, notified: str | None) -> bool:
    """Whether a bucket whose objects range starts at 0 holds none this time."""
    if not choices.edge_values or objects is None or objects.min > 0 or objects.max == 0:
        return False
    if name == notified:
        return False
    return choices.draw_boolean(EMPTY_P, site=f"empty:{name}")


def item_strings(world: World, key_values: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """The string key values of the world's items and what follows a prefix the code
    looks them up by: the ids an event may carry (`world_refs.WorldRefs.item_ids`)."""
    return tuple(dict.fromkeys(_table_strings(world.tables, key_values)))


def _notified_bucket(target: Target) -> str | None:
    """The bucket that must hold an object so that every S3 notification of the trigger
    names one of the world (None when missing objects are allowed, or nothing notifies):
    the trigger's bucket (an S3 Batch Operations job's too: its manifest lists objects
    that exist), or for an S3 notification carried in a message body the first bucket
    with objects."""
    trigger = target.trigger
    if trigger.missing_objects:
        return None
    if trigger.kind in (TriggerKind.S3, TriggerKind.EVENTBRIDGE, TriggerKind.S3_BATCH):
        return trigger.source
    if trigger.body in (BODY_S3_EVENT, BODY_EVENTBRIDGE_S3):
        return next((b.name for b in target.resources.buckets if b.objects), None)
    return None


def world_strings(world: World, key_values: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """Object keys and stems, then the string key values of table items: what the event
    may reuse (an API path parameter naming an existing object or item).  A key value that
    starts with one the code looks items up by (`Choices.key_values`) also gives what
    follows it: a handler that looks up `f"C#{customer_id}"` finds `C#42` by `42`."""
    found = dict.fromkeys(key_strings(world.buckets))
    found.update(dict.fromkeys(_table_strings(world.tables, key_values)))
    return tuple(found)


def key_tails(tables: Iterable[Table], key_values: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """What follows a prefix the code looks items up by in the string key values of the
    items (`ORDER#42` -> `42` for `("pk", "ORDER#")`)."""
    found: dict[str, None] = {}
    heads = [(attribute, head) for attribute, head in key_values if head]
    for table in tables if heads else ():
        names = (table.key_schema.hash_name, table.key_schema.range_name)
        for item in table.items:
            for attribute, head in heads:
                value = item.get(attribute) if attribute in names else None
                text = value.get("S") if value else None
                if text and len(text) > len(head) and text.startswith(head):
                    found[text[len(head) :]] = None
    return tuple(found)


def _table_strings(tables: Iterable[Table], key_values: Sequence[tuple[str, str]]) -> Iterable[str]:
    for table in tables:
        names = (table.key_schema.hash_name, table.key_schema.range_name)
        for item in table.items:
            for name in names:
                value = item.get(name) if name else None
                if value and "S" in value:
                    yield value["S"]
                    yield from (
                        value["S"][len(head) :]
                        for attribute, head in key_values
                        if attribute == name
                        and len(value["S"]) > len(head)
                        and value["S"].startswith(head)
                    )
