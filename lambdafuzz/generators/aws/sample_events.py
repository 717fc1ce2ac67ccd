"""The seed path: a project's sample event (`events/*.json`) as a generated input.

A seeded input draws "this is a sample" (a boolean that is never true when fresh, so fresh
inputs keep the normal generator; a direct invocation has no other generator that knows its
payload's shape, so there every input is a sample's) and which sample, then the world as usual, then walks
the sample's JSON: each leaf the deployment lets vary is drawn with `Choices.draw_kept`,
whose value is the sample's own until a mutation changes it, so the seed's recording
reproduces the sample exactly and its children change leaves (and list lengths: an item
dropped or repeated).  Keys stay, as the sample's shape is the deployment's contract,
except the top-level keys of a direct payload that the handler only looks for
(`event.get("key")`, `Trigger.event_keys`' `key?`), which a mutation may drop.

What a leaf may become depends on the trigger: a direct invocation's payload is all
content (Step Functions, the SDK send any JSON), but in an S3 notification only the object
key is the uploader's; AWS writes the rest.  A string holding JSON (an SQS body, an API
body) is walked as that JSON when it serialises back to the same text.  The world is
made to agree with the event: an S3 sample names the trigger's bucket and every object it
names exists with generated content; a DynamoDB stream sample's new images are the table's
items.  A walked object key is put back inside the bucket's key filter
(`sample_filters.fit_keys`), so no mutant names a key the notification would not send.
Labels: `event.sample` > the trigger kind's event label.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, Final
from urllib.parse import unquote_plus

from lambdafuzz import labels
from lambdafuzz.generators.aws.events import KIND_LABELS, EventPlan, SamplePlan
from lambdafuzz.generators.aws.s3 import object_format
from lambdafuzz.generators.aws.sample_filters import fit_keys, key_shape
from lambdafuzz.generators.constraints import (
    boolean_constraints,
    float_constraints,
    integer_constraints,
    string_constraints,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files import draw_file
from lambdafuzz.model.target import SampleEvent, Target, TriggerKind
from lambdafuzz.model.world import Bucket, S3Object, Table, World

#: Characters a mutated string leaf may use besides the sample's own.
BASE_ALPHABET: Final = string.ascii_letters + string.digits + " -_.:/@"
#: The content a deployment lets vary, per trigger kind: paths into the event, `*` for any
#: key or index, `**` for a whole subtree, `a|b` for either key.  Everything else is what
#: AWS writes and stays as the sample has it.
CONTENT: Final[dict[TriggerKind, tuple[str, ...]]] = {
    TriggerKind.DIRECT: ("**",),
    TriggerKind.S3: ("Records.*.s3.object.key",),
    TriggerKind.SQS: ("Records.*.body", "Records.*.messageAttributes.*.stringValue"),
    TriggerKind.SNS: (
        "Records.*.Sns.Message",
        "Records.*.Sns.Subject",
        "Records.*.Sns.MessageAttributes.*.Value",
    ),
    TriggerKind.DYNAMODB_STREAM: ("Records.*.dynamodb.NewImage|OldImage.*.S",),
    TriggerKind.APIGATEWAY: ("body", "pathParameters.*", "queryStringParameters.*"),
    TriggerKind.APIGATEWAY_V2: ("body", "pathParameters.*", "queryStringParameters.*"),
    TriggerKind.EVENTBRIDGE: ("detail.**",),
    TriggerKind.KINESIS: (),  # base64 data: kept as the sample has it
    TriggerKind.SCHEDULE: (),
    TriggerKind.MSK: (),  # base64 record values, as Kinesis
    TriggerKind.KAFKA: (),
    TriggerKind.ACTIVEMQ: (),
    TriggerKind.RABBITMQ: (),
    TriggerKind.AUTHORIZER: ("authorizationToken", "headers.*", "queryStringParameters.*"),
    TriggerKind.FIREHOSE: (),  # base64 record data, as Kinesis
    TriggerKind.S3_BATCH: ("job.userArguments.*",),
    TriggerKind.WEBSOCKET: ("body", "queryStringParameters.*"),
}
#: What an EventBridge "Object Created" event lets vary (the trigger names a bucket).
BRIDGE_S3_CONTENT: Final = ("detail.object.key",)

PathT = tuple[str | int, ...]
#: How often a list item appears in a mutated sample: dropped, kept (the sample), repeated.
_COPIES: Final = integer_constraints(0, 3, "sample")
#: Whether an optional key is there (the sample has it: a mutation may take it away).
_PRESENT: Final = boolean_constraints(0.5)


def draw_sample_choice(choices: Choices, target: Target) -> SampleEvent | None:
    """Which sample this input reproduces; None (no draw at all without samples) for a
    generated input.  The flag's probability is 0: only a seed or its children say yes.
    A direct invocation's samples are all lambdafuzz knows of its payload's shape (Step
    Functions, another service decides it), so its every input walks one: no flag."""
    samples = target.samples
    if not samples:
        return None
    with choices.scope(labels.SAMPLE_EVENT, site="sample"):
        direct = target.trigger.kind is TriggerKind.DIRECT
        if not direct and not choices.draw_boolean(0.0, site="seeded?"):
            return None
        return choices.draw_choice(samples, site="which")


def sample_prefix(target: Target, index: int) -> list[Any]:
    """The linear prefix whose input is the target's `index`-th sample, as it is."""
    if target.trigger.kind is TriggerKind.DIRECT:
        return [index]
    return [True, index]


def draw_sample_event(
    choices: Choices, target: Target, world: World, sample: SampleEvent
) -> tuple[World, EventPlan]:
    """The sample walked (its varying leaves drawn), and the world made to agree with it."""
    trigger = target.trigger
    payload = json.loads(sample.payload_json)
    bucket = trigger.source if trigger.kind in (TriggerKind.S3, TriggerKind.EVENTBRIDGE) else None
    if bucket is not None:
        payload = _name_bucket(payload, bucket, world)
    patterns = () if sample.fixed else CONTENT.get(trigger.kind, ())
    if trigger.kind is TriggerKind.EVENTBRIDGE and bucket is not None:
        patterns = BRIDGE_S3_CONTENT
    optional = frozenset(k[:-1] for k in trigger.event_keys if k.endswith("?"))
    walker = _Walker(choices, [_split(p) for p in patterns], _alphabet(payload), optional)
    with choices.scope(labels.SAMPLE_EVENT, site="event:sample"):
        with choices.scope(KIND_LABELS[trigger.kind], site=f"event:{trigger.kind.value}"):
            event = walker.walk(payload, ())
        shape = key_shape(trigger, target.resources)
        if shape is not None:  # a mutated key stays inside the notification's key filter
            event, _ = fit_keys(event, shape)
        if bucket is not None:
            world = _with_objects(choices, target, world, bucket, _object_keys(event))
    if trigger.kind is TriggerKind.DYNAMODB_STREAM and trigger.source is not None:
        event, world = _stream_items(event, world, trigger.source)
    plan = EventPlan(
        trigger.kind, trigger.source, (SamplePlan(json.dumps(event, ensure_ascii=False)),)
    )
    return world, plan


# =========================================================================== the walk
def _split(pattern: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(part.split("|")) for part in pattern.split("."))


class _Walker:
    """Draws the varying leaves of one sample; the rest is copied."""

    def __init__(
        self,
        choices: Choices,
        patterns: list[tuple[frozenset[str], ...]],
        alphabet: str,
        optional: frozenset[str] = frozenset(),
    ) -> None:
        self.choices = choices
        self.patterns = patterns
        self.alphabet = alphabet
        self.optional = optional  # top-level keys the handler only looks for (`.get`)

    def _state(self, path: PathT) -> str:
        """ "vary" (the node and all below it), "descend" (something below may vary) or
        "keep"."""
        state = "keep"
        for pattern in self.patterns:
            matched = True
            for i, segment in enumerate(path):
                if i >= len(pattern):
                    matched = False
                    break
                part = pattern[i]
                if "**" in part:
                    return "vary"
                if "*" not in part and str(segment) not in part:
                    matched = False
                    break
            if not matched:
                continue
            if len(pattern) == len(path) or (len(pattern) == len(path) + 1 and "**" in pattern[-1]):
                return "vary"
            state = "descend"
        return state

    def walk(self, value: Any, path: PathT) -> Any:
        state = self._state(path)
        if state == "keep":
            return value
        if state == "vary":
            return self.vary(value, _site(path), top=not path)
        if isinstance(value, dict):
            return {k: self.walk(v, (*path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.walk(v, (*path, i)) for i, v in enumerate(value)]
        return value

    def vary(self, value: Any, site: str, *, top: bool = False) -> Any:
        """`value` with every leaf drawn (kept unless mutated); lists may change length,
        and at the top (`top`) the keys the handler only looks for may go."""
        choices = self.choices
        if isinstance(value, dict):
            optional = self.optional if top else frozenset()
            kept: dict[str, Any] = {}
            with choices.scope("dict", site=site):
                for k, v in value.items():
                    walked = self.vary(v, str(k))
                    # a key the handler only looks for may be absent: now and then it is
                    if k not in optional or choices.draw_kept(True, _PRESENT, site=f"{k}?"):
                        kept[k] = walked
            return kept
        if isinstance(value, list):
            # every item is walked, then kept, dropped (0) or repeated: the draws stay
            # where they were whatever a mutation does to the list's length
            items: list[Any] = []
            with choices.scope("list", site=site):
                for item in value:
                    copies = choices.draw_kept(1, _COPIES, site="copies")
                    items.extend([self.vary(item, "item")] * copies)
            return items
        if isinstance(value, bool):
            return choices.draw_kept(value, boolean_constraints(0.5), site=site)
        if isinstance(value, int):
            low, high = _int_range(value)
            return choices.draw_kept(value, integer_constraints(low, high, "sample"), site=site)
        if isinstance(value, float) and math.isfinite(value):
            bound = float(max(16.0, 4 * abs(value)))
            low, high = (0.0, bound) if value >= 0 else (-bound, 0.0)
            return choices.draw_kept(value, float_constraints(low, high), site=site)
        if isinstance(value, str):
            return self._string(value, site)
        return value  # null, and NaN / Infinity (which Python's JSON reads): kept

    def _string(self, value: str, site: str) -> Any:
        embedded = _embedded_json(value)
        if embedded is not None:
            parsed, dump = embedded
            with self.choices.scope("json", site=site):
                return dump(self.vary(parsed, "json"))
        size = 16
        while size < 2 * len(value):
            size *= 2
        constraints = string_constraints(self.alphabet, 0, size)
        return self.choices.draw_kept(value, constraints, site=site)


def _site(path: PathT) -> str:
    return str(path[-1]) if path else "event"


def _int_range(value: int) -> tuple[int, int]:
    """Mutated integers keep the sample's sign (amounts, counts and ids stay non-negative)
    and its order of magnitude."""
    bound = max(16, 4 * abs(value))
    return (0, bound) if value >= 0 else (-bound, 0)


_SERIALISERS: Final[tuple[Callable[[Any], str], ...]] = (
    lambda v: json.dumps(v),
    lambda v: json.dumps(v, ensure_ascii=False),
    lambda v: json.dumps(v, separators=(",", ":")),
    lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False),
    lambda v: json.dumps(v, indent=2),
    lambda v: json.dumps(v, indent=2, ensure_ascii=False),
)


def _embedded_json(text: str) -> tuple[Any, Callable[[Any], str]] | None:
    """A JSON object or array in a string, with the serialiser that writes it back to the
    same text (None when it is no such JSON, or none does)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    for dump in _SERIALISERS:
        if dump(parsed) == text:
            return parsed, dump
    return None


def _alphabet(payload: Any) -> str:
    """The base alphabet and every character of the sample's strings, in a fixed order."""
    found = dict.fromkeys(BASE_ALPHABET)
    for text in _strings(payload):
        found.update(dict.fromkeys(text))
    return "".join(found)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# =========================================================================== S3
def _name_bucket(payload: Any, bucket: str, world: World) -> Any:
    """The sample with every bucket it names replaced by the trigger's."""
    arn = world.arn("s3", bucket)
    if not isinstance(payload, dict):
        return payload
    records = payload.get("Records")
    if isinstance(records, list):
        for record in records:
            s3 = record.get("s3") if isinstance(record, dict) else None
            if isinstance(s3, dict) and isinstance(s3.get("bucket"), dict):
                s3["bucket"] = {**s3["bucket"], "name": bucket, "arn": arn}
    detail = payload.get("detail")
    if isinstance(detail, dict) and isinstance(detail.get("bucket"), dict):
        detail["bucket"] = {**detail["bucket"], "name": bucket}
        if isinstance(payload.get("resources"), list):
            payload["resources"] = [arn]
    return payload


def _object_keys(event: Any) -> list[str]:
    """The object keys the event names (decoded as S3 notifications encode them)."""
    keys: list[str] = []
    if not isinstance(event, dict):
        return keys
    for record in event.get("Records") or ():
        obj = record.get("s3", {}).get("object", {}) if isinstance(record, dict) else {}
        if isinstance(obj, dict) and isinstance(obj.get("key"), str):
            keys.append(unquote_plus(obj["key"]))
    detail = event.get("detail")
    if isinstance(detail, dict) and isinstance(detail.get("object"), dict):
        key = detail["object"].get("key")
        if isinstance(key, str):
            keys.append(key)  # EventBridge does not URL-encode
    return keys


def _with_objects(
    choices: Choices, target: Target, world: World, bucket: str, keys: Iterable[str]
) -> World:
    """`world` whose `bucket` holds every object of `keys`, with generated content."""
    spec = next((b for b in target.resources.buckets if b.name == bucket), None)
    found = next((b for b in world.buckets if b.name == bucket), None)
    if spec is None or found is None:
        return world
    objects = list(found.objects)
    formats = spec.objects.formats if spec.objects is not None else ("any",)
    erroneous_p = spec.objects.erroneous_p if spec.objects is not None else 0.0
    for key in dict.fromkeys(keys):
        if not key or any(o.key == key for o in objects):
            continue
        file = draw_file(choices, formats, erroneous_p=erroneous_p, site="object")
        objects.append(S3Object(key, file.data, file.content_type, object_format(file)))
    buckets = tuple(
        Bucket(b.name, tuple(objects)) if b.name == bucket else b for b in world.buckets
    )
    return replace(world, buckets=buckets)


# =========================================================================== DynamoDB
def _stream_items(event: Any, world: World, table_name: str) -> tuple[Any, World]:
    """Images agree with the record's keys, and the table holds each new image (a removed
    item is gone): the state the stream describes."""
    table = next((t for t in world.tables if t.name == table_name), None)
    if table is None or not isinstance(event, dict):
        return event, world
    schema = table.key_schema
    names = [n for n in (schema.hash_name, schema.range_name) if n]
    items = list(table.items)

    def key_of(item: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(json.dumps(item.get(n), sort_keys=True) for n in names)

    for record in event.get("Records") or ():
        change = record.get("dynamodb") if isinstance(record, dict) else None
        if not isinstance(change, dict) or not isinstance(change.get("Keys"), dict):
            continue
        keys = change["Keys"]
        for image in ("NewImage", "OldImage"):
            if isinstance(change.get(image), dict):
                change[image].update({k: v for k, v in keys.items() if k in change[image]})
        if not all(n in keys for n in names):
            continue
        items = [i for i in items if key_of(i) != key_of(keys)]
        new = change.get("NewImage")
        if record.get("eventName") != "REMOVE" and isinstance(new, dict):
            items.append(new)
    tables = tuple(
        Table(t.name, t.key_schema, tuple(items), t.stream, t.indexes)
        if t.name == table_name
        else t
        for t in world.tables
    )
    return event, replace(world, tables=tables)
