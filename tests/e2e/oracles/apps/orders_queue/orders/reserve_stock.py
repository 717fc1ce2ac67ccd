"""Reserves the stock of each order line (not idempotent: a redelivered message adds its
quantities to the reserved count again)."""

import os
from decimal import Decimal

import boto3

from orders.placed import read_order

stock = boto3.resource("dynamodb").Table(os.environ["STOCK_TABLE"])


def handler(event, context):
    reserved = 0
    for record in event["Records"]:
        order = read_order(record["body"])
        for line in order["lines"]:
            if not isinstance(line, dict) or not line.get("sku"):
                continue
            stock.update_item(
                Key={"sku": str(line["sku"])},
                UpdateExpression="ADD reserved :qty",
                ExpressionAttributeValues={":qty": Decimal(int(line.get("qty") or 1))},
            )
            reserved += 1
    return {"reserved": reserved}
