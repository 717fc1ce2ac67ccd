"""Stock reservations: each SQS message is an order line {"line_id", "sku", "quantity"},
recorded as a reservation keyed by its line id (an allocation job takes reservations off
the stock). A line delivered twice writes the same item again: redelivery is harmless."""

import json
import os

import boto3

reservations = boto3.resource("dynamodb").Table(os.environ["RESERVATIONS_TABLE"])
MAX_QUANTITY = 100


class InvalidOrderLine(ValueError):
    pass


def parse(body):
    line = json.loads(body)
    if not isinstance(line, dict):
        raise InvalidOrderLine("an order line is a JSON object")
    line_id, sku, quantity = line.get("line_id"), line.get("sku"), line.get("quantity")
    if not isinstance(line_id, str) or not line_id:
        raise InvalidOrderLine(f"bad line id {line_id!r}")
    if not isinstance(sku, str) or not sku:
        raise InvalidOrderLine(f"bad sku {sku!r}")
    if type(quantity) is not int or not 1 <= quantity <= MAX_QUANTITY:
        raise InvalidOrderLine(f"bad quantity {quantity!r}")
    return line_id, sku, quantity


def reserve(line_id, sku, quantity):
    reservations.put_item(Item={"line_id": line_id, "sku": sku, "quantity": quantity})
