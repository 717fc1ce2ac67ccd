"""Trade capture: each fill (quantity x price) is booked with its notional value."""

import json
import logging
import os
from decimal import Decimal, InvalidOperation

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["FILLS_TABLE"])


class BadFill(ValueError):
    """A fill message the trading system will resend corrected (goes to the DLQ)."""


def book(fill: dict) -> dict:
    fill_id = fill.get("fill_id")
    if not isinstance(fill_id, str) or not fill_id:
        raise BadFill("fill_id missing")
    try:
        quantity = Decimal(str(fill["quantity"]))
        price = Decimal(str(fill["price"]))
    except (KeyError, InvalidOperation) as exc:
        raise BadFill(f"fill {fill_id}: {exc}") from exc
    if not (quantity.is_finite() and price.is_finite()) or quantity <= 0 or price <= 0:
        raise BadFill(f"fill {fill_id}: quantity and price must be positive")
    item = {"fill_id": fill_id, "quantity": quantity, "price": price, "notional": quantity * price}
    table.put_item(Item=item)
    return item


def lambda_handler(event, context):
    for record in event["Records"]:
        try:
            fill = json.loads(record["body"])
        except ValueError as exc:
            raise BadFill("not JSON") from exc
        if not isinstance(fill, dict):
            raise BadFill("a fill is an object")
        book(fill)
    return {"booked": len(event["Records"])}
