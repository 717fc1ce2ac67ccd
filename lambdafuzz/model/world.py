"""The generated AWS state one test runs against: buckets, tables, queues, topics, secrets
and parameters.

A `World` is plain data (no boto3, no moto): generators build it from a choice sequence,
a backend loads it into an emulator, reports summarise it.  DynamoDB items are kept in
DynamoDB JSON (`{"id": {"S": "a"}}`) because that is what every loader, stream event and
report needs; `python_item` converts for humans.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

#: What Secrets Manager's ARN suffixes are made of (moto: letters only).
_ARN_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
AttributeValueT = dict[str, Any]  # DynamoDB JSON for one attribute: {"S": "x"}, {"N": "1"}, ...
ItemT = dict[str, AttributeValueT]


@dataclass(slots=True, frozen=True)
class S3Object:
    key: str
    data: bytes
    content_type: str
    format: str  # the generator format that made it ("csv", "jpeg", ...), "erroneous:..." if broken
    metadata: tuple[tuple[str, str], ...] = ()

    @property
    def etag(self) -> str:
        """S3's ETag for a single-part upload: the hex MD5 of the content."""
        return hashlib.md5(self.data).hexdigest()  # noqa: S324 - S3 defines it so


@dataclass(slots=True, frozen=True)
class Bucket:
    name: str
    objects: tuple[S3Object, ...] = ()
    # False: declared, but not there yet (the code creates it when missing): no loader
    # creates it (`Resources.created_by_code`); the same on tables, queues and topics
    exists: bool = True

    def get(self, key: str) -> S3Object | None:
        return next((o for o in self.objects if o.key == key), None)


@dataclass(slots=True, frozen=True)
class KeySchema:
    hash_name: str
    hash_type: str  # S | N | B
    range_name: str | None = None
    range_type: str | None = None


#: What a secondary index holds besides its keys and the table's.
PROJECTION_TYPES = ("ALL", "KEYS_ONLY", "INCLUDE")


@dataclass(slots=True, frozen=True)
class SecondaryIndex:
    """A global or local secondary index of a table: its key and what it projects."""

    name: str
    key_schema: KeySchema
    local: bool = False  # a local index: the table's hash key with another range key
    projection: str = "ALL"  # one of PROJECTION_TYPES
    non_key_attributes: tuple[str, ...] = ()  # INCLUDE: the attributes it holds besides keys

    def key_attributes(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of its key attributes."""
        schema = self.key_schema
        found = [(schema.hash_name, schema.hash_type)]
        if schema.range_name is not None:
            found.append((schema.range_name, schema.range_type or "S"))
        return tuple(found)


@dataclass(slots=True, frozen=True)
class Table:
    name: str
    key_schema: KeySchema
    items: tuple[ItemT, ...] = ()
    stream: str | None = None  # StreamViewType when the table has a stream
    indexes: tuple[SecondaryIndex, ...] = ()  # global and local secondary indexes
    # non-key attributes every item and stream image holds, (name, type) (`TableSpec`)
    attributes: tuple[tuple[str, str], ...] = ()
    exists: bool = True  # see `Bucket.exists`

    def index_key_types(self) -> dict[str, str]:
        """Attribute name -> type of every index key attribute that is not a table key:
        an item holding one must give it that type (DynamoDB refuses it otherwise)."""
        schema = self.key_schema
        own = {schema.hash_name, schema.range_name}
        return {
            name: kind
            for index in self.indexes
            for name, kind in index.key_attributes()
            if name not in own
        }


@dataclass(slots=True, frozen=True)
class QueueMessage:
    body: str
    attributes: tuple[tuple[str, str], ...] = ()  # string message attributes
    group_id: str | None = None  # MessageGroupId: set exactly for FIFO queues
    deduplication_id: str | None = None  # MessageDeduplicationId: set exactly for FIFO queues
    # the messageId its SQS record carries in place of the emulator's (an item key of the
    # world: `world_refs.draw_record_id`); None: the emulator's
    message_id: str | None = None


@dataclass(slots=True, frozen=True)
class Queue:
    name: str
    messages: tuple[QueueMessage, ...] = ()
    fifo: bool = False
    exists: bool = True  # see `Bucket.exists`


@dataclass(slots=True, frozen=True)
class Topic:
    name: str
    exists: bool = True  # see `Bucket.exists`


@dataclass(slots=True, frozen=True)
class Secret:
    """A Secrets Manager secret: its name and its `SecretString`."""

    name: str
    value: str


@dataclass(slots=True, frozen=True)
class Parameter:
    """An SSM Parameter Store parameter."""

    name: str
    value: str
    type: str = "String"  # String | StringList | SecureString


@dataclass(slots=True, frozen=True)
class World:
    """Everything the emulator must hold before the handler runs."""

    buckets: tuple[Bucket, ...] = ()
    tables: tuple[Table, ...] = ()
    queues: tuple[Queue, ...] = ()
    topics: tuple[Topic, ...] = ()
    region: str = "us-east-1"
    account_id: str = "123456789012"
    secrets: tuple[Secret, ...] = ()
    parameters: tuple[Parameter, ...] = ()

    def bucket(self, name: str) -> Bucket:
        return next(b for b in self.buckets if b.name == name)

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def queue(self, name: str) -> Queue:
        return next(q for q in self.queues if q.name == name)

    # --- resource references, as `${queues.jobs.url}` in the config's env ------------
    def queue_url(self, name: str, endpoint: str = "https://sqs.us-east-1.amazonaws.com") -> str:
        return f"{endpoint.rstrip('/')}/{self.account_id}/{name}"

    def secret_arn(self, name: str) -> str:
        """A secret's ARN: Secrets Manager appends six random letters to the name; here
        they are the same for a name in every test (a hash of it), so an ARN the handler's
        environment holds (`!Ref` of a secret) names the secret of every world."""
        digest = hashlib.sha256(name.encode()).digest()
        suffix = "".join(_ARN_LETTERS[b % len(_ARN_LETTERS)] for b in digest[:6])
        return self.arn("secretsmanager", f"secret:{name}-{suffix}")

    def arn(self, service: str, name: str) -> str:
        if service == "s3":
            return f"arn:aws:s3:::{name}"
        if service == "dynamodb":
            return f"arn:aws:dynamodb:{self.region}:{self.account_id}:table/{name}"
        return f"arn:aws:{service}:{self.region}:{self.account_id}:{name}"


@dataclass(slots=True, frozen=True)
class DeliveredMessage:
    """A message as the emulator holds it after loading: what an SQS event must carry."""

    message_id: str
    receipt_handle: str
    md5_of_body: str
    body: str
    sent_timestamp_ms: int
    attributes: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True, frozen=True)
class LoadedWorld:
    """What a backend reports after `load(world)`: facts only the emulator can know."""

    world: World
    messages: Mapping[str, tuple[DeliveredMessage, ...]] = field(default_factory=dict)
    queue_urls: Mapping[str, str] = field(default_factory=dict)
    stream_arns: Mapping[str, str] = field(default_factory=dict)
    topic_arns: Mapping[str, str] = field(default_factory=dict)
    object_last_modified: Mapping[tuple[str, str], str] = field(default_factory=dict)
    secret_arns: Mapping[str, str] = field(default_factory=dict)

    # --- facts with a fallback, so events and env render the same with every backend ------
    def queue_url(self, name: str) -> str:
        return self.queue_urls.get(name) or self.world.queue_url(name)

    def topic_arn(self, name: str) -> str:
        return self.topic_arns.get(name) or self.world.arn("sns", name)

    def secret_arn(self, name: str) -> str:
        """The emulator's secret ARN, else the world's (`World.secret_arn`)."""
        return self.secret_arns.get(name) or self.world.secret_arn(name)

    def stream_arn(self, name: str) -> str:
        """The emulator's stream ARN, else one of the documented shape with a fixed label."""
        found = self.stream_arns.get(name)
        return found or f"{self.world.arn('dynamodb', name)}/stream/{SYNTHETIC_STREAM_LABEL}"


#: The stream label used when no backend supplied one (a timestamp, as DynamoDB uses).
SYNTHETIC_STREAM_LABEL = "2026-01-01T00:00:00.000"


def python_item(item: ItemT) -> dict[str, Any]:
    """DynamoDB JSON -> plain Python (Decimal for numbers, bytes for binary)."""
    return {name: _python_value(value) for name, value in item.items()}


def _python_value(av: AttributeValueT) -> Any:
    ((tag, value),) = av.items()
    match tag:
        case "S" | "BOOL":
            return value
        case "N":
            return Decimal(value)
        case "B":
            return base64.b64decode(value) if isinstance(value, str) else bytes(value)
        case "NULL":
            return None
        case "SS":
            return set(value)
        case "NS":
            return {Decimal(v) for v in value}
        case "BS":
            return {base64.b64decode(v) if isinstance(v, str) else bytes(v) for v in value}
        case "L":
            return [_python_value(v) for v in value]
        case "M":
            return {k: _python_value(v) for k, v in value.items()}
    raise ValueError(f"not a DynamoDB attribute value: {av!r}")
