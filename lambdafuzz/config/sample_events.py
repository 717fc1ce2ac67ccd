"""A project's sample events (`events/*.json`, `sam local generate-event` output) as seeds.

Teams keep the events they test with next to their code; they are the best first inputs a
campaign can have (the shape the deployment really sends, values that reach deep
branches).  This module finds them — `seeds:` in a lambdafuzz.yaml (files or folders,
relative to it), the `events/` folder next to a SAM template, the folders of
`--seed-corpus` — checks each fits the function's trigger and returns them as
`SampleEvent`s; the generators reproduce each exactly and mutate it
(`generators/aws/sample_events.py`).

What does not fit is said, never dropped silently: an event of another kind than the
trigger (an API Gateway request for an SQS function), a direct payload missing a key the
handler subscripts, or an event the deployment's filters refuse is skipped with a
`warning [sample-event]` line, as is a file that is not JSON inside a folder; an S3 key
outside the notification's key filter, or records among others that the filters refuse,
are repaired with one such line.  A file named explicitly (`seeds: [events/order.json]`)
that is not JSON is a `ConfigError`: the user pointed at it, so the run stops there (exit 2).
Files that are lambdafuzz's own saved inputs are left to the seed-corpus reader.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.sample_filters import fit_sample
from lambdafuzz.model.target import Resources, SampleEvent, Target, Trigger, TriggerKind

log = logging.getLogger("lambdafuzz.config.sample_events")

#: The folder next to a SAM template that holds its sample events (`sam init` makes it).
EVENTS_DIR: Final = "events"
#: Larger files are not events (Lambda's synchronous payload limit is 6 MB; 1 MB is plenty).
MAX_SAMPLE_BYTES: Final = 1 << 20
#: `eventSource` of a record -> the trigger kind whose events carry such records.
_RECORD_SOURCES: Final = {
    "aws:s3": TriggerKind.S3,
    "aws:sqs": TriggerKind.SQS,
    "aws:sns": TriggerKind.SNS,
    "aws:dynamodb": TriggerKind.DYNAMODB_STREAM,
    "aws:kinesis": TriggerKind.KINESIS,
}
_KIND_NAMES: Final = {
    TriggerKind.S3: "an S3 notification",
    TriggerKind.SQS: "an SQS event",
    TriggerKind.SNS: "an SNS event",
    TriggerKind.DYNAMODB_STREAM: "a DynamoDB stream event",
    TriggerKind.KINESIS: "a Kinesis event",
    TriggerKind.APIGATEWAY: "an API Gateway (REST, v1) request",
    TriggerKind.APIGATEWAY_V2: "an API Gateway (HTTP API, v2) request",
    TriggerKind.EVENTBRIDGE: "an EventBridge event",
    TriggerKind.SCHEDULE: "a scheduled EventBridge event",
    TriggerKind.DIRECT: "a custom payload",
    TriggerKind.MSK: "an Amazon MSK event",
    TriggerKind.KAFKA: "a self-managed Kafka event",
    TriggerKind.ACTIVEMQ: "an Amazon MQ (ActiveMQ) event",
    TriggerKind.RABBITMQ: "an Amazon MQ (RabbitMQ) event",
    TriggerKind.AUTHORIZER: "an API Gateway authorizer event",
    TriggerKind.FIREHOSE: "a Firehose transformation batch",
    TriggerKind.S3_BATCH: "an S3 Batch Operations invocation",
    TriggerKind.WEBSOCKET: "an API Gateway WebSocket event",
}
#: `eventSource` of a whole event (the brokers' events carry no `Records` list).
_EVENT_SOURCES: Final = {
    "aws:kafka": TriggerKind.MSK,
    "SelfManagedKafka": TriggerKind.KAFKA,
    "aws:mq": TriggerKind.ACTIVEMQ,
    "aws:rmq": TriggerKind.RABBITMQ,
}


@dataclass(slots=True, frozen=True)
class SampleFile:
    """One sample event read from disk."""

    path: Path
    payload: Any


def event_kind(payload: Any) -> TriggerKind:
    """Which AWS service's event `payload` looks like; DIRECT for anything else."""
    if not isinstance(payload, dict):
        return TriggerKind.DIRECT
    if payload.get("eventSource") in _EVENT_SOURCES:
        return _EVENT_SOURCES[payload["eventSource"]]
    records = payload.get("Records")
    if isinstance(records, list) and records and isinstance(records[0], dict):
        source = records[0].get("eventSource") or records[0].get("EventSource")
        if source in _RECORD_SOURCES:
            return _RECORD_SOURCES[source]
    if payload.get("type") in ("TOKEN", "REQUEST") and (
        "methodArn" in payload or "routeArn" in payload
    ):
        return TriggerKind.AUTHORIZER
    if "deliveryStreamArn" in payload and isinstance(payload.get("records"), list):
        return TriggerKind.FIREHOSE
    if "invocationSchemaVersion" in payload and isinstance(payload.get("tasks"), list):
        return TriggerKind.S3_BATCH
    context = payload.get("requestContext")
    if isinstance(context, dict):
        if context.get("eventType") in ("CONNECT", "DISCONNECT", "MESSAGE"):
            return TriggerKind.WEBSOCKET
        if payload.get("version") == "2.0" and isinstance(context.get("http"), dict):
            return TriggerKind.APIGATEWAY_V2
        if "httpMethod" in payload:
            return TriggerKind.APIGATEWAY
    if "detail-type" in payload and "source" in payload:
        if payload["detail-type"] == "Scheduled Event" and payload["source"] == "aws.events":
            return TriggerKind.SCHEDULE
        return TriggerKind.EVENTBRIDGE
    return TriggerKind.DIRECT


def misfit(payload: Any, trigger: Trigger) -> str | None:
    """Why `payload` cannot be an event of `trigger` (None: it can)."""
    kind = event_kind(payload)
    wanted = trigger.kind
    fits = kind is wanted or (
        {kind, wanted} <= {TriggerKind.EVENTBRIDGE, TriggerKind.SCHEDULE}
        and not (wanted is TriggerKind.SCHEDULE and kind is TriggerKind.EVENTBRIDGE)
    )
    if not fits:
        return f"it is {_KIND_NAMES[kind]}, and the function's trigger is {wanted.value}"
    if wanted is TriggerKind.DIRECT and trigger.event_array:
        if not isinstance(payload, list):
            return "the handler iterates its payload, and this is not a JSON array"
        return None
    if wanted is TriggerKind.DIRECT:
        required = [k for k in trigger.event_keys if not k.endswith("?")]
        if required and not isinstance(payload, dict):
            return "the handler reads keys of its payload, and this is not a JSON object"
        missing = [k for k in required if k not in payload]
        if missing:
            return f"it lacks {', '.join(map(repr, missing))}, which the handler subscripts"
    return None


def read_samples(
    paths: Iterable[Path],
    trigger: Trigger,
    *,
    function: str = "",
    resources: Resources | None = None,
) -> tuple[SampleEvent, ...]:
    """The sample events under `paths` (files, or folders whose `*.json` files are read in
    name order) that fit `trigger`, inside its filters (`trigger.filters`; the S3 key
    filter of `resources`' trigger bucket): one outside them is repaired or skipped
    (`generators.aws.sample_filters.fit_sample`).  Each sample skipped or repaired is
    one warning, saying why."""
    samples: list[SampleEvent] = []
    taken: set[str] = set()
    who = f" for function {function}" if function else ""
    for sample in _files(paths):
        problem = misfit(sample.payload, trigger)
        if problem is not None:
            log.warning("warning [sample-event]: %s: skipped%s: %s", sample.path, who, problem)
            continue
        fit = fit_sample(sample.payload, trigger, resources or Resources())
        if fit.problem:
            action = "skipped" if fit.dropped else "repaired"
            log.warning(
                "warning [sample-event]: %s: %s%s: %s", sample.path, action, who, fit.problem
            )
        if fit.dropped:
            continue
        name = _unique(sample.path.stem, taken)
        text = json.dumps(fit.payload, ensure_ascii=False)
        samples.append(SampleEvent(name, text))
    return tuple(samples)


def with_samples(target: Target, paths: Sequence[Path], *, function: str = "") -> Target:
    """`target` with the fitting sample events under `paths` added (`--seed-corpus`)."""
    found = read_samples(paths, target.trigger, function=function, resources=target.resources)
    if not found:
        return target
    taken = {s.name for s in target.samples}
    added = tuple(replace(s, name=_unique(s.name, taken)) for s in found)
    return replace(target, samples=(*target.samples, *added))


def _unique(name: str, taken: set[str]) -> str:
    unique, n = name, 2
    while unique in taken:
        unique = f"{name}-{n}"
        n += 1
    taken.add(unique)
    return unique


def _files(paths: Iterable[Path]) -> Iterable[SampleFile]:
    for given in paths:
        path = Path(os.path.normpath(given))  # `../events` from a folder not made yet
        if path.is_dir():
            for file in sorted(path.glob("*.json")):
                sample = _read(file, explicit=False)
                if sample is not None:
                    yield sample
        elif path.is_file():
            sample = _read(path, explicit=True)
            if sample is not None:
                yield sample
        else:
            raise ConfigError(
                f"{path}: no such file or folder; expected a sample event (JSON) or a folder "
                f"of them."
            )


def _read(path: Path, *, explicit: bool) -> SampleFile | None:
    """The event in `path`; None (with a warning) for what is no sample event: too large,
    not JSON (an error instead when the file was named explicitly), a saved input."""
    problem = None
    payload: Any = None
    try:
        if path.stat().st_size > MAX_SAMPLE_BYTES:
            problem = f"larger than {MAX_SAMPLE_BYTES // 1024} KB; not a sample event"
        else:
            payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"unreadable: {exc}"
    except ValueError as exc:
        problem = f"not valid JSON: {exc}"
    if problem is not None:
        if explicit:
            raise ConfigError(f"{path}: {problem}; expected a sample event in JSON.")
        log.warning("warning [sample-event]: %s: skipped: %s", path, problem)
        return None
    if isinstance(payload, dict) and "lambdafuzz" in payload and "sequence" in payload:
        return None  # a saved input of an earlier campaign: the seed-corpus reader's
    return SampleFile(path, payload)
