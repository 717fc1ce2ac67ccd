"""At-least-once delivery: which tests deliver their event twice, and what a delivery changed.

AWS delivers S3, SNS, SQS, EventBridge (rules and schedules), DynamoDB-stream and Kinesis
events *at least once*: a retry, a duplicate notification or a message seen again hands the
handler the same event, with the same ids, a second time.  A share of a campaign's tests
(`deliveries_for`) does the same: the worker calls the handler again with the same event
and context in the world the first call left (`harness.redelivery`), records what each
delivery changed (`Delivery`), and `model.redelivery_judgement` decides whether the second
changed the world in a way a retry must not.

`direct` invocations are not redelivered: an asynchronous invoke is retried by Lambda, but
nothing in a template or lambdafuzz.yaml says that a function is invoked asynchronously
(`EventInvokeConfig` is not modelled), and a synchronous caller sees the error itself.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.model.target import Trigger, TriggerKind

#: The triggers AWS may deliver more than once.
REDELIVERED_KINDS = frozenset(
    {
        TriggerKind.S3,
        TriggerKind.SNS,
        TriggerKind.SQS,
        TriggerKind.EVENTBRIDGE,
        TriggerKind.SCHEDULE,
        TriggerKind.DYNAMODB_STREAM,
        TriggerKind.KINESIS,
    }
)
#: The share of a campaign's tests delivered twice (`CampaignOptions.redelivery_share`): a
#: test delivered twice costs about two, so 1 in 8 keeps a campaign's cost ~12% higher.
REDELIVERY_SHARE = 1 / 8


def redelivers(trigger: Trigger) -> bool:
    """Whether AWS may deliver the trigger's events more than once: the event sources of
    `REDELIVERED_KINDS`, and a direct trigger invoked asynchronously (Lambda's retries)."""
    kind = trigger.kind
    return kind in REDELIVERED_KINDS or (kind is TriggerKind.DIRECT and trigger.asynchronous)


def deliveries_for(seed: int, share: float) -> int:
    """How many times the test of `seed` delivers its event: 2 for about `share` of seeds,
    else 1.  Decided by the seed alone (hashed: the seeds of saved inputs and samples are
    small numbers as often as random ones), so a campaign draws nothing more from its RNG,
    stays reproducible, and every re-run of a test delivers as often as the first run."""
    if share <= 0.0:
        return 1
    if share >= 1.0:
        return 2
    data = seed.to_bytes(16, "little", signed=True)
    mixed = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")
    return 2 if mixed < share * 2.0**64 else 1


class ResourceKind(enum.StrEnum):
    """What a delivery changes; the value names it in `idempotency: {accept: [...]}`
    (`tables.audit_log`), as `${tables.orders.arn}` names a resource in lambdafuzz.yaml."""

    TABLE = "tables"  # a DynamoDB item, by table and key
    BUCKET = "buckets"  # an S3 object, by bucket and key
    QUEUE = "queues"  # an SQS message, by queue name
    TOPIC = "topics"  # an SNS notification, by topic name
    EVENT_BUS = "event_buses"  # an EventBridge event, by bus name
    STATE_MACHINE = "state_machines"  # a Step Functions execution, by state machine name
    FUNCTION = "functions"  # an asynchronous Lambda invoke, by function name
    STREAM = "streams"  # a Kinesis record, by stream name
    EMAIL = "emails"  # an SES email, by its sender address

    @property
    def noun(self) -> str:
        """The resource as a sentence names it: `table`, `event bus`."""
        return _NOUNS[self]


_NOUNS = {
    ResourceKind.TABLE: "table",
    ResourceKind.BUCKET: "bucket",
    ResourceKind.QUEUE: "queue",
    ResourceKind.TOPIC: "topic",
    ResourceKind.EVENT_BUS: "event bus",
    ResourceKind.STATE_MACHINE: "state machine",
    ResourceKind.FUNCTION: "function",
    ResourceKind.STREAM: "stream",
    ResourceKind.EMAIL: "sender",
}

#: An item's key attributes by name, sorted (values as DynamoDB gives them back: str,
#: Decimal, bytes); an object's is `(("key", object_key),)`.
KeyT = tuple[tuple[str, Any], ...]
#: What a write touched: the kind, the resource's name and the key.
PlaceT = tuple[ResourceKind, str, KeyT]


@dataclass(slots=True, frozen=True)
class Written:
    """One successful write call of a delivery (a table's item or a bucket's object)."""

    kind: ResourceKind  # TABLE or BUCKET
    resource: str
    key: KeyT
    operation: str  # `PutItem`, `CopyObject`, ...
    location: str = ""  # the application line that made the call: `orders/intake.py:31`
    stack: str = ""  # the stack at that call (the second delivery's calls only)

    @property
    def place(self) -> PlaceT:
        return (self.kind, self.resource, self.key)


@dataclass(slots=True, frozen=True)
class Sent:
    """One message, notification, event, execution, asynchronous invoke, record or email
    a delivery sent (one entry of a batch call each)."""

    kind: ResourceKind
    resource: str
    operation: str
    digest: str  # of its body (the message, detail, input, payload or data)
    # what makes the service drop a repeat: a FIFO queue's or topic's deduplication id (the
    # body's SHA-256 under content-based deduplication), a Step Functions execution name;
    # "": nothing does
    dedup: str = ""
    shown: str = ""  # the body's start, for the evidence
    location: str = ""
    stack: str = ""


@dataclass(slots=True, frozen=True)
class ObjectState:
    """An S3 object as a read gives it back: its body (up to `harness.redelivery`'s limit;
    None past it) and digest."""

    digest: str
    size: int
    body: bytes | None = None
    content_type: str = ""


@dataclass(slots=True, frozen=True)
class Delivery:
    """What one delivery changed: its successful writes and sends, in call order, and the
    state of every place its writes touched, read back right after it (an item as a dict
    of plain values, an `ObjectState`, None: absent), at wall-clock time `at`."""

    written: tuple[Written, ...] = ()
    sent: tuple[Sent, ...] = ()
    states: Mapping[PlaceT, Any] = field(default_factory=dict, compare=False)
    at: float = 0.0  # time.time() when it was read back
