"""Records each placed order under a new order id (not idempotent: a redelivered message
records the same order again under another id)."""

import os
import uuid
from datetime import UTC, datetime

import boto3

from orders.placed import read_order

orders = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])


def handler(event, context):
    recorded = []
    for record in event["Records"]:
        order = read_order(record["body"])
        order_id = str(uuid.uuid4())
        orders.put_item(
            Item={
                "pk": f"ORDER#{order_id}",
                "customer_id": order["customer_id"],
                "total": order["total"],
                "line_count": len(order["lines"]),
                "placed_at": datetime.now(UTC).isoformat(),
            }
        )
        recorded.append(order_id)
    return {"recorded": recorded}
