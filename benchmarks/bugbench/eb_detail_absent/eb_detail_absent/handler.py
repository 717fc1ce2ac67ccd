"""Loyalty points: every placed order credits points, multiplied by the customer's tier."""

import logging
import os
from decimal import Decimal, InvalidOperation

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["POINTS_TABLE"])
MULTIPLIERS = {"bronze": 1, "silver": 2, "gold": 3}


def points_for(detail: dict) -> int:
    try:
        total = Decimal(str(detail.get("total", "0")))
    except InvalidOperation:
        return 0
    if not total.is_finite() or total <= 0:
        return 0
    tier = detail["customer"]["tier"]
    return int(total) * MULTIPLIERS.get(str(tier).lower(), 1)


def lambda_handler(event, context):
    detail = event.get("detail") or {}
    customer_id = detail.get("customerId")
    if not isinstance(customer_id, str) or not customer_id:
        logger.warning("order event without a customer: %s", event.get("id"))
        return {"credited": 0}
    points = points_for(detail)
    if points:
        table.update_item(
            Key={"customer_id": customer_id},
            UpdateExpression="ADD points :p",
            ExpressionAttributeValues={":p": points},
        )
    return {"credited": points}
