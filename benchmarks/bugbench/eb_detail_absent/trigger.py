"""An order from a known customer credits points; a guest checkout's event has no
`customer` object in its detail."""

from benchmarks.bugbench import events


def benign():
    detail = {"orderId": "o-1", "customerId": "c-9", "total": 120.5, "customer": {"tier": "gold"}}
    return {"event": events.eventbridge("shop.orders", "OrderPlaced", detail)}


def trigger():
    detail = {"orderId": "o-2", "customerId": "c-10", "total": 40}
    return {"event": events.eventbridge("shop.orders", "OrderPlaced", detail)}
