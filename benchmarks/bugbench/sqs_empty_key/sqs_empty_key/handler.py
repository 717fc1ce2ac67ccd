"""Newsletter signups: each signup message creates or refreshes a subscriber."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["SUBSCRIBERS_TABLE"])
LISTS = ("weekly", "offers", "product-news")


def subscribe(signup: dict) -> None:
    email = signup.get("email")
    if email is None:
        logger.warning("signup without an email")
        return
    requested = signup.get("lists")
    if not isinstance(requested, list):
        requested = ["weekly"]
    lists = [name for name in requested if isinstance(name, str) and name in LISTS] or ["weekly"]
    table.put_item(Item={"email": str(email).strip().lower(), "lists": lists, "source": "website"})


def lambda_handler(event, context):
    for record in event["Records"]:
        try:
            signup = json.loads(record["body"])
        except ValueError:
            logger.warning("not JSON: %s", record["messageId"])
            continue
        if isinstance(signup, dict):
            subscribe(signup)
    return {"processed": len(event["Records"])}
