"""Orders API behind a REST API: GET /orders/{orderId} reads an order, POST /orders
prices a new one and stores it.  API Gateway only routes those two requests here, so the
path parameter of a GET is always there."""

import base64
import json
import math
import os
import uuid
from decimal import Decimal

import boto3
from boto3.dynamodb.types import Binary

_table = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])
MAX_QUANTITY = 1000
MAX_PRICE = 1_000_000


def _jsonable(value):
    """DynamoDB attribute values JSON lacks: numbers as text, binaries as base64, sets as lists."""
    if isinstance(value, Binary):
        return base64.b64encode(value.value).decode()
    if isinstance(value, set):
        return sorted(_jsonable(v) for v in value)
    return str(value)


def _reply(status, body):
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(body, default=_jsonable),
    }


def _get_order(order_id):
    item = _table.get_item(Key={"orderId": order_id}).get("Item")
    if item is None:
        return _reply(404, {"message": f"order {order_id} not found"})
    return _reply(200, item)


def _line_total(line):
    if not isinstance(line, dict):
        return None
    quantity = line.get("quantity", 1)
    price = line.get("price", 0)
    if not isinstance(quantity, int) or isinstance(quantity, bool):
        return None
    if not isinstance(price, int | float) or isinstance(price, bool) or not math.isfinite(price):
        return None
    if not 0 < quantity <= MAX_QUANTITY or not 0 <= price <= MAX_PRICE:
        return None
    return Decimal(str(price)).quantize(Decimal("0.01")) * quantity


def _place_order(body):
    try:
        order = json.loads(body or "")
    except ValueError:
        return _reply(400, {"message": "the body must be a JSON order"})
    if not isinstance(order, dict):
        return _reply(400, {"message": "the body must be a JSON object"})
    customer = order["customer"]  # planted bug: an order without a customer
    if not isinstance(customer, str) or not customer.strip():
        return _reply(400, {"message": "customer must be a name"})
    lines = order.get("lines", [])
    if not isinstance(lines, list):
        return _reply(400, {"message": "lines must be a list"})
    total = Decimal(0)
    for line in lines:
        amount = _line_total(line)
        if amount is None:
            return _reply(400, {"message": f"invalid order line {line!r}"})
        total += amount
    order_id = str(uuid.uuid4())
    _table.put_item(
        Item={"orderId": order_id, "customer": customer, "total": total, "lines": len(lines)}
    )
    return _reply(201, {"orderId": order_id, "total": total})


def handler(event, context):
    if event["httpMethod"] == "GET":
        return _get_order(event["pathParameters"]["orderId"])
    return _place_order(event["body"])
