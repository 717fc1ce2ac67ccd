"""Stock reservations: each SQS message is an order line {"sku", "quantity"} whose quantity
is taken off the SKU's available stock, never below zero (a conditional update)."""

import json
import os

import boto3

stock = boto3.resource("dynamodb").Table(os.environ["STOCK_TABLE"])
MAX_QUANTITY = 100


class InvalidOrderLine(ValueError):
    pass


def parse(body):
    line = json.loads(body)
    if not isinstance(line, dict):
        raise InvalidOrderLine("an order line is a JSON object")
    sku, quantity = line.get("sku"), line.get("quantity")
    if not isinstance(sku, str) or not sku:
        raise InvalidOrderLine(f"bad sku {sku!r}")
    if type(quantity) is not int or not 1 <= quantity <= MAX_QUANTITY:
        raise InvalidOrderLine(f"bad quantity {quantity!r}")
    return sku, quantity


def reserve(sku, quantity):
    """Raises ClientError (ConditionalCheckFailedException) when the stock is too low."""
    stock.update_item(
        Key={"sku": sku},
        UpdateExpression="SET available = available - :q",
        ConditionExpression="available >= :q",
        ExpressionAttributeValues={":q": quantity},
    )
