"""`lambdafuzz sample world CONFIG`: write generated worlds and their events as JSON, so a
user can see what a campaign will feed the handler before running one.

Object contents are summarised (key, size, format, content type, ETag, metadata, a short
preview of text); items and messages are written in full; the event is rendered as the
handler would receive it.  No emulator runs here, so the facts only a backend knows (SQS
message ids, receipt handles, send times) are synthetic, derived deterministically from
the message; every file says so in its `note`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from lambdafuzz.cli.options import (
    config_argument,
    function_option,
    sample_options,
    sample_seed,
    target_from_options,
)
from lambdafuzz.generators.draw_policy import DrawPolicy

PREVIEW_CHARS = 200
SYNTHETIC_NOTE = (
    "Generated without an emulator: SQS messageId, receiptHandle and send times in the "
    "event are synthetic (derived from each message); a fuzzing run uses the ones the "
    "backend assigns. ARNs and queue URLs use the default account and region."
)
_TEXT_FORMATS = frozenset({"csv", "json", "xml", "text"})
EPILOG = """\b
Examples:
  lambdafuzz sample world benchmarks/lambdas/gradebook --count 5 --out samples/
  lambdafuzz sample world app/lambdafuzz.yaml --count 20 --seed 7 --out /tmp/worlds
"""


@click.command("world", epilog=EPILOG)
@config_argument
@function_option
@sample_options(
    "world", default_count=5, out_help="Directory for world-NNNN.json files (created if missing)."
)
def world(
    config: Path,
    function_name: str | None,
    count: int,
    seed: int,
    out: Path,
    edge: bool,
) -> None:
    """Write COUNT generated worlds of CONFIG (default: ./lambdafuzz.yaml; a SAM template
    works too), each with the event its trigger would send, as JSON."""
    from lambdafuzz.atomic_files import write_bytes_atomic
    from lambdafuzz.generators.aws.delivery import FILTERED_OUT, delivered_event
    from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.generators.core import Choices, StopTest

    target = target_from_options(config, function_name)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.FileError(str(out), hint=str(exc)) from exc
    width = max(4, len(str(count - 1)))
    invalid = 0
    policy = DrawPolicy(dictionary=target.dictionary, edge_values=edge)
    for i in range(count):
        world_seed = sample_seed(seed, i)
        choices = Choices(seed=world_seed, policy=policy)
        document: dict[str, Any] = {"note": SYNTHETIC_NOTE, "seed": world_seed, "index": i}
        if edge:
            document["edge_values"] = True
        try:
            generated = generate_input(choices, target)
        except StopTest as exc:  # the input ran out of draws: a fuzzer counts it invalid
            invalid += 1
            document["invalid"] = str(exc)
        else:
            loaded = synthetic_loaded_world(generated.world)
            document["choices"] = choices.count
            document["trigger"] = target.trigger.kind.value
            document["world"] = summarize(generated.world)
            event = generated.render_event(loaded)
            delivered = delivered_event(event, target.trigger)
            document["event"] = event if delivered is None else delivered
            if delivered is None:
                document["invalid"] = FILTERED_OUT
        name = f"world-{i:0{width}d}.json"
        text = json.dumps(document, indent=2, ensure_ascii=False, default=_json_default)
        write_bytes_atomic(out / name, (text + "\n").encode())
    suffix = f" ({invalid} invalid: out of draws)" if invalid else ""
    click.echo(f"wrote {count} worlds with {target.trigger.kind.value} events to {out}{suffix}")
    click.echo(f"note: {SYNTHETIC_NOTE}")


def summarize(world: Any) -> dict[str, Any]:
    """The world as JSON: objects summarised, items and messages in full."""
    return {
        "region": world.region,
        "account_id": world.account_id,
        "buckets": [
            {"name": b.name, "objects": [_object(o) for o in b.objects]} for b in world.buckets
        ],
        "tables": [
            {
                "name": t.name,
                "key_schema": {
                    "hash": [t.key_schema.hash_name, t.key_schema.hash_type],
                    "range": [t.key_schema.range_name, t.key_schema.range_type]
                    if t.key_schema.range_name
                    else None,
                },
                "stream": t.stream,
                "items": list(t.items),
            }
            for t in world.tables
        ],
        "queues": [
            {
                "name": q.name,
                "fifo": q.fifo,
                "messages": [
                    {
                        "body": m.body,
                        "attributes": dict(m.attributes),
                        **({"group_id": m.group_id} if m.group_id else {}),
                        **({"deduplication_id": m.deduplication_id} if m.deduplication_id else {}),
                    }
                    for m in q.messages
                ],
            }
            for q in world.queues
        ],
        "topics": [t.name for t in world.topics],
        **({"secrets": {x.name: x.value for x in world.secrets}} if world.secrets else {}),
        **({"parameters": {p.name: p.value for p in world.parameters}} if world.parameters else {}),
    }


def _object(obj: Any) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "key": obj.key,
        "size": len(obj.data),
        "format": obj.format,
        "content_type": obj.content_type,
        "etag": obj.etag,
    }
    if obj.metadata:
        summary["metadata"] = dict(obj.metadata)
    preview = _preview(obj.format, obj.data)
    if preview is not None:
        summary["preview"] = preview
    return summary


def _preview(fmt: str, data: bytes) -> str | None:
    """The first characters of a text file (None for binary content)."""
    if fmt.rsplit(":", 1)[-1] not in _TEXT_FORMATS:
        return None
    text = data[: PREVIEW_CHARS * 4].decode("utf-8", errors="replace")
    return text[:PREVIEW_CHARS] + ("..." if len(text) > PREVIEW_CHARS else "")


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
