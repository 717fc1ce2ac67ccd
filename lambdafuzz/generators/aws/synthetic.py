"""A `LoadedWorld` made up without an emulator, for `lambdafuzz sample world` and tests.

Message ids, receipt handles and send times are derived deterministically from the queue,
position and body, in the shapes SQS uses; MD5s are real.  A fuzzing run never uses this:
there the backend reports what the emulator really assigned, and a handler deleting a
message by a made-up receipt handle would fail.
"""

from __future__ import annotations

import hashlib

from lambdafuzz.generators.aws import ids
from lambdafuzz.model.world import DeliveredMessage, LoadedWorld, Queue, World


def synthetic_loaded_world(world: World) -> LoadedWorld:
    """Backend facts for `world` as an emulator might assign them (deterministic)."""
    return LoadedWorld(
        world=world,
        messages={queue.name: synthetic_messages(queue) for queue in world.queues},
        queue_urls={queue.name: world.queue_url(queue.name) for queue in world.queues},
    )


def synthetic_messages(queue: Queue) -> tuple[DeliveredMessage, ...]:
    delivered = []
    for index, message in enumerate(queue.messages):
        seed = hashlib.sha256(f"{queue.name}\0{index}\0{message.body}".encode()).digest()[:8]
        delivered.append(
            DeliveredMessage(
                message_id=ids.uuid(seed, "message"),
                receipt_handle="AQEB" + ids.b64_id(seed, "receipt", 120),
                md5_of_body=md5_of_body(message.body),
                body=message.body,
                sent_timestamp_ms=ids.EPOCH_MS + 1000 * index,
                attributes=message.attributes,
            )
        )
    return tuple(delivered)


def md5_of_body(body: str) -> str:
    """SQS's MD5OfBody: the hex MD5 of the body's UTF-8 bytes."""
    return hashlib.md5(body.encode()).hexdigest()  # noqa: S324 - SQS defines it so
