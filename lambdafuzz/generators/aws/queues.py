"""SQS queues and the messages waiting in them.

A message is a body (see `bodies.py`: a file, an S3 notification, an EventBridge event)
and sometimes string message attributes.  FIFO queues get a message group (a few groups,
so ordering within a group matters) and a deduplication id unique per message, so the
emulator never drops one as a duplicate; the Lambda record carries both in its
`attributes` (`events.render_sqs_record`).

With the world's names (`refs`, `world_refs`): a default JSON body's fields named as a
resource or an id now and then name the world's (`fill_json_text`), a message's
`messageId` is now and then an item key of the world (an idempotency table has seen it),
so are a FIFO message's group id and deduplication id (`world_refs.draw_fifo_id`: a
handler keeping per-group state in a table finds the group's item),
a message now and then repeats an earlier one's body (`batches.draw_repeat`), and a queue
whose `messages` range starts at 0 is empty `EMPTY_P` of the time.  Label: `sqs.message`.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Sequence
from typing import Final

from lambdafuzz import labels
from lambdafuzz.generators.aws.batches import draw_repeat
from lambdafuzz.generators.aws.bodies import draw_body
from lambdafuzz.generators.aws.filter_steering import PatternT, choose_pattern, pattern_part
from lambdafuzz.generators.aws.world_refs import (
    WorldRefs,
    draw_fifo_id,
    draw_record_id,
    fill_json_text,
)
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.files.alphabets import clean_xml_text
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.model.target import BodyModel, QueueSpec
from lambdafuzz.model.world import Bucket, Queue, QueueMessage

ATTRIBUTE_NAME_ALPHABET: Final = string.ascii_letters + string.digits + "_-."
ATTRIBUTE_VALUE_ALPHABET: Final = string.ascii_letters + string.digits + " -_.:/@"
#: Bodies of queues that do not trigger the handler (it reads them itself, if at all).
OTHER_QUEUE_BODY: Final = "json"
#: A queue whose `messages` range starts at 0 (and goes higher) is empty this often, on
#: top of the range's own share of 0.
EMPTY_P: Final = 0.1


@generator(labels.SQS_MESSAGE)
def draw_message(
    choices: Choices,
    *,
    body: str | None,
    buckets: Sequence[Bucket],
    fifo: bool,
    index: int,
    region: str,
    account: str,
    missing_p: float = 0.0,
    patterns: Sequence[PatternT] = (),
    model: BodyModel | None = None,
    refs: WorldRefs | None = None,
) -> QueueMessage:
    """One message; with the trigger's filter `patterns`, its body is drawn to pass one;
    with the handler's body `model`, the model decides it; else a JSON body's fields may
    name the world's resources and items (`refs`), and so may its messageId."""
    rule = pattern_part(choose_pattern(choices, patterns), "body")
    text = draw_body(
        choices,
        body,
        buckets,
        region=region,
        account=account,
        missing_p=missing_p,
        rule=rule,
        model=model,
    )
    message_id = None
    if refs is not None:
        if body in (None, OTHER_QUEUE_BODY) and model is None and rule is None:
            text = fill_json_text(choices, text, refs)
        message_id = draw_record_id(choices, refs)
    attributes = draw_message_attributes(choices)
    if not fifo:
        return QueueMessage(text, attributes, message_id=message_id)
    group = f"group-{choices.draw_integer(0, 2, site='group')}"
    dedup = f"message-{index}"
    if refs is not None:  # state kept per group (or per message) in a table of the world
        group = draw_fifo_id(choices, refs, site="group-id") or group
        dedup = draw_fifo_id(choices, refs, site="dedup-id") or dedup
    return QueueMessage(
        text,
        attributes,
        group_id=group,
        deduplication_id=dedup,
        message_id=message_id,
    )


def unique_dedup(wanted: str | None, index: int, taken: set[str]) -> str | None:
    """`wanted`, or a fresh `message-<index>` when an earlier message of the queue has it
    (SQS would drop the later one as a duplicate)."""
    if wanted is None or wanted not in taken:
        return wanted
    fresh, n = f"message-{index}", 0
    while fresh in taken:
        n += 1
        fresh = f"message-{index}-{n}"
    return fresh


def draw_message_attributes(choices: Choices) -> tuple[tuple[str, str], ...]:
    """String attributes on one message in five; names avoid the reserved `AWS.`/`Amazon.`
    prefixes and never start or end with a dot."""
    if not choices.draw_boolean(0.2, site="attributes?"):
        return ()
    found: dict[str, str] = {}
    for _ in range(choices.draw_integer(1, 3, site="attribute-count")):
        raw = choices.draw_string(ATTRIBUTE_NAME_ALPHABET, 1, 16, site="attribute-name")
        name = "".join(ch for ch in raw if ch in ATTRIBUTE_NAME_ALPHABET).strip(".")
        name = name.replace("..", ".")[:256] or "attribute"
        if name.lower().startswith(("aws.", "amazon.")):
            name = "x-" + name
        value = choices.draw_string(ATTRIBUTE_VALUE_ALPHABET, 1, 24, site="attribute-value")
        found[name] = clean_xml_text(value[:1024]) or "-"  # SQS: XML characters only
    return tuple(found.items())


@generator(None)
def draw_queue(
    choices: Choices,
    spec: QueueSpec,
    *,
    body: str | None,
    buckets: Sequence[Bucket],
    region: str,
    account: str,
    min_messages: int = 0,
    max_messages: int = 0,
    missing_p: float = 0.0,
    patterns: Sequence[PatternT] = (),
    model: BodyModel | None = None,
    refs: WorldRefs | None = None,
) -> Queue:
    """The queue's messages; the bounds widen to `min_messages`/`max_messages` (the records
    an SQS event needs) when the config's `messages` range is narrower.  `missing_p`: the
    chance of an S3 notification body naming a missing object; `patterns`: the trigger's
    filters, which the bodies are drawn to pass; `model`: the bodies' model (the trigger's
    Powertools body model, for the queue that triggers the handler); `refs`: the world's
    names (see the module's docstring)."""
    low = max(spec.messages_min, min_messages)
    high = max(spec.messages_max, max_messages, low)
    if choices.edge_values and low == 0 < high and choices.draw_boolean(EMPTY_P, site="empty?"):
        n = 0
    else:
        n = choices.draw_integer(low, high, site="messages")
    messages: list[QueueMessage] = []
    taken: set[str] = set()  # the deduplication ids so far
    for i in range(n):
        if i >= low and not fits(choices, 200):
            break
        again = draw_repeat(choices, len(messages))
        if again is not None:  # the same entity twice in one batch
            earlier = messages[again]
            dedup = unique_dedup(f"message-{i}", i, taken) if spec.fifo else None
            messages.append(dataclasses.replace(earlier, deduplication_id=dedup, message_id=None))
            taken.add(dedup or "")
            continue
        message = draw_message(
            choices,
            body=body,
            buckets=buckets,
            fifo=spec.fifo,
            index=i,
            region=region,
            account=account,
            missing_p=missing_p,
            patterns=patterns,
            model=model,
            refs=refs,
            site="message",
        )
        dedup = unique_dedup(message.deduplication_id, i, taken)
        if dedup != message.deduplication_id:
            message = dataclasses.replace(message, deduplication_id=dedup)
        taken.add(dedup or "")
        messages.append(message)
    return Queue(spec.name, tuple(messages), spec.fifo)
