"""Sales reports API: the report of one day, addressed as /reports/2026-11-23."""

import json
import logging
import os
from datetime import date, datetime
from decimal import Decimal

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["REPORTS_TABLE"])
FIRST_DAY = date(2020, 1, 1)


def _plain(value):
    """Numbers as their text, anything else DynamoDB returns (binary, sets) as its repr."""
    return str(value) if isinstance(value, Decimal) else repr(value)


def respond(status: int, body: dict) -> dict:
    return {"statusCode": status, "body": json.dumps(body, default=_plain)}


def lambda_handler(event, context):
    raw = (event.get("pathParameters") or {}).get("day", "")
    try:
        day = datetime.strptime(raw, "%Y-%m-%d").date()
        if day < FIRST_DAY or day > date(2100, 1, 1):
            return respond(404, {"error": "no reports for that day"})
        item = table.get_item(Key={"day": day.isoformat()}).get("Item")
    except Exception:
        logger.exception("report lookup failed for %r", raw)
        return respond(500, {"error": "report service unavailable"})
    if item is None:
        return respond(404, {"error": "no report yet"})
    return respond(200, item)
