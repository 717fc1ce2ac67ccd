"""An order with a whole-number discount is stored; a 2.5 discount is a float DynamoDB refuses."""

import json

from benchmarks.bugbench import events


def _order(discount) -> bytes:
    lines = [{"sku": "A-1", "qty": 2, "unit_price": 9.99}]
    return json.dumps({"order_id": "P-77", "lines": lines, "discount": discount}).encode()


def benign():
    return {
        "s3": {"partner-orders": {"p77.json": _order(5)}},
        "event": events.s3("partner-orders", "p77.json"),
    }


def trigger():
    return {
        "s3": {"partner-orders": {"p78.json": _order(2.5)}},
        "event": events.s3("partner-orders", "p78.json"),
    }
