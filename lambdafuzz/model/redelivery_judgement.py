"""The idempotency judgement: whether a second delivery of the same event changed the world
in a way a retry must not.

(A second delivery that raises where the first returned is a finding too, `fails-on-retry`,
made where the retry runs: `harness.redelivery`.)

It reads what each delivery changed (`model.redelivery.Delivery`): the successful write
calls (a call that raised -- a failed `ConditionExpression`, a `TransactionCanceled` --
wrote nothing), the state of each written place read back right after the delivery, and what
it sent.  The second delivery is a finding (`Change`) when it

* **new-item**: wrote an item or object under a key the first delivery did not write, and
  the item or object is there after it (a fresh id per delivery: `uuid4()`); or wrote under
  a key holding the clock (a time, in the forms below, within `CLOCK_SLACK_S` of the
  delivery, that the event does not hold): the two deliveries ran within the same second
  here, a real retry comes later and writes another item;
* **moved-twice**: wrote a place the first delivery wrote, and the state after it differs
  from the state after the first in something other than clocks and ids (below): a counter
  or balance moved twice, an element appended twice, the item deleted;
* **sent-twice**: sent a message, notification, event, execution, asynchronous invoke,
  record or email, unless the service drops it as a repeat of one the first delivery sent
  to the same resource: an equal FIFO deduplication id (a queue's or topic's explicit
  `MessageDeduplicationId`, or the body's SHA-256 under content-based deduplication) or an
  equal Step Functions execution name.  (FIFO deduplication lasts 5 minutes: a retry
  after that is delivered again; the judgement assumes a quick retry.)

Two states are the same when they are equal but for values that differ only as clocks and
generated ids differ, compared leaf by leaf (a dict by its keys, a list by position, a set
by its sorted elements):

* two numbers that both read as epoch times in one unit (seconds, milliseconds,
  microseconds or nanoseconds since 1970) within `EPOCH_WINDOW_S` of now -- so a TTL or
  an expiry written beside the clock counts -- and at most the time between the two
  deliveries plus `CLOCK_SLACK_S` apart;
* two strings with the same text around the same number of clocks and ids, each pair of
  which is equal, or two times as above (ISO-8601 date-times, extended or basic, such as
  `2026-11-28T23:35:30.123Z`, `2026-11-28 23:35:30+00:00`, `20261128T233530Z`; HTTP dates;
  `time.ctime()`; runs of 12 or 14 digits read as `%Y%m%d%H%M[%S]`, of 10 to 19 digits
  read as epoch times), or two ids of one kind (UUIDs, ULIDs, hex strings of 16
  characters or more holding letters and digits, X-Ray trace ids: request and trace ids,
  digests);
* two objects with equal bodies, or bodies equal as JSON values, as text (UTF-8, else
  byte for byte: a PDF's dates), a gzip stream's content (its header's time aside) or a
  zip archive's members by name, size and CRC (their dates aside), by the rules above;
  two opaque binary bodies (a tenth or more of their bytes outside printable text), or
  two encrypted PDFs (an `/Encrypt` dictionary), of the same size are the same too:
  encrypting the same content again with a fresh salt, IV or file id changes the bytes and
  not the length, while a body that grows or shrinks is a change;
* the `aws_request_id` needs no rule: a retry carries the first delivery's.

Everything else is a change: a date without a time, a number outside the window, a count.
Keys are never compared this way: a new id in a key is a new item.

A team that accepts the duplicates of a resource (an audit log, metrics) lists it in
lambdafuzz.yaml, or in the function's template `Metadata: {lambdafuzz: ...}`:
`idempotency: {accept: [tables.audit_log, queues.metrics]}` (`ResourceKind` values,
`tables.*` for every table); nothing on an accepted resource is a finding.
"""

from __future__ import annotations

import decimal
import enum
import io
import json
import re
import zipfile
import zlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.redelivery import (
    Delivery,
    KeyT,
    ObjectState,
    ResourceKind,
    Sent,
    Written,
)

#: What production does twice names the finding's type.
DUPLICATE_DELIVERY = "DuplicateDelivery"
#: Seconds two clock readings may lie apart beyond the time between the deliveries.
CLOCK_SLACK_S = 300.0
#: An epoch number this close to now (either way) reads as a time.
EPOCH_WINDOW_S = 400 * 86400.0
#: Characters of a value shown in a message and in the evidence.
SHOWN_KEY = 60
SHOWN_STATE = 400
#: Epoch units: seconds, milliseconds, microseconds, nanoseconds.
_UNITS = (1, 1_000, 1_000_000, 1_000_000_000)
#: Operations that create what they write (the others update or delete it).
_CREATING = frozenset(
    {"PutItem", "BatchWriteItem", "TransactWriteItems", "PutObject", "CopyObject"}
    | {"CompleteMultipartUpload"}
)

_NOT_WORD = r"(?<![0-9A-Za-z])"
_END_WORD = r"(?![0-9A-Za-z])"
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_DAYS = "Mon|Tue|Wed|Thu|Fri|Sat|Sun"
#: `%Y%m%d%H%M%S` and `%Y%m%d%H%M` runs of digits, read as times.
_COMPACT = {14: "%Y%m%d%H%M%S", 12: "%Y%m%d%H%M"}
#: The clocks and ids inside a string, each a named group.
_TOKEN = re.compile(
    r"(?P<iso>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?"
    r"(?:Z|[+-]\d{2}(?::?\d{2})?)?)"
    rf"|(?P<http>(?:{_DAYS}), \d{{1,2}} (?:{_MONTHS}) \d{{4}} "
    r"\d{2}:\d{2}:\d{2} (?:GMT|UTC|[+-]\d{4}))"
    rf"|(?P<ctime>(?:{_DAYS}) (?:{_MONTHS}) [ \d]\d \d{{2}}:\d{{2}}:\d{{2}} \d{{4}})"
    rf"|(?P<basic>{_NOT_WORD}\d{{8}}T\d{{4}}(?:\d{{2}})?(?:[.,]\d{{1,9}})?(?:Z|[+-]\d{{4}})?"
    rf"{_END_WORD})"
    rf"|(?P<xray>{_NOT_WORD}1-[0-9a-f]{{8}}-[0-9a-f]{{24}}{_END_WORD})"
    rf"|(?P<uuid>{_NOT_WORD}[0-9a-fA-F]{{8}}-[0-9a-fA-F]{{4}}-[0-9a-fA-F]{{4}}-"
    rf"[0-9a-fA-F]{{4}}-[0-9a-fA-F]{{12}}{_END_WORD})"
    rf"|(?P<digits>{_NOT_WORD}\d{{10,19}}{_END_WORD})"
    rf"|(?P<ulid>{_NOT_WORD}[0-7][0-9A-HJKMNP-TV-Z]{{25}}{_END_WORD})"
    rf"|(?P<hex>{_NOT_WORD}[0-9a-fA-F]{{16,}}{_END_WORD})"
)


class Change(enum.StrEnum):
    """What the second delivery did again; the finding's `detail`."""

    NEW_ITEM = "new-item"
    MOVED_TWICE = "moved-twice"
    SENT_TWICE = "sent-twice"
    FAILS_ON_RETRY = "fails-on-retry"  # the retry raised where the first delivery returned


@dataclass(slots=True, frozen=True)
class Duplicate:
    """One thing the second delivery did again, with both deliveries' side of it."""

    change: Change
    kind: ResourceKind
    resource: str
    message: str  # one line
    evidence: str  # first delivery: ..., second delivery: ...
    location: str = ""  # the application line of the second delivery's call
    stack: str = ""

    def finding(self) -> OracleFinding:
        """The campaign's finding: keyed by kind of change, location and resource name
        (`shape`), never by a value, so every input that does it again is one finding."""
        info = FailureInfo(
            exception_type=DUPLICATE_DELIVERY,
            message=self.message,
            traceback=self.stack,
            location=self.location,
            detail=self.change.value,
            shape=self.resource,
        )
        return OracleFinding(OracleKind.IDEMPOTENCY, info, self.evidence)


def accepted(kind: ResourceKind, resource: str, accept: Collection[str]) -> bool:
    """Whether `idempotency.accept` lists the resource (`tables.audit_log`, `tables.*`)."""
    return f"{kind.value}.{resource}" in accept or f"{kind.value}.*" in accept


def judge(
    first: Delivery,
    second: Delivery,
    *,
    accept: Collection[str] = (),
    event: Any = None,
) -> tuple[Duplicate, ...]:
    """What the second delivery of `event` did again (the module's docstring says what
    counts), one `Duplicate` per change, resource and application line."""
    clocks = _Clocks(now=second.at, tolerance=max(0.0, second.at - first.at) + CLOCK_SLACK_S)
    event_text = _EventText(event)
    found: dict[tuple[Change, ResourceKind, str, str], Duplicate] = {}

    def add(duplicate: Duplicate) -> None:
        key = (duplicate.change, duplicate.kind, duplicate.resource, duplicate.location)
        found.setdefault(key, duplicate)

    first_places = {w.place for w in first.written}
    for write in second.written:
        if accepted(write.kind, write.resource, accept):
            continue
        place = write.place
        after = second.states.get(place)
        clock = _clock_in_key(write.key, clocks, event_text)
        if clock is not None and after is not None:
            add(_new_item(write, first, after, clock=clock))
        elif place not in first_places:
            if after is not None:
                add(_new_item(write, first, after))
        else:
            changed = difference(first.states.get(place), after, clocks)
            if changed is not None:
                add(_moved(write, first, after, changed))
    dropped = {(s.kind, s.resource, s.dedup) for s in first.sent if s.dedup}
    for sent in second.sent:
        if accepted(sent.kind, sent.resource, accept):
            continue
        if sent.dedup and (sent.kind, sent.resource, sent.dedup) in dropped:
            continue  # the service drops it as a repeat
        add(_sent_again(sent, first))
    return tuple(found.values())


# =========================================================================== comparing
@dataclass(slots=True, frozen=True)
class _Clocks:
    now: float  # when the second delivery was read back (time.time())
    tolerance: float  # how far apart two readings of the clock may be


def difference(a: Any, b: Any, clocks: _Clocks | None = None, path: str = "") -> str | None:
    """The first difference between two states other than clocks and ids (`path: a -> b`),
    None when they are the same by the module's rules.  `clocks` None: now and a tolerance
    of `CLOCK_SLACK_S` (for callers comparing values outside a judgement)."""
    if clocks is None:
        clocks = _Clocks(datetime.now(UTC).timestamp(), CLOCK_SLACK_S)
    return _difference(a, b, clocks, path)


def _difference(a: Any, b: Any, clocks: _Clocks, path: str) -> str | None:
    if type(a) is type(b) and not isinstance(a, dict | list | set | frozenset) and a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in a:
                return f"{where}: absent -> {_short(b[key])}"
            if key not in b:
                return f"{where}: {_short(a[key])} -> absent"
            found = _difference(a[key], b[key], clocks, where)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path or 'the list'}: {len(a)} -> {len(b)} elements"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _difference(x, y, clocks, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if isinstance(a, set | frozenset) and isinstance(b, set | frozenset):
        if len(a) != len(b):
            return f"{path or 'the set'}: {len(a)} -> {len(b)} elements"
        ordered = (sorted(s, key=repr) for s in (a, b))
        return _difference(list(next(ordered)), list(next(ordered)), clocks, path)
    if isinstance(a, ObjectState) and isinstance(b, ObjectState):
        return _object_difference(a, b, clocks, path)
    if _number(a) and _number(b):
        return None if _same_clock(a, b, clocks) else _changed(path, a, b)
    if isinstance(a, str) and isinstance(b, str):
        return None if _same_text(a, b, clocks) else _changed(path, a, b)
    if a is None and b is not None:
        return f"{path or 'it'}: absent -> {_short(b)}" if path else "created"
    if b is None:
        return f"{path}: {_short(a)} -> absent" if path else "deleted"
    return _changed(path, a, b)


def _object_difference(a: ObjectState, b: ObjectState, clocks: _Clocks, path: str) -> str | None:
    """Two objects: the same digest, or bodies the same but for clocks and ids (module
    docstring); a body past the read limit compares by digest only."""
    if a.digest == b.digest:
        return None
    where = path or "the body"
    if a.body is None or b.body is None:
        return f"{where}: {a.size} bytes -> {b.size} bytes (another digest)"
    return _body_difference(a.body, b.body, clocks, where)


def _body_difference(a: bytes, b: bytes, clocks: _Clocks, where: str) -> str | None:
    """JSON compared as values; a gzip stream by what it holds (its header's mtime
    aside); a zip archive by its members' names, sizes and CRCs (their dates aside); text
    (UTF-8, else each byte a character: a PDF's dates) as strings."""
    if a == b:
        return None
    if len(a) == len(b) and _encrypted_pdf(a) and _encrypted_pdf(b):
        return None  # encrypted again: a fresh file id keys every string anew
    if a[:2] == b[:2] == b"\x1f\x8b":
        inner_a, inner_b = _gunzipped(a), _gunzipped(b)
        if inner_a is not None and inner_b is not None:
            return _body_difference(inner_a, inner_b, clocks, where)
    if a[:4] == b[:4] == b"PK\x03\x04":
        members_a, members_b = _zip_members(a), _zip_members(b)
        if members_a is not None and members_b is not None:
            if members_a == members_b:
                return None
            return f"{where}: the archive's members {_short(members_a)} -> {_short(members_b)}"
    try:
        return _difference(
            json.loads(a), json.loads(b), clocks, "" if where == "the body" else where
        )
    except ValueError:
        pass
    try:
        text_a, text_b = a.decode("utf-8"), b.decode("utf-8")
    except UnicodeDecodeError:
        if len(a) == len(b) and _binary(a) and _binary(b):
            return None  # opaque bytes of one size: a fresh salt or IV, not another content
        text_a, text_b = a.decode("latin-1"), b.decode("latin-1")
    if _same_text(text_a, text_b, clocks):
        return None
    return f"{where}: {_short(text_a)} -> {_short(text_b)}"


def _encrypted_pdf(body: bytes) -> bool:
    """A PDF with an `/Encrypt` dictionary: its strings and streams are encrypted with a
    key derived from the file's random `/ID`, so the same document encrypted twice differs
    in every encrypted string while its structure and length stay."""
    return body.startswith(b"%PDF-") and b"/Encrypt" in body


def _binary(body: bytes) -> bool:
    """Whether a body is opaque bytes (encrypted, compressed, an image) rather than text
    with a few bytes of another encoding: a tenth or more of its bytes are control or
    high bytes outside printable ASCII and whitespace."""
    if not body:
        return False
    odd = sum(1 for byte in body if byte > 126 or (byte < 32 and byte not in b"\t\n\r\f"))
    return odd * 10 >= len(body)


#: Bytes a compressed body may expand to for the comparison.
MAX_INFLATED = 8 * 1024 * 1024


def _gunzipped(body: bytes) -> bytes | None:
    try:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        inner = inflater.decompress(body, MAX_INFLATED)
    except zlib.error:
        return None
    return inner if not inflater.unconsumed_tail else None


def _zip_members(body: bytes) -> list[tuple[str, int, int]] | None:
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return [(i.filename, i.file_size, i.CRC) for i in archive.infolist()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None


def _changed(path: str, a: Any, b: Any) -> str:
    return f"{path or 'it'}: {_short(a)} -> {_short(b)}"


def _number(value: Any) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _same_clock(a: Any, b: Any, clocks: _Clocks) -> bool:
    """Two numbers that read as epoch times in one unit, close enough (module docstring)."""
    unit = _epoch_unit(a, clocks)
    if unit is None or unit != _epoch_unit(b, clocks):
        return False
    try:
        return abs(float(a) - float(b)) / unit <= clocks.tolerance
    except (OverflowError, ValueError):
        return False


def _epoch_unit(value: Any, clocks: _Clocks) -> int | None:
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    for unit in _UNITS:
        if abs(number / unit - clocks.now) <= EPOCH_WINDOW_S:
            return unit
    return None


def _same_text(a: str, b: str, clocks: _Clocks) -> bool:
    """Equal but for clocks and ids in the same places (module docstring)."""
    if a == b:
        return True
    tokens_a, tokens_b = list(_TOKEN.finditer(a)), list(_TOKEN.finditer(b))
    if not tokens_a or len(tokens_a) != len(tokens_b):
        return False
    if _skeleton(a, tokens_a) != _skeleton(b, tokens_b):
        return False
    return all(_same_token(x, y, clocks) for x, y in zip(tokens_a, tokens_b, strict=True))


def _skeleton(text: str, tokens: list[re.Match[str]]) -> list[str]:
    parts, start = [], 0
    for token in tokens:
        parts.append(text[start : token.start()])
        start = token.end()
    parts.append(text[start:])
    return parts


def _same_token(x: re.Match[str], y: re.Match[str], clocks: _Clocks) -> bool:
    if x.group() == y.group():
        return True
    kind_x, kind_y = x.lastgroup, y.lastgroup
    if kind_x in ("xray", "uuid", "ulid", "hex") and kind_x == kind_y:
        return kind_x != "hex" or (
            _letters_and_digits(x.group()) and _letters_and_digits(y.group())
        )
    if (
        kind_x == "digits"
        and kind_y == "digits"
        and _same_clock(int(x.group()), int(y.group()), clocks)
    ):
        return True
    t_x, t_y = _token_time(x), _token_time(y)
    return t_x is not None and t_y is not None and abs(t_x - t_y) <= clocks.tolerance


def _letters_and_digits(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _token_time(token: re.Match[str]) -> float | None:
    """A date-time token as epoch seconds (no zone: UTC): ISO-8601 (extended or basic),
    an HTTP date, `time.ctime()`, a `%Y%m%d%H%M%S` run of digits; None for another."""
    text, kind = token.group(), token.lastgroup
    try:
        if kind in ("iso", "basic"):
            moment = datetime.fromisoformat(text.replace(",", "."))
        elif kind == "http":
            moment = parsedate_to_datetime(text)
        elif kind == "ctime":
            moment = datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")
        elif kind == "digits" and len(text) in _COMPACT:
            moment = datetime.strptime(text, _COMPACT[len(text)])
        else:
            return None
    except (ValueError, TypeError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# =========================================================================== clocks in keys
class _EventText:
    """The event's strings and numbers as text, gathered once when first asked: a clock in
    a key that the event holds is the event's (`SentTimestamp`), not the handler's clock."""

    def __init__(self, event: Any) -> None:
        self._event = event
        self._texts: list[str] | None = None

    def holds(self, text: str) -> bool:
        if self._texts is None:
            self._texts = list(_leaves(self._event, 0))
        return any(text in t for t in self._texts)


def _leaves(value: Any, depth: int) -> Iterator[str]:
    if depth > 64:
        return
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, str):
        yield value
    elif _number(value):
        yield str(value)


def _clock_in_key(key: KeyT, clocks: _Clocks, event: _EventText) -> str | None:
    """A value of `key` read off the clock during the delivery (within the tolerance of
    now) that the event does not hold, as the key holds it; None when there is none."""
    for _, value in key:
        if _number(value):
            unit = _epoch_unit(value, clocks)
            if unit is not None and abs(float(value) / unit - clocks.now) <= clocks.tolerance:
                text = str(int(value))
                if not event.holds(text):
                    return text
        elif isinstance(value, str):
            for token in _TOKEN.finditer(value):
                moment = _token_time(token)
                if token.lastgroup == "digits" and moment is None:
                    number = int(token.group())
                    unit = _epoch_unit(number, clocks)
                    moment = number / unit if unit is not None else None
                if moment is None or abs(moment - clocks.now) > clocks.tolerance:
                    continue
                if not event.holds(token.group()):
                    return token.group()
    return None


# =========================================================================== findings
_OPENING = "a second delivery of the same event"


def _new_item(
    write: Written, first: Delivery, after: Any, *, clock: str | None = None
) -> Duplicate:
    earlier = _counterpart_write(write, first)
    verb = "created" if write.operation in _CREATING else "wrote"
    thing = _place_text(write.kind, write.resource, write.key)
    if clock is not None:
        message = (
            f"{_OPENING} {verb} {thing} again under a key holding the clock ({clock}): a "
            "retry, which comes later, writes another one"
        )
    elif earlier is not None:
        message = f"{_OPENING} {verb} {thing} again under a new key"
    else:
        message = f"{_OPENING} {verb} {thing}, a key the first delivery did not write"
    lines = [
        _write_line("first delivery", earlier, first, write.kind, write.resource),
        _write_line("second delivery", write, None, write.kind, write.resource, after=after),
    ]
    return _duplicate(Change.NEW_ITEM, write, message, lines)


def _moved(write: Written, first: Delivery, after: Any, changed: str) -> Duplicate:
    earlier = next((w for w in first.written if w.place == write.place), None)
    thing = _place_text(write.kind, write.resource, write.key)
    message = f"{_OPENING} changed {thing} again: {changed}"
    lines = [
        _write_line("first delivery", earlier, first, write.kind, write.resource),
        _write_line("second delivery", write, None, write.kind, write.resource, after=after),
        f"changed: {changed}",
    ]
    return _duplicate(Change.MOVED_TWICE, write, message, lines)


def _sent_again(sent: Sent, first: Delivery) -> Duplicate:
    earlier = [s for s in first.sent if s.kind is sent.kind and s.resource == sent.resource]
    same_line = [s for s in earlier if s.location == sent.location]
    counterpart = (same_line or earlier or [None])[0]
    what = _SENT_VERBS[sent.kind].format(name=sent.resource)
    if counterpart is not None:
        message = f"{_OPENING} {what} again"
    else:
        message = f"{_OPENING} {what} (the first delivery did not)"
    if sent.dedup:
        message += f" (deduplication id {_short(sent.dedup, 40)} differs from the first's)"
    lines = [
        _sent_line("first delivery", counterpart, sent),
        _sent_line("second delivery", sent, sent),
    ]
    return Duplicate(
        Change.SENT_TWICE,
        sent.kind,
        sent.resource,
        message,
        "\n".join(lines),
        sent.location,
        sent.stack,
    )


_SENT_VERBS = {
    ResourceKind.QUEUE: "sent a message to queue {name}",
    ResourceKind.TOPIC: "published to topic {name}",
    ResourceKind.EVENT_BUS: "put an event on event bus {name}",
    ResourceKind.STATE_MACHINE: "started an execution of state machine {name}",
    ResourceKind.FUNCTION: "invoked function {name} asynchronously",
    ResourceKind.STREAM: "put a record on stream {name}",
    ResourceKind.EMAIL: "sent an email from {name}",
    ResourceKind.TABLE: "wrote to table {name}",
    ResourceKind.BUCKET: "wrote to bucket {name}",
}


def _duplicate(change: Change, write: Written, message: str, lines: list[str]) -> Duplicate:
    return Duplicate(
        change,
        write.kind,
        write.resource,
        message,
        "\n".join(lines),
        write.location,
        write.stack,
    )


def _counterpart_write(write: Written, first: Delivery) -> Written | None:
    """The first delivery's write a reader compares with: same resource and line, else
    same resource and operation, else same resource."""
    same = [w for w in first.written if w.kind is write.kind and w.resource == write.resource]
    for match in (
        [w for w in same if w.location == write.location and w.operation == write.operation],
        [w for w in same if w.operation == write.operation],
        same,
    ):
        if match:
            return match[0]
    return None


def _write_line(
    label: str,
    write: Written | None,
    delivery: Delivery | None,
    kind: ResourceKind,
    resource: str,
    *,
    after: Any = None,
) -> str:
    if write is None:
        return f"{label}: no write to {kind.noun} {resource}"
    if delivery is not None:
        after = delivery.states.get(write.place)
    where = f" at {write.location}" if write.location else ""
    thing = _place_text(write.kind, write.resource, write.key)
    return f"{label}: {write.operation} {thing}{where}\n  after it: {_state_text(after)}"


def _sent_line(label: str, sent: Sent | None, like: Sent) -> str:
    if sent is None:
        return f"{label}: nothing sent to {like.kind.noun} {like.resource}"
    where = f" at {sent.location}" if sent.location else ""
    dedup = f" (deduplication id {_short(sent.dedup, 40)})" if sent.dedup else ""
    body = f": {sent.shown}" if sent.shown else ""
    return f"{label}: {sent.operation} to {sent.kind.noun} {sent.resource}{where}{dedup}{body}"


def _place_text(kind: ResourceKind, resource: str, key: KeyT) -> str:
    if kind is ResourceKind.BUCKET:
        return f"object s3://{resource}/{key[0][1] if key else ''}"
    inner = ", ".join(f"{name}: {_short(value, SHOWN_KEY)}" for name, value in key)
    return f"{resource} item {{{inner}}}"


def _state_text(state: Any) -> str:
    if state is None:
        return "absent"
    if isinstance(state, ObjectState):
        body = state.body
        if body is not None:
            try:
                return f"{state.size} bytes: {_cut(body.decode('utf-8'), SHOWN_STATE)}"
            except UnicodeDecodeError:
                pass
        return f"{state.size} bytes, sha256 {state.digest[:16]}..."
    return _cut(json.dumps(state, sort_keys=True, default=_plain), SHOWN_STATE)


def _short(value: Any, limit: int = 80) -> str:
    if isinstance(value, str):
        return _cut(repr(value), limit)
    if isinstance(value, decimal.Decimal):
        return str(value)
    try:
        return _cut(json.dumps(value, sort_keys=True, default=_plain), limit)
    except (TypeError, ValueError):
        return _cut(repr(value), limit)


def _plain(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    return repr(value)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
