"""Review moderation: the sentiment model's score (sent as a decimal string) is stored."""

import json
import logging
import os
from decimal import Decimal, InvalidOperation

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["SCORES_TABLE"])


def parse_score(raw) -> Decimal | None:
    try:
        return Decimal(str(raw))
    except InvalidOperation:
        return None


def lambda_handler(event, context):
    stored = 0
    for record in event["Records"]:
        try:
            message = json.loads(record["body"])
        except ValueError:
            logger.warning("skipping non-JSON message %s", record["messageId"])
            continue
        if not isinstance(message, dict):
            continue
        review_id, score = message.get("review_id"), parse_score(message.get("score"))
        if not isinstance(review_id, str) or not review_id or score is None:
            logger.warning("incomplete score message %s", record["messageId"])
            continue
        table.put_item(Item={"review_id": review_id, "score": score})
        stored += 1
    return {"stored": stored}
