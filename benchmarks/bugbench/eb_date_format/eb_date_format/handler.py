"""Delivery tracking: each delivered shipment records when it arrived and how long it took."""

import logging
import os
from datetime import datetime

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["DELIVERIES_TABLE"])
TIMESTAMP = "%Y-%m-%dT%H:%M:%SZ"


def delivered_at(detail: dict) -> datetime | None:
    stamp = detail.get("deliveredAt")
    if not isinstance(stamp, str) or not stamp.endswith("Z"):
        return None
    return datetime.strptime(stamp, TIMESTAMP)


def lambda_handler(event, context):
    detail = event.get("detail") or {}
    order_id = detail.get("orderId")
    if not isinstance(order_id, str) or not order_id:
        return {"recorded": False}
    arrived = delivered_at(detail)
    if arrived is None:
        logger.warning("delivery of %s without a time", order_id)
        return {"recorded": False}
    table.put_item(
        Item={
            "order_id": order_id,
            "delivered_at": arrived.isoformat(),
            "carrier": event.get("source", ""),
        }
    )
    return {"recorded": True}
