"""Records each placed order under a new order id, made idempotent with Powertools: a
redelivered batch (same message ids) returns the first delivery's result."""

import os
import uuid
from datetime import UTC, datetime

import boto3
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent,
)

from orders.placed import read_order

orders = boto3.resource("dynamodb").Table(os.environ["ORDERS_TABLE"])
persistence = DynamoDBPersistenceLayer(table_name=os.environ["IDEMPOTENCY_TABLE"])
config = IdempotencyConfig(event_key_jmespath="Records[*].messageId")


@idempotent(config=config, persistence_store=persistence)
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
                "placed_at": datetime.now(UTC).isoformat(),
            }
        )
        recorded.append(order_id)
    return {"recorded": recorded}
