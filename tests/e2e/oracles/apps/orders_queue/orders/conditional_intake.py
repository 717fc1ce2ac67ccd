"""Records each placed order under its message id, once: a conditional write refuses a
message already recorded, so a redelivered message changes nothing."""

import os
from datetime import UTC, datetime

import boto3

from orders.placed import read_order

client = boto3.client("dynamodb")
TABLE = os.environ["ORDERS_TABLE"]


def handler(event, context):
    recorded = 0
    for record in event["Records"]:
        order = read_order(record["body"])
        try:
            client.put_item(
                TableName=TABLE,
                Item={
                    "pk": {"S": f"ORDER#{record['messageId']}"},
                    "customer_id": {"S": order["customer_id"]},
                    "total": {"N": str(order["total"])},
                    "placed_at": {"S": datetime.now(UTC).isoformat()},
                },
                ConditionExpression="attribute_not_exists(pk)",
            )
        except client.exceptions.ConditionalCheckFailedException:
            continue  # recorded by an earlier delivery of this message
        recorded += 1
    return {"recorded": recorded}
