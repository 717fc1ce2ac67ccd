"""Copies a CRM customer into the customers table, keyed by the customer: a retry of the
same event writes the same item again, with a new sync time and sync id."""

import os
import time
import uuid
from datetime import UTC, datetime

import boto3

customers = boto3.resource("dynamodb").Table(os.environ["CUSTOMERS_TABLE"])
#: How long a copy lives without another update (the table's TTL attribute).
KEEP_S = 90 * 86400


def handler(event, context):
    detail = event["detail"]
    now = time.time()
    customers.put_item(
        Item={
            "customer_id": detail["customerId"],
            "name": detail["name"],
            "email": detail["email"].lower(),
            "tier": detail["tier"],
            "source_event": event["id"],
            "updated_at": datetime.now(UTC).isoformat(),
            "synced_ms": int(now * 1000),
            "expires_at": int(now) + KEEP_S,
            "sync_id": str(uuid.uuid4()),
            "request_id": context.aws_request_id,
        }
    )
    return {"customer_id": detail["customerId"]}
