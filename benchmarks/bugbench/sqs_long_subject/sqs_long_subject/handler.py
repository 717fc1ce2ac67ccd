"""Support tickets: each contact-form message is filed under the customer and its subject."""

import json
import logging
import os

import boto3
from botocore.exceptions import ClientError

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["TICKETS_TABLE"])


def file_ticket(form: dict) -> bool:
    email = str(form.get("email") or "").strip().lower()
    subject = str(form.get("subject") or "").strip() or "(no subject)"
    if "@" not in email:
        logger.info("form without a reply address, ignored")
        return False
    try:
        table.put_item(
            Item={"customer_email": email, "subject": subject, "body": str(form.get("message", ""))}
        )
    except ClientError:
        logger.exception("could not file ticket for %s", email)
        return False
    return True


def lambda_handler(event, context):
    filed = 0
    for record in event["Records"]:
        try:
            form = json.loads(record["body"])
        except ValueError:
            continue
        if isinstance(form, dict):
            filed += file_ticket(form)
    return {"filed": filed}
