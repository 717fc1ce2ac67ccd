"""A time in whole seconds is recorded; a carrier sending milliseconds breaks the format."""

from benchmarks.bugbench import events


def _event(stamp: str):
    detail = {"orderId": "o-55", "deliveredAt": stamp}
    return {"event": events.eventbridge("carrier.tracking", "ShipmentDelivered", detail)}


def benign():
    return _event("2026-11-23T17:04:05Z")


def trigger():
    return _event("2026-11-23T17:04:05.120Z")
