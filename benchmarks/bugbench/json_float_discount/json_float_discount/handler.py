"""Partner orders: one JSON document per order, stored for fulfilment."""

import json
import logging
import os
import urllib.parse
from decimal import Decimal

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])


class RejectedOrder(Exception):
    """The partner sent something that is not an order; their portal shows the reason."""


def to_item(order: dict) -> dict:
    order_id = order.get("order_id")
    lines = order.get("lines")
    if not isinstance(order_id, str) or not order_id or not isinstance(lines, list):
        raise RejectedOrder("order_id and lines are required")
    total = Decimal(0)
    for line in lines:
        if not isinstance(line, dict) or not isinstance(line.get("qty"), int):
            raise RejectedOrder("every line needs an integer qty")
        total += Decimal(str(line.get("unit_price", 0))) * line["qty"]
    return {
        "order_id": order_id,
        "total": total,
        "line_count": len(lines),
        "discount": order.get("discount", 0),
    }


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    try:
        order = json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    except ValueError as exc:
        raise RejectedOrder(f"{key} is not JSON") from exc
    if not isinstance(order, dict):
        raise RejectedOrder("an order is a JSON object")
    item = to_item(order)
    table.put_item(Item=item)
    logger.info("stored order %s", item["order_id"])
    return {"order_id": item["order_id"]}
