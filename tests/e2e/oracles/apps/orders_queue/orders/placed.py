"""An order message as the shop's checkout puts it on the queue:
{"customer_id": "c-1", "lines": [{"sku": "A-1", "qty": 2}], "total": "19.90"}."""

import json
from decimal import Decimal, InvalidOperation


class BadOrder(ValueError):
    """A message that is no order; the queue's redrive policy moves it aside."""


def read_order(body):
    try:
        order = json.loads(body)
    except ValueError as exc:
        raise BadOrder(f"not JSON: {exc}") from None
    if not isinstance(order, dict) or not order.get("customer_id"):
        raise BadOrder("no customer_id")
    lines = order.get("lines") or []
    if not isinstance(lines, list):
        raise BadOrder("lines is not a list")
    try:
        total = Decimal(str(order.get("total", "0")))
    except InvalidOperation:
        raise BadOrder("total is not a number") from None
    return {"customer_id": str(order["customer_id"]), "lines": lines, "total": total}
