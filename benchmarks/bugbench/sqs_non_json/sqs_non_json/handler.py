"""Payment webhooks: each queued webhook sets its payment's status."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["PAYMENTS_TABLE"])
STATUSES = ("authorized", "captured", "refunded", "failed")


def apply_webhook(body: str) -> bool:
    try:
        hook = json.loads(body)
        payment_id, status = hook["payment_id"], hook["status"]
    except Exception:
        # the provider retries webhooks on its side: drop what we cannot read
        logger.exception("dropping unreadable webhook")
        return False
    if not isinstance(payment_id, str) or not payment_id or status not in STATUSES:
        logger.info("ignoring webhook for %r with status %r", payment_id, status)
        return False
    table.put_item(Item={"payment_id": payment_id, "status": status})
    return True


def lambda_handler(event, context):
    applied = sum(apply_webhook(record["body"]) for record in event["Records"])
    return {"applied": applied}
