"""A human-readable summary of a generated world, for saved inputs and `repro`.

Object contents are summarised (key, size, format, content type, a preview of small text
contents) because pixel data and archives are unreadable as JSON; DynamoDB items and
queue messages are small and shown in full.
"""

from __future__ import annotations

from typing import Any

from lambdafuzz.generators.core import Choices, ChoiceSequence, ReplayMode
from lambdafuzz.model.target import Target
from lambdafuzz.model.world import S3Object, World

PREVIEW_BYTES = 200


def preview(obj: S3Object) -> str | None:
    """The start of an object's content if it is text, else None."""
    head = obj.data[:PREVIEW_BYTES]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(ch < " " and ch not in "\r\n\t" for ch in text):
        return None
    return text + ("..." if len(obj.data) > PREVIEW_BYTES else "")


def summarize_world(world: World) -> dict[str, Any]:
    return {
        "buckets": [
            {
                "name": bucket.name,
                "objects": [
                    {
                        "key": o.key,
                        "size": len(o.data),
                        "format": o.format,
                        "content_type": o.content_type,
                        **({"metadata": dict(o.metadata)} if o.metadata else {}),
                        **({"preview": p} if (p := preview(o)) is not None else {}),
                    }
                    for o in bucket.objects
                ],
            }
            for bucket in world.buckets
        ],
        "tables": [{"name": t.name, "items": list(t.items)} for t in world.tables],
        "queues": [
            {"name": q.name, "messages": [m.body for m in q.messages]} for q in world.queues
        ],
        "topics": [t.name for t in world.topics],
    }


def summarize_recording(
    recording: ChoiceSequence,
    target: Target,
    dictionary: tuple[str, ...] = (),
    *,
    numbers: tuple[int | float, ...] = (),
    fields: tuple[str, ...] = (),
    edge_values: bool = False,
) -> dict[str, Any] | None:
    """Regenerate the world a recording describes (generation is pure) and summarise it.
    `dictionary`, `numbers`, `fields` and `edge_values` are the campaign's: a dictionary
    draw records an index into it, and the others decide which draws a generator makes."""
    from lambdafuzz.generators.aws.world_generator import generate_input

    choices = Choices(
        recording.values(),
        seed=0,
        mode=ReplayMode.LINEAR,
        dictionary=dictionary,
        numbers=numbers,
        fields=fields,
        edge_values=edge_values,
    )
    try:
        generated = generate_input(choices, target)
    except Exception as exc:  # noqa: BLE001 - a summary must never break saving
        return {"error": f"could not regenerate the world: {type(exc).__name__}: {exc}"}
    return summarize_world(generated.world)
