"""The idempotency judgement (lambdafuzz.model.redelivery_judgement) on its own: what a
second delivery may and may not change, and which tests deliver twice
(lambdafuzz.model.redelivery.deliveries_for)."""

from __future__ import annotations

import hashlib
import math
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.redelivery import (
    REDELIVERY_SHARE,
    Delivery,
    ObjectState,
    ResourceKind,
    Sent,
    Written,
    deliveries_for,
    redelivers,
)
from lambdafuzz.model.redelivery_judgement import (
    CLOCK_SLACK_S,
    DUPLICATE_DELIVERY,
    Change,
    accepted,
    difference,
    judge,
)
from lambdafuzz.model.target import Trigger, TriggerKind

TABLE, BUCKET = ResourceKind.TABLE, ResourceKind.BUCKET
NOW = datetime(2026, 11, 28, 23, 35, 30, tzinfo=UTC).timestamp()
LINE = "orders/intake.py:31"


def iso(seconds_later: float = 0.0) -> str:
    return (datetime.fromtimestamp(NOW, UTC) + timedelta(seconds=seconds_later)).isoformat()


def item_write(table: str, op: str = "PutItem", line: str = LINE, **key: Any) -> Written:
    return Written(TABLE, table, tuple(sorted(key.items())), op, line)


def delivery(
    *changes: tuple[Written, Any], sent: tuple[Sent, ...] = (), at: float = NOW
) -> Delivery:
    return Delivery(
        written=tuple(w for w, _ in changes),
        sent=sent,
        states={w.place: state for w, state in changes},
        at=at,
    )


def sent(
    kind: ResourceKind, name: str, body: str = "{}", dedup: str = "", line: str = LINE
) -> Sent:
    digest = hashlib.sha256(body.encode()).hexdigest()
    return Sent(kind, name, "Publish", digest, dedup, body, line)


# =========================================================================== new items
def test_an_item_under_a_fresh_id_per_delivery_is_a_new_item() -> None:
    first_id, second_id = (
        "0b6f1f5e-8a37-4c1e-9a51-0c1f3d5a2b11",
        "9d2e7c40-1b5a-4f0e-8c3d-7e6f5a4b3c22",
    )
    a = item_write("orders", order_id=first_id)
    b = item_write("orders", order_id=second_id)
    found = judge(
        delivery((a, {"order_id": first_id, "total": Decimal(12)}), at=NOW),
        delivery((b, {"order_id": second_id, "total": Decimal(12)}), at=NOW + 0.05),
    )
    assert len(found) == 1
    (dup,) = found
    assert dup.change is Change.NEW_ITEM and dup.resource == "orders" and dup.location == LINE
    assert dup.message == (
        f"a second delivery of the same event created orders item {{order_id: '{second_id}'}} "
        "again under a new key"
    )
    first_line, second_line = dup.evidence.split("\nsecond delivery: ")
    assert first_line.startswith(f"first delivery: PutItem orders item {{order_id: '{first_id}'}}")
    assert second_id in second_line and '"total": 12' in second_line
    finding = dup.finding()
    assert finding.kind is OracleKind.IDEMPOTENCY
    assert finding.info.exception_type == DUPLICATE_DELIVERY
    assert finding.info.signature == f"{DUPLICATE_DELIVERY} new-item at {LINE}: orders"


def test_one_finding_per_change_resource_and_line_however_many_items() -> None:
    writes = [(item_write("orders", order_id=f"id-{i}"), {"order_id": f"id-{i}"}) for i in range(4)]
    found = judge(delivery(*writes[:2]), delivery(*writes[2:]))
    assert [d.change for d in found] == [Change.NEW_ITEM]


def test_a_key_written_by_the_second_delivery_only_that_is_gone_after_it_is_no_new_item() -> None:
    gone = item_write("locks", "DeleteItem", order_id="o-1")
    assert judge(delivery(), delivery((gone, None))) == ()


def test_an_object_under_a_new_key_is_a_new_item() -> None:
    first = Written(BUCKET, "receipts", (("key", "r/1.pdf"),), "PutObject", LINE)
    second = Written(BUCKET, "receipts", (("key", "r/2.pdf"),), "PutObject", LINE)
    state = ObjectState("d" * 64, 3, b"pdf")
    (dup,) = judge(delivery((first, state)), delivery((second, state)))
    assert dup.message.endswith("created object s3://receipts/r/2.pdf again under a new key")


def test_a_key_holding_the_clock_is_a_new_item_even_within_the_same_second() -> None:
    """`sk = now`: both deliveries here wrote the same key, a real retry would not."""
    stamp = iso()
    write = item_write("events", order_id="o-1", sk=f"EVENT#{stamp}")
    state = {"order_id": "o-1", "sk": f"EVENT#{stamp}"}
    (dup,) = judge(delivery((write, state)), delivery((write, state), at=NOW + 0.01))
    assert dup.change is Change.NEW_ITEM
    assert f"under a key holding the clock ({stamp})" in dup.message


def test_a_time_in_a_key_that_the_event_holds_is_the_events() -> None:
    stamp = iso()
    write = item_write("events", order_id="o-1", sk=f"EVENT#{stamp}")
    state = {"order_id": "o-1", "sk": f"EVENT#{stamp}"}
    event = {"Records": [{"body": f'{{"at": "{stamp}"}}'}]}
    assert judge(delivery((write, state)), delivery((write, state)), event=event) == ()


def test_an_epoch_key_from_the_event_is_not_the_clock() -> None:
    sent_ms = str(int(NOW * 1000))
    write = item_write("seen", message_id="m-1", at=Decimal(int(NOW)))
    state = {"message_id": "m-1", "at": Decimal(int(NOW))}
    event = {"Records": [{"attributes": {"SentTimestamp": sent_ms}}]}
    assert judge(delivery((write, state)), delivery((write, state)), event=event) == ()
    (dup,) = judge(delivery((write, state)), delivery((write, state)), event={})
    assert dup.change is Change.NEW_ITEM


# =========================================================================== the same item
def test_the_same_item_rewritten_with_new_clocks_and_ids_is_no_finding() -> None:
    write = item_write("customers", customer_id="c-7")
    first = {
        "customer_id": "c-7",
        "name": "Ada",
        "updated_at": iso(),
        "updated_epoch": Decimal(int(NOW)),
        "expires_at": Decimal(int(NOW) + 7 * 86400),  # a TTL beside the clock
        "updated_ms": Decimal(int(NOW * 1000)),
        "revision": "3f2b8c1e-5d4a-4e6f-9b7c-1a2b3c4d5e6f",
        "trace": "Root=1-6748fa12-0a1b2c3d4e5f6a7b8c9d0e1f;Sampled=1",
        "note": f"synced at {iso()} by 01JDQ4Z7B0N4T5Y8K2M6P9R3S1",
        "http_date": "Sat, 28 Nov 2026 23:35:30 GMT",
        "tags": {"a", "b"},
    }
    second = {
        **first,
        "updated_at": iso(1.5),
        "updated_epoch": Decimal(int(NOW) + 2),
        "expires_at": Decimal(int(NOW) + 7 * 86400 + 2),
        "updated_ms": Decimal(int(NOW * 1000) + 1500),
        "revision": "a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d",
        "trace": "Root=1-6748fa14-9f8e7d6c5b4a39281706f5e4;Sampled=1",
        "note": f"synced at {iso(1.5)} by 01JDQ4Z9C3P7W1X5M8N2Q4R6T0",
        "http_date": "Sat, 28 Nov 2026 23:35:32 GMT",
    }
    assert judge(delivery((write, first)), delivery((write, second), at=NOW + 2)) == ()


def test_a_counter_moved_twice_is_found_with_what_changed() -> None:
    write = item_write("stock", "UpdateItem", sku="A-1")
    (dup,) = judge(
        delivery((write, {"sku": "A-1", "reserved": Decimal(1), "at": iso()})),
        delivery((write, {"sku": "A-1", "reserved": Decimal(2), "at": iso(1)}), at=NOW + 1),
    )
    assert dup.change is Change.MOVED_TWICE
    assert dup.message == (
        "a second delivery of the same event changed stock item {sku: 'A-1'} again: "
        "reserved: 1 -> 2"
    )
    assert dup.evidence.endswith("changed: reserved: 1 -> 2")
    assert '"reserved": 1' in dup.evidence and '"reserved": 2' in dup.evidence


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        ({"lines": ["a"]}, {"lines": ["a", "a"]}, "lines: 1 -> 2 elements"),
        ({"due": "2026-12-28"}, {"due": "2027-01-28"}, "due: '2026-12-28' -> '2027-01-28'"),
        ({"paid_until": iso()}, {"paid_until": iso(31 * 86400)}, "paid_until: "),
        ({"balance": Decimal(90)}, {"balance": Decimal(80)}, "balance: 90 -> 80"),
        ({"a": 1}, None, "deleted"),
        ({"a": 1}, {"a": 1, "b": 2}, "b: absent -> 2"),
        ({"ids": {"m-1"}}, {"ids": {"m-1", "m-2"}}, "ids: 1 -> 2 elements"),
        ({"n": "deadbeefdeadbeef"}, {"n": "cafebabecafebabe"}, "n: "),  # letters only: no id
    ],
)
def test_changes_that_are_not_clocks_or_ids(before: Any, after: Any, changed: str) -> None:
    found = difference(before, after)
    assert found is not None and found.startswith(changed), found


def test_an_epoch_far_from_now_is_a_number_not_a_clock() -> None:
    assert difference({"n": 1_000_000_000}, {"n": 1_000_000_001}) is not None
    assert difference({"n": int(NOW_REAL())}, {"n": int(NOW_REAL()) + 1}) is None


def NOW_REAL() -> float:  # noqa: N802 - reads as the constant it stands for
    return datetime.now(UTC).timestamp()


def test_clocks_further_apart_than_the_deliveries_plus_the_slack_differ() -> None:
    write = item_write("customers", customer_id="c-7")
    far = CLOCK_SLACK_S + 10
    found = judge(
        delivery((write, {"customer_id": "c-7", "at": iso()})),
        delivery((write, {"customer_id": "c-7", "at": iso(far)}), at=NOW + 1),
    )
    assert [d.change for d in found] == [Change.MOVED_TWICE]
    # ... unless the second delivery came that much later
    assert (
        judge(
            delivery((write, {"customer_id": "c-7", "at": iso()})),
            delivery((write, {"customer_id": "c-7", "at": iso(far)}), at=NOW + far),
        )
        == ()
    )


def test_objects_compare_by_digest_then_json_then_text() -> None:
    def state(body: bytes) -> ObjectState:
        return ObjectState(hashlib.sha256(body).hexdigest(), len(body), body)

    same_json = (
        state(f'{{"total": 3, "at": "{iso()}"}}'.encode()),
        state(f'{{"total": 3, "at": "{iso(1)}"}}'.encode()),
    )
    assert difference(*same_json) is None
    assert difference(state(b'{"total": 3}'), state(b'{"total": 4}')) == "total: 3 -> 4"
    report = f"rows: 3\ngenerated {iso()}\n"
    assert difference(state(report.encode()), state(report.replace(iso(), iso(1)).encode())) is None
    assert difference(state(b"rows: 3\n"), state(b"rows: 3\nrows: 3\n")) is not None
    assert (
        difference(ObjectState("a" * 64, 10**7), ObjectState("b" * 64, 10**7))
        == "the body: 10000000 bytes -> 10000000 bytes (another digest)"
    )


def test_a_second_delivery_that_writes_nothing_is_no_finding() -> None:
    """A conditional write that failed, Powertools' @idempotent: no write was recorded."""
    write = item_write("orders", order_id="m-1")
    assert judge(delivery((write, {"order_id": "m-1"})), delivery()) == ()


# =========================================================================== sends
def test_a_notification_per_delivery_is_sent_twice() -> None:
    first = sent(ResourceKind.TOPIC, "order-shipped", '{"order": "o-1"}')
    (dup,) = judge(delivery(sent=(first,)), delivery(sent=(first,)))
    assert dup.change is Change.SENT_TWICE and dup.resource == "order-shipped"
    assert (
        dup.message == "a second delivery of the same event published to topic order-shipped again"
    )
    assert dup.evidence.count('{"order": "o-1"}') == 2
    assert (
        dup.finding().info.signature == f"{DUPLICATE_DELIVERY} sent-twice at {LINE}: order-shipped"
    )


def test_a_send_the_first_delivery_did_not_make_is_said_so() -> None:
    (dup,) = judge(delivery(), delivery(sent=(sent(ResourceKind.QUEUE, "alerts"),)))
    assert dup.message.endswith("sent a message to queue alerts (the first delivery did not)")
    assert "first delivery: nothing sent to queue alerts" in dup.evidence


def test_an_equal_deduplication_id_makes_the_service_drop_the_repeat() -> None:
    fifo = sent(ResourceKind.QUEUE, "orders.fifo", dedup="m-1")
    assert judge(delivery(sent=(fifo,)), delivery(sent=(fifo,))) == ()
    other = sent(ResourceKind.QUEUE, "orders.fifo", dedup="9f1c2d3e-uuid-per-call")
    (dup,) = judge(delivery(sent=(fifo,)), delivery(sent=(other,)))
    assert "deduplication id" in dup.message
    # the same id on another queue is not a repeat there
    elsewhere = sent(ResourceKind.QUEUE, "audit.fifo", dedup="m-1")
    assert len(judge(delivery(sent=(fifo,)), delivery(sent=(elsewhere,)))) == 1


# =========================================================================== accepted
def test_accepted_resources_give_no_finding() -> None:
    write = item_write("audit_log", entry_id="e-2")
    second = delivery((write, {"entry_id": "e-2"}), sent=(sent(ResourceKind.QUEUE, "metrics"),))
    assert len(judge(delivery(), second)) == 2
    assert judge(delivery(), second, accept=("tables.audit_log", "queues.metrics")) == ()
    assert judge(delivery(), second, accept=("tables.*", "queues.*")) == ()
    assert accepted(TABLE, "audit_log", ("tables.audit_log",))
    assert not accepted(BUCKET, "audit_log", ("tables.audit_log",))


# =========================================================================== who delivers twice
def test_which_triggers_aws_delivers_more_than_once() -> None:
    def trigger(kind: TriggerKind, asynchronous: bool = False) -> Trigger:
        return Trigger(kind, None, asynchronous=asynchronous)

    assert redelivers(trigger(TriggerKind.SQS)) and redelivers(trigger(TriggerKind.SCHEDULE))
    assert not redelivers(trigger(TriggerKind.DIRECT))
    assert not redelivers(trigger(TriggerKind.APIGATEWAY))
    # a function invoked asynchronously: Lambda retries a failed event, delivering it again
    assert redelivers(trigger(TriggerKind.DIRECT, asynchronous=True))


def test_deliveries_depend_on_the_seed_alone_and_hit_the_share() -> None:
    seeds = range(8_000)
    twice = sum(deliveries_for(s, REDELIVERY_SHARE) == 2 for s in seeds)
    expected = len(seeds) * REDELIVERY_SHARE
    spread = 5 * math.sqrt(expected * (1 - REDELIVERY_SHARE))  # five standard deviations
    assert abs(twice - expected) <= spread, (twice, expected)
    assert [deliveries_for(s, 0.125) for s in seeds] == [deliveries_for(s, 0.125) for s in seeds]
    assert {deliveries_for(s, 0.0) for s in seeds[:500]} == {1}
    assert {deliveries_for(s, 1.0) for s in seeds[:500]} == {2}
    assert deliveries_for(-5, 0.5) in (1, 2)  # any int is a seed


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("batch-20261128233530", "batch-20261128233531"),  # %Y%m%d%H%M%S
        ("run 20261128T233530Z", "run 20261128T233532Z"),  # ISO-8601 basic
        ("at Sat Nov 28 23:35:30 2026", "at Sat Nov 28 23:35:31 2026"),  # time.ctime()
        ("at Sat Nov  8 23:35:30 2026", "at Sat Nov  8 23:35:31 2026"),
    ],
)
def test_other_clock_formats_in_text_are_clocks(first: str, second: str) -> None:
    assert difference({"note": first}, {"note": second}) is None
    later = second.replace("2026", "2027")  # a year on: a change
    assert difference({"note": first}, {"note": later}) is not None


def _object(body: bytes) -> ObjectState:
    return ObjectState(hashlib.sha256(body).hexdigest(), len(body), body)


def test_archives_and_binary_bodies_compare_without_their_dates() -> None:
    import gzip
    import io
    import zipfile

    def zipped(when: tuple[int, ...], rows: bytes = b"a,b\n") -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(zipfile.ZipInfo("rows.csv", date_time=when), rows)
        return buffer.getvalue()

    early, late = (2026, 11, 28, 23, 35, 30), (2026, 11, 28, 23, 35, 32)
    assert zipped(early) != zipped(late)
    assert difference(_object(zipped(early)), _object(zipped(late))) is None
    changed = difference(_object(zipped(early)), _object(zipped(late, b"a,b\na,b\n")))
    assert changed is not None and changed.startswith("the body: the archive's members")
    gz_a = gzip.compress(b'{"n": 1}', mtime=1)
    gz_b = gzip.compress(b'{"n": 1}', mtime=2)
    assert gz_a != gz_b and difference(_object(gz_a), _object(gz_b)) is None
    assert difference(_object(gz_a), _object(gzip.compress(b'{"n": 2}', mtime=1))) == "n: 1 -> 2"
    pdf = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n/CreationDate (D:WHEN)\n"
    first = _object(pdf.replace(b"WHEN", b"20261128233530"))
    assert difference(first, _object(pdf.replace(b"WHEN", b"20261128233531"))) is None
    assert difference(first, _object(b"%PDF-1.7\n\xff")) is not None


def test_opaque_binary_bodies_of_one_size_are_the_same_content_encrypted_again() -> None:
    """An encrypted PDF rewritten in place: a fresh salt changes every byte, not the size."""
    rng = random.Random(7)
    first = bytes(rng.randrange(256) for _ in range(900))
    again = bytes(rng.randrange(256) for _ in range(900))
    assert difference(_object(first), _object(again)) is None
    grown = first + bytes(rng.randrange(256) for _ in range(100))
    assert difference(_object(first), _object(grown)) is not None
    # text with a few bytes of another encoding is still compared as text
    latin = "Änderung: 3 Zeilen\n".encode("latin-1") * 20
    assert difference(_object(latin), _object(latin.replace(b"3", b"4"))) is not None


def test_an_encrypted_pdf_encrypted_again_is_the_same_document() -> None:
    """Its strings are hex of a key derived from the random /ID: they all change."""

    def pdf(producer: str, file_id: str) -> bytes:
        return (
            f"%PDF-1.3\n1 0 obj\n<< /Producer <{producer}> >>\nendobj\n"
            f"trailer << /Encrypt 2 0 R /ID [<{file_id}> <{file_id}>] >>\n%%EOF\n"
        ).encode()

    first, again = pdf("eec40cc7dd", "9f1c" * 8), pdf("07467e6098", "3ab2" * 8)
    assert difference(_object(first), _object(again)) is None
    # not encrypted: a changed string is a change
    plain = (
        b"%PDF-1.3\n<< /Producer <eec40cc7dd> >>\n",
        b"%PDF-1.3\n<< /Producer <07467e6098> >>\n",
    )
    assert difference(_object(plain[0]), _object(plain[1])) is not None
