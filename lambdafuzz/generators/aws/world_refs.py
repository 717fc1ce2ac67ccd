"""What the world holds that its event may name: resources, objects and item keys.

The world is drawn before its event, so the event can name what exists.  Three kinds of
event string reuse it here, each at a modest rate so that ordinary inputs stay the rule:

* a field whose *name* says what it holds (`input_bucket`, `s3Key`, `table_name`,
  `queueUrl`, `topic_arn`) takes the name of one of the world's resources (its ARN or URL
  where the name says so) or an existing object's key: a direct-invoke payload whose
  bucket is a random string stops at `NoSuchBucket` before any of the handler's code runs.
  One object per document: its `bucket` and `key` fields name the same object;
* a field named as an id (`order_id`, `customerId`) takes a string key value of the
  world's items, or what follows the prefix the code puts before it (`ORDER#42` -> `42`,
  `world_generator.world_strings`), so "already exists" and "update" paths run; any
  other scalar field now and then takes any string of the world;
* a record's own id (an SQS `messageId`, an SNS `MessageId`, a stream `eventID`, an
  EventBridge `id`, an API request id) is now and then an item key of the world: the id
  an idempotency check looks up has then been processed before; so is a FIFO message's
  group and deduplication id (`draw_fifo_id`: per-group state keyed by the group id);
* a record about an API call of one service (CloudTrail's) names that service's
  resource in plain `name` / `arn` fields (`fill_names(service=...)`): a secret
  of the world for Secrets Manager's `name`, only sometimes, as the resource a call
  created may be gone by the time its record arrives.

Only what a rule of names says: nothing here knows a handler.  Like every draw of the
code's harvest, only with edge values on (`frontier`): the paper's strategies generate
what they did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.generators.core import Choices
from lambdafuzz.model.world import Bucket, World

#: A record's own id is an item key of the world this often (when the world has any).
RECORD_ID_P: Final = 0.15
#: A field whose name says it holds a resource or an object key takes a world one this often.
NAMED_P: Final = 0.6
#: A field named as an id takes an item key (or its tail) of the world this often.
ID_P: Final = 0.3
#: Such an id is what follows a prefix the code puts before it this often, when any item
#: key starts with one (`f"ORDER#{order_id}"`: the event carries `42` of `ORDER#42`).
TAIL_P: Final = 0.7
#: Any other scalar field takes a string of the world this often.
LOCAL_P: Final = 0.05
#: Fields looked at per document, and how deep (a payload is a few dozen fields).
MAX_FIELDS: Final = 64
MAX_DEPTH: Final = 3
#: Objects composed into table keys (`f"{bucket}/{key}"`, `s3://...`) at most.
MAX_COMPOSED_OBJECTS: Final = 32
#: A name's words: `inputBucket` -> input, bucket; `S3_KEY` -> s, 3, key.
_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_KEY_WORDS: Final = frozenset({"key", "object", "file", "filename", "path"})
_URI_WORDS: Final = frozenset({"uri", "url", "location"})
#: Words that make a field name a reference to a resource (`secretId`, `name`, `arn`).
_REF_WORDS: Final = frozenset({"name", "id", "arn"})
#: The resource kind a service's API calls are about (CloudTrail's `eventSource` prefix).
SERVICE_KINDS: Final = {
    "s3": "bucket",
    "dynamodb": "table",
    "sqs": "queue",
    "sns": "topic",
    "secretsmanager": "secret",
}
#: What SQS accepts as a MessageGroupId / MessageDeduplicationId: 1 to 128 printable ASCII
#: characters other than the space.
_FIFO_ID: Final = re.compile(r"[!-~]{1,128}")


@dataclass(slots=True, frozen=True)
class WorldRefs:
    """The world's names an event may reuse, in the world's order."""

    region: str = "us-east-1"
    account: str = "123456789012"
    buckets: tuple[str, ...] = ()
    objects: tuple[tuple[str, str], ...] = ()  # (bucket, key) of every object
    tables: tuple[str, ...] = ()
    queues: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    item_ids: tuple[str, ...] = ()  # string key values of the items, and their tails
    # what follows a prefix the code looks items up by (`ORDER#42` -> `42`): the ids an
    # event carries for the code to prefix
    key_tails: tuple[str, ...] = ()
    local: tuple[str, ...] = ()  # every string of the world (`world_strings`)


def world_refs(
    world: World,
    local: Sequence[str] = (),
    item_ids: Sequence[str] = (),
    key_tails: Sequence[str] = (),
) -> WorldRefs:
    """The refs of `world` (absent resources left out); `local`: its strings, `item_ids`:
    its items' string key values and their tails, `key_tails`: the tails alone."""
    return WorldRefs(
        region=world.region,
        account=world.account_id,
        buckets=tuple(b.name for b in world.buckets if b.exists),
        objects=tuple((b.name, o.key) for b in world.buckets if b.exists for o in b.objects),
        tables=tuple(t.name for t in world.tables if t.exists),
        queues=tuple(q.name for q in world.queues if q.exists),
        topics=tuple(t.name for t in world.topics if t.exists),
        secrets=tuple(s.name for s in world.secrets),
        item_ids=tuple(item_ids),
        key_tails=tuple(key_tails),
        local=tuple(local),
    )


def composed_names(buckets: Sequence[Bucket]) -> tuple[str, ...]:
    """`bucket/key` and `s3://bucket/key` of the first objects: what a table keyed by the
    object a notification names holds (`f"{bucket}/{key}"`)."""
    found: dict[str, None] = {}
    objects = ((b.name, o.key) for b in buckets for o in b.objects)
    for _, (bucket, key) in zip(range(MAX_COMPOSED_OBJECTS), objects, strict=False):
        found[f"{bucket}/{key}"] = None
        found[f"s3://{bucket}/{key}"] = None
    return tuple(found)


def draw_record_id(choices: Choices, refs: WorldRefs, *, site: str = "world-id") -> str | None:
    """At `RECORD_ID_P`, an item key of the world for a record's own id; None otherwise
    (nothing drawn when the world's items have no string key)."""
    if not choices.edge_values or not refs.item_ids:
        return None
    if not choices.draw_boolean(RECORD_ID_P, site=f"{site}?"):
        return None
    return choices.draw_choice(refs.item_ids, site=site)


def draw_fifo_id(choices: Choices, refs: WorldRefs, *, site: str) -> str | None:
    """At `RECORD_ID_P`, an item key of the world SQS accepts as a FIFO message's group
    or deduplication id; None otherwise (nothing drawn when no item key is one)."""
    if not choices.edge_values:
        return None
    usable = tuple(i for i in refs.item_ids if _FIFO_ID.fullmatch(i))
    if not usable or not choices.draw_boolean(RECORD_ID_P, site=f"{site}?"):
        return None
    return choices.draw_choice(usable, site=site)


def name_words(name: str) -> frozenset[str]:
    """The lower-case words of a field's name (camelCase, snake_case, kebab-case)."""
    return frozenset(w.lower() for w in _WORD.findall(name))


def field_kind(name: str, service: str | None = None) -> str | None:
    """What a field's name says it holds: bucket, table, queue, topic, secret, s3uri, key
    or id; None for any other name.  In a record of a call to `service` (`s3`,
    `secretsmanager`), a plain `name` / `arn` (or `resourceArn`, `resourceId`) is that
    service's resource."""
    words = name_words(name)
    lowered = name.lower()
    if "s3" in lowered and words & _URI_WORDS:
        return "s3uri"
    for kind in ("bucket", "table", "queue", "topic"):
        if kind in words:
            return kind
    if "secret" in words and words & _REF_WORDS:
        return "secret"
    own = SERVICE_KINDS.get(service or "")
    plain = words <= _REF_WORDS | {"resource"} and bool(words & {"name", "arn", "resource"})
    if own is not None and plain:  # (a bare `id` is rarely the resource itself)
        return own
    if words & _KEY_WORDS:
        return "key"
    if "id" in words or "ids" in words:
        return "id"
    return None


def fill_names(
    choices: Choices, document: Any, refs: WorldRefs, *, service: str | None = None
) -> Any:
    """`document` with some of its scalar fields (by their names, see the module's
    docstring) replaced by names of the world; a non-object is returned as it is.
    `service`: the document is about a call to it (`field_kind`)."""
    if not choices.edge_values or not isinstance(document, dict) or not _has_any(refs):
        return document
    return _Filler(choices, refs, service).fill(document, 0)


def fill_pairs(
    choices: Choices, pairs: Sequence[tuple[str, str]], refs: WorldRefs
) -> tuple[tuple[str, str], ...]:
    """(name, value) pairs (query parameters, message attributes) filled as fields are."""
    if not choices.edge_values or not pairs or not _has_any(refs):
        return tuple(pairs)
    filler = _Filler(choices, refs)
    found = []
    for name, value in pairs:
        new = filler.value(name, value)
        found.append((name, new if isinstance(new, str) else value))
    return tuple(found)


def _has_any(refs: WorldRefs) -> bool:
    return bool(
        refs.buckets or refs.tables or refs.queues or refs.topics or refs.secrets or refs.local
    )


class _Filler:
    """One document's filling: the object its bucket and key fields name is drawn once."""

    def __init__(self, choices: Choices, refs: WorldRefs, service: str | None = None) -> None:
        self.choices = choices
        self.refs = refs
        self.service = service
        self.seen = 0
        self._object: tuple[str, str] | None = None

    def fill(self, document: dict[str, Any], depth: int) -> dict[str, Any]:
        result = dict(document)
        for name, value in document.items():
            if self.seen >= MAX_FIELDS:
                break
            if isinstance(value, dict):
                if depth < MAX_DEPTH:
                    result[name] = self.fill(value, depth + 1)
            elif isinstance(value, list):
                if depth < MAX_DEPTH:
                    result[name] = [
                        self.fill(v, depth + 1) if isinstance(v, dict) else v for v in value
                    ]
            else:
                result[name] = self.value(str(name), value)
        return result

    def value(self, name: str, value: Any) -> Any:
        """The field's value, or a name of the world in its place."""
        self.seen += 1
        choices = self.choices
        kind = field_kind(name, self.service)
        with choices.keyed(f"fill:{name}"):
            if kind == "id" and self.refs.item_ids:
                if choices.draw_boolean(ID_P, site="id?"):
                    tails = self.refs.key_tails
                    if tails and choices.draw_boolean(TAIL_P, site="tail?"):
                        return choices.draw_choice(tails, site="tail")
                    return choices.draw_choice(self.refs.item_ids, site="id")
            elif kind is not None and kind != "id":
                options = self._options(kind, name_words(name))
                if options and choices.draw_boolean(NAMED_P, site="named?"):
                    return choices.draw_choice(options, site="named")
            if self.refs.local and choices.draw_boolean(LOCAL_P, site="local?"):
                return choices.draw_choice(self.refs.local, site="local")
        return value

    def _focus(self) -> tuple[str, str] | None:
        """The one object this document's bucket and key fields name."""
        if self._object is None and self.refs.objects:
            self._object = self.choices.draw_choice(self.refs.objects, site="fill-object")
        return self._object

    def _options(self, kind: str, words: frozenset[str]) -> tuple[str, ...]:
        """The values a field of `kind` may take (its name's `words` choose the form)."""
        refs = self.refs
        if kind in ("bucket", "key", "s3uri"):
            focus = self._focus()
            if kind == "key":
                return (focus[1],) if focus else ()
            if kind == "s3uri":
                return (f"s3://{focus[0]}/{focus[1]}",) if focus else ()
            names = (focus[0],) if focus else refs.buckets
            return tuple(f"arn:aws:s3:::{n}" for n in names) if "arn" in words else names
        arn = f"arn:aws:{{}}:{refs.region}:{refs.account}:{{}}"
        if kind == "secret":  # (a secret's ARN ends in a suffix only Secrets Manager knows)
            return () if "arn" in words else refs.secrets
        if kind == "table":
            if "arn" in words:
                return tuple(arn.format("dynamodb", f"table/{n}") for n in refs.tables)
            return refs.tables
        if kind == "queue":
            urls = tuple(
                f"https://sqs.{refs.region}.amazonaws.com/{refs.account}/{n}" for n in refs.queues
            )
            if "url" in words:
                return urls
            if "arn" in words:
                return tuple(arn.format("sqs", n) for n in refs.queues)
            return refs.queues if "name" in words else refs.queues + urls
        if "name" in words:
            return refs.topics
        return tuple(arn.format("sns", n) for n in refs.topics)


#: Bodies longer than this are not filled (a message body is a few hundred bytes).
MAX_FILL_CHARS: Final = 64 * 1024


def fill_json_text(choices: Choices, text: str, refs: WorldRefs) -> str:
    """A JSON object's text filled as `fill_names` fills the object (written again only
    when a field changed); any other text as it is, nothing drawn."""
    if not choices.edge_values or not _has_any(refs) or len(text) > MAX_FILL_CHARS:
        return text
    if not text.lstrip().startswith("{"):
        return text
    try:
        document = json.loads(text)
    except ValueError:
        return text
    filled = fill_names(choices, document, refs)
    if filled == document:
        return text
    return json.dumps(filled, ensure_ascii=False)
