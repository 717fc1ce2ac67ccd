"""A sample event inside the deployment's filters, as every generated event is.

A project's sample events (`events/*.json`) are written by hand or by `sam local
generate-event`, which knows nothing of the function's filters: an `x.txt` upload for a
notification that only sends `.csv` keys, an SQS body whose `type` the event source
mapping's `FilterCriteria` refuses.  Seeded as they are, they would be failures on inputs
the deployment never delivers.  `fit_sample` decides, once per sample, what becomes of
it: an S3 key outside the notification's prefix/suffix filter is repaired (the prefix put
in front, the extension replaced by the suffix), records no pattern of `trigger.filters`
admits are removed, and a sample left with nothing to deliver (or an EventBridge event
the rule's pattern refuses, which no repair can make the team's) is dropped, each with
the reason said once.  `fit_keys` repairs the keys of every walked sample, so mutating a
seed's key never leaves the key filter; mutated records outside `trigger.filters` are
dropped by the harness like those of generated events (`delivery.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote_plus

from lambdafuzz.generators.aws.delivery import (
    EVENT_FILTER_KINDS,
    RECORD_FILTER_KINDS,
    filter_view,
)
from lambdafuzz.generators.aws.s3_notifications import encode_key
from lambdafuzz.model.event_pattern import (
    MISSING,
    OR_KEY,
    leaf_matches,
    load_pattern,
    matches,
    matches_any,
)
from lambdafuzz.model.target import ObjectsSpec, Resources, Trigger, TriggerKind

#: How much of a refused value a message shows.
_SHOWN: Final = 60


@dataclass(slots=True, frozen=True)
class SampleFit:
    """What becomes of one sample under the trigger's filters."""

    payload: Any  # the sample to seed with (repaired where `repaired`); None: dropped
    problem: str = ""  # why it was repaired or dropped; "": it fits as it is
    dropped: bool = False


def key_shape(trigger: Trigger, resources: Resources) -> ObjectsSpec | None:
    """The key filter of the notifications the trigger receives (its bucket's `prefixes`
    and `suffixes`); None when it has none or names no bucket."""
    if trigger.kind not in (TriggerKind.S3, TriggerKind.EVENTBRIDGE) or trigger.source is None:
        return None
    spec = next((b for b in resources.buckets if b.name == trigger.source), None)
    shape = spec.objects if spec is not None else None
    if shape is None or not (shape.prefixes or shape.suffixes):
        return None
    return shape


def fit_key(key: str, shape: ObjectsSpec) -> str:
    """`key` made to pass `shape`'s filter: the first prefix put in front when it has
    none of them, the extension of its last segment replaced by the first suffix when it
    ends with none of them; a key that passes is returned as it is."""
    prefix = next((p for p in shape.prefixes if key.startswith(p)), None)
    if prefix is None and shape.prefixes:
        prefix = shape.prefixes[0]
        key = prefix + key.lstrip("/")
    if shape.suffixes and not any(key.endswith(s) for s in shape.suffixes):
        dot = key.rfind(".")
        fixed = len(prefix or "")
        if dot > max(fixed, key.rfind("/") + 1):  # `name.txt`, not `.env` or the prefix's dot
            key = key[:dot]
        key += shape.suffixes[0]
    return key


def fit_keys(event: Any, shape: ObjectsSpec) -> tuple[Any, list[str]]:
    """`event` whose S3 object keys (S3 records, encoded; an EventBridge event's
    `detail.object.key`, raw) pass `shape`'s filter, and what was changed."""
    notes: list[str] = []
    if not isinstance(event, dict):
        return event, notes
    for record in event.get("Records") or ():
        s3 = record.get("s3") if isinstance(record, dict) else None
        obj = s3.get("object") if isinstance(s3, dict) else None
        if isinstance(obj, dict) and isinstance(obj.get("key"), str):
            key = unquote_plus(obj["key"])  # S3 filters the key, not its encoding
            fitted = fit_key(key, shape)
            if fitted != key:
                obj["key"] = encode_key(fitted)
                notes.append(_key_note(key, fitted, shape))
    detail = event.get("detail")
    obj = detail.get("object") if isinstance(detail, dict) else None
    if isinstance(obj, dict) and isinstance(obj.get("key"), str):
        fitted = fit_key(obj["key"], shape)
        if fitted != obj["key"]:
            notes.append(_key_note(obj["key"], fitted, shape))
            obj["key"] = fitted
    return event, notes


def _key_note(key: str, fitted: str, shape: ObjectsSpec) -> str:
    wants = []
    if shape.prefixes:
        wants.append("prefix " + " or ".join(map(repr, shape.prefixes)))
    if shape.suffixes:
        wants.append("suffix " + " or ".join(map(repr, shape.suffixes)))
    return (
        f"the object key {key!r} is outside the notification's key filter "
        f"({' and '.join(wants)}); seeded as {fitted!r}"
    )


def fit_sample(payload: Any, trigger: Trigger, resources: Resources) -> SampleFit:
    """`payload` (a sample that fits the trigger's kind) inside the deployment's filters:
    as it is, repaired, or dropped (`SampleFit.dropped`), with the reason."""
    notes: list[str] = []
    shape = key_shape(trigger, resources)
    if shape is not None:
        payload, notes = fit_keys(payload, shape)
    if not trigger.filters or not isinstance(payload, dict):
        return SampleFit(payload, "; ".join(notes))
    patterns = [load_pattern(text) for text in trigger.filters]
    view = _as_generated(payload, trigger)
    if trigger.kind in EVENT_FILTER_KINDS:
        if not matches_any(patterns, view):
            why = _refusal(patterns, view)
            return SampleFit(None, f"the rule's event pattern does not match it: {why}", True)
    elif trigger.kind in RECORD_FILTER_KINDS and isinstance(payload.get("Records"), list):
        records = payload["Records"]
        kept, refused = [], []
        for i, record in enumerate(records):
            seen = filter_view(trigger.kind, record) if isinstance(record, Mapping) else record
            if matches_any(patterns, seen):
                kept.append(record)
            else:
                refused.append(f"record {i + 1}: {_refusal(patterns, seen)}")
        if not kept:
            why = "; ".join(refused[:3]) + ("; ..." if len(refused) > 3 else "")
            return SampleFit(None, f"the trigger's filters admit none of its records ({why})", True)
        if refused:
            payload = {**payload, "Records": kept}
            notes.append(
                f"{len(refused)} of {len(records)} records are outside the trigger's filters "
                f"and left out ({'; '.join(refused[:3])})"
            )
    return SampleFit(payload, "; ".join(notes))


def _as_generated(payload: dict[str, Any], trigger: Trigger) -> dict[str, Any]:
    """The sample as the seed path makes it, for matching: an EventBridge event about a
    bucket names the trigger's bucket (`sample_events._name_bucket`)."""
    detail = payload.get("detail")
    if trigger.kind is not TriggerKind.EVENTBRIDGE or trigger.source is None:
        return payload
    if not isinstance(detail, dict) or not isinstance(detail.get("bucket"), dict):
        return payload
    bucket = trigger.source
    named = {**payload, "detail": {**detail, "bucket": {**detail["bucket"], "name": bucket}}}
    if isinstance(payload.get("resources"), list):
        named["resources"] = [f"arn:aws:s3:::{bucket}"]
    return named


def _refusal(patterns: Sequence[Mapping[str, Any]], document: Any) -> str:
    """Why the first pattern refuses `document` (each, when there are several)."""
    reasons = [mismatch(p, document) or "it does not match" for p in patterns]
    if len(reasons) == 1:
        return reasons[0]
    return "; ".join(f"pattern {i + 1}: {r}" for i, r in enumerate(reasons))


def mismatch(pattern: Mapping[str, Any], document: Any, path: tuple[str, ...] = ()) -> str | None:
    """The first field of `document` that `pattern` refuses, with its value and the
    rules it fails (None: the pattern matches)."""
    fields = document if isinstance(document, Mapping) else {}
    for key, rule in pattern.items():
        if key == OR_KEY:
            if not any(matches(alternative, document) for alternative in rule):
                where = ".".join(path) or "the event"
                return f"{where} matches none of the {len(rule)} $or alternatives"
            continue
        here = (*path, key)
        value = fields.get(key, MISSING)
        if isinstance(rule, Mapping):
            if isinstance(value, list) and value:
                if not any(matches(rule, element) for element in value):
                    return f"no element of {'.'.join(here)} matches {_shown(rule)}"
                continue
            inner = mismatch(rule, value, here)
            if inner is not None:
                return inner
        elif not leaf_matches(rule, value):
            shown = "absent" if value is MISSING else f"{_shown(value)}"
            return f"{'.'.join(here)} is {shown}, the filter wants {_shown(rule)}"
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
