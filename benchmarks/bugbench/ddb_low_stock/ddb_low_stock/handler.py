"""Stock alerts: when an item's stock drops under REORDER_LEVEL, an alert is written with how
much of its usual stock is left."""

import logging
import os
from decimal import Decimal

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
alerts = boto3.resource("dynamodb").Table(os.environ["ALERTS_TABLE"])
REORDER_LEVEL = 5


def number(image: dict, name: str) -> Decimal | None:
    value = image.get(name, {}).get("N")
    return Decimal(value) if value is not None else None


def lambda_handler(event, context):
    raised = 0
    for record in event["Records"]:
        image = record["dynamodb"].get("NewImage")
        if record.get("eventName") == "REMOVE" or not image:
            continue
        stock, usual = number(image, "stock"), number(image, "usual_stock")
        if stock is None or stock >= REORDER_LEVEL:
            continue
        usual = usual if usual and usual > 0 else Decimal(REORDER_LEVEL)
        alerts.put_item(
            Item={
                "sku": record["dynamodb"]["Keys"]["sku"]["S"],
                "stock": stock,
                "fill_ratio": float(stock / usual),
            }
        )
        raised += 1
    logger.info("%d stock alerts", raised)
    return {"alerts": raised}
