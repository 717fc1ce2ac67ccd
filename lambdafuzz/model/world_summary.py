"""A human-readable summary of a generated world, for saved inputs and `repro`.

Object contents are summarised (key, size, format, content type, a preview of small text
contents) because pixel data and archives are unreadable as JSON; DynamoDB items and
queue messages are small and shown in full.  A worker summarises the world it generated
when the campaign keeps the input; `fuzzer.world_summary` regenerates one from a recording.
"""

from __future__ import annotations

from typing import Any

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
        **({"secrets": {x.name: x.value for x in world.secrets}} if world.secrets else {}),
        **({"parameters": {p.name: p.value for p in world.parameters}} if world.parameters else {}),
    }
