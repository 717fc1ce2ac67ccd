"""A state machine task's `$` when it is the execution's input, which the state machine's
triggers decide (`config.state_machine_inputs`).

For a task whose state receives the execution's input (`trigger.payload_inputs`), the
payload is drawn from its template as before (`task_payloads`), one of the state
machine's inputs is drawn beside it (an EventBridge event its rule's pattern admits, a
rule's scheduled event, a target's constant `Input`, or any object) and, once rendered,
every `key.$` of the template holding a path into the state input (`$`, `$.detail`)
takes what that path selects in it, after the inputs' `paths` (a target's `InputPath`,
the task's own `InputPath`).  A path that selects nothing in the input keeps the drawn
value (Step Functions would fail the state; the payload stays one of its shape).

An EventBridge rule admitting S3 "Object Created" events (its pattern's `source` takes
`aws.s3`) sends S3 events, for the bucket the pattern names (`detail.bucket.name`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.model.event_pattern import leaf_matches

_STEP: Final = re.compile(r"\.([A-Za-z0-9_@-]+)|\[(\d+)\]|\['([^']*)'\]")
_MISSING: Final = object()


@dataclass(slots=True, frozen=True)
class TaskPlan:
    """A task payload (drawn from its template) and the execution input its `$` paths
    read: `start`, a plan of `generators.aws.events` (an EventBridge event or a schedule
    firing) rendered with the payload, or a constant (`constant_json`)."""

    template_json: str
    payload_json: str
    start: object | None
    constant_json: str | None
    paths: tuple[str, ...]


def task_inputs(payload_inputs: Sequence[str], index: int) -> tuple[Mapping[str, Any], ...]:
    """The inputs payload `index`'s `$` can be; (): not known."""
    if index >= len(payload_inputs):
        return ()
    return _parsed(payload_inputs[index])


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> tuple[Mapping[str, Any], ...]:
    value = json.loads(text)
    return tuple(v for v in value if isinstance(v, dict)) if isinstance(value, list) else ()


def s3_bucket(patterns: Sequence[Mapping[str, Any]]) -> str | None:
    """The bucket an EventBridge rule's only pattern takes S3 "Object Created" events of
    (the first name of its `detail.bucket.name`, else ""); None: the rule takes other
    events (its `source` does not name `aws.s3`)."""
    if len(patterns) != 1:
        return None
    pattern = patterns[0]
    source, detail_type = pattern.get("source"), pattern.get("detail-type")
    if not isinstance(source, list) or not leaf_matches(source, "aws.s3"):
        return None
    if isinstance(detail_type, list) and not leaf_matches(detail_type, "Object Created"):
        return None
    detail = pattern.get("detail")
    bucket = detail.get("bucket") if isinstance(detail, dict) else None
    names = bucket.get("name") if isinstance(bucket, dict) else None
    named = [n for n in names if isinstance(n, str) and n] if isinstance(names, list) else []
    return named[0] if named else ""


def task_input_buckets(inputs: Any) -> frozenset[str]:
    """The buckets whose S3 "Object Created" events are some task's execution input (the
    `inputs` setting: per payload, a list of inputs): their objects are in the world, as
    an S3 trigger's are, so the event names an object the bucket holds."""
    found = set()
    for per_payload in inputs if isinstance(inputs, list) else ():
        for start in per_payload if isinstance(per_payload, list) else ():
            if not isinstance(start, dict) or start.get("kind") != "eventbridge":
                continue
            raw = start.get("patterns")
            bucket = s3_bucket(
                [p for p in raw if isinstance(p, dict)] if isinstance(raw, list) else []
            )
            if bucket:
                found.add(bucket)
    return frozenset(found)


def selected(value: Any, path: str) -> Any:
    """What a JSONPath (`$`, `$.a.b`, `$.a[0]`, `$['a']`) selects in `value`; `_MISSING`
    when it selects nothing or is not such a path."""
    if not path.startswith("$") or path.startswith("$$"):
        return _MISSING
    position = 1
    while position < len(path):
        step = _STEP.match(path, position)
        if step is None:
            return _MISSING
        name, number, quoted = step.groups()
        if number is not None:
            if not isinstance(value, list) or int(number) >= len(value):
                return _MISSING
            value = value[int(number)]
        else:
            key = name if name is not None else quoted
            if not isinstance(value, dict) or key not in value:
                return _MISSING
            value = value[key]
        position = step.end()
    return value


def with_input(plan: TaskPlan, start: Any) -> Any:
    """The plan's payload with its `$` paths evaluated in the execution input `start`
    (the rendered event, or None for a constant)."""
    payload = json.loads(plan.payload_json)
    state = json.loads(plan.constant_json) if plan.constant_json is not None else start
    for path in plan.paths:
        state = selected(state, path)
        if state is _MISSING:
            return payload
    return _evaluated(json.loads(plan.template_json), payload, state)


def _evaluated(template: Any, payload: Any, state: Any) -> Any:
    if isinstance(template, dict) and isinstance(payload, dict):
        result = dict(payload)
        for key, value in template.items():
            if str(key).endswith(".$") and isinstance(value, str):
                found = selected(state, value.strip())
                if found is not _MISSING and key[:-2] in result:
                    result[key[:-2]] = found
            elif key in result:
                result[key] = _evaluated(value, result[key], state)
        return result
    if isinstance(template, list) and isinstance(payload, list) and len(template) == len(payload):
        return [_evaluated(t, p, state) for t, p in zip(template, payload, strict=True)]
    return payload
